"""Whether a compiled run may skip the race checks: they are not compiled, so the engine
runs a kernel that writes memory only where no check could fire.

The reference engine (checks on) reports two tile blocks touching one element, one of
them writing, and two unordered accesses of one block that overlap, one a write.  The
compiled engine proves neither can happen, or declines: every written buffer is reached
by exactly one access op, a store outside any ``for`` or ``loop`` (so it runs once per block),
through a partition view whose strides (and, above rank 1, extents) are the same in
every block, whose tile index holds, as some of its components, every component of the
tile block id along which the grid is not 1.  Two blocks differ in one of those, so they
store tiles of different indices in that dimension, of disjoint coordinates, and the
compiled code checks, before a store through a view of rank 2 or 3, that distinct
coordinates reach distinct elements (`lower._check_injective`; else it stops and the
reference reruns): each block writes
its own elements, which no other op and no other block touches.  On a grid of one tile
block only the first condition is needed (there is no other block).  With checks off the
reference checks nothing and runs the blocks in schedule order; the compiled engine runs
them in grid order, which is the ``sequential`` schedule's, so any kernel may run then."""

from __future__ import annotations

from typing import Any, Sequence

from .lower import Access


def race_reason(accesses: Sequence[Access], owners: dict[int, Any],
                grid: tuple[int, int, int], checks: bool, schedule: str) -> str | None:
    """Why the compiled run cannot stand in for the reference's race checks (or for its
    order of tile blocks), or None.  `owners`: the buffer each pointer parameter points
    into."""
    writes = [a for a in accesses if a.write]
    if not writes or (not checks and schedule == "sequential"):
        return None
    for a in writes:
        mine = owners[a.param]
        if any(b is not a and owners[b.param] is mine for b in accesses):
            return (f"parameter {a.param}'s buffer is written and accessed by another op: "
                    "the race checks are not compiled")
        if a.repeated:
            return ("a store inside a 'for' loop or a 'loop' (it may write one element twice): "
                    "the race checks within a tile block are not compiled")
        if tuple(grid) == (1, 1, 1):
            continue
        if not a.uniform:
            return ("a store through a view whose stride may differ between tile blocks (or, "
                    "above rank 1, an extent): "
                    "the race checks between tile blocks are not compiled")
        if all(d is None for d in a.block_dims):
            return ("a store whose tile index is not a tile block id: the race checks "
                    "between tile blocks are not compiled")
        if any(grid[d] != 1 and d not in a.block_dims for d in range(3)):
            return ("a store whose tile index leaves out a tile block id component the grid "
                    "is not 1 along: the race checks between tile blocks are not compiled")
    return None


__all__ = ["race_reason"]
