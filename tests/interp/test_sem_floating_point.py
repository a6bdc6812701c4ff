"""Semantics of the floating-point ops: exact bit patterns worked out by hand from IEEE 754
and the spec's definitions (never from running the interpreter)."""

from __future__ import annotations

import zlib
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest


F32_BITS = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64),
            "f16": (np.float16, np.uint16), "bf16": (ml_dtypes.bfloat16, np.uint16)}


def module(args: str, body: str) -> str:
    """A module whose first op is `body`, with function arguments `args`."""
    return ("cuda_tile.module @m {\n  cuda_tile.testing$func @f(" + args + ") {\n    " + body
            + "\n  }\n}")


def tile(t: str, n: int = 0) -> str:
    """The tile type of `n` elements of `t` (rank 0 when n == 0)."""
    return f"!cuda_tile.tile<{n}x{t}>" if n else f"!cuda_tile.tile<{t}>"


def words(t: str, values: list[int]) -> np.ndarray:
    """An array of type `t` from its storage words."""
    dtype, word = F32_BITS[t]
    return np.array(values, dtype=word).view(dtype)


def bits(out: np.ndarray) -> list[int]:
    """The storage words of a float result."""
    word = {2: np.uint16, 4: np.uint32, 8: np.uint64}[out.dtype.itemsize]
    return np.asarray(out).view(word).tolist()


def binary(op: str, t: str, n: int, suffix: str = "") -> str:
    """Text of a binary elementwise op on two n-element tiles of `t`."""
    ty = tile(t, n)
    return module(f"%a: {ty}, %b: {ty}", f"%0 = cuda_tile.{op} %a, %b{suffix} : {ty}")


def unary(op: str, t: str, n: int, suffix: str = "") -> str:
    """Text of a unary elementwise op on an n-element tile of `t`."""
    ty = tile(t, n)
    return module(f"%a: {ty}", f"%0 = cuda_tile.{op} %a{suffix} : {ty}")


ONE_F32, ONE_F64 = 0x3F800000, 0x3FF0000000000000
EPS100_F32 = 0x0D800000          # 2**-100 in f32 (exponent 27)
EPS100_F64 = 0x39B0000000000000  # 2**-100 in f64 (exponent 923)


# ---- addf / subf --------------------------------------------------------------------------

@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [ONE_F32, ONE_F32]),
    ("zero", [ONE_F32, 0x3F7FFFFF]),
    ("positive_inf", [0x3F800001, ONE_F32]),
    ("negative_inf", [ONE_F32, 0x3F7FFFFF]),
])
def test_addf_f32_rounding_modes_use_a_sticky_tail(run_op, mode, expected):
    # 1 + 2**-100 and 1 - 2**-100: far below half an ulp, so only the directed modes move.
    out = run_op(binary("addf", "f32", 2, f" rounding<{mode}>"),
                 words("f32", [ONE_F32, ONE_F32]), words("f32", [EPS100_F32, EPS100_F32 | 1 << 31]))
    assert bits(out) == expected


def test_addf_f32_nearest_even_ties(run_op):
    # 1 + 2**-24 is a tie -> 1.0 (even); 1 + 3*2**-24 is a tie -> 1 + 2**-22 (even).
    out = run_op(binary("addf", "f32", 2), words("f32", [ONE_F32, ONE_F32]),
                 np.array([2.0**-24, 3 * 2.0**-24], np.float32))
    assert bits(out) == [ONE_F32, 0x3F800002]


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [ONE_F64, ONE_F64]),
    ("zero", [ONE_F64, 0x3FEFFFFFFFFFFFFF]),
    ("positive_inf", [0x3FF0000000000001, ONE_F64]),
    ("negative_inf", [ONE_F64, 0x3FEFFFFFFFFFFFFF]),
])
def test_addf_f64_rounding_modes(run_op, mode, expected):
    out = run_op(binary("addf", "f64", 2, f" rounding<{mode}>"),
                 words("f64", [ONE_F64, ONE_F64]),
                 words("f64", [EPS100_F64, EPS100_F64 | 1 << 63]))
    assert bits(out) == expected


MAX_F64 = 0x7FEFFFFFFFFFFFFF
INF_F64 = 0x7FF0000000000000


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [INF_F64, INF_F64 | 1 << 63]),
    ("zero", [MAX_F64, MAX_F64 | 1 << 63]),
    ("positive_inf", [INF_F64, MAX_F64 | 1 << 63]),
    ("negative_inf", [MAX_F64, INF_F64 | 1 << 63]),
])
def test_addf_f64_overflow_by_rounding_mode(run_op, mode, expected):
    big = words("f64", [MAX_F64, MAX_F64 | 1 << 63])
    assert bits(run_op(binary("addf", "f64", 2, f" rounding<{mode}>"), big, big)) == expected


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [0x3C00, 0x3C00]), ("positive_inf", [0x3C01, 0x3C01]),
    ("zero", [0x3C00, 0x3C00]), ("negative_inf", [0x3C00, 0x3C00])])
def test_addf_f16(run_op, mode, expected):
    # 1 + 2**-11 (a tie in f16) and 1 + 2**-14.
    out = run_op(binary("addf", "f16", 2, f" rounding<{mode}>"),
                 words("f16", [0x3C00, 0x3C00]), words("f16", [0x1000, 0x0400]))
    assert bits(out) == expected


def test_addf_bf16_ties_to_even(run_op):
    # 1 + 2**-8 -> 1.0; 1 + 3*2**-8 lies halfway between 0x3f81 and 0x3f82 -> 0x3f82.
    out = run_op(binary("addf", "bf16", 2), words("bf16", [0x3F80, 0x3F80]),
                 words("bf16", [0x3B80, 0x3C40]))
    assert bits(out) == [0x3F80, 0x3F82]


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [0x00000000, 0x80000000, 0x00000000, 0x80000000]),
    ("negative_inf", [0x80000000, 0x80000000, 0x80000000, 0x80000000]),
    ("positive_inf", [0x00000000, 0x80000000, 0x00000000, 0x80000000]),
])
def test_addf_exact_zero_sign(run_op, mode, expected):
    # 1 + -1, -0 + -0, +0 + -0, -0 + -0: IEEE 754 section 6.3.
    out = run_op(binary("addf", "f32", 4, f" rounding<{mode}>"),
                 np.array([1.0, -0.0, 0.0, -0.0], np.float32),
                 np.array([-1.0, -0.0, -0.0, -0.0], np.float32))
    expected = list(expected)
    expected[2] = 0x80000000 if mode == "negative_inf" else 0x00000000
    assert bits(out) == expected


def test_addf_flush_to_zero_inputs_and_results(run_op):
    # 2**-149 + 0 is flushed to +0; 1.5*2**-126 - 2**-126 = 2**-127 (subnormal) -> +0,
    # and its negation -> -0.
    a = words("f32", [0x00000001, 0x00C00000, 0x80C00000, ONE_F32])
    b = words("f32", [0x00000000, 0x80800000, 0x00800000, ONE_F32])
    assert bits(run_op(binary("addf", "f32", 4), a, b)) == [0x00000001, 0x00400000,
                                                              0x80400000, 0x40000000]
    assert bits(run_op(binary("addf", "f32", 4, " flush_to_zero"), a, b)) == [
        0, 0, 0x80000000, 0x40000000]


def test_addf_special_values(run_op):
    a = np.array([np.inf, np.inf, np.nan, 1.0], np.float32)
    b = np.array([-np.inf, np.inf, 1.0, -np.inf], np.float32)
    out = run_op(binary("addf", "f32", 4, " rounding<zero>"), a, b)
    assert np.isnan(out[0]) and np.isnan(out[2])
    assert bits(out)[1] == 0x7F800000 and bits(out)[3] == 0xFF800000


def test_subf(run_op):
    # 1 - 2**-100 rounded up is 1.0; -0 - +0 = -0; 1 - 1 = +0.
    out = run_op(binary("subf", "f32", 4, " rounding<positive_inf>"),
                 np.array([1.0, -0.0, 1.0, 2.0], np.float32),
                 np.array([2.0**-100, 0.0, 1.0, 0.5], np.float32))
    assert bits(out) == [ONE_F32, 0x80000000, 0, 0x3FC00000]
    out = run_op(binary("subf", "f32", 1, " rounding<negative_inf>"),
                 np.array([1.0], np.float32), np.array([2.0**-100], np.float32))
    assert bits(out) == [0x3F7FFFFF]


# ---- mulf -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", 0x3F800002), ("zero", 0x3F800002), ("positive_inf", 0x3F800003),
    ("negative_inf", 0x3F800002)])
def test_mulf_f32(run_op, mode, expected):
    # (1 + 2**-23)**2 = 1 + 2**-22 + 2**-46.
    x = words("f32", [0x3F800001])
    assert bits(run_op(binary("mulf", "f32", 1, f" rounding<{mode}>"), x, x)) == [expected]


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", 0x3FF0000000000002), ("positive_inf", 0x3FF0000000000003),
    ("zero", 0x3FF0000000000002)])
def test_mulf_f64(run_op, mode, expected):
    x = words("f64", [0x3FF0000000000001])
    assert bits(run_op(binary("mulf", "f64", 1, f" rounding<{mode}>"), x, x)) == [expected]


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [0, 2, 1, 0]), ("zero", [0, 1, 0, 0]), ("positive_inf", [1, 2, 1, 0]),
    ("negative_inf", [0, 1, 0, 0])])
def test_mulf_f64_subnormal_results(run_op, mode, expected):
    # 2**-1074 * 0.5 (tie -> 0), 3*2**-1074 * 0.5 (tie -> 2), and
    # (1 + 2**-52)*2**-500 * (1 - 2**-53)*2**-575 = (1 + 2**-53 - 2**-105) * 2**-1075,
    # just above half of the smallest subnormal: nearest gives 2**-1074.
    a = words("f64", [1, 3, 0x20B0000000000001, 0])
    b = words("f64", [0x3FE0000000000000, 0x3FE0000000000000, 0x1BFFFFFFFFFFFFFF,
                      0x3FE0000000000000])
    assert bits(run_op(binary("mulf", "f64", 4, f" rounding<{mode}>"), a, b)) == expected


def test_mulf_flush_to_zero_and_specials(run_op):
    out = run_op(binary("mulf", "f32", 4, " flush_to_zero"),
                 np.array([2.0**-149, 2.0**-70, 0.0, np.inf], np.float32),
                 np.array([2.0**100, -2.0**-60, np.inf, -1.0], np.float32))
    # the input 2**-149 flushes to 0; -2**-130 is subnormal -> -0; 0*inf NaN; -inf.
    assert bits(out)[:2] == [0, 0x80000000]
    assert np.isnan(out[2]) and bits(out)[3] == 0xFF800000


# ---- divf -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", [0x3EAAAAAB, 0xBEAAAAAB]), ("zero", [0x3EAAAAAA, 0xBEAAAAAA]),
    ("positive_inf", [0x3EAAAAAB, 0xBEAAAAAA]), ("negative_inf", [0x3EAAAAAA, 0xBEAAAAAB]),
    ("approx", [0x3EAAAAAB, 0xBEAAAAAB]), ("full", [0x3EAAAAAB, 0xBEAAAAAB])])
def test_divf_f32(run_op, mode, expected):
    out = run_op(binary("divf", "f32", 2, f" rounding<{mode}>"),
                 np.array([1.0, -1.0], np.float32), np.array([3.0, 3.0], np.float32))
    assert bits(out) == expected


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", 0x3FD5555555555555), ("zero", 0x3FD5555555555555),
    ("positive_inf", 0x3FD5555555555556)])
def test_divf_f64(run_op, mode, expected):
    out = run_op(binary("divf", "f64", 1, f" rounding<{mode}>"),
                 np.array([1.0]), np.array([3.0]))
    assert bits(out) == [expected]


def test_divf_exact_and_special(run_op):
    out = run_op(binary("divf", "f32", 4, " rounding<positive_inf>"),
                 np.array([2.0, 1.0, -1.0, 0.0], np.float32),
                 np.array([2.0, 0.0, 0.0, 0.0], np.float32))
    assert bits(out)[:3] == [ONE_F32, 0x7F800000, 0xFF800000] and np.isnan(out[3])


# ---- fma --------------------------------------------------------------------------------

def fma_text(t: str, n: int, suffix: str = "") -> str:
    """Text of an fma on three n-element tiles of `t`."""
    ty = tile(t, n)
    return module(f"%a: {ty}, %b: {ty}, %c: {ty}",
                  f"%0 = cuda_tile.fma %a, %b, %c{suffix} : {ty}")


def test_fma_f32_single_rounding(run_op):
    # (1 + 2**-23)(1 - 2**-23) - 1 = -2**-46 exactly (unfused it would be 0).
    out = run_op(fma_text("f32", 1), words("f32", [0x3F800001]), words("f32", [0x3F7FFFFE]),
                 np.array([-1.0], np.float32))
    assert bits(out) == [0xA8800000]


@pytest.mark.parametrize("mode,expected", [
    ("positive_inf", 0x3F800003), ("negative_inf", 0x3F800002)])
def test_fma_f32_directed(run_op, mode, expected):
    x = words("f32", [0x3F800001])
    out = run_op(fma_text("f32", 1, f" rounding<{mode}>"), x, x, np.zeros(1, np.float32))
    assert bits(out) == [expected]


def test_fma_f64(run_op):
    # (1 + 2**-52)(1 - 2**-52) - 1 = -2**-104; and (1 + 2**-52)**2 + 2**-53 =
    # 1 + 2**-51 + 2**-53 + 2**-104, just above a tie: rounds up to 1 + 3*2**-52.
    a = words("f64", [0x3FF0000000000001, 0x3FF0000000000001])
    b = np.array([1.0 - 2.0**-52, 1.0 + 2.0**-52])
    c = np.array([-1.0, 2.0**-53])
    assert bits(run_op(fma_text("f64", 2), a, b, c)) == [0xB970000000000000,
                                                        0x3FF0000000000003]


@pytest.mark.parametrize("mode,expected", [
    ("positive_inf", 0x3FF0000000000003), ("negative_inf", 0x3FF0000000000002),
    ("zero", 0x3FF0000000000002)])
def test_fma_f64_directed(run_op, mode, expected):
    x = words("f64", [0x3FF0000000000001])
    out = run_op(fma_text("f64", 1, f" rounding<{mode}>"), x, x, np.zeros(1))
    assert bits(out) == [expected]


def test_fma_exact_zero_sign_rounding_down(run_op):
    out = run_op(fma_text("f32", 1, " rounding<negative_inf>"), np.ones(1, np.float32),
                 np.ones(1, np.float32), -np.ones(1, np.float32))
    assert bits(out) == [0x80000000]


# ---- sqrt / rsqrt -----------------------------------------------------------------------

@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", 0x3FB504F3), ("zero", 0x3FB504F3), ("positive_inf", 0x3FB504F4),
    ("negative_inf", 0x3FB504F3), ("approx", 0x3FB504F3)])
def test_sqrt_f32(run_op, mode, expected):
    out = run_op(unary("sqrt", "f32", 2, f" rounding<{mode}>"),
                 np.array([2.0, 4.0], np.float32))
    assert bits(out) == [expected, 0x40000000]


@pytest.mark.parametrize("mode,expected", [
    ("nearest_even", 0x3FF6A09E667F3BCD), ("zero", 0x3FF6A09E667F3BCC),
    ("positive_inf", 0x3FF6A09E667F3BCD)])
def test_sqrt_f64(run_op, mode, expected):
    out = run_op(unary("sqrt", "f64", 2, f" rounding<{mode}>"),
                 words("f64", [0x4000000000000000, 1]))
    assert bits(out) == [expected, 0x1E60000000000000]


def test_sqrt_special(run_op):
    out = run_op(unary("sqrt", "f32", 4), np.array([-0.0, -1.0, np.inf, 0.0], np.float32))
    assert bits(out)[0] == 0x80000000 and np.isnan(out[1])
    assert bits(out)[2:] == [0x7F800000, 0]


def test_rsqrt(run_op):
    out = run_op(unary("rsqrt", "f32", 4), np.array([4.0, 0.0, -0.0, -1.0], np.float32))
    assert bits(out)[:3] == [0x3F000000, 0x7F800000, 0xFF800000] and np.isnan(out[3])
    # flush_to_zero: a subnormal input is 0, so the result is +inf
    out = run_op(unary("rsqrt", "f32", 1, " flush_to_zero"), words("f32", [1]))
    assert bits(out) == [0x7F800000]


# ---- sign, comparisons, min/max -----------------------------------------------------------

def test_negf_and_absf_flip_the_sign_bit(run_op):
    x = words("f32", [0x7FC00000, 0x00000000, 0xBF800000, 0x00000001])
    assert bits(run_op(unary("negf", "f32", 4), x)) == [0xFFC00000, 0x80000000, 0x3F800000,
                                                         0x80000001]
    negative = words("f32", [0xFFC00000, 0x80000000, 0xBF800000, 0x80000001])
    assert bits(run_op(unary("absf", "f32", 4), negative)) == [0x7FC00000, 0, 0x3F800000, 1]
    assert bits(run_op(unary("negf", "bf16", 1), words("bf16", [0x3F80]))) == [0xBF80]
    assert bits(run_op(unary("absf", "f16", 1), words("f16", [0x8000]))) == [0]


PREDICATES = {
    # lhs [1, NaN, -0, 1], rhs [2, 1, +0, NaN]
    "equal": [False, False, True, False],
    "not_equal": [True, False, False, False],
    "less_than": [True, False, False, False],
    "less_than_or_equal": [True, False, True, False],
    "greater_than": [False, False, False, False],
    "greater_than_or_equal": [False, False, True, False],
}


@pytest.mark.parametrize("predicate", sorted(PREDICATES))
@pytest.mark.parametrize("ordering", ["ordered", "unordered"])
def test_cmpf(run_op, predicate, ordering):
    ty = tile("f16", 4)
    text = module(f"%a: {ty}, %b: {ty}", f"%0 = cuda_tile.cmpf {predicate} {ordering} %a, %b"
                  f" : {ty} -> {tile('i1', 4)}")
    out = run_op(text, np.array([1, np.nan, -0.0, 1], np.float16),
                 np.array([2, 1, 0.0, np.nan], np.float16))
    expected = list(PREDICATES[predicate])
    if ordering == "unordered":
        expected[1] = expected[3] = True
    assert out.dtype == np.bool_ and out.tolist() == expected


def test_maxf_minf(run_op):
    a = np.array([-0.0, np.nan, 1.0, np.nan, 3.0, 0, 0, 0], np.float32)
    b = np.array([0.0, 1.0, np.nan, np.nan, -5.0, 0, 0, 0], np.float32)
    out = run_op(binary("maxf", "f32", 8), a, b)
    assert bits(out)[:3] == [0, ONE_F32, ONE_F32] and bits(out)[4] == 0x40400000
    assert bits(out)[3] == 0x7FFFFFFF                     # canonical NaN
    out = run_op(binary("minf", "f32", 8), a, b)
    assert bits(out)[:3] == [0x80000000, ONE_F32, ONE_F32] and bits(out)[4] == 0xC0A00000
    out = run_op(binary("maxf", "f32", 8, " propagate_nan"), a, b)
    assert bits(out)[0] == 0 and bits(out)[1:4] == [0x7FFFFFFF] * 3
    out = run_op(binary("minf", "f32", 8, " propagate_nan"), b, a)
    assert bits(out)[0] == 0x80000000 and bits(out)[4] == 0xC0A00000


#: Per type: a signalling NaN of each sign (quiet bit clear, payload 1), the number 1.5,
#: and the canonical NaN.
SIGNALLING = {"f16": (0x7C01, 0xFC01, 0x3E00, 0x7FFF),
              "f32": (0x7F800001, 0xFF800001, 0x3FC00000, 0x7FFFFFFF),
              "f64": (0x7FF0000000000001, 0xFFF0000000000001, 0x3FF8000000000000,
                      0x7FFFFFFFFFFFFFFF)}


@pytest.mark.parametrize("n", [8, 16])
@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
@pytest.mark.parametrize("op", ["maxf", "minf"])
def test_maxf_minf_of_a_signalling_nan_and_a_number_is_the_number(run_op, op, t, n):
    """maximumNumber and minimumNumber treat a signalling NaN as missing data, as a quiet
    one: the number, on tiles short and long (NumPy's own f32 fmax returns a NaN for the
    first and the number for the second); two NaNs give the canonical NaN; with
    propagate_nan, the canonical NaN."""
    snan, negative, number, canonical = SIGNALLING[t]
    a = words(t, [snan, number, negative, snan] * (n // 4))
    b = words(t, [number, snan, number, negative] * (n // 4))
    out = run_op(binary(op, t, n), a, b)
    assert bits(out) == [number, number, number, canonical] * (n // 4)
    out = run_op(binary(op, t, n, " propagate_nan"), a, b)
    assert bits(out) == [canonical] * n


def test_maxf_flush_to_zero(run_op):
    out = run_op(binary("maxf", "f32", 2, " flush_to_zero"), words("f32", [1, 0x80000001]),
                 np.array([-1.0, -1.0], np.float32))
    assert bits(out) == [0, 0x80000000]
    out = run_op(binary("maxf", "f32", 1), words("f32", [1]), np.array([-1.0], np.float32))
    assert bits(out) == [1]


# ---- remf, ceil, floor ----------------------------------------------------------------------

def test_remf(run_op):
    a = np.array([5.5, -5.5, 1.0, np.inf, 1.0, -0.0, np.nan, 7.0], np.float32)
    b = np.array([2.0, 2.0, 0.0, 1.0, np.inf, 1.0, 1.0, -4.0], np.float32)
    out = run_op(binary("remf", "f32", 8), a, b)
    assert out[7] == 3.0
    assert out[:2].tolist() == [1.5, -1.5]
    assert np.isnan(out[2]) and np.isnan(out[3]) and np.isnan(out[6])
    assert bits(out)[4:6] == [ONE_F32, 0x80000000]


def test_remf_is_exact_f64(run_op):
    # 1e300 mod 3 computed exactly: 10**300 = 1 (mod 3) but the double nearest 1e300 is
    # 1e300's binary value, whose remainder by 3 is found by integer arithmetic below.
    a = np.array([1e300])
    expected = float(int(1e300) % 3)
    assert run_op(binary("remf", "f64", 1), a, np.array([3.0])).tolist() == [expected]


def test_ceil_floor(run_op):
    x = np.array([-0.5, 1.5, -1.5, np.inf, -0.0, 2.5, -2.5, 0.25], np.float32)
    assert bits(run_op(unary("ceil", "f32", 8), x)) == [
        0x80000000, 0x40000000, 0xBF800000, 0x7F800000, 0x80000000, 0x40400000, 0xC0000000,
        ONE_F32]
    assert bits(run_op(unary("floor", "f32", 8), x)) == [
        0xBF800000, ONE_F32, 0xC0000000, 0x7F800000, 0x80000000, 0x40000000, 0xC0400000, 0]


# ---- math functions ------------------------------------------------------------------------

@pytest.mark.parametrize("op,inputs,expected", [
    ("exp", [0.0, -np.inf, np.inf], [ONE_F32, 0, 0x7F800000]),
    ("exp2", [3.0, -1.0, -np.inf], [0x41000000, 0x3F000000, 0]),
    ("log", [1.0, 0.0, np.inf], [0, 0xFF800000, 0x7F800000]),
    ("log2", [8.0, 0.5, 0.0], [0x40400000, 0xBF800000, 0xFF800000]),
    ("sin", [0.0, -0.0, 0.0], [0, 0x80000000, 0]),
    ("cos", [0.0, -0.0, 0.0], [ONE_F32] * 3),
    ("tan", [0.0, -0.0, 0.0], [0, 0x80000000, 0]),
    ("sinh", [0.0, -0.0, np.inf], [0, 0x80000000, 0x7F800000]),
    ("cosh", [0.0, -np.inf, np.inf], [ONE_F32, 0x7F800000, 0x7F800000]),
    ("tanh", [0.0, np.inf, -np.inf], [0, ONE_F32, 0xBF800000]),
])
def test_math_exact_points(run_op, op, inputs, expected):
    out = run_op(unary(op, "f32", 4), np.array(inputs + inputs[:1], np.float32))
    assert bits(out) == expected + expected[:1]


def test_math_nan_domain(run_op):
    for op in ("log", "log2"):
        assert np.isnan(run_op(unary(op, "f32", 1), np.array([-1.0], np.float32))).all()
    for op in ("sin", "cos", "tan"):
        assert np.isnan(run_op(unary(op, "f32", 1), np.array([np.inf], np.float32))).all()


def test_math_rounds_once_to_f16(run_op):
    # e = 2.718281828...; f16 spacing in [2, 4) is 2**-9: 1391.76 * 2**-9 -> 1392 -> 0x4170.
    assert bits(run_op(unary("exp", "f16", 1), np.array([1.0], np.float16))) == [0x4170]
    # pi/4 = 0.785398...: bf16 spacing in [0.5, 1) is 2**-8: 201.06 -> 201 -> 0x3F49.
    ty = tile("bf16", 1)
    text = module(f"%a: {ty}, %b: {ty}", f"%0 = cuda_tile.atan2 %a, %b : {ty}")
    one = np.array([1.0], ml_dtypes.bfloat16)
    assert bits(run_op(text, one, one)) == [0x3F49]


def test_exp_and_tanh_rounding_variants(run_op):
    for op, mode in (("exp", "approx"), ("tanh", "approx"), ("tanh", "full")):
        out = run_op(unary(op, "f32", 1, f" rounding<{mode}>"), np.array([0.0], np.float32))
        assert bits(out) == [ONE_F32 if op == "exp" else 0]


def test_exp2_flush_to_zero(run_op):
    x = np.array([-130.0], np.float32)       # 2**-130 is subnormal: 2**19 * 2**-149
    assert bits(run_op(unary("exp2", "f32", 1), x)) == [0x00080000]
    assert bits(run_op(unary("exp2", "f32", 1, " flush_to_zero"), x)) == [0]


def test_atan2_quadrants(run_op):
    # atan2(x, y) is the angle of x / y: atan2(1, 0) = pi/2, atan2(0, -1) = pi,
    # atan2(-0, -1) = -pi, atan2(-1, 0) = -pi/2 (f32 nearest pi = 0x40490fdb).
    ty = tile("f32", 4)
    text = module(f"%a: {ty}, %b: {ty}", f"%0 = cuda_tile.atan2 %a, %b : {ty}")
    out = run_op(text, np.array([1.0, 0.0, -0.0, -1.0], np.float32),
                 np.array([0.0, -1.0, -1.0, 0.0], np.float32))
    assert bits(out) == [0x3FC90FDB, 0x40490FDB, 0xC0490FDB, 0xBFC90FDB]


def test_fpowf(run_op):
    out = run_op(binary("fpowf", "f32", 4), np.array([2.0, -8.0, np.nan, 0.0], np.float32),
                 np.array([10.0, 1 / 3, 0.0, -1.0], np.float32))
    assert bits(out)[0] == 0x44800000 and np.isnan(out[1])
    assert bits(out)[2:] == [ONE_F32, 0x7F800000]


@pytest.mark.parametrize("itype,exponent,expected", [
    ("i32", [-2, 3, 0], [0x3E800000, 0x42800000, ONE_F32]),   # 0.25, 64, 1
    ("i8", [-2, 3, 0], [0x3E800000, 0x42800000, ONE_F32]),
    ("i1", [True, False, True], [0x3F000000, ONE_F32, 0x3F000000]),  # true reads as -1
])
def test_fpowi(run_op, itype, exponent, expected):
    text = module(f"%a: {tile('f32', 4)}, %b: {tile(itype, 4)}",
                  f"%0 = cuda_tile.fpowi %a, %b : {tile('f32', 4)}, {tile(itype, 4)}")
    dtype = {"i32": np.int32, "i8": np.int8, "i1": np.bool_}[itype]
    base = np.array([2.0, 4.0, 2.0, 2.0], np.float32)
    out = run_op(text, base, np.array(exponent + exponent[:1], dtype))
    assert bits(out) == expected + expected[:1]


# ---- mmaf ---------------------------------------------------------------------------------

def mma_text(a: str, b: str, c: str) -> str:
    """Text of an mmaf with the given operand tile shapes-and-types (e.g. '1x3xf32')."""
    ta, tb, tc = (f"!cuda_tile.tile<{s}>" for s in (a, b, c))
    return module(f"%a: {ta}, %b: {tb}, %c: {tc}",
                  f"%0 = cuda_tile.mmaf %a, %b, %c : {ta}, {tb}, {tc}")


def test_mmaf_rounds_the_exact_sum_once(run_op):
    # 1 + 2**-24 + 2**-24 + 0 = 1 + 2**-23 exactly (0x3f800001).
    out = run_op(mma_text("1x4xf32", "4x1xf32", "1x1xf32"),
                 np.array([[1.0, 2.0**-24, 2.0**-24, 0.0]], np.float32),
                 np.ones((4, 1), np.float32), np.zeros((1, 1), np.float32))
    assert out.dtype == np.float32 and bits(out.ravel()) == [0x3F800001]


def test_mmaf_cancellation_and_tie(run_op):
    # 2**40 + 1 - 2**40 + 3*2**-24 = 1 + 3*2**-24 exactly: halfway between 1 + 2**-23 and
    # 1 + 2**-22, so nearest-even gives 1 + 2**-22 (0x3f800002).
    a = np.array([[2.0**40, 1.0, -2.0**40, 3 * 2.0**-24]], np.float32)
    out = run_op(mma_text("1x4xf32", "4x1xf32", "1x1xf32"), a, np.ones((4, 1), np.float32),
                 np.zeros((1, 1), np.float32))
    assert bits(out.ravel()) == [0x3F800002]


def test_mmaf_inf_and_nan(run_op):
    a = np.array([[np.inf, 1.0], [np.inf, 1.0]], np.float32)
    b = np.array([[1.0, 1.0], [1.0, 1.0]], np.float32)
    c = np.array([[0.0, -np.inf], [0.0, 0.0]], np.float32)
    out = run_op(mma_text("2x2xf32", "2x2xf32", "2x2xf32"), a, b, c)
    assert out[0, 0] == np.inf and np.isnan(out[0, 1]) and out[1, 0] == np.inf


def test_mmaf_f8_inputs(run_op):
    a = np.array([[1.5, 2.0]], ml_dtypes.float8_e4m3fn)
    b = np.array([[2.0], [-0.25]], ml_dtypes.float8_e4m3fn)
    out = run_op(mma_text("1x2xf8E4M3FN", "2x1xf8E4M3FN", "1x1xf16"), a, b,
                 np.array([[0.125]], np.float16))
    assert out.dtype == np.float16 and out.tolist() == [[2.625]]


def test_mmaf_leading_grid_axis_matches_each_block(run_op):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 8)).astype(np.float32)
    b = rng.standard_normal((3, 8, 2)).astype(np.float32)
    c = rng.standard_normal((3, 4, 2)).astype(np.float32)
    text = mma_text("4x8xf32", "8x2xf32", "4x2xf32")
    whole = run_op(text, a, b, c)
    for g in range(3):
        assert bits(whole[g].ravel()) == bits(run_op(text, a[g], b[g], c[g]).ravel())


def test_mmaf_f16_inputs_f32_acc(run_op):
    a = np.array([[1, 2], [3, 4]], np.float16)
    b = np.array([[5, 6], [7, 8]], np.float16)
    c = np.array([[0.5, 0], [0, -0.5]], np.float32)
    out = run_op(mma_text("2x2xf16", "2x2xf16", "2x2xf32"), a, b, c)
    assert out.tolist() == [[19.5, 22.0], [43.0, 49.5]]


def test_mmaf_f16_acc_rounds_to_f16(run_op):
    # 2048 + 1 = 2049 rounds (tie) to 2048 in f16.
    out = run_op(mma_text("1x1xf16", "1x1xf16", "1x1xf16"), np.array([[2048]], np.float16),
                 np.array([[1]], np.float16), np.array([[1]], np.float16))
    assert out.dtype == np.float16 and bits(out.ravel()) == [0x6800]


def test_mmaf_batched(run_op):
    a = np.arange(2 * 2 * 4, dtype=np.float64).reshape(2, 2, 4)
    b = np.ones((2, 4, 1))
    c = np.array([[[0.0], [1.0]], [[2.0], [3.0]]])
    out = run_op(mma_text("2x2x4xf64", "2x4x1xf64", "2x2x1xf64"), a, b, c)
    assert out.tolist() == [[[6.0], [23.0]], [[40.0], [57.0]]]


def test_mmaf_tf32(run_op):
    a = np.array([[1.0, 2.0]], np.float32)
    out = run_op(mma_text("1x2xtf32", "2x1xtf32", "1x1xf32"), a,
                 np.array([[3.0], [0.5]], np.float32), np.zeros((1, 1), np.float32))
    assert out.tolist() == [[4.0]]


# ---- mmaf_scaled ----------------------------------------------------------------------------

def scaled_text(element: str, scale: str, scale_k: int) -> str:
    """Text of mmaf_scaled on 16x64 by 64x16 operands with `scale_k` scale blocks."""
    types = (f"16x64x{element}", f"64x16x{element}", "16x16xf32", f"16x{scale_k}x{scale}",
             f"{scale_k}x16x{scale}")
    tys = [f"!cuda_tile.tile<{t}>" for t in types]
    args = ", ".join(f"%{n}: {t}" for n, t in zip("abcde", tys))
    return module(args, f"%0 = cuda_tile.mmaf_scaled %a, %b, %c, %d, %e : {', '.join(tys)}")


def test_mmaf_scaled_e8m0_blocks(run_op):
    # lhs all 1, rhs all 1; lhs scales per row: block 0 = 2**0, block 1 = 2**1
    # (e8m0 codes 127 and 128); rhs scales 2**-1 (126).  Each block has 32 K elements:
    # sum = 32 * 1 * 0.5 + 32 * 2 * 0.5 = 48; plus acc 1 -> 49.
    one = np.ones((16, 64), ml_dtypes.float8_e4m3fn)
    lhs_scale = np.array([[127, 128]] * 16, np.uint8).view(ml_dtypes.float8_e8m0fnu)
    rhs_scale = np.full((2, 16), 126, np.uint8).view(ml_dtypes.float8_e8m0fnu)
    out = run_op(scaled_text("f8E4M3FN", "f8E8M0FNU", 2), one, one.T.copy(),
                 np.ones((16, 16), np.float32), lhs_scale, rhs_scale)
    assert out.dtype == np.float32 and (out == 49.0).all()


@pytest.mark.parametrize("checks", [True, False])
def test_mmaf_scaled_negative_e4m3_scale_gives_values_not_an_error(run_op, checks):
    # Spec: a negative f8E4M3FN scale "may produce undefined values": an unspecified
    # result, not undefined behaviour, so no error; we apply the scale with its sign.
    # rhs column 3, K block 1 (16 elements of 1 * 1) is scaled by -1: 48 - 16 = 32; a -0.0
    # scale (lhs row 2, block 0) is not negative: those 16 products are -0, adding 0.
    one = np.ones((16, 64), ml_dtypes.float4_e2m1fn)
    lhs_scale = np.ones((16, 4), ml_dtypes.float8_e4m3fn)
    rhs_scale = np.ones((4, 16), ml_dtypes.float8_e4m3fn)
    rhs_scale[1, 3] = -1.0
    lhs_scale[2, 0] = -0.0
    args = (one, one.T.copy(), np.zeros((16, 16), np.float32), lhs_scale, rhs_scale)
    out = run_op(scaled_text("f4E2M1FN", "f8E4M3FN", 4), *args, checks=checks)
    assert out[0, 3] == 32.0 and out[0, 0] == 64.0
    assert out[2, 0] == 48.0 and out[2, 3] == 16.0


# ---- randomized check against exact rational arithmetic -------------------------------------

def _neighbours(r, dtype):
    """The values of `dtype` just below and just above `r`."""
    r = dtype(r)
    with np.errstate(over="ignore"):
        return np.nextafter(r, dtype(-np.inf)), np.nextafter(r, dtype(np.inf))


def correctly_rounded(r, x: Fraction, dtype, mode: str) -> bool:
    """Whether `r` (of `dtype`) is the rounding of the exact value `x` in `mode`, judged
    from IEEE 754's definitions: directed results bracket x with their neighbour, nearest
    results are no farther than either neighbour (ties to the even significand)."""
    if np.isnan(r):
        return False
    lo, hi = _neighbours(r, dtype)
    value = float(r) if np.isinf(r) else Fraction(float(r))
    if mode == "zero":
        mode = "negative_inf" if x >= 0 else "positive_inf"
    if mode == "positive_inf":
        return value >= x and (float(lo) if np.isinf(lo) else Fraction(float(lo))) < x
    if mode == "negative_inf":
        return value <= x and (float(hi) if np.isinf(hi) else Fraction(float(hi))) > x
    if np.isinf(r):
        return abs(x) > Fraction(float(np.finfo(dtype).max))
    gap = abs(value - x)
    for n in (lo, hi):
        if np.isinf(n):
            continue
        other = abs(Fraction(float(n)) - x)
        if other < gap:
            return False
        if other == gap:
            word = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype]
            if int(np.array(r, dtype).view(word)) & 1:
                return False
    return True


def _random_finite(rng, dtype, count: int) -> np.ndarray:
    """Finite values of `dtype` with uniformly random bit patterns (subnormals included)."""
    word = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype]
    raw = rng.integers(0, np.iinfo(word).max, size=count, dtype=word, endpoint=True)
    values = raw.view(dtype)
    return np.where(np.isfinite(values), values, dtype(1.5))


EXACT = {
    "addf": lambda a, b: a + b, "subf": lambda a, b: a - b, "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b,
}


@pytest.mark.parametrize("t,dtype", [("f16", np.float16), ("f32", np.float32),
                                     ("f64", np.float64)])
@pytest.mark.parametrize("op", sorted(EXACT))
@pytest.mark.parametrize("mode", ["nearest_even", "zero", "positive_inf", "negative_inf"])
def test_random_arithmetic_is_correctly_rounded(run_op, t, dtype, op, mode):
    rng = np.random.default_rng(zlib.crc32(f"{t} {op} {mode}".encode()))
    a, b = _random_finite(rng, dtype, 256), _random_finite(rng, dtype, 256)
    # Pairs close in magnitude too, so that sums cancel and products stay in range.
    with np.errstate(over="ignore"):
        a[128:] = (b[128:] * dtype(1.0 + 2.0**-10)).astype(dtype)
    a = np.where(np.isfinite(a), a, dtype(1.5))
    b = np.where(b == 0, dtype(3.0), b)
    out = run_op(binary(op, t, 256, f" rounding<{mode}>"), a, b)
    for x, y, r in zip(a.tolist(), b.tolist(), out):
        exact = EXACT[op](Fraction(x), Fraction(y))
        if exact == 0:
            assert r == 0
        else:
            assert correctly_rounded(r, exact, dtype, mode), (op, x, y, r)


@pytest.mark.parametrize("t,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("mode", ["nearest_even", "zero", "positive_inf", "negative_inf"])
def test_random_sqrt_is_correctly_rounded(run_op, t, dtype, mode):
    rng = np.random.default_rng(7)
    a = np.abs(_random_finite(rng, dtype, 256))
    out = run_op(unary("sqrt", t, 256, f" rounding<{mode}>"), a)
    def sq(v):
        """The exact square of a non-negative finite value (None otherwise)."""
        return Fraction(float(v)) ** 2 if np.isfinite(v) and v >= 0 else None

    for x, r in zip(a.tolist(), out):
        # r is correct iff it brackets sqrt(x) as its rounding would: compare squares.
        lo, hi = _neighbours(r, dtype)
        xv = Fraction(x)
        if sq(r) == xv:
            continue
        if mode in ("positive_inf",):
            assert sq(r) > xv and (lo < 0 or sq(lo) < xv)
        elif mode in ("zero", "negative_inf"):
            assert sq(r) < xv and sq(hi) > xv
        else:  # nearest: x between the squares of the midpoints around r
            mid_lo = (Fraction(float(lo)) + Fraction(float(r))) / 2
            mid_hi = (Fraction(float(hi)) + Fraction(float(r))) / 2
            assert mid_lo ** 2 <= xv <= mid_hi ** 2


@pytest.mark.parametrize("t,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("mode", ["nearest_even", "zero", "positive_inf", "negative_inf"])
def test_random_fma_is_correctly_rounded(run_op, t, dtype, mode):
    rng = np.random.default_rng(11)
    span = 1000 if t == "f64" else 60      # products and sums that under- and overflow
    a = (rng.standard_normal(256) * 2.0 ** rng.integers(-span, span, 256)).astype(dtype)
    b = (rng.standard_normal(256) * 2.0 ** rng.integers(-span, span, 256)).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(256) * 2.0**-30)).astype(
            dtype)
    c[:64] = (rng.standard_normal(64) * 2.0 ** rng.integers(-span, span, 64)).astype(dtype)
    c = np.where(np.isfinite(c), c, dtype(1.0))
    out = run_op(fma_text(t, 256, f" rounding<{mode}>"), a, b, c)
    for x, y, z, r in zip(a.tolist(), b.tolist(), c.tolist(), out):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0:
            assert r == 0
        else:
            assert correctly_rounded(r, exact, dtype, mode), (x, y, z, r)


def test_flush_to_zero_on_divf_sqrt_fma(run_op):
    # 1 / 2**127 = 2**-127 (subnormal, 0x00400000) flushes to +0.
    one, big = np.array([1.0], np.float32), np.array([2.0**127], np.float32)
    assert bits(run_op(binary("divf", "f32", 1), one, big)) == [0x00400000]
    assert bits(run_op(binary("divf", "f32", 1, " flush_to_zero"), one, big)) == [0]
    # sqrt(2**-148) = 2**-74 (0x1a800000), but the subnormal input flushes to 0 first.
    tiny = words("f32", [2])
    assert bits(run_op(unary("sqrt", "f32", 1), tiny)) == [0x1A800000]
    assert bits(run_op(unary("sqrt", "f32", 1, " flush_to_zero"), tiny)) == [0]
    # 2**-70 * -2**-60 + 0 = -2**-130 (subnormal) flushes to -0.
    a, b = np.array([2.0**-70], np.float32), np.array([-(2.0**-60)], np.float32)
    zero = np.zeros(1, np.float32)
    assert bits(run_op(fma_text("f32", 1), a, b, zero)) == [0x80080000]
    assert bits(run_op(fma_text("f32", 1, " flush_to_zero"), a, b, zero)) == [0x80000000]


def test_nan_results_are_canonical_in_every_width(run_op):
    # inf - inf is NaN; the result is the same canonical NaN as maxf's, whatever the type.
    for t, dtype in (("f16", np.float16), ("f32", np.float32), ("f64", np.float64)):
        inf = np.array([np.inf, np.inf], dtype)
        nan = run_op(binary("subf", t, 2), inf, inf)
        both = run_op(binary("maxf", t, 2), np.full(2, np.nan, dtype), np.full(2, np.nan, dtype))
        assert np.isnan(nan).all() and bits(nan) == bits(both)


def test_pow_spelling_of_13_3_runs_as_fpowf(run_op):
    out = run_op(binary("pow", "f32", 2), np.array([3.0, 4.0], np.float32),
                 np.array([2.0, 0.5], np.float32))
    assert out.tolist() == [9.0, 2.0]
