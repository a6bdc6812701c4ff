"""Verifiers of the integer ops (`tileir.ops.integer`).

The reference's hand-written ``verify()``: divi's rounding modes and their signedness,
negi's overflow flag, and mmai's shapes (its element types are ODS constraints).
"""

from __future__ import annotations

from typing import Any

from ...enums import IntegerOverflow, RoundingMode, Signedness
from ..registry import Context, op_error, verifier
from .floating_point import mma_shape_error

R = RoundingMode

#: The rounding modes divi accepts, in the order its diagnostic lists them.
DIVI_ROUNDING = (R.ZERO, R.NEGATIVE_INF, R.POSITIVE_INF)

#: (rounding mode, signedness) pairs divi rejects.
DIVI_FORBIDDEN = {(R.NEGATIVE_INF, Signedness.UNSIGNED):
                  "rounding mode 'negative_inf' is not allowed with 'unsigned' flag"}

#: Overflow flags negi rejects: the op has signed semantics.
NEGI_FORBIDDEN = {IntegerOverflow.NO_UNSIGNED_WRAP:
                  "'no_unsigned_wrap' overflow flag is not supported"}


@verifier("divi")
def _divi(op: Any, ctx: Context) -> None:
    """DivIOp::verify: rounding in [zero, negative_inf, positive_inf]; no floor unsigned."""
    rounding = op.enum("rounding")
    if rounding not in DIVI_ROUNDING:
        listed = ", ".join(mode.keyword for mode in DIVI_ROUNDING)
        raise op_error(op, f"invalid rounding mode specified, expect one of [{listed}]")
    message = DIVI_FORBIDDEN.get((rounding, op.enum("signedness")))
    if message is not None:
        raise op_error(op, message)


@verifier("negi")
def _negi(op: Any, ctx: Context) -> None:
    """NegIOp::verify: no 'no_unsigned_wrap' on a signed negation."""
    message = NEGI_FORBIDDEN.get(op.enum("overflow"))
    if message is not None:
        raise op_error(op, message)


@verifier("mmai")
def _mmai(op: Any, ctx: Context) -> None:
    """MmaIOp::verify: the shapes only (ODS constrains the element types)."""
    message = mma_shape_error(op)
    if message is not None:
        raise op_error(op, message)
