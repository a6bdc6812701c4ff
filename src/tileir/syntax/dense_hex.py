"""Dense elements as MLIR prints large ones: ``"0x..."``, the raw element bytes in hex.

MLIR prints a dense elements attribute of more than 100 elements (not a splat) as a
quoted hexadecimal string of its raw buffer, and reads that form back; tileirdisasm does so
in ``constant <f32: "0x0000803F...">``.  The buffer holds each element little-endian in
ceil(bits / 8) bytes (tf32: its 19-bit code in 3 bytes; i1 and 4-bit types: a byte each),
hex digits in upper case.  A buffer of one element is a splat.
"""

from __future__ import annotations

from ..types import TF32, FloatType, IntegerType, Type

#: More elements than this print in hex (MLIR's default for -mlir-print-elementsattrs-with-
#: hex-if-larger).
HEX_ABOVE = 100
#: tf32 values are held as f32 bit patterns; the raw buffer keeps the 19-bit code.
_TF32_SHIFT = 13


def _width(t: Type) -> int:
    """Significant bits of one element's code."""
    return 19 if t == TF32 else t.bit_width  # type: ignore[attr-defined]


def element_bytes(t: Type) -> int:
    """Bytes one element takes in the raw buffer."""
    return (_width(t) + 7) // 8


def prints_in_hex(count: int, splat: bool) -> bool:
    """Whether `count` elements print as hex (a splat never does)."""
    return not splat and count > HEX_ABOVE


def to_hex(values: tuple[int, ...], t: Type) -> str:
    """The quoted hex form of the elements `values` (signed ints, or float bit patterns) of
    element type `t`."""
    size = element_bytes(t)
    mask = (1 << (8 * size)) - 1
    raw = bytearray()
    for v in values:
        if t == TF32:
            v >>= _TF32_SHIFT
        elif t == IntegerType(1):
            v = 1 if v else 0
        raw += (v & mask).to_bytes(size, "little")
    return '"0x' + raw.hex().upper() + '"'


def from_hex(text: str, t: Type, count: int) -> tuple[int, ...] | str:
    """The elements of a hex string (its contents without quotes, ``0x`` included) for
    `count` elements of type `t`, or what is wrong with it."""
    digits = text[2:] if text[:2] in ("0x", "0X") else None
    if digits is None:
        return "expected hex string"
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        return "expected hex string"
    size = element_bytes(t)
    if len(raw) not in (size, size * count):
        return "elements hex data size is invalid for provided type"
    values = []
    width = _width(t)
    for i in range(0, len(raw), size):
        code = int.from_bytes(raw[i:i + size], "little")
        if isinstance(t, FloatType):
            if code >> width:
                return (f"element {i // size} has bits {code:#x}, more than the {width} bits "
                        f"of {t.format()}")
            values.append(code << _TF32_SHIFT if t == TF32 else code)
        elif t == IntegerType(1):
            values.append(1 if code else 0)
        else:
            code &= (1 << width) - 1
            values.append(code - (1 << width) if code >> (width - 1) else code)
    return tuple(values)


__all__ = ["HEX_ABOVE", "from_hex", "prints_in_hex", "to_hex"]
