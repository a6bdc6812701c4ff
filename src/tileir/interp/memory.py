"""Global memory of the abstract machine: a virtual address space over NumPy buffers.

Every allocation (a pointer argument's buffer, a global, an alloca) owns a *region* of the
address space, 2**42 bytes (4 TiB) of its own, and sits in the middle of it: the region
number, the address's high bits, is the allocation a pointer carries (its provenance).
An access through a pointer or a view must lie inside the buffer of that region:
a pointer moved past its buffer's end by anything less than 2 TiB lands in its own
region, outside its buffer, and is reported; ``offset`` refuses to move a pointer into
another allocation's region (`region_of`, and ``offset``'s semantics), so no pointer
reaches a buffer it was not derived from.  Regions are never handed out twice: a stale
pointer to an ended alloca lands in no live buffer.  An integer turned into a pointer
(``int_to_ptr``) carries the allocation whose region holds it.  A mapped buffer is a
byte view of the caller's array: stores land in the caller's memory.

The race checks number the mapped bytes densely (`dense`): buffer after buffer in mapping
order, so the numbers fit in 36 bits beside a 27-bit tile block number.

Accesses are vectorized: `load` and `store` take an int64 array of byte addresses (one per
element) and an element type.  `check` says, for a set of addresses, what is wrong with
them (outside every mapped buffer, straddling a buffer's end, misaligned for the element
size): the spec's data layout (seed 004) makes an element of ``ptr<E>`` occupy
``storage_bits(E) / 8`` bytes (i1 takes one byte) and requires pointers to be aligned to
that size.  4-bit element types pack two to a byte, the lower-indexed element in the low
nibble (spec 5.2): an access to one names its byte and a nibble (0 low, 1 high).  A
pointer to a 4-bit element holds a nibble address, ``2 * byte + nibble``
(`tileir.interp.pointers`); this module only sees byte addresses.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..numerics import as_unsigned, from_integers, from_words, numpy_dtype, to_words
from ..types import ELEMENT_INFO, FloatType, IntegerType, PointerType, Type

#: Every mapped buffer starts at a multiple of this many bytes (and its dense numbering
#: too, so no grain of the race checks straddles two buffers).
ALIGNMENT = 256
#: log2 of the bytes of address space each allocation owns.
REGION_BITS = 42
#: Where in its region a buffer starts: the middle, so a pointer moved either way by less
#: than this stays in its allocation's region.
PLACEMENT = 1 << (REGION_BITS - 1)
#: Regions are numbered from 1 (region 0, holding the null pointer, is never mapped) up to
#: this, exclusive: byte addresses stay below 2**62, so nibble addresses fit in an int64.
REGION_LIMIT = 1 << (62 - REGION_BITS)
#: The bytes one launch may map in all, 64 GiB (the race checks pack a byte's dense number,
#: in grains of at least one byte, with a 27-bit tile block number into 63 bits).
MAPPED_LIMIT = 1 << 36
#: How many unmapped buffers are remembered, to name them in a fault.
UNMAPPED_KEPT = 64


def region_of(address: int) -> int:
    """The region (so the allocation) a byte address lies in."""
    return (int(address) & ((1 << 64) - 1)) >> REGION_BITS


def region_base(region: int) -> int:
    """The first address of `region`."""
    return region << REGION_BITS


def _buffer_bases(regions: int) -> np.ndarray:
    """Where the buffer of each of regions 0 .. `regions` - 1 starts, as int64."""
    return (np.arange(regions, dtype=np.int64) << REGION_BITS) + PLACEMENT


class MemoryFault(Exception):
    """An access the spec leaves undefined (out of bounds, misaligned, unmapped)."""


def element_bits(t: Type) -> int:
    """Bits one element of type `t` occupies in global memory (pointers take 64)."""
    if isinstance(t, PointerType):
        return 64
    info = ELEMENT_INFO.get(t)
    if info is None:
        raise MemoryFault(f"elements of type {t} cannot be held in memory")
    return info.storage_bits


def element_size(t: Type) -> int:
    """Bytes one access to an element of type `t` touches (a 4-bit element: its byte)."""
    return max(element_bits(t) // 8, 1)


def _nibble_words(values: np.ndarray, t: Type) -> np.ndarray:
    """The 4-bit codes of `values` as uint8."""
    words = to_words(values, t) if isinstance(t, FloatType) else as_unsigned(values, t)
    return np.asarray(words).astype(np.uint8) & np.uint8(0xF)


def _nibble_values(words: np.ndarray, t: Type) -> np.ndarray:
    """Values of type `t` from 4-bit codes."""
    if isinstance(t, FloatType):
        return from_words(words.astype(np.uint64), t)
    return from_integers(words.astype(np.int64), t)


def host_address(array: np.ndarray) -> int:
    """The address of `array`'s first byte in the host process (to find aliased arrays)."""
    return int(array.__array_interface__["data"][0])


def root_of(array: np.ndarray) -> np.ndarray:
    """The outermost NumPy array whose memory `array` is a view of (itself if none)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def root_bytes(root: np.ndarray) -> np.ndarray | None:
    """All of `root`'s bytes as a flat uint8 view (None if they are not one block)."""
    for order, flag in (("C", "c_contiguous"), ("F", "f_contiguous")):
        if getattr(root.flags, flag):
            return root.reshape(-1, order=order).view(np.uint8)
    return None


@dataclass
class Buffer:
    """One mapped region: `data` is a flat uint8 view of the owner's array."""

    base: int
    data: np.ndarray
    name: str

    @property
    def size(self) -> int:
        """Size of the region in bytes."""
        return int(self.data.size)

    @property
    def host(self) -> int:
        """The host address of the region's first byte (read once: `data` never changes)."""
        host = self.__dict__.get("_host")
        if host is None:
            host = self.__dict__["_host"] = host_address(self.data)
        return host


def _named(buffer: Buffer) -> str:
    """A buffer's name for messages."""
    return f"'{buffer.name}'" if buffer.name else f"at {buffer.base:#x}"


class Memory:
    """The address space: buffers sorted by base address, and vectorized access."""

    def __init__(self) -> None:
        self.buffers: list[Buffer] = []
        self._base_list: list[int] = []     # the buffers' bases and ends, in address order
        self._end_list: list[int] = []
        self._dense_list: list[int] = []    # the dense number of each buffer's first byte
        self._arrays: tuple[np.ndarray, ...] | None = None   # the three lists as int64
        self._region = 1                    # the next region to hand out
        self._dense_next = 0                # the next free dense number
        #: The dense number of the first byte of region 1, 2 ...'s buffer (every region
        #: handed out, unmapped ones too), and dense minus address per region as int64.
        self._region_starts: list[int] = []
        self._shift_array: np.ndarray | None = None
        self._unmapped: list[Buffer] = []   # the latest unmapped buffers, for diagnostics
        #: Multicast groups (13.5): the region of a group's first replica -> how far each
        #: replica's base lies from the first's (0 first).  See `replica_shifts`.
        self.multicast: dict[int, tuple[int, ...]] = {}
        #: Called with the bytes (or a view of them) about to be written, before each
        #: write: a `Journal`, the batched engine's values that view memory.
        self.before_write: list[Callable[[np.ndarray], None]] = []

    def map(self, array: np.ndarray, name: str = "", host: int | None = None) -> int:
        """Map `array` (C-contiguous; its bytes are shared, not copied) in a region of its
        own and return its base.

        An array whose bytes lie inside a buffer mapped before (the same array, or a view
        of one passed earlier) is not mapped again: its address is the one its first byte
        already has, so aliased accesses meet on the same addresses (race checks).
        `host`, when the caller has it, is `host_address(array)`."""
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous:
            raise ValueError(f"buffer {name or '?'} must be a C-contiguous NumPy array")
        data = array.reshape(-1).view(np.uint8)
        start = host_address(data) if host is None else host
        for buffer in self.buffers:
            first = buffer.host
            if start < first + buffer.size and first < start + data.size:
                if first <= start and start + data.size <= first + buffer.size:
                    return buffer.base + (start - first)
                raise ValueError(
                    f"buffer {name or '?'} partially overlaps buffer '{buffer.name}' mapped "
                    "before; map the array both are views of first")
        dense = self._dense_next
        if self._region >= REGION_LIMIT or dense + data.size > MAPPED_LIMIT or \
                data.size > PLACEMENT:
            raise MemoryFault(f"cannot map buffer {name or '?'} ({data.size} bytes): a launch "
                              f"maps at most {REGION_LIMIT - 1} allocations of "
                              f"{MAPPED_LIMIT} bytes in all")
        base = region_base(self._region) + PLACEMENT
        self._region += 1
        self._dense_next = -(-(dense + max(data.size, 1)) // ALIGNMENT) * ALIGNMENT
        self._region_starts.append(dense)
        self._shift_array = None
        buffer = Buffer(base, data, name)
        buffer.__dict__["_host"] = start          # (`Buffer.host`, known already)
        self.buffers.append(buffer)
        self._base_list.append(base)
        self._end_list.append(base + data.size)
        self._dense_list.append(dense)
        self._arrays = None
        return base

    @property
    def _bases(self) -> np.ndarray:
        """The mapped buffers' bases in address order, as int64 (built when first asked
        for after a change of the mapping)."""
        return self._bounds()[0]

    @property
    def _ends(self) -> np.ndarray:
        """The mapped buffers' ends (base plus size) in the order of `_bases`."""
        return self._bounds()[1]

    def _bounds(self) -> tuple[np.ndarray, ...]:
        """`_bases`, `_ends` and the buffers' dense numbers, built once per change of the
        mapping."""
        arrays = self._arrays
        if arrays is None:
            arrays = self._arrays = tuple(np.array(values, np.int64).reshape(-1) for values
                                          in (self._base_list, self._end_list,
                                              self._dense_list))
        return arrays

    def allocate(self, nbytes: int, alignment: int = 1, name: str = "") -> int:
        """Map a fresh zero-filled buffer of `nbytes` bytes (alloca, globals); its base is
        aligned to any power of two up to 2**41."""
        if alignment > PLACEMENT:
            raise MemoryFault(f"cannot align buffer {name or '?'} to {alignment} bytes")
        return self.map(np.zeros(nbytes, np.uint8), name)

    def unmap(self, base: int) -> None:
        """Remove the buffer mapped at `base` (an alloca whose block ended): later accesses
        to it are outside every mapped buffer.  Its region is never handed out again."""
        i = bisect.bisect_left(self._base_list, base)
        if i >= len(self.buffers) or self.buffers[i].base != base:
            raise ValueError(f"no buffer is mapped at {base:#x}")
        gone = self.buffers.pop(i)
        del self._base_list[i], self._end_list[i], self._dense_list[i]
        self._arrays = None
        self._unmapped.append(gone)
        del self._unmapped[:-UNMAPPED_KEPT]

    def owner(self, address: int) -> Buffer | None:
        """The live buffer of the region `address` lies in (the allocation a pointer with
        that address carries), if any."""
        start = region_base(region_of(address)) + PLACEMENT
        i = bisect.bisect_left(self._base_list, start)
        if i < len(self.buffers) and self._base_list[i] == start:
            return self.buffers[i]
        return None

    @property
    def regions(self) -> int:
        """One past the last region handed out (regions 1 up to it hold allocations)."""
        return self._region

    def name_of_region(self, region: int) -> str:
        """The allocation of `region` for messages: a live or unmapped buffer's name, or
        'no allocation'."""
        start = region_base(region) + PLACEMENT
        for buffer in self.buffers + self._unmapped[::-1]:
            if buffer.base == start:
                return f"buffer {_named(buffer)}"
        return "an ended alloca" if 1 <= region < self._region else "no allocation"

    def map_multicast(self, replicas: list[np.ndarray], name: str) -> int:
        """Map the replicas of one multicast object (13.5), each a buffer of its own, and
        return the first's base: the object's address, which the multimem ops reach every
        replica through.  Replicas must not share memory (with each other or anything
        mapped before)."""
        bases = []
        for i, replica in enumerate(replicas):
            before = len(self.buffers)
            base = self.map(replica, f"{name}, replica {i}")
            if len(self.buffers) == before:
                raise ValueError(f"{name}, replica {i} shares memory with a buffer mapped "
                                 "before: every replica of a multicast object is its own "
                                 "memory")
            bases.append(base)
        self.multicast[region_of(bases[0])] = tuple(b - bases[0] for b in bases)
        return bases[0]

    def replica_shifts(self, address: int) -> tuple[int, ...]:
        """How far from `address` each replica of the multicast object it lies in holds the
        same byte ((0,) outside every multicast object)."""
        return self.multicast.get(region_of(address), (0,))

    # ---- dense numbers, for the race checks ---------------------------------------

    def dense(self, addresses: np.ndarray) -> np.ndarray:
        """The dense numbers of byte addresses inside buffers mapped by this launch (live
        or since unmapped): the race checks' coordinates, ordered as the addresses are."""
        addresses = np.asarray(addresses, np.int64)
        shift = self._shift_array
        if shift is None:
            starts = np.array([0] + self._region_starts, np.int64)
            shift = self._shift_array = starts - _buffer_bases(starts.size)
        regions = addresses >> REGION_BITS
        if regions.size and (int(regions.min()) < 1 or int(regions.max()) >= shift.size):
            raise MemoryFault("a race check was given an address in no allocation's region")
        return addresses + shift[regions]

    def dense_number(self, address: int) -> int:
        """`dense` of one byte address, in Python ints."""
        region = address >> REGION_BITS
        if not 1 <= region <= len(self._region_starts):
            raise MemoryFault("a race check was given an address in no allocation's region")
        return address + self._region_starts[region - 1] - (region_base(region) + PLACEMENT)

    def dense_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The live buffers' first and one-past-last dense numbers, in address order."""
        bases, ends, dense = self._bounds()
        return dense, dense + (ends - bases)

    def dense_buffer(self, number: int) -> tuple[int, int] | None:
        """The dense numbers [first, end) of the live buffer holding dense `number`."""
        i = bisect.bisect_right(self._dense_list, number) - 1
        if i >= 0 and number < self._dense_list[i] + self.buffers[i].size:
            return self._dense_list[i], self._dense_list[i] + self.buffers[i].size
        return None

    def address_of(self, number: int) -> int:
        """The byte address of dense `number` (for messages), in a live buffer or not."""
        region = max(bisect.bisect_right(self._region_starts, number), 1)
        return number - self._region_starts[region - 1] + region_base(region) + PLACEMENT

    def buffer_at(self, address: int) -> Buffer | None:
        """The buffer containing byte `address`, if any."""
        i = bisect.bisect_right(self._base_list, address) - 1
        if i >= 0 and address < self._end_list[i]:
            return self.buffers[i]
        return None

    def _locate(self, addresses: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Index of the buffer each access starts in (-1 if none) and whether the whole
        `size`-byte access lies inside it."""
        index = np.searchsorted(self._bases, addresses, side="right") - 1
        found = index >= 0
        safe = np.where(found, index, 0)
        if self._bases.size == 0:
            return np.full(addresses.shape, -1), np.zeros(addresses.shape, bool)
        inside = found & (addresses + size <= self._ends[safe]) & (addresses < self._ends[safe])
        return np.where(inside, index, -1), inside

    def check(self, addresses: np.ndarray, size: int, mask: np.ndarray | None = None,
              home: int | None = None) -> str | None:
        """What is wrong with accessing `size` bytes at each (unmasked) address, or None.
        With `home` (a view's base address), every access must also lie in the buffer that
        address is in: a view reaches only the allocation its base pointer points into."""
        addresses = np.asarray(addresses, np.int64)
        active = np.ones(addresses.shape, bool) if mask is None else np.asarray(mask, bool)
        index, inside = self._locate(addresses, size)
        if home is not None:
            problem = self._outside_home(addresses, index, inside, active, home)
            if problem:
                return problem
        bad = active & ~inside
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            address = int(addresses[where])
            return (f"accesses address {address:#x} (element {list(where)}), outside every "
                    f"mapped buffer{self._nearest(address)}")
        misaligned = active & (addresses % size != 0)
        if misaligned.any():
            where = tuple(int(i) for i in np.argwhere(misaligned)[0])
            return (f"accesses misaligned address {int(addresses[where]):#x} (element "
                    f"{list(where)}), not a multiple of the element size {size}")
        return None

    def _outside_home(self, addresses: np.ndarray, index: np.ndarray, inside: np.ndarray,
                      active: np.ndarray, home: int) -> str | None:
        """`check`'s test that the accesses of a view whose base is `home` lie in the buffer
        of `home`'s region (accesses outside every buffer are `check`'s own message)."""
        mine = self.owner(home)
        owner = -1 if mine is None else bisect.bisect_left(self._base_list, mine.base)
        stray = active & inside & (index != owner)
        if not stray.any():
            return None
        where = tuple(int(k) for k in np.argwhere(stray)[0])
        address = int(addresses[where])
        other = self.buffers[int(index[where])]
        if mine is None:
            return (f"accesses address {address:#x} (element {list(where)}) in buffer "
                    f"{_named(other)} through a view whose base address {home:#x} lies in "
                    f"no live allocation{self._nearest(home)}")
        return (f"accesses address {address:#x} (element {list(where)}) in buffer "
                f"{_named(other)} through a view of buffer {_named(mine)} (it spans "
                f"[{mine.base:#x}, {mine.base + mine.size:#x})): a view reaches only the "
                "allocation its base pointer points into")

    def _nearest(self, address: int) -> str:
        """A note naming the allocation whose region holds `address` (live, or unmapped
        when its alloca's block ended), to help reading a fault."""
        for gone in reversed(self._unmapped):
            if region_of(gone.base) == region_of(address):
                label = f" '{gone.name}'" if gone.name else ""
                return (f" (it was in buffer{label}, unmapped when the block holding the "
                        f"alloca ended; the address is {address - gone.base} bytes past "
                        "its base)")
        b = self.owner(address)
        if b is None:
            return ""
        label = f" '{b.name}'" if b.name else ""
        return (f" (buffer{label} spans [{b.base:#x}, {b.base + b.size:#x}), the address is "
                f"{address - b.base} bytes past its base)")

    def _byte_index(self, addresses: np.ndarray, size: int, active: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """For every active access: the buffer index and the byte offsets it covers."""
        index, inside = self._locate(addresses, size)
        active = active & inside
        flat_index = index[active]
        starts = addresses[active] - self._bases[flat_index]
        return flat_index, starts[:, None] + np.arange(size)

    def _elements(self, addresses: np.ndarray, size: int, dtype: np.dtype,
                  active: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The fast path of `load` and `store`: when every active access is one whole
        element of a single buffer at an element boundary, that buffer's bytes viewed as
        elements and the element index of each access (inactive ones: 0); else None."""
        picked = addresses if active is None else addresses[active]
        if picked.size == 0:
            return None
        lo, hi = int(picked.min()), int(picked.max())
        i = int(np.searchsorted(self._bases, lo, side="right")) - 1
        if i < 0 or hi + size > self._ends[i]:
            return None
        base = int(self._bases[i])
        offsets = addresses - base
        if size > 1 and np.any((picked - base) % size):
            return None
        data = self.buffers[i].data
        typed = data[:data.size - data.size % size].view(np.uint8 if dtype == np.bool_
                                                          else dtype)
        index = offsets // size
        if active is not None:
            index = np.where(active, index, 0)
        return typed, index

    def load(self, addresses: np.ndarray, element_type: Type,
             mask: np.ndarray | None = None, nibbles: np.ndarray | None = None) -> np.ndarray:
        """The elements at `addresses` (shape kept); masked-off or invalid ones read 0.

        For a 4-bit type, `nibbles` says which half of each byte holds the element."""
        addresses = np.asarray(addresses, np.int64)
        if element_bits(element_type) == 4:
            raw = self.load(addresses, IntegerByte, mask)
            shift = 4 * (np.zeros(addresses.shape, np.uint8) if nibbles is None
                         else np.asarray(nibbles).astype(np.uint8))
            return _nibble_values((raw.view(np.uint8) >> shift) & np.uint8(0xF), element_type)
        size = element_size(element_type)
        dtype = numpy_dtype(element_type)
        active = None if mask is None else \
            np.broadcast_to(np.asarray(mask, bool), addresses.shape)
        fast = self._elements(addresses, size, dtype, active)
        if fast is not None:
            typed, index = fast
            values = typed[index]
            if dtype == np.bool_:
                values = values != 0
            if active is not None:
                values = np.where(active, values, np.zeros((), values.dtype))
            return values
        if active is None:
            active = np.ones(addresses.shape, bool)
        raw = np.zeros(addresses.shape + (size,), np.uint8)
        flat_index, offsets = self._byte_index(addresses, size, active)
        _, inside = self._locate(addresses, size)
        active = active & inside
        gathered = np.zeros(offsets.shape, np.uint8)
        for i in np.unique(flat_index):
            rows = flat_index == i
            gathered[rows] = self.buffers[int(i)].data[offsets[rows]]
        raw[active] = gathered
        if dtype == np.bool_:
            return raw[..., 0] != 0
        return raw.reshape(-1).view(dtype).reshape(addresses.shape).copy()

    def store(self, addresses: np.ndarray, values: np.ndarray, element_type: Type,
              mask: np.ndarray | None = None, nibbles: np.ndarray | None = None) -> None:
        """Write `values` at `addresses` where `mask` holds; invalid addresses are skipped.

        Several lanes writing one address: the last lane in row-major order wins (the spec
        leaves the value undefined).  4-bit elements replace only their nibble.
        """
        addresses = np.asarray(addresses, np.int64)
        if element_bits(element_type) == 4:
            self._store_nibbles(addresses, values, element_type, mask, nibbles)
            return
        size = element_size(element_type)
        dtype = numpy_dtype(element_type)
        values = np.broadcast_to(np.asarray(values).astype(dtype, copy=False), addresses.shape)
        selected = None if mask is None else \
            np.broadcast_to(np.asarray(mask, bool), addresses.shape)
        fast = self._elements(addresses, size, dtype, selected)
        if fast is not None:
            typed, index = fast
            self.writing(typed)
            if selected is None:
                typed[index.reshape(-1)] = values.reshape(-1)
            else:
                typed[index[selected]] = values[selected]
            return
        active = np.ones(addresses.shape, bool) if selected is None else selected
        if dtype == np.bool_:
            raw = values.astype(np.uint8)[..., None]
        else:
            raw = np.ascontiguousarray(values).reshape(-1).view(np.uint8).reshape(
                addresses.shape + (size,))
        _, inside = self._locate(addresses, size)
        active = active & inside
        flat_index, offsets = self._byte_index(addresses, size, active)
        chosen = raw[active]
        for i in np.unique(flat_index):
            rows = flat_index == i
            self.writing(self.buffers[int(i)].data)
            self.buffers[int(i)].data[offsets[rows]] = chosen[rows]


    def writing(self, data: np.ndarray) -> None:
        """Tell the `before_write` listeners that `data` (a buffer's bytes, or a view of
        them) is about to be written."""
        for listener in tuple(self.before_write):     # (spans may come and go meanwhile)
            listener(data)

    def _store_nibbles(self, addresses: np.ndarray, values: np.ndarray, t: Type,
                       mask: np.ndarray | None, nibbles: np.ndarray | None) -> None:
        """Read-modify-write the nibbles of 4-bit elements (two lanes may share a byte)."""
        active = np.ones(addresses.shape, bool) if mask is None else \
            np.broadcast_to(np.asarray(mask, bool), addresses.shape)
        shift = 4 * (np.zeros(addresses.shape, np.uint8) if nibbles is None
                     else np.broadcast_to(np.asarray(nibbles).astype(np.uint8), addresses.shape))
        words = np.broadcast_to(_nibble_words(np.asarray(values), t), addresses.shape)
        index, inside = self._locate(addresses, 1)
        active = active & inside
        for i in np.unique(index[active]):
            rows = active & (index == i)
            offsets = addresses[rows] - self._bases[i]
            data = self.buffers[int(i)].data
            self.writing(data)
            np.bitwise_and.at(data, offsets, ~(np.uint8(0xF) << shift[rows]))
            np.bitwise_or.at(data, offsets, words[rows] << shift[rows])


class Journal:
    """The contents of every buffer before its first write, so a run can be undone: the
    batched engine reruns a kernel one tile block at a time from the memory as it was when
    it meets undefined behaviour.  Only written buffers are copied (a kernel's inputs,
    usually most of its memory, are not)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.saved: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # by first byte's address
        self.lock = threading.Lock()

    def touch(self, data: np.ndarray) -> None:
        """Save the buffer holding `data` unless it was saved before (holding the lock
        until the copy is made, so no span writes a buffer before its copy exists)."""
        with self.lock:
            self._touch(data)

    def _touch(self, data: np.ndarray) -> None:
        """`touch`, holding the lock."""
        address = host_address(data)
        for buffer in self.memory.buffers:
            first = buffer.host
            if first <= address < first + max(buffer.size, 1):
                if first not in self.saved:
                    self.saved[first] = (buffer.data, buffer.data.copy())
                return

    def restore(self) -> None:
        """Put every saved buffer back as it was."""
        for data, copy in self.saved.values():
            data[...] = copy
        self.saved.clear()


#: One byte, the unit a 4-bit element is read through.
IntegerByte = IntegerType(8)

__all__ = ["ALIGNMENT", "Buffer", "Journal", "Memory", "MemoryFault", "PLACEMENT", "REGION_BITS",
           "element_bits", "element_size", "host_address", "region_of"]
