"""Float literals exactly as MLIR prints and parses them (LLVM ``APFloat`` rules).

Printing follows MLIR's ``printFloatValue`` (mlir/lib/IR/AsmPrinter.cpp):

1. A finite value is first rendered by ``APFloat::toString`` with six significant
   digits in scientific form (``1.000000e+00``, ``-3.140630e+00``); that text is kept
   when reading it back into the type (directly, with round-to-nearest-even) gives
   the same bits.
2. Otherwise ``APFloat::toString`` with its defaults renders it with
   ``2 + precision * 59 / 196`` significant digits, choosing plain or scientific
   (``E``) notation (``2.7182818284590451``, ``1.0000000000000001E+300``); that text
   is kept if it has a ``.``.  It is *not* checked to round-trip.
3. Everything else -- infinities, NaNs, and values whose default rendering is a bare
   integer such as f32 ``16777216`` -- prints as the bit pattern in C hex with
   uppercase digits and no leading zeros (``0x7F800000``, ``0x7C00``, ``0x1``).

``APFloat::toString`` is reproduced step for step, quirks included: the exact binary
value is expanded to decimal, then *truncated* by a whole power of ten (an integer
division) until it has about as many bits as the requested digits need, and only then
rounded half-up on the remaining decimal digits.  When that truncation already leaves
no more digits than requested, the printed digits are truncated rather than rounded.

Parsing follows ``Parser::parseFloatFromLiteral``: a decimal literal is read as an
f64 (correctly rounded, overflowing to infinity) and that double is then converted
to the type with round-to-nearest-even -- two roundings, so the result can differ
from a direct conversion in the last place.  ``APFloat`` conversion rules per type:
IEEE types overflow to infinity; f8E4M3FN overflows to NaN of the same sign (any
value that rounds to the all-ones magnitude included, so ``|x| > 464`` gives NaN);
f4E2M1FN, which has no NaN or infinity, saturates to ±6.0; f8E8M0FNU has no zero
(zero and anything below 2**-127 become 2**-127, code 0x00) and, its significand
being a single bit, rounds every tie up (3.0 becomes 4.0).  A hex literal is a bit
pattern, rejected when it has more significant bits than the type.

fnv8E5M3FNU (13.4's spelling of f8E5M3FNU) is not an LLVM type.  It is modelled on the
project's `FloatFormat` for it and on f8E4M3FN: unsigned, exponent bias 15 with
subnormals, NaN only at 0xFF, no infinity (overflow gives NaN), largest value
0xFE = 114688.

Bits are storage words as `tileir.numerics` holds them: tf32 is a 32-bit word whose top
19 bits are the value (its low 13 bits are ignored and returned as zero), and its hex
literals are MLIR's 19-bit patterns (``0x3FC00`` for infinity).  Negative values of
the unsigned types (where LLVM has no defined behaviour) raise `FloatLiteralError`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from ..numerics.formats import FORMATS, Specials
from ..types import FloatType

__all__ = [
    "FloatLiteralError", "apfloat_to_string", "decimal_to_bits", "float_bits_from_hex",
    "float_value", "format_float", "parse_float_literal",
]


class FloatLiteralError(ValueError):
    """A float literal MLIR rejects; `message` and `note` are MLIR's words."""

    def __init__(self, message: str, note: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.note = note


# --------------------------------------------------------------------------------------
# APFloat semantics of each type
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Semantics:
    """An ``fltSemantics``: precision and exponent range, plus the encoding's layout."""

    precision: int      # significand bits, integer bit included
    min_exp: int        # exponent of the smallest normal value
    max_exp: int        # exponent of the largest finite binade
    bias: int           # exponent field of 2**0
    mant_bits: int
    size: int           # bits of the encoding (19 for tf32)
    shift: int          # where the encoding sits in the storage word
    signed: bool
    specials: Specials
    has_zero: bool

    @property
    def nan_all_ones(self) -> bool:
        """NaN is the all-ones magnitude and there is no Inf (f8E4M3FN, f8E8M0FNU...)."""
        return self.specials is Specials.NAN_ALL_ONES


@lru_cache(maxsize=None)
def _semantics(t: FloatType) -> _Semantics:
    """The APFloat semantics of float type `t`, derived from its `FloatFormat`."""
    fmt = FORMATS.get(t)
    if fmt is None:
        raise FloatLiteralError(f"{t} is not a Tile IR floating-point type")
    top_field = (1 << fmt.exponent_bits) - 1
    if fmt.specials is Specials.IEEE or (fmt.specials is Specials.NAN_ALL_ONES
                                         and fmt.mantissa_bits == 0):
        top_field -= 1      # the all-ones exponent holds only Inf/NaN
    # Only f8E8M0FNU lacks subnormals, and with them its zero (code 0 is 2**-127).
    return _Semantics(
        precision=fmt.mantissa_bits + 1, min_exp=fmt.emin, max_exp=top_field - fmt.bias,
        bias=fmt.bias, mant_bits=fmt.mantissa_bits, size=fmt.bits,
        shift=fmt.container_shift, signed=fmt.signed, specials=fmt.specials,
        has_zero=fmt.subnormals)


def _code(bits: int, sem: _Semantics) -> int:
    """The encoding held in a storage word (checked to fit the word)."""
    bits = int(bits)
    if bits < 0 or bits >> (sem.size + sem.shift):
        raise ValueError(f"{bits:#x} is not a {sem.size + sem.shift}-bit storage word")
    return (bits >> sem.shift) & ((1 << sem.size) - 1)


def _decode(code: int, sem: _Semantics) -> tuple[str, bool, int, int]:
    """(kind, negative, n, q) of an encoding: value ``n * 2**q``; kind finite/inf/nan."""
    sign_shift = sem.size - 1 if sem.signed else sem.size
    negative = bool(code >> sign_shift) if sem.signed else False
    magnitude = code & ((1 << sign_shift) - 1)
    field, mant = magnitude >> sem.mant_bits, magnitude & ((1 << sem.mant_bits) - 1)
    if sem.specials is Specials.IEEE and field == (1 << (sign_shift - sem.mant_bits)) - 1:
        return ("inf" if mant == 0 else "nan"), negative, 0, 0
    if sem.nan_all_ones and magnitude == (1 << sign_shift) - 1:
        return "nan", negative, 0, 0
    if field == 0 and sem.has_zero:
        return "finite", negative, mant, sem.min_exp - sem.mant_bits
    return "finite", negative, mant | (1 << sem.mant_bits), field - sem.bias - sem.mant_bits


# --------------------------------------------------------------------------------------
# Rounding into a type (IEEEFloat::normalize and handleOverflow)
# --------------------------------------------------------------------------------------


def _sign_bit(negative: bool, sem: _Semantics) -> int:
    """The sign bit of an encoding (none in an unsigned type)."""
    return (1 << (sem.size - 1)) if negative and sem.signed else 0


def _zero_code(negative: bool, sem: _Semantics) -> int:
    """A zero; a type without zero gets its smallest normal value (code 0) instead."""
    return _sign_bit(negative, sem) if sem.has_zero else 0


def _overflow_code(negative: bool, sem: _Semantics) -> int:
    """Round-to-nearest overflow: Inf, or NaN where there is none, or saturation (fp4)."""
    # All ones is NaN (NAN_ALL_ONES) or the largest value (FINITE); IEEE clears the
    # mantissa to make Inf.
    magnitude = (1 << (sem.size - 1 if sem.signed else sem.size)) - 1
    if sem.specials is Specials.IEEE:
        magnitude ^= (1 << sem.mant_bits) - 1
    return _sign_bit(negative, sem) | magnitude


def _check_sign(negative: bool, sem: _Semantics) -> None:
    """Reject a negative non-zero value for an unsigned type (undefined in LLVM)."""
    if negative and not sem.signed:
        raise FloatLiteralError("negative value for an unsigned floating-point type")


def _round_ratio(negative: bool, num: int, den: int, sem: _Semantics) -> int:
    """The encoding nearest (ties to even) to ``num / den`` > 0, with APFloat's overflow."""
    _check_sign(negative, sem)
    p = sem.precision
    e = num.bit_length() - den.bit_length()          # 2**e <= num/den < 2**(e+1)
    if (num << -e if e < 0 else num) < (den << e if e > 0 else den):
        e -= 1
    q = max(e, sem.min_exp) - (p - 1)                 # exponent of one unit in the last place
    if q >= 0:
        unit = den << q
        n, rem = divmod(num, unit)
    else:
        unit = den
        n, rem = divmod(num << -q, den)
    # Ties look at the significand's last bit; for a one-bit significand (e8m0) that is
    # the integer bit, always set, so every tie rounds up.
    if 2 * rem > unit or (2 * rem == unit and n & 1):
        n += 1
    if n == 0:
        return _zero_code(negative, sem)
    if n >> p:                                        # carried into the next binade
        n >>= 1
        q += 1
    if n.bit_length() - 1 + q > sem.max_exp:
        return _overflow_code(negative, sem)
    if sem.nan_all_ones and p > 1 and n == (1 << p) - 1 and q == sem.max_exp - (p - 1):
        return _overflow_code(negative, sem)          # the all-ones magnitude is NaN
    if n >> (p - 1):
        field, mant = q + (p - 1) + sem.bias, n ^ (1 << (p - 1))
    else:
        field, mant = 0, n                            # subnormal
    return _sign_bit(negative, sem) | (field << sem.mant_bits) | mant


def _from_double(x: float, sem: _Semantics) -> int:
    """``APFloat(x).convert(sem, rmNearestTiesToEven)`` as an encoding (x never NaN)."""
    negative = math.copysign(1.0, x) < 0
    if x == 0:
        return _zero_code(negative, sem)
    _check_sign(negative, sem)
    if math.isinf(x):
        # IEEE keeps Inf and NaN-only types make NaN; fp4 has neither (LLVM leaves that
        # case undefined): it saturates, as it does for finite overflow.
        return _overflow_code(negative, sem)
    num, den = abs(x).as_integer_ratio()
    return _round_ratio(negative, num, den, sem)


_DECIMAL = re.compile(r"([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?")


def _decimal_code(text: str, sem: _Semantics) -> int:
    """``APFloat(sem, text)``: a decimal string rounded directly into the type."""
    m = _DECIMAL.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):
        raise FloatLiteralError(f"invalid decimal number '{text}'")
    sign, whole, frac, exp = m.groups()
    frac = frac or ""
    digits = int(whole + frac or "0")
    power = int(exp or 0) - len(frac)
    negative = sign == "-"
    if digits == 0:
        return _zero_code(negative, sem)
    if power >= 0:
        return _round_ratio(negative, digits * _pow10(power), 1, sem)
    return _round_ratio(negative, digits, _pow10(-power), sem)


@lru_cache(maxsize=4096)
def _pow10(k: int) -> int:
    """10**k, remembered."""
    return 10 ** k


@lru_cache(maxsize=4096)
def _pow5(k: int) -> int:
    """5**k, remembered."""
    return 5 ** k


# --------------------------------------------------------------------------------------
# APFloat::toString
# --------------------------------------------------------------------------------------


def _to_string(negative: bool, n: int, q: int, precision: int, format_precision: int,
               max_padding: int, truncate_zero: bool) -> str:
    """``APFloat::toString`` of ``±n * 2**q`` for a type of `precision` significand bits."""
    sign = "-" if negative else ""
    if n == 0:
        if max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0.0" + "0" * max(format_precision - 1, 0) + "e+00"
    if not format_precision:
        format_precision = 2 + precision * 59 // 196
    # Drop trailing binary zeros, then turn n * 2**q into n * 10**exp exactly.
    zeros = (n & -n).bit_length() - 1
    n >>= zeros
    exp = q + zeros
    if exp > 0:
        n <<= exp
        exp = 0
    elif exp < 0:
        n *= _pow5(-exp)
    # Integer-divide away the decimal digits beyond what the precision needs (truncation).
    bits, needed = n.bit_length(), (format_precision * 196 + 58) // 59
    if bits > needed:
        tens = (bits - needed) * 59 // 196
        if tens:
            exp += tens
            n //= _pow10(tens)
    digits = str(n)
    kept = digits.rstrip("0")
    exp += len(digits) - len(kept)
    digits = kept
    # Round half up to the precision on the remaining decimal digits.
    if len(digits) > format_precision:
        dropped = len(digits) - format_precision
        if digits[format_precision] < "5":
            kept = digits[:format_precision].rstrip("0")
            exp += len(digits) - len(kept)
            digits = kept
        else:
            head = digits[:format_precision].rstrip("9")
            if not head:
                exp += len(digits)
                digits = "1"
            else:
                exp += dropped + format_precision - len(head)
                digits = head[:-1] + chr(ord(head[-1]) + 1)
    count = len(digits)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or count + exp > format_precision
    else:
        leading = exp + count - 1
        scientific = leading < 0 and -leading > max_padding
    if scientific:
        exp10 = exp + count - 1
        mantissa = digits[0] + "." + ("0" if count == 1 and truncate_zero else digits[1:])
        if not truncate_zero and format_precision > count - 1:
            mantissa += "0" * (format_precision - count + 1)
        exponent = str(abs(exp10))
        if not truncate_zero and len(exponent) < 2:
            exponent = "0" + exponent
        letter = "E" if truncate_zero else "e"
        return f"{sign}{mantissa}{letter}{'+' if exp10 >= 0 else '-'}{exponent}"
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + count
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * -whole + digits


def apfloat_to_string(bits: int, t: FloatType, format_precision: int = 0,
                      format_max_padding: int = 3, truncate_zero: bool = True) -> str:
    """``APFloat::toString`` of a storage word, defaults included (``+Inf``/``-Inf``/``NaN``)."""
    sem = _semantics(t)
    kind, negative, n, q = _decode(_code(bits, sem), sem)
    if kind == "inf":
        return "-Inf" if negative else "+Inf"
    if kind == "nan":
        return "NaN"
    return _to_string(negative, n, q, sem.precision, format_precision, format_max_padding,
                      truncate_zero)


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def format_float(bits: int, t: FloatType) -> str:
    """The literal MLIR prints for the float of type `t` held in storage word `bits`."""
    return _format_code(_code(bits, _semantics(t)), t)


@lru_cache(maxsize=1 << 16)
def _format_code(code: int, t: FloatType) -> str:
    """`format_float` of an encoding, remembered: dense constants repeat values."""
    sem = _semantics(t)
    kind, negative, n, q = _decode(code, sem)
    if kind == "finite":
        text = _to_string(negative, n, q, sem.precision, 6, 0, False)
        if _decimal_code(text, sem) == code:
            return text
        text = _to_string(negative, n, q, sem.precision, 0, 3, True)
        if "." in text:
            return text
    return f"0x{code:X}"


_FLOAT_LITERAL = re.compile(r"(-?)(\d+\.\d*(?:[eE][-+]?\d+)?)")
_INTEGER_LITERAL = re.compile(r"(-?)(0x[0-9a-fA-F]+|\d+)")


@lru_cache(maxsize=4096)
def parse_float_literal(text: str, t: FloatType) -> int:
    """The storage word MLIR's ``parseFloat`` makes of a literal (``1.5``, ``-2.0e-3``, ``0x7C00``).

    Decimal literals round twice (to f64, then to `t`); hex literals are bit patterns
    (see `float_bits_from_hex`).  Raises `FloatLiteralError` with MLIR's message.
    Remembered per (text, type): kernels spell the same constants over and over, and the
    conversion is pure (errors are raised afresh each time, never remembered).
    """
    sem = _semantics(t)
    m = _FLOAT_LITERAL.fullmatch(text)
    if m is not None:
        x = float(m.group(2))       # correctly rounded, like StringRef::getAsDouble
        return _from_double(-x if m.group(1) else x, sem) << sem.shift
    m = _INTEGER_LITERAL.fullmatch(text)
    if m is None:
        raise FloatLiteralError("expected floating point literal")
    if not m.group(2).startswith("0x"):
        raise FloatLiteralError("unexpected decimal integer literal for a floating point value",
                                note="add a trailing dot to make the literal a float")
    if m.group(1):
        raise FloatLiteralError("hexadecimal float literal should not have a leading minus")
    return float_bits_from_hex(int(m.group(2), 16), t)


def float_bits_from_hex(value: int, t: FloatType) -> int:
    """The storage word of hex literal `value`; an error when it has more active bits than `t`."""
    sem = _semantics(t)
    if value < 0 or value.bit_length() > sem.size:
        raise FloatLiteralError("hexadecimal float constant out of range for type")
    return value << sem.shift


def decimal_to_bits(text: str, t: FloatType) -> int:
    """``APFloat(semantics, text)``: a decimal string rounded once, directly into `t`."""
    sem = _semantics(t)
    return _decimal_code(text, sem) << sem.shift


def float_value(bits: int, t: FloatType) -> float:
    """The value of a storage word as a Python float (exact for every Tile IR type)."""
    sem = _semantics(t)
    kind, negative, n, q = _decode(_code(bits, sem), sem)
    if kind == "nan":
        return math.nan
    value = math.inf if kind == "inf" else math.ldexp(n, q)
    return -value if negative else value
