"""``loop-invariant-code-motion``: MLIR's LICM on Tile IR's loops, ``for`` and ``loop``.

As MLIR's pass does for each loop (inner loops first): an op at the top level of the loop
body moves to just before the loop when it has no memory effect and is speculatable (it
may run where the loop would not: a ``for`` may run zero times, a ``loop`` body may leave
early) and every value it uses, its nested ops' included, is defined outside the loop;
the users of a moved op in the body are looked at again.

Speculatable: the op is Pure (MLIR's AlwaysSpeculatable) and no input can make it
undefined behaviour in the spec.  So these stay in the loop: ``divi`` and ``remi``
(division by zero), shifts by an amount that is not a constant below the bit width, ops
with an overflow flag other than ``none`` (``nsw``/``nuw`` wrap is undefined), ``ftoi``
without ``saturating``, ``extract``/``insert`` (an index naming no subtile), ``offset``
(address overflow) and ``iota`` (a shape past its element type), and every op with regions
(MLIR's ``if``, ``reduce`` and ``scan`` are not speculatable).

NVIDIA's dialect does not declare ``for`` and ``loop`` LoopLikeOpInterface, so NVIDIA's
cuda-tile-opt leaves them alone under this pass; here they are the loops it works on.
The op the pass runs on is not itself a loop it hoists from (nothing leaves it).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from ...enums import IntegerOverflow
from ...ir import Operation
from ..canonical.common import CT, constant_attr
from ..registry import register
from ..rewriter import Rewriter, is_pure, traits_of

#: The ops whose bodies LICM hoists from.
LOOP_OPS = frozenset({CT + "for", CT + "loop"})


def _never(op: Operation) -> bool:
    """No operands make the op safe to run anywhere: some input is undefined behaviour."""
    return False


def _constant_shift_in_range(op: Operation) -> bool:
    """Whether a shift's amount is a constant whose every element (read unsigned) is below
    the bit width."""
    attr = constant_attr(op.operands[1])
    if attr is None:
        return False
    width = attr.element_type.width       # type: ignore[attr-defined]
    return all(0 <= (v & ((1 << width) - 1)) < width for v in attr.values)


def _saturating(op: Operation) -> bool:
    """An ``ftoi`` that saturates has a result for every input (NaN included)."""
    return op.has_flag("saturating")


#: The Pure ops some inputs make undefined behaviour, each with the test of when this op
#: is safe to run where the program would not (see the module text).  An overflow flag
#: other than ``none`` is checked for every op besides.
SPECULATABLE_WHEN: dict[str, Callable[[Operation], bool]] = {
    **{CT + name: _never for name in ("divi", "remi", "extract", "insert", "offset",
                                      "iota")},
    CT + "shli": _constant_shift_in_range, CT + "shri": _constant_shift_in_range,
    CT + "ftoi": _saturating,
}


def is_speculatable(op: Operation) -> bool:
    """Whether running `op` where the program would not cannot be undefined behaviour
    (see the module text)."""
    traits = traits_of(op)
    if ("Pure" not in traits and "ConstantLike" not in traits) or op.regions:
        return False
    flag = op.enum("overflow")
    if flag is not None and flag != IntegerOverflow.NONE:
        return False
    safe = SPECULATABLE_WHEN.get(op.name)
    return safe is None or safe(op)


def can_be_hoisted(op: Operation, loop: Operation) -> bool:
    """Whether `op` is no terminator and every value it and its nested ops use, except
    those defined inside `op`, comes from outside `loop` (MLIR's ``canBeHoisted``)."""
    if "Terminator" in traits_of(op):
        return False
    for nested in op.walk():
        for value in nested.operands:
            if nested is not op and op.encloses(value):
                continue
            if loop.encloses(value):
                return False
    return True


def hoist_invariants(loop: Operation, rewriter: Rewriter) -> int:
    """Move the invariant speculatable pure ops of `loop`'s body before it (MLIR's
    ``moveLoopInvariantCode``); how many moved."""
    moved = 0
    for region in loop.regions:
        for block in region.blocks:
            worklist = deque(block.operations)
            while worklist:
                op = worklist.popleft()
                if op.parent is not block:
                    continue
                if not (is_pure(op) and is_speculatable(op)) or not can_be_hoisted(op, loop):
                    continue
                rewriter.move_before(op, loop)
                moved += 1
                for result in op.results:
                    worklist.extend(user for user in rewriter.users(result)
                                    if user.parent is block)
    return moved


@register("loop-invariant-code-motion", "any",
          "Hoist loop invariant instructions outside of the loop")
def loop_invariant_code_motion(op: Operation, options: dict[str, Any]) -> None:
    """Hoist invariant code out of every loop nested in `op`, inner loops first."""
    rewriter = Rewriter(op)
    for loop in [o for o in op.walk(post_order=True) if o.name in LOOP_OPS and o is not op]:
        hoist_invariants(loop, rewriter)


__all__ = ["LOOP_OPS", "SPECULATABLE_WHEN", "can_be_hoisted", "hoist_invariants",
           "is_speculatable", "loop_invariant_code_motion"]
