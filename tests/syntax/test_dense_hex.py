"""Dense elements past 100 print as MLIR prints them, the raw buffer in hex, and read back
(issue 16 §2): tileirdisasm printed ``constant <f32: "0x0000803F...">`` for every constant
of more than 100 elements, which tileir could neither print nor parse.  Expected strings
are built here from the spec's encodings (little-endian words; tf32's 19-bit code in three
bytes; i1 and 4-bit codes a byte each)."""

from __future__ import annotations

import pytest

import tileir
from tileir.syntax.dense_hex import HEX_ABOVE, from_hex, to_hex
from tileir.types import F4E2M1FN, F32, I1, I16, TF32


def _constant(t: str, n: int, literal: str) -> str:
    return f"""cuda_tile.module @kernels {{
  entry @k() {{
    %c = constant <{t}: {literal}> : tile<{n}x{t}>
    return
  }}
}}"""


def _words(values, size: int) -> str:
    return "".join((v & ((1 << 8 * size) - 1)).to_bytes(size, "little").hex().upper()
                   for v in values)


@pytest.mark.parametrize("t, values, literal, raw", [
    ("i16", [i - 60 for i in range(128)], None, None),
    ("i1", [i % 3 == 0 for i in range(128)], None, None),
    ("f32", [1.0, -1.0] * 64, None, "0000803F000080BF" * 64),
    ("tf32", [1.0, -1.0] * 64, None, "00FC0100FC05" * 64),          # codes 0x1FC00, 0x5FC00
    ("f4E2M1FN", [1.0, 0.5, -2.0, 3.0] * 32, None, "02010C05" * 32),
])
def test_more_than_100_elements_print_in_hex_and_read_back(t, values, literal, raw):
    if raw is None:
        raw = _words([int(v) for v in values], 2 if t == "i16" else 1)
    text = _constant(t, 128, "[" + ", ".join(
        ("true" if v else "false") if t == "i1" else str(v) for v in values) + "]")
    printed = tileir.parse(text).format()
    assert f'constant <{t}: "0x{raw}"> : tile<128x{t}>' in printed
    assert tileir.parse(printed).format() == printed


def test_up_to_100_elements_and_splats_print_as_lists():
    assert HEX_ABOVE == 100
    small = _constant("i16", 64, "[" + ", ".join(str(i) for i in range(64)) + "]")
    assert "[0, 1, 2," in tileir.parse(small).format()
    splat = tileir.parse(_constant("f32", 128, "1.0")).format()
    assert "constant <f32: 1.000000e+00> : tile<128xf32>" in splat


def test_a_one_element_hex_buffer_is_a_splat():
    text = _constant("f32", 128, '"0x0000803F"')
    assert "constant <f32: 1.000000e+00> : tile<128xf32>" in tileir.parse(text).format()


@pytest.mark.parametrize("literal, message", [
    ('"0x0000803F00"', "elements hex data size is invalid for provided type"),
    ('"0xZZ"', "expected hex string"),
    ('"1234"', "expected hex string"),
])
def test_bad_hex_is_one_located_error(literal, message):
    with pytest.raises(tileir.ParseError) as caught:
        tileir.parse(_constant("f32", 128, literal))
    assert caught.value.diagnostics[0].message == message
    assert str(caught.value.diagnostics[0].location).endswith(":3:25")     # the string


def test_the_dense_attribute_reads_hex_too():
    data = "0000803F" * 128
    global_text = f"""cuda_tile.module @kernels {{
  global @g <f32: "0x{data}"> : tile<128xf32>
}}"""
    assert from_hex("0x" + data, F32, 128) == (0x3F800000,) * 128
    module = tileir.parse(global_text)
    assert "@g <f32: 1.000000e+00> : tile<128xf32>" in module.format()     # a splat


def test_codes_past_a_narrow_float_are_refused():
    assert from_hex("0x12", F4E2M1FN, 1) == "element 0 has bits 0x12, more than the 4 bits of " \
                                            "f4E2M1FN"
    assert from_hex("0x00FC0F", TF32, 1).startswith("element 0 has bits 0xffc00")
    assert to_hex((1, 0, 1), I1) == '"0x010001"' and to_hex((-60, 5), I16) == '"0xC4FF0500"'
