"""Miscellaneous ops (spec group "Misc"): print_tko, the launch-dependency ops and
``assume``, whose predicate, when checks are on, must hold (else undefined behaviour).

``print_tko`` formats like C's printf: each conversion (``%d``, ``%+08.3f``, ...) takes the
next operand; a rank-0 tile prints as one value, a larger tile as nested brackets with
every element formatted by the conversion (``[1.000000, 2.000000]``).  Length modifiers
(``l``, ``ll``, ``h``...) are accepted and ignored; ``%u %o %x %X`` read integers as
unsigned in their element type, the other integer conversions as signed.  A conversion
that does not apply to its operand is undefined output; the value's Python text is
printed then.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from ...attributes import BoundedAttr, DivByAttr, SameElementsAttr
from ...numerics import as_signed, as_unsigned, to_float64
from ...types import FloatType, IntegerType, PointerType, TileType, Type
from ..pointers import is_nibble_pointee
from ..step import Step
from ..values import FRESH_TOKEN, Token
from .common import first_index, named_operands, single
from .registry import semantics
from .scalar import scalar_of

#: One printf conversion: flags, width, precision, length modifier, conversion letter.
CONVERSION = re.compile(r"%([-+ #0]*\d*(?:\.\d*)?)(?:hh|h|ll|l|L|z|j|t)?([diouxXeEfFgGcsp%])")


def format_element(spec: str, letter: str, value: Any) -> str:
    """One scalar in a printf conversion (`spec` is the flags, width and precision)."""
    try:
        if letter in "diouxXc":
            number = int(value)
            if letter == "u":
                letter = "d"
            return ("%" + spec + letter) % number
        if letter in "eEfFgG":
            return ("%" + spec + letter) % float(value)
        return ("%" + spec + "s") % (value,)
    except (TypeError, ValueError, OverflowError):
        return str(value)


def format_tile(spec: str, letter: str, values: np.ndarray) -> str:
    """A tile in a printf conversion: a scalar, or nested brackets of elements."""
    if values.ndim == 0:
        return format_element(spec, letter, values[()])
    return "[" + ", ".join(format_tile(spec, letter, v) for v in values) + "]"


def printable(value: np.ndarray, t: Any, letter: str) -> np.ndarray:
    """Tile values as NumPy numbers printf can take: floats widened exactly to f64,
    integers read unsigned for the unsigned conversions (``%u %o %x %X``)."""
    if isinstance(t, FloatType):
        return to_float64(value, t)
    if isinstance(t, IntegerType) and letter in "uoxX":
        return as_unsigned(np.asarray(value), t)
    return np.asarray(value)


@semantics("print_tko")
def print_tko(step: Step, *operands: Any) -> Token | None:
    """Print the format string with the operands to the launch's output stream."""
    groups = named_operands(step, operands)
    args = groups["args"]
    types = [v.type.element_type for v in step.op.operand_group("args")]
    queue = iter(zip(args, types))

    def substitute(match: re.Match) -> str:
        """The text for one conversion."""
        spec, letter = match.group(1), match.group(2)
        if letter == "%":
            return "%"
        try:
            value, t = next(queue)
        except StopIteration:
            return match.group(0)
        return format_tile(spec, letter, printable(value, t, letter))

    text = CONVERSION.sub(substitute, step.op.attr("str").value)
    step.machine.output().write(text)
    token = single(groups, "token")
    return (token if token is not None else FRESH_TOKEN) if step.op.results else None


@semantics("gdc_launch_dependents_tko", "gdc_wait_tko")
def launch_dependency(step: Step, *operands: Any) -> Token:
    """Programmatic dependent launch: one kernel runs at a time here, so the token passes."""
    return operands[0] if operands else FRESH_TOKEN


# ---- assume --------------------------------------------------------------------------


def _increments(value: np.ndarray, axis: int, every: int, step_size: int,
                signed: bool) -> np.ndarray:
    """Where an element inside a group of `every` along `axis` is not its predecessor plus
    `step_size` (exactly, no wrap-around), for ``div_by<.., every E along A>``."""
    prev = np.take(value, np.arange(np.shape(value)[axis] - 1), axis=axis)
    curr = np.take(value, np.arange(1, np.shape(value)[axis]), axis=axis)
    position = np.arange(1, np.shape(value)[axis]) % every
    inner = (position != 0).reshape((-1,) + (1,) * (-axis - 1))
    if signed:
        exact = (curr - prev == step_size) & (curr > prev)
    else:
        exact = (curr - prev == np.uint64(step_size)) & (curr > prev)
    return inner & ~exact


def _reading(step: Step, value: np.ndarray, element: Type) -> tuple[np.ndarray, bool]:
    """Integers read signed (int64), pointers as unsigned addresses (uint64)."""
    if isinstance(element, PointerType):
        return np.asarray(value, dtype=np.int64).view(np.uint64), False
    return as_signed(value, element), True


def _check_div_by(step: Step, value: Any, predicate: DivByAttr, t: Type) -> str | None:
    """Why `value` breaks ``div_by``, or None."""
    if not isinstance(t, TileType):
        base = getattr(value, "base", None)
        if isinstance(base, (int, np.integer)) and int(base) % predicate.divisor:
            return f"the view's base address {int(base):#x} is not divisible by " \
                   f"{predicate.divisor}"
        return None
    read, signed = _reading(step, value, t.element_type)
    low = as_unsigned(value, t.element_type) if signed else read
    # A 4-bit pointee's pointer is a nibble address: divisible by d means the low nibble
    # of a byte whose address is divisible by d (so the nibble address by 2 d).
    nibbles = isinstance(t.element_type, PointerType) and is_nibble_pointee(
        t.element_type.pointee)
    divisible = low % np.uint64(predicate.divisor * (2 if nibbles else 1)) == 0
    if predicate.every is None or t.rank == 0:
        if not np.all(divisible):
            at = first_index(~divisible)
            return f"element {at} is {read[tuple(at)]}, not divisible by {predicate.divisor}"
        return None
    axis = predicate.along - t.rank
    extent = t.shape[predicate.along]
    starts = np.take(divisible, np.arange(0, extent, predicate.every), axis=axis)
    if not np.all(starts):
        return f"a group start along dimension {predicate.along} is not divisible by " \
               f"{predicate.divisor}"
    size = t.element_type.pointee.info.storage_bits // 8 \
        if isinstance(t.element_type, PointerType) else 1  # 4-bit pointees: 1 nibble
    if np.any(_increments(read, axis, predicate.every, max(size, 1), signed)):
        return f"elements inside a group of {predicate.every} along dimension " \
               f"{predicate.along} do not increase by {max(size, 1)}"
    return None


def _check_same_elements(step: Step, value: Any, predicate: SameElementsAttr,
                         t: Type) -> str | None:
    """Why `value` breaks ``same_elements``, or None."""
    a = np.asarray(value)
    for d, group in enumerate(predicate.values):
        axis = d - t.rank
        extent = t.shape[d]
        if group <= 1 or extent <= 1:
            continue
        prev = np.take(a, np.arange(extent - 1), axis=axis)
        curr = np.take(a, np.arange(1, extent), axis=axis)
        inner = (np.arange(1, extent) % group != 0).reshape((-1,) + (1,) * (-axis - 1))
        if np.any(inner & (curr != prev)):
            return f"a group of {group} along dimension {d} holds different elements"
    return None


def _check_bounded(step: Step, value: Any, predicate: BoundedAttr, t: Type) -> str | None:
    """Why `value` breaks ``bounded`` (signed reading), or None."""
    read = as_signed(value, t.element_type)
    outside = np.zeros(np.shape(read), dtype=bool)
    if predicate.lower is not None:
        outside |= read < predicate.lower
    if predicate.upper is not None:
        outside |= read > predicate.upper
    if np.any(outside):
        at = first_index(outside)
        return f"element {at} is {read[tuple(at)]}, outside [" \
               f"{'?' if predicate.lower is None else predicate.lower}, " \
               f"{'?' if predicate.upper is None else predicate.upper}]"
    return None


_ASSUME_CHECKS: dict[type, Callable[..., str | None]] = {
    DivByAttr: _check_div_by,
    SameElementsAttr: _check_same_elements,
    BoundedAttr: _check_bounded,
}


@semantics("assume")
def assume(step: Step, value: Any) -> Any:
    """``assume``: the value itself; a predicate that does not hold is undefined behaviour,
    reported when checks are on."""
    if step.checks:
        predicate = step.op.attr("predicate")
        check = _ASSUME_CHECKS.get(type(predicate))
        why = check(step, value, predicate, step.op.operands[0].type) if check else None
        if why:
            raise step.undefined(f"assumed predicate {predicate.format_stripped()} does not "
                                 f"hold: {why}", "an assume promises the compiler a fact "
                                 "it may optimise on; a false one is undefined behaviour even "
                                 "where nothing reads the value")
    return value


def _holds(predicate: Any, element: Type) -> Callable[[int], bool] | None:
    """For a rank-0 tile of `element`: a test on the non-negative integer it holds (a
    pointer's address, an integer's value) that says the predicate holds, the same rule
    as `_check_div_by`/`_check_bounded` apply there; None where the predicate is not one
    of those (the semantics function then decides)."""
    if isinstance(predicate, DivByAttr) and predicate.every is None:
        if isinstance(element, PointerType) and is_nibble_pointee(element.pointee):
            return None
        divisor = predicate.divisor
        return lambda v: v % divisor == 0
    if isinstance(predicate, BoundedAttr) and isinstance(element, IntegerType):
        low, high = predicate.lower, predicate.upper
        return lambda v: (low is None or v >= low) and (high is None or v <= high)
    return None


@scalar_of(assume)
def _assume_scalar(op: Any) -> Callable[[np.ndarray], np.ndarray | None] | None:
    """``assume`` on a rank-0 integer or pointer tile: its value when the predicate holds
    for it; it declines (and the semantics function decides and reports) for a negative
    value, a value that breaks the predicate, or an operand that is not a 0-d array."""
    t = op.operands[0].type
    if not (isinstance(t, TileType) and t.rank == 0
            and isinstance(t.element_type, (IntegerType, PointerType))):
        return None
    holds = _holds(op.attr("predicate"), t.element_type)
    if holds is None:
        return None

    def run(value: np.ndarray) -> np.ndarray | None:
        """`value` when it is a non-negative 0-d integer the predicate holds for."""
        if type(value) is not np.ndarray or value.ndim or value.dtype.kind not in "iu":
            return None
        v = int(value)
        return value if v >= 0 and holds(v) else None
    return run
