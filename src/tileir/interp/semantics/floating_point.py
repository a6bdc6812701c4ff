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
`_matmul_round`.  For operands of at most 26 bits (f32, tf32, bf16, f16, f8) a certified
fast path gives the same bits: a plain BLAS sum with a rigorous error bound, the exact path
only for the few elements the bound leaves undecided (`_matmul_certified`).
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

import numpy as np

from ...enums import ComparisonOrdering, ComparisonPredicate, RoundingMode
from ...numerics import (as_signed, float_format, flush_subnormals, from_float64,
                         from_words, to_float64, to_words)
from ...types import F16, F32, F64, FloatType
from .registry import semantics
from .common import op_facts

Array = np.ndarray
#: The element types of mmaf's operands as passed (lhs, rhs, acc), when not float64 yet.
Types = tuple[FloatType, FloatType, FloatType]
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
        return _round_nearest_cast(x, None, t)
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
    t, rounding, ftz, plain = op_facts(step, _rounding_facts)
    native = _NATIVE.get(compute)
    if native is not None and plain:
        return _native(native, t, operands)
    values = _inputs(step, t, *operands)
    y, s, overflow = compute(rounding, t, *values)
    return _round_exact(y, s, t, rounding, ftz, overflow)


def _rounding_facts(step: Any) -> tuple[FloatType, RoundingMode, bool, bool]:
    """What `_rounded` reads from the op: the result's element type, the rounding mode,
    whether flush-to-zero applies, and whether NumPy's own arithmetic rounds as the op
    does (f32 or f64, nearest even, no flush)."""
    t = _element_type(step)
    rounding = _rounding(step)
    ftz = _ftz(step, t)
    return t, rounding, ftz, rounding == RoundingMode.NEAREST_EVEN and \
        t in _CANONICAL_NAN and not ftz


def _native(operation: Callable[..., Array], t: FloatType, operands: tuple) -> Array:
    """The fast path of `_rounded` for f32 and f64 in nearest-even without FTZ: IEEE 754
    arithmetic in NumPy's own float32/float64 is correctly rounded, the same result as the
    exact path; only NaNs are made canonical, as `numerics` makes them."""
    with np.errstate(all="ignore"):
        result = operation(*operands)
    return _canonical_nans(result, t)


def _canonical_nans(result: Array, t: FloatType) -> Array:
    """`result` with every NaN the canonical NaN of `t` (NaN propagates through `np.max`,
    a cheaper first test than `np.isnan` over the whole array)."""
    if result.size and np.isnan(np.max(result)):
        result = np.where(np.isnan(result), _CANONICAL_NAN[t], result)
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
    t = _element_type(step)
    if t in _CAST and _rounding(step) == RoundingMode.NEAREST_EVEN and not _ftz(step, t):
        return _fma_nearest(t, lhs, rhs, acc)
    return _rounded(step, _fma, lhs, rhs, acc)


def _fma_nearest(t: FloatType, lhs: Array, rhs: Array, acc: Array) -> Array:
    """`fma` to nearest even for f32 and f16: the product is exact in float64, so the
    float64 sum y is the exact value v rounded once, and casting y rounds v correctly
    unless y is exactly a midpoint of t (no midpoint can lie strictly between v and its
    nearest float64), below t's normal range (zeros and their signs included), or not
    finite in t.  Only those elements take the exact path."""
    a, b, c = (np.broadcast_to(to_float64(x, t), np.broadcast_shapes(
        np.shape(lhs), np.shape(rhs), np.shape(acc))) for x in (lhs, rhs, acc))
    with np.errstate(all="ignore"):
        y = a * b + c          # a * b is exact: only the addition rounds
        r = y.astype(_CAST[t])
    hard = _near_a_tie(y, t) | ~np.isfinite(r)
    where = np.flatnonzero(hard)
    if where.size:
        picked = [x.reshape(-1)[where] for x in (a, b, c)]
        value, sign, overflow = _fma(RoundingMode.NEAREST_EVEN, t, *picked)
        exact = _round_exact(value, sign, t, RoundingMode.NEAREST_EVEN, False, overflow)
        r.reshape(-1)[where] = exact
    return r


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
    are the canonical NaN.  f16/f32/f64 held in their own dtypes, without FTZ, take NumPy's
    own function (`_native_min_max`)."""
    t = _element_type(step)
    propagate = step.op.has_flag("propagate_nan")
    native = _NATIVE_MIN_MAX.get((beats, propagate))
    if native is not None and t in _CANONICAL_NAN and not _ftz(step, t) and \
            np.result_type(lhs) == np.result_type(rhs) == _NATIVE_DTYPE[t]:
        return _native_min_max(native, beats, propagate, t, lhs, rhs)
    a, b = _inputs(step, t, lhs, rhs)
    return _finish(step, t, _pick(a, b, beats, propagate))


def _pick(a: Array, b: Array, beats: Callable[..., Array], propagate: bool) -> Array:
    """The IEEE choice between a and b: the one `beats` prefers, -0 below +0; with a NaN,
    NaN (`propagate`) or the other operand."""
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    # Order -0 below +0: equal values are told apart by their sign (positive beats negative
    # for max, where `beats` is >, and the reverse for min).
    with np.errstate(invalid="ignore"):
        left = beats(a, b) | ((a == b) & ~beats(~np.signbit(b), ~np.signbit(a)))
    out = np.where(left, a, b)
    if propagate:
        return np.where(nan_a | nan_b, np.nan, out)
    return np.where(nan_a, b, np.where(nan_b, a, out))


def _native_min_max(native: Callable[..., Array], beats: Callable[..., Array],
                    propagate: bool, t: FloatType, lhs: Array, rhs: Array) -> Array:
    """`_min_max` through NumPy's maximum/minimum (NaN-propagating) or fmax/fmin: the same
    choice for every pair but two zeros of opposite signs (NumPy may return either), so
    zero results are chosen again by `_pick`, and but a signalling NaN against a number,
    which NumPy's f32 fmax/fmin return on arrays of fewer than 16 elements and not on
    longer ones: maximumNumber's result is the number, so a NaN result of fmax/fmin is
    taken again from the operands; NaN results are made canonical."""
    with np.errstate(invalid="ignore"):
        out = np.asarray(native(lhs, rhs, order="C"))
    flat = out.reshape(-1)
    zero = np.flatnonzero(flat == 0)
    if zero.size:
        a, b = (np.broadcast_to(x, out.shape).reshape(-1)[zero] for x in (lhs, rhs))
        flat[zero] = _pick(a, b, beats, propagate)
    nan = np.isnan(flat)
    if not propagate and nan.any():     # (the other operand; a NaN only where both are)
        a, b = (np.broadcast_to(x, out.shape).reshape(-1)[nan] for x in (lhs, rhs))
        flat[nan] = np.where(np.isnan(a), b, a)
        nan = np.isnan(flat)
    if nan.any():
        flat[nan] = _CANONICAL_NAN[t]
    return out


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


def _round_nearest_cast(y: Array, s: Array | None, t: FloatType) -> Array:
    """`_round_exact` to nearest even for f32 and f16 through NumPy's correctly rounded
    cast: the cast rounds y itself; only where y is exactly a midpoint between two values
    of t, or zero, does the tail's sign `s` (None: all zero) decide (`_tail_decides`).
    Infinite and NaN results are settled apart (`_nearest_specials`)."""
    y = np.require(y, np.float64, "C")             # C order: flat views of y and r
    with np.errstate(over="ignore", invalid="ignore"):
        r = y.astype(_CAST[t])
    if s is not None:
        _tail_decides(y, np.broadcast_to(s, y.shape), r, t)
    special = ~np.isfinite(r)
    if special.any():
        _nearest_specials(y, s, r, t, np.flatnonzero(special))
    return r


#: Per cast type: the float64 significand bits below the type's last one, and their
#: pattern at a midpoint between two of its normal values (the highest set, the rest clear).
_MIDPOINT_BITS = {F32: (np.uint64((1 << 29) - 1), np.uint64(1 << 28)),
                  F16: (np.uint64((1 << 42) - 1), np.uint64(1 << 41))}
#: Per cast type: its smallest normal value (below it, midpoints have other patterns).
_SMALLEST_NORMAL = {F32: 2.0 ** -126, F16: 2.0 ** -14}


def _near_a_tie(y: Array, t: FloatType) -> Array:
    """Where float64 `y` (C-ordered) may round to t differently from the exact value it
    stands for: y exactly a midpoint of t's normal values (its low bits show it), or below
    t's normal range (other midpoints, and zeros whose sign the exact value decides)."""
    mask, half = _MIDPOINT_BITS[t]
    return ((y.view(np.uint64) & mask) == half) | (np.abs(y) < _SMALLEST_NORMAL[t])


def _tail_decides(y: Array, s: Array, r: Array, t: FloatType) -> None:
    """Correct `r` (in place) where the tail's sign decides: y exactly a midpoint (the
    tail points to the neighbour) or zero (the tail's sign).  Only elements with a tail
    whose y has a midpoint's low bits, or lies below t's normal range (zero included), can
    be such: the rest keep the cast's rounding."""
    tail = s != 0
    if not tail.any():
        return
    where = np.flatnonzero(_near_a_tie(y, t) & tail)
    if where.size:
        flat = r.reshape(-1)
        flat[where] = _tail_elements(y.reshape(-1)[where], s.reshape(-1)[where], flat[where], t)


def _tail_elements(y: Array, s: Array, r: Array, t: FloatType) -> Array:
    """`_tail_decides` on chosen elements (1-d): a midpoint (y between its two neighbours
    in t, exactly halfway) goes to the neighbour the tail points to; a zero y takes the
    tail's sign."""
    dtype = _CAST[t]
    with np.errstate(over="ignore", invalid="ignore"):
        back = r.astype(np.float64)
        beyond = np.where(y > back, np.inf, -np.inf).astype(dtype)
        other = np.nextafter(r, beyond)
        other64 = other.astype(np.float64)
        midpoint = (y != back) & ((back + other64) * 0.5 == y)
    up = (s > 0) == (other64 > back)         # the tail points to the other neighbour
    r = np.where(midpoint & up, other, r)
    zero = y == 0                            # a tiny exact value: zero with its sign
    return np.where(zero, np.copysign(np.zeros((), dtype), s.astype(dtype)), r)


def _nearest_specials(y: Array, s: Array | None, r: Array, t: FloatType, where: Array
                      ) -> None:
    """Settle (in place) the infinite and NaN results of `_round_nearest_cast` at the flat
    positions `where`: a finite y whose cast overflowed takes the general path (the
    midpoint next to infinity is the tail's to decide); NaN becomes the canonical NaN."""
    flat = r.reshape(-1)
    yy, rr = y.reshape(-1)[where], flat[where]
    ss = np.zeros(where.size, np.int8) if s is None else \
        np.broadcast_to(s, y.shape).reshape(-1)[where]
    hard = np.isinf(rr) & np.isfinite(yy)
    if hard.any():
        rr[hard] = _round_general(yy[hard], ss[hard], t, RoundingMode.NEAREST_EVEN, False)
    rr[np.isnan(rr)] = _CANONICAL_NAN[t]
    flat[where] = rr


def _matmul_round(lhs: Array, rhs: Array, acc: Array, out: FloatType,
                  narrow: bool = False, types: Types | None = None) -> Array:
    """sum_k lhs[..., i, k] * rhs[..., k, j] + acc[..., i, j], rounded once to `out`.

    The spec fixes no order of accumulation.  This model is deterministic and independent
    of the array's batch shape: the operands are split into slices whose products sum
    exactly in float64 (`_matmul_sliced`: each slice product is an exact matrix product, in
    any order), and acc and those few exact products are added into a double-float64 sum;
    for non-finite or extreme inputs, the products (exact, by TwoProd) are added for
    k = 0, 1, ..., K-1 into the double-float64 sum instead.  The sum is rounded once to
    nearest even: the correctly rounded exact value unless it cancels below about 2**-104 of
    the largest term, so at least as accurate as any hardware order.
    `narrow` says every value of lhs and of rhs has at most 26 significant bits and a
    magnitude within the range `_narrow` states: then `_matmul_certified` gives the same
    bits, much faster, for nearly every element.  `types`, when given, are the element
    types the operands are held in (the fast path reads them into float64 by parts).
    """
    if narrow:
        certified = _matmul_certified(lhs, rhs, acc, out, types)
        if certified is not None:
            return certified
    if types is not None:
        lhs, rhs, acc = (to_float64(x, t) for x, t in zip((lhs, rhs, acc), types))
    return _matmul_exact(lhs, rhs, acc, out)


def _matmul_exact(lhs: Array, rhs: Array, acc: Array, out: FloatType) -> Array:
    """`_matmul_round` the reference way: sliced products or the k loop, rounded once."""
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


#: u, the unit roundoff of float64 (round to nearest).
_U64 = 2.0 ** -53
#: The largest K the certified product takes (its error analysis assumes K <= 2**14).
_CERTIFIED_MAX_K = 1 << 14
#: Per result type: a bound on |acc| + ||a_i|| ||b_j|| below which no element of the
#: certified result rounds to infinity (f32: from 2**128 - 2**104 on; f16: from 65520 on),
#: with room for the bound's own slack.
_CERTIFIED_LIMIT = {F32: 2.0 ** 127, F16: 2.0 ** 15}
#: The unsigned integer view of each cast type (bitwise comparison of results).
_WORD = {np.dtype(np.float32): np.uint32, np.dtype(np.float16): np.uint16}


def _narrow(*factors: FloatType) -> bool:
    """Whether every product x of one value of each of `factors` (a matmul operand: its
    input type, or its input type and its scale type) has at most 26 significant bits and,
    when not zero, 2**-s <= |x| < 2**l with 2 s + l <= 460 (f32: 2*150 + 129; f8E5M2
    scaled by e8m0: 2*144 + 146).  Products of two such values are exact normal float64
    numbers, sums of K <= 2**14 of them are far from overflow, and `_matmul_sliced` never
    gives up on them: rows need at most n = ceil((l + s + 25) / width) slices (width <= 25),
    so the lowest slice unit of a side, at least -(s - 1) - width n >= -(2 s + l + 49), is
    above -510, and the two sides' sum above -1020.  So the exact path takes its sliced
    branch on any part of such operands, and gives each element the same bits alone or in
    the whole (`_gather`)."""
    formats = [float_format(t) for t in factors]
    bits = sum(f.mantissa_bits + 1 for f in formats)
    largest = sum(2 ** f.exponent_bits - f.bias for f in formats)    # |x| < 2**largest
    smallest = sum(f.bias + f.mantissa_bits for f in formats)        # |x| >= 2**-smallest
    return bits <= 26 and 2 * smallest + largest <= 460


def _certified_scale(k: int) -> float:
    """c such that E = c B, B = |acc| + ||a_i|| ||b_j|| (computed in float64), puts the
    reference's float64 value y strictly inside (fl(S - E), fl(S + E)), S = fl(acc + a b).

    With u = 2**-53, X the exact value and B >= |acc| + sum_k |a_ik b_kj| (Cauchy-Schwarz):
    * |S - X| <= gamma_K B, gamma_K = K u / (1 - K u): S adds K + 1 exact terms (narrow
      operands have exact products) with K roundings, in whatever order BLAS takes (FMA
      included);
    * |D - X| <= 2**-27 u B for the reference's double-float D = hi + lo: its slice
      products are exact, hi + t is exact (TwoSum), and only lo's float64 sum of the TwoSum
      errors rounds: at most pairs**2 u**2 times the largest partial sum, with at most 64
      slices a side (4096 pairs) and partial sums below 2 B (the slices of a_ik add up in
      magnitude to at most |a_ik| + 6 2**-width max_k |a_ik|, width >= 18 for K <= 2**14:
      the slice products' magnitudes sum to at most |acc| + 1.01 ||a_i|| ||b_j||);
    * |y - D| <= u |D| and |D| <= (1 + 2 gamma_K) B, y = fl(D); |S| <= (1 + gamma_K) B;
    so |y - S| <= (gamma_K + 1.1 u) B.  Forming fl(S -+ E) moves S -+ E by at most
    u (|S| + E), so fl(S - E) < y < fl(S + E) when E (1 - u) > (gamma_K + 2.2 u) B.
    The computed E is at least c B (1 - (K + 8) u): the exact squares' sum rounds by
    gamma_(K-1), then sqrt, the scaling by c, the product and the sum with c |acc| round
    once each.  c = 2 (gamma_K + 3 u) meets the condition with a factor 1.9 to spare
    (B > 0; for B = 0, E = 0 and both ends are S itself: see `_matmul_certified`)."""
    gamma = k * _U64 / (1.0 - k * _U64)
    return 2.0 * (gamma + 3.0 * _U64)


def _matmul_certified(lhs: Array, rhs: Array, acc: Array, out: FloatType,
                      types: Types | None = None) -> Array | None:
    """`_matmul_exact`'s bits for narrow operands, from a plain float64 BLAS sum.

    S = acc + lhs @ rhs (any order) and E from `_certified_scale`, with
    fl(S - E) < y < fl(S + E) for the reference's float64 value y.  Round to nearest is
    monotonic, so where both ends round to the same bits y does too; y, strictly inside,
    is then no midpoint between two values of `out` (between two ends rounding alike
    there is none), so the reference never reads its tail's sign, and y is not zero (the
    same bits mean the same sign; an interval around zero has -0 below and +0 above).
    When B = 0 (acc, and a row of lhs or a column of rhs, zero) E = 0: both ends are S;
    their bits agree only for S = +0, and the reference's exact zero is +0 (its lo starts
    at +0, and y = hi + lo).  The elements whose ends differ are settled one by one
    (`_settle`).  The work goes in chunks of the leading batch axis, read into float64
    (from `types`, when given) and computed in work arrays reused from chunk to chunk
    (`_Scratch`): in cache, and with little memory beyond the operands.
    None (the caller runs the exact path on everything) when `out` has no correctly
    rounded cast, K is out of range, or some input is not finite or a result could
    overflow: checked on the bound itself, since a NaN or an infinity in a row of lhs, a
    column of rhs or in acc makes the bound of its elements NaN or infinite (and the
    reference then runs its k loop on the whole array)."""
    k = np.shape(lhs)[-1]
    dtype = _CAST.get(out)
    if dtype is None or not 0 < k <= _CERTIFIED_MAX_K:
        return None
    product = np.broadcast_shapes(np.shape(lhs)[:-2], np.shape(rhs)[:-2])
    shape = np.broadcast_shapes(product + (np.shape(lhs)[-2], np.shape(rhs)[-1]),
                                np.shape(acc))
    size = int(np.prod(shape))
    if size == 0:
        return None
    result = np.empty(shape, dtype)
    scratch = _Scratch(types)
    if len(shape) < 3 or size <= _CHUNK:
        return result if _certified_block(lhs, rhs, acc, out, result, scratch) else None
    batch = shape[:-2]
    lhs, rhs = (np.broadcast_to(x, batch + np.shape(x)[-2:]) for x in (lhs, rhs))
    acc = np.broadcast_to(acc, shape)
    step = max(1, _CHUNK * shape[0] // size)
    for first in range(0, shape[0], step):
        part = slice(first, first + step)
        if not _certified_block(lhs[part], rhs[part], acc[part], out, result[part],
                                scratch):
            return None
    return result


#: Each thread's work arrays of `_Scratch`.
_WORK = threading.local()


def release_work() -> None:
    """Drop this thread's work arrays (a launch calls it when it ends; worker threads'
    arrays go with their threads)."""
    _WORK.__dict__.pop("arrays", None)

#: Result elements per chunk of `_matmul_certified` (its float64 work arrays: 2 MiB each).
_CHUNK = 1 << 18


class _Scratch:
    """Work arrays for `_certified_block`, reused from one chunk to the next and from one
    call to the next on the same thread (fresh arrays cost page faults: up to twice the
    time; they are at most a few chunks' worth, `_CHUNK` elements each), and the operands'
    types."""

    def __init__(self, types: Types | None) -> None:
        """This thread's work arrays; `types` as `_matmul_round` takes them."""
        self.types = types
        if not hasattr(_WORK, "arrays"):
            _WORK.arrays = {}
        self.arrays: dict[str, Array] = _WORK.arrays

    def array(self, name: str, shape: tuple[int, ...], dtype: Any = np.float64) -> Array:
        """A C-ordered work array of `shape` (a leading part of the first one asked for)."""
        full = self.arrays.get(name)
        if full is None or full.shape[1:] != shape[1:] or full.shape[0] < shape[0] \
                or full.dtype != dtype:
            full = self.arrays[name] = np.empty(shape, dtype)
        return full[:shape[0]]

    def operands(self, lhs: Array, rhs: Array, acc: Array) -> tuple[Array, Array, Array]:
        """lhs, rhs and acc as exact float64 arrays (copied into work arrays, C-ordered;
        without types they are float64 values already, made float64 arrays: S is summed in
        their dtype)."""
        if self.types is None:
            lhs, rhs, acc = (np.asarray(x, np.float64) for x in (lhs, rhs, acc))
            return lhs, rhs, acc
        read = []
        for name, x, t in zip(("lhs", "rhs", "acc"), (lhs, rhs, acc), self.types):
            x = np.asarray(x)
            into = self.array(name, x.shape)
            with np.errstate(invalid="ignore"):        # signalling NaNs widen quietly
                np.copyto(into, x if x.dtype == _NATIVE_DTYPE.get(t) else to_float64(x, t))
            read.append(into)
        return read[0], read[1], read[2]


def _shared(x: Array) -> Array:
    """`x` without its leading axes when they only repeat one matrix (stride 0: a uniform
    operand the batched engine broadcast along the block axis)."""
    x = np.asarray(x)
    lead = x.ndim - 2
    if lead > 0 and all(stride == 0 for stride in x.strides[:lead]):
        return x[(0,) * lead]
    return x


def _certified_block(lhs: Array, rhs: Array, acc: Array, out: FloatType, result: Array,
                     scratch: _Scratch) -> bool:
    """`_matmul_certified` of one chunk, into `result`; False where it declines.  A shared
    rhs (`_shared`) is read once, and the product is then one matrix product."""
    lhs, rhs, acc = scratch.operands(lhs, _shared(rhs), acc)
    c = _certified_scale(np.shape(lhs)[-1])
    shape = result.shape
    with np.errstate(all="ignore"):
        total = scratch.array("total", shape)
        if rhs.ndim == 2 and lhs.shape[:-2] == shape[:-2] and lhs.flags.c_contiguous \
                and total.flags.c_contiguous:          # (so the reshapes are views)
            np.matmul(lhs.reshape(-1, lhs.shape[-1]), rhs,
                      out=total.reshape(-1, shape[-1]))
            np.add(total, acc, out=total)
        elif np.broadcast_shapes(np.shape(lhs)[:-2], np.shape(rhs)[:-2]) == shape[:-2]:
            np.matmul(lhs, rhs, out=total)
            np.add(total, acc, out=total)
        else:
            np.add(np.matmul(lhs, rhs), acc, out=total)
        row = np.sqrt(np.einsum("...ik,...ik->...i", lhs, lhs)) * c
        column = np.sqrt(np.einsum("...kj,...kj->...j", rhs, rhs))
        width = np.abs(acc, out=scratch.array("width", shape))
        width *= c
        bound = np.multiply(row[..., :, None], column[..., None, :],
                            out=scratch.array("bound", shape))
        np.add(width, bound, out=width)
        if not float(np.max(width)) < c * _CERTIFIED_LIMIT[out]:
            return False                         # NaN or infinity (non-finite inputs), or
        high = scratch.array("high", shape, result.dtype)        # an overflow risk
        np.subtract(total, width, out=result, casting="same_kind")  # rounds as astype does
        np.add(total, width, out=high, casting="same_kind")
    word = _WORD[result.dtype]
    differ = np.flatnonzero(result.view(word) != high.view(word))
    if differ.size:
        result.reshape(-1)[differ] = _settle(lhs, rhs, acc, out, scratch.types, differ,
                                             total.reshape(-1)[differ],
                                             width.reshape(-1)[differ] / c, shape)
    return True


def _settle(lhs: Array, rhs: Array, acc: Array, out: FloatType, types: Types | None,
            flat: Array, total: Array, bound: Array, shape: tuple[int, ...]) -> Array:
    """The exact path's bits of the result elements at row-major positions `flat` (of a
    result of `shape`), whose BLAS sums are `total` and bounds B `bound`: the rounded BLAS
    sum where the lowest set bits of the element's row, column and acc show it exact
    (every product a_ik b_kj is a multiple of 2**(g_i + h_j), g_i the lowest bit exponent
    over row i of lhs and h_j over column j of rhs; then `_exact_sums`' argument applies
    with 2**g the smaller of that and acc's lowest bit), else `_settle_gathered`.  The
    lowest bits are read per row and column, not per element: sums of short (f16, bf16)
    products that land exactly on a midpoint are common and settle here cheaply.  With
    few elements to settle (gathering their rows and columns reads less than all of lhs
    and rhs, times `_GATHER_BELOW`), `_settle_gathered` answers alone."""
    k = np.shape(lhs)[-1]
    if 2 * k * flat.size < _GATHER_BELOW * (np.size(lhs) + np.size(rhs)):
        return _settle_gathered(lhs, rhs, acc, out, flat, total, bound, shape)
    batch = shape[:-2]
    index = np.unravel_index(flat, shape)
    lhs_type, rhs_type = types[:2] if types is not None else (None, None)
    rows = np.broadcast_to(_lowest_bits(lhs, lhs_type).min(axis=-1), batch + (shape[-2],))
    columns = np.broadcast_to(_lowest_bits(rhs, rhs_type).min(axis=-2), batch + (shape[-1],))
    grid = np.minimum(rows[index[:-1]] + columns[index[:-2] + (index[-1],)],
                      _lowest_bits(np.broadcast_to(acc, shape)[index]))
    _, e = np.frexp(4.0 * bound)                           # 4 B < 2**e
    exact = (e <= 53 + grid) & (bound < 2.0 ** 250)
    dtype = _CAST[out]
    settled = np.empty(flat.size, dtype)
    settled[exact] = (total[exact] + 0.0).astype(dtype)           # +0.0: -0 becomes +0
    rest = ~exact
    if rest.any():
        settled[rest] = _settle_gathered(lhs, rhs, acc, out, flat[rest], total[rest],
                                         bound[rest], shape)
    return settled


#: `_settle` gathers rows and columns when that reads less than this times lhs and rhs.
_GATHER_BELOW = 1.0
#: `_lowest_bits` of zero: no set bit (far above any exponent, so a sum stays "none").
_NO_BITS = 1 << 20


def _lowest_bits(x: Array, t: FloatType | None = None) -> Array:
    """Per element of finite float64 `x`: the exponent of its lowest set bit (x is a
    multiple of 2 to that power), `_NO_BITS` for zeros.  Values of type f16 (`t`) are
    looked up by their 16-bit word, three times faster."""
    if t == F16:
        return _F16_LOWEST_BITS()[np.asarray(x).astype(np.float16).view(np.uint16)]
    mantissa, exponent = np.frexp(x)
    whole = np.abs(np.ldexp(mantissa, 53)).astype(np.int64)     # |x| = whole 2**(e - 53)
    _, low = np.frexp((whole & -whole).astype(np.float64))       # lowest bit: 2**(low - 1)
    return np.where(whole == 0, _NO_BITS, exponent.astype(np.int64) - 54 + low)


@functools.cache
def _F16_LOWEST_BITS() -> Array:
    """`_lowest_bits` of every f16 word (infinities and NaNs, which never reach it: 0)."""
    values = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)
    return _lowest_bits(np.where(np.isfinite(values), values, 0.0)).astype(np.int64)


def _settle_gathered(lhs: Array, rhs: Array, acc: Array, out: FloatType, flat: Array,
                     total: Array, bound: Array, shape: tuple[int, ...]) -> Array:
    """`_settle` from each element's own row and column: the rounded BLAS sum where it is
    exact (`_exact_sums`), else the exact path on the element alone."""
    operands = _gather(lhs, rhs, acc, shape, flat)
    exact = _exact_sums(*operands, bound)
    dtype = _CAST[out]
    settled = np.empty(flat.size, dtype)
    settled[exact] = (total[exact] + 0.0).astype(dtype)           # +0.0: -0 becomes +0
    rest = ~exact
    if rest.any():
        rows, columns, sums = (x[rest] for x in operands)
        settled[rest] = _matmul_exact(rows[:, None, :], columns[:, :, None],
                                      sums[:, None, None], out).reshape(-1)
    return settled


def _gather(lhs: Array, rhs: Array, acc: Array, shape: tuple[int, ...], flat: Array
            ) -> tuple[Array, Array, Array]:
    """The row of lhs (n x K), the column of rhs (n x K) and the acc (n) of each result
    element at the row-major positions `flat` of a result of `shape`.

    `_matmul_exact` of such a row and column alone (a 1x1 product) gives the element's bits
    in the whole product: the reference's value of an element depends only on its row, its
    column and its acc (slices are cut per row of lhs and per column of rhs, slice products
    are exact, and extra all-zero slices of other rows add exact zeros; an exact zero sum
    is +0 either way), and narrow finite inputs take the sliced path in both (their slice
    exponents stay far inside float64's range)."""
    batch = shape[:-2]
    index = np.unravel_index(flat, shape)
    rows = np.broadcast_to(lhs, batch + np.shape(lhs)[-2:])[index[:-1]]
    # rhs[b..., :, j]: with batch indices NumPy puts the element axis first (n x K)
    columns = np.broadcast_to(rhs, batch + np.shape(rhs)[-2:])[
        index[:-2] + (slice(None), index[-1])]
    columns = columns if batch else columns.T
    return rows, columns, np.broadcast_to(acc, shape)[index]


def _exact_sums(rows: Array, columns: Array, sums: Array, bound: Array) -> Array:
    """Where every partial sum of acc + sum_k a_k b_k, in any order and in the reference's
    slice order alike, is exact in float64: every product and acc are multiples of 2**g
    with 2**(53 + g) > 4 B (B = `bound` >= |acc| + sum_k |a_k b_k|, as computed; the
    reference's partial sums stay below 2 B, see `_certified_scale`; the factor 2 more
    absorbs B's own rounding).  There the BLAS sum S is the exact value X, the reference's
    tail is zero, and its result is X rounded to nearest even (+0 for X = 0).  Slices of
    a_k are multiples of a_k's lowest bit, so their products are multiples of 2**g too.
    Only for B < 2**250, where scaling a product (>= 2**-460) by 2**-g cannot underflow."""
    _, e = np.frexp(4.0 * bound)                           # 4 B < 2**e
    scale = np.ldexp(1.0, 53 - e.astype(np.int64))         # 2**-g, g = e - 53
    with np.errstate(all="ignore"):
        products = rows * columns * scale[:, None]
        integral = np.all(products == np.rint(products), axis=-1)
        scaled = sums * scale
    return integral & (scaled == np.rint(scaled)) & (bound < 2.0 ** 250)


@semantics("mmaf")
def mmaf(step: Any, lhs: Array, rhs: Array, acc: Array) -> Array:
    """Matrix multiply-accumulate over the last two axes (batched when rank 3)."""
    tin = _operand_element_type(step, 0)
    tacc = _element_type(step)
    narrow = _narrow(tin) and _narrow(_operand_element_type(step, 1))
    # both inputs are read as `tin` (tf32 values are held in float32 arrays; `to_float64`
    # reads their tf32 value)
    return _matmul_round(lhs, rhs, acc, tacc, narrow, (tin, tin, tacc))


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
    narrow = _narrow(tin, tscale) and _narrow(_operand_element_type(step, 1),
                                              _operand_element_type(step, 4))
    return _matmul_round(a, b, to_float64(acc, tacc), tacc, narrow)


#: Exact computations NumPy does correctly rounded in IEEE nearest-even for f32 and f64.
_NATIVE: dict[Callable[..., Any], Callable[..., Array]] = {
    _add: np.add, _mul: np.multiply, _div: np.divide, _sqrt: np.sqrt}
#: The canonical NaN of each type with a native fast path (what the exact path returns).
_CANONICAL_NAN = {t: from_float64(np.array(np.nan), t) for t in (F32, F64, F16)}
#: Types NumPy casts float64 to with correct rounding to nearest even (bf16 is not: its
#: cast may round twice).
_CAST = {F32: np.float32, F16: np.float16}
#: NumPy's min/max functions by (`beats`, propagate_nan): IEEE maximum/minimum and
#: maximumNumber/minimumNumber but for the sign of a zero chosen between two zeros.
_NATIVE_MIN_MAX: dict[tuple[Callable[..., Any], bool], Callable[..., Array]] = {
    (np.greater, True): np.maximum, (np.greater, False): np.fmax,
    (np.less, True): np.minimum, (np.less, False): np.fmin}
#: The NumPy dtype holding each type whose values NumPy widens to float64 exactly.
_NATIVE_DTYPE = {F16: np.dtype(np.float16), F32: np.dtype(np.float32),
                 F64: np.dtype(np.float64)}
