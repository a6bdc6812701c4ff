"""Verifiers of the conversion ops (`tileir.ops.conversion`).

The reference's hand-written ``verify()``: bitcast between equal widths, exti/trunci
widening/narrowing, and the rounding modes of ftof/ftoi/itof.
"""

from __future__ import annotations

from typing import Any

from ...enums import RoundingMode
from ...numerics.formats import FORMATS
from ...types import (F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F32, F64, TF32,
                      mlir_bit_width, quoted)
from ...versions import V13_5, newest_release
from ..registry import Context, op_error, verifier

R = RoundingMode


def _source_result(op: Any) -> tuple[Any, Any]:
    """The op's single operand type and single result type."""
    return op.operands[0].type, op.results[0].type


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


def _exactly_representable(source: Any, target: Any) -> bool:
    """Every value of float type `source` (NaN and infinities included) is one of `target`:
    the spec's "strict widening" conversions (f16 -> f32, bf16 -> f32, f32 -> f64, ...), as
    a 13.3 build tells them."""
    src, dst = FORMATS.get(source), FORMATS.get(target)
    if src is None or dst is None:
        return False
    return ((dst.signed or not src.signed)
            and (src.inf_code is None or dst.inf_code is not None)
            and (src.nan_code is None or dst.nan_code is not None)
            and dst.mantissa_bits >= src.mantissa_bits
            and dst.max_finite >= src.max_finite
            and dst.min_positive <= src.min_positive)


_ONLY_NEAREST_EVEN = "invalid rounding mode specified. Only 'nearest_even' is supported"
_TO_F8E8M0FNU = ("invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and "
                 "'positive_inf' are supported")
_IEEE_MODES = (R.NEAREST_EVEN, R.ZERO, R.NEGATIVE_INF, R.POSITIVE_INF, R.NEAREST_AWAY)
_LOW_PRECISION = (F8E4M3FN, F8E5M2, F4E2M1FN, F8E5M3FNU)


def _widening(source: Any, target: Any) -> bool:
    """13.5's widening conversions: every finite `source` value is a normal `target` value
    (LLVM's ``APFloat::isRepresentableBy``: precision and normal exponent range), so
    f8E8M0FNU widens to f64 only and fnv8E5M3FNU not to f16."""
    src, dst = FORMATS.get(source), FORMATS.get(target)
    if src is None or dst is None:
        return False
    return ((dst.signed or not src.signed)
            and dst.mantissa_bits >= src.mantissa_bits
            and dst.max_finite >= src.max_finite
            and dst.emin <= src.emin)


#: ftof's rounding rules as NVIDIA's 13.5 tools apply them (tileirdisasm 13.5), first
#: matching row wins: (does the row apply to (source, target) element types, the modes it
#: allows, the message otherwise).  A widening conversion takes any IEEE mode.
FTOF_ROUNDING = (
    (lambda s, t: t == F8E8M0FNU, (R.ZERO, R.POSITIVE_INF), _TO_F8E8M0FNU),
    (lambda s, t: t in _LOW_PRECISION, (R.NEAREST_EVEN,),
     "invalid rounding mode specified for conversion to low-precision type. Only "
     "'nearest_even' is supported"),
    (_widening, _IEEE_MODES,
     "invalid rounding mode specified for widening conversion. Only IEEE float rounding "
     "modes are supported: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', "
     "'nearest_away'"),
    (lambda s, t: (s, t) == (F64, F32),
     (R.NEAREST_EVEN, R.ZERO, R.NEGATIVE_INF, R.POSITIVE_INF),
     "invalid rounding mode specified for conversion from f64 to f32. Only 'nearest_even', "
     "'zero', 'negative_inf', and 'positive_inf' are supported"),
    (lambda s, t: (s, t) == (F32, TF32), (R.NEAREST_EVEN, R.ZERO, R.NEAREST_AWAY),
     "invalid rounding mode specified for conversion from f32 to tf32. Only 'nearest_even', "
     "'zero', and 'nearest_away' are supported"),
    (lambda s, t: True, (R.NEAREST_EVEN, R.ZERO),
     "invalid rounding mode specified. Only 'nearest_even' and 'zero' are supported for "
     "narrowing conversions to standard types"),
)

#: The same rules as a 13.3 build (NVIDIA's open reference, whose tests reject f32 -> f64
#: with negative_inf) words and applies them, with 13.4's nearest_away: a strictly
#: widening conversion rounds to nearest only.  The f64 -> f32 and f32 -> tf32 messages
#: are ours, in the narrowing wording (no 13.3 or 13.4 tool was seen giving them).
FTOF_ROUNDING_13_3 = (
    (lambda s, t: t == F8E8M0FNU, (R.ZERO, R.POSITIVE_INF), _TO_F8E8M0FNU),
    (lambda s, t: t in (F8E4M3FN, F8E5M2, F4E2M1FN), (R.NEAREST_EVEN,), _ONLY_NEAREST_EVEN),
    (_exactly_representable, (R.NEAREST_EVEN, R.NEAREST_AWAY), _ONLY_NEAREST_EVEN),
    (lambda s, t: (s, t) == (F64, F32),
     (R.NEAREST_EVEN, R.ZERO, R.NEGATIVE_INF, R.POSITIVE_INF),
     "invalid rounding mode specified. Only 'nearest_even', 'zero', 'negative_inf' and "
     "'positive_inf' are supported for f64 to f32 conversions"),
    (lambda s, t: (s, t) == (F32, TF32), (R.NEAREST_EVEN, R.ZERO, R.NEAREST_AWAY),
     "invalid rounding mode specified. Only 'nearest_even', 'zero' and 'nearest_away' are "
     "supported for f32 to tf32 conversions"),
    (lambda s, t: True, (R.NEAREST_EVEN, R.ZERO),
     "invalid rounding mode specified. Only 'nearest_even' and 'zero' are supported for "
     "narrowing conversions to standard types"),
)


@verifier("ftof")
def _ftof(op: Any, ctx: Context) -> None:
    """FToFOp::verify: not a no-op; the rounding mode the conversion's row allows (the
    rules of the build tileir stands in for: 13.5's, or a 13.3 build's)."""
    source, result = _source_result(op)
    if source == result:
        raise op_error(op, "converting tiles must not be a no-op")
    rounding = op.enum("rounding_mode")
    src, dst = source.element_type, result.element_type
    table = FTOF_ROUNDING if newest_release() >= V13_5 else FTOF_ROUNDING_13_3
    for applies, allowed, message in table:
        if applies(src, dst):
            if rounding not in allowed:
                raise op_error(op, message)
            return


@verifier("ftoi")
def _ftoi(op: Any, ctx: Context) -> None:
    """FToIOp::verify: only nearest_int_to_zero rounding."""
    if op.enum("rounding_mode") is not R.NEAREST_INT_TO_ZERO:
        raise op_error(op, "invalid rounding mode specified. Only 'nearest_int_to_zero' is "
                           "supported")


@verifier("itof")
def _itof(op: Any, ctx: Context) -> None:
    """IToFOp::verify: no f8E8M0FNU result; only nearest_even rounding."""
    source, result = _source_result(op)
    if result.element_type == F8E8M0FNU:
        raise op_error(op, "integer to f8E8M0FNU conversion is not supported, please first "
                           "convert to another float type")
    if op.enum("rounding_mode") is not R.NEAREST_EVEN:
        raise op_error(op, "invalid rounding mode specified. Only 'nearest_even' is supported")
