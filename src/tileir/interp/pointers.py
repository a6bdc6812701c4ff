"""Pointer values: byte addresses, or nibble addresses for 4-bit pointees (spec 5.2.1).

A pointer tile is an int64 array.  For a pointee of 8 bits or more each element is a byte
address.  A pointer to a 4-bit element type (``ptr<f4E2M1FN>``, ``ptr<i4>``...) is
*nibble-granular*: it holds ``2 * byte_address + nibble`` (nibble 0: bits 3..0, 1: bits
7..4, spec 5.2.2), so ``offset`` by n moves n elements and an odd offset reaches the high
nibble.  Wherever such a pointer meets bytes (a mapped buffer, a tensor view's base,
``ptr_to_int``, ``ptr_to_ptr`` to a wider pointee) it is converted here.  Arithmetic is
modulo 2**64, as addresses are read unsigned; mapped addresses are far below 2**62.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .memory import element_bits


def is_nibble_pointee(pointee: Any) -> bool:
    """Whether pointers to `pointee` hold nibble addresses (4-bit element types)."""
    try:
        return element_bits(pointee) == 4
    except Exception:  # an unaddressable type: reported where it is accessed
        return False


def from_byte_address(address: Any, pointee: Any) -> Any:
    """The pointer value addressing the (low nibble of the) byte at `address`."""
    if not is_nibble_pointee(pointee):
        return address
    if isinstance(address, (int, np.integer)) and not isinstance(address, np.ndarray):
        return (int(address) << 1) & ((1 << 64) - 1)
    a = np.asarray(address, dtype=np.int64).view(np.uint64)
    return (a << np.uint64(1)).view(np.int64)


def to_byte_address(pointer: Any, pointee: Any) -> Any:
    """The byte address holding the element `pointer` addresses (its nibble dropped)."""
    if not is_nibble_pointee(pointee):
        return pointer
    if isinstance(pointer, (int, np.integer)) and not isinstance(pointer, np.ndarray):
        return (int(pointer) & ((1 << 64) - 1)) >> 1
    a = np.asarray(pointer, dtype=np.int64).view(np.uint64)
    return (a >> np.uint64(1)).view(np.int64)


def split(pointer: np.ndarray, pointee: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """Byte addresses and nibbles (None for byte-granular pointees) of a pointer tile."""
    if not is_nibble_pointee(pointee):
        return np.asarray(pointer, dtype=np.int64), None
    a = np.asarray(pointer, dtype=np.int64)
    return to_byte_address(a, pointee), (a & 1).astype(np.uint8)


def unpaired_lanes(pointer: np.ndarray, rank: int, mask: np.ndarray | None) -> np.ndarray | None:
    """Lanes of a 4-bit pointer access that break spec 5.2.1's contiguous pairs, or None.

    Lanes are taken in row-major order of the tile's own `rank` dims (leading batch axes
    kept); lanes 2k and 2k+1 must address the low and the high nibble of one byte
    (``p[2k]`` even, ``p[2k+1] == p[2k] + 1``).  A pair whose lanes are both masked off
    accesses nothing and is not checked; a tile of an odd number of lanes leaves its last
    lane unpaired.  Returns a bool array over the lanes (tile shape), or None if all pair.
    """
    a = np.asarray(pointer, dtype=np.int64)
    batch = a.shape[:a.ndim - rank]
    lanes = a.reshape(batch + (-1,))
    n = lanes.shape[-1]
    active = np.ones(a.shape, bool) if mask is None else \
        np.broadcast_to(np.asarray(mask, bool), a.shape)
    active = active.reshape(batch + (-1,))
    bad = np.zeros(lanes.shape, bool)
    even = n - n % 2
    low, high = lanes[..., 0:even:2], lanes[..., 1:even:2]
    used = active[..., 0:even:2] | active[..., 1:even:2]
    broken = used & (((low & 1) != 0) | (high.view(np.uint64) - low.view(np.uint64)
                                          != np.uint64(1)))
    bad[..., 0:even:2] = broken
    bad[..., 1:even:2] = broken
    if n % 2:
        bad[..., n - 1] = active[..., n - 1]
    if not bad.any():
        return None
    return bad.reshape(a.shape)
