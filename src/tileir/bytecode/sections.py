"""The file's framing: magic, section ids, flags and tags, the versions this build reads and
writes, and the `Layout` a reader keeps so a file can be written back byte for byte."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..versions import DEFAULT_WRITE, V13_5, Version, newest_release, supported_versions

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
    """The flags byte of a function record.  Before 13.5, bit 2 says an entry carries
    hints; 13.5 drops that bit (an entry always carries them) and gives bits 2-3 to the
    function's form (`FORM_MASK`)."""

    PRIVATE = 0x01
    ENTRY = 0x02
    HINTS = 0x04


#: 13.5's form field of the function flags (bits 2-3): a plain function, an extern
#: implementation (preview), the testing form, or reserved.
FORM_MASK = 0x0C
FORM_EXTERN_IMPL = 0x04
FORM_TESTING = 0x08
#: Every bit a 13.5 function flags byte may set.
KNOWN_FUNCTION_FLAGS_13_5 = 0x0F
#: The low bit of the header's version tag: the file holds preview content (13.5).
PREVIEW_TAG = 0x0001
#: Function records always carry entry hints and an ``arg_attrs`` array, and the flags
#: byte has the form field, from this release.
V_FUNCTION_FORMS = V13_5


class DebugTag(enum.IntEnum):
    UNKNOWN = 0
    COMPILE_UNIT = 1
    FILE = 2
    LEXICAL_BLOCK = 3
    LOC = 4
    SUBPROGRAM = 5
    CALL_SITE = 6


def default_write_version() -> Version:
    """The version written when none is asked for: `DEFAULT_WRITE` (13.4), or the newest
    release where the emulated build is older."""
    return min(newest_release(), DEFAULT_WRITE)


def min_version_text() -> str:
    """``[13.1 - 13.5]``: the supported range as the reference prints it."""
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
    #: Per function, whether its 13.5 record held an empty ``arg_attrs`` array where
    #: every argument's dictionary is empty (cuTile's form) rather than one per argument.
    empty_arg_attrs: list[bool] = field(default_factory=list)
    #: The header's preview flag (13.5): the file holds preview content.
    preview: bool = False
