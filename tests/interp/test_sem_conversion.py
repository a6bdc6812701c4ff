"""Semantics of the conversion ops: exact bit patterns worked out from IEEE 754 and spec 5.1.3."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tileir import VerificationError
from tileir.diagnostics import ExecutionError


def module(op: str, *args: str) -> str:
    """A module whose first function takes `args` (``%a: type``) and starts with `op`."""
    return ("cuda_tile.module @m {\n  cuda_tile.testing$func @f(" + ", ".join(args) + ") {\n"
            f"    {op}\n  }}\n}}")


def conv(name: str, attrs: str, source: str, target: str, n: int = 4) -> str:
    """`name` converting a ``tile<n x source>`` to ``tile<n x target>``."""
    return module(f"%0 = cuda_tile.{name} %a {attrs} : !cuda_tile.tile<{n}x{source}> -> "
                  f"!cuda_tile.tile<{n}x{target}>", f"%a: !cuda_tile.tile<{n}x{source}>")


def f32(*words: int) -> np.ndarray:
    """f32 values from their bit patterns."""
    return np.array(words, np.uint32).view(np.float32)


def bits(values: np.ndarray) -> list[int]:
    """The storage words of a float array (8-bit types as bytes)."""
    a = np.asarray(values)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]).tolist()


# ---- ftof ------------------------------------------------------------------------------


def test_ftof_f32_to_f16_nearest_even(run_op):
    # 1 + 2^-11 ties between 1.0 and 1 + 2^-10: even is 1.0; 1 + 3*2^-11 ties to 1 + 2^-9.
    # 65520 ties between 65504 and 65536 (even, out of range) -> Inf; 2^-25 ties to +0.
    x = f32(0x3F801000, 0x3F803000, 0x477FF000, 0x33000000)
    out = run_op(conv("ftof", "", "f32", "f16"), x)
    assert out.dtype == np.float16 and bits(out) == [0x3C00, 0x3C02, 0x7C00, 0x0000]


def test_ftof_f32_to_f16_specials(run_op):
    # -0.0 keeps its sign; 2^-24 is the smallest subnormal; 0.75 * 2^-24 rounds up to it.
    x = f32(0x80000000, 0x33800000, 0x33400000, 0xFF800000)
    out = run_op(conv("ftof", "", "f32", "f16"), x)
    assert bits(out) == [0x8000, 0x0001, 0x0001, 0xFC00]


def test_ftof_f32_to_f16_nan_stays_nan(run_op):
    out = run_op(conv("ftof", "", "f32", "f16", 2), f32(0x7FC00000, 0xFFC00001))
    assert np.isnan(out).all()


def test_ftof_f32_to_f16_toward_zero(run_op):
    # 65520 truncates to 65504 (0x7BFF); 1 + 2^-10 + 2^-11 truncates to 1 + 2^-10;
    # -(2 - 2^-23) truncates to -(2 - 2^-10); Inf stays Inf.
    x = f32(0x477FF000, 0x3F803000, 0xBFFFFFFF, 0x7F800000)
    out = run_op(conv("ftof", "rounding<zero>", "f32", "f16"), x)
    assert bits(out) == [0x7BFF, 0x3C01, 0xBFFF, 0x7C00]


def test_ftof_f32_to_bf16(run_op):
    # bf16 keeps the top 16 bits of f32: 0x3F808000 ties (even: 0x3F80), 0x3F818000 ties up
    # to 0x3F82; toward zero truncates 0x3F81FFFF to 0x3F81.
    x = f32(0x3F808000, 0x3F818000, 0x3F81FFFF, 0xFF7FFFFF)
    out = run_op(conv("ftof", "", "f32", "bf16"), x)
    assert out.dtype == ml_dtypes.bfloat16
    assert bits(out) == [0x3F80, 0x3F82, 0x3F82, 0xFF80]
    out = run_op(conv("ftof", "rounding<zero>", "f32", "bf16"), x)
    assert bits(out) == [0x3F80, 0x3F81, 0x3F81, 0xFF7F]


@pytest.mark.parametrize("mode, expected", [
    ("nearest_even", [0x3F800000, 0x3F804000, 0xBF800000, 0x3F800000]),
    ("nearest_away", [0x3F802000, 0x3F804000, 0xBF802000, 0x3F800000]),
    ("zero", [0x3F800000, 0x3F802000, 0xBF800000, 0x3F800000]),
])
def test_ftof_f32_to_tf32_rounding(run_op, mode, expected):
    # tf32 keeps 10 mantissa bits (the top 19 bits of an f32 word): 1 + 2^-11 is a tie,
    # 1 + 3*2^-11 a tie whose even and away neighbours agree, 1 + 2^-12 below the tie.
    x = f32(0x3F801000, 0x3F803000, 0xBF801000, 0x3F800800)
    out = run_op(conv("ftof", f"rounding<{mode}>", "f32", "tf32"), x)
    assert bits(out) == expected


def test_ftof_widening_is_exact(run_op):
    # bf16 0x3F81 is 1 + 2^-7; f16 0x0001 is 2^-24 (exact in f32).
    out = run_op(conv("ftof", "", "bf16", "f32", 2),
                 np.array([0x3F81, 0xFF80], np.uint16).view(ml_dtypes.bfloat16))
    assert bits(out) == [0x3F810000, 0xFF800000]
    out = run_op(conv("ftof", "", "f16", "f64", 2), np.array([0x0001, 0x8000], np.uint16)
                 .view(np.float16))
    assert bits(out) == [0x3E70000000000000, 0x8000000000000000]


def test_ftof_f64_to_f32_rounds_once(run_op):
    # 1 + 2^-24 + 2^-52 lies just above the f32 tie: it rounds up (double rounding through
    # an intermediate would not); 2^-150 ties to +0, 3 * 2^-151 rounds to 2^-149.
    x = np.array([1 + 2.0**-24 + 2.0**-52, 2.0**-150, 3 * 2.0**-151, -1e39])
    out = run_op(conv("ftof", "", "f64", "f32"), x)
    assert bits(out) == [0x3F800001, 0x00000000, 0x00000001, 0xFF800000]


def test_ftof_to_e4m3_saturates(run_op):
    # e4m3: MAX_NORM 448 = 0x7E; 464 (a tie with the NaN code) and Inf saturate to +-448;
    # NaN becomes +MAX_NORM (spec 5.1.3); 2^-9 is the smallest subnormal 0x01.
    x = np.array([448.0, 464.0, np.inf, -np.inf, np.nan, 2.0**-9, -2.0**-10, 1e6], np.float32)
    out = run_op(conv("ftof", "", "f32", "f8E4M3FN", 8), x)
    assert out.dtype == ml_dtypes.float8_e4m3fn
    assert bits(out) == [0x7E, 0x7E, 0x7E, 0xFE, 0x7E, 0x01, 0x80, 0x7E]


def test_ftof_to_e5m2_saturates_but_keeps_nan(run_op):
    # e5m2: MAX_NORM 57344 = 0x7B; 61440 ties with Inf: satfinite gives 0x7B.
    x = np.array([57344.0, 61440.0, -np.inf, 1e30], np.float32)
    out = run_op(conv("ftof", "", "f32", "f8E5M2"), x)
    assert bits(out) == [0x7B, 0x7B, 0xFB, 0x7B]
    nan = run_op(conv("ftof", "", "f32", "f8E5M2", 2), np.array([np.nan, -np.nan], np.float32))
    assert np.isnan(nan.astype(np.float32)).all()


def test_ftof_to_f4e2m1(run_op):
    # Codes: 0, 0.5, 1, 1.5, 2, 3, 4, 6.  5 ties 4 (code 6, even) and 6 (code 7); 2.5 ties
    # 2 (code 4) and 3 (code 5); 0.75 ties 0.5 (1) and 1 (2); out of range saturates to 6.
    x = np.array([0.5, 1.5, 5.0, 2.5, 0.75, 100.0, -100.0, -0.0], np.float32)
    out = run_op(conv("ftof", "", "f32", "f4E2M1FN", 8), x)
    codes = out.view(np.uint8) & 0xF
    assert codes.tolist() == [0x1, 0x3, 0x6, 0x4, 0x2, 0x7, 0xF, 0x8]


def test_ftof_to_e8m0_directed(run_op):
    # e8m0 holds powers of two 2^(code - 127): 3.0 rounds down to 2 (0x80) toward zero and
    # up to 4 (0x81) toward +Inf; 1.0 is 0x7F; NaN is 0xFF.
    x = np.array([3.0, 1.0, 0.375, np.nan], np.float32)
    down = run_op(conv("ftof", "rounding<zero>", "f32", "f8E8M0FNU"), x)
    up = run_op(conv("ftof", "rounding<positive_inf>", "f32", "f8E8M0FNU"), x)
    assert bits(down) == [0x80, 0x7F, 0x7D, 0xFF]
    assert bits(up) == [0x81, 0x7F, 0x7E, 0xFF]


def test_ftof_fnv8e5m3_round_trip(run_op):
    # 3 mantissa bits: 1.0625 ties 1.0 and 1.125 (even: 1.0); 1.1 rounds to 1.125; 1.0
    # and 1.125 are exact.  (13.5 allows only nearest_even into a low-precision type, so
    # 13.4's rounding<zero> here is now refused by the verifier.)
    x = np.array([1.0625, 1.1, 1.0, 1.125], np.float32)
    near = run_op(conv("ftof", "", "f32", "fnv8E5M3FNU"), x)
    back = conv("ftof", "", "fnv8E5M3FNU", "f32")
    assert run_op(back, near).tolist() == [1.0, 1.125, 1.0, 1.125]
    with pytest.raises(VerificationError, match="invalid rounding mode specified for "
                                                "conversion to low-precision type"):
        run_op(conv("ftof", "rounding<zero>", "f32", "fnv8E5M3FNU"), x)


def test_ftof_from_narrow_formats_is_exact(run_op):
    # e5m2: 0x7C is +Inf, 0x01 is 2^-16, 0xFB is -57344; e8m0: 0x00 is 2^-127 (an f32
    # subnormal), 0x7F is 1.0, 0xFF NaN; f4E2M1FN: 0.5, 6.0, -6.0, -0.0.
    out = run_op(conv("ftof", "", "f8E5M2", "f32"),
                 np.array([0x7C, 0x01, 0xFB, 0x00], np.uint8).view(ml_dtypes.float8_e5m2))
    assert bits(out) == [0x7F800000, 0x37800000, 0xC7600000, 0x00000000]
    out = run_op(conv("ftof", "", "f8E8M0FNU", "f32"),
                 np.array([0x00, 0x7F, 0x80, 0xFF], np.uint8).view(ml_dtypes.float8_e8m0fnu))
    assert bits(out)[:3] == [0x00400000, 0x3F800000, 0x40000000] and np.isnan(out[3])
    out = run_op(conv("ftof", "", "f4E2M1FN", "f16"),
                 np.array([0x1, 0x7, 0xF, 0x8], np.uint8).view(ml_dtypes.float4_e2m1fn))
    assert bits(out) == [0x3800, 0x4600, 0xC600, 0x8000]
    nan = run_op(conv("ftof", "", "f8E4M3FN", "f32", 2),
                 np.array([0x7F, 0xFF], np.uint8).view(ml_dtypes.float8_e4m3fn))
    assert np.isnan(nan).all()


def test_ftof_tf32_source_reads_ten_mantissa_bits(run_op):
    # A tf32 value held in an f32 word: the 13 bits below its mantissa are not part of it.
    x = np.array([0x3F801FFF, 0x3F802000, 0x7F800000, 0x80000000], np.uint32).view(np.float32)
    out = run_op(conv("ftof", "", "tf32", "f32"), x)
    assert bits(out) == [0x3F800000, 0x3F802000, 0x7F800000, 0x80000000]


# ---- itof ------------------------------------------------------------------------------


def test_itof_signedness(run_op):
    # 0xFFFFFFFF is -1 signed and 4294967295 unsigned, which rounds to 2^32 (0x4F800000).
    x = np.array([-1, 16777217, 16777219, -2147483648], np.int32)
    signed = run_op(conv("itof", "signed", "i32", "f32"), x)
    unsigned = run_op(conv("itof", "unsigned", "i32", "f32"), x)
    # 2^24 + 1 ties to 2^24; 2^24 + 3 ties to 2^24 + 4 (even significand).
    assert bits(signed) == [0xBF800000, 0x4B800000, 0x4B800002, 0xCF000000]
    assert bits(unsigned) == [0x4F800000, 0x4B800000, 0x4B800002, 0x4F000000]


def test_itof_i64_is_rounded_once(run_op):
    # 2^53 + 1 ties (even: 2^53); 2^63 - 1 rounds to 2^63; 2^53 + 3 ties up to 2^53 + 4.
    x = np.array([2**53 + 1, 2**63 - 1, 2**53 + 3, -(2**63)], np.int64)
    out = run_op(conv("itof", "signed", "i64", "f64"), x)
    assert bits(out) == [0x4340000000000000, 0x43E0000000000000, 0x4340000000000002,
                         0xC3E0000000000000]
    # 2^64 - 1 unsigned rounds to 2^64 in f32 (0x5F800000).
    out = run_op(conv("itof", "unsigned", "i64", "f32", 2), np.array([-1, 1], np.int64))
    assert bits(out) == [0x5F800000, 0x3F800000]


def test_itof_i1_and_narrow_targets(run_op):
    assert run_op(conv("itof", "signed", "i1", "f16", 2), np.array([True, False])).tolist() \
        == [-1.0, 0.0]
    assert run_op(conv("itof", "unsigned", "i1", "f16", 2), np.array([True, False])).tolist() \
        == [1.0, 0.0]
    # Out of e4m3's range: satfinite to +-448 (spec 5.1.3 names itof too).
    out = run_op(conv("itof", "signed", "i16", "f8E4M3FN"), np.array([1000, -1000, 3, 17],
                                                                      np.int16))
    # 17 ties 16 (0x58) and 18 (0x59): even gives 16.
    assert bits(out) == [0x7E, 0xFE, 0x44, 0x58]


def test_itof_to_tf32_and_bf16(run_op):
    # tf32 keeps 11 significant bits: 1025 is exact, 2049 ties to 2048, 2051 ties to 2052.
    out = run_op(conv("itof", "signed", "i32", "tf32"),
                 np.array([1025, 2049, 2051, -1], np.int32))
    assert bits(out) == [0x44802000, 0x45000000, 0x45004000, 0xBF800000]
    # bf16 keeps 8: 257 ties to 256, 259 ties to 260.
    out = run_op(conv("itof", "signed", "i32", "bf16"), np.array([257, 259, -3, 0], np.int32))
    assert bits(out) == [0x4380, 0x4382, 0xC040, 0x0000]


# ---- ftoi ------------------------------------------------------------------------------


def test_ftoi_rounds_toward_zero(run_op):
    x = np.array([2.7, -2.7, -0.5, 2147483520.0], np.float32)
    out = run_op(conv("ftoi", "signed", "f32", "i32"), x)
    assert out.dtype == np.int32 and out.tolist() == [2, -2, 0, 2147483520]


def test_ftoi_unsigned_reads_wide_values(run_op):
    # 3e9 fits u32: the i32 tile holds its bits, 3000000000 - 2^32.
    x = np.array([3e9, 0.9, 4294967040.0, -0.9], np.float32)
    out = run_op(conv("ftoi", "unsigned", "f32", "i32"), x)
    assert out.tolist() == [3000000000 - 2**32, 0, 4294967040 - 2**32, 0]


def test_ftoi_saturating(run_op):
    x = np.array([1e10, -1e10, np.nan, np.inf], np.float32)
    signed = run_op(conv("ftoi", "signed saturating", "f32", "i32"), x)
    assert signed.tolist() == [2**31 - 1, -2**31, 0, 2**31 - 1]
    unsigned = run_op(conv("ftoi", "unsigned saturating", "f32", "i8"),
                      np.array([-1.0, 300.0, -np.inf, 255.9], np.float32))
    assert unsigned.view(np.uint8).tolist() == [0, 255, 0, 255]


def test_ftoi_f64_to_i64_edges(run_op):
    x = np.array([-(2.0**63), 2.0**63 - 1024, -1.5, 0.0])
    out = run_op(conv("ftoi", "signed", "f64", "i64"), x)
    assert out.tolist() == [-(2**63), 2**63 - 1024, -1, 0]


@pytest.mark.parametrize("value, attrs", [
    (np.nan, "signed"), (np.inf, "signed"), (-np.inf, "unsigned"),
    (2.0**31, "signed"), (-2.0**31 - 256, "signed"), (-1.0, "unsigned"), (2.0**32, "unsigned"),
])
def test_ftoi_out_of_range_is_undefined(run_op, value, attrs):
    x = np.array([1.0, value], np.float32)
    with pytest.raises(ExecutionError, match=r"element \[1\].*saturating"):
        run_op(conv("ftoi", attrs, "f32", "i32", 2), x)
    # With checks off the result is computed (saturated) and nothing is raised.
    run_op(conv("ftoi", attrs, "f32", "i32", 2), x, checks=False)


def test_ftoi_from_narrow_sources(run_op):
    e4m3 = np.array([0x7E, 0xBC, 0x01, 0xF8], np.uint8).view(ml_dtypes.float8_e4m3fn)
    # 448, -1.5, 2^-9, -256
    assert run_op(conv("ftoi", "signed", "f8E4M3FN", "i32"), e4m3).tolist() == \
        [448, -1, 0, -256]
    nan = np.array([0x7F, 0x38], np.uint8).view(ml_dtypes.float8_e4m3fn)
    with pytest.raises(ExecutionError, match=r"element \[0\]"):
        run_op(conv("ftoi", "signed", "f8E4M3FN", "i32", 2), nan)
    out = run_op(conv("ftoi", "signed saturating", "f8E4M3FN", "i32", 2), nan)
    assert out.tolist() == [0, 1]
    bf16 = np.array([0x46FF, 0x4700], np.uint16).view(ml_dtypes.bfloat16)  # 32640, 32768
    with pytest.raises(ExecutionError, match=r"element \[1\]"):
        run_op(conv("ftoi", "signed", "bf16", "i16", 2), bf16)
    assert run_op(conv("ftoi", "signed saturating", "bf16", "i16", 2), bf16).tolist() == \
        [32640, 32767]


def test_ftoi_to_i1(run_op):
    # Read signed, i1 holds -1 and 0: -1.0 is true, -0.5 rounds to 0, 1.0 is out of range.
    text = conv("ftoi", "signed", "f16", "i1", 2)
    assert run_op(text, np.array([-1.0, -0.5], np.float16)).tolist() == [True, False]
    with pytest.raises(ExecutionError):
        run_op(text, np.array([-1.0, 1.0], np.float16))
    assert run_op(conv("ftoi", "unsigned", "f16", "i1", 2),
                  np.array([1.0, 0.5], np.float16)).tolist() == [True, False]


# ---- exti / trunci ---------------------------------------------------------------------


def test_exti(run_op):
    x = np.array([-1, 127, -128, 5], np.int8)
    assert run_op(conv("exti", "signed", "i8", "i32"), x).tolist() == [-1, 127, -128, 5]
    assert run_op(conv("exti", "unsigned", "i8", "i32"), x).tolist() == [255, 127, 128, 5]
    i1 = np.array([True, False])
    assert run_op(conv("exti", "signed", "i1", "i16", 2), i1).tolist() == [-1, 0]
    assert run_op(conv("exti", "unsigned", "i1", "i16", 2), i1).tolist() == [1, 0]
    i4 = np.array([-8, 7], ml_dtypes.int4)
    out = run_op(conv("exti", "unsigned", "i4", "i8", 2), i4)
    assert out.dtype == np.int8 and out.tolist() == [8, 7]
    out = run_op(conv("exti", "signed", "i4", "i64", 2), i4)
    assert out.dtype == np.int64 and out.tolist() == [-8, 7]


def test_trunci_keeps_low_bits(run_op):
    x = np.array([0x12345678, 0x1FF, -1, 128], np.int32)
    out = run_op(conv("trunci", "", "i32", "i8"), x)
    assert out.dtype == np.int8 and out.tolist() == [0x78, -1, -1, -128]
    out = run_op(conv("trunci", "", "i32", "i1"), x)
    assert out.dtype == np.bool_ and out.tolist() == [False, True, True, False]


@pytest.mark.parametrize("flag, good, bad", [
    ("no_signed_wrap", [-1, -128, 127, 0], [255, 128, -129, 1 << 20]),
    ("no_unsigned_wrap", [255, 128, 0, 1], [-1, 256, -128, 1 << 20]),
    ("no_wrap", [127, 0, 1, 100], [255, -1, 128, -128]),
])
def test_trunci_overflow_flags(run_op, flag, good, bad):
    text = conv("trunci", f"overflow<{flag}>", "i32", "i8")
    assert run_op(text, np.array(good, np.int32)).tolist() == \
        [((v + 128) % 256) - 128 for v in good]
    for value in bad:
        with pytest.raises(ExecutionError, match=rf"element \[2\].*{flag[:5]}"):
            run_op(text, np.array([0, 1, value, 2], np.int32))
        run_op(text, np.array([0, 1, value, 2], np.int32), checks=False)


def test_trunci_error_names_op_and_block(run_op):
    text = conv("trunci", "overflow<no_unsigned_wrap>", "i16", "i8", 2)
    with pytest.raises(ExecutionError) as info:
        run_op(text, np.array([1, 256], np.int16), block_id=(3, 0, 1))
    message = str(info.value)
    assert "'cuda_tile.trunci' op" in message and "(3, 0, 1)" in message
    assert "test.mlir:3:" in message


def test_trunci_and_exti_64_bit(run_op):
    x = np.array([0x123456789ABCDEF0, -(2**63), 2**32, -1], np.int64)
    out = run_op(conv("trunci", "", "i64", "i32"), x)
    assert out.tolist() == [0x9ABCDEF0 - 2**32, 0, 0, -1]
    with pytest.raises(ExecutionError, match=r"element \[1\]"):
        run_op(conv("trunci", "overflow<no_signed_wrap>", "i64", "i32", 2),
               np.array([-(2**31), -(2**63)], np.int64))
    out = run_op(conv("exti", "unsigned", "i16", "i64", 2), np.array([-1, 5], np.int16))
    assert out.tolist() == [65535, 5]


# ---- bitcast and pointer casts ---------------------------------------------------------


def test_bitcast_keeps_bits(run_op):
    out = run_op(conv("bitcast", "", "f32", "i32", 2), f32(0x3F800000, 0xFFFFFFFF))
    assert out.dtype == np.int32 and out.tolist() == [0x3F800000, -1]
    out = run_op(conv("bitcast", "", "i32", "f32", 2), np.array([-1, 1], np.int32))
    assert bits(out) == [0xFFFFFFFF, 0x00000001]
    out = run_op(conv("bitcast", "", "f16", "bf16", 2),
                 np.array([0x3C00, 0x7E01], np.uint16).view(np.float16))
    assert bits(out) == [0x3C00, 0x7E01]
    out = run_op(conv("bitcast", "", "f8E4M3FN", "i8", 2),
                 np.array([0x7F, 0x80], np.uint8).view(ml_dtypes.float8_e4m3fn))
    assert out.tolist() == [0x7F, -128]
    out = run_op(conv("bitcast", "", "i64", "f64", 2), np.array([-(2**63), 1], np.int64))
    assert bits(out) == [0x8000000000000000, 1]


def test_pointer_casts_keep_addresses(run_op):
    addresses = np.array([0x1000, -16], np.int64)  # the second reads as 2^64 - 16
    ptr = "ptr<f32>"
    out = run_op(conv("int_to_ptr", "", "i64", ptr, 2), addresses)
    assert out.dtype == np.int64 and out.tolist() == [0x1000, -16]
    out = run_op(conv("ptr_to_int", "", ptr, "i64", 2), addresses)
    assert out.dtype == np.int64 and out.tolist() == [0x1000, -16]
    out = run_op(conv("ptr_to_ptr", "", ptr, "ptr<i8>", 2), addresses)
    assert out.tolist() == [0x1000, -16]


def test_every_conversion_op_has_semantics():
    from tileir.interp import SEMANTICS
    from tileir.ops.registry import all_ops
    declared = {d.name for d in all_ops() if d.group == "Conversion"}
    assert len(declared) == 9
    assert declared <= set(SEMANTICS)
