"""Races and block order for pointer accesses (`lower_pointers.PointerAccess`): what the
static view proof (`races.py`) cannot clear, checked on a log of the addresses.

A pointer store may reach any element, so where the reference would check races (checks
on: two tile blocks touching one element, one writing, unless the kernel orders its
blocks; two accesses of one block overlapping, one writing, not both atomic, no token
chain ordering them) or where the order of tile blocks could change the result (a
schedule other than ``sequential``: the compiled code runs blocks in grid order), the
compiled code logs the address of every active lane of every pointer access, by block,
and `conflict` checks the log after the run; a conflict puts memory back and the
reference reruns the launch, whose diagnostic (or result) stands.  Elements of one
buffer are accessed with one element size (else declined), aligned to it (checked), so
two accesses overlap exactly where their addresses are equal.

With atomics (they order blocks: the reference checks no races between blocks) and
another schedule, the result is the same in every order only where every atomic is an
integer one whose updates commute (add, and, or, xor, max, min) and whose old values go
unused, on a buffer only atomics of that one mode reach; else the engine declines.
Buffers reached by both view and pointer accesses, one of them writing, decline (the
view accesses are not logged).  With checks off and the ``sequential`` schedule nothing
needs checking: the compiled code runs the reference's order."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .lower import Access
from .lower_pointers import PointerAccess
from .races import atomic_order_reason

#: The most log entries (i64 addresses) a launch may take: 128 MiB.
LOG_LIMIT = 1 << 24
#: Tile block numbers and offsets into a buffer share one i64 key (`conflict`).
_OFFSET_BITS = 36
_BLOCK_LIMIT = 1 << 27


def logged(pointers: Sequence[PointerAccess], checks: bool, schedule: str) -> bool:
    """Whether the launch needs the address log."""
    return bool(pointers) and (checks or schedule != "sequential")


def pointer_reason(pointers: Sequence[PointerAccess], views: Sequence[Access],
                   owners: dict[int, Any], grid: tuple[int, int, int], checks: bool,
                   schedule: str) -> str | None:
    """Why the log cannot stand in for the reference's race checks (or its order of tile
    blocks) for this launch, or None."""
    if not logged(pointers, checks, schedule):
        return None
    for p in pointers:
        mine = owners[p.param]
        if any(owners[a.param] is mine and (a.write or p.write) for a in views):
            return (f"parameter {p.param}'s buffer is reached by pointer and view accesses, "
                    "one writing: the race checks are not compiled")
        if any(owners[q.param] is mine and q.size != p.size for q in pointers):
            return (f"parameter {p.param}'s buffer is accessed through pointers with two "
                    "element sizes: the race checks are not compiled")
    for p in pointers:      # (atomics never race with atomics: nothing to log of them)
        if p.repeated and not (p.atomic and all(
                q.atomic for q in pointers if owners[q.param] is owners[p.param])):
            return ("a pointer access inside a loop, on a buffer not reached by atomics "
                    "alone: the race checks (or the order of tile blocks) are not compiled "
                    "for it")
    blocks = math.prod(grid)
    if blocks >= _BLOCK_LIMIT or blocks * sum(p.lanes for p in pointers) > LOG_LIMIT:
        return "too many pointer accesses to log for the race checks"
    if schedule == "sequential":
        return None
    for p in pointers:
        why = atomic_order_reason(p, [q for q in pointers if owners[q.param] is
                                      owners[p.param]], schedule) if p.atomic else None
        if why is not None:
            return why
    return None


def new_log(pointers: Sequence[PointerAccess], grid: tuple[int, int, int], checks: bool,
            schedule: str) -> np.ndarray | None:
    """The zeroed address log a launch's compiled code fills, or None when none is needed."""
    if not logged(pointers, checks, schedule):
        return None
    return np.zeros(max(1, math.prod(grid) * sum(p.lanes for p in pointers)), np.int64)


def conflict(log: np.ndarray, pointers: Sequence[PointerAccess], owners: dict[int, Any],
             grid: tuple[int, int, int], checks: bool, schedule: str,
             orders_blocks: bool) -> bool:
    """Whether the logged accesses hold a race the reference would report (checks on), or
    two tile blocks touching one element, one writing, whose order the schedule changes."""
    blocks = math.prod(grid)
    lanes = [log[blocks * p.column: blocks * (p.column + p.lanes)].reshape(blocks, p.lanes)
             for p in pointers]
    if checks:
        for k, q in enumerate(pointers):
            for j in range(k):
                p = pointers[j]
                if owners[p.param] is not owners[q.param] or not (p.write or q.write) or \
                        (p.atomic and q.atomic) or j in q.after:
                    continue
                base = owners[p.param].base
                if np.intersect1d(_keys(lanes[j], base), _keys(lanes[k], base)).size:
                    return True
    if (checks and not orders_blocks) or schedule != "sequential":
        plain = [k for k, p in enumerate(pointers) if not p.atomic]
        if not plain:
            return False
        addresses = np.concatenate([lanes[k].reshape(-1) for k in plain])
        who = np.concatenate([np.repeat(np.arange(blocks), pointers[k].lanes) for k in plain])
        writes = np.concatenate([np.full(blocks * pointers[k].lanes, pointers[k].write)
                                 for k in plain])
        active = addresses != 0
        return _shared(addresses[active], who[active], writes[active])
    return False


def _keys(addresses: np.ndarray, base: int) -> np.ndarray:
    """One i64 key per active (block, element) of a block-by-lane address array."""
    block = np.repeat(np.arange(addresses.shape[0], dtype=np.int64), addresses.shape[1])
    flat = addresses.reshape(-1)
    active = flat != 0
    return (block[active] << _OFFSET_BITS) + (flat[active] - base)


def _shared(addresses: np.ndarray, who: np.ndarray, writes: np.ndarray) -> bool:
    """Whether some address is touched by two tile blocks, one of the touches a write."""
    if not addresses.size:
        return False
    order = np.lexsort((who, addresses))
    a, b, w = addresses[order], who[order], writes[order]
    starts = np.r_[True, a[1:] != a[:-1]]
    group = np.cumsum(starts) - 1
    fresh = starts | np.r_[True, b[1:] != b[:-1]]
    distinct = np.bincount(group, weights=fresh)
    written = np.bincount(group, weights=w) > 0
    return bool(np.any((distinct > 1) & written))


__all__ = ["LOG_LIMIT", "conflict", "logged", "new_log", "pointer_reason"]
