"""Whether a compiled run may skip the race checks: they are not compiled, so the engine
runs a kernel that writes memory only where no check could fire.

The reference engine (checks on) reports two tile blocks touching one element, one of
them writing, and two unordered accesses of one block that overlap, one a write.  The
compiled engine proves neither can happen, or declines: every written buffer is reached
by exactly one access op (a store, through a rank-1 partition view whose tile index is
one component of the tile block id, the grid being 1 along the other two), so each block
writes its own tile, which no other op and no other block touches.  With checks off the
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
        if not a.uniform:
            return ("a store through a view whose stride may differ between tile blocks: "
                    "the race checks between tile blocks are not compiled")
        if a.block_dim is None:
            return ("a store whose tile index is not a tile block id: the race checks "
                    "between tile blocks are not compiled")
        if any(grid[d] != 1 for d in range(3) if d != a.block_dim):
            return ("a store indexed by one tile block id component on a grid that is not "
                    "1 along the others: the race checks between tile blocks are not "
                    "compiled")
    return None


__all__ = ["race_reason"]
