"""The package's front door: read Tile IR text into a verified module in one call."""

from __future__ import annotations

import os
from pathlib import Path

from .attributes import UnknownLoc, file_line_col
from .diagnostics import Diagnostic, ParseError, Severity, TileIRError
from .ir import Module, Operation
from .syntax import parser as _parser
from .verify import Options
from .verify import verify as _verify


def parse(text: str, filename: str | None = None, *, verify: bool = True,
          allow_unregistered: bool = False) -> Module:
    """The ``cuda_tile.module`` in `text`, verified unless ``verify=False``.

    Raises `ParseError` for bad syntax and `VerificationError` (carrying every diagnostic)
    for a module that breaks a rule.
    """
    module = _parser.parse(text, filename, allow_unregistered=allow_unregistered)
    if verify:
        module.verify()
    return module


def from_bytecode(data: bytes, *, verify: bool = True, preview: tuple[str, ...] = ()
                  ) -> Module:
    """The module in Tile IR bytecode `data` (13.1-13.5), verified unless ``verify=False``.

    Raises `BytecodeError` (with the byte offset) for malformed input; a file flagged as
    holding preview content needs a `preview` feature (``("simt",)``).
    """
    from .bytecode import from_bytecode as read
    return read(data, verify=verify, preview=preview)


def load(path: str | os.PathLike, *, verify: bool = True) -> Module:
    """The module in the file at `path`, text or bytecode (told apart by content).

    An op of a bytecode file that carries no location (a file written without debug info)
    is placed at ``path:0:0``, as MLIR places what it knows only the file of, so that a
    diagnostic about it, a run-time error of `tileir.launch` included, names the file.
    Writing the module back gives the same bytes: bytecode stores such a location as
    unknown.
    """
    from .bytecode import is_bytecode
    data = Path(path).read_bytes()
    if is_bytecode(data):
        return _placed_in(from_bytecode(data, verify=verify), str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"'{path}' is neither Tile IR bytecode nor UTF-8 text "
                         f"(byte {exc.start})") from None
    return parse(text, str(path), verify=verify)


def _placed_in(module: Module, file: str) -> Module:
    """`module` with each op that has an unknown location placed at ``file:0:0``."""
    for op in module.walk():
        if isinstance(op.location, UnknownLoc):
            op.location = file_line_col(file, 0, 0)
    return module


def check_document(text: str, filename: str | None = None, *, first_line: int = 1,
                   options: Options | None = None, allow_unregistered: bool = False
                   ) -> tuple[list[Operation] | None, list[Diagnostic]]:
    """Parse and verify `text` as the tools do: the top-level ops (None when the text does
    not parse) and every diagnostic of parsing or verifying, in order.  Never raises for
    bad input."""
    try:
        ops = _parser.parse_document(text, filename, first_line=first_line,
                                     allow_unregistered=allow_unregistered)
    except TileIRError as exc:
        return None, list(exc.diagnostics)
    return ops, [d for op in ops for d in _verify(op, options)]


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    """Whether any of `diagnostics` is an error (warnings and remarks do not fail a run)."""
    return any(d.severity is Severity.ERROR for d in diagnostics)


__all__ = ["check_document", "from_bytecode", "has_errors", "load", "parse"]
