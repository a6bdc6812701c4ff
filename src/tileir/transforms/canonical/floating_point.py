"""Canonicalization patterns of the floating-point ops (spec group "Floating Point"):
``addf`` puts a ``mulf`` operand on its left, so that fuse-fma finds ``mulf`` + ``addf``
in one shape (the reference's ``AddFOp::canonicalize``)."""

from __future__ import annotations

from ...ir import Operation
from ..rewriter import Patterns, Rewriter
from .common import CT, defining

#: The canonicalization patterns of this group's ops.
PATTERNS = Patterns()


@PATTERNS.pattern(CT + "addf")
def mulf_on_lhs(op: Operation, rewriter: Rewriter) -> bool:
    """``addf %x, (mulf ...)`` becomes ``addf (mulf ...), %x`` when %x is no ``mulf``
    itself, with the same rounding mode and flush_to_zero (addition commutes bit for bit,
    NaN payloads included: results are the canonical NaN)."""
    lhs, rhs = op.operands
    if defining(rhs, "mulf") is None or defining(lhs, "mulf") is not None:
        return False
    swapped = rewriter.create(op, CT + "addf", [rhs, lhs], [r.type for r in op.results],
                              {"rounding_mode": op.attributes.get("rounding_mode"),
                               "flush_to_zero": op.attributes.get("flush_to_zero")})
    rewriter.replace_op(op, swapped.results)
    return True


__all__ = ["PATTERNS", "mulf_on_lhs"]
