"""The deduplicated tables a bytecode file carries (strings, types, constants, debug
attributes): index assignment at first use for the writer, and the indexed blobs for the
reader."""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

from .encoding import ReadError, Sink, Source

K = TypeVar("K", bound=Hashable)


class Table(Generic[K]):
    """Entries numbered in order of first use, each stored as its encoded bytes.

    Keys are deduplicated, as the reference does (two constants with equal bytes but
    different types stay two entries).  `seed` pre-loads the entries of a file that was
    read, so that writing it back at its own version reuses its numbering, and with it its
    bytes, whatever tool wrote it; a new entry equal to a seeded blob reuses that entry.
    """

    def __init__(self, match_blobs: bool = True) -> None:
        #: Whether a new entry may reuse a seeded entry with the same bytes (not for
        #: constants, whose bytes do not say their type).
        self.match_blobs = match_blobs
        self.index: dict[K, int] = {}
        self.blobs: list[bytes | None] = []
        self.keys: list[K | None] = []
        self.seeded: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self.blobs)

    def seed(self, blobs: list[bytes], keys: list | None = None) -> None:
        """Pre-load a read file's entries; `keys[i]` is the key (or the list of keys) entry
        i was read as, None where it was never read."""
        for i, blob in enumerate(blobs):
            key = keys[i] if keys is not None else None
            position = len(self.blobs)
            self.blobs.append(blob)
            self.keys.append(key[0] if isinstance(key, list) and key else
                             None if isinstance(key, list) else key)
            if self.match_blobs:
                self.seeded.setdefault(blob, position)
            for k in (key if isinstance(key, list) else [key]):
                if k is not None:
                    self.index.setdefault(k, position)

    def intern(self, key: K, encode: Callable[[], bytes]) -> int:
        """The index of `key`, encoding and appending it at its first use."""
        found = self.index.get(key)
        if found is not None:
            return found
        blob = encode()
        found = self.index.get(key)   # encoding may have interned it (never for a cycle)
        if found is not None:
            return found
        found = self.seeded.get(blob)
        if found is None:
            found = self.append(key, blob)
        self.index[key] = found
        return found

    def reserve(self, key: K) -> tuple[int, bool]:
        """The index of `key`, and whether it is new (its blob to be `fill`ed later)."""
        found = self.index.get(key)
        if found is not None:
            return found, False
        found = self.append(key, None)
        self.index[key] = found
        return found, True

    def append(self, key: K | None, blob: bytes | None) -> int:
        self.blobs.append(blob)
        self.keys.append(key)
        return len(self.blobs) - 1

    def fill(self, position: int, blob: bytes) -> None:
        self.blobs[position] = blob


def write_offset_table(blobs: list[bytes], width: int, sink: Sink) -> None:
    """varint count; pad to `width`; one `width`-byte start offset per blob; the blobs."""
    sink.varint(len(blobs))
    sink.pad_to(width)
    position = 0
    for blob in blobs:
        sink.fixed(position, width)
        position += len(blob)
    for blob in blobs:
        sink.raw(blob)


def read_offset_table(source: Source, width: int, what: str) -> list[tuple[int, int]]:
    """The (start, end) file offsets of each blob of an offset table: entries span from
    their offset to the next one's, the last to the end of the payload."""
    at = source.offset
    n = source.varint(f"number of {what}")
    room = source.remaining()
    if n > room // width:
        raise ReadError(f"number of {what} ({n}) exceeds the maximum of {room // width} that "
                        f"can fit in the remaining payload of {room} bytes.", at)
    if n == 0:
        return []
    source.skip_padding(width)
    source._need(n * width, f"{what} offsets")
    starts = [source.fixed(width, f"{what} offset") for _ in range(n)]
    data_start = source.offset
    size = source.remaining()
    spans = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < n else size
        if not 0 <= start <= end <= size:
            raise ReadError(f"{what} {i} has invalid offsets [{start}, {end}) in a table of "
                            f"{size} bytes", data_start)
        spans.append((data_start + start, data_start + end))
    return spans
