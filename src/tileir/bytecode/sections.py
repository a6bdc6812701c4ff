"""The file's framing: magic, section ids, flags and tags, the versions this build reads and
writes, and the `Layout` a reader keeps so a file can be written back byte for byte."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field

from ..versions import V13_1, V13_2, V13_3, V13_4, Version

MAGIC = b"\x7fTileIR\x00"
END, STRING, FUNC, DEBUG, CONSTANT, TYPE, GLOBAL, PRODUCER = range(8)
NUM_SECTIONS = 8
SECTION_NAMES = {STRING: "string", FUNC: "function", DEBUG: "debug", CONSTANT: "constant",
                 TYPE: "type", GLOBAL: "global", PRODUCER: "producer"}
#: The reference writer's section order.
WRITE_ORDER = (GLOBAL, FUNC, CONSTANT, DEBUG, TYPE, PRODUCER, STRING)
#: Alignment a reader requires of a section's payload (0: none).
REQUIRED_ALIGNMENT = {STRING: 4, FUNC: 8, DEBUG: 8, CONSTANT: 8, TYPE: 4}


class FunctionFlags(enum.IntFlag):
    PRIVATE = 0x01
    ENTRY = 0x02
    HINTS = 0x04


class DebugTag(enum.IntEnum):
    UNKNOWN = 0
    COMPILE_UNIT = 1
    FILE = 2
    LEXICAL_BLOCK = 3
    LOC = 4
    SUBPROGRAM = 5
    CALL_SITE = 6


#: The releases tileir reads and writes; the testing versions of NVIDIA's suite are
#: opt-in (``TILEIR_BYTECODE_VERSIONS``, see `supported_versions`).
RELEASES: tuple[Version, ...] = (V13_1, V13_2, V13_3, V13_4)
TESTING: tuple[Version, ...] = (Version(250, 0), Version(250, 1))


def supported_versions() -> tuple[Version, ...]:
    """The versions the tools accept, oldest first.

    ``TILEIR_BYTECODE_VERSIONS="13.1 13.2 13.3 250.0 250.1"`` narrows or widens the list, so
    tileir can stand in for a specific build of NVIDIA's tools (the conformance suite runs
    against a 13.3 build with its testing versions).
    """
    text = os.environ.get("TILEIR_BYTECODE_VERSIONS")
    if not text:
        return RELEASES
    return tuple(sorted(Version.parse(v) for v in text.split()))


def newest_release() -> Version:
    """The default version to write: the newest non-testing supported version."""
    releases = [v for v in supported_versions() if v not in TESTING]
    return max(releases) if releases else RELEASES[-1]


def min_version_text() -> str:
    """``[13.1 - 13.4]``: the supported range as the reference prints it."""
    return f"[{supported_versions()[0]} - {newest_release()}]"


@dataclass
class Layout:
    """What a read file's tables held, in order, so a write at the same version can reuse
    the numbering of whichever tool produced it (and reproduce its bytes)."""

    version: Version
    section_order: list[int] = field(default_factory=list)
    strings: list[bytes] = field(default_factory=list)
    types: list[bytes] = field(default_factory=list)
    constants: list[bytes] = field(default_factory=list)
    #: The constants each constant entry was read as (one per type it was read with).
    constant_keys: list = field(default_factory=list)
    debug: list[bytes] = field(default_factory=list)
    #: The debug attribute each debug entry decoded to (None where it was never read).
    debug_keys: list = field(default_factory=list)
    #: Whether the Func payload ends padded to 8 bytes (NVIDIA's writer pads it, cuTile's
    #: does not).
    pad_functions: bool = True
