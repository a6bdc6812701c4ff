"""Folds of the miscellaneous ops (spec group "Misc"): an ``assume`` of the predicate its
operand was already assumed with adds nothing (the reference's ``AssumeOp::fold``)."""

from __future__ import annotations

from ...ir import Operation, Value
from ..rewriter import Patterns, Rewriter, fold
from .common import CT, defining

#: The canonicalization patterns of this group's ops (none: assume has a fold only).
PATTERNS = Patterns()


@fold(CT + "assume")
def fold_assume(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``assume P, (assume P, %x)`` is the inner ``assume``'s result."""
    producer = defining(op.operands[0], "assume")
    if producer is not None and producer.attr("predicate") == op.attr("predicate"):
        return list(producer.results)
    return None


__all__ = ["PATTERNS", "fold_assume"]
