"""A long fuzz campaign against the bytecode reader: mutated valid files must read as a
module or fail with a `TileIRError` diagnostic, never crash, hang or exhaust memory (and a
module read must print, and write back to bytes that read back to the same text).

Run: ``python tests/bytecode/fuzz_campaign.py [N] [seed]`` (N = 100,000 inputs by default).
The mutators and the property are those of `test_fuzz.py` (see `mutators.py`), driven here by
plain `random` with a fixed seed, so a campaign can be repeated exactly.  It prints the counts
of each outcome, the crashes (each distinct one saved as a file with its traceback), and the
slowest input.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mutators as M  # noqa: E402


class Hang(Exception):
    """An input took longer than the per-input time limit."""


@dataclass
class Crash:
    """One distinct crash: where it was raised, how often, the first input that did it."""

    signature: str
    summary: str
    count: int = 0
    path: Path | None = None


@dataclass
class Tally:
    """What a campaign saw."""

    inputs: int = 0
    modules: int = 0
    errors: collections.Counter = field(default_factory=collections.Counter)
    shapes: collections.Counter = field(default_factory=collections.Counter)
    mutators: collections.Counter = field(default_factory=collections.Counter)
    crashes: dict[str, Crash] = field(default_factory=dict)
    slowest: tuple[float, str] = (0.0, "")


def _on_alarm(signum, frame) -> None:
    raise Hang("input took longer than the time limit")


def signature(exc: BaseException) -> tuple[str, str]:
    """A crash's identity (exception type and the innermost tileir frame) and a summary
    (the exception and the last frames of its traceback)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/tileir/" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    tail = "".join(traceback.format_list(frames[-4:]))
    key = f"{type(exc).__name__} at {where}"
    if isinstance(exc, AssertionError):     # a property broken: tell the problems apart
        key += ": " + re.sub(r"\d+", "N", str(exc))[:100]
    return key, f"{tail}{type(exc).__name__}: {exc}"[:2000]


def record_crash(tally: Tally, exc: BaseException, data: bytes, out: Path) -> None:
    """Count a crash; save the first input of each distinct one with its traceback."""
    key, summary = signature(exc)
    crash = tally.crashes.get(key)
    if crash is None:
        crash = tally.crashes[key] = Crash(key, summary)
        crash.path = out / f"crash-{len(tally.crashes):03d}.tileirbc"
        crash.path.write_bytes(data)
        crash.path.with_suffix(".txt").write_text(f"{key}\n{data.hex()}\n\n{summary}\n")
    crash.count += 1


def run_one(tally: Tally, data: bytes, label: str, out: Path, limit: int,
            verify: bool = True) -> None:
    """Read one input under the time limit and record its outcome."""
    start = time.perf_counter()
    signal.alarm(limit)
    try:
        outcome, err = M.read_outcome(data, verify)
    except (Exception, RecursionError, MemoryError) as exc:   # a crash: anything else
        signal.alarm(0)
        record_crash(tally, exc, data, out)
        return
    finally:
        signal.alarm(0)
        elapsed = time.perf_counter() - start
        if elapsed > tally.slowest[0]:
            tally.slowest = (elapsed, f"{label} ({len(data)} bytes)")
    if err is None:
        tally.modules += 1
    else:
        tally.errors[outcome] += 1
        tally.shapes[M.shape(err)] += 1


def campaign(n: int, seed: int, out: Path, limit: int, verify: bool = True,
             progress: int = 10_000) -> Tally:
    """`n` mutated inputs (1 to 3 mutations of a random seed file each)."""
    rng = random.Random(seed)
    seeds = M.all_seeds()
    corpus = [s.data for s in seeds]
    tally = Tally()
    started = time.perf_counter()
    for i in range(n):
        chosen = rng.choice(seeds)
        data, names = M.mutate(rng, chosen.data, corpus, rng.randint(1, 3))
        tally.mutators.update(names)
        run_one(tally, data, f"#{i} {chosen.name} {'+'.join(names)}", out, limit, verify)
        tally.inputs += 1
        if progress and tally.inputs % progress == 0:
            rate = tally.inputs / (time.perf_counter() - started)
            print(f"  {tally.inputs:>9,} inputs, {len(tally.crashes)} distinct crashes, "
                  f"{rate:,.0f} inputs/s", flush=True)
    return tally


def report(tally: Tally, seconds: float, seeds: int, out: Path) -> None:
    """Print the campaign's counts."""
    crashes = sum(c.count for c in tally.crashes.values())
    print(f"\nseed files: {seeds}")
    print(f"inputs: {tally.inputs:,} in {seconds:,.1f} s ({tally.inputs / seconds:,.0f}/s)")
    print(f"modules read: {tally.modules:,}")
    print(f"TileIRErrors: {sum(tally.errors.values()):,}")
    for word, count in tally.errors.most_common():
        print(f"  {count:>9,}  {word}")
    print("most frequent error messages (numbers as N):")
    for text, count in tally.shapes.most_common(25):
        print(f"  {count:>9,}  {text}")
    print("mutations applied: " + ", ".join(f"{k} {v:,}" for k, v in
                                            sorted(tally.mutators.items())))
    print(f"slowest input: {tally.slowest[0] * 1000:.1f} ms, {tally.slowest[1]}")
    print(f"failures (crashes, hangs, bad diagnostics, round-trip problems): {crashes:,} "
          f"({len(tally.crashes)} distinct)")
    for crash in tally.crashes.values():
        print(f"\n  {crash.count:,} x {crash.signature}; first input: {crash.path}")
        print("    " + crash.summary.replace("\n", "\n    "))
    if not tally.crashes:
        print(f"(nothing saved in {out})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100_000, help="number of inputs")
    ap.add_argument("seed", nargs="?", type=int, default=0, help="random seed")
    ap.add_argument("--out", type=Path, help="where crashing inputs go (a temp dir)")
    ap.add_argument("--time-limit", type=int, default=10, help="seconds per input")
    ap.add_argument("--no-verify", action="store_true",
                    help="read without verifying, then print and write the unverified module")
    ap.add_argument("--memory-gb", type=float, default=4.0,
                    help="address-space limit, so unbounded memory shows as MemoryError")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="tileir-bcfuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    limit = int(args.memory_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    signal.signal(signal.SIGALRM, _on_alarm)
    warnings.simplefilter("error", RuntimeWarning)   # as the test suite configures
    print(f"fuzzing the bytecode reader: {args.n:,} inputs, seed {args.seed}, "
          f"{'un' if args.no_verify else ''}verified, crashes to {out}")
    start = time.perf_counter()
    tally = campaign(args.n, args.seed, out, args.time_limit, not args.no_verify)
    report(tally, time.perf_counter() - start, len(M.all_seeds()), out)
    return 1 if tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
