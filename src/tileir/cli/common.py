"""What the command-line tools share: NVIDIA's two text tools' common flags, reading
their input, writing their output, and `guarded`, which turns every failure of the
environment (closed or full streams, a broken pipe, Ctrl-C, an output path that cannot be
written) into one line on stderr and a non-zero exit."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import replace
from typing import Any, Callable

from ..api import check_document
from ..bytecode import from_bytecode, is_bytecode, parse_preview
from ..diagnostics import BytecodeError, Diagnostic, Location, TileIRError
from ..ir import Operation
from ..verify import Options, verify

#: The flags cuda-tile-opt and cuda-tile-translate both take: spellings, destination and
#: help.
COMMON_FLAGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("-split-input-file", "--split-input-file"), "split",
     "split text input at '// -----' lines and process each chunk on its own"),
    (("-no-implicit-module", "--no-implicit-module"), "no_implicit",
     "do not wrap text input in an implicit builtin.module: it must hold one top-level op"),
    (("-allow-unregistered-dialect", "--allow-unregistered-dialect"), "unregistered",
     "accept ops of unregistered dialects in text input (in generic form)"),
    (("-mlir-print-debuginfo", "--mlir-print-debuginfo"), "debuginfo",
     "print locations and debug info in text output"),
    (("-verify-diagnostics", "--verify-diagnostics"), "verify_diagnostics",
     "check that the diagnostics of text input are those its expected-error (-warning, "
     "-note, -remark) comments name, reporting only the mismatches"),
)


def tool_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser with the input, ``-o`` and the common flags (each a switch); `description`
    is shown by ``--help`` with its reStructuredText quotes (````) dropped."""
    ap = argparse.ArgumentParser(prog=prog, description=description.replace("``", ""))
    ap.add_argument("input", nargs="?", default="-",
                    help="the input file (default: -, standard input)")
    ap.add_argument("-o", dest="output", default="-", metavar="FILE",
                    help="the output file (default: -, standard output)")
    for spellings, dest, help in COMMON_FLAGS:
        ap.add_argument(*spellings, dest=dest, action="store_true", help=help)
    ap.add_argument("--preview", "-preview", dest="preview", action="append",
                    metavar="<feature[,feature...]>",
                    help="Enable one or more named preview features (simt): reading a "
                    "bytecode file flagged as holding preview content needs one; text "
                    "reads without")
    return ap


def preview_features(prog: str, args: argparse.Namespace) -> tuple[str, ...] | None:
    """The features every ``--preview`` names (each may be given several times, as LLVM's
    list options may); None, after NVIDIA's message on stderr, when one is unknown."""
    features: list[str] = []
    for text in args.preview or ():
        try:
            features += parse_preview(text)
        except BytecodeError as exc:
            print(f"{prog}: for the --preview option: {exc.message}", file=sys.stderr)
            return None
    return tuple(dict.fromkeys(features))


class CliError(Exception):
    """A failure the tool reports in one line (`message`, after the tool's name) with exit
    status 1."""


def read_input(prog: str, path: str) -> tuple[str, str] | None:
    """The text and file name of `path` (``-``: stdin); None, after saying why, when it
    cannot be read: missing, a directory, closed stdin, not UTF-8, or bytecode (which
    ``cuda-tile-translate -cudatilebc-to-mlir`` reads)."""
    name = "<stdin>" if path == "-" else path
    try:
        data = read_bytes(path)
    except CliError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    if is_bytecode(data):
        print(f"{prog}: '{name}' is Tile IR bytecode, not text; read it with "
              "cuda-tile-translate -cudatilebc-to-mlir", file=sys.stderr)
        return None
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        print(f"{prog}: cannot read '{name}': not UTF-8 text (byte {exc.start})",
              file=sys.stderr)
        return None


def read_bytes(path: str) -> bytes:
    """The bytes of `path` (``-``: stdin); `CliError` when they cannot be read."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise CliError("cannot read standard input: it is closed")
        try:
            return stream.read()
        except OSError as exc:
            raise CliError(f"cannot read standard input: {exc.strerror or exc}") from None
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise CliError(f"cannot read '{path}': {exc.strerror or exc}") from None


def write_output(data: str | bytes, path: str) -> None:
    """Write `data` to `path` (``-``: stdout); `CliError` when it cannot be written."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path == "-":
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:
            raise CliError("cannot write standard output: it is closed")
        sys.stdout.flush()
        stream.write(raw)
        stream.flush()
        return
    try:
        with open(path, "wb") as handle:
            handle.write(raw)
    except OSError as exc:
        raise CliError(f"cannot write '{path}': {exc.strerror or exc}") from None


def guarded(prog: str, main: Callable[[], int], uses_stdout: bool = True) -> int:
    """Run a tool's `main`; its exit status.  A `CliError`, an output stream that is
    closed, full or a broken pipe, and Ctrl-C each end it with one line on stderr and a
    non-zero status (130 for Ctrl-C), never a traceback.  A tool that `uses_stdout` is
    refused at once when stdout is closed (``print`` would drop its output silently)."""
    if uses_stdout and sys.stdout is None:
        _say(f"{prog}: cannot write standard output: it is closed")
        return 1
    try:
        status = main()
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except CliError as exc:
        _say(f"{prog}: {exc}")
        return 1
    except KeyboardInterrupt:
        _say(f"{prog}: interrupted")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        _say(f"{prog}: cannot write standard output: the reading end of the pipe closed")
        return 1
    except OSError as exc:     # (files the tool opens report their own: a stream failed)
        _silence_stdout()
        _say(f"{prog}: cannot write standard output: {exc.strerror or exc}")
        return 1
    except AttributeError:
        if sys.stdout is None or sys.stdin is None:     # (a closed stream is None)
            which = "output" if sys.stdout is None else "input"
            _say(f"{prog}: cannot use standard {which}: it is closed")
            return 1
        raise


def _say(line: str) -> None:
    """Print `line` on stderr when there is one."""
    try:
        if sys.stderr is not None:
            print(line, file=sys.stderr, flush=True)
    except OSError:
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush at exit does not
    fail again on the closed or full stream."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        if sys.stdout is not None:
            os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class StatusLine:
    """A progress line on `stream`, redrawn in place with ``\\r``, only when `stream` is a
    terminal: `show` draws once `after` seconds have passed since it was made, at most
    every `every` seconds; `clear` wipes it.  A stream that fails is left alone after."""

    def __init__(self, stream: Any, clock: Callable[[], float] = time.monotonic,
                 after: float = 0.0, every: float = 0.1) -> None:
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self.after = after
        self.every = every
        self.shown = 0          # (the width of the line on the terminal; 0: none)
        self.drawn = -math.inf
        try:
            self.enabled = stream is not None and stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.enabled = False

    def show(self, text: str | Callable[[], str]) -> None:
        """Draw `text` (or what calling it gives, made only when drawn) if it is time."""
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.after or now - self.drawn < self.every:
            return
        self.drawn = now
        line = text() if callable(text) else text
        self._write("\r" + line.ljust(self.shown))
        self.shown = len(line)

    def clear(self) -> None:
        """Wipe the line, if one is shown."""
        if self.shown:
            self._write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False


def read_document(path: str, options: Options | None
                   ) -> tuple[str, list[Operation] | None, list[Diagnostic]] | None:
    """A file's text (printed back when it is bytecode), its top-level ops (None when it
    does not read) and the diagnostics of reading and verifying it with `options` (those of
    a bytecode file with no location placed at its start); None, after saying why, when it
    cannot be opened."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        print(f"{path}: error: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return None
    if is_bytecode(data):
        text, ops = "", None
        try:
            module = from_bytecode(data, verify=False)
            text, ops, diagnostics = str(module), [module], verify(module, options)
        except TileIRError as exc:
            diagnostics = exc.diagnostics
        return text, ops, [replace(d, location=Location(path, 0, 0)) if d.location is None
                           else d for d in diagnostics]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"{path}: error: neither Tile IR bytecode nor UTF-8 text (byte {exc.start})",
              file=sys.stderr)
        return None
    return (text, *check_document(text, path, options=options))


def checked_document(path: str, options: Options | None = None
                     ) -> tuple[str, list[Operation]] | None:
    """The text (printed back for bytecode) and verified top-level ops of a text or
    bytecode file, after printing its diagnostics as ``tileir check`` does; None when it
    cannot be read or has errors."""
    from ..api import has_errors
    read = read_document(path, options)
    if read is None:
        return None
    text, ops, diagnostics = read
    for diagnostic in diagnostics:
        print(diagnostic.render({path: text}), file=sys.stderr)
    return None if ops is None or has_errors(diagnostics) else (text, ops)


# ---- option types shared by the commands ----------------------------------------

#: The most processes -j may ask for (each is a Python process; thousands would swamp the
#: machine long before they helped).
MAX_JOBS = 256


def int_option(low: int, high: int | None = None) -> Callable[[str], int]:
    """The type of an integer option from `low` to `high` (None: no bound), for argparse
    (``tileir reduce`` and ``tileir fuzz`` take their numbers so)."""
    wanted = f"an integer from {low} to {high}" if high is not None else \
        "a positive integer" if low == 1 else f"an integer of at least {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value
    return parse


#: A positive integer option, and a number of processes.
positive_int = int_option(1)
jobs_option = int_option(1, MAX_JOBS)


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got "
                                         f"{text!r}")
    return value
