"""Bit-exact packing of element values into bytes (spec 5.2 and ``pack`` / ``unpack``).

Elements are laid out little-endian: for sub-byte types the element with the lower
index occupies the lower bits of a byte (``[0.5, 1.5]`` in f4E2M1FN packs to 0x31);
wider types contribute their bytes lowest first.  i1 packs as single bits, as the
reference's pack/unpack size rule counts it.
"""

from __future__ import annotations

import numpy as np

from ..diagnostics import ConversionError
from ..types import I1, FloatType, IntegerType, Type
from .convert import from_bits, to_bits


def packed_bits(t: Type) -> int:
    """Bits one element of `t` occupies when packed (1 for i1, 4 for i4 and f4, 32 for tf32)."""
    if isinstance(t, IntegerType):
        return t.width
    info = t.info if isinstance(t, FloatType) else None
    if info is None:
        raise ConversionError(f"{t} cannot be packed")
    return info.storage_bits



def pack(values: np.ndarray, t: Type) -> np.ndarray:
    """The bytes (as an int8 array, ``tile<Nxi8>``) holding a 1-D array of type `t`."""
    words = to_bits(np.asarray(values).reshape(-1), t)
    width = packed_bits(t)
    if width >= 8:
        return words.astype(f"<u{width // 8}").view(np.uint8).view(np.int8)
    per_byte = 8 // width
    if words.size % per_byte:
        raise ConversionError(f"{words.size} elements of {t} do not fill whole bytes")
    lanes = words.reshape(-1, per_byte)
    shifts = np.arange(per_byte, dtype=np.uint64) * np.uint64(width)
    packed = np.bitwise_or.reduce(lanes << shifts, axis=1)
    return packed.astype(np.uint8).view(np.int8)


def unpack(data: np.ndarray, t: Type) -> np.ndarray:
    """A 1-D array of type `t` read from bytes (int8 or uint8), the inverse of `pack`."""
    raw = np.asarray(data).reshape(-1).astype(np.int64).astype(np.uint8)
    width = packed_bits(t)
    if width >= 8:
        nbytes = width // 8
        if raw.size % nbytes:
            raise ConversionError(f"{raw.size} bytes do not hold whole {t} elements")
        words = raw.view(f"<u{nbytes}").astype(np.uint64)
    else:
        per_byte = 8 // width
        shifts = np.arange(per_byte, dtype=np.uint64) * np.uint64(width)
        mask = np.uint64((1 << width) - 1)
        words = ((raw.astype(np.uint64)[:, None] >> shifts) & mask).reshape(-1)
    if t == I1:
        return words.astype(np.bool_)
    return from_bits(words, t)
