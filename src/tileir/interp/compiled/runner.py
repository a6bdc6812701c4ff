"""Running a compiled kernel on a launch's memory, or saying why it did not run.

The launcher calls `run_compiled` with the arguments already mapped.  The compiled code
checks every access against the buffer its view's base pointer points into, whatever
`checks` says; when a check fails it stops, the written buffers are put back from the
journal (the launch's own, or one kept here, as the batched engine does), and the
launcher reruns the kernel on the reference engine, whose diagnostic (or, with checks
off, whose result) is the launch's."""

from __future__ import annotations

import math
import signal
import sys
import threading
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence, TextIO

import numpy as np

from ...types import TileType
from ..semantics.registry import short_name
from ..memory import Journal, Memory
from .cache import compiled
from .lower_control import HOSTED
from .pointer_races import conflict, new_log, pointer_reason
from .races import between_blocks, index_checkable, index_conflict, race_reason
from .settle import POLLING, Settler

#: The work (`work`: element operations) from which ``engine="auto"`` compiles a kernel
#: not compiled yet: compiling takes 0.05 to 0.5 s, the batched engine runs some 10**8
#: element operations a second.
AUTO_WORK = 1 << 25
#: The work (`work`) from which a launch's blocks run on several threads.
THREAD_WORK = 1 << 22
#: Tile blocks per call of the compiled code (Ctrl-C is seen between calls).
BLOCKS_PER_CALL = 1 << 12
#: Why a launch whose compiled check failed runs on the other engines (its `Run.reason`).
CHECK_FAILED = ("a check failed in the compiled code (undefined behaviour, or a case it "
                "leaves to the reference); run on the other engines")
#: How long the launching thread waits on its span threads before it looks again: a
#: signal (Ctrl-C) arriving just as it starts an unbounded wait would not be handled
#: until the wait ends (CPython runs handlers between bytecodes, not inside a wait that
#: began after the signal came), so no wait is unbounded.
WAKE_SECONDS = 0.1
#: The most tile blocks a compiled launch runs (block numbers are i64 in the code).
MAX_BLOCKS = 1 << 62
#: The most entries (tile index components times tile blocks) of an index log
#: (`races.index_conflict`): 256 MiB.
MAX_LOG = 1 << 25


@dataclass(frozen=True)
class Outcome:
    """What `run_compiled` did: ran the kernel, or not and why (`undefined`: a check
    failed in the compiled code, memory is as it was, and the reference must rerun it)."""

    ran: bool
    reason: str | None = None
    undefined: bool = False
    #: ``engine="auto"`` did not try it (too little work): not worth a `Run.reason`
    untried: bool = False
    #: the order of tile blocks decides the result (checks off, blocks meeting on one
    #: tile): only the reference engine, in the schedule's order, gives it
    ordered: bool = False


def _word(value: Any, kind: str) -> int:
    """The i64 word (as a signed Python int) carrying a scalar argument of LLVM type
    `kind`."""
    array = np.asarray(value)
    if kind in ("float", "double"):
        bits = int(array.view(np.uint32 if kind == "float" else np.uint64))
    else:
        bits = int(array)
    bits &= (1 << 64) - 1
    return bits - (1 << 64) if bits >> 63 else bits


def work(plan: Any, grid: tuple[int, int, int]) -> int:
    """A launch's work in element operations, roughly: the elements of every tile an op
    of the kernel makes (a loop's body counted once), times the tile blocks."""
    per_block = _per_block.get(plan)
    if per_block is None:
        per_block = sum(r.type.num_elements for op in plan.kernel.walk()
                        for r in op.results if isinstance(r.type, TileType))
        _per_block[plan] = per_block
    return per_block * math.prod(grid)


_per_block: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()


def _settling(plan: Any, lowered: Any) -> tuple[list[Any], Settler]:
    """The launching kernel's ops the code calls the settle function for (found by their
    walk positions: compiled code is shared by kernels of one text, but each settles
    with its own ops), and the settle function of this plan's launches (one per plan)."""
    found = _settlers.get(plan)
    if found is None:
        walk = list(plan.kernel.walk())
        ops = [walk[i] for i in lowered.settles]
        found = _settlers[plan] = (ops, Settler(ops))
    return found


_settlers: "weakref.WeakKeyDictionary[Any, tuple[list[Any], Settler]]" = \
    weakref.WeakKeyDictionary()


def _spans(found: Any, name: str, args: np.ndarray, blocks: int, threads: int,
           scratch_bytes: int, stop: threading.Event | None = None) -> int:
    """Run tile blocks 0 .. blocks - 1 of `found`'s function `name` (``run_span``, or
    ``check_span``: `precheck.py`), `BLOCKS_PER_CALL` per call of the compiled code,
    in `threads` equal spans side by side (the code holds no interpreter lock; each
    thread its own scratch); 0, or 1 when a check failed (the other threads stop at their
    next call, or a loop's next poll: `stop`).  Ctrl-C is seen between calls: the threads
    stop, then it is raised.  Given `stop` (a kernel with a ``loop``, which may never
    end), even one span runs on a thread of its own: Ctrl-C then reaches this thread,
    waiting, which sets `stop`, which the loop's next poll reads."""
    polled = stop is not None
    stop = threading.Event() if stop is None else stop
    function = getattr(found, name)

    def span(first: int, end: int) -> int:
        scratch = np.zeros(scratch_bytes, np.uint8)
        for begin in range(first, end, BLOCKS_PER_CALL):
            if stop.is_set():
                return 0
            if function(begin, min(begin + BLOCKS_PER_CALL, end), args.ctypes.data,
                        scratch.ctypes.data):
                stop.set()
                return 1
        return 0
    if threads == 1 and not polled:
        return span(0, blocks)
    cuts = [blocks * k // threads for k in range(threads + 1)]
    # Every thread waits at a gate opened once all are started and known here: a Ctrl-C
    # while one starts sets `stop` first, so a thread this function never learnt of (its
    # start interrupted) runs no block, and every other one is waited for.  (Without the
    # gate such a thread ran on after the launch had failed, writing memory put back and
    # calling the freed settle function: a crash.)
    # (Each thread says it is done through an event of its own: an interrupted
    # Thread.join can take a running thread for stopped.)
    gate = threading.Event()
    statuses: list[int] = []

    def gated(first: int, end: int, done: threading.Event) -> None:
        try:
            gate.wait()
            if not stop.is_set():
                statuses.append(span(first, end))
        finally:
            done.set()
    started: list[threading.Event] = []
    pending: BaseException | None = None
    try:
        for first, end in zip(cuts, cuts[1:]):
            done = threading.Event()
            threading.Thread(target=gated, args=(first, end, done), daemon=True).start()
            started.append(done)
    except BaseException as error:
        pending = error
        stop.set()
    gate.set()
    for done in started:
        while not done.is_set():
            try:        # (a bounded wait: a signal that lands just before a wait with no
                done.wait(WAKE_SECONDS)     # bound blocks, its handler never run)
            except BaseException as error:  # (Ctrl-C: the spans stop at their next call
                pending = pending or error  # or poll, and are waited for)
                stop.set()
    if pending is not None:
        raise pending
    return max(statuses, default=0)


def in_place_mask(owners: dict[int, Any], written: dict[int, Any]) -> int:
    """The argument block's in-place word: bit p set where pointer parameter p (p < 63)
    points into a buffer the launch writes nothing of (through any parameter: aliases are
    one buffer), so the compiled code may read its tiles where they lie
    (`lower._Lowering._in_place`): nothing changes them while they are used."""
    return sum(1 << p for p, buffer in owners.items() if p < 63 and id(buffer) not in written)


_unjournaled = 0


def unjournaled() -> int:
    """How many launches in this process ran without a journal after their precheck
    (`precheck.py`), so tests and campaigns can tell which path a launch took."""
    return _unjournaled


def _only_written(found: Any, lowered: Any, owners: dict[int, Any],
                  written: dict[int, Any]) -> bool:
    """Whether the launch may run unjournaled after its precheck (`precheck.py`): the
    kernel has one, and no buffer it writes is read by it (through any parameter: an
    interrupted launch then finishes, and a buffer it both reads and writes would be
    left updated)."""
    if found.check_span is None or not written:
        return False
    read = {id(owners[a.param]) for a in (*lowered.accesses, *lowered.pointers)
            if not a.write or a.atomic}
    return not read & written.keys()


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Ctrl-C (SIGINT) held while the block runs, then handled as it would have been: a
    run that writes without a journal always finishes (it has no loop: it takes as long
    as its blocks).  Only the main thread receives SIGINT's KeyboardInterrupt; elsewhere
    (or where no handler can be set) the block just runs."""
    held: list[Any] = []
    try:
        if signal.getsignal(signal.SIGINT) is None:     # (a handler Python cannot put back)
            raise ValueError("SIGINT's handler was not set from Python")
        previous = signal.signal(signal.SIGINT, lambda number, frame: held.append(frame))
    except (ValueError, TypeError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            try:
                if callable(previous):
                    previous(signal.SIGINT, held[0])
                elif previous == signal.SIG_DFL:
                    signal.raise_signal(signal.SIGINT)
            except BaseException as error:
                error.add_note("tileir: this interrupt came while a launch ran without a "
                               "journal; it was taken when the run had ended, so the "
                               "buffers the launch writes hold its whole result")
                raise


def run_compiled(memory: Memory, plan: Any, values: Sequence[Any],
                 grid: tuple[int, int, int], checks: bool, max_ops: int | None,
                 schedule: str, launch_journal: Journal | None,
                 automatic: bool = False, workers: int = 1,
                 stdout: TextIO | None = None) -> Outcome:
    """Run the kernel of `plan` compiled; `Outcome` says whether it ran and, if not, why.
    `automatic` (``engine="auto"``): only when the launch's `work` reaches `AUTO_WORK`
    (whether or not the kernel is compiled already: which engine runs depends on the
    launch alone, never on what ran before).  Spans of blocks run
    on up to `workers` threads where no two blocks can touch one written element (the
    race proof of `races.py`) and the work is worth it (`THREAD_WORK`).  What the kernel
    prints goes to `stdout` (default `sys.stdout`) once the whole run succeeded; a kernel
    that prints runs on one thread, its blocks in grid order (the sequential schedule's)."""
    if max_ops is not None:
        return Outcome(False, "max_ops bounds tile blocks run one at a time")
    if automatic and work(plan, grid) < AUTO_WORK:
        return Outcome(False, f"about {work(plan, grid)} element operations, too little "
                       "work to pay for compiling (engine='compiled' compiles it anyway)",
                       untried=True)
    try:
        found = compiled(plan)
    except ImportError:
        return Outcome(False, "llvmlite is not installed (pip install 'tileir[jit]')")
    except Exception as error:  # (llvmlite broken here: its library fails to load...)
        return Outcome(False, f"llvmlite cannot be used here: {type(error).__name__}: "
                       f"{error}".splitlines()[0])
    if isinstance(found, str):
        return Outcome(False, found)
    lowered = found.lowered
    blocks = math.prod(grid)
    if blocks >= MAX_BLOCKS:
        return Outcome(False, f"{blocks} tile blocks is more than the compiled code counts")
    ops, shared = _settling(plan, lowered)
    hosted = {short_name(op) for op in ops} & HOSTED
    prints = "print_tko" in hosted
    if prints and schedule != "sequential" and blocks > 1:
        return Outcome(False, f"the kernel prints, in the order of tile blocks: the compiled "
                       f"engine runs them in grid order, not the {schedule} schedule's")
    # (a kernel that prints or loops: a settle function of this launch's own, holding
    # its output and its stop flag)
    settler = Settler(ops) if hosted else shared
    words = [*grid, settler.address]
    owners: dict[int, Any] = {}
    for i, (kind, value) in enumerate(zip(lowered.params, values)):
        if kind != "pointer":
            words.append(_word(value, kind))
            continue
        address = int(np.asarray(value, np.int64))
        buffer = memory.owner(address)
        if buffer is None:
            return Outcome(False, f"parameter {i} points into no live buffer")
        owners[i] = buffer
        words += [address, buffer.base, buffer.base + buffer.size, _word(buffer.host, "i64")]
    reason = race_reason(lowered.accesses, owners, grid, checks, schedule,
                         plan.orders_blocks)
    index_log = None
    if reason is not None:      # (else: the index log, checked after the run)
        if index_checkable(lowered.accesses, owners, grid) is not None or \
                lowered.index_columns * blocks > MAX_LOG:
            return Outcome(False, reason)
        index_log = np.full((lowered.index_columns, blocks), -1, np.int64)
    reason = pointer_reason(lowered.pointers, lowered.accesses, owners, grid, checks,
                            schedule)
    if reason is not None:
        return Outcome(False, reason)
    log = new_log(lowered.pointers, grid, checks, schedule)     # (pointer_races.py)
    words.append(0 if log is None else log.ctypes.data)
    words.append(0 if index_log is None else index_log.ctypes.data)
    written = {id(owners[a.param]): owners[a.param]
               for a in (*lowered.accesses, *lowered.pointers) if a.write}
    words.append(in_place_mask(owners, written))
    args = np.array(words, np.int64)
    threads = 1
    if workers > 1 and blocks > 1 and not prints and work(plan, grid) >= THREAD_WORK and \
            not lowered.pointers and index_log is None and \
            not any(a.atomic for a in lowered.accesses) and \
            race_reason(lowered.accesses, owners, grid, True, "") is None:
        threads = min(workers, blocks)
    scratch = max(lowered.scratch_bytes, 64)
    if _only_written(found, lowered, owners, written) and index_log is None and log is None:
        # (the checks first, over every block: where they pass, the run cannot fail, and
        # the buffers it writes, none of which it reads, need no journal)
        if _spans(found, "check_span", args, blocks, threads, scratch):
            return Outcome(False, CHECK_FAILED, undefined=True)
        global _unjournaled
        with deferred_interrupts():
            if _spans(found, "run_span", args, blocks, threads, scratch):
                raise RuntimeError("the compiled code failed a check its precheck passed")
        _unjournaled += 1
        return Outcome(True)
    journal = launch_journal
    if journal is None:
        journal = Journal(memory)
        memory.before_write.append(journal.touch)
    try:
        for buffer in written.values():
            memory.writing(buffer.data)     # (the journal copies it before the run)
        status = _spans(found, "run_span", args, blocks, threads, scratch,
                        settler.stop if hosted & POLLING else None)
    finally:
        if journal is not launch_journal:
            memory.before_write.remove(journal.touch)
    if status:
        journal.restore()
        interrupted, settler.interrupted = settler.interrupted, None
        if interrupted is not None:
            raise interrupted
        return Outcome(False, CHECK_FAILED, undefined=True)
    if (log is not None and conflict(log, lowered.pointers, owners, grid, checks, schedule,
                                     plan.orders_blocks)) or \
            (index_log is not None and index_conflict(
                lowered.accesses, owners, index_log, checks,
                between_blocks(grid, checks, schedule, plan.orders_blocks))):
        journal.restore()
        return Outcome(False, "the access logs show tile blocks, or unordered ops of one, "
                       "meeting on one element, one writing (a race, or with checks off an "
                       "order the schedule decides); run on the other engines",
                       undefined=True, ordered=not checks)
    if prints:      # (a stream that cannot take it: the reference reruns and says so)
        try:
            (sys.stdout if stdout is None else stdout).write(settler.output.getvalue())
        except BaseException as error:
            journal.restore()
            if not isinstance(error, Exception):
                raise               # (Ctrl-C: memory as it was, as a failed launch leaves it)
            return Outcome(False, "the printed text could not be written "
                           f"({type(error).__name__}); run on the other engines",
                           undefined=True)
    return Outcome(True)


__all__ = ["AUTO_WORK", "Outcome", "deferred_interrupts", "in_place_mask", "run_compiled",
           "unjournaled", "work"]
