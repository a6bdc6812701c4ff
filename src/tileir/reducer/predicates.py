"""What makes a candidate "still interesting": the predicates `tileir.reduce` takes.

Each factory returns a picklable callable ``predicate(module) -> bool``:

* `command`: a shell command exits 0 on the candidate's file;
* `tileiras_crash`: NVIDIA's tileiras dies of a signal (the given one);
* `tileiras_error`: tileiras refuses the candidate with a message containing a text;
* `diagnostic`: one of tileir's own diagnostics (the verifier's, with ``tileir check``'s
  spec warnings on; with ``launch``, a launch's `ExecutionError`) contains a text;
* `engines_differ`: tileir's engines disagree on the candidate launched on made-up inputs.
"""

from __future__ import annotations

import copy
import io
import os
import re
import shlex
import signal as signals
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from ..nvidia import tool_path as find_tool   # (tests replace it)
from ..diagnostics import Severity, TileIRError
from ..ir import Module
from ..types import FloatType, IntegerType, PointerType, TileType

Predicate = Callable[[Module], bool]
#: The bytecode version written for tileiras (and for ``command(..., as_bytecode=True)``).
BYTECODE_VERSION = "13.5"
#: How long one tileiras run may take before the candidate counts as not interesting.
TOOL_TIMEOUT_S = 120.0


class ToolMissing(Exception):
    """NVIDIA's tileiras is not installed (the ``oracles`` extra)."""




def _tileiras() -> str:
    """The tileiras executable; `ToolMissing` when there is none."""
    path = find_tool("tileiras")
    if path is None:
        raise ToolMissing("NVIDIA's tileiras is not installed (pip install -e '.[oracles]')")
    return path


def tileiras_outcome(module: Module, gpu_name: str = "sm_100",
                     version: str = BYTECODE_VERSION,
                     timeout: float = TOOL_TIMEOUT_S) -> int | str | None:
    """How tileiras fares on `module`: the signal number it dies of, its error message
    (stderr, stripped) when it refuses it, or None when it compiles it (or times out, or
    the module cannot be written at `version`)."""
    try:
        data = module.to_bytecode(version=version)
    except TileIRError:
        return None
    with tempfile.TemporaryDirectory(prefix="tileir-reduce-") as scratch:
        path = os.path.join(scratch, "k.tileirbc")
        with open(path, "wb") as handle:
            handle.write(data)
        try:
            done = subprocess.run([_tileiras(), f"--gpu-name={gpu_name}", "-o",
                                   os.path.join(scratch, "k.cubin"), path],
                                  capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return None
    code = done.returncode
    if code < 0:
        return -code
    if code > 128 and code - 128 in signals.valid_signals():
        return code - 128
    if code:
        return done.stderr.decode(errors="replace").strip() or f"exit status {code}"
    return None


def signal_name(number: int) -> str:
    """SIGSEGV for 11, and so on (the number itself when it names no signal)."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)


@dataclass(frozen=True)
class TileirasCrash:
    """tileiras dies of `signal` (any signal when None) on the candidate."""

    signal: int | None
    gpu_name: str
    version: str = BYTECODE_VERSION

    def __call__(self, module: Module) -> bool:
        found = tileiras_outcome(module, self.gpu_name, self.version)
        return isinstance(found, int) and self.signal in (None, found)


@dataclass(frozen=True)
class TileirasError:
    """tileiras refuses the candidate (no crash) with a message containing `text`."""

    text: str
    gpu_name: str
    version: str = BYTECODE_VERSION

    def __call__(self, module: Module) -> bool:
        found = tileiras_outcome(module, self.gpu_name, self.version)
        return isinstance(found, str) and self.text in found


def tileiras_crash(signal: int | None = None, gpu_name: str = "sm_100", *,
                   version: str = BYTECODE_VERSION) -> TileirasCrash:
    """tileiras (for `gpu_name`, on bytecode `version`) dies of `signal` (None: of any
    signal); `ToolMissing` when tileiras is not installed."""
    _tileiras()
    return TileirasCrash(signal, gpu_name, version)


def tileiras_error(text: str, gpu_name: str = "sm_100", *,
                   version: str = BYTECODE_VERSION) -> TileirasError:
    """tileiras refuses the candidate with an error message containing `text`;
    `ToolMissing` when tileiras is not installed."""
    _tileiras()
    return TileirasError(text, gpu_name, version)


@dataclass(frozen=True)
class Command:
    """A shell command, ``{}`` standing for the candidate's file, exits 0."""

    command: str
    as_bytecode: bool = False
    timeout: float | None = None

    def __call__(self, module: Module) -> bool:
        suffix = ".tileirbc" if self.as_bytecode else ".mlir"
        with tempfile.TemporaryDirectory(prefix="tileir-reduce-") as scratch:
            path = os.path.join(scratch, "candidate" + suffix)
            try:
                data = module.to_bytecode(version=BYTECODE_VERSION) if self.as_bytecode \
                    else module.format().encode()
            except TileIRError:
                return False
            with open(path, "wb") as handle:
                handle.write(data)
            line = self.command.replace("{}", shlex.quote(path)) if "{}" in self.command \
                else f"{self.command} {shlex.quote(path)}"
            try:
                done = subprocess.run(line, shell=True, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      timeout=self.timeout, check=False)
            except subprocess.TimeoutExpired:
                return False
        return done.returncode == 0


def command(cmd: str, *, as_bytecode: bool = False, timeout: float | None = None) -> Command:
    """The shell command `cmd` exits 0 on the candidate: ``{}`` in it is replaced by the
    path of a file holding the candidate (text, ``.mlir``; bytecode 13.5, ``.tileirbc``,
    with `as_bytecode`), appended when `cmd` has no ``{}``.  A run past `timeout` seconds
    counts as not interesting."""
    return Command(cmd, as_bytecode, timeout)


# ---- tileir's own diagnostics and engines ---------------------------------------------

#: Elements of each made-up buffer, and the most ops one tile block may run (a candidate
#: whose reference run goes past it, a loop whose exit was reduced away, proves nothing).
ELEMENTS, MAX_OPS = 4096, 100_000
#: How long the launches of one candidate may take (the batched engine has no op bound)
#: before it counts as not interesting.
LAUNCH_TIMEOUT_S = 10.0


class _TimedOut(BaseException):
    """The launches of one candidate took too long (a BaseException: a launch passes it on
    as it is, after restoring memory)."""


class _time_limit:
    """Raise `_TimedOut` in the main thread after `seconds` (no limit elsewhere)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> "_time_limit":
        import threading
        if threading.current_thread() is threading.main_thread() and \
                hasattr(signals, "setitimer"):
            self.previous = signals.signal(signals.SIGALRM, self._fire)
            signals.setitimer(signals.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    @staticmethod
    def _fire(*_: Any) -> None:
        """The alarm: the time is up."""
        raise _TimedOut

    def __exit__(self, *_: Any) -> None:
        if self.armed:
            signals.setitimer(signals.ITIMER_REAL, 0)
            signals.signal(signals.SIGALRM, self.previous)


def made_up_arguments(entry: Any, seed: int = 0) -> list[Any] | None:
    """Arguments for `entry` (an ``entry`` op): a buffer of `ELEMENTS` random values per
    pointer (two replicas for a multicast one), 64 for an integer scalar, 1.5 for a float
    one; None when a parameter is of another kind."""
    from ..enums import PointerAttribute
    from ..numerics import from_float64, numpy_dtype
    rng = np.random.default_rng(seed)
    arguments: list[Any] = []
    for t in entry.attr("function_type").value.inputs:
        e = t.element_type if isinstance(t, TileType) and t.rank == 0 else None
        if isinstance(e, PointerType) and isinstance(e.pointee, (FloatType, IntegerType)):
            p = e.pointee
            if isinstance(p, FloatType):
                data = from_float64(rng.uniform(-4, 4, ELEMENTS).round(2), p)
            elif p.width == 1:
                data = rng.integers(0, 2, ELEMENTS).astype(np.bool_)
            else:
                data = rng.integers(-8, 9, ELEMENTS).astype(numpy_dtype(p))
            data = np.ascontiguousarray(data)
            multicast = e.ptr_attr == PointerAttribute.MULTICAST
            arguments.append([data, data[::-1].copy()] if multicast else data)
        elif isinstance(e, FloatType):
            arguments.append(1.5)
        elif isinstance(e, IntegerType):
            arguments.append(64 if e.width > 8 else 4)
        else:
            return None
    return arguments


#: Where an error names a tile block (the one it stopped in, the one it races with), which
#: differs with the schedule.
_BLOCK = re.compile(r"tile block \(\d+, \d+, \d+\)")


#: What the error of a run past `MAX_OPS` says.
_PAST_LIMIT = f"past the limit of {MAX_OPS} operations"


def _outcome(module: Module, entry: str, grid: int, arguments: list[Any],
             **options: Any) -> tuple[str, Any]:
    """What one launch did: ("error", its first line) or ("ran", the bytes of every
    buffer and what it printed)."""
    from ..interp import launch
    buffers = copy.deepcopy(arguments)
    printed = io.StringIO()
    try:
        launch(module, entry, grid, buffers, stdout=printed, workers=1, **options)
    except TileIRError as error:
        return "error", _BLOCK.sub("tile block", str(error).splitlines()[0])
    return "ran", ([b.tobytes() if isinstance(b, np.ndarray) else [r.tobytes() for r in b]
                    for b in buffers], printed.getvalue())


def _launches(module: Module) -> Iterator[tuple[str, list[Any]]]:
    """Each entry of `module` with made-up arguments (entries it cannot make up for left
    out)."""
    for entry in module.entries:
        arguments = made_up_arguments(entry)
        if arguments is not None:
            yield entry.symbol, arguments


#: The engine settings compared with the reference (the blocks engine, blocks in grid
#: order, checks on): name and launch options.  Checks off is compared only where the
#: reference ran without an error (with checks off undefined behaviour goes unreported).
ENGINE_SETTINGS: dict[str, dict[str, Any]] = {
    "batched": {"engine": "auto"},
    "reverse schedule": {"engine": "blocks", "schedule": "reverse", "max_ops": MAX_OPS},
    "checks off": {"engine": "auto", "checks": False},
}


def engine_disagreements(module: Module, grids: tuple[int, ...] = (1, 3)
                         ) -> list[tuple[str, str]]:
    """Where tileir's engines disagree on `module` launched on made-up inputs: (what
    differed, on which entry and grid) pairs, empty when they all agree."""
    found = []
    for entry, arguments in _launches(module):
        for grid in grids:
            reference = _outcome(module, entry, grid, arguments, engine="blocks",
                                 max_ops=MAX_OPS)
            if reference[0] == "error" and _PAST_LIMIT in reference[1]:
                continue
            for setting, options in ENGINE_SETTINGS.items():
                if setting == "checks off" and reference[0] != "ran":
                    continue
                if _outcome(module, entry, grid, arguments, **options) != reference:
                    found.append((setting, f"entry '{entry}', grid {grid}"))
    return found


@dataclass(frozen=True)
class EnginesDiffer:
    """Some engine setting gives another outcome than the reference engine."""

    grids: tuple[int, ...] = (1, 3)
    timeout: float = LAUNCH_TIMEOUT_S

    def __call__(self, module: Module) -> bool:
        try:
            with _time_limit(self.timeout):
                return bool(engine_disagreements(module, self.grids))
        except _TimedOut:
            return False


def engines_differ(grids: tuple[int, ...] = (1, 3), *,
                   timeout: float = LAUNCH_TIMEOUT_S) -> EnginesDiffer:
    """tileir's engines (blocks against batched, grid order against reverse, checks on
    against off) disagree on the candidate launched on made-up inputs
    (`made_up_arguments`) over each grid of `grids`: one error's first line, or the bytes
    of a buffer, or what the kernel printed differs."""
    return EnginesDiffer(tuple(grids), timeout)


@dataclass(frozen=True)
class Diagnostic:
    """One of tileir's diagnostics on the candidate contains `text`."""

    text: str
    warn_hints: bool = False
    launch: bool = False
    timeout: float = LAUNCH_TIMEOUT_S

    def __call__(self, module: Module) -> bool:
        from ..verify import Options, verify
        options = Options(warn_hints=self.warn_hints, spec_warnings=True)
        if any(self.text in d.message for d in verify(module, options)
               if d.severity is not Severity.NOTE):
            return True
        if not self.launch:
            return False
        try:
            with _time_limit(self.timeout):
                for entry, arguments in _launches(module):
                    kind, what = _outcome(module, entry, 1, arguments, engine="blocks",
                                          max_ops=MAX_OPS)
                    if kind == "error" and self.text in what:
                        return True
        except _TimedOut:
            pass
        return False


def diagnostic(text: str, *, warn_hints: bool = False, launch: bool = False,
               timeout: float = LAUNCH_TIMEOUT_S) -> Diagnostic:
    """A diagnostic of tileir's verifier on the candidate (spec warnings on, as ``tileir
    check`` has them; unknown optimization hints too with `warn_hints`) contains `text`;
    with `launch`, also the error of launching each entry on one tile block with made-up
    inputs (`made_up_arguments`)."""
    return Diagnostic(text, warn_hints, launch, timeout)


__all__ = ["BYTECODE_VERSION", "Command", "Diagnostic", "EnginesDiffer", "Predicate", "ToolMissing",
           "TileirasCrash", "TileirasError", "command", "diagnostic", "engine_disagreements",
           "engines_differ", "find_tool", "made_up_arguments", "signal_name",
           "tileiras_crash", "tileiras_error", "tileiras_outcome"]
