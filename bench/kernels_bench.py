"""Kernel speed (issue 7): five Tile IR kernels on tileir against NumPy (and the same
problems written in cuTile Python where `cuda.tile` imports, and Triton's CPU interpreter
where `triton` installs, Numba tile loops where `numba` installs and NVIDIA Warp's tile
API on its CPU device where `warp-lang` installs), same math on the same inputs, same run.

Run: ``python bench/kernels_bench.py [--size small|full] [--repeat N] [--problems a,b]
[--engine auto] [--budget SECONDS] [--no-triton] [--no-numba] [--no-warp] [--no-cutile]
[--cutile-checks off] [--compile-times]``.

Problems (kernels in bench/kernels/*.mlir; sizes are ``--size full``, the issue's):

* vector_add: f32, 2**24 elements, tiles of 1024;
* softmax: f32 rows, 4096 x 1024, one row per tile block;
* matmul: f32 1024 x 1024 x 1024, 64x64 output tiles, K steps of 32, f32 accumulation;
* layernorm: f32 4096 x 1024 with weight and bias, one row per tile block;
* attention: flash attention, f16 Q/K/V in, f32 accumulation, f16 O out,
  4096 queries x 4096 keys x head dimension 64, 64 queries per block, 64 keys per step.

For each problem the inputs are drawn with a fixed seed, the NumPy reference is computed
(the natural vectorized NumPy code), tileir runs once and its output is checked against
NumPy within the tolerance stated at the problem (a wrong result stops the benchmark),
then the medians of `--repeat` timed launches are reported next to NumPy's median (of
more runs).  Every tileir and Triton measurement runs in a fresh subprocess with its own
time budget (`--budget`, per problem and column): at ``--size full`` the subprocess first
times a pilot launch over 1/16 of the grid (its output region checked too) and
extrapolates; a run that cannot fit is reported as extrapolated ("~"), and one still
running at the budget is killed and reported as "> budget".  Peak memory ("peak/args")
is the largest growth of the subprocess's resident set during one timed launch (Linux:
VmHWM after a reset through /proc/self/clear_refs just before the launch, less VmRSS
then; the inputs, the output buffer, imports and a warm-up run at a tiny size are already
resident) added to the argument buffers (inputs and output), over the argument buffers:
everything launch allocates (memory map, race-check state, temporaries) counts.  NumPy's
peak is measured with tracemalloc (its temporaries and result) over one more untimed run.

BLAS runs one thread unless ``--blas-threads`` says otherwise (see `set_blas_threads`).
Where Numba installs, the "Numba tile loops" column runs bench/numba_kernels.py: the
same tiling written as loops Numba compiles, one thread (issue 20's peer), checked with
the same tolerance; ``--no-numba`` skips it.  Where Warp installs, the "Warp tile API
(1 thread)" column after it runs bench/warp_kernels.py: the same tiling written with
NVIDIA Warp's tile API (tile_load/tile_store, tile reductions and maps, tile_matmul) on
Warp's CPU device, whose launch runs the blocks as a loop in the calling thread (one
thread: see there), checked with the same tolerance; ``--no-warp`` skips it.  Warp
compiles its module in the subprocess's warm-up (untimed) into the kernel cache named by
WARP_CACHE_PATH, by default a directory inside the run's temporary directory (so a run
leaves nothing in the home directory, and only its first Warp column compiles); its
console messages are silenced and go to stderr, never into the subprocess's JSON lines.
Each Warp launch wraps the NumPy arrays without copying (inside the timed region).
With the compiled engine among the
engines, its compile times follow the tables (``--compile-times`` prints only those).
Triton runs the equivalent kernels of bench/triton_kernels.py under TRITON_INTERPRET=1 on
torch CPU tensors; its output is checked with the same tolerance.

The "tileir cuTile" columns run the cuTile Python kernels of bench/cutile_kernels.py (same
tiling and math as the text kernels, except that cuTile contracts multiply-adds into fma:
see there) through ``tileir.cutile.launch``: cuTile exports each kernel to bytecode, which
tileir reads and runs.  The export happens once, in the subprocess's warm-up (its time is
shown in the notes, untimed); the timed launches reuse it (tileir.cutile caches exports
per argument signature) and measure the interpreter's execution.  By default only
``checks=False`` runs (``--cutile-checks on,off`` adds checks on): the checks' cost is
the text kernels' to show, the same engine running the same kind of module, and a second
column would add minutes per problem at ``--size full`` on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import gc
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def set_blas_threads(argv: list[str]) -> None:
    """Fix the BLAS thread count from ``--blas-threads N`` (default 1; 0 leaves the
    library's default) before NumPy is imported; the measuring subprocesses inherit it.
    One thread by default: on a shared 2-core machine a multithreaded BLAS waits for
    busy cores (NumPy's 256x256 matmul measured 45x slower with 2 threads than with 1)."""
    if "--child" in argv:
        return
    value = "1"
    for i, arg in enumerate(argv):
        if arg == "--blas-threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--blas-threads="):
            value = arg.split("=", 1)[1]
    for name in BLAS_THREADS:
        if value == "0":
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


if __name__ == "__main__":
    set_blas_threads(sys.argv[1:])

import numpy as np  # noqa: E402  (after the BLAS thread count is set)

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"
U32 = 2.0 ** -24   # f32 unit roundoff
U16 = 2.0 ** -11   # f16 unit roundoff
PILOT_FRACTION = 16  # at --size full, the pilot launch covers 1/16 of the grid's x extent
LABEL = 38          # width of the tables' column labels

Dims = dict[str, int]
Arrays = dict[str, np.ndarray]


def ceil_div(a: int, b: int) -> int:
    """ceil(a / b) for positive integers (grid extents of partial tiles)."""
    return -(-a // b)


# ---- the problems ------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One benchmark problem: its kernel, sizes, inputs, launch arguments and NumPy math."""

    name: str
    title: str                                          # one line: what, dtype, tiling
    entry: str                                          # the kernel's entry name
    sizes: dict[str, Dims]                              # "small" / "full" -> dimensions
    make_inputs: Callable[[Dims, np.random.Generator], Arrays]
    make_output: Callable[[Dims], np.ndarray]           # a fresh NaN-filled output buffer
    args: Callable[[Dims, Arrays, np.ndarray], list]    # launch arguments (tileir order)
    grid: Callable[[Dims], tuple[int, ...]]
    reference: Callable[[Arrays], np.ndarray]           # the NumPy computation
    bound: Callable[[Dims, Arrays, np.ndarray], np.ndarray]  # |tileir - NumPy| allowed
    tolerance: str                                      # the bound, in words
    rows_per_block: int                                 # output rows one grid x step covers

    def kernel_path(self) -> Path:
        """The kernel's Tile IR text file."""
        return KERNELS / f"{self.name}.mlir"

    def region(self, grid: tuple[int, ...]) -> tuple[slice, ...]:
        """The part of the output a launch over `grid` (a prefix of x extents) writes."""
        return (slice(0, grid[0] * self.rows_per_block),)


def nan_like(shape: tuple[int, ...], dtype: Any) -> Callable[[Dims], np.ndarray]:
    """An output maker: NaN-filled (so elements a kernel never writes fail the check)."""
    return lambda d: np.full(shape_of(shape, d), np.nan, dtype)


def shape_of(shape: tuple, dims: Dims) -> tuple[int, ...]:
    """`shape` with dimension names replaced by their values in `dims`."""
    return tuple(dims[s] if isinstance(s, str) else s for s in shape)


def standard(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any,
             scale: float = 1.0) -> np.ndarray:
    """Standard normal values times `scale`, rounded to `dtype`."""
    return (rng.standard_normal(shape, np.float32) * np.float32(scale)).astype(dtype)


# vector_add: c = a + b.  Tolerance: exact (each side rounds the exact sum to f32 once).

def _vadd_inputs(d: Dims, rng: np.random.Generator) -> Arrays:
    """a, b: n standard normal f32 values."""
    return {"a": standard(rng, (d["n"],), np.float32), "b": standard(rng, (d["n"],), np.float32)}


VECTOR_ADD = Problem(
    name="vector_add", title="vector add, f32, tiles of 1024", entry="vector_add",
    sizes={"tiny": {"n": 2 ** 12}, "small": {"n": 2 ** 16}, "full": {"n": 2 ** 24}},
    make_inputs=_vadd_inputs,
    make_output=nan_like(("n",), np.float32),
    args=lambda d, x, out: [x["a"], x["b"], out, d["n"]],
    grid=lambda d: (ceil_div(d["n"], 1024),),
    reference=lambda x: x["a"] + x["b"],
    bound=lambda d, x, ref: np.zeros(1),
    tolerance="exact (both round the exact sum to f32 once)",
    rows_per_block=1024,
)


# softmax: Y = exp(X - rowmax) / rowsum.  Tolerance, relative to NumPy's value: tileir errs
# by at most (2 * spread + log2(N) + 3) u (the test suite's derivation for the example
# kernel: spread = max row spread of X, whose rounding exp turns into relative error; the
# pairwise sum's depth; exp and the divide), NumPy by the same with its exp's 4 u instead of
# 1 u: (4 * spread + 2 * log2(N) + 12) u covers both.

def _softmax_inputs(d: Dims, rng: np.random.Generator) -> Arrays:
    """x: M x N f32, standard normal times 2."""
    return {"x": standard(rng, (d["m"], d["n"]), np.float32, 2.0)}


def softmax_numpy(x: Arrays) -> np.ndarray:
    """Row softmax, the NumPy way (f32 throughout)."""
    e = np.exp(x["x"] - x["x"].max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _softmax_bound(d: Dims, x: Arrays, ref: np.ndarray) -> np.ndarray:
    """(4 * max row spread + 2 log2 N + 12) u relative to NumPy's values."""
    spread = float((x["x"].max(axis=1) - x["x"].min(axis=1)).max())
    return (4 * spread + 2 * math.log2(d["n"]) + 12) * U32 * np.abs(ref)


SOFTMAX = Problem(
    name="softmax", title="row softmax, f32, one row per tile block", entry="softmax",
    sizes={"tiny": {"m": 8, "n": 1024}, "small": {"m": 64, "n": 1024},
           "full": {"m": 4096, "n": 1024}},
    make_inputs=_softmax_inputs, make_output=nan_like(("m", "n"), np.float32),
    args=lambda d, x, out: [x["x"], d["m"], d["n"], d["n"], out, d["m"], d["n"], d["n"]],
    grid=lambda d: (d["m"],), reference=softmax_numpy, bound=_softmax_bound,
    tolerance="relative (4 * row spread + 2 log2 N + 12) u, u = 2**-24",
    rows_per_block=1,
)


# matmul: C = A @ B in f32.  Tolerance: |C - C_numpy| <= (K + ceil(K/32)) u (|A| @ |B|):
# tileir's mmaf rounds the f32 accumulator once per K step (ceil(K/32) u), BLAS sgemm sums
# in an order of its own (the classic K u bound).

def _matmul_inputs(d: Dims, rng: np.random.Generator) -> Arrays:
    """a: M x K, b: K x N, standard normal f32."""
    return {"a": standard(rng, (d["m"], d["k"]), np.float32),
            "b": standard(rng, (d["k"], d["n"]), np.float32)}


def _matmul_bound(d: Dims, x: Arrays, ref: np.ndarray) -> np.ndarray:
    """(K + ceil(K/32)) u (|A| @ |B|)."""
    return (d["k"] + ceil_div(d["k"], 32)) * U32 * (np.abs(x["a"]) @ np.abs(x["b"]))


MATMUL = Problem(
    name="matmul", title="matmul, f32, 64x64 tiles, K step 32, f32 accumulation",
    entry="matmul",
    sizes={"tiny": {"m": 128, "k": 128, "n": 128}, "small": {"m": 256, "k": 256, "n": 256},
           "full": {"m": 1024, "k": 1024, "n": 1024}},
    make_inputs=_matmul_inputs, make_output=nan_like(("m", "n"), np.float32),
    args=lambda d, x, out: [x["a"], d["m"], d["k"], d["k"], x["b"], d["k"], d["n"], d["n"],
                            out, d["m"], d["n"], d["n"]],
    grid=lambda d: (ceil_div(d["m"], 64), ceil_div(d["n"], 64)),
    reference=lambda x: x["a"] @ x["b"], bound=_matmul_bound,
    tolerance="(K + ceil(K/32)) u * (|A| @ |B|), u = 2**-24",
    rows_per_block=64,
)


# layernorm: Y = (X - mean) / sqrt(var + eps) * W + B, biased variance.  Tolerance:
# 32 u (|W| (|x_hat| + 1) + |B|).  Each side errs by about 16 u of that from the exact
# value: the mean's error (pairwise sum log2 N = 10 deep, then a divide: 11 u mean|x|,
# under 11 u of the deviation for these rows, whose |mean| is below the deviation) moves
# every x_hat by up to 11 u whatever its size (hence the + 1: a bound proportional to
# |x_hat W| alone fails where x_hat is near 0); the variance's sum, divide and rsqrt add
# about (10 + 3) / 2 u relative to x_hat; the last three ops round once each.
# (Observed at full size: 3.1 u each side, 4.6 u apart.)

EPS = 1e-5


def _layernorm_inputs(d: Dims, rng: np.random.Generator) -> Arrays:
    """x: M x N f32 (mean 1, deviation 3), w and b: N standard normal f32."""
    return {"x": (standard(rng, (d["m"], d["n"]), np.float32, 3.0) + np.float32(1)),
            "w": standard(rng, (d["n"],), np.float32),
            "b": standard(rng, (d["n"],), np.float32)}


def layernorm_numpy(x: Arrays) -> np.ndarray:
    """Layernorm with weight and bias, the NumPy way (f32 throughout)."""
    mean = x["x"].mean(axis=1, keepdims=True)
    centered = x["x"] - mean
    var = (centered * centered).mean(axis=1, keepdims=True)
    return centered / np.sqrt(var + np.float32(EPS)) * x["w"] + x["b"]


def _layernorm_bound(d: Dims, x: Arrays, ref: np.ndarray) -> np.ndarray:
    """32 u (|W| (|x_hat| + 1) + |B|), x_hat from float64."""
    x64 = x["x"].astype(np.float64)
    centered = x64 - x64.mean(axis=1, keepdims=True)
    xhat = centered / np.sqrt((centered * centered).mean(axis=1, keepdims=True) + EPS)
    return 32 * U32 * (np.abs(x["w"]) * (np.abs(xhat) + 1) + np.abs(x["b"]))


LAYERNORM = Problem(
    name="layernorm", title="layernorm with weight and bias, f32, one row per tile block",
    entry="layernorm",
    sizes={"tiny": {"m": 8, "n": 1024}, "small": {"m": 64, "n": 1024},
           "full": {"m": 4096, "n": 1024}},
    make_inputs=_layernorm_inputs, make_output=nan_like(("m", "n"), np.float32),
    args=lambda d, x, out: [x["x"], d["m"], d["n"], d["n"], out, d["m"], d["n"], d["n"],
                            x["w"], x["b"], d["n"], EPS],
    grid=lambda d: (d["m"],), reference=layernorm_numpy, bound=_layernorm_bound,
    tolerance="32 u (|W| (|x_hat| + 1) + |B|), u = 2**-24",
    rows_per_block=1,
)


# attention: O = softmax(scale Q K^T) V, f16 in and out.  NumPy: f32 scores, softmax and
# P @ V, rounded to f16 at the end.  tileir additionally rounds P to f16 for P @ V.
# Tolerance: (u16 + 2**-25 Sk + 1e-5) max|V| (the test suite's bound for the rounded P,
# including f16 subnormal steps and the f32 work) + 2 u16 |O| (each side rounds O to f16
# once) + 2**-24 (half of f16's smallest subnormal step, twice).

SCALE = 0.125  # 1 / sqrt(64)


def _attention_inputs(d: Dims, rng: np.random.Generator) -> Arrays:
    """q: Sq x 64, k and v: Sk x 64, standard normal f16."""
    return {"q": standard(rng, (d["sq"], 64), np.float16),
            "k": standard(rng, (d["sk"], 64), np.float16),
            "v": standard(rng, (d["sk"], 64), np.float16)}


def attention_numpy(x: Arrays) -> np.ndarray:
    """softmax(scale Q K^T) V the NumPy way: f32 math on the f16 inputs, f16 result."""
    q, k, v = (x[n].astype(np.float32) for n in ("q", "k", "v"))
    s = (q @ k.T) * np.float32(SCALE)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return ((p @ v) / p.sum(axis=1, keepdims=True)).astype(np.float16)


def _attention_bound(d: Dims, x: Arrays, ref: np.ndarray) -> np.ndarray:
    """(u16 + 2**-25 Sk + 1e-5) max|V| + 2 u16 |O| + 2**-24."""
    vmax = float(np.abs(x["v"].astype(np.float32)).max())
    return ((U16 + 2.0 ** -25 * d["sk"] + 1e-5) * vmax
            + 2 * U16 * np.abs(ref.astype(np.float64)) + 2.0 ** -24)


ATTENTION = Problem(
    name="attention",
    title="flash attention, f16 in, f32 accumulate, f16 out, head dim 64, 64x64 blocks",
    entry="attention",
    sizes={"tiny": {"sq": 128, "sk": 128}, "small": {"sq": 256, "sk": 256},
           "full": {"sq": 4096, "sk": 4096}},
    make_inputs=_attention_inputs, make_output=nan_like(("sq", 64), np.float16),
    args=lambda d, x, out: [x["q"], d["sq"], 64, x["k"], d["sk"], 64, x["v"], d["sk"], 64,
                            out, d["sq"], 64, SCALE],
    grid=lambda d: (ceil_div(d["sq"], 64),), reference=attention_numpy,
    bound=_attention_bound,
    tolerance="(u16 + 2**-25 Sk + 1e-5) max|V| + 2 u16 |O| + 2**-24, u16 = 2**-11",
    rows_per_block=64,
)

PROBLEMS: dict[str, Problem] = {p.name: p for p in
                                (VECTOR_ADD, SOFTMAX, MATMUL, LAYERNORM, ATTENTION)}


def describe(problem: Problem, dims: Dims) -> str:
    """A one-line header: name, sizes, grid."""
    sizes = " x ".join(f"{k}={v}" for k, v in dims.items())
    return f"{problem.name}: {problem.title}; {sizes}; grid {problem.grid(dims)}"


def check(problem: Problem, dims: Dims, inputs: Arrays, ref: np.ndarray, out: np.ndarray,
          region: tuple[slice, ...]) -> tuple[bool, str]:
    """Whether `out` matches the NumPy `ref` within the problem's bound on `region`, and a
    line saying how closely (the largest error as a fraction of its bound)."""
    got = out[region].astype(np.float64)
    want = ref[region].astype(np.float64)
    bound = np.broadcast_to(problem.bound(dims, inputs, ref), ref.shape)[region]
    err = np.abs(got - want)
    ok = bool(np.all(err <= bound))  # NaN (an element never written) fails
    worst = float(np.nanmax(err)) if err.size else 0.0
    if not np.any(bound):
        return ok, f"max |error| {worst:.3g} (must be 0)"
    ratio = float(np.nanmax(np.where(bound > 0, err / np.where(bound > 0, bound, 1), err)))
    return ok, f"max |error| {worst:.3g} = {ratio:.3g} of the bound"


# ---- the measuring subprocess ------------------------------------------------------------


def engine_used(result: Any) -> str:
    """Which engine ran: a launch's `Run` (its `engine`, and `reason` when the batched
    engine declined), or the engine's name (Triton's interpreter)."""
    if isinstance(result, str):
        return result
    return f"{result.engine} (batched declined: {result.reason})" if result.reason \
        else result.engine


@dataclass
class Measured:
    """One timed launch: seconds, its output, the engine that ran, and the growth of the
    resident set's peak during it (bytes)."""

    seconds: float
    out: np.ndarray
    engine: str
    growth: int


#: Launches one column's kernel over a grid into an output buffer; returns the `Run` (or
#: the engine's name).
Launcher = Callable[[tuple[int, ...], np.ndarray], Any]


def timed(problem: Problem, dims: Dims, launcher: Launcher, grid: tuple[int, ...]
          ) -> Measured:
    """Time one launch over `grid` into a fresh output buffer, with its peak memory (the
    garbage left by earlier work is collected first, so no launch pays for another's)."""
    out = problem.make_output(dims)
    gc.collect()
    before = reset_peak()
    start = time.perf_counter()
    result = launcher(grid, out)
    seconds = time.perf_counter() - start
    growth = peak_so_far() - before
    return Measured(seconds, out, engine_used(result), growth)


def tileir_runner(problem: Problem, dims: Dims, inputs: Arrays, options: dict) -> Launcher:
    """The launcher of the tileir text kernel (parsed once)."""
    import tileir
    from tileir.interp import launch
    module = tileir.parse(problem.kernel_path().read_text(), problem.kernel_path().name)
    return lambda grid, out: launch(module, problem.entry, grid,
                                    problem.args(dims, inputs, out), **options)


def triton_runner(problem: Problem, dims: Dims, inputs: Arrays, options: dict) -> Launcher:
    """The launcher of the Triton kernel (interpreted) on torch views of the arrays."""
    import torch
    sys.path.insert(0, str(HERE))
    import triton_kernels
    tensors = {k: torch.from_numpy(v) for k, v in inputs.items()}

    def run(grid: tuple[int, ...], out: np.ndarray) -> str:
        """Launch over `grid` into `out` (shared with a torch view of it)."""
        triton_kernels.LAUNCH[problem.name](grid, dims, tensors, torch.from_numpy(out))
        return "Triton interpreter"
    return run


#: The exported cuTile module of each problem seen in this process (to tell cache hits).
_EXPORTED: dict[str, Any] = {}


def cutile_runner(problem: Problem, dims: Dims, inputs: Arrays, options: dict) -> Launcher:
    """The launcher of the cuTile Python kernel through tileir.cutile.  Exports the kernel
    first (emitting how long that took, and whether the module came from the export
    cache), so the timed launches measure execution."""
    sys.path.insert(0, str(HERE))
    import cutile_kernels
    start = time.perf_counter()
    exported = cutile_kernels.export_module(problem.name, inputs, problem.make_output(dims))
    emit(event="export", seconds=time.perf_counter() - start,
         cached=_EXPORTED.get(problem.name) is exported)
    _EXPORTED[problem.name] = exported
    return lambda grid, out: cutile_kernels.run(problem.name, grid, inputs, out,
                                                **options)


def numba_runner(problem: Problem, dims: Dims, inputs: Arrays, options: dict) -> Launcher:
    """The launcher of the Numba tile-loop kernel (bench/numba_kernels.py, one thread)."""
    sys.path.insert(0, str(HERE))
    import numba_kernels

    def run(grid: tuple[int, ...], out: np.ndarray) -> str:
        """Launch over `grid` into `out`."""
        numba_kernels.LAUNCH[problem.name](grid, dims, inputs, out)
        return "Numba"
    return run


def warp_runner(problem: Problem, dims: Dims, inputs: Arrays, options: dict) -> Launcher:
    """The launcher of the Warp tile-API kernel (bench/warp_kernels.py, CPU device, one
    thread).  Imports Warp and compiles (or loads from its cache) the kernels first, with
    anything they print sent to stderr, so stdout carries only `emit`'s JSON lines."""
    sys.path.insert(0, str(HERE))
    with contextlib.redirect_stdout(sys.stderr):
        import warp_kernels
        warp_kernels.load()

    def run(grid: tuple[int, ...], out: np.ndarray) -> str:
        """Launch over `grid` into `out` (wrapped by Warp without a copy)."""
        warp_kernels.LAUNCH[problem.name](grid, dims, inputs, out)
        return "Warp (CPU)"
    return run


RUNNERS = {"tileir": tileir_runner, "triton": triton_runner, "cutile": cutile_runner,
           "numba": numba_runner, "warp": warp_runner}


def emit(**fields: Any) -> None:
    """One JSON line to the parent (flushed: the parent may kill us at any time)."""
    print(json.dumps(fields), flush=True)


def status_bytes(field: str) -> int | None:
    """A size field of /proc/self/status (VmRSS, VmHWM) in bytes; None off Linux."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def reset_peak() -> int:
    """Start measuring peak memory from now: the resident set now, after resetting the
    kernel's high-water mark (clear_refs 5).  Off Linux, ru_maxrss so far (a subprocess
    inherits its parent's there, so the growth it measures is a lower bound)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return status_bytes("VmRSS") or 0
    except OSError:
        return peak_so_far()


def peak_so_far() -> int:
    """The peak resident set since `reset_peak` (VmHWM), else ru_maxrss (KiB on Linux)."""
    hwm = status_bytes("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def warm_up(spec: dict) -> None:
    """Run the problem once at its "tiny" size (imports, first-call costs), untimed and
    before the memory baseline, so neither counts in the measured launches."""
    problem = PROBLEMS[spec["problem"]]
    dims = problem.sizes["tiny"]
    inputs = problem.make_inputs(dims, np.random.default_rng(0))
    launcher = RUNNERS[spec["impl"]](problem, dims, inputs, spec["options"])
    timed(problem, dims, launcher, problem.grid(dims))


def child(spec: dict) -> None:
    """Measure one column of one problem (run in a fresh subprocess): warm-up at the tiny
    size, one untimed launch checked against NumPy (at full size the pilot, over part of
    the grid, timed to extrapolate), then up to `repeat` timed launches within the budget."""
    problem, dims = PROBLEMS[spec["problem"]], spec["dims"]
    data = Path(spec["data"])
    inputs = {p.stem[3:]: np.load(p) for p in sorted(data.glob("in_*.npy"))}
    warm_up(spec)
    launcher = RUNNERS[spec["impl"]](problem, dims, inputs, spec["options"])
    grid = problem.grid(dims)
    deadline = time.perf_counter() + spec["budget"]
    emit(event="ready")
    first = ((spec["pilot"],) + grid[1:]) if spec["pilot"] else grid
    m = timed(problem, dims, launcher, first)
    verify_or_exit(problem, dims, inputs, m.out, first)
    if spec["pilot"]:
        np.save(data / f"{spec['tag']}_pilot.npy", m.out)
        estimate = m.seconds * grid[0] / first[0]
        emit(event="pilot", seconds=m.seconds, grid=first, estimate=estimate, engine=m.engine,
             rss=m.growth)
        if time.perf_counter() + estimate > deadline:
            emit(event="skip")
            return
    times: list[float] = []
    for i in range(spec["repeat"]):
        if times and time.perf_counter() + statistics.median(times) > deadline:
            break
        m = timed(problem, dims, launcher, grid)
        times.append(m.seconds)
        if i == 0:
            np.save(data / f"{spec['tag']}_full.npy", m.out)
        emit(event="run", seconds=m.seconds, engine=m.engine, rss=m.growth)


def verify_or_exit(problem: Problem, dims: Dims, inputs: Arrays, out: np.ndarray,
                   grid: tuple[int, ...]) -> None:
    """Check the untimed first launch (the whole grid, or the pilot's part) against NumPy
    before any timing; on a wrong result say so and exit with status 3."""
    region = problem.region(grid) if grid != problem.grid(dims) else (slice(None),)
    ok, how = check(problem, dims, inputs, problem.reference(inputs), out, region)
    if not ok:
        emit(event="wrong", how=how)
        print(f"WRONG RESULT: {how} (tolerance: {problem.tolerance})", file=sys.stderr)
        sys.exit(3)


# ---- the parent: inputs, NumPy, subprocesses, tables -------------------------------------


@dataclass
class Column:
    """One measured row of a problem's table."""

    label: str
    seconds: float | None = None     # the median (or the estimate when extrapolated)
    runs: int = 0
    extrapolated: str = ""           # how, when the time is an estimate
    over_budget: bool = False
    peak_ratio: float | None = None  # (argument bytes + rss growth) / argument bytes
    note: str = ""


def measure(impl: str, label: str, problem: Problem, dims: Dims, data: Path, inputs: Arrays,
            ref: np.ndarray, options: dict, cli: argparse.Namespace) -> Column:
    """Run one column's subprocess, check its output, and summarise its timings."""
    grid = problem.grid(dims)
    pilot = max(1, grid[0] // PILOT_FRACTION) if cli.size == "full" and grid[0] > 1 else 0
    tag = re.sub(r"\W+", "_", label)
    spec = {"impl": impl, "problem": problem.name, "dims": dims, "data": str(data),
            "options": options, "repeat": cli.repeat, "pilot": pilot, "budget": cli.budget,
            "tag": tag}
    env = dict(os.environ)
    if impl == "triton":
        env["TRITON_INTERPRET"] = "1"
    if impl == "warp":   # Warp's kernel cache: the run's own unless the user names one
        env.setdefault("WARP_CACHE_PATH", str(data.parent / "warp_cache"))
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    column = Column(label)
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True,
                                env=env)
        lines: list[str] = []
        reader = threading.Thread(target=follow, args=(proc, lines, problem.name, label),
                                  daemon=True)
        reader.start()
        column.over_budget = not wait_within_budget(proc, lines, cli.budget)
        reader.join()
        errors.seek(0)
        stderr = errors.read()
    events = [json.loads(line) for line in lines if line.startswith("{")]
    wrong = [e for e in events if e["event"] == "wrong"]
    if wrong:
        raise SystemExit(f"{problem.name} / {label}: WRONG RESULT: {wrong[0]['how']} "
                         f"(tolerance: {problem.tolerance})")
    if proc.returncode != 0 and not column.over_budget:
        tail = stderr.strip().splitlines()[-1] if stderr.strip() else f"rc {proc.returncode}"
        raise SystemExit(f"{problem.name} / {label}: the measuring subprocess failed: {tail}\n"
                         f"{stderr[-3000:]}")
    summarise(column, events, problem, dims, data, tag, inputs, ref, grid)
    return column


def wait_within_budget(proc: subprocess.Popen, lines: list[str], budget: float) -> bool:
    """Wait for the subprocess; kill it (False) when it is still running `budget` seconds
    (plus 5 of grace) after its "ready" event, or 300 + `budget` seconds after its start
    if it never gets ready (loading the inputs and the warm-up come before "ready")."""
    started = time.perf_counter()
    ready: float | None = None
    while True:
        try:
            proc.wait(timeout=0.5)
            return True
        except subprocess.TimeoutExpired:
            pass
        if ready is None and any('"ready"' in line for line in lines):
            ready = time.perf_counter()
        limit = (ready + budget + 5) if ready is not None else (started + 300 + budget)
        if time.perf_counter() > limit:
            proc.kill()
            proc.wait()
            return False


def follow(proc: subprocess.Popen, lines: list[str], problem: str, label: str) -> None:
    """Collect the subprocess's event lines, echoing its progress to stderr (full-size
    runs take minutes)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("event") == "pilot":
            note = f"pilot {event['seconds']:.3g} s over grid {event['grid']}, " \
                   f"full run ~{event['estimate']:.3g} s"
        elif event.get("event") == "run":
            note = f"run {event['seconds']:.3g} s"
        else:
            continue
        print(f"   [{problem} / {label}: {note}]", file=sys.stderr, flush=True)


def summarise(column: Column, events: list[dict], problem: Problem, dims: Dims, data: Path,
              tag: str, inputs: Arrays, ref: np.ndarray, grid: tuple[int, ...]) -> None:
    """Fill `column` from the subprocess's events, checking its output (fails loudly)."""
    runs = [e for e in events if e["event"] == "run"]
    pilots = [e for e in events if e["event"] == "pilot"]
    arg_bytes = sum(a.nbytes for a in inputs.values()) + problem.make_output(dims).nbytes
    if runs or pilots:
        rss = max(e["rss"] for e in runs + pilots)
        column.peak_ratio = (arg_bytes + max(rss, 0)) / arg_bytes
    engines = sorted({e["engine"] for e in runs + pilots})
    column.note = "; ".join(filter(None, [f"engine: {', '.join(engines)}" if engines else "",
                                          export_note(events)]))
    if runs:
        column.seconds = statistics.median(e["seconds"] for e in runs)
        column.runs = len(runs)
        if pilots:
            column.note += f"; pilot over {pilots[0]['grid'][0]}/{grid[0]} of grid x " \
                           f"extrapolated ~{pilots[0]['estimate']:.3g} s"
        out, region, what = np.load(data / f"{tag}_full.npy"), (slice(None),), "all"
    elif pilots:
        p = pilots[0]
        column.seconds = p["estimate"]
        column.extrapolated = f"from {p['grid'][0]}/{grid[0]} of grid x"
        out, region = np.load(data / f"{tag}_pilot.npy"), problem.region(tuple(p["grid"]))
        what = f"rows {region[0].start}:{region[0].stop} (the pilot's)"
    else:
        return
    ok, how = check(problem, dims, inputs, ref, out, region)
    if not ok:
        raise SystemExit(f"{problem.name} / {column.label}: WRONG RESULT on {what} of the "
                         f"output: {how} (tolerance: {problem.tolerance})")
    column.note = "; ".join(filter(None, [column.note, f"checked {what}: {how}"]))


def export_note(events: list[dict]) -> str:
    """For a cuTile column: how long the export took in the warm-up, and whether the timed
    launches reused it (empty for the other columns)."""
    exports = [e for e in events if e["event"] == "export"]
    if not exports:
        return ""
    first, rest = exports[0], exports[1:]
    reused = all(e["cached"] for e in rest) if rest else False
    return (f"cuTile export {first['seconds']:.3g} s in the warm-up (untimed)"
            + ("; timed launches reuse it" if reused else "; NOT reused by the timed launches"))


def numpy_column(problem: Problem, inputs: Arrays, repeat: int) -> tuple[Column, np.ndarray]:
    """NumPy's median over at least `repeat` runs (in this process; more, up to 100, until
    they take a second), its peak memory (tracemalloc
    over one more, untimed run: NumPy reports its buffers to it) and its result."""
    ref = problem.reference(inputs)
    times: list[float] = []
    while len(times) < repeat or (sum(times) < 1.0 and len(times) < 100):
        start = time.perf_counter()
        problem.reference(inputs)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    problem.reference(inputs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    in_bytes = sum(a.nbytes for a in inputs.values())
    return Column("NumPy", statistics.median(times), len(times),
                  peak_ratio=(in_bytes + peak) / (in_bytes + ref.nbytes),
                  note="peak: tracemalloc (result included)"), ref


def modules_available(*packages: tuple[str, str]) -> str | None:
    """None if every (module, package) can be imported here, else why not (the package's
    name, as pip installs it)."""
    for module, package in packages:
        if importlib.util.find_spec(module) is None:
            return f"n/a ({package} not installed)"
    return None


@dataclass(frozen=True)
class Peer:
    """A column of another system's kernels: its runner, its label when it is missing
    and when it ran, the (module, package) pairs it needs, and its --no-... option."""

    runner: str
    short: str
    label: str
    needs: tuple[tuple[str, str], ...]

    def available(self) -> str | None:
        return modules_available(*self.needs)


#: The peers' columns, after NumPy's, in the table's order.
PEERS = (Peer("numba", "Numba tile loops", "Numba tile loops (1 thread)",
              (("numba", "numba"),)),
         Peer("warp", "Warp tile API", "Warp tile API (1 thread)", (("warp", "warp-lang"),)),
         Peer("triton", "Triton interp", "Triton (TRITON_INTERPRET=1)",
              (("triton", "triton"), ("torch", "torch"))))


def cutile_available() -> str | None:
    """None if cuTile Python (`cuda.tile`) can be imported here, else why not."""
    try:
        import cuda.tile  # noqa: F401
    except Exception as exc:  # ImportError, or a broken install
        return f"n/a (cuda.tile not importable: {type(exc).__name__}: {exc})"
    return None


def engine_columns(prefix: str, checks: list[str], cli: argparse.Namespace
                   ) -> list[tuple[str, dict]]:
    """(label, launch options) of one column per checks setting ("on"/"off") for each
    requested engine."""
    columns = []
    for engine in cli.engine.split(","):
        for setting in checks:
            options: dict = {"checks": setting == "on", "engine": engine}
            if cli.workers is not None:
                options["workers"] = cli.workers
            columns.append((f"{prefix} checks={setting}, engine={engine}", options))
    return columns


def cutile_configurations(cli: argparse.Namespace) -> list[tuple[str, dict]]:
    """The cuTile columns: the checks settings of --cutile-checks (default off alone)."""
    settings = [c.strip() for c in cli.cutile_checks.split(",") if c.strip()]
    return engine_columns("tileir cuTile", settings, cli)


def configurations(cli: argparse.Namespace) -> list[tuple[str, dict]]:
    """The tileir text-kernel columns: checks on and off."""
    return engine_columns("tileir", ["on", "off"], cli)


def fmt_seconds(column: Column, budget: float) -> str:
    """The time cell: a median, an estimate (~), or over budget."""
    if column.over_budget and column.seconds is None:
        return f"> {budget:g} s"
    if column.seconds is None:
        return "-"
    mark = "~" if column.extrapolated else ""
    return f"{mark}{column.seconds:.4g}"


def print_table(problem: Problem, dims: Dims, columns: list[Column], base: float,
                budget: float) -> None:
    """The problem's table: time, runs, ratio to NumPy, peak memory, notes."""
    print(f"\n== {describe(problem, dims)}")
    print(f"   tolerance against NumPy: {problem.tolerance}")
    print(f"{'column':<{LABEL}}{'median s':>12}{'runs':>6}{'x NumPy':>10}{'peak/args':>11}  notes")
    for c in columns:
        ratio = f"{'~' if c.extrapolated else ''}{c.seconds / base:.3g}" \
            if c.seconds is not None and base > 0 else "-"
        peak = f"{c.peak_ratio:.2f}" if c.peak_ratio is not None else "-"
        notes = "; ".join(filter(None, [
            f"extrapolated {c.extrapolated}" if c.extrapolated else "",
            f"killed at the {budget:g} s budget" if c.over_budget else "", c.note]))
        print(f"{c.label:<{LABEL}}{fmt_seconds(c, budget):>12}{c.runs:>6}{ratio:>10}{peak:>11}"
              f"  {notes}")
    sys.stdout.flush()


def bench_problem(problem: Problem, cli: argparse.Namespace, workdir: Path) -> None:
    """Inputs, NumPy reference, then every tileir column (text kernels, then cuTile), Numba,
    Warp and Triton; print the table."""
    dims = problem.sizes[cli.size]
    data = workdir / problem.name
    data.mkdir()
    inputs = problem.make_inputs(dims, np.random.default_rng(cli.seed))
    for name, array in inputs.items():
        np.save(data / f"in_{name}.npy", array)
    numpy_repeat = max(10, 3 * cli.repeat)
    base, ref = numpy_column(problem, inputs, numpy_repeat)
    columns = [measure("tileir", label, problem, dims, data, inputs, ref, options, cli)
               for label, options in configurations(cli)]
    missing = cutile_available() if not cli.no_cutile else "n/a (--no-cutile)"
    if missing:
        columns.append(Column("tileir cuTile", note=missing))
    else:
        columns += [measure("cutile", label, problem, dims, data, inputs, ref, options, cli)
                    for label, options in cutile_configurations(cli)]
    columns.append(base)
    for peer in PEERS:
        missing = peer.available() if not getattr(cli, f"no_{peer.runner}") \
            else f"n/a (--no-{peer.runner})"
        columns.append(Column(peer.short, note=missing) if missing else
                       measure(peer.runner, peer.label, problem, dims, data, inputs, ref, {},
                               cli))
    print_table(problem, dims, columns, base.seconds or 0.0, cli.budget)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("small", "full"), default="small")
    ap.add_argument("--repeat", type=int, default=None,
                    help="timed launches per tileir/Triton column (default 3 small, 1 full)")
    ap.add_argument("--problems", default=",".join(PROBLEMS),
                    help=f"comma-separated subset of {','.join(PROBLEMS)}")
    ap.add_argument("--workers", type=int, default=None,
                    help="tileir's threads (launch(workers=...); default: one per core)")
    ap.add_argument("--engine", default="auto",
                    help="engine(s) for launch(engine=...), comma-separated")
    ap.add_argument("--budget", type=float, default=600.0,
                    help="seconds per problem and column for tileir / Triton")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-triton", action="store_true", help="skip the Triton column")
    ap.add_argument("--no-numba", action="store_true",
                    help="skip the Numba column (it runs where numba is installed)")
    ap.add_argument("--no-warp", action="store_true",
                    help="skip the Warp column (it runs where warp-lang is installed)")
    ap.add_argument("--no-cutile", action="store_true", help="skip the cuTile columns")
    ap.add_argument("--cutile-checks", default="off",
                    help="checks settings of the cuTile columns: off, on, or on,off")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads for NumPy and tileir (0: the library's default)")
    ap.add_argument("--compile-times", action="store_true",
                    help="print only the compiled engine's compile times per kernel")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    cli = ap.parse_args(argv)
    if not set(filter(None, cli.cutile_checks.split(","))) <= {"on", "off"}:
        ap.error("--cutile-checks takes on, off, or on,off")
    if cli.repeat is None:
        cli.repeat = 1 if cli.size == "full" else 3
    return cli


def compile_times(names: list[str]) -> None:
    """The compiled engine's compile times per kernel, apart from the runs: compiled
    (lowering and LLVM, no cache), loaded from the disk cache, and found in memory (the
    median of 1000 lookups) -- measured here, in a disk cache of this run's own."""
    try:
        import llvmlite  # noqa: F401
    except ImportError:
        print("\n== compile times: n/a (llvmlite not installed: pip install 'tileir[jit]')")
        return
    import tileir
    from tileir.interp.compiled import cache, disk
    from tileir.interp.plan import plan_of
    cpu, _ = cache.host_cpu()
    version = ".".join(map(str, cache.llvm().llvm_version_info))
    print(f"\n== compile times: the compiled engine, LLVM {version}, CPU {cpu} "
          "(goal: <= 0.5 s compiled, <= 1 ms cached)")
    print(f"{'kernel':<14}{'compiled s':>12}{'from disk s':>14}{'in memory s':>14}")
    saved = os.environ.get(disk.VARIABLE)
    with tempfile.TemporaryDirectory(prefix="tileir_bench_cache_") as place:
        os.environ[disk.VARIABLE] = place
        try:
            for name in names:
                problem = PROBLEMS[name]
                module = tileir.parse(problem.kernel_path().read_text(), problem.kernel_path().name)
                kernel = module.lookup(problem.entry) if problem.entry else module.entries[0]
                plan = plan_of(kernel)
                seconds = []
                for _ in ("compile", "disk"):
                    cache.clear()
                    start = time.perf_counter()
                    found = cache.compiled(plan)
                    seconds.append(time.perf_counter() - start)
                    if isinstance(found, str):
                        raise SystemExit(f"{name}: the compiled engine declines: {found}")
                hits = []
                for _ in range(1000):
                    start = time.perf_counter()
                    cache.compiled(plan)
                    hits.append(time.perf_counter() - start)
                print(f"{name:<14}{seconds[0]:>12.3f}{seconds[1]:>14.4f}"
                      f"{statistics.median(hits):>14.2e}")
        finally:
            if saved is None:
                os.environ.pop(disk.VARIABLE, None)
            else:
                os.environ[disk.VARIABLE] = saved
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """Benchmark every requested problem, one table each (and the compiled engine's
    compile times when it is among the engines, or with --compile-times alone)."""
    cli = parse_args(argv)
    if cli.child:
        child(json.loads(cli.child))
        return
    names = [n.strip() for n in cli.problems.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown:
        raise SystemExit(f"unknown problems {unknown}; choose from {list(PROBLEMS)}")
    if cli.compile_times:
        compile_times(names)
        return
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "library default")
    from tileir.interp.launch import default_workers
    workers = cli.workers if cli.workers is not None else default_workers()
    print(f"kernels_bench: --size {cli.size}, {cli.repeat} timed run(s) per column, "
          f"budget {cli.budget:g} s per column; engine: {cli.engine}; {os.cpu_count()} CPUs, "
          f"BLAS threads: {threads}; tileir threads: {workers}")
    with tempfile.TemporaryDirectory(prefix="tileir_bench_") as tmp:
        for name in names:
            bench_problem(PROBLEMS[name], cli, Path(tmp))
    if "compiled" in cli.engine.split(","):
        compile_times(names)


if __name__ == "__main__":
    main()
