"""Tile IR versions: which spec / bytecode release introduced a type, op or field."""

from __future__ import annotations

import os
from typing import NamedTuple


class Version(NamedTuple):
    """A Tile IR release such as 13.1; orders and compares as a tuple."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @classmethod
    def parse(cls, text: str) -> "Version":
        """Read ``"13.4"`` (also accepts a trailing patch such as ``"13.1.6"``)."""
        parts = text.strip().split(".")
        if len(parts) < 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"not a Tile IR version: {text!r}")
        return cls(int(parts[0]), int(parts[1]))


V13_1 = Version(13, 1)
V13_2 = Version(13, 2)
V13_3 = Version(13, 3)
V13_4 = Version(13, 4)
V13_5 = Version(13, 5)

#: Every release tileir reads and writes, oldest first.
SUPPORTED_VERSIONS: tuple[Version, ...] = (V13_1, V13_2, V13_3, V13_4, V13_5)
#: The newest spec release; what tileir models by default.
LATEST: Version = V13_5
#: The version written when none is asked for: 13.4, what cuTile Python 1.7.0 writes by
#: default (its 13.5 writer is marked dev-only), so files we write load on 13.4 drivers.
DEFAULT_WRITE: Version = V13_4
#: The testing versions of NVIDIA's suite build (opt-in, see `supported_versions`).
TESTING: tuple[Version, ...] = (Version(250, 0), Version(250, 1))


def supported_versions() -> tuple[Version, ...]:
    """The versions the tools accept, oldest first.

    ``TILEIR_BYTECODE_VERSIONS="13.1 13.2 13.3 250.0 250.1"`` narrows or widens the list, so
    tileir can stand in for a specific build of NVIDIA's tools (the conformance suite runs
    against a 13.3 build with its testing versions).
    """
    text = os.environ.get("TILEIR_BYTECODE_VERSIONS")
    if not text:
        return SUPPORTED_VERSIONS
    return tuple(sorted(Version.parse(v) for v in text.split()))


def newest_release() -> Version:
    """The release of the build tileir stands in for: the newest non-testing supported
    version (`LATEST` unless ``TILEIR_BYTECODE_VERSIONS`` emulates an older build).  Its
    verifier rules and wording, and the only version preview content may have."""
    releases = [v for v in supported_versions() if v not in TESTING]
    return max(releases) if releases else LATEST
