"""Verifiers of the misc ops (`tileir.ops.misc`): assume predicates (Attributes.cpp
``verifyWithAssumeOp``) and print format strings (CudaTile.cpp)."""

from __future__ import annotations

from typing import Any, Callable

from ...attributes import BoundedAttr, DivByAttr, SameElementsAttr
from ...types import IntegerType, PointerType, TensorViewType, TileType
from ..registry import Context, op_error, verifier

DIV_BY, SAME_ELEMENTS, BOUNDED = "cuda_tile.div_by", "cuda_tile.same_elements", \
    "cuda_tile.bounded"

#: The largest divisor the reference supports (2^62).
MAX_DIVISOR = 4611686018427387904


def _is_int_or_pointer(t: Any) -> bool:
    """An integer or pointer element type."""
    return isinstance(t, (IntegerType, PointerType))


def check_div_by(op: Any, predicate: DivByAttr) -> None:
    """DivByAttr::verifyWithAssumeOp."""
    divisor, every, along = predicate.divisor, predicate.every, predicate.along
    if divisor <= 0 or divisor & (divisor - 1):
        raise op_error(op, f"'{DIV_BY}' divisor must be a power of 2")
    if (every is None) != (along is None):
        raise op_error(op, f"'{DIV_BY}' 'every'/'along' must be used in combination")
    if divisor > MAX_DIVISOR:
        raise op_error(op, f"'{DIV_BY}' divisor is too large")
    value_type = op.operands[0].type
    if isinstance(value_type, TensorViewType):
        if every is not None:
            raise op_error(op, f"'{DIV_BY}' 'every'/'along' cannot be used if the constrained "
                               "value is a tensor_view")
        return
    invalid_type = f"'{DIV_BY}' is valid only for tile of integer/pointer or tensor_view values"
    if not isinstance(value_type, TileType):
        raise op_error(op, invalid_type)
    if value_type.rank == 0 and every is not None:
        raise op_error(op, f"'{DIV_BY}' 'every'/'along' cannot be used if the constrained "
                           "value is a 0D tile")
    if not _is_int_or_pointer(value_type.element_type):
        raise op_error(op, invalid_type)
    if every is None:
        return
    if along < 0 or along >= value_type.rank:
        raise op_error(op, f"'{DIV_BY}' every_dim ({along}) must be >= 0 and < tile rank "
                           f"({value_type.rank})")
    size = value_type.shape[along]
    if every < 0 or every > size:
        raise op_error(op, f"expected '{DIV_BY}' every_dim to be within 0 and the size of the "
                           f"respective dimension ({size})")


def check_same_elements(op: Any, predicate: SameElementsAttr) -> None:
    """SameElementsAttr::verifyWithAssumeOp."""
    value_type = op.operands[0].type
    if not (isinstance(value_type, TileType) and _is_int_or_pointer(value_type.element_type)):
        raise op_error(op, f"'{SAME_ELEMENTS}' is valid only for tile of integer/pointer "
                           "values")
    values = predicate.values
    if len(values) != value_type.rank:
        raise op_error(op, f"expected number of values in '{SAME_ELEMENTS}' ({len(values)}) "
                           f"to match rank of constrained tile ({value_type.rank})")
    for index, (value, size) in enumerate(zip(values, value_type.shape)):
        if value < 0 or value > size:
            raise op_error(op, f"expected '{SAME_ELEMENTS}' value {index} to be within 0 and "
                               f"the size of the respective dimension ({size})")


def check_bounded(op: Any, predicate: BoundedAttr) -> None:
    """BoundedAttr::verifyWithAssumeOp: integer tiles, bounds in the signed range, lb <= ub."""
    value_type = op.operands[0].type
    element = getattr(value_type, "element_type", None)
    if not (isinstance(value_type, TileType) and isinstance(element, IntegerType)):
        raise op_error(op, f"'{BOUNDED}' is valid only for tile of integer values")
    low, high = -(1 << (element.width - 1)), (1 << (element.width - 1)) - 1
    for bound, which in ((predicate.lower, "lower"), (predicate.upper, "upper")):
        if bound is not None and not low <= bound <= high:
            raise op_error(op, f"'{BOUNDED}' expects {which} bound to be within [{low}, "
                               f"{high}]")
    if predicate.lower is not None and predicate.upper is not None and \
            predicate.lower > predicate.upper:
        raise op_error(op, f"'{BOUNDED}' expects lower bound to be less than or equal to "
                           "upper bound")


#: Per assume predicate attribute class, its rules.
PREDICATE_CHECKS: dict[type, Callable[[Any, Any], None]] = {
    DivByAttr: check_div_by, SameElementsAttr: check_same_elements, BoundedAttr: check_bounded,
}


@verifier("assume")
def check_assume(op: Any, ctx: Context) -> None:
    """AssumeOp::verify: the predicate's own rules against the constrained value."""
    predicate = op.attributes.get("predicate")
    check = PREDICATE_CHECKS.get(type(predicate))
    if check is not None:
        check(op, predicate)


#: The conversion characters that end a printf format expression (``%S``: wide string).
FORMAT_ENDS = frozenset("diuoxXeEfFgGaAcsSpn%")


def format_expression_length(text: str, start: int) -> int:
    """The length of the format expression at ``text[start] == '%'``; 0 if unterminated."""
    for end in range(start + 1, len(text)):
        if text[end] in FORMAT_ENDS:
            return end - start + 1
    return 0


@verifier("print_tko")
def check_print(op: Any, ctx: Context) -> None:
    """PrintTkoOp::verify: one argument per format expression (``%%`` is a literal)."""
    attr = op.attributes.get("str")
    text = getattr(attr, "value", "") or ""
    expected, pos = 0, 0
    while pos < len(text):
        if text[pos] == "%":
            length = format_expression_length(text, pos)
            if length == 0:
                raise op_error(op, "found unterminated format expression")
            if text[pos:pos + length] == "%%":
                pos += 1
            else:
                expected += 1
        pos += 1
    args = op.operand_group("args")
    if expected != len(args):
        raise op_error(op, f"incorrect number of operands: expected {expected}, found "
                           f"{len(args)}")
