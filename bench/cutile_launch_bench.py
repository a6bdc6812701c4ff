"""Per-launch overhead of the cuTile drop-in: `tileir.cutile.launch` of a cached kernel
(exported on its first launch) against the interpreter's launch of the same exported
module and against the kernel's work, all measured in this run, pinned to one core.

Run: ``python bench/cutile_launch_bench.py [--launches N] [--repeat R] [--scale S]``
(needs the ``oracles`` extra: cuTile Python).

Rows: cuTile kernels of tests' size: vector add (64 f32 on one block; 1024 f32 on 16
blocks), a 2-D add (32x32 f32 in 16x16 tiles, grid 2x2), with torch CPU tensors when torch
is installed and NumPy arrays otherwise.  Columns, in microseconds (best over ``--repeat``
rounds of the mean of ``--launches`` launches, process CPU time):

* ``cutile``: one ``tileir.cutile.launch`` (arguments read, export found in the cache,
  interpreter launch);
* ``interp``: ``tileir.interp.launch`` of the exported module with the same flat arguments;
* ``work``: the kernel's time per tile block in one launch of a ``--scale`` times larger
  grid, times this launch's blocks (the launch's fixed costs spread over many blocks);
* ``drop-in`` = cutile - interp, what the drop-in adds; ``overhead`` = cutile - work, what
  a launch costs beyond its work (issue 14's target: at most 500).

Every launch's output is checked against NumPy after each timed round.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

try:
    import cuda.tile as ct
except ImportError:   # the oracles extra; main() says so
    ct = None


def _kernels() -> tuple[Any, Any]:
    """The two cuTile kernels (made here: cuTile is an optional dependency)."""
    @ct.kernel
    def vadd(a, b, c, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(c, (i,), ct.load(a, (i,), (tile,)) + ct.load(b, (i,), (tile,)))

    @ct.kernel
    def add2d(a, b, c, tile: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        ct.store(c, (i, j), ct.load(a, (i, j), (tile, tile)) + ct.load(b, (i, j), (tile, tile)))
    return vadd, add2d


@dataclass
class Case:
    """A row: the kernel, a function making its arguments for a scale, its grid."""

    name: str
    kernel: Any
    shape: Callable[[int], tuple[int, ...]]
    tile: int
    grid: Callable[[int], tuple[int, ...]]


def _arrays(shape: tuple[int, ...], torch: Any) -> tuple[Any, Any, Any]:
    """Inputs a, b and an output c of `shape` (torch tensors when torch is given)."""
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    b = np.full(shape, 0.5, np.float32)
    c = np.zeros(shape, np.float32)
    if torch is not None:
        return torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
    return a, b, c


def _mean_time(run: Callable[[], None], launches: int, repeat: int) -> float:
    """Best over `repeat` rounds of the mean process CPU time of `launches` calls (µs)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(launches):
            run()
        best = min(best, (time.process_time() - start) / launches)
    return best * 1e6


def measure(case: Case, torch: Any, launches: int, repeat: int, scale: int
            ) -> dict[str, float]:
    """The row's columns (µs)."""
    import tileir.cutile as tc
    from tileir.interp import launch as run
    a, b, c = _arrays(case.shape(1), torch)
    args = (a, b, c, case.tile)
    tc.launch(None, case.grid(1), case.kernel, args)          # export, cache, warm up
    specs, flat = tc.read_arguments(case.kernel, args)
    exported = tc.export_specs(case.kernel, specs, gpu_code="sm_100")
    want = np.asarray(a) + np.asarray(b)

    def check() -> None:
        if not np.array_equal(np.asarray(c), want):
            sys.exit(f"{case.name}: wrong result")
    cutile = _mean_time(lambda: tc.launch(None, case.grid(1), case.kernel, args),
                        launches, repeat)
    check()
    interp = _mean_time(lambda: run(exported.module, exported.symbol, case.grid(1), flat),
                        launches, repeat)
    check()
    big = _arrays(case.shape(scale), torch)
    big_specs, big_flat = tc.read_arguments(case.kernel, (*big, case.tile))
    big_module = tc.export_specs(case.kernel, big_specs, gpu_code="sm_100")
    blocks = int(np.prod(case.grid(scale)))
    per_block = _mean_time(lambda: run(big_module.module, big_module.symbol, case.grid(scale),
                                       big_flat), max(1, launches // 20), repeat) / blocks
    if not np.array_equal(np.asarray(big[2]), np.asarray(big[0]) + np.asarray(big[1])):
        sys.exit(f"{case.name}: wrong result at scale {scale}")
    work = per_block * int(np.prod(case.grid(1)))
    return {"cutile": cutile, "interp": interp, "work": work,
            "drop-in": cutile - interp, "overhead": cutile - work}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=64,
                    help="grid multiple whose per-block time is the work (default 64)")
    args = ap.parse_args()
    if ct is None:
        sys.exit("cuTile Python is not installed: pip install -e '.[oracles]'")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    try:
        torch = __import__("torch")
    except ImportError:
        torch = None
    vadd, add2d = _kernels()
    cases = [
        Case("vector add 64 / 1", vadd, lambda s: (64 * s,), 64, lambda s: (s,)),
        Case("vector add 1024 / 16", vadd, lambda s: (1024 * s,), 64, lambda s: (16 * s,)),
        Case("add 32x32 / 2x2", add2d, lambda s: (32 * s, 32), 16, lambda s: (2 * s, 2)),
    ]
    kind = "torch CPU tensors" if torch is not None else "NumPy arrays"
    print(f"# tileir.cutile.launch per launch, µs ({kind}, one core, process CPU time, "
          f"best of {args.repeat} x {args.launches})")
    columns = ["cutile", "interp", "work", "drop-in", "overhead"]
    print("| kernel / grid | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for case in cases:
        row = measure(case, torch, args.launches, args.repeat, args.scale)
        print(f"| {case.name} | " + " | ".join(f"{row[c]:.0f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
