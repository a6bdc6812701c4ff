"""``fuse-fma``: ``mulf`` followed by ``addf`` or ``subf`` becomes one ``fma`` (NVIDIA's
FuseFMAPass).  Not numerics-preserving: the product is no longer rounded before the sum,
so the result is the exactly rounded ``a*b+c`` instead of a double rounding.

It fuses only a ``mulf`` whose result has exactly one use, on the left of the ``addf`` /
``subf`` (``addf``'s canonicalization puts a ``mulf`` there first), and only when both
ops have the same rounding mode and flush_to_zero; the ``fma`` takes them over.
``a*b - c`` becomes ``fma(a, b, negf c)`` (negation is exact).
"""

from __future__ import annotations

from typing import Any

from ...ir import Operation
from ..canonical import canonicalization_patterns
from ..canonical.common import CT, defining
from ..registry import register
from ..rewriter import Patterns, Rewriter, apply_greedily

#: The fusion patterns (MulAddPattern, MulSubPattern), after addf's canonicalization.
PATTERNS = Patterns()


def _fusable(op: Operation, rewriter: Rewriter) -> Operation | None:
    """The single-use ``mulf`` on `op`'s left with `op`'s rounding mode and
    flush_to_zero, else None."""
    mul = defining(op.operands[0], "mulf")
    if mul is None or not rewriter.has_one_use(mul.results[0]):
        return None
    if mul.enum("rounding_mode") != op.enum("rounding_mode") or \
            mul.has_flag("flush_to_zero") != op.has_flag("flush_to_zero"):
        return None
    return mul


def _fuse(op: Operation, mul: Operation, acc: Any, rewriter: Rewriter) -> None:
    """Replace `op` by ``fma`` of `mul`'s operands and `acc`, then erase `mul`."""
    fma = rewriter.create(op, CT + "fma", [mul.operands[0], mul.operands[1], acc],
                          [op.results[0].type],
                          {"rounding_mode": op.attr("rounding_mode"),
                           "flush_to_zero": op.has_flag("flush_to_zero")})
    rewriter.replace_op(op, fma.results)
    rewriter.erase_op(mul)


@PATTERNS.pattern(CT + "addf")
def mul_add(op: Operation, rewriter: Rewriter) -> bool:
    """``addf (mulf a, b), c`` becomes ``fma a, b, c``."""
    mul = _fusable(op, rewriter)
    if mul is None:
        return False
    _fuse(op, mul, op.operands[1], rewriter)
    return True


@PATTERNS.pattern(CT + "subf")
def mul_sub(op: Operation, rewriter: Rewriter) -> bool:
    """``subf (mulf a, b), c`` becomes ``fma a, b, (negf c)``."""
    mul = _fusable(op, rewriter)
    if mul is None:
        return False
    rhs = op.operands[1]
    negated = rewriter.create(op, CT + "negf", [rhs], [rhs.type]).result
    _fuse(op, mul, negated, rewriter)
    return True


@register("fuse-fma", "function",
          "fuse multiply-add and multiply-subtract into fma (non-numeric-preserving)")
def fuse_fma(op: Operation, options: dict[str, Any]) -> None:
    """Fuse in the function `op`, with addf's canonicalization patterns."""
    patterns = canonicalization_patterns(CT + "addf").extend(PATTERNS)
    apply_greedily(op, patterns)
