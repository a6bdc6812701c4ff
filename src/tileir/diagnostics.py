"""One diagnostic type and one exception family, shared by every layer of tileir.

The parser, verifier, bytecode reader and interpreter all report problems as
`Diagnostic` values; an operation that cannot go on raises a `TileIRError` subclass
carrying them.  The text form follows MLIR tools: ``file:line:col: error: message``.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence


class Severity(enum.Enum):
    """How serious a diagnostic is, spelled as MLIR spells it."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"


@dataclass(frozen=True)
class Location:
    """A point in a source: file name (or None), 1-based line and column."""

    file: str | None
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file or '<unknown>'}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """A message with a severity, an optional location, and attached notes."""

    severity: Severity
    location: Location | None
    message: str
    notes: tuple["Diagnostic", ...] = field(default=())

    def __str__(self) -> str:
        return "\n".join(self._lines(None))

    def render(self, sources: Mapping[str, str] | None = None) -> str:
        """Format like an MLIR tool, with the source line and a caret when known.

        `sources` maps file names to their text.
        """
        return "\n".join(self._lines(sources or {}))

    def _lines(self, sources: Mapping[str, str] | None) -> list[str]:
        head = f"{self.severity.value}: {self.message}"
        lines = [f"{self.location}: {head}" if self.location else head]
        if sources is not None and self.location is not None:
            text = sources.get(self.location.file or "")
            if text is not None:
                src = _source_line(text, self.location.line)
                if src is not None:
                    lines.extend(_excerpt(src, max(self.location.column - 1, 0)))
        for note in self.notes:
            lines.extend(note._lines(sources))
        return lines


#: The widest source excerpt a diagnostic shows: a longer line is cut to this many
#: characters around the caret (a 50 MB line must not be echoed whole).
EXCERPT = 240


def _excerpt(line: str, column: int) -> list[str]:
    """The source line and the caret line under `column` (0-based), cut around the caret
    to `EXCERPT` characters with "..." marking what was left out."""
    if len(line) <= EXCERPT:
        return [line, " " * column + "^"]
    start = min(max(column - EXCERPT // 2, 0), len(line) - EXCERPT)
    cut = line[start:start + EXCERPT]
    head = "..." if start > 0 else ""
    tail = "..." if start + EXCERPT < len(line) else ""
    return [head + cut + tail, " " * (len(head) + column - start) + "^"]


@functools.lru_cache(maxsize=8)
def _line_starts(text: str) -> tuple[int, ...]:
    """The offset of each line of `text` (kept for the last few texts: a file with many
    diagnostics is split once, not once per diagnostic)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return tuple(starts)


def _source_line(text: str, line: int) -> str | None:
    """Line `line` (1-based) of `text`, without its line break; None past the end."""
    starts = _line_starts(text)
    if not 0 < line <= len(starts):
        return None
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)
    if line == len(starts) and begin == len(text):
        return None         # (the empty piece after a final line break is no line)
    return text[begin:end].rstrip("\r")


def error(message: str, location: Location | None = None,
          notes: Iterable[Diagnostic] = ()) -> Diagnostic:
    """An error diagnostic."""
    return Diagnostic(Severity.ERROR, location, message, tuple(notes))


def note(message: str, location: Location | None = None) -> Diagnostic:
    """A note, to attach to another diagnostic."""
    return Diagnostic(Severity.NOTE, location, message)


def warning(message: str, location: Location | None = None) -> Diagnostic:
    """A warning diagnostic."""
    return Diagnostic(Severity.WARNING, location, message)


class TileIRError(Exception):
    """Base of every error tileir raises for bad input; carries `.diagnostics`."""

    def __init__(self, diagnostics: Diagnostic | str | Sequence[Diagnostic],
                 location: Location | None = None) -> None:
        if isinstance(diagnostics, str):
            diagnostics = (error(diagnostics, location),)
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = (diagnostics,)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    @property
    def message(self) -> str:
        """The message of the first diagnostic."""
        return self.diagnostics[0].message if self.diagnostics else ""


class ParseError(TileIRError):
    """Text that is not valid Tile IR syntax."""


class VerificationError(TileIRError):
    """IR that parses but breaks a rule of the spec or the reference verifier."""


class BytecodeError(TileIRError):
    """Bytes that are not valid Tile IR bytecode, or IR that cannot be encoded."""


class ExecutionError(TileIRError):
    """A kernel run that cannot proceed, including undefined behaviour detected at run time."""

    #: A traced launch's events up to the failure (`tileir.interp.trace.Trace`), else None.
    trace: object = None


class LaunchError(ExecutionError):
    """A launch refused before any tile block ran: a bad argument, grid, option or entry
    name (the caller's mistake, not the kernel's behaviour)."""


class ConversionError(TileIRError, ValueError):
    """A conversion asked of the numerics that the spec does not define (wrong type or mode)."""
