"""What the folds and canonicalization patterns of several op groups share: reading
constants (MLIR's ``m_Constant`` and the reference's ``getConstantBoolValue``), building
the small op sequences the reference's patterns emit (a ``not``, a ``select`` over a
broadcast condition), and evaluating an op on constant operands with the interpreter's
own semantics (never a second copy of an op's meaning)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...attributes import DenseElementsAttr
from ...ir import Operation, Region, Value
from ...numerics import as_signed, as_unsigned, to_words
from ...types import I1, FloatType, IntegerType, TileType
from ..rewriter import Rewriter

#: The dialect prefix of every op name the patterns match or build.
CT = "cuda_tile."


def defining(value: Value | None, short: str) -> Operation | None:
    """The op defining `value` when it is a ``cuda_tile.<short>`` op, else None."""
    owner = getattr(value, "owner", None)
    if isinstance(owner, Operation) and owner.name == CT + short:
        return owner
    return None


def parent_region(value: Value) -> Region | None:
    """The region `value` is defined in (MLIR's ``Value::getParentRegion``)."""
    owner = getattr(value, "owner", None)
    if isinstance(owner, Operation):
        return owner.parent.parent if owner.parent is not None else None
    return getattr(owner, "parent", None)            # (a block argument's block)


def constant_attr(value: Value | None) -> DenseElementsAttr | None:
    """The value of the ``constant`` op defining `value`, or None."""
    op = defining(value, "constant")
    attr = op.attr("value") if op is not None else None
    return attr if isinstance(attr, DenseElementsAttr) else None


def _single(value: Value | None, element: type) -> int | None:
    """The one element of a constant of `element` type that is a splat or holds one
    element (the reference's reading of a "constant scalar"), else None."""
    attr = constant_attr(value)
    if attr is None or not isinstance(attr.element_type, element):
        return None
    if attr.is_splat or attr.type.num_elements == 1:
        return attr.values[0]
    return None


def constant_bool(value: Value | None) -> bool | None:
    """The truth of an i1 constant splat (or single element), else None (the reference's
    ``getConstantBoolValue``)."""
    if value is None or getattr(value.type, "element_type", None) != I1:
        return None
    found = _single(value, IntegerType)
    return None if found is None else bool(found)


def is_true(value: Value | None) -> bool:
    """Whether `value` is an i1 constant true."""
    return constant_bool(value) is True


def is_false(value: Value | None) -> bool:
    """Whether `value` is an i1 constant false."""
    return constant_bool(value) is False


def is_int(value: Value | None, wanted: int) -> bool:
    """Whether `value` is an integer constant splat (or single element) equal to
    `wanted` (the reference's ``isConstantOnesValue`` for 1, ``isConstantZeroValue``
    for 0)."""
    return _single(value, IntegerType) == wanted


def i1_like(t: TileType) -> TileType:
    """The i1 tile of `t`'s shape."""
    return TileType(t.shape, I1)


def build_constant(rewriter: Rewriter, anchor: Operation, attr: DenseElementsAttr) -> Value:
    """A new ``constant`` holding `attr`, before `anchor`."""
    return rewriter.create(anchor, CT + "constant", (), [attr.type], {"value": attr}).result


def build_not(rewriter: Rewriter, anchor: Operation, cond: Value) -> Value:
    """``xori cond, true`` before `anchor` (the reference's ``createXOrForValue``)."""
    ones = build_constant(rewriter, anchor, DenseElementsAttr(i1_like(cond.type), (1,)))
    return rewriter.create(anchor, CT + "xori", [cond, ones], [cond.type]).result


def build_select(rewriter: Rewriter, anchor: Operation, cond: Value, if_true: Value,
                 if_false: Value) -> Value:
    """``select`` of two tiles on a rank-0 condition, before `anchor`: the condition is
    reshaped and broadcast to the tiles' shape first when they have a rank (the
    reference's ``createSelectOpByType``)."""
    t = if_true.type
    assert isinstance(t, TileType), "select takes tiles only"
    if t.shape:
        ones = TileType((1,) * t.rank, cond.type.element_type)
        cond = rewriter.create(anchor, CT + "reshape", [cond], [ones]).result
        cond = rewriter.create(anchor, CT + "broadcast", [cond], [i1_like(t)]).result
    return rewriter.create(anchor, CT + "select", [cond, if_true, if_false], [t]).result


# ---- evaluating ops on constants --------------------------------------------------------


def dense_attr(values: np.ndarray, t: TileType) -> DenseElementsAttr:
    """The dense attribute holding `values`, an array of `t`'s element type and shape (the
    inverse of the interpreter's reading of a ``constant``)."""
    element = t.element_type
    flat = np.asarray(values).reshape(-1)
    if isinstance(element, FloatType):
        raw = to_words(flat, element)
    elif element == I1:
        raw = as_unsigned(flat, element)
    else:
        raw = as_signed(flat, element)
    return DenseElementsAttr(t, tuple(int(v) for v in raw))


def evaluate(op: Operation, operands: Sequence[DenseElementsAttr]
             ) -> list[DenseElementsAttr] | None:
    """The results of `op` on constant `operands`, computed by the op's semantics in the
    interpreter (one tile block, checks on), as dense attributes of its result types; None
    where the interpreter reports undefined behaviour on them (nothing to fold: the
    kernel reports it when it runs)."""
    from ...diagnostics import ExecutionError                 # (a layer above: looked up
    from ...interp.semantics import SEMANTICS                 # only when a pattern
    from ...interp.semantics.core import dense_values         # evaluates)
    from ...interp.semantics.registry import short_name
    from ...interp.step import Step
    values = [dense_values(attr) for attr in operands]
    try:
        found: Any = SEMANTICS[short_name(op)](Step(op), *values)
    except ExecutionError:
        return None
    results = found if isinstance(found, tuple) else (found,)
    return [dense_attr(value, result.type) for value, result in zip(results, op.results)]


__all__ = ["CT", "build_constant", "build_not", "build_select", "constant_attr",
           "constant_bool", "defining", "dense_attr", "evaluate", "i1_like", "is_false",
           "is_int", "is_true", "parent_region"]
