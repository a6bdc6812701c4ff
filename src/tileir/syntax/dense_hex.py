"""Dense elements as MLIR prints large ones: ``"0x..."``, the raw element buffer in hex.

MLIR prints a dense elements attribute of more than 100 elements (not a splat) as a
quoted hexadecimal string of its raw buffer (`tileir.numerics.raw`), upper-case digits,
and reads that form back; tileirdisasm does so in ``constant <f32: "0x0000803F...">``.  A
buffer of one element is a splat.
"""

from __future__ import annotations

from ..numerics.raw import element_bytes, from_raw, to_raw
from ..types import Type

#: More elements than this print in hex (MLIR's default for -mlir-print-elementsattrs-with-
#: hex-if-larger).
HEX_ABOVE = 100


def prints_in_hex(count: int, splat: bool) -> bool:
    """Whether `count` elements print as hex (a splat never does)."""
    return not splat and count > HEX_ABOVE


def to_hex(values: tuple[int, ...], t: Type) -> str:
    """The quoted hex form of the elements `values` (signed ints, or float words) of `t`."""
    return '"0x' + to_raw(values, t).hex().upper() + '"'


def from_hex(text: str, t: Type, count: int) -> tuple[int, ...] | str:
    """The elements of a hex string (its contents without quotes, ``0x`` included) for
    `count` elements of type `t`, or what is wrong with it."""
    if text[:2] not in ("0x", "0X"):
        return "expected hex string"
    try:
        raw = bytes.fromhex(text[2:])
    except ValueError:
        return "expected hex string"
    if len(raw) not in (element_bytes(t), element_bytes(t) * count):
        return "elements hex data size is invalid for provided type"
    try:
        return from_raw(raw, t)
    except ValueError as error:
        return str(error)


__all__ = ["HEX_ABOVE", "from_hex", "prints_in_hex", "to_hex"]
