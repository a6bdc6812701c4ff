"""Dense elements as MLIR's raw buffer holds them: each element's code little-endian in
ceil(bits / 8) bytes (tf32: its 19-bit code, 3 bytes; i1 and 4-bit types: a byte each).
The bytecode's constant blobs and the text's hex form (``"0x..."``) are both this buffer,
so both read and write it here.

Values are tileir's: signed ints for integers, storage words for floats (tf32's code sits
13 bits up in an f32 word)."""

from __future__ import annotations

from typing import Sequence

from ..types import TF32, FloatType, IntegerType, Type

#: How far tf32's 19-bit code sits up in the f32 word tileir holds it in.
TF32_SHIFT = 13


def code_bits(t: Type) -> int:
    """Significant bits of one element's code (19 for tf32)."""
    return 19 if t == TF32 else t.bit_width  # type: ignore[attr-defined]


def element_bytes(t: Type) -> int:
    """Bytes one element takes in the raw buffer."""
    return (code_bits(t) + 7) // 8


def to_code(value: int, t: Type) -> int:
    """The raw code of one element (tf32 shifted down; i1 as 0 or 1)."""
    if t == TF32:
        return value >> TF32_SHIFT
    return (1 if value else 0) if t == IntegerType(1) else value


def from_code(code: int, t: Type) -> int:
    """One element from its raw code (tf32 shifted up)."""
    return code << TF32_SHIFT if t == TF32 else code


def to_raw(values: Sequence[int], t: Type) -> bytes:
    """The raw buffer of `values` (one element each)."""
    size = element_bytes(t)
    mask = (1 << (8 * size)) - 1
    return b"".join((to_code(v, t) & mask).to_bytes(size, "little") for v in values)


def from_raw(raw: bytes, t: Type) -> tuple[int, ...]:
    """The elements of a raw buffer of whole elements; raises ValueError naming the first
    float element whose code has bits past the type's (a 4-bit float's byte with its high
    nibble set).  Integers are read signed, i1 true when its byte is not zero."""
    size, width = element_bytes(t), code_bits(t)
    values = []
    for i in range(0, len(raw), size):
        code = int.from_bytes(raw[i:i + size], "little")
        if isinstance(t, FloatType):
            if code >> width:
                raise ValueError(f"element {i // size} has bits {code:#x}, more than the "
                                 f"{width} bits of {t.format()}")
            values.append(from_code(code, t))
        elif t == IntegerType(1):
            values.append(1 if code else 0)
        else:
            code &= (1 << width) - 1
            values.append(code - (1 << width) if code >> (width - 1) else code)
    return tuple(values)


__all__ = ["TF32_SHIFT", "code_bits", "element_bytes", "from_code", "from_raw", "to_code",
           "to_raw"]
