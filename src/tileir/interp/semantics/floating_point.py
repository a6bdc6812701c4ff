"""Semantics of the floating-point ops (spec group "Floating Point"): arithmetic, math, mma.

Numerics.  Every value of f16, bf16, f32 and f64 is exact in float64, so an op is computed
as a float64 value ``y`` together with the sign ``s`` of ``exact - y`` (obtained with
error-free transformations: TwoSum, Dekker's TwoProd, exact residuals of division and square
root, all on operands scaled by powers of two so that nothing overflows or underflows).
`_round_exact` turns ``(y, s)`` into the correctly rounded result in the requested mode:

* for f16/bf16/f32: no float64 lies strictly between the exact value and ``y``, so no value
  of the target and no midpoint between two of them does either.  Where ``y`` itself is
  such a value or midpoint and ``s != 0``, it is nudged one float64 ulp towards the exact
  value, which is neither (the targets have at most 24 bits).  One rounding with
  `numerics.from_float64` then gives the rounding of the exact value in every mode (no
  double rounding);
* for f64, ``y`` is the float64 value next to the exact one, and the directed modes step it
  by one ulp where ``s`` says the exact value lies on the other side.

The approx/full variants of divf, sqrt, exp and tanh are computed correctly rounded (nearest
even).  Transcendental functions (exp, log, sin, ...) have no accuracy fixed by the spec; they
are computed with NumPy's float64 functions and rounded once to the result type (within about
one ulp of the f64 result, so correctly rounded for f16/bf16/f32 except in rare near-tie cases).
For f16/bf16 sqrt the spec emulates the directed modes in f32: rounding twice in the same
direction (or to nearest, 24 >= 2*11 + 2 bits) equals our single rounding.
flush_to_zero (f32 only) flushes subnormal inputs, then rounds, then flushes the result
(spec 5.1: rounding first, FTZ on the rounded result).  NaN results of arithmetic are the
canonical NaN of `numerics` (f32 0x7fffffff); negf and absf only touch the sign bit.
mmaf sums exactly computed float64 matrix products of operand slices (`_matmul_sliced`), or
for non-finite or extreme inputs runs a double-float64 k loop; either is rounded once: see
`_matmul_round`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...enums import ComparisonOrdering, ComparisonPredicate, RoundingMode
from ...numerics import (as_signed, float_format, flush_subnormals, from_float64,
                         from_words, to_float64, to_words)
from ...types import F16, F32, F64, FloatType
from .registry import semantics

Array = np.ndarray
#: The rounding away from zero, for positive (True) and negative values.
_AWAY = {True: RoundingMode.POSITIVE_INF, False: RoundingMode.NEGATIVE_INF}
_DIRECTED = (RoundingMode.ZERO, RoundingMode.NEGATIVE_INF, RoundingMode.POSITIVE_INF)
#: Dekker's splitting constant for float64 (2**27 + 1).
_SPLITTER = 134217729.0


# --------------------------------------------------------------------------------------
# Operand access and rounding
# --------------------------------------------------------------------------------------


def _element_type(step: Any, index: int = 0) -> FloatType:
    """The element type of result `index`."""
    return step.result_type(index).element_type


def _operand_element_type(step: Any, index: int) -> Any:
    """The element type of operand `index`."""
    return step.op.operands[index].type.element_type


def _rounding(step: Any) -> RoundingMode:
    """The op's rounding mode; approx and full are computed as correctly rounded nearest-even."""
    mode = step.op.enum("rounding_mode")
    if mode is None or mode in (RoundingMode.APPROX, RoundingMode.FULL):
        return RoundingMode.NEAREST_EVEN
    return mode


def _ftz(step: Any, t: FloatType) -> bool:
    """Whether flush_to_zero applies: the flag is set and the element type is f32."""
    return step.op.has_flag("flush_to_zero") and t == F32


def _inputs(step: Any, t: FloatType, *values: Array) -> list[Array]:
    """The operands as exact float64 arrays, subnormals flushed when flush_to_zero applies."""
    ftz = _ftz(step, t)
    return [to_float64(flush_subnormals(v, t) if ftz else v, t) for v in values]


def _finish(step: Any, t: FloatType, x: Array) -> Array:
    """Round float64 values `x` (nearest even) to the result type, flushing if FTZ applies."""
    x = np.asarray(x, dtype=np.float64)
    ftz = _ftz(step, t)
    if t in _CAST and not ftz:
        return _round_nearest_cast(x, np.zeros(x.shape, np.int8), t)
    return from_float64(x, t, RoundingMode.NEAREST_EVEN, ftz)


def _two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    """Knuth's TwoSum: ``a + b == s + e`` exactly, ``s = fl(a + b)`` (unless it overflows)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split(a: Array) -> tuple[Array, Array]:
    """Dekker/Veltkamp split of `a` into two 26-bit halves (|a| < 2**996)."""
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: Array, b: Array) -> tuple[Array, Array]:
    """Dekker's TwoProd: ``a * b == p + e`` exactly (no overflow, no underflow of `e`)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _toward(y: Array, direction: Array) -> Array:
    """The float64 next to `y` towards +inf where `direction` > 0, towards -inf elsewhere."""
    with np.errstate(over="ignore"):
        return np.nextafter(y, np.where(direction > 0, np.inf, -np.inf))


def _sign(x: Array) -> Array:
    """-1, 0 or +1 as int8 (NaN gives 0)."""
    return np.nan_to_num(np.sign(x)).astype(np.int8)


def _scaled(p: Array, s: Array, k: Array, finite: Array) -> tuple[Array, Array]:
    """The float64 value next to ``(p + e) * 2**k`` and the sign of the rest.

    `p` is a normal float64 (scaled well inside float64's range), `s` the sign of the tail
    `e` (|e| <= ulp(p) / 2, known only by its sign), `k` an integer exponent.  Scaling may
    round (a subnormal result): the rounding's own error is exact in the scaled domain and
    decides the sign, and an exact tie broken the wrong way by ldexp is corrected from `s`.
    """
    kk = np.where(finite, k, 0).astype(np.int64)
    pp = np.where(finite, p, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.ldexp(pp, kk)
        d = pp - np.ldexp(y, -kk)                    # exact: y * 2**-k is next to p
        spacing = np.ldexp(1.0, np.clip(-1074 - kk, -1074, 1023))
    tie = finite & np.isfinite(y) & (d != 0) & (2 * np.abs(d) == spacing) & (s == _sign(d))
    y = np.where(tie, _toward(y, d), y)
    rest = np.where(d != 0, _sign(d), s)
    rest = np.where(tie, -_sign(d), rest)
    return y, np.where(finite, rest, 0).astype(np.int8)


def _round_exact(y: Array, s: Array, t: FloatType, rounding: RoundingMode,
                 ftz: bool, overflow: Array | None = None) -> Array:
    """The correctly rounded value in `t` of a number known as float64 `y` plus the sign `s`
    of the (tiny) difference; `overflow` marks finite exact values beyond float64's range."""
    y = np.asarray(y, dtype=np.float64)
    s = np.asarray(s, dtype=np.int8)
    if rounding is RoundingMode.NEAREST_EVEN and not ftz and t in _CAST:
        return _round_nearest_cast(y, s, t)
    return _round_general(y, s, t, rounding, ftz, overflow)


def _round_general(y: Array, s: Array, t: FloatType, rounding: RoundingMode,
                   ftz: bool, overflow: Array | None = None) -> Array:
    """`_round_exact` for every type and mode, through `numerics.from_float64`."""
    if t != F64:
        # Only where y is a value of t or a midpoint between two does the tail matter; there
        # the next float64 towards the exact value is neither, and rounds as the exact value.
        down = to_float64(from_float64(y, t, RoundingMode.ZERO), t)
        away = to_float64(from_float64(y, t, _AWAY[True], False), t)
        away = np.where(np.signbit(y), to_float64(from_float64(y, t, _AWAY[False]), t), away)
        with np.errstate(over="ignore", invalid="ignore"):
            special = (y == down) | (y == (down + away) / 2)
        nudged = np.where(special & (s != 0), _toward(y, s), y)
        return from_float64(nudged, t, rounding, ftz)
    out = y
    if rounding is RoundingMode.POSITIVE_INF:
        out = np.where(s > 0, np.nextafter(y, np.inf), y)
    elif rounding is RoundingMode.NEGATIVE_INF:
        out = np.where(s < 0, np.nextafter(y, -np.inf), y)
    elif rounding is RoundingMode.ZERO:
        toward_zero = (s != 0) & (s != _sign(y)) & (y != 0)
        out = np.where(toward_zero, np.nextafter(y, 0.0), y)
    if overflow is not None and rounding in _DIRECTED:
        big = np.finfo(np.float64).max
        negative = np.signbit(y)
        to_inf = {RoundingMode.ZERO: np.zeros_like(negative),
                  RoundingMode.POSITIVE_INF: ~negative,
                  RoundingMode.NEGATIVE_INF: negative}[rounding]
        out = np.where(overflow, np.where(to_inf, y, np.copysign(big, y)), out)
    return from_float64(out, t)                    # exact; makes NaN results canonical


def _exact_zero_sign(total_zero: Array, a: Array, b: Array, rounding: RoundingMode,
                     y: Array) -> Array:
    """IEEE 754 sign of an exact zero sum ``a + b``: -0 in roundTowardNegative unless both
    are +0, otherwise +0 unless both are -0 (what float64 addition already gives)."""
    if rounding is not RoundingMode.NEGATIVE_INF:
        return y
    both_plus = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
    return np.where(total_zero & ~both_plus, -0.0, y)


def _mantissa(x: Array) -> tuple[Array, Array]:
    """frexp of finite non-zero values (zeros, infinities and NaN give 0.5, exponent 1)."""
    m, e = np.frexp(np.where(np.isfinite(x) & (x != 0), x, 1.0))
    return m, e.astype(np.int64)


# --------------------------------------------------------------------------------------
# Correctly rounded arithmetic: addf, subf, mulf, divf, fma, sqrt
# --------------------------------------------------------------------------------------


def _add(rounding: RoundingMode, t: FloatType, a: Array, b: Array
         ) -> tuple[Array, Array, Array]:
    """float64 sum, sign of its error, and where a finite sum overflowed float64."""
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(over="ignore", invalid="ignore"):
        y, e = _two_sum(a, b)
    overflow = finite & ~np.isfinite(y)
    s = np.where(finite & ~overflow, _sign(e), 0).astype(np.int8)
    y = _exact_zero_sign(finite & (y == 0) & (s == 0), a, b, rounding, y)
    return y, s, overflow


def _mul(rounding: RoundingMode, t: FloatType, a: Array, b: Array
         ) -> tuple[Array, Array, Array]:
    """float64 product, sign of its error, and where a finite product overflowed float64."""
    finite = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    (ma, ea), (mb, eb) = _mantissa(a), _mantissa(b)
    p, e = _two_prod(ma, mb)
    y, s = _scaled(p, _sign(e), ea + eb, finite)
    with np.errstate(over="ignore", invalid="ignore"):
        plain = a * b
    overflow = finite & ~np.isfinite(y)
    return np.where(finite, y, plain), s, overflow


def _div(rounding: RoundingMode, t: FloatType, a: Array, b: Array
         ) -> tuple[Array, Array, Array]:
    """float64 quotient, sign of its error, and where a finite quotient overflowed float64."""
    finite = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    (ma, ea), (mb, eb) = _mantissa(a), _mantissa(b)
    q = ma / mb
    p, e = _two_prod(q, mb)
    residual = (ma - p) - e                       # ma - q*mb, sign exact
    y, s = _scaled(q, _sign(residual) * _sign(mb), ea - eb, finite)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        plain = a / b
    overflow = finite & ~np.isfinite(y)
    return np.where(finite, y, plain), s, overflow


def _sqrt(rounding: RoundingMode, t: FloatType, a: Array) -> tuple[Array, Array, Array]:
    """float64 square root and the sign of its error (never overflows)."""
    finite = np.isfinite(a) & (a > 0)
    m, e = _mantissa(a)
    odd = (e & 1) == 1
    m = np.where(odd, m * 2.0, m)
    half = (e - odd) // 2
    r = np.sqrt(np.where(finite, m, 1.0))
    p, err = _two_prod(r, r)
    y, s = _scaled(r, _sign((m - p) - err), half, finite)
    with np.errstate(invalid="ignore"):
        plain = np.sqrt(a)
    return np.where(finite, y, plain), s, np.zeros(a.shape, dtype=bool)


def _fma(rounding: RoundingMode, t: FloatType, a: Array, b: Array, c: Array
         ) -> tuple[Array, Array, Array]:
    """float64 value of ``a*b + c``, the sign of its error, and where it overflowed float64.

    For f16/bf16/f32 the product is exact in float64, so TwoSum makes the result exact.
    For f64 the operands are scaled so that the largest of a*b and c lies in [0.25, 1); the
    exact product (TwoProd of the mantissas) plus c is rounded with round-to-odd
    (Boldo-Melquiond), correct in nearest-even, and the sign of the rest is exact; a term
    more than 2**300 below the other only acts through its sign, so it is clamped there.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if t != F64:
            return _add(rounding, t, a * b, c)
        plain = a * b + c
        product = a * b
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    scaled = finite & (a != 0) & (b != 0)
    (ma, ea), (mb, eb), (mc, ec) = _mantissa(a), _mantissa(b), _mantissa(c)
    mc = np.where(c != 0, mc, 0.0)
    p, e = _two_prod(ma, mb)                       # |p| in [0.25, 1)
    kp = ea + eb
    k = np.where(c != 0, np.maximum(kp, ec), kp)
    p = np.ldexp(p, np.maximum(kp - k, -300))
    e = np.ldexp(e, np.maximum(kp - k, -300))
    cc = np.ldexp(mc, np.maximum(ec - k, -300))
    s1, e1 = _two_sum(p, cc)
    u, v = _two_sum(e1, e)
    odd_bit = (np.abs(u).view(np.uint64) & np.uint64(1)) == 1
    u_odd = np.where((v != 0) & ~odd_bit, _toward(u, v), u)
    near = s1 + u_odd                              # a*b + c rounded once (scaled)
    t1, r = _two_sum(s1, u)
    w, x = _two_sum(r, v)
    rest = ((t1 - near) + w) + x                   # sign of (exact - near), exactly
    y, s = _scaled(near, _sign(rest), k, scaled & (near != 0))
    overflow = scaled & ~np.isfinite(y)
    y = np.where(scaled & (near != 0), y, np.where(scaled, 0.0, plain))
    s = np.where(scaled & ~overflow, s, 0).astype(np.int8)
    y = _exact_zero_sign(finite & (y == 0) & (s == 0), product, c, rounding, y)
    return y, s, overflow


def _rounded(step: Any, compute: Callable[..., tuple[Array, Array, Array]],
             *operands: Array) -> Array:
    """Run an exactly-known computation on the operands and round it as the op asks."""
    t = _element_type(step)
    rounding = _rounding(step)
    native = _NATIVE.get(compute)
    if native is not None and rounding == RoundingMode.NEAREST_EVEN and t in _CANONICAL_NAN \
            and not _ftz(step, t):
        return _native(native, t, operands)
    values = _inputs(step, t, *operands)
    y, s, overflow = compute(rounding, t, *values)
    return _round_exact(y, s, t, rounding, _ftz(step, t), overflow)


def _native(operation: Callable[..., Array], t: FloatType, operands: tuple) -> Array:
    """The fast path of `_rounded` for f32 and f64 in nearest-even without FTZ: IEEE 754
    arithmetic in NumPy's own float32/float64 is correctly rounded, the same result as the
    exact path; only NaNs are made canonical, as `numerics` makes them."""
    with np.errstate(all="ignore"):
        result = operation(*operands)
    nan = np.isnan(result)
    if nan.any():
        result = np.where(nan, _CANONICAL_NAN[t], result)
    return result


@semantics("addf")
def addf(step: Any, lhs: Array, rhs: Array) -> Array:
    """lhs + rhs, rounded once in the op's rounding mode."""
    return _rounded(step, _add, lhs, rhs)


@semantics("subf")
def subf(step: Any, lhs: Array, rhs: Array) -> Array:
    """lhs - rhs, rounded once (negating rhs is exact)."""
    t = _element_type(step)
    return _rounded(step, _add, lhs, negate(t, rhs))


@semantics("mulf")
def mulf(step: Any, lhs: Array, rhs: Array) -> Array:
    """lhs * rhs, rounded once in the op's rounding mode."""
    return _rounded(step, _mul, lhs, rhs)


@semantics("divf")
def divf(step: Any, lhs: Array, rhs: Array) -> Array:
    """lhs / rhs, rounded once (approx and full: correctly rounded nearest even)."""
    return _rounded(step, _div, lhs, rhs)


@semantics("fma")
def fma(step: Any, lhs: Array, rhs: Array, acc: Array) -> Array:
    """lhs * rhs + acc with a single rounding."""
    return _rounded(step, _fma, lhs, rhs, acc)


@semantics("sqrt")
def sqrt(step: Any, source: Array) -> Array:
    """Square root, rounded once in the op's rounding mode (NaN below zero, sqrt(-0) = -0)."""
    return _rounded(step, _sqrt, source)


# --------------------------------------------------------------------------------------
# Sign, comparison, min/max, integral rounding, remainder
# --------------------------------------------------------------------------------------


def _sign_mask(t: FloatType, words: Array) -> Any:
    """The sign bit of `t` in the dtype of `words`."""
    return words.dtype.type(1 << float_format(t).sign_shift)


def negate(t: FloatType, values: Array) -> Array:
    """Flip the sign bit (NaN included): IEEE negate."""
    words = to_words(values, t)
    return from_words(words ^ _sign_mask(t, words), t)


@semantics("negf")
def negf(step: Any, source: Array) -> Array:
    """Flip the sign bit of every element (exact, NaN included)."""
    return negate(_element_type(step), source)


@semantics("absf")
def absf(step: Any, source: Array) -> Array:
    """Clear the sign bit of every element (exact, NaN included)."""
    t = _element_type(step)
    words = to_words(source, t)
    return from_words(words & ~_sign_mask(t, words), t)


_COMPARE: dict[ComparisonPredicate, Callable[[Array, Array], Array]] = {
    ComparisonPredicate.EQUAL: np.equal,
    ComparisonPredicate.NOT_EQUAL: lambda a, b: ~np.equal(a, b),
    ComparisonPredicate.LESS_THAN: np.less,
    ComparisonPredicate.LESS_THAN_OR_EQUAL: np.less_equal,
    ComparisonPredicate.GREATER_THAN: np.greater,
    ComparisonPredicate.GREATER_THAN_OR_EQUAL: np.greater_equal,
}


@semantics("cmpf")
def cmpf(step: Any, lhs: Array, rhs: Array) -> Array:
    """Compare; with a NaN operand the result is false when ordered and true when unordered.

    Ordered not_equal is IEEE compareQuietNotEqual restricted to ordered pairs, unordered
    equal is true for NaN; -0 equals +0."""
    t = _operand_element_type(step, 0)
    a, b = to_float64(lhs, t), to_float64(rhs, t)
    unordered = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        holds = _COMPARE[step.op.enum("comparison_predicate")](a, b)
    ordering = step.op.enum("comparison_ordering")
    return np.where(unordered, ordering is ComparisonOrdering.UNORDERED, holds & ~unordered)


def _min_max(step: Any, lhs: Array, rhs: Array, beats: Callable[..., Array]) -> Array:
    """maximum/minimum (propagate_nan) or maximumNumber/minimumNumber; +0 > -0; NaN results
    are the canonical NaN."""
    t = _element_type(step)
    a, b = _inputs(step, t, lhs, rhs)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    # Order -0 below +0: equal values are told apart by their sign (positive beats negative
    # for max, where `beats` is >, and the reverse for min).
    with np.errstate(invalid="ignore"):
        left = beats(a, b) | ((a == b) & ~beats(~np.signbit(b), ~np.signbit(a)))
    out = np.where(left, a, b)
    if step.op.has_flag("propagate_nan"):
        out = np.where(nan_a | nan_b, np.nan, out)
    else:
        out = np.where(nan_a, b, np.where(nan_b, a, out))
    return _finish(step, t, out)


@semantics("maxf")
def maxf(step: Any, lhs: Array, rhs: Array) -> Array:
    """Element-wise maximum (IEEE maximum with propagate_nan, else maximumNumber)."""
    return _min_max(step, lhs, rhs, np.greater)


@semantics("minf")
def minf(step: Any, lhs: Array, rhs: Array) -> Array:
    """Element-wise minimum (IEEE minimum with propagate_nan, else minimumNumber)."""
    return _min_max(step, lhs, rhs, np.less)


@semantics("remf")
def remf(step: Any, lhs: Array, rhs: Array) -> Array:
    """x - trunc(x / y) * y, exact (C fmod): sign of x, NaN for y = 0 or infinite x."""
    t = _element_type(step)
    a, b = _inputs(step, t, lhs, rhs)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(step, t, np.fmod(a, b))


# --------------------------------------------------------------------------------------
# Math functions: a float64 NumPy function, rounded once (table)
# --------------------------------------------------------------------------------------


def _rsqrt(x: Array) -> Array:
    """1 / sqrt(x) in float64 (inf at +-0 with the sign of zero, NaN below zero)."""
    return 1.0 / np.sqrt(x)


_UNARY_MATH: dict[str, Callable[[Array], Array]] = {
    "ceil": np.ceil, "floor": np.floor,
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2,
    "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "rsqrt": _rsqrt,
}


def _unary_math(name: str) -> Callable[..., Array]:
    """The semantics of a unary math op: the float64 function, rounded to nearest even."""
    function = _UNARY_MATH[name]

    def run(step: Any, source: Array) -> Array:
        """Apply the op's function element-wise and round once to the result type."""
        t = _element_type(step)
        (x,) = _inputs(step, t, source)
        with np.errstate(all="ignore"):
            return _finish(step, t, function(x))

    run.__name__ = name
    run.__doc__ = f"{name}: NumPy's float64 {function.__name__}, rounded once to the type."
    return run


for _name in _UNARY_MATH:
    semantics(_name)(_unary_math(_name))


@semantics("atan2")
def atan2(step: Any, x: Array, y: Array) -> Array:
    """Arc tangent of x / y, quadrant from the signs of x and y (C's atan2(x, y))."""
    t = _element_type(step)
    a, b = _inputs(step, t, x, y)
    return _finish(step, t, np.arctan2(a, b))


@semantics("fpowf")
def fpowf(step: Any, source: Array, exponent: Array) -> Array:
    """source ** exponent with C pow's special cases, in float64, rounded once."""
    t = _element_type(step)
    a, b = _inputs(step, t, source, exponent)
    with np.errstate(all="ignore"):
        return _finish(step, t, np.power(a, b))


@semantics("fpowi")
def fpowi(step: Any, source: Array, exponent: Array) -> Array:
    """source ** n for a signed integer n (i1 true reads as -1), in float64, rounded once."""
    t = _element_type(step)
    (a,) = _inputs(step, t, source)
    n = as_signed(exponent, _operand_element_type(step, 1)).astype(np.float64)
    with np.errstate(all="ignore"):
        return _finish(step, t, np.power(a, n))


# --------------------------------------------------------------------------------------
# Matrix multiply-accumulate
# --------------------------------------------------------------------------------------


#: Exponents beyond which the sliced product falls back to the k loop (no overflow of the
#: float64 products, no slice unit below float64's normal range).
_SLICE_RANGE = (-1020, 480)


def _slices(x: Array, axis: int, width: int) -> tuple[list[Array], int] | None:
    """`x` (float64, finite) as a sum of slices, each holding at most `width` + 1 significant
    bits counted from the largest magnitude along `axis`: slice s is a multiple of
    ``2**(e - width*(s+1))`` where ``|x| < 2**e`` along the axis (Ozaki's error-free split),
    and the smallest slice unit's exponent.  None when the exponents leave the range where
    the products stay exact."""
    biggest = np.max(np.abs(x), axis=axis, keepdims=True)
    _, e = np.frexp(np.where(biggest > 0, biggest, 1.0))     # |x| < 2**e
    e = e.astype(np.int64)
    rest = x
    out: list[Array] = []
    lowest = 0
    for s in range(64):
        if not np.any(rest):
            return out, lowest
        unit = e - width * (s + 1)
        lowest = int(np.min(unit))
        if np.min(unit) < _SLICE_RANGE[0]:
            return None
        sigma = np.ldexp(3.0, unit + 51)          # fl(r + sigma) - sigma: r to a multiple
        hi = (rest + sigma) - sigma               # of 2**unit (|r| << sigma)
        out.append(hi)
        rest = rest - hi                          # exact
    return None


def _matmul_sliced(lhs: Array, rhs: Array, acc: Array) -> tuple[Array, Array] | None:
    """``sum_k lhs[..., i, k] * rhs[..., k, j] + acc`` as a double-float64 (hi, lo), from
    float64 matrix products of slices whose every partial sum is exact, so the result does
    not depend on the order BLAS adds in; None when the inputs are not all finite or span
    too wide a range (the caller then runs the k loop)."""
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs)) and
            np.all(np.isfinite(acc))):
        return None
    k = np.shape(lhs)[-1]
    # products of two slices hold 2*width + 2 bits; k of them must sum within 53 bits
    width = (53 - 2 - max(k - 1, 1).bit_length()) // 2
    for x in (lhs, rhs):
        biggest = float(np.max(np.abs(x))) if x.size else 0.0
        if biggest and np.frexp(biggest)[1] > _SLICE_RANGE[1]:
            return None
    sliced_a = _slices(lhs, -1, width)
    sliced_b = _slices(rhs, -2, width)
    if sliced_a is None or sliced_b is None or sliced_a[1] + sliced_b[1] < -1020:
        return None                     # a product of slice units below float64's normals
    a, b = sliced_a[0], sliced_b[0]
    hi = np.array(acc, dtype=np.float64)
    lo = np.zeros(hi.shape)
    for total in range(max(len(a) + len(b) - 1, 0)):   # larger products first
        for s in range(max(0, total - len(b) + 1), min(total, len(a) - 1) + 1):
            product = np.matmul(a[s], b[total - s])   # exact: see `width`
            hi, t = _two_sum(hi, product)
            lo = lo + t
    return hi, lo


def _round_nearest_cast(y: Array, s: Array, t: FloatType) -> Array:
    """`_round_exact` to nearest even for f32 and f16 through NumPy's correctly rounded
    cast: the cast rounds y itself; only where y is exactly a midpoint between two values
    of t does the tail's sign `s` decide instead of evenness.  Values whose cast overflows
    take the general path (the midpoint next to infinity)."""
    dtype = _CAST[t]
    with np.errstate(over="ignore", invalid="ignore"):
        r = y.astype(dtype)
        back = r.astype(np.float64)
        beyond = np.where(y > back, np.inf, -np.inf).astype(dtype)
        other = np.nextafter(r, beyond)
        other64 = other.astype(np.float64)
        midpoint = (y != back) & ((back + other64) * 0.5 == y)
    decide = midpoint & (s != 0)
    if decide.any():
        up = (s > 0) == (other64 > back)     # the tail points to the other neighbour
        r = np.where(decide & up, other, r)
    zero = (y == 0) & (s != 0)               # a tiny exact value: zero with its sign
    if zero.any():
        r = np.where(zero, np.copysign(np.zeros((), dtype), s.astype(dtype)), r)
    hard = np.isinf(r) & np.isfinite(y)
    if hard.any():
        general = _round_general(np.where(hard, y, 0.0), s, t, RoundingMode.NEAREST_EVEN,
                                 False)
        r = np.where(hard, general, r)
    nan = np.isnan(r)
    if nan.any():
        r = np.where(nan, _CANONICAL_NAN[t], r)
    return r


def _matmul_round(lhs: Array, rhs: Array, acc: Array, out: FloatType) -> Array:
    """sum_k lhs[..., i, k] * rhs[..., k, j] + acc[..., i, j], rounded once to `out`.

    The spec fixes no order of accumulation.  This model is deterministic and independent
    of the array's batch shape: the operands are split into slices whose products sum
    exactly in float64 (`_matmul_sliced`: each slice product is an exact matrix product, in
    any order), and acc and those few exact products are added into a double-float64 sum;
    for non-finite or extreme inputs, the products (exact, by TwoProd) are added for
    k = 0, 1, ..., K-1 into the double-float64 sum instead.  The sum is rounded once to
    nearest even: the correctly rounded exact value unless it cancels below about 2**-104 of
    the largest term, so at least as accurate as any hardware order.
    """
    sliced = _matmul_sliced(lhs, rhs, acc)
    if sliced is not None:
        hi, lo = sliced
        y = hi + lo
        rest = (hi - y) + lo
        finite = np.isfinite(y)
        return _round_exact(y, _sign(np.where(finite, rest, 0.0)), out,
                            RoundingMode.NEAREST_EVEN, False, np.zeros(y.shape, bool))
    hi = np.array(acc, dtype=np.float64)
    lo = np.zeros(hi.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(np.shape(lhs)[-1]):
            p, e = _two_prod(lhs[..., :, k, None], rhs[..., None, k, :])
            p_finite = np.isfinite(p)
            hi, t = _two_sum(hi, p)
            lo = lo + np.where(p_finite & np.isfinite(t), t, 0.0) \
                + np.where(p_finite & np.isfinite(e), e, 0.0)
        finite = np.isfinite(hi)
        y = np.where(finite, hi + lo, hi)
        rest = np.where(finite & np.isfinite(y), (hi - y) + lo, 0.0)
    return _round_exact(y, _sign(rest), out, RoundingMode.NEAREST_EVEN, False,
                        finite & ~np.isfinite(y))


@semantics("mmaf")
def mmaf(step: Any, lhs: Array, rhs: Array, acc: Array) -> Array:
    """Matrix multiply-accumulate over the last two axes (batched when rank 3)."""
    tin = _operand_element_type(step, 0)
    tacc = _element_type(step)
    # tf32 values are held in float32 arrays; `to_float64` reads their tf32 value.
    a, b = to_float64(lhs, tin), to_float64(rhs, tin)
    return _matmul_round(a, b, to_float64(acc, tacc), tacc)


def _expand_scale(scale: Array, t: Any, repeats: int, axis: int) -> Array:
    """Scale values as float64, each repeated over its block of `repeats` K elements."""
    return np.repeat(to_float64(scale, t), repeats, axis=axis)


@semantics("mmaf_scaled")
def mmaf_scaled(step: Any, lhs: Array, rhs: Array, acc: Array, lhs_scale: Array,
                rhs_scale: Array) -> Array:
    """sum_k (lhs[i,k] * lhs_scale[i,k/V]) * (rhs[k,j] * rhs_scale[k/V,j]) + acc[i,j].

    V = K / (number of scale blocks).  The spec says a negative f8E4M3FN scale "may produce
    undefined values": that is an unspecified result, not undefined behaviour, so nothing
    is reported; the scale is applied with its sign like any other (deterministic)."""
    tin = _operand_element_type(step, 0)
    tscale = _operand_element_type(step, 3)
    tacc = _element_type(step)
    k = np.shape(lhs)[-1]
    blocks = np.shape(lhs_scale)[-1]
    v = k // blocks
    a = to_float64(lhs, tin) * _expand_scale(lhs_scale, tscale, v, -1)
    b = to_float64(rhs, tin) * _expand_scale(rhs_scale, tscale, v, -2)
    return _matmul_round(a, b, to_float64(acc, tacc), tacc)


#: Exact computations NumPy does correctly rounded in IEEE nearest-even for f32 and f64.
_NATIVE: dict[Callable[..., Any], Callable[..., Array]] = {
    _add: np.add, _mul: np.multiply, _div: np.divide, _sqrt: np.sqrt}
#: The canonical NaN of each type with a native fast path (what the exact path returns).
_CANONICAL_NAN = {t: from_float64(np.array(np.nan), t) for t in (F32, F64, F16)}
#: Types NumPy casts float64 to with correct rounding to nearest even (bf16 is not: its
#: cast may round twice).
_CAST = {F32: np.float32, F16: np.float16}
