"""Element conversions exact to the bit: float<->float, int<->float, integer width and signedness.

Values are NumPy arrays in the dtype `numpy_dtype(t)` gives for their element type.
Integers are signless: an iN array holds N bits, and `as_signed` / `as_unsigned`
read them with the signedness an op asks for.  Float conversions follow spec 5.1.3:
IEEE-like targets (f16, bf16, f32, tf32, f64) round with the requested mode and may
overflow to Inf, keeping NaN; the narrow formats (fp8, fp4, e8m0) saturate to their
finite range.  Flush-to-zero applies to the rounded result.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ..diagnostics import ConversionError
from ..enums import RoundingMode
from ..types import BF16, F16, F32, F64, I1, I4, TF32, FloatType, IntegerType, Type
from .encoding import numpy_dtype
from .formats import (FORMATS, FloatFormat, code_dtype, decode, encode, encode_parts,
                      flush_words, split_integers)

# --------------------------------------------------------------------------------------
# Float storage words
# --------------------------------------------------------------------------------------


def float_format(t: Type) -> FloatFormat:
    """The bit layout of float element type `t`."""
    try:
        return FORMATS[t]  # type: ignore[index]
    except KeyError:
        raise ConversionError(f"{t} is not a Tile IR floating-point type") from None


def to_words(values: np.ndarray, t: FloatType) -> np.ndarray:
    """The storage words (unsigned ints) of float values held in `numpy_dtype(t)`."""
    fmt = float_format(t)
    a = np.asarray(values, dtype=numpy_dtype(t))
    words = a.view(code_dtype(fmt))
    return words & np.uint8(0xF) if fmt.storage_bits == 4 else words


def from_words(words: np.ndarray, t: FloatType) -> np.ndarray:
    """Float values of type `t` from their storage words."""
    fmt = float_format(t)
    w = np.asarray(words).astype(code_dtype(fmt))
    if fmt.storage_bits == 4:
        w = w & np.uint8(0xF)
    return w.view(numpy_dtype(t))


def to_float64(values: np.ndarray, t: FloatType) -> np.ndarray:
    """Exact float64 values of an array of float type `t` (every Tile IR float fits)."""
    values = np.asarray(values)
    if t in _WIDEN:
        return _widen(values)
    if t in _NATIVE and values.dtype == _NATIVE[t]:   # what `decode` does, without the
        with np.errstate(invalid="ignore"):          # word view and mask
            return values.astype(np.float64)
    return decode(to_words(values, t), float_format(t))


#: Types whose library cast to float64 is exact (`to_float64`'s fast path; NaNs as
#: `decode` gives them).
_WIDEN = {F16, BF16}
#: f32 and f64 held in their own dtype: `decode` reads them natively, the cast is the same.
_NATIVE = {F32: np.dtype(np.float32), F64: np.dtype(np.float64)}


def _widen(values: np.ndarray) -> np.ndarray:
    """f16/bf16 values as float64 by the library's exact cast; a NaN becomes the quiet NaN
    of its sign, as `decode` gives it."""
    with np.errstate(invalid="ignore"):
        out = values.astype(np.float64)
        nan = np.isnan(out)
    if nan.any():
        out = np.where(nan, np.copysign(np.nan, out), out)
    return out


def from_float64(x: np.ndarray, t: FloatType,
                 rounding: RoundingMode = RoundingMode.NEAREST_EVEN,
                 flush_to_zero: bool = False) -> np.ndarray:
    """Round float64 values into type `t` (spec 5.1.3, FTZ after rounding)."""
    if rounding is RoundingMode.NEAREST_EVEN and not flush_to_zero and (F64, t) in _CASTS:
        return _cast(np.asarray(x, np.float64), t)
    fmt = float_format(t)
    return from_words(encode(x, fmt, rounding, flush_to_zero), t)


def convert_float(values: np.ndarray, source: FloatType, target: FloatType,
                  rounding: RoundingMode = RoundingMode.NEAREST_EVEN,
                  flush_to_zero: bool = False) -> np.ndarray:
    """``ftof``: convert between float types with one exact rounding."""
    if rounding is RoundingMode.NEAREST_EVEN and not flush_to_zero and \
            (source, target) in _CASTS:
        return _cast(np.asarray(values), target)
    return from_float64(to_float64(values, source), target, rounding, flush_to_zero)


#: Conversions NumPy and ml_dtypes round once, to nearest even, exactly as the spec does
#: (IEEE conversion between binary formats; ml_dtypes rounds f32 to bf16 directly; widening
#: is exact); only their NaNs differ (`_cast`).  Not f64 to bf16, which ml_dtypes may round
#: twice through f32.
_CASTS = {(F64, F32), (F64, F16), (F32, F16), (F32, F64), (F16, F64), (F16, F32),
          (F32, BF16), (BF16, F32), (BF16, F64), (F64, F64), (F32, F32), (F16, F16),
          (BF16, BF16)}


def _cast(values: np.ndarray, target: FloatType) -> np.ndarray:
    """The fast path of `convert_float`: the library's cast, with every NaN made the
    canonical NaN the exact path gives."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(numpy_dtype(target))
        nan = np.isnan(out)
    if nan.any():
        out = np.where(nan, _canonical_nan(target), out)
    return out


def _canonical_nan(t: FloatType) -> np.ndarray:
    """The NaN the exact path encodes in `t`."""
    nan = _NANS.get(t)
    if nan is None:  # (threads racing here all get the one `setdefault` keeps)
        nan = _NANS.setdefault(t, from_words(encode(np.array(np.nan), float_format(t),
                                                     RoundingMode.NEAREST_EVEN, False), t))
    return nan


_NANS: dict[FloatType, np.ndarray] = {}


def flush_subnormals(values: np.ndarray, t: FloatType) -> np.ndarray:
    """Replace subnormal values of type `t` by a zero of the same sign (FTZ on inputs)."""
    return from_words(flush_words(to_words(values, t), float_format(t)), t)


def round_to_tf32(values: np.ndarray,
                  rounding: RoundingMode = RoundingMode.NEAREST_EVEN) -> np.ndarray:
    """f32 values rounded to tf32 precision (10 mantissa bits), returned as float32."""
    return convert_float(values, F32, TF32, rounding)


# --------------------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------------------

_INT4_DTYPES = (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4))


def _width(t: Type) -> int:
    if not isinstance(t, IntegerType):
        raise ConversionError(f"{t} is not an integer type")
    return t.width


def as_signed(values: np.ndarray, t: IntegerType) -> np.ndarray:
    """The two's-complement reading of iN values, as int64 (i1 true is -1)."""
    n = _width(t)
    v = _raw_bits(values, t)
    return np.where(v >= (1 << (n - 1)), v - (1 << n), v).astype(np.int64) if n < 64 \
        else v.view(np.int64)


def as_unsigned(values: np.ndarray, t: IntegerType) -> np.ndarray:
    """The unsigned reading of iN values, as uint64 (i1 true is 1)."""
    return _raw_bits(values, t).astype(np.uint64)


def unsigned_int(value: Any, t: IntegerType) -> int:
    """The unsigned reading of one iN value (a rank-0 tile, or a NumPy or Python scalar) as
    a Python int: ``int(as_unsigned(value, t))``, read straight from the int where the
    value's dtype is a NumPy bool or integer one (its low N bits)."""
    a = np.asarray(value)
    if a.ndim == 0 and a.dtype.kind in "biu":
        return int(a) & ((1 << _width(t)) - 1)
    return int(as_unsigned(a, t))


def _raw_bits(values: np.ndarray, t: IntegerType) -> np.ndarray:
    """The N bits of each value as a non-negative int64 (uint64 for i64)."""
    n = _width(t)
    a = np.asarray(values)
    if n == 64:
        return a.astype(np.int64).view(np.uint64)
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    elif a.dtype in _INT4_DTYPES:
        a = a.astype(np.int8)
    return a.astype(np.int64) & ((1 << n) - 1)


def from_integers(values, t: IntegerType) -> np.ndarray:
    """Wrap integers (any NumPy integer array or Python ints) into iN, keeping the low N bits."""
    n = _width(t)
    a = np.asarray(values)
    if a.dtype == np.uint64:
        a = a.view(np.int64)
    elif a.dtype == np.bool_:
        a = a.astype(np.int64)
    elif a.dtype == object:
        a = np.array([int(v) & ((1 << 64) - 1) for v in a.ravel()], dtype=np.uint64).view(
            np.int64).reshape(a.shape)
    a = a.astype(np.int64)
    if n == 64:
        return a
    low = a & ((1 << n) - 1)
    if t == I1:
        return low.astype(np.bool_)
    signed = np.where(low >= (1 << (n - 1)), low - (1 << n), low)
    return signed.astype(np.int8 if t == I4 else numpy_dtype(t)).astype(numpy_dtype(t))


def extend_int(values: np.ndarray, source: IntegerType, target: IntegerType,
               signed: bool) -> np.ndarray:
    """``exti``: widen with sign extension (signed) or zero extension (unsigned)."""
    read = as_signed(values, source) if signed else as_unsigned(values, source)
    return from_integers(read, target)


def truncate_int(values: np.ndarray, source: IntegerType, target: IntegerType) -> np.ndarray:
    """``trunci``: keep the low bits of each value."""
    return from_integers(as_unsigned(values, source), target)


def int_range(t: IntegerType, signed: bool) -> tuple[int, int]:
    """Smallest and largest value of iN read with the given signedness."""
    n = _width(t)
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)


def truncation_loses_value(values: np.ndarray, source: IntegerType, target: IntegerType,
                           signed: bool) -> np.ndarray:
    """Where truncating changes the value read with `signedness` (``nsw``/``nuw`` violations)."""
    if signed:
        low = as_signed(from_integers(as_signed(values, source), target), target)
        return low != as_signed(values, source)
    low = as_unsigned(from_integers(as_unsigned(values, source), target), target)
    return low != as_unsigned(values, source)


# --------------------------------------------------------------------------------------
# Between integers and floats
# --------------------------------------------------------------------------------------

def int_to_float(values: np.ndarray, source: IntegerType, target: FloatType, signed: bool,
                 rounding: RoundingMode = RoundingMode.NEAREST_EVEN) -> np.ndarray:
    """``itof``: the integer's value rounded once into `target` (64-bit values included)."""
    read = as_signed(values, source) if signed else as_unsigned(values, source)
    words = encode_parts(*split_integers(read, signed), float_format(target), rounding)
    return from_words(words, target)


def _nearest_away(x: np.ndarray) -> np.ndarray:
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0.0)


# Rounding of a float to an integral value, by rounding mode.
_TO_INTEGRAL = {
    RoundingMode.NEAREST_INT_TO_ZERO: np.trunc,
    RoundingMode.ZERO: np.trunc,
    RoundingMode.NEAREST_EVEN: np.rint,
    RoundingMode.NEGATIVE_INF: np.floor,
    RoundingMode.POSITIVE_INF: np.ceil,
    RoundingMode.NEAREST_AWAY: _nearest_away,
}


def _round_to_integer(x: np.ndarray, rounding: RoundingMode) -> np.ndarray:
    """`x` rounded to integral values by `rounding`; NaN and infinities pass through
    (the caller decides what they convert to) without NumPy's warnings."""
    try:
        with np.errstate(invalid="ignore"):
            return _TO_INTEGRAL[rounding](x)
    except KeyError:
        raise ConversionError(
            f"rounding mode {rounding} does not apply to a float-to-int conversion") from None


def _ftoi_outcome(values: np.ndarray, source: FloatType, target: IntegerType, signed: bool,
                  rounding: RoundingMode) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rounded values, and where they lie above and below the target's range."""
    x = _round_to_integer(to_float64(values, source), rounding)
    lo, hi = int_range(target, signed)
    # Compare with hi + 1 and lo, powers of two that float64 holds exactly (hi itself
    # may not be: 2**63 - 1 would round up to 2**63).
    return x, x >= float(hi + 1), x < float(lo)


def float_to_int(values: np.ndarray, source: FloatType, target: IntegerType, signed: bool,
                 rounding: RoundingMode = RoundingMode.NEAREST_INT_TO_ZERO) -> np.ndarray:
    """``ftoi``: round to an integer, saturating to the target's range; NaN gives 0.

    Without ``saturating`` the spec leaves NaN, Inf and out-of-range inputs undefined;
    `float_to_int_undefined` finds them so the interpreter can report them.
    """
    x, over, under = _ftoi_outcome(values, source, target, signed, rounding)
    lo, hi = int_range(target, signed)
    nan = np.isnan(x)
    inside = np.where(over | under | nan, 0.0, x)
    ints = inside.astype(np.int64) if signed else inside.astype(np.uint64)
    ints = np.where(over, np.array(hi).astype(ints.dtype), ints)
    ints = np.where(under, np.array(lo).astype(ints.dtype), ints)
    return from_integers(ints, target)


def float_to_int_undefined(values: np.ndarray, source: FloatType, target: IntegerType,
                           signed: bool,
                           rounding: RoundingMode = RoundingMode.NEAREST_INT_TO_ZERO
                           ) -> np.ndarray:
    """Where ``ftoi`` without saturation is undefined: NaN, Inf, or out of range after rounding."""
    x, over, under = _ftoi_outcome(values, source, target, signed, rounding)
    return np.isnan(x) | over | under


def to_bits(values: np.ndarray, t: Type) -> np.ndarray:
    """The storage bits of each element of integer or float type `t`, as uint64."""
    if isinstance(t, FloatType):
        return to_words(values, t).astype(np.uint64)
    return as_unsigned(values, t)  # type: ignore[arg-type]


def from_bits(bits: np.ndarray, t: Type) -> np.ndarray:
    """Elements of integer or float type `t` holding the given storage bits (the inverse of
    `to_bits`)."""
    if isinstance(t, FloatType):
        return from_words(bits, t)
    return from_integers(bits, t)  # type: ignore[arg-type]
