"""13.5's verifier rules and wording, the default; a 13.3 build's (NVIDIA's open reference and
its test suite, emulated with ``TILEIR_BYTECODE_VERSIONS``) are kept.  Every expected
message is NVIDIA's 13.5 tileirdisasm's, for the same module written as 13.5 bytecode (probed
by hand; tests/oracles/test_v13_5_wording_oracles.py asks the tool itself).

- ftof: a widening conversion (every source value a normal target value) takes any IEEE
  rounding mode; conversions to the 8- and 4-bit formats other than f8E8M0FNU (fnv8E5M3FNU
  included) take only nearest_even; f64 -> f32 and f32 -> tf32 have their own words.
- Type constraint summaries list fnv8E5M3FNU after f4E2M1FN.
"""

from __future__ import annotations

import pytest

_BUILD_13_3 = "13.1 13.2 13.3"

#: tileirdisasm 13.5's ftof messages, after "'cuda_tile.ftof' op invalid rounding mode
#: specified".
_FTOF = {
    "N": ". Only 'nearest_even' and 'zero' are supported for narrowing conversions to "
         "standard types",
    "L": " for conversion to low-precision type. Only 'nearest_even' is supported",
    "E": " for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported",
    "T": " for conversion from f32 to tf32. Only 'nearest_even', 'zero', and 'nearest_away' "
         "are supported",
    "D": " for conversion from f64 to f32. Only 'nearest_even', 'zero', 'negative_inf', and "
         "'positive_inf' are supported",
    "W": " for widening conversion. Only IEEE float rounding modes are supported: "
         "'nearest_even', 'zero', 'negative_inf', 'positive_inf', 'nearest_away'",
}
_MODES = ("nearest_even", "zero", "negative_inf", "positive_inf", "nearest_away")
#: tileirdisasm 13.5 on ftof from each float type to each other with each mode of `_MODES`
#: ('.': accepted, else the `_FTOF` message).
_TABLE = """
f16 bf16 ..NNN   f16 f32 .....   f16 tf32 .....   f16 f64 .....   f16 f8E4M3FN .LLLL
f16 f8E5M2 .LLLL   f16 f8E8M0FNU E.E.E   f16 f4E2M1FN .LLLL   f16 fnv8E5M3FNU .LLLL
bf16 f16 ..NNN   bf16 f32 .....   bf16 tf32 .....   bf16 f64 .....   bf16 f8E4M3FN .LLLL
bf16 f8E5M2 .LLLL   bf16 f8E8M0FNU E.E.E   bf16 f4E2M1FN .LLLL   bf16 fnv8E5M3FNU .LLLL
f32 f16 ..NNN   f32 bf16 ..NNN   f32 tf32 ..TT.   f32 f64 .....   f32 f8E4M3FN .LLLL
f32 f8E5M2 .LLLL   f32 f8E8M0FNU E.E.E   f32 f4E2M1FN .LLLL   f32 fnv8E5M3FNU .LLLL
tf32 f16 ..NNN   tf32 bf16 ..NNN   tf32 f32 .....   tf32 f64 .....   tf32 f8E4M3FN .LLLL
tf32 f8E5M2 .LLLL   tf32 f8E8M0FNU E.E.E   tf32 f4E2M1FN .LLLL   tf32 fnv8E5M3FNU .LLLL
f64 f16 ..NNN   f64 bf16 ..NNN   f64 f32 ....D   f64 tf32 ..NNN   f64 f8E4M3FN .LLLL
f64 f8E5M2 .LLLL   f64 f8E8M0FNU E.E.E   f64 f4E2M1FN .LLLL   f64 fnv8E5M3FNU .LLLL
f8E4M3FN f16 .....   f8E4M3FN bf16 .....   f8E4M3FN f32 .....   f8E4M3FN tf32 .....
f8E4M3FN f64 .....   f8E4M3FN f8E5M2 .LLLL   f8E4M3FN f8E8M0FNU E.E.E
f8E4M3FN f4E2M1FN .LLLL   f8E4M3FN fnv8E5M3FNU .LLLL
f8E5M2 f16 .....   f8E5M2 bf16 .....   f8E5M2 f32 .....   f8E5M2 tf32 .....   f8E5M2 f64 .....
f8E5M2 f8E4M3FN .LLLL   f8E5M2 f8E8M0FNU E.E.E   f8E5M2 f4E2M1FN .LLLL
f8E5M2 fnv8E5M3FNU .LLLL
f8E8M0FNU f16 ..NNN   f8E8M0FNU bf16 ..NNN   f8E8M0FNU f32 ..NNN   f8E8M0FNU tf32 ..NNN
f8E8M0FNU f64 .....   f8E8M0FNU f8E4M3FN .LLLL   f8E8M0FNU f8E5M2 .LLLL
f8E8M0FNU f4E2M1FN .LLLL   f8E8M0FNU fnv8E5M3FNU .LLLL
f4E2M1FN f16 .....   f4E2M1FN bf16 .....   f4E2M1FN f32 .....   f4E2M1FN tf32 .....
f4E2M1FN f64 .....   f4E2M1FN f8E4M3FN .LLLL   f4E2M1FN f8E5M2 .LLLL
f4E2M1FN f8E8M0FNU E.E.E   f4E2M1FN fnv8E5M3FNU .LLLL
fnv8E5M3FNU f16 ..NNN   fnv8E5M3FNU bf16 .....   fnv8E5M3FNU f32 .....   fnv8E5M3FNU tf32 .....
fnv8E5M3FNU f64 .....   fnv8E5M3FNU f8E4M3FN .LLLL   fnv8E5M3FNU f8E5M2 .LLLL
fnv8E5M3FNU f8E8M0FNU E.E.E   fnv8E5M3FNU f4E2M1FN .LLLL
"""
_WORDS = _TABLE.split()
FTOF_CASES = [(src, dst, mode, code)
              for src, dst, codes in zip(_WORDS[0::3], _WORDS[1::3], _WORDS[2::3])
              for mode, code in zip(_MODES, codes)]


def _module(body: str, args: str = "") -> str:
    """An entry holding `body`."""
    return f"cuda_tile.module @m {{\n  entry @k({args}) {{\n    {body}\n    return\n  }}\n}}\n"


def ftof_text(src: str, dst: str, mode: str) -> str:
    """ftof of a constant 4-element `src` tile to `dst` with rounding `mode` (generic form,
    so that non-IEEE modes parse)."""
    return _module(
        f"%a = constant <{src}: 0.0> : tile<4x{src}>\n"
        f'    %b = "cuda_tile.ftof"(%a) <{{rounding_mode = #cuda_tile.rounding<{mode}>}}> : '
        f"(!cuda_tile.tile<4x{src}>) -> !cuda_tile.tile<4x{dst}>")


def ftof_expected(code: str) -> list[str]:
    return [] if code == "." else \
        [f"error: 'cuda_tile.ftof' op invalid rounding mode specified{_FTOF[code]}"]


def test_the_table_covers_every_pair() -> None:
    assert len(FTOF_CASES) == 10 * 9 * 5


@pytest.mark.parametrize("src, dst, mode, code", FTOF_CASES,
                         ids=[f"{s}-{d}-{m}" for s, d, m, _ in FTOF_CASES])
def test_ftof_rounding_as_13_5(diagnose, src: str, dst: str, mode: str, code: str) -> None:
    assert diagnose(ftof_text(src, dst, mode)) == ftof_expected(code)


#: Modes no conversion takes: (src, dst, mode, message code).
FTOF_OTHER_MODES = [
    ("f32", "f64", "approx", "W"), ("f32", "f64", "full", "W"),
    ("f32", "f64", "nearest_int_to_zero", "W"), ("f32", "f8E4M3FN", "approx", "L"),
    ("f32", "tf32", "full", "T"), ("f64", "f32", "nearest_int_to_zero", "D"),
    ("f32", "f16", "approx", "N"), ("f32", "f8E8M0FNU", "approx", "E"),
]


@pytest.mark.parametrize("src, dst, mode, code", FTOF_OTHER_MODES)
def test_ftof_non_ieee_modes(diagnose, src: str, dst: str, mode: str, code: str) -> None:
    assert diagnose(ftof_text(src, dst, mode)) == ftof_expected(code)


@pytest.mark.parametrize("src, dst, mode, message", [
    # NVIDIA's 13.3 suite (invalid.mlir) rejects a widening with negative_inf
    ("f32", "f64", "negative_inf", "invalid rounding mode specified. Only 'nearest_even' is "
                                   "supported"),
    ("f16", "f32", "zero", "invalid rounding mode specified. Only 'nearest_even' is supported"),
    ("f32", "f8E4M3FN", "zero", "invalid rounding mode specified. Only 'nearest_even' is "
                                "supported"),
])
def test_ftof_as_a_13_3_build(diagnose, monkeypatch, src: str, dst: str, mode: str,
                              message: str) -> None:
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", _BUILD_13_3)
    assert diagnose(ftof_text(src, dst, mode)) == [f"error: 'cuda_tile.ftof' op {message}"]


# ---- constraint summaries ---------------------------------------------------------------

_INTS = "i1 or i8 or i16 or i32 or i64"
_FLOATS = "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN"
_PTRS = ("%i = constant <i64: 0> : tile<4xi64>\n"
         "    %q = int_to_ptr %i : tile<4xi64> -> tile<4xptr<f32>>\n    ")
_PTR = "'!cuda_tile.tile<4xptr<f32>>'"

#: (body, the 13.5 message, the 13.3 build's message); all read "'cuda_tile.<op>' op ...".
SUMMARY_CASES = [
    (_PTRS + "%b = bitcast %q : tile<4xptr<f32>> -> tile<4xi64>",
     f"'cuda_tile.bitcast' op operand #0 must be tile of {_INTS} or {_FLOATS} or "
     f"fnv8E5M3FNU values, but got {_PTR}",
     f"'cuda_tile.bitcast' op operand #0 must be tile of {_INTS} or {_FLOATS} values, but "
     f"got {_PTR}"),
    (_PTRS + "%b = pack %q : tile<4xptr<f32>> -> tile<32xi8>",
     f"'cuda_tile.pack' op operand #0 must be tile of {_INTS} or {_FLOATS} or fnv8E5M3FNU "
     f"or i4 values, but got {_PTR}",
     f"'cuda_tile.pack' op operand #0 must be tile of {_INTS} or {_FLOATS} or i4 values, "
     f"but got {_PTR}"),
    (_PTRS + "%m = constant <i1: true> : tile<4xi1>\n"
             "    %b, %t = load_ptr_tko weak %q, %m, %q : tile<4xptr<f32>>, tile<4xi1>, "
             "tile<4xptr<f32>> -> tile<4xf32>, token",
     f"'cuda_tile.load_ptr_tko' op operand #2 must be tile of {_INTS} or {_FLOATS} or "
     f"fnv8E5M3FNU values, but got {_PTR}",
     f"'cuda_tile.load_ptr_tko' op operand #2 must be tile of {_INTS} or {_FLOATS} values, "
     f"but got {_PTR}"),
    ('%a = constant <f32: 0.0> : tile<2xf32>\n'
     '    %b = "cuda_tile.ftof"(%a) : (!cuda_tile.tile<2xf32>) -> !cuda_tile.tile<2xi32>',
     f"'cuda_tile.ftof' op result #0 must be tile of {_FLOATS} or fnv8E5M3FNU values, but "
     "got '!cuda_tile.tile<2xi32>'",
     f"'cuda_tile.ftof' op result #0 must be tile of {_FLOATS} values, but got "
     "'!cuda_tile.tile<2xi32>'"),
    ('%a = constant <i16: 0> : tile<2xi16>\n'
     '    %b = "cuda_tile.ftoi"(%a) <{signedness = #cuda_tile.signedness<signed>}> : '
     '(!cuda_tile.tile<2xi16>) -> !cuda_tile.tile<2xi32>',
     f"'cuda_tile.ftoi' op operand #0 must be tile of {_FLOATS} or fnv8E5M3FNU values, but "
     "got '!cuda_tile.tile<2xi16>'",
     f"'cuda_tile.ftoi' op operand #0 must be tile of {_FLOATS} values, but got "
     "'!cuda_tile.tile<2xi16>'"),
    ('%a = constant <i32: 0> : tile<4xi32>\n'
     '    %b = "cuda_tile.constant"() <{value = dense<0> : tile<4xi4>}> : '
     '() -> !cuda_tile.tile<4xi4>',
     f"'cuda_tile.constant' op result #0 must be tile of {_INTS} or {_FLOATS} or "
     "fnv8E5M3FNU values, but got '!cuda_tile.tile<4xi4>'",
     f"'cuda_tile.constant' op result #0 must be tile of {_INTS} or {_FLOATS} values, but "
     "got '!cuda_tile.tile<4xi4>'"),
]


@pytest.mark.parametrize("body, message, message_13_3", SUMMARY_CASES)
def test_summaries_list_fnv8e5m3fnu(diagnose, body: str, message: str,
                                    message_13_3: str) -> None:
    assert diagnose(_module(body)) == [f"error: {message}"]


@pytest.mark.parametrize("body, message, message_13_3", SUMMARY_CASES)
def test_summaries_as_a_13_3_build(diagnose, monkeypatch, body: str, message: str,
                                   message_13_3: str) -> None:
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", _BUILD_13_3)
    assert diagnose(_module(body)) == [f"error: {message_13_3}"]


def test_mmaf_scaled_scale_summary() -> None:
    """tileirdisasm 13.5 (the suite's invalid.mlir, an f32 scale): "operand #3 must be
    mmaf_scaled scale tile type of f8E4M3FN or f8E8M0FNU or fnv8E5M3FNU values"."""
    from tileir.ops.registry import all_ops
    from tileir.versions import V13_3, V13_5
    scale = next(d for d in all_ops() if d.name == "mmaf_scaled").operands[3].constraint
    assert scale.summary_at(V13_5) == \
        "mmaf_scaled scale tile type of f8E4M3FN or f8E8M0FNU or fnv8E5M3FNU values"
    assert scale.summary_at(V13_3) == "mmaf_scaled scale tile type of f8E4M3FN or f8E8M0FNU values"
