"""Per-launch overhead: the time `tileir.interp.launch` takes for tiny kernels of an
already-parsed module, against the time their work takes when a launch's fixed costs are
spread over many tile blocks (and, given ``--baseline-src``, an older tileir's per-launch
time, measured in a subprocess in the same run).

Run: ``python bench/launch_bench.py [--launches N] [--repeat R] [--clock cpu|wall]
[--engine auto|blocks|batched] [--baseline-src PATH]``.

Rows (each with checks on and off):

* empty: an entry that only returns, grid 1 (what a launch costs with no work at all);
* vector_add 64 / 1: src/tileir/examples/kernels/vector_add.mlir on 64 f32, one block;
* vector_add 1024 / 16: the same on 1024 f32, 16 blocks;
* scale2d 32x32 / 2x2: a 2-D kernel (c = 2a + b on a 32x32 f32 matrix, 16x16 tiles,
  blocks indexed by x and y), grid (2, 2).

Columns, in microseconds: ``launch``, the time of one launch (the best, over ``--repeat``
rounds, of the mean of ``--launches`` launches); ``work``, the same kernel's time per tile
block in one launch of a grid ``--scale`` times larger (same tile, larger arrays: the
launch's fixed costs are spread over that many blocks), times this launch's blocks; and
``overhead`` = launch - work, what each launch costs beyond its work; ``compiled`` and
``c.overhead``, the same for calls of the kernel made once by ``tileir.compile`` (issue
17's target: at most 300 us of overhead for vector_add 1024 / 16).  ``--clock cpu``
(the default) counts this process's CPU time (every thread's), which a busy machine
disturbs less than the wall clock.  Outputs are checked against NumPy after every timed
round (a wrong result stops the benchmark).

A baseline tree is any checkout's ``src`` directory, e.g. ``git worktree add /tmp/base
<commit>`` then ``--baseline-src /tmp/base/src``; its column is its ``launch`` time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
VECTOR_ADD = HERE.parent / "src" / "tileir" / "examples" / "kernels" / "vector_add.mlir"

EMPTY = """cuda_tile.module @empty {
  entry @empty() {
    return
  }
}
"""

SCALE2D = """cuda_tile.module @scale2d {
  entry @scale2d(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %va = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %vb = make_tensor_view %b, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %vc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %va : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %vb : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %pc = make_partition_view %vc : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %x, %tx = load_view_tko weak %pa[%bx, %by] token = %t : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
    %y, %ty = load_view_tko weak %pb[%bx, %by] token = %t : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
    %two = constant <f32: 2.0> : tile<16x16xf32>
    %x2 = mulf %x, %two rounding<nearest_even> : tile<16x16xf32>
    %s = addf %x2, %y rounding<nearest_even> : tile<16x16xf32>
    %d = store_view_tko weak %s, %pc[%bx, %by] token = %t : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


@dataclass
class Case:
    """One row: its kernel text, entry, and how to make a launch's arguments and check its
    output for a grid scaled by `scale` along x (the work column)."""

    name: str
    text: str
    entry: str
    grid: tuple[int, ...]
    make: Callable[[int], tuple[list[Any], Callable[[], bool]]]


def vector_add(n: int) -> Callable[[int], tuple[list[Any], Callable[[], bool]]]:
    """Arguments of vector_add on `n` * scale elements, and the check of its output."""
    def make(scale: int) -> tuple[list[Any], Callable[[], bool]]:
        size = n * scale
        a = np.arange(size, dtype=np.float32)
        b = np.full(size, 0.5, np.float32)
        c = np.zeros(size, np.float32)
        return [a, b, c, size], lambda: bool((c == a + b).all())
    return make


def scale2d(m: int, n: int) -> Callable[[int], tuple[list[Any], Callable[[], bool]]]:
    """Arguments of scale2d on an (`m` * scale) x `n` matrix, and the check."""
    def make(scale: int) -> tuple[list[Any], Callable[[], bool]]:
        rows = m * scale
        a = np.arange(rows * n, dtype=np.float32).reshape(rows, n) / 7
        b = np.ones((rows, n), np.float32)
        c = np.zeros((rows, n), np.float32)
        return [a, b, c, rows, n], lambda: bool((c == 2 * a + b).all())
    return make


def cases() -> list[Case]:
    """The rows of the table."""
    return [
        Case("empty", EMPTY, "empty", (1,), lambda scale: ([], lambda: True)),
        Case("vector_add 64 / 1", VECTOR_ADD.read_text(), "vector_add", (1,),
             vector_add(64)),
        Case("vector_add 1024 / 16", VECTOR_ADD.read_text(), "vector_add", (16,),
             vector_add(1024)),
        Case("scale2d 32x32 / 2x2", SCALE2D, "scale2d", (2, 2), scale2d(32, 32)),
    ]


def per_launch(case: Case, scale: int, checks: bool, engine: str, launches: int,
               repeat: int, clock: str, compiled: bool = False) -> float | None:
    """Seconds per launch of `case` on a grid `scale` times larger along x (best round):
    through ``tileir.interp.launch`` on a parsed module, or, with `compiled`, calls of a
    ``tileir.compile``d kernel (None on a tree without it); uses only tileir's public
    API, so it runs on older trees too."""
    import tileir
    from tileir.interp import launch
    module = tileir.parse(case.text, case.name.split()[0] + ".mlir")
    args, correct = case.make(scale)
    grid = (case.grid[0] * scale,) + case.grid[1:]
    tick = time.process_time if clock == "cpu" else time.perf_counter
    if compiled:
        if not hasattr(tileir, "compile"):
            return None
        kernel = tileir.compile(module, case.entry)

        def once() -> None:
            """One call of the compiled kernel."""
            kernel(grid, *args, checks=checks, engine=engine)
    else:
        def once() -> None:
            """One launch of the parsed module."""
            launch(module, case.entry, grid, args, checks=checks, engine=engine)
    once()   # warm up
    best = float("inf")
    for _ in range(repeat):
        start = tick()
        for _ in range(launches):
            once()
        best = min(best, (tick() - start) / launches)
        if not correct():
            raise SystemExit(f"{case.name}: wrong output")
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=256,
                    help="how many times larger the grid of the work column is")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--baseline-src", default=None)
    ap.add_argument("--no-pin", action="store_true",
                    help="do not pin the benchmark to one core (it is pinned by default: "
                    "the batched engine's threads would blur the per-launch times)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    cli = ap.parse_args()
    pinned = not cli.no_pin and hasattr(os, "sched_setaffinity")
    if pinned:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if cli.child is not None:
        name, checks = json.loads(cli.child)
        case = next(c for c in cases() if c.name == name)
        print(per_launch(case, 1, checks, cli.engine, cli.launches, cli.repeat, cli.clock))
        return
    print(f"engine {cli.engine}, {cli.clock} clock, best of {cli.repeat} rounds of "
          f"{cli.launches} launches; work: per block at {cli.scale}x the grid; "
          f"microseconds per launch{'; pinned to one core' if pinned else ''}")
    header = (f"{'kernel / grid':<22}{'checks':<8}{'launch':>9}{'work':>9}{'overhead':>10}"
              f"{'compiled':>10}{'c.overhead':>12}")
    if cli.baseline_src:
        header += f"{'baseline':>10}{'ratio':>7}"
    print(header)
    for case in cases():
        blocks = int(np.prod(case.grid))
        for checks in (True, False):
            launch_s = per_launch(case, 1, checks, cli.engine, cli.launches, cli.repeat,
                                  cli.clock)
            big = per_launch(case, cli.scale, checks, cli.engine,
                             max(1, cli.launches // 20), cli.repeat, cli.clock)
            work = big / (cli.scale * blocks) * blocks if case.name != "empty" else 0.0
            called = per_launch(case, 1, checks, cli.engine, cli.launches, cli.repeat,
                                cli.clock, compiled=True)
            row = (f"{case.name:<22}{'on' if checks else 'off':<8}{launch_s * 1e6:>9.0f}"
                   f"{work * 1e6:>9.0f}{(launch_s - work) * 1e6:>10.0f}"
                   + (f"{called * 1e6:>10.0f}{(called - work) * 1e6:>12.0f}"
                      if called is not None else f"{'-':>10}{'-':>12}"))
            if cli.baseline_src:
                env = dict(os.environ, PYTHONPATH=cli.baseline_src)
                command = [sys.executable, __file__, "--child", json.dumps([case.name, checks]),
                           "--engine", cli.engine, "--launches", str(cli.launches),
                           "--repeat", str(cli.repeat), "--clock", cli.clock]
                done = subprocess.run(command, env=env, capture_output=True, text=True,
                                      check=True)
                old = float(done.stdout.strip().splitlines()[-1])
                row += f"{old * 1e6:>10.0f}{old / launch_s:>7.1f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
