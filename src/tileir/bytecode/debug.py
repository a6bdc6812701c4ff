"""Debug-info attributes in the Debug section: one table of record layouts, read and written
by the same description.

Each record is a varint tag and fields in order: ``ref`` (the index of another debug
attribute, of the classes given), ``str`` (a string index) or ``int`` (a varint).  A
`DILocAttr` keeps its file, line and column in the `FileLineColLoc` it wraps, so its
fields are read and built through that location.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..attributes import (DI_SUBPROGRAM_FLAGS, CallSiteLoc, DICompileUnitAttr, DIFileAttr,
                          DILexicalBlockAttr, DILocAttr, DISubprogramAttr, FileLineColLoc,
                          Location)
from ..versions import V13_1, V13_5, Version
from .sections import DebugTag

SCOPES = (DISubprogramAttr, DILexicalBlockAttr)


@dataclass(frozen=True)
class Field:
    """One field of a record: its kind, what it is called in messages, how to get it from
    the attribute, and (for ``ref``) the classes it may point to."""

    kind: str                       # "ref", "str" or "int"
    what: str
    get: Callable[[Any], Any]
    refers_to: tuple[type, ...] = ()
    #: The release whose records have this field (older ones leave it out).
    since: Version = V13_1


@dataclass(frozen=True)
class Record:
    """The layout of one debug attribute class: tag, fields, and how to build it."""

    tag: DebugTag
    fields: tuple[Field, ...]
    build: Callable[..., Any]


def _ref(what: str, name: str, *classes: type) -> Field:
    return Field("ref", what, lambda attr: getattr(attr, name), classes)


def _str(what: str, get: Callable[[Any], Any]) -> Field:
    return Field("str", what, get)


def _int(what: str, get: Callable[[Any], Any], since: Version = V13_1) -> Field:
    return Field("int", what, get, since=since)


RECORDS: dict[type, Record] = {
    DICompileUnitAttr: Record(DebugTag.COMPILE_UNIT,
                              (_ref("file", "file", DIFileAttr),), DICompileUnitAttr),
    DIFileAttr: Record(DebugTag.FILE, (_str("name", lambda a: a.name),
                                       _str("directory", lambda a: a.directory)), DIFileAttr),
    DILexicalBlockAttr: Record(DebugTag.LEXICAL_BLOCK, (
        _ref("scope", "scope", *SCOPES), _ref("file", "file", DIFileAttr),
        _int("line", lambda a: a.line), _int("column", lambda a: a.column)),
        DILexicalBlockAttr),
    DILocAttr: Record(DebugTag.LOC, (
        _ref("scope", "scope", *SCOPES), _str("file name", lambda a: a.location.file),
        _int("line", lambda a: a.location.line), _int("column", lambda a: a.location.column)),
        lambda scope, file, line, column: DILocAttr(FileLineColLoc(file, line, column), scope)),
    DISubprogramAttr: Record(DebugTag.SUBPROGRAM, (
        _ref("file", "file", DIFileAttr), _int("line", lambda a: a.line),
        _str("name", lambda a: a.name), _str("linkage name", lambda a: a.linkage_name),
        _ref("compile unit", "compile_unit", DICompileUnitAttr),
        _int("scope line", lambda a: a.scope_line), _int("flags", lambda a: a.flags, V13_5)),
        DISubprogramAttr),
    CallSiteLoc: Record(DebugTag.CALL_SITE, (_ref("callee", "callee", Location),
                                             _ref("caller", "caller", Location)), CallSiteLoc),
}
BY_TAG: dict[int, Record] = {record.tag: record for record in RECORDS.values()}
#: Every bit a ``di_subprogram``'s flags may set (13.5).
KNOWN_SUBPROGRAM_FLAGS = sum(DI_SUBPROGRAM_FLAGS.values())


def dependencies(attr: Any) -> tuple[Any, ...]:
    """The debug attributes `attr` refers to, in field order (registered before it)."""
    record = RECORDS.get(type(attr))
    if record is None:
        return ()
    return tuple(f.get(attr) for f in record.fields if f.kind == "ref")


__all__ = ["BY_TAG", "Field", "KNOWN_SUBPROGRAM_FLAGS", "RECORDS", "Record", "dependencies"]
