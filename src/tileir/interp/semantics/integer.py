"""Semantics of the integer ops (spec group "Integer"): exact two's-complement arithmetic.

Integers are signless N-bit patterns (N = 1, 8, 16, 32, 64; i1 tiles are bool arrays); an
op's ``signedness`` chooses the reading (spec 8.8.1: i1 reads 0/1 unsigned, 0/-1 signed).
Results wrap modulo 2^N.  Everything is computed without Python integers: signed readings
are int64, unsigned readings uint64, sums and products wrap in uint64 (whose low N bits are
the exact result's), and the high half of a 2N-bit product comes from 32-bit limbs.

Undefined behaviour reported when checks are on: wrap-around under ``overflow``
``no_signed_wrap`` / ``no_unsigned_wrap`` / ``no_wrap`` (addi, subi, muli, shli, negi),
``divi`` / ``remi`` by zero, ``divi`` of the signed minimum by -1, and a shift amount not
less than N (``shli``, ``shri``; see `SHIFT_PAST_WIDTH_IS_UNDEFINED`).  With checks off such
elements get a fixed value: wrapped results, 0 for a quotient by zero, the dividend for a
remainder by zero, and the clamped shift of PTX (0, or the sign for a signed right shift).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from ...enums import ComparisonPredicate, IntegerOverflow, RoundingMode, Signedness
from ...numerics import as_signed, as_unsigned, from_integers, int_range, numpy_dtype
from ...types import I1, I32, IntegerType, TileType
from ..step import Step
from .common import OVERFLOW_PROMISES, first_index
from .registry import semantics
from .scalar import scalar_of

#: The spec's op text does not say what a shift by N or more bits gives; the ops lower to
#: LLVM shifts, for which it is poison, so the interpreter reports it (PTX would clamp).
SHIFT_PAST_WIDTH_IS_UNDEFINED = True

_LOW32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)

# negi reads its operand as signed only (spec 8.8.11), so only the signed half of a flag
# applies; the verifier rejects no_unsigned_wrap on it.
_NEGI_PROMISES: dict[IntegerOverflow, tuple[bool, ...]] = {
    IntegerOverflow.NONE: (),
    IntegerOverflow.NO_SIGNED_WRAP: (True,),
    IntegerOverflow.NO_UNSIGNED_WRAP: (),
    IntegerOverflow.NO_WRAP: (True,),
}

# predicate -> (the comparison on arrays, the same on Python ints for the scalar path)
_COMPARE: dict[ComparisonPredicate, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray],
                                          Callable[[int, int], bool]]] = {
    ComparisonPredicate.EQUAL: (np.equal, operator.eq),
    ComparisonPredicate.NOT_EQUAL: (np.not_equal, operator.ne),
    ComparisonPredicate.LESS_THAN: (np.less, operator.lt),
    ComparisonPredicate.LESS_THAN_OR_EQUAL: (np.less_equal, operator.le),
    ComparisonPredicate.GREATER_THAN: (np.greater, operator.gt),
    ComparisonPredicate.GREATER_THAN_OR_EQUAL: (np.greater_equal, operator.ge),
}


# ---- readings, results and reports ------------------------------------------------------


def _wrapping(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run `fn` with NumPy's integer overflow warnings off: wrapping is what it computes
    (0-d tiles make NumPy scalars, whose arithmetic would otherwise warn)."""
    @functools.wraps(fn)
    def run(*args: Any) -> Any:
        """`fn(*args)` under ``np.errstate(over="ignore")``."""
        with np.errstate(over="ignore"):
            return fn(*args)
    return run



def _read(values: np.ndarray, t: IntegerType, signed: bool) -> np.ndarray:
    """The integers `values` hold: int64 when read signed, uint64 when read unsigned."""
    return as_signed(values, t) if signed else as_unsigned(values, t)


def _mask(t: IntegerType) -> np.uint64:
    """2^N - 1 as a uint64: the bits of an N-bit value."""
    return np.uint64((1 << t.width) - 1)



def _report(step: Step, bad: np.ndarray, what: str,
            describe: Callable[[tuple[int, ...]], str]) -> None:
    """Raise `step.fail` naming the first element where `bad` holds (checks on only);
    `describe(index)` spells the offending operation on that element's operands."""
    if step.checks and np.any(bad):
        where = first_index(np.asarray(bad))
        raise step.fail(f"{what} at element {where}: {describe(tuple(where))}")


def _at(values: np.ndarray, index: tuple[int, ...]) -> int:
    """The integer at `index` of an int64/uint64 reading, as a Python int for messages."""
    return int(np.asarray(values)[index])


def _report_overflow(step: Step, flag: IntegerOverflow, wrapped: dict[bool, np.ndarray],
                     describe: Callable[[bool, tuple[int, ...]], str]) -> None:
    """Raise `step.fail` at the first element (row-major) where a reading the flag promises
    (``wrapped[signed]``: where that reading wrapped) wrapped, naming the reading; the
    signed one first where both did.  `describe(signed, index)` spells the operation."""
    if not step.checks or not wrapped:
        return
    bad = np.logical_or.reduce([np.asarray(mask) for mask in wrapped.values()])
    if not np.any(bad):
        return
    where = tuple(first_index(bad))
    is_signed = True in wrapped and bool(np.asarray(wrapped[True])[where])
    kind = "signed" if is_signed else "unsigned"
    raise step.fail(f"{kind} overflow ({flag.keyword}) at element {list(where)}: "
                    f"{describe(is_signed, where)}")


def _flag(step: Step) -> IntegerOverflow:
    """The op's ``overflow`` flag (none when absent)."""
    flag = step.op.enum("overflow")
    return IntegerOverflow.NONE if flag is None else flag


# ---- wide products -----------------------------------------------------------------------


def _mulhi_unsigned(ua: np.ndarray, ub: np.ndarray, t: IntegerType) -> np.ndarray:
    """The high N bits of the 2N-bit product of N-bit unsigned values, as uint64.

    N <= 32: the product fits uint64.  N = 64: schoolbook on 32-bit limbs, every partial
    sum below 2^64."""
    n = np.uint64(t.width)
    if t.width <= 32:
        return (ua * ub) >> n
    a0, a1 = ua & _LOW32, ua >> _32
    b0, b1 = ub & _LOW32, ub >> _32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    middle = (p00 >> _32) + (p01 & _LOW32) + (p10 & _LOW32)
    return p11 + (p01 >> _32) + (p10 >> _32) + (middle >> _32)


def _mulhi_signed_bits(ua: np.ndarray, ub: np.ndarray, t: IntegerType) -> np.ndarray:
    """The high N bits (as a uint64 pattern, masked to N bits) of the 2N-bit two's-complement
    product of the signed readings: hi_u - [a<0]*b - [b<0]*a, modulo 2^N."""
    top = np.uint64(t.width - 1)
    a_negative = (ua >> top) & np.uint64(1)
    b_negative = (ub >> top) & np.uint64(1)
    high = _mulhi_unsigned(ua, ub, t) - a_negative * ub - b_negative * ua
    return high & _mask(t)


# ---- wrapping arithmetic with overflow detection -----------------------------------------


class _Readings(NamedTuple):
    """Both readings of the operands and of the wrapped result of a binary op on iN."""

    sa: np.ndarray  # signed readings (int64)
    sb: np.ndarray
    sr: np.ndarray
    ua: np.ndarray  # unsigned readings (uint64)
    ub: np.ndarray
    ur: np.ndarray
    t: IntegerType


def _add_signed_overflow(r: _Readings) -> np.ndarray:
    """A signed sum wraps iff both operands have one sign and the result the other."""
    return ((r.sa ^ r.sr) & (r.sb ^ r.sr)) < 0


def _add_unsigned_overflow(r: _Readings) -> np.ndarray:
    """An unsigned sum wraps iff it comes out below an operand."""
    return r.ur < r.ua


def _sub_signed_overflow(r: _Readings) -> np.ndarray:
    """A signed difference wraps iff the operands' signs differ and the result's sign is
    not the minuend's."""
    return ((r.sa ^ r.sb) & (r.sa ^ r.sr)) < 0


def _sub_unsigned_overflow(r: _Readings) -> np.ndarray:
    """An unsigned difference wraps iff the subtrahend is larger."""
    return r.ua < r.ub


def _mul_signed_overflow(r: _Readings) -> np.ndarray:
    """A signed product fits iff the 2N-bit product's high half is the sign of its low half."""
    sign_fill = np.where(r.sr < 0, _mask(r.t), np.uint64(0))
    return _mulhi_signed_bits(r.ua, r.ub, r.t) != sign_fill


def _mul_unsigned_overflow(r: _Readings) -> np.ndarray:
    """An unsigned product fits iff the 2N-bit product's high half is zero."""
    return _mulhi_unsigned(r.ua, r.ub, r.t) != 0


# op -> (symbol for messages, wrapping ufunc on uint64, {signed?: where that reading wraps},
#        the exact operation on Python ints, for the scalar path)
_ARITHMETIC: dict[str, tuple[str, np.ufunc, dict[bool, Callable[[_Readings], np.ndarray]],
                             Callable[[int, int], int]]] = {
    "addi": ("+", np.add, {True: _add_signed_overflow, False: _add_unsigned_overflow},
             operator.add),
    "subi": ("-", np.subtract, {True: _sub_signed_overflow, False: _sub_unsigned_overflow},
             operator.sub),
    "muli": ("*", np.multiply, {True: _mul_signed_overflow, False: _mul_unsigned_overflow},
             operator.mul),
}


@semantics("addi", "subi", "muli")
@_wrapping
def wrapping_arithmetic(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``addi`` / ``subi`` / ``muli``: the exact result modulo 2^N (the low N bits of the
    uint64 wrap); wrapping in a reading the ``overflow`` flag rules out is undefined."""
    t = step.element_type()
    symbol, combine, overflows, _ = _ARITHMETIC[step.op.opdef.name]
    ua, ub = as_unsigned(lhs, t), as_unsigned(rhs, t)
    result = from_integers(combine(ua, ub), t)
    if step.checks:
        flag = _flag(step)
        r = _Readings(as_signed(lhs, t), as_signed(rhs, t), as_signed(result, t),
                      ua, ub, as_unsigned(result, t), t)
        promised = OVERFLOW_PROMISES[flag]
        _report_overflow(step, flag, {signed: overflows[signed](r) for signed in promised},
                         lambda signed, i: f"{_at(r.sa if signed else r.ua, i)} {symbol} "
                                           f"{_at(r.sb if signed else r.ub, i)}")
    return result


@semantics("negi")
@_wrapping
def negi(step: Step, source: np.ndarray) -> np.ndarray:
    """``negi``: -x read signed, modulo 2^N; under ``no_signed_wrap`` / ``no_wrap``
    negating the signed minimum is undefined behaviour."""
    t = step.element_type()
    result = from_integers(np.uint64(0) - as_unsigned(source, t), t)
    flag = _flag(step)
    if step.checks and _NEGI_PROMISES[flag]:
        sa = as_signed(source, t)
        _report_overflow(step, flag, {True: sa == int_range(t, True)[0]},
                         lambda signed, i: f"-({_at(sa, i)})")
    return result


@semantics("absi")
@_wrapping
def absi(step: Step, source: np.ndarray) -> np.ndarray:
    """``absi``: |x| of the signed reading, as an unsigned N-bit value (|min| = 2^(N-1)
    fits, so nothing is undefined)."""
    t = step.element_type()
    return from_integers(np.abs(as_signed(source, t)), t)


@semantics("mulhii")
@_wrapping
def mulhii(step: Step, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``mulhii``: the high N bits of the 2N-bit product of the unsigned readings."""
    t = step.element_type()
    return from_integers(_mulhi_unsigned(as_unsigned(x, t), as_unsigned(y, t), t), t)


# ---- division ---------------------------------------------------------------------------


def _quotient(floor: np.ndarray, inexact: np.ndarray, negative: np.ndarray,
              rounding: RoundingMode) -> np.ndarray:
    """The quotient rounded as `rounding` asks, from the floor quotient, where the division
    is inexact, and where the exact quotient is negative."""
    if rounding == RoundingMode.POSITIVE_INF:
        return floor + inexact.astype(floor.dtype)
    if rounding == RoundingMode.NEGATIVE_INF:
        return floor
    return floor + (inexact & negative).astype(floor.dtype)  # zero: truncate


@semantics("divi")
@_wrapping
def divi(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``divi``: the quotient of the readings rounded toward zero, -inf or +inf; division
    by zero and (signed) the minimum divided by -1 are undefined behaviour."""
    t = step.element_type()
    signed = step.signed()
    rounding = step.op.enum("rounding")
    a, b = _read(lhs, t, signed), _read(rhs, t, signed)
    zero = b == 0
    _report(step, zero, "division by zero", lambda i: f"{_at(a, i)} / 0")
    if signed:
        minus_one = b == -1
        _report(step, minus_one & (a == int_range(t, True)[0]), "signed division overflow",
                lambda i: f"{_at(a, i)} / -1")
        safe = np.where(zero | minus_one, np.int64(1), b)
        floor = np.floor_divide(a, safe)
        inexact = np.remainder(a, safe) != 0
        quotient = _quotient(floor, inexact, (a < 0) != (safe < 0), rounding)
        quotient = np.where(minus_one, np.int64(0) - a, quotient)  # exact; min wraps to min
    else:
        safe = np.where(zero, np.uint64(1), b)
        floor = np.floor_divide(a, safe)
        inexact = np.remainder(a, safe) != 0
        quotient = _quotient(floor, inexact, np.zeros(np.shape(a), np.bool_), rounding)
    return from_integers(np.where(zero, np.zeros_like(quotient), quotient), t)


@semantics("remi")
@_wrapping
def remi(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``remi``: x - trunc(x / y) * y of the readings (signed: the dividend's sign); a
    remainder by zero is undefined behaviour (the minimum by -1 is exactly 0)."""
    t = step.element_type()
    signed = step.signed()
    a, b = _read(lhs, t, signed), _read(rhs, t, signed)
    zero = b == 0
    _report(step, zero, "remainder by zero", lambda i: f"{_at(a, i)} % 0")
    if signed:
        safe = np.where(zero | (b == -1), np.int64(1), b)   # y = -1 always leaves 0
        remainder = np.fmod(a, safe)
    else:
        remainder = np.remainder(a, np.where(zero, np.uint64(1), b))
    return from_integers(np.where(zero, a, remainder), t)


# ---- shifts -----------------------------------------------------------------------------


def _shift_amount(step: Step, lhs: np.ndarray, rhs: np.ndarray, t: IntegerType,
                  symbol: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shift amounts (rhs read unsigned), the same clamped below N, and where they were
    not below N (undefined behaviour when `SHIFT_PAST_WIDTH_IS_UNDEFINED`)."""
    amount = as_unsigned(rhs, t)
    past = amount >= np.uint64(t.width)
    if SHIFT_PAST_WIDTH_IS_UNDEFINED:
        shown = as_unsigned(lhs, t)
        _report(step, past, f"shift amount not less than the bit width {t.width}",
                lambda i: f"{_at(shown, i)} {symbol} {_at(amount, i)}")
    return amount, np.where(past, np.uint64(t.width - 1), amount), past


def _shift_for(amount: np.ndarray, signed: bool) -> np.ndarray:
    """Shift amounts in the dtype of a reading (NumPy will not shift int64 by uint64)."""
    return amount.astype(np.int64) if signed else amount


@semantics("shli")
@_wrapping
def shli(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``shli``: x * 2^y modulo 2^N (y read unsigned; N or more gives 0); wrapping in a
    reading the ``overflow`` flag rules out is undefined behaviour."""
    t = step.element_type()
    amount, clamped, past = _shift_amount(step, lhs, rhs, t, "<<")
    result = from_integers(np.where(past, np.uint64(0), as_unsigned(lhs, t) << clamped), t)
    if step.checks:
        flag = _flag(step)
        originals = {signed: _read(lhs, t, signed) for signed in OVERFLOW_PROMISES[flag]}
        # Shifted back, the result gives the operand iff nothing was lost (past N the
        # result is 0, so that holds just for 0).
        _report_overflow(step, flag,
                         {signed: _read(result, t, signed) >> _shift_for(clamped, signed)
                          != original for signed, original in originals.items()},
                         lambda signed, i: f"{_at(originals[signed], i)} << {_at(amount, i)}")
    return result


@semantics("shri")
@_wrapping
def shri(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``shri``: shift right by y (read unsigned), filling with the sign bit (signed) or
    zeros (unsigned); N or more leaves only the fill."""
    t = step.element_type()
    amount, clamped, past = _shift_amount(step, lhs, rhs, t, ">>")
    if step.signed():
        shifted = as_signed(lhs, t) >> _shift_for(clamped, True)  # by N-1: the sign fill
    else:
        shifted = np.where(past, np.uint64(0), as_unsigned(lhs, t) >> clamped)
    return from_integers(shifted, t)


# ---- comparisons and selections ---------------------------------------------------------


@semantics("cmpi")
@_wrapping
def cmpi(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``cmpi``: the predicate on the readings chosen by ``signedness``, as i1."""
    t = step.element_type(0)
    signed = step.signed()
    compare = _COMPARE[step.op.enum("comparison_predicate")][0]
    return np.asarray(compare(_read(lhs, t, signed), _read(rhs, t, signed)), dtype=np.bool_)


@semantics("maxi")
@_wrapping
def maxi(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``maxi``: x where x >= y in the chosen reading, else y."""
    t = step.element_type()
    signed = step.signed()
    keep = _read(lhs, t, signed) >= _read(rhs, t, signed)
    return np.asarray(np.where(keep, lhs, rhs), dtype=np.asarray(lhs).dtype)


@semantics("mini")
@_wrapping
def mini(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``mini``: x where x <= y in the chosen reading, else y."""
    t = step.element_type()
    signed = step.signed()
    keep = _read(lhs, t, signed) <= _read(rhs, t, signed)
    return np.asarray(np.where(keep, lhs, rhs), dtype=np.asarray(lhs).dtype)


# ---- scalar paths (`scalar`): the same results on Python ints, for rank-0 tiles -----------
#
# A rank-0 tile of iN (8 <= N <= 64) is a 0-d array of a signed NumPy dtype, so int() of it
# is its signed reading and masking that with 2^N - 1 its unsigned one; Python ints are
# exact, so a result is the exact value wrapped to N bits.  Each path declines (None)
# wherever the semantics function could report something: the function then decides.

#: Widths whose rank-0 tiles take the scalar paths (i1 reads 0/-1 signed, 4-bit types
#: live in ml_dtypes: both stay on the semantics functions).
_SCALAR_WIDTHS = frozenset({8, 16, 32, 64})


def _rank0_integer(t: Any) -> IntegerType | None:
    """The element type of a rank-0 tile type of iN with N in `_SCALAR_WIDTHS`, else None."""
    if isinstance(t, TileType) and t.rank == 0 and isinstance(t.element_type, IntegerType) \
            and t.element_type.width in _SCALAR_WIDTHS:
        return t.element_type
    return None


def _scalar_operands(op: Any) -> IntegerType | None:
    """The element type of `op`'s operands when all are rank-0 tiles of that one type (see
    `_rank0_integer`), else None."""
    types = {_rank0_integer(v.type) for v in op.operands}
    if len(types) != 1:
        return None
    return types.pop()


def _wrapper(t: IntegerType) -> tuple[Callable[[int], int], int]:
    """A function giving the signed reading of an int's low N bits, and 2^N - 1."""
    half = 1 << (t.width - 1)
    mask = (half << 1) - 1

    def wrap(value: int) -> int:
        """`value` modulo 2^N, read signed (what a tile of iN holds)."""
        return ((value + half) & mask) - half
    return wrap, mask


def _same_result(op: Any, t: IntegerType) -> bool:
    """Whether `op`'s only result is a rank-0 tile of `t`."""
    return len(op.results) == 1 and _rank0_integer(op.results[0].type) == t


@scalar_of(wrapping_arithmetic)
def _wrapping_arithmetic_scalar(op: Any) -> Callable[..., Any] | None:
    """``addi`` / ``subi`` / ``muli`` on rank-0 tiles: the exact result, wrapped; declines
    where a reading the ``overflow`` flag promises wraps (the semantics report it, or wrap
    it with checks off)."""
    t = _scalar_operands(op)
    if t is None or not _same_result(op, t):
        return None
    exact = _ARITHMETIC[op.opdef.name][3]
    flag = op.enum("overflow")
    promised = OVERFLOW_PROMISES[IntegerOverflow.NONE if flag is None else flag]
    signed, unsigned = True in promised, False in promised
    wrap, mask = _wrapper(t)
    dtype = numpy_dtype(t)

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """The result, or None."""
        if lhs.shape or rhs.shape:
            return None
        a, b = int(lhs), int(rhs)
        value = exact(a, b)
        result = wrap(value)
        if signed and result != value:
            return None
        if unsigned and not 0 <= exact(a & mask, b & mask) <= mask:
            return None
        return np.array(result, dtype)
    return run


@scalar_of(cmpi)
def _cmpi_scalar(op: Any) -> Callable[..., Any] | None:
    """``cmpi`` on rank-0 tiles: the predicate on the chosen readings."""
    t = _scalar_operands(op)
    if t is None or len(op.results) != 1 or op.results[0].type != TileType((), I1):
        return None
    compare = _COMPARE[op.enum("comparison_predicate")][1]
    mask = -1 if op.enum("signedness") == Signedness.SIGNED else (1 << t.width) - 1

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """The result, or None."""
        if lhs.shape or rhs.shape:
            return None
        return np.array(compare(int(lhs) & mask, int(rhs) & mask), np.bool_)
    return run


def _extremum_scalar(op: Any, keep: Callable[[int, int], bool]) -> Callable[..., Any] | None:
    """``maxi`` / ``mini`` on rank-0 tiles: a copy of `lhs` where ``keep(x, y)`` holds on the
    chosen readings, else of `rhs`."""
    t = _scalar_operands(op)
    if t is None or not _same_result(op, t):
        return None
    mask = -1 if op.enum("signedness") == Signedness.SIGNED else (1 << t.width) - 1

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """The result, or None."""
        if lhs.shape or rhs.shape:
            return None
        return np.array(lhs if keep(int(lhs) & mask, int(rhs) & mask) else rhs)
    return run


@scalar_of(maxi)
def _maxi_scalar(op: Any) -> Callable[..., Any] | None:
    """``maxi`` on rank-0 tiles (x where x >= y)."""
    return _extremum_scalar(op, operator.ge)


@scalar_of(mini)
def _mini_scalar(op: Any) -> Callable[..., Any] | None:
    """``mini`` on rank-0 tiles (x where x <= y)."""
    return _extremum_scalar(op, operator.le)


def _division_path(op: Any, result: Callable[[bool], Callable[[int, int], int]]
                   ) -> Callable[..., Any] | None:
    """The scalar path of a ``divi`` / ``remi`` on rank-0 tiles, else None: operands read
    as the op's signedness, a divisor of 0 (undefined) or -1 declined (the semantics wrap
    or give 0 there), and ``result(signed)(a, b)`` wrapped to the result type."""
    t = _scalar_operands(op)
    if t is None or not _same_result(op, t):
        return None
    wrap, mask = _wrapper(t)
    signed = op.enum("signedness") == Signedness.SIGNED
    mask = -1 if signed else mask
    combine = result(signed)
    dtype = numpy_dtype(t)

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """The result, or None."""
        if lhs.shape or rhs.shape:
            return None
        a, b = int(lhs) & mask, int(rhs) & mask
        if b == 0 or b == -1:
            return None
        return np.array(wrap(combine(a, b)), dtype)
    return run


@scalar_of(divi)
def _divi_scalar(op: Any) -> Callable[..., Any] | None:
    """``divi`` on rank-0 tiles, rounded by the semantics' own `_quotient`."""
    rounding = op.enum("rounding")

    def quotient(signed: bool) -> Callable[[int, int], int]:
        reading = np.int64 if signed else np.uint64
        return lambda a, b: int(_quotient(reading(a // b), np.bool_(a % b != 0),
                                          np.bool_((a < 0) != (b < 0)), rounding))
    return _division_path(op, quotient)


@scalar_of(remi)
def _remi_scalar(op: Any) -> Callable[..., Any] | None:
    """``remi`` on rank-0 tiles: x - trunc(x / y) * y (the dividend's sign)."""
    def remainder(signed: bool) -> Callable[[int, int], int]:
        return lambda a, b: -(abs(a) % abs(b)) if a < 0 else abs(a) % abs(b)
    return _division_path(op, remainder)


# ---- matrix multiply-accumulate ---------------------------------------------------------


@semantics("mmai")
@_wrapping
def mmai(step: Step, lhs: np.ndarray, rhs: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """``mmai``: sum_k A[i,k] * B[k,j] + C[i,j] over the i8 readings chosen by
    ``signedness_lhs`` / ``signedness_rhs`` and the signed i32 acc, wrapped to i32.

    The sum is exact in int64 (|A*B| <= 2^16, so K up to 2^46 cannot overflow); leading
    axes (the batch, or an added grid axis) are matched by np.matmul."""
    a_type, b_type = step.element_type(0), step.element_type(1)
    a = _read(lhs, a_type, step.signed("signedness_lhs")).astype(np.int64)
    b = _read(rhs, b_type, step.signed("signedness_rhs")).astype(np.int64)
    total = np.matmul(a, b) + as_signed(acc, I32)
    return from_integers(total, step.element_type())
