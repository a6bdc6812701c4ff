"""The passes' cost and what they buy: the -O3 pipeline's throughput on a 10,000-op module,
each pass timed separately, and the interpreter's time on the benchmark kernels before and
after -O3.

Run: ``python bench/passes_bench.py [--ops N] [--repeat R] [--fuse-fma] [--size tiny|small]
[--kernel-repeat R] [--problems a,b] [--iterations N] [--skip pipeline,kernels]
[--no-pin]``.

Part 1 (pipeline): two modules of about ``--ops`` ops each: the text benchmark's kernel
body (bench/syntax_bench.py's builder: constants, arithmetic with modifiers, comparisons,
loads and stores through views, repeated), and generated kernels (``tileir.generate``,
seeds 0, 1, ...) side by side as entries of one module (every op family, loops and ifs
among them).  For each, -O3's passes (``tileir.transforms.optimize.passes_for``) run one
after another on the same module, each timed on its own (verifier off), then the whole
pipeline on a fresh copy, without and with the verifier after each pass.  Baseline:
parsing and verifying the same module's text, measured in the same run; ops per second
count the module's ops before the pipeline.  Each time is the best of ``--repeat``, each
repeat on a freshly parsed module (untimed), after one untimed run of the pipeline
(first-call costs), read on this process's CPU clock (``--clock wall``: the wall clock).

Part 2 (kernels): the kernels of bench/kernels_bench.py (at ``--size``: "tiny" or
"small", its sizes) and bench/control_flow_bench.py's loops (``--iterations``), launched
on the interpreter as written and after -O3 (with ``--fuse-fma``: -O3 with fuse-fma), on
the same inputs; the best of ``--kernel-repeat`` launches each (launches before and after
alternating), after a warm-up launch whose results are checked: bit-identical before and
after -O3, or, with fuse-fma, each within the problem's own tolerance against NumPy (fused
multiply-adds round once where the kernel rounded twice, so the bits may differ); a
failed check stops the benchmark.

The process is pinned to one core (``os.sched_setaffinity``; ``--no-pin`` leaves it free)
and BLAS runs one thread.  Nothing here is asserted about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import control_flow_bench  # noqa: E402
import kernels_bench  # noqa: E402
import syntax_bench  # noqa: E402

import tileir  # noqa: E402
from tileir.interp import launch  # noqa: E402
from tileir.ir import Module  # noqa: E402
from tileir.transforms import Checks, run_pipeline  # noqa: E402
from tileir.transforms.optimize import passes_for, pipeline_for  # noqa: E402

LEVEL = 3
#: The clock every time is read on: CPU time of this process (``--clock cpu``, the
#: default: a busy machine disturbs it less) or the wall clock.
CLOCK: Callable[[], float] = time.process_time


# ---- part 1: the pipeline's throughput ---------------------------------------------------


def straight_line_module(ops: int) -> tuple[str, int]:
    """The text benchmark's module of at least `ops` ops, and its op count."""
    return syntax_bench.module_text(ops)


def generated_module(ops: int) -> tuple[str, int]:
    """Generated kernels (seeds 0, 1, ...) as the entries of one module, each renamed
    ``kernel_<seed>``, until the module holds at least `ops` ops; its text and op count."""
    from tileir.generate import generate
    bodies, count, seed = [], 0, 0
    while count < ops:
        kernel = generate(seed)
        lines = kernel.format().splitlines()[1:-1]      # inside ``cuda_tile.module {}``
        bodies.append("\n".join(lines).replace("entry @kernel(", f"entry @kernel_{seed}(", 1))
        count += count_ops(kernel)
        seed += 1
    return "cuda_tile.module @kernels {\n" + "\n".join(bodies) + "\n}\n", count


def count_ops(module: Module) -> int:
    """The ops inside `module` (nested ones too), the module itself not counted."""
    return sum(1 for _ in module.walk()) - 1


def nest(pipeline_passes: str) -> str:
    """`pipeline_passes` run as -O3 runs its passes: on each function of the module."""
    return (f"cuda_tile.module(cuda_tile.entry({pipeline_passes}), "
            f"cuda_tile.testing$func({pipeline_passes}))")


Timing = tuple[float, float]      # (best, median) seconds


def best_of(times: list[float]) -> Timing:
    return min(times), statistics.median(times)


def time_pipeline(text: str, fuse_fma: bool, repeat: int) -> tuple[list[tuple[str, Timing]],
                                                                     int]:
    """Rows (name, timing) for one module: each pass of the pipeline in order, the whole
    pipeline without and with the verifier after each pass, and the baseline (parse and
    verify) last; and the op count after the pipeline."""
    passes = passes_for(LEVEL, fuse_fma)
    per_pass: list[list[float]] = [[] for _ in passes]
    whole: list[float] = []
    verified: list[float] = []
    baseline: list[float] = []
    after = 0
    quiet = Checks(verify_each=False)
    run_pipeline(tileir.parse(text), pipeline_for(LEVEL, fuse_fma))     # warm-up, untimed
    for _ in range(repeat):
        start = CLOCK()
        module = tileir.parse(text)
        baseline.append(CLOCK() - start)
        for i, step in enumerate(passes):
            start = CLOCK()
            run_pipeline(module, nest(step), quiet)
            per_pass[i].append(CLOCK() - start)
        module.verify()
        after = count_ops(module)
        module = tileir.parse(text)
        start = CLOCK()
        run_pipeline(module, pipeline_for(LEVEL, fuse_fma), quiet)
        whole.append(CLOCK() - start)
        module = tileir.parse(text)
        start = CLOCK()
        run_pipeline(module, pipeline_for(LEVEL, fuse_fma), Checks(verify_each=True))
        verified.append(CLOCK() - start)
    label = f"-O{LEVEL}" + (" + fuse-fma" if fuse_fma else "")
    rows = [(f"  {i + 1}. {step}", best_of(times)) for i, (step, times)
            in enumerate(zip(passes, per_pass))]
    rows += [(f"{label} (passes only)", best_of(whole)),
             (f"{label} (verify each pass)", best_of(verified)),
             ("baseline: parse + verify", best_of(baseline))]
    return rows, after


def print_pipeline_table(title: str, ops: int, after: int, chars: int,
                         rows: list[tuple[str, Timing]]) -> None:
    """Best and median seconds, ops per second (of the module's ops before the pipeline)
    and the ratio to the baseline (the last row)."""
    print(f"\n{title}: {ops:,} ops ({after:,} after -O{LEVEL}), {chars:,} characters")
    width = max(32, max(len(name) for name, _ in rows) + 2)
    print(f"{'pass':<{width}}{'best s':>10}{'median s':>10}{'ops/s':>12}{'x baseline':>12}")
    base = rows[-1][1][0]
    for name, (best, median) in rows:
        print(f"{name:<{width}}{best:>10.4f}{median:>10.4f}{ops / best:>12,.0f}"
              f"{best / base:>12.2f}")


# ---- part 2: the interpreter before and after -O3 ----------------------------------------


def optimized(text: str, name: str, fuse_fma: bool) -> tuple[Module, Module]:
    """The kernel as written and after -O3 (each parsed from `text`)."""
    from tileir.transforms.optimize import optimize
    before = tileir.parse(text, name)
    after = tileir.parse(text, name)
    optimize(after, LEVEL, fuse_fma)
    return before, after


def best_launches(runs: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The best time of `repeat` calls of each of `runs`, the calls interleaved (so that a
    change in the machine's load falls on all of them alike)."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, run in enumerate(runs):
            start = CLOCK()
            run()
            best[i] = min(best[i], CLOCK() - start)
    return best


def bits_equal(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two arrays hold the same bytes."""
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def kernel_rows(size: str, names: list[str], iterations: int, fuse_fma: bool,
                repeat: int) -> list[tuple[str, int, int, float, float, str]]:
    """(kernel, ops before, ops after, seconds before, seconds after, check) per kernel."""
    rows = []
    rng = np.random.default_rng(0)
    for name in names:
        problem = kernels_bench.PROBLEMS[name]
        dims = problem.sizes[size]
        path = problem.kernel_path()
        before, after = optimized(path.read_text(), path.name, fuse_fma)
        inputs = problem.make_inputs(dims, rng)
        ref = problem.reference(inputs)
        grid = problem.grid(dims)
        outs = []
        for module in (before, after):
            out = problem.make_output(dims)
            launch(module, problem.entry, grid, problem.args(dims, inputs, out))
            outs.append(out)
        if bits_equal(*outs):
            verdict = "bit-identical"
        elif fuse_fma:
            region = (slice(None),)
            ok = [kernels_bench.check(problem, dims, inputs, ref, out, region) for out in outs]
            if not all(good for good, _ in ok):
                raise SystemExit(f"{name}: -O{LEVEL} + fuse-fma leaves the problem's bound: "
                                 f"{ok[1][1]}")
            verdict = f"within bound ({ok[1][1]})"
        else:
            bad = int(np.count_nonzero(outs[0] != outs[1]))
            raise SystemExit(f"{name}: -O{LEVEL} changed {bad} output elements")
        times = best_launches([lambda m=module: launch(
            m, problem.entry, grid, problem.args(dims, inputs, problem.make_output(dims)))
            for module in (before, after)], repeat)
        rows.append((f"{name} ({size})", count_ops(before), count_ops(after), *times,
                     verdict))
    for name in ("for_loop", "loop_break"):
        path = control_flow_bench.KERNELS / f"{name}.mlir"
        before, after = optimized(path.read_text(), path.name, fuse_fma)
        argument, _, expected = control_flow_bench.problem(name, iterations)
        results = []
        for module in (before, after):
            out = np.zeros(2, np.int32)
            launch(module, name, 1, [out, argument])
            results.append(out)
        if not bits_equal(*results) or results[0].tolist() != expected:
            raise SystemExit(f"{name}: {results[0].tolist()} before -O{LEVEL}, "
                             f"{results[1].tolist()} after, expected {expected}")
        times = best_launches([lambda m=module: launch(m, name, 1, [np.zeros(2, np.int32),
                                                                     argument])
                               for module in (before, after)], repeat)
        rows.append((f"{name} ({iterations:,} it.)", count_ops(before), count_ops(after),
                     *times, "bit-identical"))
    return rows


def print_kernel_table(rows: list[tuple[str, int, int, float, float, str]], label: str
                       ) -> None:
    """Ops and seconds before and after, their ratio, and how the results compared."""
    print(f"\ninterpreter time before and after {label} (best of the launches, seconds; "
          "ratio = after / before)")
    width = max(24, max(len(r[0]) for r in rows) + 2)
    print(f"{'kernel':<{width}}{'ops':>6}{'ops -O3':>9}{'before s':>11}{'after s':>11}"
          f"{'ratio':>8}  results")
    for name, ops, ops_after, before, after, verdict in rows:
        print(f"{name:<{width}}{ops:>6}{ops_after:>9}{before:>11.4f}{after:>11.4f}"
              f"{after / before:>8.2f}  {verdict}")


def positive(text: str) -> int:
    """An argparse type: a positive integer (a count of 0 would leave a table empty)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=positive, default=10_000,
                    help="ops of each pipeline module")
    ap.add_argument("--repeat", type=positive, default=3,
                    help="repeats of each pipeline time")
    ap.add_argument("--fuse-fma", action="store_true", help="-O3 with fuse-fma")
    ap.add_argument("--size", choices=("tiny", "small"), default="small",
                    help="kernels_bench.py's problem sizes (default small)")
    ap.add_argument("--kernel-repeat", type=positive, default=3,
                    help="launches timed per kernel")
    ap.add_argument("--problems", default=",".join(kernels_bench.PROBLEMS),
                    help="comma-separated subset of kernels_bench.py's problems")
    ap.add_argument("--iterations", type=positive, default=20_000,
                    help="loop iterations of the control-flow kernels")
    ap.add_argument("--skip", default="", help="parts to leave out: pipeline,kernels")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="CPU time of this process (default) or the wall clock")
    ap.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    cli = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if cli.clock == "cpu" else time.perf_counter
    pinned = not cli.no_pin and hasattr(os, "sched_setaffinity")
    if pinned:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    skip = set(filter(None, cli.skip.split(",")))
    label = f"-O{LEVEL}" + (" + fuse-fma" if cli.fuse_fma else "")
    print(f"passes bench: {label} = {', '.join(passes_for(LEVEL, cli.fuse_fma))}; "
          f"{cli.clock} clock{'; pinned to one core' if pinned else ''}", flush=True)
    if "pipeline" not in skip:
        print(f"pipeline: best and median of {cli.repeat} runs, each on a freshly parsed "
              "module; each pass timed alone on the module the passes before it left")
        for title, build in (("straight-line module (bench/syntax_bench.py)",
                              straight_line_module),
                             ("generated kernels as entries of one module", generated_module)):
            text, ops = build(cli.ops)
            rows, after = time_pipeline(text, cli.fuse_fma, cli.repeat)
            print_pipeline_table(title, ops, after, len(text), rows)
            sys.stdout.flush()
    if "kernels" not in skip:
        names = [n for n in cli.problems.split(",") if n]
        unknown = [n for n in names if n not in kernels_bench.PROBLEMS]
        if unknown:
            raise SystemExit(f"unknown problems {unknown}; choose from "
                             f"{list(kernels_bench.PROBLEMS)}")
        rows = kernel_rows(cli.size, names, cli.iterations, cli.fuse_fma, cli.kernel_repeat)
        print_kernel_table(rows, label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
