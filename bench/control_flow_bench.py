"""Control flow on scalars: time per loop iteration of two kernels on both engines, with
the scalar paths on and off in the same run (and, given ``--baseline-src``, an older
tileir's time on the same kernels, measured in a subprocess in the same run).

Run: ``python bench/control_flow_bench.py [--iterations N] [--repeat R] [--clock cpu|wall]
[--engines blocks,batched] [--baseline-src PATH]``.

Kernels (bench/kernels/loops/*.mlir), one tile block each:

* for_loop: a ``for`` of N iterations doing muli, addi, andi, cmpi and select on rank-0
  i32 tiles and an ``if`` that yields (8 ops an iteration, terminators included);
* loop_break: Collatz step counts of every start below m, a ``loop`` that leaves through a
  ``break`` inside an ``if`` and an ``if`` that yields, inside a ``for`` (m is chosen so
  that the loop runs about N iterations in all; 9 or 10 ops an iteration).

Columns: microseconds per iteration with the scalar paths (`tileir.interp.plan.
SCALAR_PATHS`, the default), without them (every op through its semantics function: the
general path), their ratio, and with ``--baseline-src`` the older tree's time and its
ratio to the scalar paths'.  Each time is the best of ``--repeat`` launches of an
already-parsed module; ``--clock cpu`` (the default) counts this process's CPU time, which
a busy machine disturbs less than the wall clock.  Every launch's output is checked
against the values computed here in Python (a wrong result stops the benchmark).

A baseline tree is any checkout's ``src`` directory, e.g. of the commit before this
benchmark: ``git worktree add /tmp/base <commit>`` then ``--baseline-src /tmp/base/src``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels" / "loops"


def expected_for_loop(n: int) -> list[int]:
    """for_loop's outputs, computed with Python ints: [kept sum read signed, count]."""
    total, count = 0, 0
    for i in range(n):
        if (i & 7) < 3:
            total += 3 * i
            count += 1
    total &= 0xFFFFFFFF
    return [total - (1 << 32) if total >> 31 else total, count]


def collatz_steps(k: int) -> int:
    """The steps from k down to 1."""
    steps = 0
    while k != 1:
        k = k // 2 if k % 2 == 0 else 3 * k + 1
        steps += 1
    return steps


def loop_break_size(iterations: int) -> tuple[int, int]:
    """The smallest m whose starts below it take at least `iterations` steps in all (at
    least 2), and that total."""
    m, total = 2, 0
    while True:
        total += collatz_steps(m - 1)
        if total >= iterations:
            return m, total
        m += 1


def expected_loop_break(m: int) -> list[int]:
    """loop_break's outputs: [total steps read signed as i32, longest]."""
    steps = [collatz_steps(k) for k in range(1, m)]
    total = sum(steps) & 0xFFFFFFFF
    return [total - (1 << 32) if total >> 31 else total, max(steps, default=0)]


def problem(name: str, iterations: int) -> tuple[int, int, list[int]]:
    """(kernel argument, iterations it runs, expected output) of kernel `name`."""
    if name == "for_loop":
        return iterations, iterations, expected_for_loop(iterations)
    m, total = loop_break_size(iterations)
    return m, total, expected_loop_break(m)


def time_kernel(name: str, engine: str, iterations: int, repeat: int, clock: str) -> float:
    """Seconds per loop iteration of kernel `name` on `engine` (best of `repeat`); uses
    only tileir's public API, so it runs on older trees too."""
    import tileir
    from tileir.interp import launch
    path = KERNELS / f"{name}.mlir"
    module = tileir.parse(path.read_text(), path.name)
    argument, count, expected = problem(name, iterations)
    tick = time.process_time if clock == "cpu" else time.perf_counter
    best = float("inf")
    for _ in range(repeat):
        out = np.zeros(2, np.int32)
        start = tick()
        run = launch(module, name, 1, [out, argument],
                     engine="blocks" if engine == "blocks" else "batched")
        best = min(best, tick() - start)
        if out.tolist() != expected or run.engine != engine:
            raise SystemExit(f"{name} on {engine}: got {out.tolist()} from {run.engine}, "
                             f"expected {expected}")
    return best / count


def baseline(src: str, name: str, engine: str, iterations: int, repeat: int,
             clock: str) -> float:
    """`time_kernel` on the tileir in `src`, in a subprocess."""
    env = dict(os.environ, PYTHONPATH=src)
    command = [sys.executable, __file__, "--child", json.dumps([name, engine, iterations,
                                                                repeat, clock])]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--engines", default="blocks,batched")
    ap.add_argument("--kernels", default="for_loop,loop_break")
    ap.add_argument("--baseline-src", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    cli = ap.parse_args()
    if cli.child is not None:
        print(time_kernel(*json.loads(cli.child)))
        return
    from tileir.interp import plan
    print(f"about {cli.iterations:,} loop iterations per kernel, best of {cli.repeat}, "
          f"{cli.clock} clock; microseconds per iteration")
    header = f"{'kernel':<12}{'engine':<9}{'scalar paths':>14}{'general':>10}{'ratio':>7}"
    if cli.baseline_src:
        header += f"{'baseline':>10}{'ratio':>7}"
    print(header)
    for name in cli.kernels.split(","):
        for engine in cli.engines.split(","):
            times = {}
            for on in (True, False):
                plan.SCALAR_PATHS = on
                times[on] = time_kernel(name, engine, cli.iterations, cli.repeat, cli.clock)
            plan.SCALAR_PATHS = True
            row = (f"{name:<12}{engine:<9}{times[True] * 1e6:>14.2f}"
                   f"{times[False] * 1e6:>10.2f}{times[False] / times[True]:>7.1f}")
            if cli.baseline_src:
                old = baseline(cli.baseline_src, name, engine, cli.iterations, cli.repeat,
                               cli.clock)
                row += f"{old * 1e6:>10.2f}{old / times[True]:>7.1f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
