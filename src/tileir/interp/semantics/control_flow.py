"""Control flow (spec group "Control Flow"): ``if``, ``for``, ``loop``, terminators, assert.

Terminators raise `RegionExit`; the structured op that ran the region (through
`Machine.run_region`) receives ``(kind, values)`` and handles the kinds it owns
(``yield`` for ``if``; ``continue`` for ``for``; ``continue`` and ``break`` for ``loop``),
raising any other kind again so that it reaches the op that owns it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...numerics import from_integers, unsigned_int
from ..step import Step
from ..values import RegionExit
from .registry import semantics


def results_of(step: Step, values: Sequence[Any]) -> Any:
    """An op's return value from its result values: one value, a tuple, or None."""
    if len(step.op.results) == 1:
        return values[0]
    return tuple(values) if step.op.results else None


@semantics("yield", "continue", "break", "return")
def terminate(step: Step, *operands: Any) -> None:
    """End the enclosing region, handing `operands` to the op that owns the region."""
    raise RegionExit(step.op.opdef.name, operands)


@semantics("if")
def if_(step: Step, condition: np.ndarray) -> Any:
    """Run the then or else region; its ``yield`` gives the results."""
    op = step.op
    region = op.regions[0] if bool(condition) else op.regions[1]
    if not region.blocks:
        return results_of(step, [])
    kind, values = step.machine.run_region(region)
    if kind not in ("yield", "end"):
        raise RegionExit(kind, values)
    return results_of(step, values)


@semantics("for")
def for_(step: Step, lower: np.ndarray, upper: np.ndarray, stride: np.ndarray,
         *init: Any) -> Any:
    """Iterate from `lower` while below `upper` by `stride` (signed compare unless
    ``unsignedCmp``, which reads only the bounds unsigned: the step is always signed and
    must be positive); each ``continue`` gives the next iteration's values."""
    op = step.op
    t = op.operands[0].type.element_type
    unsigned = op.has_flag("unsignedCmp")
    read = (lambda v: unsigned_int(v, t)) if unsigned else (lambda v: int(v))
    iv, end, by = read(lower), read(upper), int(stride)
    dtype = np.asarray(lower).dtype
    values = list(init)
    if by <= 0:
        if step.checks:
            raise step.fail(f"has a non-positive step {by}")
        return results_of(step, values)
    # read signed, lower <= iv < upper, so iv is a value of t as it stands (a NumPy integer
    # or bool dtype takes it directly); read unsigned it may lie past t's signed maximum
    direct = not unsigned and dtype.kind in "bi"
    while iv < end:
        counter = np.array(iv, dtype) if direct else from_integers(np.array(iv), t).astype(dtype)
        kind, out = step.machine.run_region(op.regions[0], [counter, *values])
        if kind in ("continue", "end"):
            values = out if kind == "continue" else values
        elif kind == "break":
            return results_of(step, out)
        else:
            raise RegionExit(kind, out)
        iv += by
    return results_of(step, values)


@semantics("loop")
def loop(step: Step, *init: Any) -> Any:
    """Run the body until it ends with ``break`` (whose operands are the results)."""
    values = list(init)
    while True:
        kind, out = step.machine.run_region(step.op.regions[0], values)
        if kind == "continue":
            values = out
        elif kind == "break":
            return results_of(step, out)
        elif kind == "end":
            values = []
        else:
            raise RegionExit(kind, out)


#: How many false elements an assertion failure lists before "and N more".
ASSERT_LISTED = 16


@semantics("assert")
def assert_(step: Step, condition: np.ndarray) -> None:
    """Stop the kernel when any element of `condition` is false, with the op's message and
    the index of every false element (spec: the message is printed for each), in
    row-major order, listing at most `ASSERT_LISTED`."""
    if np.all(condition):
        return
    if np.ndim(condition) == 0:
        raise step.fail(f"assertion failed: {step.op.attr('message').value}")
    false = np.argwhere(~np.asarray(condition, bool))   # row-major order
    indices = [str([int(i) for i in row]) for row in false[:ASSERT_LISTED]]
    more = len(false) - ASSERT_LISTED
    every = "" if len(false) == 1 else (f"; {len(false)} false elements: {', '.join(indices)}"
                                        + (f" and {more} more" if more > 0 else ""))
    raise step.fail(f"assertion failed: {step.op.attr('message').value} (first false element "
                    f"{indices[0]}{every})")
