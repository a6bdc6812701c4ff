"""What memory one access of every tile block touches, kept small until a question needs
every address.

The batched engine checks races (inside a tile block between accesses no token orders,
and between tile blocks) over *footprints*.  A view access through a strided window
(`batch.ops.window`) is a `Box`: a start address, a shape whose leading three axes are the
grid's (z, y, x) and whose others are the tile's, and byte strides, a few integers however
many elements it covers.  Any other access is `Keys`: the sorted (grain, tile block) pairs
it covers.  Most questions about boxes are answered from their geometry (disjoint byte
ranges; the same box twice; a box whose elements never share a byte); the rest turn boxes
into keys (`keys`), which is exact.  Footprints hold the launch's dense numbers of the
bytes they touch (`Memory.dense`), not addresses: the numbers fit beside a block number.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from ..memory import Memory
from ..races import BlockRaces, Conflict

#: (grain, tile block) pairs are keyed as ``grain << BLOCK_BITS | block`` (grains are dense
#: numbers below 2**36, `memory.MAPPED_LIMIT`): with checks on, a launch of the batched
#: engine has fewer than 2**27 tile blocks.
BLOCK_BITS = 27


@dataclass(frozen=True)
class Box:
    """Tile block n's element at lane l lies at ``start + sum(i * strides)`` over the
    index (z, y, x, *l) of n in the box of blocks; every element is `size` bytes; blocks
    are numbered from `first` in the box's order."""

    start: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    size: int
    first: int = 0        # the number of the block at grid index (0, 0, 0) of the box
    lo: int = field(init=False, compare=False)     # first byte touched
    hi: int = field(init=False, compare=False)     # one past the last byte touched

    def __post_init__(self) -> None:
        reach = [(n - 1) * s for n, s in zip(self.shape, self.strides)]
        object.__setattr__(self, "lo", self.start + sum(r for r in reach if r < 0))
        object.__setattr__(self, "hi", self.start + sum(r for r in reach if r > 0) + self.size)

    def moved(self, delta: int) -> "Box":
        """The same box `delta` bytes further (its bounds moved, not recomputed)."""
        box = object.__new__(Box)
        box.__dict__.update(self.__dict__)
        for name in ("start", "lo", "hi"):
            box.__dict__[name] += delta
        return box

    @property
    def empty(self) -> bool:
        """Whether the box has no element."""
        return 0 in self.shape

    def same(self, other: object) -> bool:
        """Whether `other` is the same box (so each block touches the same bytes in both)."""
        return self == other

    def disjoint(self) -> bool:
        """Whether no two elements share a byte (sufficient test: along the axes sorted by
        stride, each stride clears everything the smaller axes span)."""
        span = self.size
        for n, s in sorted(((n, abs(s)) for n, s in zip(self.shape, self.strides) if n > 1),
                           key=lambda a: a[1]):
            if s < span:
                return False
            span = s * (n - 1) + span
        return True

    def keys(self, grain: int) -> np.ndarray:
        """The sorted, unique (grain, tile block) keys the box covers."""
        blocks = int(np.prod(self.shape[:3]))
        lanes = self.shape[3:]
        addresses = np.full(lanes, self.start, np.int64)
        for k, (n, s) in enumerate(zip(lanes, self.strides[3:])):
            axis = [1] * len(lanes)
            axis[k] = n
            addresses = addresses + (np.arange(n, dtype=np.int64) * s).reshape(axis)
        offsets = np.zeros(self.shape[:3], np.int64)
        for k, (n, s) in enumerate(zip(self.shape[:3], self.strides[:3])):
            axis = [1, 1, 1]
            axis[k] = n
            offsets = offsets + (np.arange(n, dtype=np.int64) * s).reshape(axis)
        flat = offsets.reshape(blocks, 1) + addresses.reshape(1, -1)
        owner = np.broadcast_to(np.arange(self.first, self.first + blocks, dtype=np.int64)
                                [:, None], flat.shape)
        return pair_keys(owner.reshape(-1), flat.reshape(-1), grain, self.size)


@dataclass(frozen=True, eq=False)
class Uniform:
    """An access that is the same in every tile block (its operands do not vary): the
    sorted, unique grains one block covers, touched by each of `count` blocks numbered
    from `first`."""

    grains: np.ndarray
    count: int
    first: int            # the number of the first of the blocks
    grain: int
    lo: int = field(init=False)
    hi: int = field(init=False)

    def __post_init__(self) -> None:
        g = self.grains
        object.__setattr__(self, "lo", int(g[0]) * self.grain if g.size else 0)
        object.__setattr__(self, "hi", (int(g[-1]) + 1) * self.grain if g.size else 0)

    @property
    def empty(self) -> bool:
        """Whether the access touches nothing."""
        return not self.grains.size

    def disjoint(self) -> bool:
        """Whether no two tile blocks share a grain: only when there is one block."""
        return self.count == 1

    def same(self, other: object) -> bool:
        """Whether `other` touches the same grains in the same blocks."""
        return isinstance(other, Uniform) and other.count == self.count and \
            other.first == self.first and np.array_equal(other.grains, self.grains)

    def keys(self, grain: int) -> np.ndarray:
        """The sorted (grain, tile block) keys: every grain with every block."""
        return ((np.repeat(self.grains.astype(np.int64), self.count) << BLOCK_BITS)
                | np.tile(np.arange(self.first, self.first + self.count, dtype=np.int64),
                          self.grains.size))


@dataclass(frozen=True)
class Keys:
    """An access given address by address: its sorted, unique (grain, block) keys."""

    keys: np.ndarray
    lo: int
    hi: int

    @property
    def empty(self) -> bool:
        """Whether the access touches nothing."""
        return not self.keys.size


Footprint = Box | Uniform | Keys


def pair_keys(blocks: np.ndarray, addresses: np.ndarray, grain: int, size: int) -> np.ndarray:
    """The sorted, unique keys of the grains that `size`-byte accesses at `addresses`
    (block `blocks[i]` each) cover (sorting is several times faster than NumPy's hash-based
    unique on large arrays)."""
    grains = max(size // grain, 1)          # every access covers whole grains
    if grains == 1:
        covered = addresses // grain
    else:
        covered = (addresses[:, None] // grain + np.arange(grains)).reshape(-1)
        blocks = np.repeat(blocks, grains)
    keys = (covered.astype(np.int64) << BLOCK_BITS) | blocks.astype(np.int64)
    if keys.size > 1:
        step = keys[1:] > keys[:-1]
        if not step.all():          # views in grid order usually give sorted keys already
            # (a stable sort: several times faster on the ascending runs of a transposed
            # view, and faster on random keys too)
            keys = np.sort(keys, kind="stable")
            step = keys[1:] != keys[:-1]
        keys = keys[np.r_[True, step]]
    return keys


def keys_of(footprint: Footprint, grain: int) -> np.ndarray:
    """A footprint's (grain, block) keys."""
    return footprint.keys if isinstance(footprint, Keys) else footprint.keys(grain)


def overlap_within_blocks(a: Footprint, b: Footprint, grain: int) -> bool:
    """Whether some tile block touches one grain in both `a` and `b`."""
    if a.empty or b.empty or a.hi <= b.lo or b.hi <= a.lo:
        return False
    if isinstance(a, Box) and a == b:
        return True
    if isinstance(a, Uniform) or isinstance(b, Uniform):   # every block touches its grains
        return _meet(_grains(a, grain), _grains(b, grain))
    return _meet(keys_of(a, grain), keys_of(b, grain))


def _grains(footprint: Footprint, grain: int) -> np.ndarray:
    """The sorted, unique grains any tile block of `footprint` touches."""
    if isinstance(footprint, Uniform):
        return footprint.grains
    return np.unique(keys_of(footprint, grain) >> BLOCK_BITS)


def _meet(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two sorted arrays of unique keys share one."""
    if not a.size or not b.size or a[-1] < b[0] or b[-1] < a[0]:
        return False
    small, large = (a, b) if a.size <= b.size else (b, a)
    where = np.searchsorted(large, small)
    where[where == large.size] = large.size - 1
    return bool(np.any(large[where] == small))




class BlockFootprints:
    """Races between tile blocks, over footprints.  Boxes are kept per buffer while their
    geometry settles every question (no two tile blocks meet in one grain with one of them
    writing); the first box or key access a buffer's boxes cannot be compared with by
    geometry turns them all into keys of an exact `BlockRaces`, which then holds that
    buffer."""

    def __init__(self, memory: Memory, grain: int) -> None:
        self.memory = memory
        self.grain = grain
        self.exact = BlockRaces(memory, grain)
        self.lock = threading.Lock()
        #: buffer's first dense number -> its (box or uniform access, write), while
        #: geometry decides
        self.boxes: dict[int, list[tuple[Box | Uniform, bool]]] = {}

    def add(self, footprint: Footprint, write: bool) -> Conflict | None:
        """Record one access of every tile block; the first conflict with another block,
        or None (spans running side by side share the record: one access at a time)."""
        with self.lock:
            return self._add(footprint, write)

    def _add(self, footprint: Footprint, write: bool) -> Conflict | None:
        """`add`, holding the lock."""
        if footprint.empty:
            return None
        memory = self.memory
        if isinstance(footprint, (Box, Uniform)):
            buffer = memory.dense_buffer(footprint.lo)       # (a box lies in one buffer)
            if buffer is not None and buffer[0] not in self.exact.state:
                pending = self.boxes.setdefault(buffer[0], [])
                if self._settled(footprint, write, pending):
                    pending.append((footprint, write))
                    return None
                conflict = self._exact(buffer[0])
                if conflict is not None:
                    return conflict
        else:   # keys may fall in any buffer: those holding boxes go exact first
            for base in [b for b in self.boxes if b < footprint.hi and
                         footprint.lo < memory.dense_buffer(b)[1]]:
                conflict = self._exact(base)
                if conflict is not None:
                    return conflict
        return self._add_keys(keys_of(footprint, self.grain), write)

    @staticmethod
    def _settled(box: Box | Uniform, write: bool, pending: list[tuple[Box | Uniform, bool]]
                 ) -> bool:
        """Whether geometry shows `box` races with no other tile block: a written box's
        elements never share a byte, and every earlier box it overlaps with a write on
        either side is the same box (each block then meets only itself)."""
        if write and not box.disjoint():
            return False
        for other, wrote in pending:
            if not (write or wrote) or other.hi <= box.lo or box.hi <= other.lo:
                continue
            if not box.same(other) or not box.disjoint():
                return False
        return True

    def _exact(self, base: int) -> Conflict | None:
        """Hand the buffer whose first dense number is `base` over to the exact record, its
        boxes as keys."""
        self.exact._buffer(int(np.searchsorted(self.memory.dense_bounds()[0], base)))
        for box, write in self.boxes.pop(base, []):
            conflict = self._add_keys(box.keys(self.grain), write)
            if conflict is not None:
                return conflict
        return None

    def _add_keys(self, keys: np.ndarray, write: bool) -> Conflict | None:
        """`BlockRaces.add` for (grain, block) keys."""
        return self.exact.add(keys >> BLOCK_BITS, keys & ((1 << BLOCK_BITS) - 1), write)


__all__ = ["BLOCK_BITS", "BlockFootprints", "Box", "Footprint", "Keys", "Uniform", "keys_of",
           "overlap_within_blocks", "pair_keys"]
