"""Whether a compiled run may skip the race checks: they are not compiled, so the engine
runs a kernel that writes memory only where no check could fire.

The reference engine (checks on) reports two tile blocks touching one element, one of
them writing, and two accesses of one block that overlap, one a write, that no token
chain orders.  The compiled engine proves neither can happen, or declines.  Each store
must be outside every loop (it runs once per block) and go through a partition view
whose strides (and, above rank 1, extents) are the same in every block, with a tile
index that holds, as some of its components, every tile block id component along which
the grid is not 1; the compiled code checks, before a store through a view of rank 2 or
3, that distinct coordinates reach distinct elements (`lower._check_injective`; else it
stops and the reference reruns).  Every other access of the stored buffer must then

- within a block, touch other elements (the same view, a tile index with a different
  constant in some component) or be ordered before or after the store by a token chain
  (`tokens.token_order`; neither op inside a loop), and
- between blocks, go through the same view with the same tile block id components in
  the same places of its tile index: two blocks differ in one of those, so they reach
  tiles of different indices in that dimension, of disjoint coordinates.

On a grid of one tile block only the first condition is needed (there is no other
block).  With checks off the reference checks nothing and runs the blocks in schedule
order; the compiled engine runs them in grid order, which is the ``sequential``
schedule's, so any kernel may run then.

An atomic reduction through a view (``atomic_red_view_tko``) writes, but two atomics never
race (the reference's memory model), and atomics order tile blocks: the reference then
checks no race between blocks, so under the ``sequential`` schedule only the conditions
within a block remain.  Under another schedule the blocks' order must not matter: every
access of an atomically reduced buffer must be an atomic of one commuting integer mode
(`lower_pointers.COMMUTING`), as `pointer_races.py` asks of pointer atomics."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .lower import Access

_BETWEEN = "the race checks between tile blocks are not compiled"
_WITHIN = "the race checks within a tile block are not compiled"


def between_blocks(grid: tuple[int, int, int], checks: bool, schedule: str,
                   orders_blocks: bool) -> bool:
    """Whether two tile blocks meeting on one element, one writing, matters: the reference
    reports it (checks on, the kernel not ordering its blocks), or the schedule's order of
    blocks, not the compiled grid order, decides the result."""
    return tuple(grid) != (1, 1, 1) and \
        ((checks and not orders_blocks) or schedule != "sequential")


def race_reason(accesses: Sequence[Access], owners: dict[int, Any],
                grid: tuple[int, int, int], checks: bool, schedule: str,
                orders_blocks: bool = False) -> str | None:
    """Why the compiled run cannot stand in for the reference's race checks (or for its
    order of tile blocks), or None.  `owners`: the buffer each pointer parameter points
    into; `orders_blocks`: the kernel has an op that orders its blocks (`interp.races`)."""
    writes = [a for a in accesses if a.write]
    if not writes or (not checks and schedule == "sequential"):
        return None
    blocks = between_blocks(grid, checks, schedule, orders_blocks)
    for a in writes:
        mine = owners[a.param]
        if a.atomic:
            why = _atomic_reason(a, [b for b in accesses if owners[b.param] is mine],
                                 blocks, schedule)
            if why is not None:
                return why
            continue
        if a.repeated:
            return f"a store inside a loop (it may write one element twice): {_WITHIN}"
        if blocks:
            why = _own_tiles(a, grid)
            if why is not None:
                return why
        for b in accesses:
            if b is a or owners[b.param] is not mine:
                continue
            if not (_apart(a, b) or _ordered(a, b)):
                return (f"parameter {a.param}'s buffer is written and accessed by another "
                        "op that may touch the same elements and that no token chain "
                        f"orders before or after the write: {_WITHIN}")
            if blocks and not _same_tiles_per_block(a, b):
                return (f"parameter {a.param}'s buffer is written and accessed by another "
                        "op that another tile block may reach the same elements through: "
                        f"{_BETWEEN}")
    return None


def _atomic_reason(a: Access, group: Sequence[Access], blocks: bool, schedule: str
                   ) -> str | None:
    """Why atomic reduction `a` may meet, within a block, a plain access of its buffer
    (`group`) that no token chain orders (two atomics never race), or, where the blocks'
    order matters (`blocks`), leave a memory that depends on it; or None."""
    for b in group:
        if b is not a and not b.atomic and not (_apart(a, b) or _ordered(a, b)):
            return (f"parameter {a.param}'s buffer is reduced into atomically and accessed by "
                    "another op that may touch the same elements and that no token chain "
                    f"orders before or after the reduction: {_WITHIN}")
    return atomic_order_reason(a, group, schedule) if blocks else None


def atomic_order_reason(a: Any, group: Sequence[Any], schedule: str) -> str | None:
    """Where the order of tile blocks matters: why atomic `a` (a view `Access` or a
    `PointerAccess`), among the accesses `group` of its buffer, may leave a memory that
    depends on it, or None."""
    if not a.commutes:
        return (f"an atomic whose result depends on the order of tile blocks under the "
                f"'{schedule}' schedule (the compiled code runs them in grid order)")
    if not _commuting(group):
        return (f"parameter {a.param}'s buffer is reached by an atomic and other accesses "
                "(plain, or atomics of another mode or width): under the "
                f"'{schedule}' schedule their order may matter")
    return None


def _commuting(group: Sequence[Any]) -> bool:
    """Whether every access of a buffer is an atomic of one commuting mode on elements of
    one width (so any order of tile blocks leaves one memory: an i32 and an i64 add on
    one word do not commute, their carries cross)."""
    return all(b.atomic and b.commutes and b.mode == group[0].mode and
               b.size == group[0].size for b in group)


def _own_tiles(a: Access, grid: tuple[int, int, int]) -> str | None:
    """Why store `a` may reach, from two tile blocks, one element, or None."""
    if not a.uniform:
        return ("a store through a view whose stride may differ between tile blocks (or, "
                f"above rank 1, an extent): {_BETWEEN}")
    if all(d is None for d in a.block_dims):
        return f"a store whose tile index is not a tile block id: {_BETWEEN}"
    if any(grid[d] != 1 and d not in a.block_dims for d in range(3)):
        return ("a store whose tile index leaves out a tile block id component the grid "
                f"is not 1 along: {_BETWEEN}")
    return None


def _apart(a: Access, b: Access) -> bool:
    """Whether `a` and `b` surely touch different elements within one tile block: one
    view, and different constants in one component of their tile indices."""
    return a.view == b.view and any(
        x != y and x.startswith("c") and y.startswith("c") for x, y in zip(a.index, b.index))


def _ordered(a: Access, b: Access) -> bool:
    """Whether a token chain orders one of `a`, `b` before the other (each runs once per
    block)."""
    return not (a.repeated or b.repeated) and (b.ident in a.after or a.ident in b.after)


def _same_tiles_per_block(a: Access, b: Access) -> bool:
    """Whether `b` goes through `a`'s view with `a`'s tile block id components in the
    same places of its index (so blocks that differ reach different tiles)."""
    return a.view == b.view and all(
        y == x for x, y in zip(a.index, b.index) if x.startswith("b"))


def _stored_groups(accesses: Sequence[Access], owners: dict[int, Any]
                   ) -> list[list[Access]]:
    """The accesses of each buffer some access writes, one list per buffer."""
    groups: dict[int, list[Access]] = {}
    for a in accesses:
        if a.write:
            groups.setdefault(id(owners[a.param]), [])
    for a in accesses:
        group = groups.get(id(owners[a.param]))
        if group is not None:
            group.append(a)
    return list(groups.values())


def index_checkable(accesses: Sequence[Access], owners: dict[int, Any],
                    grid: tuple[int, int, int]) -> str | None:
    """Why the index log cannot stand in for the race proof, or None: each stored
    buffer's accesses must all write their index to the log (once per block) through one
    view, the same in every block."""
    for group in _stored_groups(accesses, owners):
        if any(a.column < 0 for a in group):
            return f"an access of a stored buffer inside a loop: {_WITHIN}"
        if len({a.view for a in group}) != 1:
            return f"a stored buffer reached through two views: {_BETWEEN}"
        if tuple(grid) != (1, 1, 1) and not all(a.uniform for a in group):
            return ("a store through a view whose stride may differ between tile blocks "
                    f"(or, above rank 1, an extent): {_BETWEEN}")
    return None


def index_conflict(accesses: Sequence[Access], owners: dict[int, Any], log: np.ndarray,
                   checks: bool, between: bool = True) -> bool:
    """Whether the index log (`log`: columns by tile blocks, -1 where an access did not
    run) shows one tile reached from two blocks, one of them writing, where that matters
    (`between`, `between_blocks`; not on a buffer only atomics of one commuting mode
    reach), or (`checks`) from one block by two ops no token chain orders, one writing,
    not both atomic."""
    for group in _stored_groups(accesses, owners):
        rank = len(group[0].index)
        rows, who = [], []
        for k, a in enumerate(group):
            cols = log[a.column:a.column + rank].T
            ran = np.flatnonzero(cols[:, 0] != -1)
            rows.append(np.column_stack([cols[ran], ran]))
            who.append(np.full(ran.size, k))
        table, who = np.concatenate(rows), np.concatenate(who)
        if not table.size:
            continue
        write = np.array([a.write for a in group])[who]
        # sort by tile index, then block: equal tiles are runs, equal (tile, block) too
        order = np.lexsort(table.T[::-1])
        table, who, write = table[order], who[order], write[order]
        same_tile = (table[1:, :rank] == table[:-1, :rank]).all(axis=1)
        same_block = same_tile & (table[1:, rank] == table[:-1, rank])
        # between blocks: a tile's run holding two blocks and a write
        run = np.r_[0, np.cumsum(~same_tile)]
        writes = np.bincount(run, write, run[-1] + 1) > 0
        first = np.minimum.reduceat(table[:, rank], np.flatnonzero(np.r_[True, ~same_tile]))
        last = np.maximum.reduceat(table[:, rank], np.flatnonzero(np.r_[True, ~same_tile]))
        if between and not _commuting(group) and (writes & (first != last)).any():
            return True
        if not checks:
            continue
        # within a block: every pair of a (tile, block) run must be ordered or read-only
        bad = np.array([[(x.write or y.write) and not _ordered(x, y) and
                         not (x.atomic and y.atomic) for y in group] for x in group])
        together = np.r_[0, np.cumsum(~same_block)]
        for distance in range(1, len(group)):
            pairs = np.flatnonzero(together[distance:] == together[:-distance])
            if not pairs.size:
                break
            if bad[who[pairs], who[pairs + distance]].any():
                return True
    return False


__all__ = ["atomic_order_reason", "between_blocks", "index_checkable", "index_conflict",
           "race_reason"]
