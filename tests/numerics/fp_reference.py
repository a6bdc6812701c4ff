"""An independent model of the spec's float formats and conversion rules, for tests.

Written from the format definitions (sign, exponent, mantissa, bias, special codes)
and spec 5.1.3, without using tileir.numerics: values are exact Python numbers,
and rounding searches the sorted list of representable values for the neighbours
of the input and picks one by the rounding mode's definition.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from functools import lru_cache

NEAREST_EVEN, ZERO, NEGATIVE_INF, POSITIVE_INF, NEAREST_AWAY = (
    "nearest_even", "zero", "negative_inf", "positive_inf", "nearest_away")
MODES = (NEAREST_EVEN, ZERO, NEGATIVE_INF, POSITIVE_INF, NEAREST_AWAY)


@dataclass(frozen=True)
class Spec:
    """A float format as the spec and the type's name describe it."""

    name: str
    exponent: int
    mantissa: int
    bias: int
    signed: bool = True
    specials: str = "ieee"       # "ieee", "nan_all_ones" (only all-ones is NaN) or "none"
    subnormals: bool = True
    satfinite: bool = False      # spec 5.1.3: narrow formats saturate
    nan_to_max: bool = False     # spec 5.1.3: e4m3 turns NaN into +MAX_NORM
    shift: int = 0               # tf32 sits in the top 19 bits of a 32-bit word

    @property
    def bits(self) -> int:
        return int(self.signed) + self.exponent + self.mantissa

    @property
    def sign_bit(self) -> int:
        return 1 << (self.exponent + self.mantissa) if self.signed else 0


SPECS = {
    "f16": Spec("f16", 5, 10, 15),
    "bf16": Spec("bf16", 8, 7, 127),
    "f32": Spec("f32", 8, 23, 127),
    "tf32": Spec("tf32", 8, 10, 127, shift=13),
    "f64": Spec("f64", 11, 52, 1023),
    "f8E4M3FN": Spec("f8E4M3FN", 4, 3, 7, specials="nan_all_ones", satfinite=True,
                     nan_to_max=True),
    "f8E5M2": Spec("f8E5M2", 5, 2, 15, satfinite=True),
    "f8E8M0FNU": Spec("f8E8M0FNU", 8, 0, 127, signed=False, specials="nan_all_ones",
                      subnormals=False, satfinite=True),
    # f4E2M1FN has neither NaN nor Inf; like e4m3 it saturates and sends NaN to +MAX.
    "f4E2M1FN": Spec("f4E2M1FN", 2, 1, 1, specials="none", satfinite=True, nan_to_max=True),
    "f8E5M3FNU": Spec("f8E5M3FNU", 5, 3, 15, signed=False, specials="nan_all_ones",
                      satfinite=True),
}

NAN = "nan"


def value_of(code: int, spec: Spec):
    """The exact value of a code: a float (signed zeros and infinities included) or NAN."""
    code >>= spec.shift
    negative = bool(code & spec.sign_bit)
    magnitude = code & (spec.sign_bit - 1 if spec.signed else (1 << spec.bits) - 1)
    exp_field = magnitude >> spec.mantissa
    fraction = magnitude & ((1 << spec.mantissa) - 1)
    all_ones_exp = (1 << spec.exponent) - 1
    if spec.specials == "ieee" and exp_field == all_ones_exp:
        if fraction:
            return NAN
        return -math.inf if negative else math.inf
    if spec.specials == "nan_all_ones" and magnitude == (1 << (spec.exponent + spec.mantissa)) - 1:
        return NAN
    # Every value of these formats is a float64, so ldexp computes it exactly.
    if exp_field == 0 and spec.subnormals:
        value = math.ldexp(fraction, 1 - spec.bias - spec.mantissa)
    else:
        value = math.ldexp((1 << spec.mantissa) + fraction, exp_field - spec.bias - spec.mantissa)
    return -value if negative else value


@lru_cache(maxsize=None)
def table(name: str) -> tuple[list[float], list[int]]:
    """Finite non-negative values of a format, ascending, with their magnitude codes."""
    spec = SPECS[name]
    entries = []
    for magnitude in range(1 << (spec.bits - int(spec.signed))):
        value = value_of(magnitude << spec.shift, spec)
        if value != NAN and not math.isinf(value):
            entries.append((value, magnitude))
    entries.sort()
    return [v for v, _ in entries], [c for _, c in entries]


def canonical_nan(spec: Spec) -> int:
    return ((1 << (spec.bits - int(spec.signed))) - 1) << spec.shift


def max_code(spec: Spec) -> int:
    return table(spec.name)[1][-1] << spec.shift


def convert(x, name: str, mode: str = NEAREST_EVEN, flush_to_zero: bool = False) -> int:
    """The code spec 5.1.3 assigns to x (a float or an int; NaN and Inf allowed).

    Arithmetic on the neighbours is exact: they have at most 24 significant bits, so
    their sums are float64 values, and Python compares ints with floats exactly.
    """
    spec = SPECS[name]
    values, codes = table(name)
    top = codes[-1]
    if isinstance(x, float) and math.isnan(x):
        if spec.nan_to_max or spec.specials == "none":
            return top << spec.shift
        return canonical_nan(spec)
    negative = x < 0 or (isinstance(x, float) and x == 0 and math.copysign(1, x) < 0)
    if not spec.signed and negative:
        return codes[0] << spec.shift  # nothing below the smallest value: take it
    sign_bits = spec.sign_bit if negative else 0
    magnitude = -x if x < 0 else x
    away = mode == POSITIVE_INF and not negative or mode == NEGATIVE_INF and negative
    if magnitude == math.inf:
        return (sign_bits | (top if spec.satfinite else top + 1)) << spec.shift
    if magnitude > values[-1]:
        if spec.satfinite:
            return (sign_bits | top) << spec.shift
        # IEEE overflow: round as if the exponent range were unbounded; the value
        # past the largest finite one is 2**(emax+1) and its mantissa is even.
        next_up = 2.0 ** (spec.bias + 1)
        if mode in (NEAREST_EVEN, NEAREST_AWAY):
            to_inf = 2 * magnitude >= values[-1] + next_up
        else:
            to_inf = away
        return (sign_bits | (top + 1 if to_inf else top)) << spec.shift
    i = bisect.bisect_left(values, magnitude)
    if values[i] == magnitude:
        chosen = codes[i]
    elif i == 0:
        chosen = codes[0]   # below the smallest value of a format without zero
    else:
        toward_zero, away_code = codes[i - 1], codes[i]
        if mode == ZERO or (mode in (POSITIVE_INF, NEGATIVE_INF) and not away):
            chosen = toward_zero
        elif mode in (POSITIVE_INF, NEGATIVE_INF):
            chosen = away_code
        else:
            twice, ends = 2 * magnitude, values[i - 1] + values[i]
            if twice != ends:
                chosen = toward_zero if twice < ends else away_code
            elif mode == NEAREST_AWAY:
                chosen = away_code
            else:
                chosen = toward_zero if toward_zero % 2 == 0 else away_code
    if flush_to_zero and spec.subnormals and 0 < chosen < (1 << spec.mantissa):
        chosen = 0
    return (sign_bits | chosen) << spec.shift


def same_value(a, b) -> bool:
    """Equality of decoded values that also tells +0 from -0 and treats NaN as equal."""
    if a == NAN or b == NAN:
        return a == b
    return a == b and (a != 0 or math.copysign(1, float(a)) == math.copysign(1, float(b)))
