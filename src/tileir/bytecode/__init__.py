"""Tile IR bytecode 13.1-13.5: read and write ``.tileirbc`` files byte-compatibly with
NVIDIA's reader and writer.

`from_bytecode` reads (and verifies) a file; `to_bytecode` writes a module at a version.
A module read from bytecode remembers its file's table layout, so writing it back at the
same version reproduces the file byte for byte, whichever tool wrote it.
"""

from __future__ import annotations

from ..diagnostics import BytecodeError, VerificationError, error
from ..ir import Module
from ..verify import check
from ..versions import Version
from .encoding import ReadError
from .reader import read_bytecode
from ..versions import TESTING, newest_release, supported_versions
from .sections import MAGIC, default_write_version, min_version_text
from .writer import WriteError, write_bytecode

#: Raised (a `BytecodeError`) when a read module breaks the spec's rules.
VERIFY_FAILED = "verification failed for deserialized cuda_tile::ModuleOp"


def is_bytecode(data: bytes) -> bool:
    """Whether `data` starts with the bytecode magic number."""
    return data[:len(MAGIC)] == MAGIC


def parse_version(text: str | Version) -> Version:
    """A version the tools accept (``"13.3"``), else `BytecodeError` with the reference's
    message."""
    if isinstance(text, Version):
        version: Version | None = text
    else:
        try:
            version = Version.parse(text)
        except ValueError:
            version = None
    if version is None or version not in supported_versions():
        raise BytecodeError(f"Invalid argument '{text}': the supported versions are "
                            f"{min_version_text()}")
    return version


#: The preview features the tools accept (``--preview=simt``).
PREVIEW_FEATURES = ("simt",)


def parse_preview(text: str | None) -> tuple[str, ...]:
    """``simt`` / ``simt,simt``: the named preview features, else `BytecodeError` with the
    reference's message (an empty name, as in ``--preview=`` or ``simt,``, is unknown)."""
    if text is None:
        return ()
    names = tuple(text.split(","))
    for name in names:
        if name not in PREVIEW_FEATURES:
            raise BytecodeError(f"unknown preview feature '{name}'; supported features: "
                                f"{', '.join(PREVIEW_FEATURES)}")
    return names


def from_bytecode(data: bytes, *, verify: bool = True, preview: tuple[str, ...] = ()
                  ) -> Module:
    """The module in bytecode `data`; verified like the reference's reader unless
    ``verify=False``.  Malformed input raises `BytecodeError` (with `.offset`).  A 13.5
    file flagged as holding preview content needs a `preview` feature (``("simt",)``)."""
    module = read_bytecode(data, tuple(preview))
    if verify:
        try:
            check(module)
        except VerificationError as exc:
            raise BytecodeError(list(exc.diagnostics) + [error(VERIFY_FAILED)]) from None
    return module


def to_bytecode(module: Module, version: str | Version | None = None, *,
                keep_layout: bool = True) -> bytes:
    """`module` as bytecode of `version` (13.4 by default, as cuTile Python 1.7.0 writes;
    13.5 only when asked for).

    With `keep_layout`, a module read from bytecode and written at its file's version
    reuses that file's table numbering (so an unchanged module comes out byte-identical).
    """
    target = default_write_version() if version is None else parse_version(version)
    seed = getattr(module, "bytecode_layout", None) if keep_layout else None
    return write_bytecode(module, target, seed)


__all__ = ["BytecodeError", "MAGIC", "PREVIEW_FEATURES", "ReadError", "TESTING",
           "VERIFY_FAILED", "WriteError", "default_write_version", "from_bytecode",
           "is_bytecode", "newest_release", "parse_preview", "parse_version",
           "supported_versions", "to_bytecode"]
