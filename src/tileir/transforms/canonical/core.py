"""Folds and canonicalization patterns of the core ops (spec group "Core"): ``constant``
and ``select``, as the reference declares them (``ConstantOp::fold``, ``SelectOp::fold``
and ``SelectOp::getCanonicalizationPatterns``)."""

from __future__ import annotations

from typing import Callable

from ...attributes import Attribute
from ...enums import ComparisonPredicate, Signedness
from ...ir import Operation, Value
from ...types import I1, IntegerType, TileType
from ..rewriter import Patterns, Rewriter, fold
from .common import (CT, build_constant, build_not, constant_attr, defining, evaluate,
                     is_false, is_int, is_true)

#: The canonicalization patterns of this group's ops.
PATTERNS = Patterns()


@fold(CT + "constant")
def fold_constant(op: Operation, rewriter: Rewriter | None) -> list[Value | Attribute]:
    """``constant`` folds to its value (how the driver knows a constant: MLIR's
    ``m_Constant``)."""
    return [op.attr("value")]


# ---- select: folds ------------------------------------------------------------------


def _same_operands(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select %c, %x, %x`` is ``%x``."""
    _, if_true, if_false = op.operands
    return [if_true] if if_true is if_false else None


def _constant_condition(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select true, %x, %y`` is ``%x``; ``select false, %x, %y`` is ``%y``."""
    cond, if_true, if_false = op.operands
    if is_true(cond):
        return [if_true]
    if is_false(cond):
        return [if_false]
    return None


def _boolean_identity(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select %c, true, false`` on i1 tiles is ``%c``."""
    cond, if_true, if_false = op.operands
    t = op.results[0].type
    if isinstance(t, TileType) and t.element_type == I1 and is_true(if_true) and \
            is_false(if_false):
        return [cond]
    return None


def _compared_operands(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select (cmpi equal %a, %b), %a, %b`` is ``%b``, and with ``not_equal`` it is
    ``%a`` (either operand order)."""
    cond, if_true, if_false = op.operands
    cmp = defining(cond, "cmpi")
    if cmp is None:
        return None
    predicate = cmp.enum("comparison_predicate")
    if predicate not in (ComparisonPredicate.EQUAL, ComparisonPredicate.NOT_EQUAL):
        return None
    lhs, rhs = cmp.operands
    if (lhs is if_true and rhs is if_false) or (rhs is if_true and lhs is if_false):
        return [if_true if predicate == ComparisonPredicate.NOT_EQUAL else if_false]
    return None


def _negated_condition(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select (xori %c, true), %x, %y`` becomes ``select %c, %y, %x`` (in place)."""
    cond, if_true, if_false = op.operands
    xor = defining(cond, "xori")
    if xor is None or not is_true(xor.operands[1]):
        return None
    rewriter.set_operands(op, [xor.operands[0], if_false, if_true])
    return []


def _redundant_inner_select(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``select %c, (select %c, %a, %b), %d`` becomes ``select %c, %a, %d``, and
    ``select %c, %a, (select %c, %b, %d)`` becomes ``select %c, %a, %d`` (in place)."""
    cond, if_true, if_false = op.operands
    inner = defining(if_true, "select")
    if inner is not None and inner.operands[0] is cond:
        rewriter.set_operand(op, 1, inner.operands[1])
        return []
    inner = defining(if_false, "select")
    if inner is not None and inner.operands[0] is cond:
        rewriter.set_operand(op, 2, inner.operands[2])
        return []
    return None


#: The rules of ``select``'s fold, tried in this order (the reference's kSelectFoldRules).
SELECT_FOLD_RULES: tuple[Callable[[Operation, Rewriter], list[Value] | None], ...] = (
    _same_operands, _constant_condition, _boolean_identity, _compared_operands,
    _negated_condition, _redundant_inner_select)


@fold(CT + "select")
def fold_select(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """The first of `SELECT_FOLD_RULES` that applies."""
    for rule in SELECT_FOLD_RULES:
        found = rule(op, rewriter)
        if found is not None:
            return found
    return None


# ---- select: canonicalization patterns ----------------------------------------------


@PATTERNS.pattern(CT + "select")
def select_i1_to_not(op: Operation, rewriter: Rewriter) -> bool:
    """``select %c, false, true`` becomes ``xori %c, true`` (the reference's
    SelectI1ToNot)."""
    cond, if_true, if_false = op.operands
    if not (is_false(if_true) and is_true(if_false)):
        return False
    xor = rewriter.create(op, CT + "xori", [cond, if_false], [cond.type])
    rewriter.replace_op(op, xor.results)
    return True


@PATTERNS.pattern(CT + "select")
def select_constants(op: Operation, rewriter: Rewriter) -> bool:
    """``select`` of three constants becomes the constant it selects, element by element
    (the reference's SelectConsts; computed by ``select``'s semantics)."""
    attrs = [constant_attr(v) for v in op.operands]
    found = evaluate(op, attrs) if all(a is not None for a in attrs) else None
    if found is None:
        return False
    rewriter.replace_op(op, [build_constant(rewriter, op, found[0])])
    return True


@PATTERNS.pattern(CT + "select")
def select_to_exti(op: Operation, rewriter: Rewriter) -> bool:
    """``select %c, 1, 0`` on iN tiles (N > 1) becomes ``exti %c unsigned``, and
    ``select %c, 0, 1`` becomes ``exti (xori %c, true) unsigned`` (the reference's
    SelectToExtI)."""
    cond, if_true, if_false = op.operands
    t = op.results[0].type
    if not isinstance(t.element_type, IntegerType) or t.element_type == I1:
        return False
    if is_int(if_true, 1) and is_int(if_false, 0):
        source = cond
    elif is_int(if_true, 0) and is_int(if_false, 1):
        source = build_not(rewriter, op, cond)
    else:
        return False
    ext = rewriter.create(op, CT + "exti", [source], [t], {"signedness": Signedness.UNSIGNED})
    rewriter.replace_op(op, ext.results)
    return True


__all__ = ["PATTERNS", "SELECT_FOLD_RULES", "fold_constant", "fold_select",
           "select_constants", "select_i1_to_not", "select_to_exti"]
