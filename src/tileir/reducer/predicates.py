"""What makes a candidate "still interesting": the predicates `tileir.reduce` takes.

Each factory returns a picklable callable ``predicate(module) -> bool``:

* `command`: a shell command exits 0 on the candidate's file;
* `tileiras_crash`: NVIDIA's tileiras dies of a signal (the given one);
* `tileiras_error`: tileiras refuses the candidate with a message containing a text;
* `diagnostic`: one of tileir's own diagnostics (the verifier's, with ``tileir check``'s
  spec warnings on; with ``launch``, a launch's `ExecutionError`) contains a text;
* `engines_differ`: tileir's engines disagree on the candidate launched on made-up inputs.

Two helpers here serve ``tileir fuzz`` too: `run_tool` runs an outside program so that
nothing it starts outlives it, and `compare_engines` is the one comparison of tileir's
engines (the fuzz target ``engines`` and `engines_differ` both use it).
"""

from __future__ import annotations

import copy
import importlib.util
import io
import os
import shlex
import signal as signals
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..nvidia import tool_path as find_tool   # (tests replace it)
from ..diagnostics import Severity, TileIRError
from ..ir import Module

Predicate = Callable[[Module], bool]
#: The bytecode version written for tileiras (and for ``command(..., as_bytecode=True)``).
BYTECODE_VERSION = "13.5"
#: How long one tileiras run may take before the candidate counts as not interesting.
TOOL_TIMEOUT_S = 120.0


class ToolMissing(Exception):
    """NVIDIA's tileiras is not installed (the ``oracles`` extra)."""


# ---- outside programs -------------------------------------------------------------------


@dataclass(frozen=True)
class ToolRun:
    """How one run of an outside program ended: its exit status (None: killed at its
    timeout) and what it wrote (empty when not captured)."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def signal(self) -> int | None:
        """The signal it died of: a negative status, or 128 + n from a shell; None when
        it exited."""
        code = self.returncode
        if code is None:
            return None
        if code < 0:
            return -code
        if code > 128 and code - 128 in signals.valid_signals():
            return code - 128
        return None


def run_tool(command: Sequence[str] | str, timeout: float | None, *,
             capture: bool = True) -> ToolRun:
    """Run `command` (argv, or a line for the shell) with stdin closed, in a session of
    its own: at its `timeout`, or when this process is interrupted, the whole process
    group is killed, so that nothing it started (a shell's children) lives on.  Its output
    is read as text when `capture`, else thrown away."""
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    with subprocess.Popen(command, shell=isinstance(command, str), stdin=subprocess.DEVNULL,
                          stdout=out, stderr=out, start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return ToolRun(None)
        except BaseException:           # (Ctrl-C, or a worker told to stop)
            _kill_group(process)
            raise
    decode = (lambda b: b.decode(errors="replace")) if capture else (lambda b: "")
    return ToolRun(process.returncode, decode(stdout), decode(stderr))


def _kill_group(process: subprocess.Popen) -> None:
    """Kill `process` and every process of its group, and reap it."""
    try:
        os.killpg(process.pid, signals.SIGKILL)
    except OSError:             # (already gone)
        pass
    process.kill()
    process.wait()


def signal_name(number: int) -> str:
    """SIGSEGV for 11, and so on (``signal N`` when the number names no signal)."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


# ---- NVIDIA's tileiras ------------------------------------------------------------------


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
        done = run_tool([_tileiras(), f"--gpu-name={gpu_name}", "-o",
                         os.path.join(scratch, "k.cubin"), path], timeout)
    if done.timed_out:
        return None
    if done.signal is not None:
        return done.signal
    if done.returncode:
        return done.stderr.strip() or f"exit status {done.returncode}"
    return None


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


# ---- a shell command --------------------------------------------------------------------


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
            return run_tool(line, self.timeout, capture=False).returncode == 0


def command(cmd: str, *, as_bytecode: bool = False, timeout: float | None = None) -> Command:
    """The shell command `cmd` exits 0 on the candidate: ``{}`` in it is replaced by the
    path of a file holding the candidate (text, ``.mlir``; bytecode 13.5, ``.tileirbc``,
    with `as_bytecode`), appended when `cmd` has no ``{}``.  A run past `timeout` seconds
    counts as not interesting (it is killed, with whatever it started)."""
    return Command(cmd, as_bytecode, timeout)


# ---- tileir's own engines ---------------------------------------------------------------

#: The most ops one tile block of a reference launch may run (a candidate whose reference
#: run goes past it, a loop whose exit was reduced away, proves nothing).
MAX_OPS = 100_000
#: How long the launches of one candidate may take (the batched engine has no op bound)
#: before it counts as not interesting.
LAUNCH_TIMEOUT_S = 10.0
#: The 1-D grids and the schedules `compare_engines` launches on.
GRIDS = (1, 3)
SCHEDULES = ("sequential", "reverse")
#: The reference launch: one tile block at a time, checks on, ops bounded.
REFERENCE: dict[str, Any] = {"engine": "blocks", "max_ops": MAX_OPS}


@dataclass(frozen=True)
class EngineSetting:
    """A launch compared with the reference: what the reference is called beside it, and
    the launch's options.  `clean_only`: compared only where the reference ran without an
    error (with checks off, undefined behaviour goes unreported)."""

    reference_name: str
    options: tuple[tuple[str, Any], ...]
    clean_only: bool = False


#: The settings compared with the reference, under each schedule of `SCHEDULES`.
ENGINE_SETTINGS: dict[str, EngineSetting] = {
    "batched": EngineSetting("blocks", (("engine", "auto"),)),
    "checks off": EngineSetting("checks on", (("engine", "blocks"), ("checks", False),
                                              ("max_ops", MAX_OPS)), clean_only=True),
    "checks off (batched)": EngineSetting("checks on", (("engine", "auto"),
                                                        ("checks", False)), clean_only=True),
}
if importlib.util.find_spec("llvmlite") is not None:     # (the jit extra)
    ENGINE_SETTINGS["compiled"] = EngineSetting("blocks", (("engine", "compiled"),))
    ENGINE_SETTINGS["checks off (compiled)"] = EngineSetting(
        "checks on", (("engine", "compiled"), ("checks", False)), clean_only=True)
#: What the error of a reference run past `MAX_OPS` says.
_PAST_LIMIT = f"past the limit of {MAX_OPS} operations"

Outcome = tuple[str, Any]


def launch_outcome(module: Module, entry: str | None, grid: int, arguments: list[Any],
                   **options: Any) -> Outcome:
    """What one launch on a copy of `arguments` did: ("error", the first line of its
    `TileIRError`), ("crash", what tileir raised: an internal error or any other
    exception, a bug of tileir's own), or ("ran", (the bytes of each argument: a buffer's,
    a multicast argument's replicas', None for a scalar), what the kernel printed))."""
    from ..interp import launch
    buffers = copy.deepcopy(arguments)
    printed = io.StringIO()
    try:
        launch(module, entry, grid, buffers, stdout=printed, workers=1, **options)
    except TileIRError as error:
        message = error.diagnostics[0].message if error.diagnostics else str(error)
        kind = "crash" if message.startswith("internal error:") else "error"
        return kind, str(error).splitlines()[0]
    except Exception as error:          # (a bug outside the launch's own guard)
        return "crash", f"{type(error).__name__}: {error}".splitlines()[0]
    return "ran", ([_bytes_of(b) for b in buffers], printed.getvalue())


def _bytes_of(argument: Any) -> Any:
    """The bytes of a buffer, the list of a multicast argument's, None for a scalar."""
    if isinstance(argument, np.ndarray):
        return argument.tobytes()
    if isinstance(argument, (list, tuple)):
        return [_bytes_of(a) for a in argument]
    return None


def _describe(outcome: Outcome) -> str:
    kind, what = outcome
    return "ran" if kind == "ran" else f"{kind}: {what}"


def _difference(a: Outcome, b: Outcome, a_name: str, b_name: str) -> str:
    """The first line of a disagreement between two launches' outcomes."""
    if a[0] == b[0] == "ran":
        (a_bytes, _), (b_bytes, _) = a[1], b[1]
        where = next((i for i, (x, y) in enumerate(zip(a_bytes, b_bytes)) if x != y), None)
        if where is not None:
            return f"{a_name} and {b_name} wrote different bytes to argument {where}"
        return f"{a_name} and {b_name} printed different text"
    return f"{a_name} {_describe(a)}; {b_name} {_describe(b)}"


@dataclass(frozen=True)
class Disagreement:
    """One disagreement of tileir's engines: the setting of `ENGINE_SETTINGS` (or
    ``crash``: the reference itself failed with a bug of tileir's), where, and its
    first line."""

    setting: str
    entry: str | None
    grid: int
    schedule: str
    line: str

    def __str__(self) -> str:
        entry = f"entry '{self.entry}', " if self.entry is not None else ""
        return f"{self.line} ({entry}grid {self.grid}, schedule {self.schedule})"


def compare_engines(module: Module, entry: str | None, arguments: list[Any],
                    grids: Sequence[int] = GRIDS) -> Iterator[Disagreement]:
    """Each disagreement of tileir's engines on entry `entry` of `module` (None: its only
    one) launched with `arguments` over each grid of `grids` and each schedule of
    `SCHEDULES`: the reference (`REFERENCE`) against each setting of `ENGINE_SETTINGS`
    under the same schedule, made as they are found.  A reference that fails with a bug
    of tileir's own is one (setting ``crash``); one that runs past `MAX_OPS` ops proves
    nothing and is left out."""
    for grid in grids:
        for schedule in SCHEDULES:
            reference = launch_outcome(module, entry, grid, arguments, schedule=schedule,
                                       **REFERENCE)
            if reference[0] == "crash":
                yield Disagreement("crash", entry, grid, schedule,
                                   f"blocks {_describe(reference)}")
                continue
            if reference[0] == "error" and _PAST_LIMIT in reference[1]:
                continue
            for name, setting in ENGINE_SETTINGS.items():
                if setting.clean_only and reference[0] != "ran":
                    continue
                other = launch_outcome(module, entry, grid, arguments, schedule=schedule,
                                       **dict(setting.options))
                if other != reference:
                    yield Disagreement(name, entry, grid, schedule, _difference(
                        reference, other, setting.reference_name, name))


def made_up_launches(module: Module) -> list[tuple[str, list[Any]]]:
    """Each entry of `module` with made-up arguments: the inputs the pass checks use
    (`tileir.transforms.check.default_launches`: a buffer of random values per pointer,
    two replicas for a multicast one, 64 or 1.5 per scalar).  Entries with other
    parameters are left out."""
    from ..transforms.check import default_launches
    return [(launch.entry, launch.make_args()) for launch in default_launches(module)]


def engine_disagreements(module: Module, grids: Sequence[int] = GRIDS
                         ) -> list[Disagreement]:
    """Every disagreement of tileir's engines on `module`, each entry launched on made-up
    inputs (`made_up_launches`)."""
    return [found for entry, arguments in made_up_launches(module)
            for found in compare_engines(module, entry, arguments, grids)]


class TimedOut(BaseException):
    """The launches took too long (a BaseException: a launch passes it on as it is,
    after restoring memory, where an Exception would become an internal error)."""


class time_limit:
    """Raise `TimedOut` in the main thread after `seconds` (SIGALRM; no limit in other
    threads or where the platform has no interval timer)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> "time_limit":
        if threading.current_thread() is threading.main_thread() and \
                hasattr(signals, "setitimer"):
            self.previous = signals.signal(signals.SIGALRM, self._fire)
            signals.setitimer(signals.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    @staticmethod
    def _fire(*_: Any) -> None:
        """The alarm: the time is up."""
        raise TimedOut

    def __exit__(self, *_: Any) -> None:
        if self.armed:
            signals.setitimer(signals.ITIMER_REAL, 0)
            signals.signal(signals.SIGALRM, self.previous)


@dataclass(frozen=True)
class EnginesDiffer:
    """Some engine setting (of `settings`; None: any) gives another outcome than the
    reference engine (`compare_engines`, on made-up inputs)."""

    grids: tuple[int, ...] = GRIDS
    timeout: float = LAUNCH_TIMEOUT_S
    settings: frozenset[str] | None = None

    def __call__(self, module: Module) -> bool:
        try:
            with time_limit(self.timeout):
                return any(self.settings is None or d.setting in self.settings
                           for d in engine_disagreements(module, self.grids))
        except TimedOut:
            return False


def engines_differ(grids: Sequence[int] = GRIDS, *, timeout: float = LAUNCH_TIMEOUT_S,
                   settings: Sequence[str] | None = None) -> EnginesDiffer:
    """tileir's engines disagree on the candidate launched on made-up inputs
    (`engine_disagreements`) over each grid of `grids`: an error's first line, the bytes
    of a buffer, or what the kernel printed differs, or the reference fails with a bug of
    tileir's own.  With `settings` (names of `ENGINE_SETTINGS`, or ``crash``), only a
    disagreement of one of those counts (the ones the input shows, to keep a reduction on
    the same bug).  Launches past `timeout` seconds count as not interesting."""
    return EnginesDiffer(tuple(grids), timeout,
                         None if settings is None else frozenset(settings))


# ---- tileir's own diagnostics -----------------------------------------------------------


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
            with time_limit(self.timeout):
                for entry, arguments in made_up_launches(module):
                    kind, what = launch_outcome(module, entry, 1, arguments, **REFERENCE)
                    if kind != "ran" and self.text in what:
                        return True
        except TimedOut:
            pass
        return False


def diagnostic(text: str, *, warn_hints: bool = False, launch: bool = False,
               timeout: float = LAUNCH_TIMEOUT_S) -> Diagnostic:
    """A diagnostic of tileir's verifier on the candidate (spec warnings on, as ``tileir
    check`` has them; unknown optimization hints too with `warn_hints`) contains `text`;
    with `launch`, also the error of launching each entry on one tile block with made-up
    inputs (`made_up_launches`)."""
    return Diagnostic(text, warn_hints, launch, timeout)


__all__ = ["BYTECODE_VERSION", "Command", "Diagnostic", "Disagreement", "ENGINE_SETTINGS",
           "EngineSetting", "EnginesDiffer", "GRIDS", "MAX_OPS", "Predicate", "SCHEDULES",
           "TileirasCrash", "TileirasError", "TimedOut", "ToolMissing", "ToolRun", "command",
           "compare_engines", "diagnostic", "engine_disagreements", "engines_differ",
           "find_tool", "launch_outcome", "made_up_launches", "run_tool", "signal_name",
           "tileiras_crash", "tileiras_error", "tileiras_outcome", "time_limit"]
