"""Races between tile blocks: two tile blocks touching one address, one of them writing,
with nothing to order them (the kernel has no atomic or non-weak access).

`BlockRaces` remembers, per mapped buffer and per *grain* (the gcd of the kernel's access
sizes, so every access covers whole grains), which tile block wrote it, which block first
read it, and whether several blocks read it.  Grains are numbered in the launch's dense
numbering of mapped bytes (`Memory.dense`), not by address.  Both engines feed it: the
reference engine a tile block's accesses once the block has run, the batched engine each
access of every block at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from ..enums import MemoryOrderingSemantics
from ..ir import Operation
from .memory import Memory, element_bits
from .semantics.registry import short_name

#: Memory ops and the result or operand whose tile type holds the elements accessed.
_ACCESSES = {"load_view_tko": ("result", 0), "load_ptr_tko": ("result", 0),
             "store_view_tko": ("operand", 0), "store_ptr_tko": ("operand", 1),
             "multimem_load_reduce_view_tko": ("result", 0),
             "multimem_reduce_view_tko": ("operand", 1),
             "multimem_store_view_tko": ("operand", 1)}


def grain_of(kernel: Operation) -> int:
    """The gcd of the element sizes of every memory access of `kernel`, in bytes (1 for
    4-bit elements and when there is none)."""
    grain = 0
    for op in kernel.walk():
        name = short_name(op)
        if name not in _ACCESSES:
            continue
        kind, index = _ACCESSES[name]
        t = (op.results if kind == "result" else op.operands)[index].type
        element = getattr(t, "element_type", None)
        bits = element_bits(element) if element is not None else 8
        grain = gcd(grain, bits // 8 if bits >= 8 else 1)
    return grain or 1


def orders_blocks(op: Operation) -> str | None:
    """Why `op` may order tile blocks (an atomic, or an access that is not weak), or None:
    a kernel with such an op may synchronize its blocks, so two blocks touching one
    address need not race, and no engine may run its blocks in another order."""
    if short_name(op).startswith("atomic_"):
        return "atomics order tile blocks"
    if op.opdef is not None and "memory_ordering_semantics" in op.attributes and \
            op.enum("memory_ordering_semantics") != MemoryOrderingSemantics.WEAK:
        return "it is not weak: it may order tile blocks"
    return None


@dataclass(frozen=True)
class Conflict:
    """The first byte two tile blocks race on (its dense number, `Memory.address_of` gives
    its address), and the other block (its number in the order blocks were added; -1 when
    several other blocks read the byte)."""

    address: int
    other: int


class BlockRaces:
    """Which tile block wrote and which read every grain of every buffer."""

    def __init__(self, memory: Memory, grain: int) -> None:
        self.memory = memory
        self.grain = grain
        self.state: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def add(self, grains: np.ndarray, blocks: np.ndarray, write: bool) -> Conflict | None:
        """Record one access: the grains it covers (sorted by grain, then block; each
        (grain, block) pair once) and the tile block number of each.  Returns the first
        conflict with another block, recording nothing, or None."""
        if not grains.size:
            return None
        if write:
            same = np.flatnonzero(grains[1:] == grains[:-1])   # two blocks write one grain
            if same.size:
                k = int(same[0])
                return Conflict(int(grains[k]) * self.grain, int(blocks[k]))
        addresses = grains * self.grain
        # sorted, so each buffer's grains are one run: cut at the buffers' bounds (grains
        # outside every buffer belong to an alloca already unmapped: private to a block)
        bases, ends = self.memory.dense_bounds()
        firsts = np.searchsorted(addresses, bases)
        lasts = np.searchsorted(addresses, ends)
        runs = [(i, start, stop) for i, (start, stop) in enumerate(zip(firsts, lasts))
                if start < stop]
        for i, start, stop in runs:
            conflict = self._check(i, addresses[start:stop], blocks[start:stop], write)
            if conflict is not None:
                return conflict
        for i, start, stop in runs:
            self._record(i, addresses[start:stop], blocks[start:stop], write)
        return None

    def _buffer(self, i: int) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        base = int(self.memory.dense_bounds()[0][i])
        if base not in self.state:
            size = -(-self.memory.buffers[i].size // self.grain)
            self.state[base] = (np.full(size, -1, np.int32), np.full(size, -1, np.int32),
                                np.zeros(size, bool))
        return base, self.state[base]

    def _check(self, i: int, addresses: np.ndarray, who: np.ndarray, write: bool
               ) -> Conflict | None:
        base, (writer, reader, shared) = self._buffer(i)
        offsets = (addresses - base) // self.grain
        w = writer[offsets]
        other = (w >= 0) & (w != who)
        if write:
            r = reader[offsets]
            other |= ((r >= 0) & (r != who)) | shared[offsets]
        if not other.any():
            return None
        k = int(np.argmax(other))
        block = int(w[k]) if w[k] >= 0 and w[k] != who[k] else int(reader[offsets[k]])
        return Conflict(int(addresses[k]), block if 0 <= block != who[k] else -1)

    def _record(self, i: int, addresses: np.ndarray, who: np.ndarray, write: bool) -> None:
        base, (writer, reader, shared) = self._buffer(i)
        offsets = (addresses - base) // self.grain
        if write:
            writer[offsets] = who
            return
        r = reader[offsets]
        twice = offsets[1:] == offsets[:-1]       # read by several blocks at once
        repeated = np.r_[False, twice] | np.r_[twice, False]
        shared[offsets] |= ((r >= 0) & (r != who)) | repeated
        reader[offsets] = np.where(r < 0, who, r)


__all__ = ["BlockRaces", "Conflict", "grain_of", "orders_blocks"]
