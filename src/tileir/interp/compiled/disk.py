"""The compiled engine's cache on disk: a kernel's machine code kept across processes.

One file per cache key (the module's hash, entry, parameter types, LLVM version, host CPU:
`cache.key_of`), named by the key's SHA-256, in ``$TILEIR_CACHE_DIR/compiled`` (default
``$XDG_CACHE_HOME/tileir``, else ``~/.cache/tileir``; ``TILEIR_CACHE_DIR=off`` turns it
off).  A file holds one JSON line (the format, the key in full, what the runner needs of
the lowering, and a SHA-256 of all that and of the object code) and then the object code
LLVM made.  A file is used only when its line parses, names this exact key and the hash
matches: anything else (a file cut short, from another version, a byte changed in the
code or in the lowering's facts, whose scratch size and accesses the run relies on) is
ignored and the kernel compiled again.  Files are written whole under a temporary name and renamed, in a
directory only its owner may write; any error reading or writing the cache only means
compiling (it never fails a launch)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import asdict, fields as dataclass_fields
from pathlib import Path
from typing import Any

from .lower import Access, Lowered
from .lower_pointers import PointerAccess

#: Bumped whenever the file layout changes what a file means.
FORMAT = 5
#: The environment variable naming the cache's directory ("off": no disk cache).
VARIABLE = "TILEIR_CACHE_DIR"


def directory() -> Path | None:
    """The directory compiled kernels are kept in (made if missing), or None when the
    cache is off or the directory is not safely ours (another user's, or writable by
    others)."""
    chosen = os.environ.get(VARIABLE)
    if chosen is not None and chosen.strip().lower() in ("", "off", "0", "none"):
        return None
    try:
        if chosen:
            root = Path(chosen)
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            root = Path(base) / "tileir"
    except (RuntimeError, KeyError):    # (no home directory to be found: no cache)
        return None
    place = root / "compiled"
    try:
        place.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = place.stat()
    except OSError:
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or
                                  info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        return None
    return place


def _digest(head: dict, code: bytes) -> str:
    """The SHA-256 a file carries: of its line (without the digest) and of its code."""
    facts = {name: value for name, value in head.items() if name != "digest"}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode() + b"\n" + code).hexdigest()


def _name(key: tuple) -> str:
    """The file name of cache key `key`."""
    return hashlib.sha256(repr(key).encode()).hexdigest() + ".tjit"


def load(key: tuple) -> tuple[Lowered, bytes] | None:
    """The lowering facts and object code kept for `key`, or None (no file, or one that
    is damaged, foreign or of another version: whatever fails in reading it)."""
    place = directory()
    if place is None:
        return None
    try:
        raw = (place / _name(key)).read_bytes()
        line, _, code = raw.partition(b"\n")
        head = json.loads(line)
        if head.get("format") != FORMAT or head.get("key") != repr(key) or \
                head.get("digest") != _digest(head, code):
            return None
        lowered = Lowered(
            "", tuple(head["params"]), int(head["scratch"]),
            accesses=tuple(_record(Access, a) for a in head["accesses"]),
            settles=tuple(int(i) for i in head["settles"]),
            pointers=tuple(_record(PointerAccess, p) for p in head["pointers"]),
            index_columns=int(head["index_columns"]))
    except Exception:       # (RecursionError from nested JSON too: never the launch's end)
        return None
    return lowered, code


def _record(kind: type, fields: dict) -> Any:
    """An `Access` or `PointerAccess` from its JSON fields (lists back to tuples); a
    field missing or extra raises TypeError (the file is not used)."""
    if set(fields) != {f.name for f in dataclass_fields(kind)}:
        raise TypeError(f"a {kind.__name__} with other fields than this version's")
    return kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})


def save(key: tuple, lowered: Lowered, code: bytes) -> None:
    """Keep `lowered`'s facts and its object `code` for `key` (quietly nothing on any
    error: the cache is an optimization)."""
    place = directory()
    if place is None:
        return
    try:
        head = {"format": FORMAT, "key": repr(key),
                "params": list(lowered.params), "scratch": lowered.scratch_bytes,
                "accesses": [asdict(a) for a in lowered.accesses],
                "settles": list(lowered.settles),
                "pointers": [asdict(p) for p in lowered.pointers],
                "index_columns": lowered.index_columns}
        head["digest"] = _digest(head, code)
        data = json.dumps(head).encode() + b"\n" + code
        handle, temporary = tempfile.mkstemp(dir=place, prefix=".writing-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, place / _name(key))
        except BaseException:
            os.unlink(temporary)
            raise
    except (OSError, KeyError):
        return


__all__ = ["FORMAT", "VARIABLE", "directory", "load", "save"]
