"""The primitive encodings of Tile IR bytecode: LEB128 varints, zigzag, little-endian
fixed-width integers and 0xCB alignment padding, for writing (`Sink`) and for reading
untrusted bytes (`Source`, which reports every failure as a `BytecodeError` at an offset)."""

from __future__ import annotations

import struct

from ..diagnostics import BytecodeError

#: The byte that pads to an alignment.
PAD = 0xCB
_MASK64 = (1 << 64) - 1
#: The most elements any count in a file may claim (the reference's limit).
MAX_COUNT = (1 << 32) - 2


class ReadError(BytecodeError):
    """Bad bytecode, at a byte offset: ``error at offset N: <reason>``."""

    def __init__(self, reason: str, offset: int | None) -> None:
        self.reason = reason
        self.offset = offset
        text = reason if offset is None else f"error at offset {offset}: {reason}"
        super().__init__(text)


def zigzag(value: int) -> int:
    """A signed 64-bit value as the unsigned zigzag code (small magnitudes stay small)."""
    return ((value << 1) ^ (value >> 63)) & _MASK64


def unzigzag(code: int) -> int:
    """The signed 64-bit value of a zigzag code."""
    value = (code >> 1) ^ -(code & 1)
    return value


class Sink:
    """A growing byte buffer with the format's encoders."""

    def __init__(self) -> None:
        self.data = bytearray()

    def __len__(self) -> int:
        return len(self.data)

    def byte(self, value: int) -> None:
        self.data.append(value & 0xFF)

    def raw(self, data: bytes | bytearray) -> None:
        self.data += data

    def varint(self, value: int) -> None:
        """`value` (taken modulo 2**64) as unsigned LEB128; most are one byte."""
        if 0 <= value < 0x80:
            self.data.append(value)
            return
        value &= _MASK64
        while value >= 0x80:
            self.data.append((value & 0x7F) | 0x80)
            value >>= 7
        self.data.append(value)

    def svarint(self, value: int) -> None:
        self.varint(zigzag(value))

    def fixed(self, value: int, size: int) -> None:
        self.data += (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def pad_to(self, alignment: int, base: int = 0) -> None:
        """0xCB bytes until ``base + len(self)`` is a multiple of `alignment`."""
        while (base + len(self.data)) % alignment:
            self.data.append(PAD)


class Source:
    """A cursor over untrusted bytes; `base` is the file offset of ``data[0]``."""

    def __init__(self, data: bytes | memoryview, base: int = 0) -> None:
        self.data = data
        self.pos = 0
        self.base = base

    @property
    def offset(self) -> int:
        """The file offset of the next byte."""
        return self.base + self.pos

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def fail(self, reason: str) -> ReadError:
        return ReadError(reason, self.offset)

    def _need(self, size: int, what: str) -> None:
        if size < 0 or self.pos + size > len(self.data):
            raise self.fail(f"unexpected end of data while reading {what}")

    def byte(self, what: str = "a byte") -> int:
        self._need(1, what)
        value = self.data[self.pos]
        self.pos += 1
        return value

    def bytes(self, size: int, what: str = "bytes") -> bytes:
        self._need(size, what)
        chunk = bytes(self.data[self.pos:self.pos + size])
        self.pos += size
        return chunk

    def varint(self, what: str = "a varint", maximum: int | None = None) -> int:
        """An unsigned LEB128 value (most are one byte: that case is read directly)."""
        start = self.pos
        data = self.data
        if start < len(data):
            byte = data[start]
            if byte < 0x80 and (maximum is None or byte <= maximum):
                self.pos = start + 1
                return byte
        result = shift = 0
        while True:
            if self.pos >= len(self.data):
                self.pos = start
                raise self.fail(f"unexpected end of data while reading {what}")
            if shift > 63:
                raise self.fail(f"malformed varint while reading {what}")
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        result &= _MASK64
        if maximum is not None and result > maximum:
            raise self.fail("varint value exceeds maximum supported capacity. (expected value "
                            f"less than {maximum}, got {result}).")
        return result

    def svarint(self, what: str = "a signed varint") -> int:
        return unzigzag(self.varint(what))

    def count(self, what: str, item_size: int = 1) -> int:
        """A varint element count, refused when the remaining bytes cannot hold that many
        items of at least `item_size` bytes (so no absurd count allocates memory)."""
        at = self.offset
        n = self.varint(what)
        if n > MAX_COUNT:
            raise ReadError(f"array size in bytecode ({n}) exceeds maximum supported capacity",
                            at)
        if n * item_size > self.remaining():
            raise ReadError(f"{what} ({n}) exceeds the remaining {self.remaining()} bytes", at)
        return n

    def fixed(self, size: int, what: str = "a fixed-width integer", signed: bool = False) -> int:
        self._need(size, what)
        value = int.from_bytes(self.data[self.pos:self.pos + size], "little", signed=signed)
        self.pos += size
        return value

    def fixed_list(self, size: int, what: str, signed: bool = True) -> list[int]:
        """A varint count then that many `size`-byte little-endian integers."""
        n = self.count(what, size)
        fmt = {1: "b", 4: "i", 8: "q"}[size] if signed else {1: "B", 4: "I", 8: "Q"}[size]
        self._need(n * size, what)
        values = list(struct.unpack_from(f"<{n}{fmt}", self.data, self.pos))
        self.pos += n * size
        return values

    def skip_padding(self, alignment: int) -> None:
        """Skip to the next multiple of `alignment` in file offsets (pad bytes unchecked,
        as the reference does)."""
        if alignment < 2:
            return
        padding = -self.offset % alignment
        self._need(padding, "alignment padding")
        self.pos += padding
