"""Every registered pass and every -O pipeline, checked by execution on generated kernels.

    python tools/pass_campaign.py --kernels N [--seed S] [--passes a,b] [--levels 0,1,2,3]
        [--no-fuse-fma-variants]

For each of N kernels (``tileir.generate.generate_with_arguments(seed)``, seeds S .. S+N-1,
each launched on one tile block and on three with the same arguments) and each subject
below, the subject is applied to a fresh copy of the kernel with the semantics check on
(`tileir.transforms.check`: every launch run before and after each pass, every buffer and
everything printed compared bit for bit, or within fuse-fma's few ulps), the verifier after
each pass, and the module printed after it (with its debug info) must parse and verify
again.

Subjects (whatever `tileir.transforms.load_passes()` holds when it runs, so a pass is
covered as soon as it is registered):

* each pass that can run alone on a module, nested as its registry anchor says: an
  "any" pass at the top, a ``cuda_tile.module`` pass under ``cuda_tile.module(...)``, a
  "function" pass under ``cuda_tile.module(cuda_tile.entry(...))`` (row ``name``) and
  under ``cuda_tile.module(cuda_tile.testing$func(...))`` (row ``name@func``: the kernel's
  entries are made testing functions for the pass, made entries again after it, and the
  result launched against the original); a pass anchored on any other op is listed as
  not run;
* each -O level of ``tileir.transforms.optimize.pipeline_for(level, fuse_fma)`` (once
  optimize.py exists), without and with fuse-fma (rows ``O2``, ``O2+fuse-fma``).

The table counts, per subject: kernels, kernels it changed (the text, with locations,
differs after it: a subject that changes nothing proves little), launches compared (for a
pipeline, one per launch and pass step), launches unchecked (undefined behaviour before
the pass: they prove nothing), and failures; then each failure's seed, subject and
message.  Exit status 1 if any.  A failure reruns alone with ``--kernels 1 --seed SEED
--passes NAME`` (``--passes '' --levels 3`` for -O3).

Importable (tests/transforms/test_passes_by_execution.py uses it): `subjects`,
`check_subject`, `check_seed`, `generated`, `Outcome`, `main`.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import re
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence


import tileir
from tileir.diagnostics import TileIRError
from tileir.ir import Module
from tileir.transforms import Checks, load_passes, parse_pipeline, run_pipeline
from tileir.transforms.check import NUMERIC_PASSES, Launch, Report, difference, semantics_checks
from tileir.transforms.check import _outcome as _run      # (the check's own launch)
from tileir.transforms.pipeline import Nest

#: Seconds one subject may take on one kernel before it counts as a failure (a pass or
#: the pattern driver looping); 0 turns the alarm off.
TIMEOUT_S = 120
LEVELS = (0, 1, 2, 3)
ENTRY = re.compile(r"(?m)^(\s*)entry @")
FUNCTION = re.compile(r"(?m)^(\s*)testing\$func @")


@dataclass(frozen=True)
class Subject:
    """A pass or pipeline to check: its row name, the pipeline text run on a
    ``cuda_tile.module``, and whether the kernel's entries become testing functions for
    the run (`as_functions`: checked by launching the result made an entry again)."""

    name: str
    pipeline: str
    kind: str                       # "pass" or "level"
    as_functions: bool = False

    @property
    def ulps(self) -> int:
        """The float tolerance of the as-functions comparison (fuse-fma's own)."""
        return NUMERIC_PASSES.get(self.name.split("@")[0], 0)


def nested(pass_name: str, anchor: str) -> list[tuple[str, str, bool]]:
    """(row name, pipeline, as functions) of each way to run pass `pass_name`, anchored on
    `anchor`, on a ``cuda_tile.module``; empty when it cannot run alone on one."""
    if anchor == "any":
        return [(pass_name, pass_name, False)]
    if anchor == "cuda_tile.module":
        return [(pass_name, f"cuda_tile.module({pass_name})", False)]
    ways = []
    if anchor in ("function", "cuda_tile.entry"):
        ways.append((pass_name, f"cuda_tile.module(cuda_tile.entry({pass_name}))", False))
    if anchor in ("function", "cuda_tile.testing$func"):
        ways.append((f"{pass_name}@func",
                     f"cuda_tile.module(cuda_tile.testing$func({pass_name}))", True))
    return ways


def optimize() -> Any | None:
    """``tileir.transforms.optimize`` once it exists (None before)."""
    try:
        return importlib.import_module("tileir.transforms.optimize")
    except ModuleNotFoundError as missing:
        if missing.name == "tileir.transforms.optimize":
            return None
        raise


def level_pipeline(level: int, fuse_fma: bool) -> str | None:
    """The text of -O`level`'s pipeline, as run on a ``cuda_tile.module`` (a
    ``builtin.module(...)`` wrapper taken off); None before optimize.py exists."""
    found = optimize()
    if found is None or not hasattr(found, "pipeline_for"):
        return None
    text = found.pipeline_for(level, fuse_fma)
    text = text if isinstance(text, str) else str(text)
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1].strip()
    return text


def subjects(passes: Iterable[str] | None = None, levels: Iterable[int] | None = LEVELS,
             fuse_variants: bool = True) -> list[Subject]:
    """The subjects registered now: `passes` (None: every registered pass that can run
    alone on a module), then the -O `levels` (without, then with fuse-fma)."""
    registered = load_passes()
    wanted = sorted(registered) if passes is None else list(passes)
    found: list[Subject] = []
    for name in wanted:
        if name not in registered:
            raise SystemExit(f"no pass named '{name}' is registered "
                             f"(registered: {', '.join(sorted(registered))})")
        for row, pipeline, as_functions in nested(name, registered[name].anchor):
            found.append(Subject(row, pipeline, "pass", as_functions))
    for level in levels or ():
        for fuse in (False, True) if fuse_variants else (False,):
            pipeline = level_pipeline(level, fuse)
            if pipeline is not None and not unregistered(pipeline):
                found.append(Subject(level_name(level, fuse), pipeline, "level"))
    return found


def level_name(level: int, fuse_fma: bool) -> str:
    """A level's row name: ``O2``, ``O2+fuse-fma``."""
    return f"O{level}" + ("+fuse-fma" if fuse_fma else "")


def unregistered(pipeline: str) -> list[str]:
    """The passes `pipeline` names that are not registered (yet)."""
    registered = load_passes()
    names = re.findall(r"([A-Za-z_][\w.$-]*)\s*(?:\{[^}]*\})?\s*(?=[,)]|$)", pipeline)
    return [n for n in dict.fromkeys(names) if n not in registered]


def pass_names(pipeline: str) -> list[str]:
    """The name of each pass step of `pipeline`'s text, in order (empty: it runs
    nothing)."""
    def names(steps: Any) -> list[str]:
        return [n for s in steps for n in (names(s.steps) if isinstance(s, Nest)
                                           else [s.pass_def.name])]
    return names(parse_pipeline(pipeline))


def pass_steps(pipeline: str) -> int:
    """How many pass steps `pipeline`'s text holds (0: it runs nothing)."""
    return len(pass_names(pipeline))


def not_run(levels: Iterable[int] = LEVELS, fuse_variants: bool = True) -> list[str]:
    """What `subjects` leaves out and why: registered passes anchored on an op they cannot
    reach from a module, and levels waiting for passes not registered yet."""
    lines = [f"not run: '{name}' is anchored on '{p.anchor}' (it cannot run alone on a "
             "module)" for name, p in sorted(load_passes().items())
             if not nested(name, p.anchor)]
    for level in levels:
        for fuse in (False, True) if fuse_variants else (False,):
            pipeline = level_pipeline(level, fuse)
            if pipeline is None:
                return lines + ["not run: -O levels (tileir.transforms.optimize."
                                "pipeline_for does not exist yet)"]
            missing = unregistered(pipeline)
            if missing:
                lines.append(f"not run: {level_name(level, fuse)} (waits for "
                             f"{', '.join(missing)}: not registered yet)")
    return lines


# ---- checking one kernel --------------------------------------------------------------


@dataclass
class Outcome:
    """What checking one subject on one module saw: launches compared and unchecked (by
    pass name), the launch checks expected (launches x pass steps), and the failure."""

    compared: dict[str, int] = field(default_factory=dict)
    unchecked: dict[str, int] = field(default_factory=dict)
    expected: int = 0
    steps: int = 0
    changed: bool = False
    failure: str | None = None

    @property
    def total_compared(self) -> int:
        return sum(self.compared.values())

    @property
    def total_unchecked(self) -> int:
        return sum(self.unchecked.values())

    @property
    def accounted(self) -> bool:
        """Whether every launch of every pass step was compared or counted unchecked."""
        return self.total_compared + self.total_unchecked == self.expected


def describe(exc: BaseException) -> str:
    """One failure's message: a `TileIRError`'s diagnostics, or any other exception with
    where in the source it was raised (a bug in a pass, not a diagnostic)."""
    if isinstance(exc, TileIRError):
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno}, in {frames[-1].name})" \
        if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def check_subject(subject: Subject, module: Module, launches: Sequence[Launch],
                  text: str | None = None) -> Outcome:
    """Apply `subject` to `module` (in place) with the semantics check on `launches`, then
    require its text (printed with its debug info: every location too) to parse and
    verify again.  `text`: the module's text before, when the caller has it."""
    text = module.format(debuginfo=True) if text is None else text
    if subject.as_functions:
        return _check_as_functions(subject, module, launches, text)
    outcome = Outcome()
    report = Report()
    checks = semantics_checks(module, Checks(), launches=list(launches), report=report)
    checked_after = checks.after_pass

    def after(pass_def: Any, target: Any) -> None:
        outcome.steps += 1
        outcome.expected += len(launches)
        checked_after(pass_def, target)
    checks.after_pass = after
    try:
        run_pipeline(module, subject.pipeline, checks)
    except Exception as exc:  # noqa: BLE001  (any exception is the pass's failure)
        outcome.failure = describe(exc)
    outcome.compared, outcome.unchecked = dict(report.compared), dict(report.unchecked)
    if outcome.failure is not None:
        return outcome
    try:
        printed = module.format(debuginfo=True)
    except Exception as exc:  # noqa: BLE001
        outcome.failure = f"the module does not print after the pass: {describe(exc)}"
        return outcome
    outcome.changed = printed != text
    if outcome.steps == 0 and outcome.changed:
        outcome.failure = "the module changed, but no pass ran"
    else:
        _parse_back(printed, outcome)
    return outcome


def _parse_back(printed: str, outcome: Outcome) -> Module | None:
    """`printed` (a module's text after the pass) parsed and verified again, or None with
    the failure recorded in `outcome`."""
    try:
        return tileir.parse(printed, "<after the pass>")
    except Exception as exc:  # noqa: BLE001
        outcome.failure = ("the module printed after the pass does not parse back: "
                           f"{describe(exc)}")
        return None


def _check_as_functions(subject: Subject, module: Module, launches: Sequence[Launch],
                        text: str) -> Outcome:
    """Run `subject` on the kernel's entries turned into testing functions, turn them back
    into entries and compare each launch with the original module's."""
    outcome = Outcome()
    flipped = ENTRY.sub(r"\1testing$func @", text)
    try:
        functions = tileir.parse(flipped, "<as testing functions>")
        checks = Checks()

        def count(pass_def: Any, target: Any) -> None:
            outcome.steps += 1
        checks.after_pass = count
        run_pipeline(functions, subject.pipeline, checks)
        printed = functions.format(debuginfo=True)
    except Exception as exc:  # noqa: BLE001
        outcome.failure = describe(exc)
        return outcome
    outcome.changed = printed != flipped
    if outcome.steps == 0:
        outcome.failure = "the pass never ran on a testing$func"
        return outcome
    again = _parse_back(FUNCTION.sub(r"\1entry @", printed), outcome)
    if again is None:
        return outcome
    name = subject.name
    outcome.expected = len(launches)
    for launch in launches:
        kind, before = _run(module, launch)
        if kind != "ok":
            outcome.unchecked[name] = outcome.unchecked.get(name, 0) + 1
            continue
        kind, after = _run(again, launch)
        where = f"kernel '{launch.entry or module.entries[0].symbol}' (grid {launch.grid})"
        if kind != "ok":
            outcome.failure = (f"pass '{name}' changed what the kernel computes: {where} ran "
                               f"before the pass but fails after it: {after}")
            return outcome
        found = difference(before, after, subject.ulps)
        if found:
            outcome.failure = f"pass '{name}' changed what the kernel computes: {where}: " \
                              f"{found}"
            return outcome
        outcome.compared[name] = outcome.compared.get(name, 0) + 1
    return outcome


# ---- generated kernels ----------------------------------------------------------------


def generated(seed: int) -> tuple[Module, list[Launch]]:
    """Generated kernel `seed` and its launches: the generator's arguments on one tile
    block and on three."""
    from tileir.generate import generate_with_arguments
    module, args = generate_with_arguments(seed)

    def make() -> list[Any]:
        return copy.deepcopy(args)
    return module, [Launch(None, (1,), make), Launch(None, (3,), make)]


#: Generated kernels' text, by seed (printing is a good part of a check's time).
_TEXTS: dict[int, str] = {}


class _Timeout(BaseException):
    """The alarm of `check_seed` (a BaseException: a launch passes it on as it is, where
    an Exception would become an "internal error" diagnostic, counted as undefined
    behaviour, and the pass's failure handler would swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def check_seed(subject: Subject, seed: int, timeout: int = TIMEOUT_S) -> Outcome:
    """`subject` on generated kernel `seed`, bounded by `timeout` seconds (SIGALRM, where
    the platform has it)."""
    use_alarm = timeout > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(timeout)
    try:
        module, launches = generated(seed)
        text = _TEXTS.get(seed)
        if text is None:
            text = _TEXTS[seed] = module.format(debuginfo=True)
            while len(_TEXTS) > 4096:
                del _TEXTS[next(iter(_TEXTS))]
        return check_subject(subject, module, launches, text)
    except _Timeout:
        return Outcome(failure=f"timed out after {timeout} s")
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


@dataclass
class Row:
    """One subject's totals."""

    subject: Subject
    kernels: int = 0
    changed: int = 0
    compared: int = 0
    unchecked: int = 0
    failures: int = 0


def campaign(chosen: Sequence[Subject], kernels: int, seed: int, progress: bool = True
             ) -> tuple[list[Row], list[tuple[int, str, str]]]:
    """Every subject on kernels `seed` .. `seed + kernels - 1`: the rows and the failures
    (seed, subject, message)."""
    rows = [Row(s) for s in chosen]
    failures: list[tuple[int, str, str]] = []
    start = time.perf_counter()
    total = kernels * len(chosen)
    done = 0
    for k in range(seed, seed + kernels):
        for row in rows:
            outcome = check_seed(row.subject, k)
            row.kernels += 1
            row.changed += outcome.changed
            row.compared += outcome.total_compared
            row.unchecked += outcome.total_unchecked
            if outcome.failure is None and not outcome.accounted:
                outcome.failure = (f"{outcome.total_compared} launches compared and "
                                   f"{outcome.total_unchecked} unchecked, of "
                                   f"{outcome.expected} expected")
            if outcome.failure is not None:
                row.failures += 1
                failures.append((k, row.subject.name, outcome.failure))
            done += 1
        if progress:
            elapsed = time.perf_counter() - start
            print(f"\rpass-campaign: kernel {k - seed + 1}/{kernels} (seed {k}), "
                  f"{done}/{total} checks, {len(failures)} failures, {elapsed:.0f} s",
                  end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return rows, failures


def table(rows: Sequence[Row]) -> list[str]:
    """The campaign's table, one line per subject."""
    width = max([len("pass or pipeline")] + [len(r.subject.name) for r in rows])
    lines = [f"{'pass or pipeline':<{width}}  {'kernels':>8}  {'changed':>8}  "
             f"{'launches compared':>17}  {'unchecked (UB before)':>21}  {'failures':>8}"]
    for r in rows:
        lines.append(f"{r.subject.name:<{width}}  {r.kernels:>8}  {r.changed:>8}  "
                     f"{r.compared:>17}  {r.unchecked:>21}  {r.failures:>8}")
    return lines


def _at_least(low: int) -> Any:
    """An argparse type: an integer of at least `low`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {low}, "
                                             f"got {text!r}")
        return value
    return parse


def _levels(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated -O levels of `LEVELS`."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not all(x in {str(level) for level in LEVELS} for x in names):
        raise argparse.ArgumentTypeError(f"expected levels among "
                                         f"{','.join(map(str, LEVELS))}, got {text!r}")
    return tuple(int(x) for x in names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=_at_least(0), default=200,
                        help="generated kernels per pass and level (default 200)")
    parser.add_argument("--seed", type=_at_least(0), default=1,
                        help="the first kernel's seed")
    parser.add_argument("--passes", default=None,
                        help="comma-separated pass names (default: every registered pass; "
                             "'' for none)")
    parser.add_argument("--levels", type=_levels, default=LEVELS,
                        help="comma-separated -O levels (default 0,1,2,3; '' for none)")
    parser.add_argument("--no-fuse-fma-variants", action="store_true",
                        help="run each level without fuse-fma only")
    parser.add_argument("--quiet", action="store_true", help="no progress line (there is "
                        "one only when stderr is a terminal)")
    cli = parser.parse_args(argv)
    passes = None if cli.passes is None else [p for p in cli.passes.split(",") if p]
    levels = list(cli.levels)
    chosen = subjects(passes, levels, not cli.no_fuse_fma_variants)
    for line in not_run(levels, not cli.no_fuse_fma_variants):
        print(line)
    if not chosen:
        print("nothing to check: no pass registered")
        return 0
    print(f"pass-campaign: {len(chosen)} subjects x {cli.kernels} kernels "
          f"(seeds {cli.seed}..{cli.seed + cli.kernels - 1}, grids 1 and 3)", flush=True)
    start = time.perf_counter()
    rows, failures = campaign(chosen, cli.kernels, cli.seed,
                              not cli.quiet and sys.stderr.isatty())
    print("\n".join(table(rows)))
    print(f"{time.perf_counter() - start:.0f} s")
    for seed, name, message in failures:
        print(f"FAILURE seed {seed}, {name}: {message}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
