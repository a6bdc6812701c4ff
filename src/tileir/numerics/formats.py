"""Binary floating-point formats of Tile IR, and exact rounding into them.

Every Tile IR float type is described by one `FloatFormat` (sign, exponent and
mantissa widths, bias, how NaN and Inf are encoded, whether conversions saturate).
`encode` rounds exactly-known values into a format with any IEEE rounding mode;
`decode` maps bit patterns back to exact float64 values.  Nothing here relies on
ml_dtypes' own conversions, whose rounding and special-value rules differ from the
spec (for instance it turns NaN into -0 for f4E2M1FN).

The rounding core works on values written as ``M * 2**E`` with an integer
significand M, so the same code serves float sources (decomposed from float64,
which holds every Tile IR float exactly) and integer sources of up to 64 bits.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..diagnostics import ConversionError
from ..enums import RoundingMode
from ..types import (BF16, F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F16, F32,
                     F64, TF32, FloatType)


class Specials(enum.Enum):
    """How a format spends its top exponent codes."""

    IEEE = "ieee"                  # all-ones exponent: Inf (mantissa 0) or NaN
    NAN_ALL_ONES = "nan_all_ones"  # only the all-ones magnitude is NaN; no Inf
    FINITE = "finite"              # every code is a finite number


@dataclass(frozen=True)
class FloatFormat:
    """The bit layout and conversion rules of one floating-point element type.

    `saturating` formats use the spec's satfinite conversion (5.1.3): out-of-range
    values and infinities become the largest finite value of the same sign.
    `nan_to_max` sends NaN to +MAX_NORM (the spec's rule for e4m3, and our rule for
    f4E2M1FN, which has no NaN).  `container_shift` places the code inside a wider
    storage word (tf32 lives in the top 19 bits of an f32).
    """

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    signed: bool = True
    specials: Specials = Specials.IEEE
    subnormals: bool = True
    saturating: bool = False
    nan_to_max: bool = False
    container_shift: int = 0

    @property
    def bits(self) -> int:
        """Significant bits of the encoding (19 for tf32)."""
        return int(self.signed) + self.exponent_bits + self.mantissa_bits

    @property
    def storage_bits(self) -> int:
        """Bits of the storage word the code sits in."""
        return self.bits + self.container_shift

    @property
    def sign_shift(self) -> int:
        return self.exponent_bits + self.mantissa_bits

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal value (of the smallest value when no subnormals)."""
        return 1 - self.bias if self.subnormals else -self.bias

    @property
    def magnitude_mask(self) -> int:
        return (1 << self.sign_shift) - 1

    @cached_property
    def max_code(self) -> int:
        """Magnitude code of the largest finite value."""
        all_ones = self.magnitude_mask
        if self.specials is Specials.IEEE:
            # The largest exponent below all-ones, with every mantissa bit set.
            return all_ones - (1 << self.mantissa_bits)
        if self.specials is Specials.NAN_ALL_ONES:
            return all_ones - 1
        return all_ones

    @property
    def inf_code(self) -> int | None:
        """Magnitude code of infinity, or None when the format has none."""
        return self.max_code + 1 if self.specials is Specials.IEEE else None

    @property
    def nan_code(self) -> int | None:
        """Magnitude code of the canonical NaN (all ones, as NVIDIA GPUs produce), or None."""
        return None if self.specials is Specials.FINITE else self.magnitude_mask

    def decode_magnitude(self, code: int) -> float:
        """The exact value of a magnitude code, as a Python float (NaN and Inf included)."""
        m = self.mantissa_bits
        if self.specials is Specials.IEEE and code > self.max_code:
            return float("inf") if code == self.inf_code else float("nan")
        if self.specials is Specials.NAN_ALL_ONES and code == self.magnitude_mask:
            return float("nan")
        exp_field, mant = code >> m, code & ((1 << m) - 1)
        if exp_field == 0 and self.subnormals:
            return float(np.ldexp(float(mant), self.emin - m))
        return float(np.ldexp(float((1 << m) + mant), exp_field - self.bias - m))

    @cached_property
    def max_finite(self) -> float:
        return self.decode_magnitude(self.max_code)

    @cached_property
    def min_positive(self) -> float:
        """Smallest positive value (subnormal where the format has them)."""
        return self.decode_magnitude(1 if self.subnormals else 0)


#: Every Tile IR float type's format.
FORMATS: dict[FloatType, FloatFormat] = {
    F16: FloatFormat("f16", 5, 10, 15),
    BF16: FloatFormat("bf16", 8, 7, 127),
    F32: FloatFormat("f32", 8, 23, 127),
    TF32: FloatFormat("tf32", 8, 10, 127, container_shift=13),
    F64: FloatFormat("f64", 11, 52, 1023),
    F8E4M3FN: FloatFormat("f8E4M3FN", 4, 3, 7, specials=Specials.NAN_ALL_ONES,
                          saturating=True, nan_to_max=True),
    F8E5M2: FloatFormat("f8E5M2", 5, 2, 15, saturating=True),
    F8E8M0FNU: FloatFormat("f8E8M0FNU", 8, 0, 127, signed=False,
                           specials=Specials.NAN_ALL_ONES, subnormals=False, saturating=True),
    F4E2M1FN: FloatFormat("f4E2M1FN", 2, 1, 1, specials=Specials.FINITE, saturating=True,
                          nan_to_max=True),
    F8E5M3FNU: FloatFormat("f8E5M3FNU", 5, 3, 15, signed=False,
                           specials=Specials.NAN_ALL_ONES, saturating=True),
}

_UNSIGNED_OF_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def code_dtype(fmt: FloatFormat) -> np.dtype:
    """The unsigned integer dtype that holds a storage word of `fmt` (uint8 for 4-bit codes)."""
    return np.dtype(_UNSIGNED_OF_BITS[max(8, fmt.storage_bits)])


# --------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------

_TABLES: dict[str, np.ndarray] = {}
_NATIVE = {32: (np.uint32, np.float32), 64: (np.uint64, np.float64)}


def _decode_table(fmt: FloatFormat) -> np.ndarray:
    """float64 value of every storage word of a format of at most 16 bits."""
    table = _TABLES.get(fmt.name)
    if table is None:
        n = 1 << fmt.bits
        table = np.empty(n, dtype=np.float64)
        for word in range(n):
            value = fmt.decode_magnitude(word & fmt.magnitude_mask)
            table[word] = -value if fmt.signed and word >> fmt.sign_shift else value
        _TABLES[fmt.name] = table
    return table


def decode(words: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Exact float64 values of storage words of `fmt` (NaN codes decode to NaN)."""
    words = np.asarray(words)
    if fmt.storage_bits in _NATIVE:
        # f32, tf32 and f64 are IEEE binary32/64 words NumPy reads natively; tf32's bits
        # below its 10-bit mantissa are not part of the value.
        unsigned, native = _NATIVE[fmt.storage_bits]
        mask = unsigned(~((1 << fmt.container_shift) - 1) & ((1 << fmt.storage_bits) - 1))
        with np.errstate(invalid="ignore"):   # signalling NaNs widen quietly
            return (words.astype(unsigned) & mask).view(native).astype(np.float64)
    return _decode_table(fmt)[words.astype(np.int64) & ((1 << fmt.bits) - 1)]


# --------------------------------------------------------------------------------------
# Rounding
# --------------------------------------------------------------------------------------


_SIG_BITS = 60  # significands are narrowed to this many bits, keeping a sticky bit


def _bit_length(m: np.ndarray) -> np.ndarray:
    """Vectorized int.bit_length for non-negative int64 values."""
    length = np.zeros(m.shape, dtype=np.int64)
    rest = m.copy()
    for step in (32, 16, 8, 4, 2, 1):
        big = rest >= (np.int64(1) << step)
        length += np.where(big, step, 0)
        rest = np.where(big, rest >> step, rest)
    return length + (rest > 0)


def round_significand(negative: np.ndarray, m: np.ndarray, e: np.ndarray, fmt: FloatFormat,
                      rounding: RoundingMode) -> np.ndarray:
    """Round the positive values ``m * 2**e`` (m: int64 > 0) into `fmt`'s magnitude codes.

    `negative` gives each value's sign, which decides the direction of the directed
    modes.  Returns int64 codes that may lie outside the format's range: above
    `max_code` means overflow, below 0 means underflow past a format with no zero;
    `encode` resolves both.
    """
    mbits = fmt.mantissa_bits
    lead = _bit_length(m) - 1 + e                      # exponent of the leading bit
    q = np.maximum(lead, fmt.emin) - mbits             # exponent of one unit in the last place
    shift = q - e
    left = np.clip(-shift, 0, None)
    right = np.clip(shift, 0, 62)
    n = np.where(shift <= 0, m << left, m >> right)
    rem = np.where(shift <= 0, 0, m & ((np.int64(1) << right) - 1))
    half = np.where(shift <= 0, 1, np.int64(1) << np.maximum(right - 1, 0))
    # One formula covers subnormal and normal results: a carry into the next binade,
    # or from the largest subnormal into the smallest normal, falls out of the addition.
    base = (q + mbits + fmt.bias - 1) * (np.int64(1) << mbits)
    decide = _ROUNDS_UP.get(rounding)
    if decide is None:
        raise ConversionError(f"rounding mode {rounding} does not apply to a conversion")
    # Ties to even look at the code's last bit (for e8m0, whose significand is always 1,
    # that is the exponent's parity).
    up = decide(rem, half, (base + n) & 1 == 1, negative)
    return base + n + up


# Whether to step the truncated significand up one unit, by rounding mode, from the
# discarded remainder, half a unit, whether the truncated code is odd, and the sign.
_ROUNDS_UP = {
    RoundingMode.NEAREST_EVEN: lambda rem, half, odd, neg: (rem > half) | ((rem == half) & odd),
    RoundingMode.NEAREST_AWAY: lambda rem, half, odd, neg: rem >= half,
    RoundingMode.ZERO: lambda rem, half, odd, neg: np.zeros(np.shape(rem), dtype=bool),
    RoundingMode.POSITIVE_INF: lambda rem, half, odd, neg: (rem != 0) & ~neg,
    RoundingMode.NEGATIVE_INF: lambda rem, half, odd, neg: (rem != 0) & neg,
}

# Whether an overflowing value becomes Inf (rather than the largest finite value) in an
# IEEE-like format, by rounding mode and sign.
_OVERFLOWS_TO_INF = {
    RoundingMode.NEAREST_EVEN: lambda neg: np.ones(np.shape(neg), dtype=bool),
    RoundingMode.NEAREST_AWAY: lambda neg: np.ones(np.shape(neg), dtype=bool),
    RoundingMode.ZERO: lambda neg: np.zeros(np.shape(neg), dtype=bool),
    RoundingMode.POSITIVE_INF: lambda neg: ~neg,
    RoundingMode.NEGATIVE_INF: lambda neg: neg,
}


#: The rounding modes that apply to a conversion between number formats.
CONVERSION_ROUNDINGS = tuple(_ROUNDS_UP)


def encode_parts(negative: np.ndarray, m: np.ndarray, e: np.ndarray, kind: np.ndarray,
                 fmt: FloatFormat, rounding: RoundingMode,
                 flush_to_zero: bool = False) -> np.ndarray:
    """Storage words of `fmt` for values given as sign, significand and exponent.

    `kind` classifies each value: 0 finite non-zero (``m * 2**e``), 1 zero, 2 infinity,
    3 NaN.  Implements the spec's conversion rules: IEEE-like targets round and may
    overflow to Inf; saturating targets clamp to the finite range; FTZ is applied
    after rounding.
    """
    finite = kind == 0
    safe_m = np.where(finite, m, 1)
    safe_e = np.where(finite, e, 0)
    code = round_significand(negative, safe_m, safe_e, fmt, rounding)

    ieee_overflow = fmt.specials is Specials.IEEE and not fmt.saturating
    if ieee_overflow:
        overflow_code = np.where(_OVERFLOWS_TO_INF[rounding](negative), fmt.inf_code,
                                 fmt.max_code)
    else:
        overflow_code = np.full(code.shape, fmt.max_code)
    # Below 0 means below the smallest value of a format with no zero: clamp to it.
    code = np.where(code > fmt.max_code, overflow_code, np.maximum(code, 0))
    if flush_to_zero and fmt.subnormals:
        code = np.where(code < (1 << fmt.mantissa_bits), 0, code)

    inf_result = fmt.inf_code if ieee_overflow else fmt.max_code
    nan_result = fmt.max_code if fmt.nan_code is None or fmt.nan_to_max else fmt.nan_code
    code = np.select([kind == 1, kind == 2, kind == 3], [0, inf_result, nan_result], code)
    if not fmt.signed:
        # No negative numbers: the closest representable value is the smallest one.
        code = np.where(negative & (kind != 3), 0, code)
    negative_out = np.asarray(negative & (kind != 3))  # NaN results are positive

    word = code | (negative_out.astype(np.int64) << fmt.sign_shift if fmt.signed else 0)
    return (word << fmt.container_shift).astype(code_dtype(fmt))


def split_float64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Exact (negative, significand, exponent, kind) of float64 values; see `encode_parts`."""
    x = np.array(x, dtype=np.float64)
    bits = x.view(np.uint64).astype(np.int64)
    negative = np.signbit(x)
    exp_field = (bits >> 52) & 0x7FF
    mant = bits & ((np.int64(1) << 52) - 1)
    m = np.where(exp_field == 0, mant, mant | (np.int64(1) << 52))
    e = np.where(exp_field == 0, -1074, exp_field - 1075)
    kind = np.select([np.isnan(x), np.isinf(x), x == 0], [3, 2, 1], 0)
    return negative, m, e, kind


def split_integers(values: np.ndarray, signed: bool) -> tuple[np.ndarray, ...]:
    """Exact (negative, significand, exponent, kind) of integers of up to 64 bits.

    Magnitudes wider than 60 bits are narrowed with a sticky bit, which keeps
    rounding exact for every target (at most 53 significant bits).
    """
    values = np.asarray(values)
    if signed:
        v = values.astype(np.int64)
        negative = v < 0
        mag = np.abs(v).astype(np.uint64)       # |INT64_MIN| wraps to 2**63 as uint64
    else:
        mag = values.astype(np.uint64)
        negative = np.zeros(mag.shape, dtype=bool)
    drop = np.uint64(64 - _SIG_BITS)
    wide = mag >= (np.uint64(1) << np.uint64(_SIG_BITS))
    sticky = (mag & ((np.uint64(1) << drop) - np.uint64(1))) != 0
    narrowed = (mag >> drop) | sticky.astype(np.uint64)
    m = np.where(wide, narrowed, mag).astype(np.int64)
    e = np.where(wide, int(drop), 0).astype(np.int64)
    kind = np.where(mag == 0, 1, 0)
    return negative, m, e, kind


def encode(x: np.ndarray, fmt: FloatFormat, rounding: RoundingMode = RoundingMode.NEAREST_EVEN,
           flush_to_zero: bool = False) -> np.ndarray:
    """Storage words of `fmt` nearest to the float64 values `x` under `rounding`."""
    return encode_parts(*split_float64(x), fmt, rounding, flush_to_zero)


def is_subnormal_word(words: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """True where a storage word encodes a non-zero subnormal value."""
    code = (np.asarray(words).astype(np.int64) >> fmt.container_shift) & fmt.magnitude_mask
    if not fmt.subnormals:
        return np.zeros(code.shape, dtype=bool)
    return (code > 0) & (code < (1 << fmt.mantissa_bits))


def flush_words(words: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Replace subnormal values by zero of the same sign (flush-to-zero)."""
    words = np.asarray(words)
    keep = ~is_subnormal_word(words, fmt)
    sign = (words >> (fmt.sign_shift + fmt.container_shift)) << (
        fmt.sign_shift + fmt.container_shift) if fmt.signed else np.zeros_like(words)
    return np.where(keep, words, sign).astype(words.dtype)
