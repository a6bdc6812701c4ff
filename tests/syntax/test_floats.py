"""Float literals printed and parsed exactly as MLIR (LLVM APFloat) does.

Expected strings come from three places, never from running the module: the CHECK lines
of NVIDIA's conformance suite (read from ../shared at test time), outputs of LLVM's own
``APFloat`` (libLLVM, run once by hand through MLIR's ``printFloatValue`` logic, copied
below as literals), and cases derived by hand from the algorithm, each with its working.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, require
from tileir.numerics.formats import FORMATS, decode
from tileir.syntax.floats import (FloatLiteralError, apfloat_to_string, decimal_to_bits,
                                  float_bits_from_hex, float_value, format_float,
                                  parse_float_literal)
from tileir.types import (BF16, F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F16, F32,
                          F64, TF32, FloatType)

NARROW = (F8E4M3FN, F8E5M2, F8E8M0FNU, F4E2M1FN, F8E5M3FNU)

# ---------------------------------------------------------------------------------------
# Oracle 1: the conformance suite's CHECK lines give the printed form of each literal
# ---------------------------------------------------------------------------------------

_LITERAL = re.compile(r"<(f16|bf16|f32|tf32|f64|f8E4M3FN|f8E5M2|f8E8M0FNU|f4E2M1FN|f8E5M3FNU):"
                      r"\s*(.*?)>\s*:")
_ELEMENT = re.compile(r"[^\[\],\s]+")


def _unregex(check: str) -> str:
    """A CHECK line with FileCheck's bracket escapes (``{{\\[}}``) turned back into text."""
    return re.sub(r"\{\{((?:\\[\[\]])+)\}\}", lambda m: m.group(1).replace("\\", ""), check)


def test_conformance_check_lines(tally):
    """Each ``constant <T: x>`` after a CHECK line prints as that CHECK line says."""
    root = require(CONFORMANCE / "Dialect")
    pairs = 0
    for path in sorted(root.rglob("*.mlir")):
        expected = None
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith("//"):
                if "CHECK" in stripped:
                    m = _LITERAL.search(_unregex(stripped))
                    expected = m if m and "{{" not in m.group(2) else None
                continue
            m = _LITERAL.search(line)
            if m and expected and expected.group(1) == m.group(1):
                t = FloatType(m.group(1))
                source = _ELEMENT.findall(m.group(2))
                want = _ELEMENT.findall(expected.group(2))
                if len(source) == len(want):
                    got = [format_float(parse_float_literal(x, t), t) for x in source]
                    assert got == want, f"{path.name}: {line.strip()}"
                    pairs += 1
            expected = None
    assert pairs > 100
    tally("conformance float literals", pairs)


# ---------------------------------------------------------------------------------------
# Oracle 2: LLVM's APFloat, run by hand (libLLVM printFloatValue logic), copied here
# ---------------------------------------------------------------------------------------

LLVM_PRINTED = [
    # (type, storage word, printFloatValue, APFloat::toString() with its defaults)
    (F16, 0xC249, "-3.142580e+00", "-3.1426"),
    (F16, 0x45A9, "5.660150e+00", "5.6602"),      # truncated, not rounded: see below
    (F16, 0x1DFE, "5.851740e-03", "0.0058517"),
    (F16, 0x7BFF, "6.550400e+04", "65504"),
    (F16, 0x8000, "-0.000000e+00", "-0"),
    (F16, 0x0001, "5.960460e-08", "5.9605E-8"),
    (F16, 0x3555, "3.332520e-01", "0.33325"),
    (F16, 0x7C00, "0x7C00", "+Inf"),
    (F16, 0xFE00, "0xFE00", "NaN"),
    (BF16, 0x3F80, "1.000000e+00", "1"),
    (BF16, 0x4049, "3.140630e+00", "3.141"),
    (BF16, 0x7F7F, "3.389530e+38", "3.39E+38"),
    (BF16, 0x7F80, "0x7F80", "+Inf"),
    (F32, 0x3DCCCCCD, "1.000000e-01", "0.100000001"),
    (F32, 0x40490FDB, "3.14159274", "3.14159274"),
    (F32, 0x3F800001, "1.00000012", "1.00000012"),
    (F32, 0x7F7FFFFF, "3.40282347E+38", "3.40282347E+38"),
    (F32, 0x00800000, "1.17549435E-38", "1.17549435E-38"),
    (F32, 0x00000001, "1.401300e-45", "1.40129846E-45"),
    (F32, 0x80000000, "-0.000000e+00", "-0"),
    (F32, 0x4B800000, "0x4B800000", "16777216"),      # default form has no '.': hex
    (F32, 0x4B7FFFFF, "0x4B7FFFFF", "16777215"),
    (F32, 0x4CEB79A3, "0x4CEB79A3", "123456792"),
    (F32, 0x4E6E6B28, "1.000000e+09", "1.0E+9"),
    (F32, 0x461C4000, "1.000000e+04", "1.0E+4"),
    (F32, 0x7F800000, "0x7F800000", "+Inf"),
    (F32, 0x7FC00000, "0x7FC00000", "NaN"),
    (F32, 0xFFC00000, "0xFFC00000", "NaN"),
    (F64, 0x4005BF0A8B145769, "2.7182818284590451", "2.7182818284590451"),
    (F64, 0x3FD5555555555555, "0.33333333333333331", "0.33333333333333331"),
    (F64, 0x3FB999999999999A, "1.000000e-01", "0.10000000000000001"),
    (F64, 0x400921FB54442D18, "3.1415926535897931", "3.1415926535897931"),
    (F64, 0xBFF6A09E667F3BCD, "-1.4142135623730951", "-1.4142135623730951"),
    (F64, 0x3FF0000000000001, "1.0000000000000002", "1.0000000000000002"),
    (F64, 0x7E37E43C8800759C, "1.000000e+300", "1.0000000000000001E+300"),
    (F64, 0x7FEFFFFFFFFFFFFF, "1.7976931348623157E+308", "1.7976931348623157E+308"),
    (F64, 0x0010000000000000, "2.2250738585072014E-308", "2.2250738585072014E-308"),
    (F64, 0x0000000000000001, "4.940660e-324", "4.9406564584124654E-324"),
    (F64, 0x4340000000000000, "0x4340000000000000", "9007199254740992"),
    (F64, 0x4376345785D8A000, "1.000000e+17", "1.0E+17"),
    (F64, 0x412E848000000000, "1.000000e+06", "1.0E+6"),
    (F64, 0x3F50624DD2F1A9FC, "1.000000e-03", "0.001"),
]


@pytest.mark.parametrize("t, bits, printed, default", LLVM_PRINTED,
                         ids=[f"{t.name}-{b:#x}" for t, b, _, _ in LLVM_PRINTED])
def test_llvm_printed(t, bits, printed, default):
    assert format_float(bits, t) == printed
    assert apfloat_to_string(bits, t) == default


LLVM_PARSED = [
    # (type, literal, parsed via double as MLIR does, APFloat(type, literal) directly)
    (F16, "70000.0", 0x7C00, 0x7C00),
    (F32, "1e40", 0x7F800000, 0x7F800000),
    (F16, "65519.99", 0x7BFF, 0x7BFF),
    (F16, "65520.0", 0x7C00, 0x7C00),           # the midpoint to 2**16 rounds to Inf
    (F16, "0.1", 0x2E66, 0x2E66),
    (BF16, "5.5", 0x40B0, 0x40B0),
    (F16, "-3.14159", 0xC248, 0xC248),
    # Just above the midpoint of 1.0 and its f16 successor by less than half an f64 ulp:
    # the double is the midpoint itself, which ties to even, while a direct conversion
    # rounds up.
    (F16, "1.00048828125000001", 0x3C00, 0x3C01),
]


@pytest.mark.parametrize("t, text, via_double, direct", LLVM_PARSED)
def test_llvm_parsed(t, text, via_double, direct):
    literal = text if "." in text else text.replace("e", ".0e")
    assert parse_float_literal(literal, t) == via_double
    assert decimal_to_bits(text, t) == direct


# ---------------------------------------------------------------------------------------
# Oracle 3: worked by hand from APFloat's algorithms
# ---------------------------------------------------------------------------------------

HAND_PRINTED = [
    # f16 5.66015625 = 1449 * 2**-8 = 566015625e-8 (30 bits); toString first integer-divides
    # by 10**((30 - 20) * 59 // 196) = 10**3, leaving 566015: six digits, so no rounding.
    (F16, 0x45A9, "5.660150e+00"),
    # e4m3 0x01 = 2**-9 = 1953125e-9 (21 bits, nothing divided away): half-up gives 195313.
    (F8E4M3FN, 0x01, "1.953130e-03"),
    # e5m2 0x01 = 2**-16 = 152587890625e-16: 10**5 divided away, 1525878 rounds to 152588.
    (F8E5M2, 0x01, "1.525880e-05"),
    (F8E4M3FN, 0x7E, "4.480000e+02"),
    (F8E4M3FN, 0x7F, "0x7F"),
    (F8E4M3FN, 0xFF, "0xFF"),
    (F8E4M3FN, 0x80, "-0.000000e+00"),
    (F8E5M2, 0x7B, "5.734400e+04"),
    (F8E5M2, 0x7C, "0x7C"),
    (F8E5M2, 0xFC, "0xFC"),
    (F8E5M2, 0x7D, "0x7D"),
    (F8E5M2, 0xBC, "-1.000000e+00"),
    # e8m0: 2**-127 = 5.877471754...e-39 and 2**127 = 1.70141183...e+38, both rounded down
    # to six digits; each still reads back to the same power of two.
    (F8E8M0FNU, 0x00, "5.877470e-39"),
    (F8E8M0FNU, 0xFE, "1.701410e+38"),
    (F8E8M0FNU, 0x7F, "1.000000e+00"),
    (F8E8M0FNU, 0x80, "2.000000e+00"),
    (F8E8M0FNU, 0xFF, "0xFF"),
    (F4E2M1FN, 0x1, "5.000000e-01"),
    (F4E2M1FN, 0x2, "1.000000e+00"),
    (F4E2M1FN, 0x7, "6.000000e+00"),
    (F4E2M1FN, 0xF, "-6.000000e+00"),
    (F4E2M1FN, 0x8, "-0.000000e+00"),
    (F8E5M3FNU, 0xFE, "1.146880e+05"),       # 1.75 * 2**16
    (F8E5M3FNU, 0xFF, "0xFF"),
    # tf32 words keep the value in their top 19 bits; hex literals are the 19-bit code.
    (TF32, 0x3F800000, "1.000000e+00"),
    (TF32, 0x40490000, "3.140630e+00"),      # 3.140625, half-up to six digits
    (TF32, 0x7F800000, "0x3FC00"),
    (TF32, 0xFFC00000, "0x7FE00"),
    (TF32, 0x3F801FFF, "1.000000e+00"),      # bits below the tf32 mantissa are ignored
    (F32, 0x00000000, "0.000000e+00"),
]


@pytest.mark.parametrize("t, bits, printed", HAND_PRINTED,
                         ids=[f"{t.name}-{b:#x}" for t, b, _ in HAND_PRINTED])
def test_hand_printed(t, bits, printed):
    assert format_float(bits, t) == printed


HAND_PARSED = [
    # e4m3: 448 is the largest value; 464 ties to it (mantissa 110 is even); anything
    # above rounds to the all-ones magnitude, which is NaN, keeping the sign.
    (F8E4M3FN, "448.0", 0x7E),
    (F8E4M3FN, "464.0", 0x7E),
    (F8E4M3FN, "465.0", 0x7F),
    (F8E4M3FN, "480.0", 0x7F),
    (F8E4M3FN, "-1000.0", 0xFF),
    (F8E4M3FN, "1.0e10", 0x7F),
    (F8E4M3FN, "2.5", 0x42),
    (F8E4M3FN, "-0.0", 0x80),
    # e5m2 is IEEE-like: 61440 ties between 57344 (mantissa 11, odd) and 2**16 = Inf.
    (F8E5M2, "61440.0", 0x7C),
    (F8E5M2, "-1.0", 0xBC),
    (F8E5M2, "1.0e-10", 0x00),
    # fp4 has no Inf or NaN: overflow saturates at 6.0.  5.0 ties to 4.0 (even), 0.25
    # ties to 0, 0.75 ties up to 1.0.
    (F4E2M1FN, "7.0", 0x7),
    (F4E2M1FN, "-100.0", 0xF),
    (F4E2M1FN, "5.0", 0x6),
    (F4E2M1FN, "0.25", 0x0),
    (F4E2M1FN, "0.75", 0x2),
    (F4E2M1FN, "-0.0", 0x8),
    # e8m0: a one-bit significand makes every tie round up (3 -> 4, 0.75 -> 1, 1.5 -> 2);
    # there is no zero, so 0 and anything below 2**-127 give code 0; overflow is NaN.
    (F8E8M0FNU, "3.0", 0x81),
    (F8E8M0FNU, "0.75", 0x7F),
    (F8E8M0FNU, "1.5", 0x80),
    (F8E8M0FNU, "0.0", 0x00),
    (F8E8M0FNU, "-0.0", 0x00),
    (F8E8M0FNU, "1.0e-50", 0x00),
    (F8E8M0FNU, "1.0e39", 0xFF),
    # e5m3fnu (modelled on e4m3fn): 118784 ties to 114688 (mantissa 110), 122880 is the
    # NaN pattern.
    (F8E5M3FNU, "114688.0", 0xFE),
    (F8E5M3FNU, "118784.0", 0xFE),
    (F8E5M3FNU, "122880.0", 0xFF),
    (F8E5M3FNU, "-0.0", 0x00),
    # tf32: 3.14 rounds to 1.5703125 * 2 (mantissa 584), code 0x20248, word 0x40490000.
    (TF32, "3.14", 0x40490000),
    (TF32, "1.0e39", 0x7F800000),
    (F64, "1" + "0" * 400 + ".0", 0x7FF0000000000000),
    (F32, "1.e5", 0x47C35000),
    (F32, "-0.0", 0x80000000),
]


@pytest.mark.parametrize("t, text, bits", HAND_PARSED,
                         ids=[f"{t.name}-{text[:12]}" for t, text, _ in HAND_PARSED])
def test_hand_parsed(t, text, bits):
    assert parse_float_literal(text, t) == bits


# ---------------------------------------------------------------------------------------
# Hex literals and errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("t, text, bits", [
    (F32, "0x7F800000", 0x7F800000),
    (F32, "0x00000000", 0),
    (F16, "0x3C00", 0x3C00),
    (F16, "0x1", 0x1),
    (F4E2M1FN, "0x2", 0x2),
    (F4E2M1FN, "0xF", 0xF),
    (F8E8M0FNU, "0xFF", 0xFF),
    (TF32, "0x7FFFF", 0xFFFFE000),
    (F64, "0x7FF0000000000000", 0x7FF0000000000000),
])
def test_hex_literals(t, text, bits):
    assert parse_float_literal(text, t) == bits
    assert float_bits_from_hex(int(text, 16), t) == bits


@pytest.mark.parametrize("t, value", [
    (F16, 0x12345678), (F16, 0x10000), (F4E2M1FN, 0x10), (TF32, 0x80000), (F8E4M3FN, 0x100),
])
def test_hex_out_of_range(t, value):
    with pytest.raises(FloatLiteralError, match="^hexadecimal float constant out of range "
                                                "for type$"):
        float_bits_from_hex(value, t)
    with pytest.raises(FloatLiteralError, match="float constant out of range for type"):
        parse_float_literal(hex(value), t)


def test_literal_errors():
    with pytest.raises(FloatLiteralError) as info:
        parse_float_literal("42", F32)
    assert info.value.message == "unexpected decimal integer literal for a floating point value"
    assert info.value.note == "add a trailing dot to make the literal a float"
    with pytest.raises(FloatLiteralError, match="should not have a leading minus"):
        parse_float_literal("-0x7fff", F16)
    for bad in ("inf", "nan", ".5", "1.5e", "+1.0", "1_0.0", " 1.0", "0X10"):
        with pytest.raises(FloatLiteralError):
            parse_float_literal(bad, F32)
    with pytest.raises(FloatLiteralError, match="unsigned"):
        parse_float_literal("-1.0", F8E8M0FNU)
    with pytest.raises(ValueError):
        format_float(0x10000, F16)


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------


def _round_trips(bits: int, t: FloatType) -> None:
    text = format_float(bits, t)
    assert parse_float_literal(text, t) == bits, text
    if not text.startswith("0x"):
        assert math.isfinite(float_value(bits, t))


@pytest.mark.parametrize("t", NARROW, ids=lambda t: t.name)
def test_narrow_types_round_trip(t, tally):
    """Every code of the 8- and 4-bit types prints as a literal that parses back to it."""
    fmt = FORMATS[t]
    for code in range(1 << fmt.bits):
        _round_trips(code, t)
    tally("narrow float round trips", 1 << fmt.bits)


@pytest.mark.parametrize("t", (F16, BF16), ids=lambda t: t.name)
def test_sixteen_bit_types_round_trip(t, tally):
    for code in range(1 << 16):
        _round_trips(code, t)
    tally("16-bit float round trips", 1 << 16)


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, (1 << 32) - 1))
def test_f32_round_trip(bits):
    _round_trips(bits, F32)
    _round_trips(bits & ~0x1FFF, TF32)


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_f64_round_trip(bits):
    _round_trips(bits, F64)


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_f64_parse_matches_python(x):
    """An f64 literal is the correctly rounded double, as Python's float() gives it."""
    text = repr(x)
    if "." not in text:
        text = text.replace("e", ".0e")
    bits = int(np.float64(x).view(np.uint64))
    assert parse_float_literal(text, F64) == bits


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_printed_digits_are_exact_prefixes(bits):
    """The six-digit form holds the exact value's first digits, the last possibly rounded up."""
    text = format_float(bits, F64)
    if not re.fullmatch(r"-?\d\.\d{6}e[-+]\d+", text):
        return
    mantissa, exponent = text.lstrip("-").split("e")
    assert mantissa[-1] == "0"                   # padded to six places after the point
    printed = Fraction(int(mantissa.replace(".", "")[:6]))
    exact = abs(Fraction(float_value(bits, F64))) / Fraction(10) ** (int(exponent) - 5)
    assert printed - 1 <= exact < printed + 1


@pytest.mark.parametrize("t", FORMATS, ids=lambda t: t.name)
def test_float_value_matches_numerics(t):
    """`float_value` agrees with the numerics decoder on every code (sampled for wide types)."""
    fmt = FORMATS[t]
    codes = np.arange(1 << fmt.bits) if fmt.bits <= 16 else np.random.default_rng(0).integers(
        0, 1 << fmt.bits, 5000, dtype=np.uint64)
    words = codes.astype(np.uint64) << np.uint64(fmt.container_shift)
    want = decode(words, fmt)
    got = np.array([float_value(int(w), t) for w in words])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert np.array_equal(got[finite], want[finite])
    assert np.array_equal(np.signbit(got[finite]), np.signbit(want[finite]))
