"""The raw element buffer shared by bytecode constants and hex text: codes little-endian
in ceil(bits / 8) bytes, built here by hand from the spec's encodings."""

from __future__ import annotations

import pytest

from tileir.numerics.raw import element_bytes, from_raw, to_raw
from tileir.types import F4E2M1FN, F16, I1, I8, I64, TF32


@pytest.mark.parametrize("t, values, raw", [
    (I8, (-1, 5), b"\xff\x05"),
    (I64, (-2,), b"\xfe" + b"\xff" * 7),
    (I1, (1, 0, 1), b"\x01\x00\x01"),
    (F16, (0x3C00, 0xC000), b"\x00\x3c\x00\xc0"),                  # 1.0, -2.0
    (TF32, (0x3F800000, 0xBF800000), b"\x00\xfc\x01\x00\xfc\x05"),  # codes 0x1FC00, 0x5FC00
    (F4E2M1FN, (0x2, 0xC), b"\x02\x0c"),                             # 1.0, -2.0
])
def test_elements_and_their_raw_buffer(t, values, raw):
    assert element_bytes(t) * len(values) == len(raw)
    assert to_raw(values, t) == raw
    assert from_raw(raw, t) == values


def test_a_float_code_past_its_bits_is_refused():
    with pytest.raises(ValueError, match="element 1 has bits 0x12, more than the 4 bits of "
                                         "f4E2M1FN"):
        from_raw(b"\x02\x12", F4E2M1FN)
