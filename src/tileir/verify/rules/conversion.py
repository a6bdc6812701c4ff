"""Verifiers of the conversion ops (`tileir.ops.conversion`).

The reference's hand-written ``verify()``: bitcast between equal widths, exti/trunci
widening/narrowing, and the rounding modes of ftof/ftoi/itof.
"""

from __future__ import annotations

from typing import Any

from ...enums import RoundingMode
from ...types import F8E8M0FNU, mlir_bit_width, quoted
from ..registry import Context, op_error, verifier

R = RoundingMode



def _source_result(op: Any) -> tuple[Any, Any]:
    """The op's single operand type and single result type."""
    return op.operands[0].type, op.results[0].type


def _enum(op: Any, name: str) -> Any:
    """The enum value of attribute `name` (its declared default when absent)."""
    return getattr(op.attr(name), "value", None)


@verifier("bitcast")
def _bitcast(op: Any, ctx: Context) -> None:
    """BitcastOp::verify: source and result elements have the same bit width."""
    source, result = _source_result(op)
    src_width = mlir_bit_width(source.element_type)
    res_width = mlir_bit_width(result.element_type)
    if src_width != res_width:
        raise op_error(op, f"types must be equal width, cannot convert {quoted(source)} of "
                           f"width {src_width} to type {quoted(result)} of width {res_width}")


#: Integer width changes: op -> (is the change allowed(from, to), message otherwise).
WIDTH_RULES = {
    "exti": (lambda f, t: t > f, "extending to smaller or identical integer"),
    "trunci": (lambda f, t: t < f, "truncating to larger or identical integer"),
}


@verifier(*WIDTH_RULES)
def _width_change(op: Any, ctx: Context) -> None:
    """ExtIOp/TruncIOp::verify: the result is strictly wider / narrower."""
    source, result = _source_result(op)
    allowed, message = WIDTH_RULES[op.opdef.name]
    if not allowed(source.element_type.width, result.element_type.width):
        raise op_error(op, message)


@verifier("ftof")
def _ftof(op: Any, ctx: Context) -> None:
    """FToFOp::verify: not a no-op; rounding per target type."""
    source, result = _source_result(op)
    if source == result:
        raise op_error(op, "converting tiles must not be a no-op")
    rounding = _enum(op, "rounding_mode")
    if result.element_type == F8E8M0FNU:
        if rounding not in (R.ZERO, R.POSITIVE_INF):
            raise op_error(op, "invalid rounding mode specified for conversion to f8E8M0FNU. "
                               "Only 'zero' and 'positive_inf' are supported")
    elif rounding is not R.NEAREST_EVEN:
        raise op_error(op, "invalid rounding mode specified. Only 'nearest_even' is supported")


@verifier("ftoi")
def _ftoi(op: Any, ctx: Context) -> None:
    """FToIOp::verify: only nearest_int_to_zero rounding."""
    if _enum(op, "rounding_mode") is not R.NEAREST_INT_TO_ZERO:
        raise op_error(op, "invalid rounding mode specified. Only 'nearest_int_to_zero' is "
                           "supported")


@verifier("itof")
def _itof(op: Any, ctx: Context) -> None:
    """IToFOp::verify: no f8E8M0FNU result; only nearest_even rounding."""
    source, result = _source_result(op)
    if result.element_type == F8E8M0FNU:
        raise op_error(op, "integer to f8E8M0FNU conversion is not supported, please first "
                           "convert to another float type")
    if _enum(op, "rounding_mode") is not R.NEAREST_EVEN:
        raise op_error(op, "invalid rounding mode specified. Only 'nearest_even' is supported")
