"""The driver: delta debugging over the reductions of `tileir.reducer.reductions`.

`reduce(module, predicate)` keeps the smallest module found for which `predicate` still
holds.  Each reduction lists its candidates (keys) for the current module; they are tried
in order, and the first one that is smaller (`measure`: ops, then text length, tile
elements, unusual element types and constants), valid (it parses back from its text,
`module.verify()` accepts it and ``tileir check`` finds no kind of warning the input
lacks: a loop's step made 0 is no reduction) and still interesting becomes the current
module, the sweep
going on from the same key.  Rounds over every reduction repeat until one changes
nothing: a fixed point.  With ``jobs`` > 1 a process pool tests the next ``jobs``
candidates at once and the first interesting one in key order is taken, so the result is
the same for every ``jobs``.

The result is tested once more at the end (a test can say yes once and no the next time:
a timeout on a busy machine, a flaky tool): the newest module the test holds on again is
returned, so a reduction never hands back a kernel that does not show the failure.
"""

from __future__ import annotations

import bisect
import hashlib
import multiprocessing
import re
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..api import parse
from ..diagnostics import Severity
from ..ir import Module
from ..verify import Options, verify
from .predicates import Predicate
from .reductions import REDUCTIONS, Key, clone, count_ops, measure

Size = tuple[int, int, int, int]
#: A reduction's task: the current module's text, the reduction, the key, the size to
#: beat and the warnings allowed (`warning_kinds` of the input).
Task = tuple[str, str, Key, Size, frozenset[str]]

#: What testing one candidate gave.
SKIP, INVALID, NO, YES, INTERRUPTED, FAILED = "skip", "invalid", "no", "yes", "interrupted", \
    "failed"


class ReduceError(Exception):
    """The reduction cannot start (the test does not hold on the input) or a test failed
    with an error; the message is one line."""


@dataclass(frozen=True)
class Progress:
    """Where a reduction stands, as given to the ``progress`` callback."""

    ops_before: int
    ops: int
    tested: int
    seconds: float
    reduction: str


@dataclass
class ReduceResult:
    """What `reduce` found: the smallest interesting module and how it got there."""

    module: Module
    ops_before: int
    ops_after: int
    seconds: float
    #: Candidates the predicate was asked about (the same for every ``jobs``).
    tested: int
    #: Stopped by Ctrl-C (or by a predicate raising KeyboardInterrupt) before a fixed
    #: point: `module` is the smallest found so far.
    interrupted: bool = False
    #: Stopped at the deadline before a fixed point.
    timed_out: bool = False
    #: Whether the test held on `module` once more at the end (False only when Ctrl-C
    #: stopped that last test: `module` then held once, when it was accepted).
    confirmed: bool = True


@dataclass(frozen=True)
class _Outcome:
    """One candidate tested: its verdict, and its text and size when it was tested."""

    verdict: str
    text: str = ""
    size: Size = (0, 0, 0, 0)


#: The module each process last parsed (the current one, shared by every candidate).
_parsed: dict[str, Module] = {}
#: The predicate of a pool's worker process.
_worker_predicate: Predicate | None = None


def _base(text: str) -> Module:
    """The current module parsed from `text` (kept for the next candidate)."""
    module = _parsed.get(text)
    if module is None:
        _parsed.clear()
        module = _parsed[text] = parse(text, verify=False)
    return module


def warning_kinds(module: Module) -> frozenset[str]:
    """The warnings ``tileir check`` gives `module`, numbers masked (``extract index # may
    be out of bounds``...)."""
    return frozenset(re.sub(r"-?\d+", "#", d.message)
                     for d in verify(module, Options(spec_warnings=True))
                     if d.severity is Severity.WARNING)


def evaluate(predicate: Predicate, text: str, name: str, key: Key, limit: Size,
             allowed: frozenset[str] = frozenset()) -> _Outcome:
    """Make candidate `key` of reduction `name` from the module of `text` and test it:
    skipped when it does not apply or is not smaller than `limit`, invalid when it does
    not parse back, verify, or has a kind of warning not `allowed`; else the predicate's
    verdict."""
    try:
        work = clone(_base(text))
        if not REDUCTIONS[name].apply(work, key):
            return _Outcome(SKIP)
        candidate_text = work.format()
        size = measure(work, candidate_text)
    except Exception:           # (a reduction's surgery left something unprintable)
        return _Outcome(SKIP)
    if size >= limit:
        return _Outcome(SKIP)
    try:
        candidate = parse(candidate_text)
        if warning_kinds(candidate) - allowed:
            return _Outcome(INVALID)
    except Exception:           # (a TileIRError; or a parser failure on odd text)
        return _Outcome(INVALID)
    return _Outcome(YES if _test(predicate, candidate) else NO, candidate_text, size)


def _test(predicate: Predicate, module: Module) -> bool:
    """`predicate(module)`; an error it raises is a `ReduceError` (Ctrl-C passes)."""
    try:
        return bool(predicate(module))
    except Exception as exc:
        raise ReduceError(f"the test failed with an error: {_one_line(exc)}") from exc


def _one_line(exc: BaseException) -> str:
    """`exc` as one line: its type and its message's first line."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _init_worker(predicate: Predicate) -> None:
    """A pool worker: Ctrl-C is the parent's to handle; the pool's SIGTERM (`_Pool.close`
    stopping a test still running) unwinds the test, so that its tool is killed and its
    scratch directory removed; remember the predicate."""
    global _worker_predicate
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_worker)
    _worker_predicate = predicate


def _exit_worker(*_: Any) -> None:
    """SIGTERM in a pool worker: leave through the test's cleanup."""
    raise SystemExit(1)


def _work(task: Task) -> _Outcome:
    """`evaluate` in a worker; a KeyboardInterrupt or an error of the predicate comes back
    as a verdict (a pool worker must not die of it)."""
    assert _worker_predicate is not None
    try:
        return evaluate(_worker_predicate, *task)
    except KeyboardInterrupt:
        return _Outcome(INTERRUPTED)
    except ReduceError as exc:
        return _Outcome(FAILED, str(exc))


class _Serial:
    """Tests candidates one at a time in this process."""

    def __init__(self, predicate: Predicate) -> None:
        self.predicate = predicate

    def results(self, tasks: list[Task]):
        """Each task's outcome, in order, made as it is asked for."""
        for task in tasks:
            yield evaluate(self.predicate, *task)

    def close(self) -> None:
        pass


#: Seconds stopping workers may take before they are signalled again (`_Pool.close`).
STOP_GRACE_S = 5.0


class _Pool:
    """Tests candidates on `jobs` worker processes, `jobs` at a time ahead."""

    def __init__(self, predicate: Predicate, jobs: int) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.jobs = jobs
        self.pool = context.Pool(jobs, initializer=_init_worker, initargs=(predicate,))

    def results(self, tasks: list[Task]):
        """Each task's outcome, in order; the next `jobs` tasks run while one is read."""
        pending: list[Any] = []
        position = 0
        while position < len(tasks) or pending:
            while position < len(tasks) and len(pending) < self.jobs:
                pending.append(self.pool.apply_async(_work, (tasks[position],)))
                position += 1
            outcome = pending.pop(0).get()
            if outcome.verdict == INTERRUPTED:
                raise KeyboardInterrupt
            if outcome.verdict == FAILED:
                raise ReduceError(outcome.text)
            yield outcome

    def close(self) -> None:
        """Stop the workers.  The pool's SIGTERM lets a running test clean up
        (`_exit_worker`), but one that lands just before a worker blocks on the pool's
        queue is only seen when another signal wakes it: so SIGTERM again after
        `STOP_GRACE_S`, and SIGKILL after that."""
        stopper = threading.Thread(target=self.pool.terminate, daemon=True)
        stopper.start()
        for last in (False, True):
            stopper.join(STOP_GRACE_S)
            if not stopper.is_alive():
                break
            for worker in list(self.pool._pool):    # (the pool's processes)
                if worker.exitcode is None:
                    (worker.kill if last else worker.terminate)()
        stopper.join()
        self.pool.join()


def _digest(text: str) -> bytes:
    """A short stand-in for a module's text."""
    return hashlib.sha1(text.encode()).digest()


def reduce(module: Module | str, predicate: Predicate, *, jobs: int = 1,
           progress: Callable[[Progress], None] | None = None,
           deadline: float | None = None) -> ReduceResult:
    """The smallest module found, by the reductions of `REDUCTIONS` repeated to a fixed
    point, for which `predicate(module)` still holds (see the module docstring).

    `module` is a `Module` or Tile IR text; `predicate` gets a fresh, verified module and
    returns True for "still interesting".  `jobs` processes test candidates at once (the
    result is the same for any number); `progress` is called after each candidate;
    `deadline` (seconds) stops the reduction, keeping the smallest so far, as Ctrl-C does.
    Raises `VerificationError` (or `ParseError`) for an invalid module, and `ReduceError`
    when `predicate` does not hold on it.
    """
    start = time.monotonic()
    text = module if isinstance(module, str) else module.format()
    current = parse(text)
    if not _test(predicate, current):
        raise ReduceError("the test does not hold on the original input")
    text = current.format()
    allowed = warning_kinds(current)
    current = parse(text, verify=False)
    size = measure(current, text)
    ops_before = size[0]
    tested = 0
    interrupted = timed_out = False
    #: The text of every module the test held on, the input first.
    accepted: list[str] = [text]
    runner: _Serial | _Pool = _Serial(predicate) if jobs <= 1 else _Pool(predicate, jobs)
    swept: set[tuple[str, bytes]] = set()

    def report(name: str) -> None:
        """Tell `progress` where the reduction stands."""
        if progress is not None:
            progress(Progress(ops_before, size[0], tested, time.monotonic() - start, name))

    try:
        changed = True
        while changed:
            changed = False
            for name, reduction in REDUCTIONS.items():
                if (name, _digest(text)) in swept:
                    continue
                resume: Key | None = None
                moved = False
                while True:
                    keys = reduction.keys(current)
                    first = 0 if resume is None else bisect.bisect_left(keys, resume)
                    tasks = [(text, name, key, size, allowed) for key in keys[first:]]
                    taken = None
                    for key, outcome in zip(keys[first:], runner.results(tasks)):
                        if deadline is not None and time.monotonic() - start > deadline:
                            timed_out = True
                            raise _Stop
                        if outcome.verdict in (YES, NO):
                            tested += 1
                            report(name)
                        if outcome.verdict == YES:
                            taken = key
                            text, size = outcome.text, outcome.size
                            accepted.append(text)
                            current = parse(text, verify=False)
                            break
                    if taken is None:
                        break
                    resume, moved = taken, True
                if moved:
                    changed = True
                else:
                    swept.add((name, _digest(text)))
    except _Stop:
        pass
    except KeyboardInterrupt:
        interrupted = True
    finally:
        runner.close()
    result, confirmed = _confirmed(accepted, predicate)
    return ReduceResult(result, ops_before, count_ops(result), time.monotonic() - start,
                        tested, interrupted or not confirmed, timed_out, confirmed)


def _confirmed(accepted: list[str], predicate: Predicate) -> tuple[Module, bool]:
    """The newest module of `accepted` (texts the test held on, the input first) on which
    the test holds once more, and True; `ReduceError` when it holds on none of them (a
    test that gives different answers on the same kernel).  Ctrl-C stops the search: the
    newest module then, and False."""
    for text in reversed(accepted):
        try:
            if _test(predicate, parse(text)):
                return parse(text), True
        except KeyboardInterrupt:
            return parse(text), False
    raise ReduceError("the test no longer holds on the input or on any smaller kernel it "
                      "held on: it gives different answers on the same kernel (a timeout "
                      "on a busy machine?)")


class _Stop(Exception):
    """The deadline passed."""


__all__ = ["Predicate", "Progress", "ReduceError", "ReduceResult", "evaluate", "reduce"]
