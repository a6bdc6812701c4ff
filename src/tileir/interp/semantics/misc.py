"""Miscellaneous ops (spec group "Misc"): print_tko and the launch-dependency ops
(``assume`` is filed by core.py).

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
from typing import Any

import numpy as np

from ...numerics import as_unsigned, to_float64
from ...types import FloatType, IntegerType
from ..step import Step
from ..values import FRESH_TOKEN, Token
from .memory import named_operands, single
from .registry import semantics

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
