"""The five kernels of the speed benchmark (bench/kernels/*.mlir) are correct: run at small
sizes on the interpreter and checked against NumPy and float64 math, with the benchmark's
own check (bench/kernels_bench.py) shown to pass on them and to fail on a wrong result.

Sizes: vector add 2**12 elements, softmax and layernorm 8 x 1024, matmul 128 x 128 x 128,
attention 128 queries x 128 keys x 64.  Tolerances are stated at each check, with
u = 2**-24 (f32 unit roundoff) and u16 = 2**-11 (f16).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from functools import lru_cache
import importlib.util
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir.interp import launch
from tileir.interp.launch import Run
from tileir.ir import Module

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import kernels_bench as kb  # noqa: E402

U32 = 2.0 ** -24
U16 = 2.0 ** -11
#: The reference (one tile block at a time) engine, and "auto" (the batched engine where
#: it applies).
ENGINES = ["blocks", "auto"]


@lru_cache(maxsize=None)
def kernel(name: str) -> Module:
    """The parsed benchmark kernel `name` (parsed once per session)."""
    path = BENCH / "kernels" / f"{name}.mlir"
    return tileir.parse(path.read_text(), path.name)


def run(name: str, engine: str, seed: int = 0
        ) -> tuple[kb.Problem, dict, dict, np.ndarray]:
    """Launch problem `name` at its tiny size: (problem, dims, inputs, output)."""
    problem = kb.PROBLEMS[name]
    dims = problem.sizes["tiny"]
    inputs = problem.make_inputs(dims, np.random.default_rng(seed))
    out = problem.make_output(dims)
    launch(kernel(name), problem.entry, problem.grid(dims), problem.args(dims, inputs, out),
           engine=engine)
    return problem, dims, inputs, out


def bench_check_passes_and_catches(problem: kb.Problem, dims: dict, inputs: dict,
                                   out: np.ndarray, wrong: float) -> None:
    """The benchmark's check accepts `out` and rejects it with one element moved by
    `wrong` times (1 + its magnitude), or with one element never written (NaN)."""
    ref = problem.reference(inputs)
    everything = (slice(None),)
    assert kb.check(problem, dims, inputs, ref, out, everything)[0]
    bad = out.copy()
    value = float(bad.reshape(-1)[5])
    bad.reshape(-1)[5] = value + wrong * (1 + abs(value))
    assert not kb.check(problem, dims, inputs, ref, bad, everything)[0]
    bad.reshape(-1)[5] = np.nan
    assert not kb.check(problem, dims, inputs, ref, bad, everything)[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_vector_add_is_exact(engine: str) -> None:
    """4 tiles of 1024: c == a + b exactly (one f32 rounding of the exact sum each)."""
    problem, dims, x, c = run("vector_add", engine)
    assert problem.grid(dims) == (4,)
    np.testing.assert_array_equal(c, x["a"] + x["b"])
    bench_check_passes_and_catches(problem, dims, x, c, 2.0 ** -20)


@pytest.mark.parametrize("engine", ENGINES)
def test_softmax_rows_within_the_rounding_bound(engine: str) -> None:
    """8 rows of 1024: within (2 * row spread + 10 + 4) u relative of float64 softmax."""
    # The example kernel's derivation (tests/interp/test_kernels_dense.py) with the
    # pairwise sum 10 levels deep for 1024 lanes: 2 (u spread + u) + 10 u + u, plus u.
    problem, dims, x, y = run("softmax", engine)
    x64 = x["x"].astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    spread = (x64.max(axis=1) - x64.min(axis=1)).max()
    assert (np.abs(y - ref) <= (2 * spread + 14) * U32 * ref).all()
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)
    bench_check_passes_and_catches(problem, dims, x, y, 1e-3)


@pytest.mark.parametrize("engine", ENGINES)
def test_matmul_within_the_rounding_bound(engine: str) -> None:
    """128^3 (2x2 tiles of 64x64, 4 K steps of 32): within ceil(K/32) u |A| @ |B|."""
    # Each mmaf rounds (acc + A_tile @ B_tile) once to f32, so over ceil(K/32) steps the
    # error is at most ceil(K/32) u (|A| @ |B|) from the float64 product.
    problem, dims, x, c = run("matmul", engine)
    a64, b64 = x["a"].astype(np.float64), x["b"].astype(np.float64)
    bound = math.ceil(dims["k"] / 32) * U32 * (np.abs(a64) @ np.abs(b64))
    assert (np.abs(c - a64 @ b64) <= bound).all()
    bench_check_passes_and_catches(problem, dims, x, c, 1e-2)


@pytest.mark.parametrize("engine", ENGINES)
def test_layernorm_within_the_rounding_bound(engine: str) -> None:
    """8 rows of 1024: within 16 u (|W| (|x_hat| + 1) + |B|) of float64 layernorm."""
    # The mean errs by up to (10 + 1) u mean|x| (a pairwise sum 10 levels deep, a divide),
    # below 11 u of the rows' deviation here (|mean| 1 < deviation 3), which moves every
    # x_hat by up to 11 u whatever its size (hence |x_hat| + 1); the variance (sum,
    # divide) and rsqrt add about (10 + 3) / 2 u relative to x_hat, and the last three
    # ops round once each: 16 u covers it (observed: about 3 u).
    problem, dims, x, y = run("layernorm", engine)
    x64 = x["x"].astype(np.float64)
    centered = x64 - x64.mean(axis=1, keepdims=True)
    xhat = centered / np.sqrt((centered ** 2).mean(axis=1, keepdims=True)
                              + float(np.float32(kb.EPS)))
    ref = xhat * x["w"] + x["b"]
    bound = 16 * U32 * (np.abs(x["w"]) * (np.abs(xhat) + 1) + np.abs(x["b"]))
    assert (np.abs(y - ref) <= bound).all()
    bench_check_passes_and_catches(problem, dims, x, y, 1e-3)


@pytest.mark.parametrize("engine", ENGINES)
def test_attention_within_the_f16_bound(engine: str) -> None:
    """128 x 128 x 64 (2 query blocks, 2 key steps): within (u16 + 2**-25 Sk + 1e-5)
    max|V| + u16 |O| + 2**-25 of float64 attention."""
    # P rounded to f16 for P @ V errs by u16 p (2**-25 below f16's normal range), so O
    # errs by at most u16 max|V| + 2**-25 Sk max|V| / l with l >= 1; 1e-5 max|V| covers
    # the f32 work (scores |s| < 8 here); the final f16 rounding adds u16 |O|, or half of
    # f16's smallest subnormal step (2**-25).
    problem, dims, x, o = run("attention", engine)
    q, k, v = (x[n].astype(np.float64) for n in ("q", "k", "v"))
    s = q @ k.T * kb.SCALE
    p = np.exp(s - s.max(axis=1, keepdims=True))
    ref = p / p.sum(axis=1, keepdims=True) @ v
    vmax = np.abs(v).max()
    bound = (U16 + 2.0 ** -25 * dims["sk"] + 1e-5) * vmax + U16 * np.abs(ref) + 2.0 ** -25
    assert o.dtype == np.float16
    assert (np.abs(o - ref) <= bound).all()
    bench_check_passes_and_catches(problem, dims, x, o, 0.05)


@pytest.mark.parametrize("name", list(kb.PROBLEMS))
def test_tileir_column_times_the_batched_engine(name: str) -> None:
    """The "engine=auto" columns' launcher runs each text kernel on the batched engine (a
    silent fall-back to the reference engine would show here) into a fresh buffer that
    passes the check."""
    problem = kb.PROBLEMS[name]
    dims = problem.sizes["tiny"]
    x = problem.make_inputs(dims, np.random.default_rng(8))
    launcher = kb.tileir_runner(problem, dims, x, {"checks": False, "engine": "auto"})
    measured = kb.timed(problem, dims, launcher, problem.grid(dims))
    assert measured.engine == "batched"
    ok, how = kb.check(problem, dims, x, problem.reference(x), measured.out, (slice(None),))
    assert ok, how


def test_engine_used_names_the_engine_and_why_batched_declined() -> None:
    """The engine note of a column: the Run's engine, with the reason when the batched
    engine declined; a name as given (Triton's)."""
    assert kb.engine_used(Run("batched")) == "batched"
    assert kb.engine_used(Run("blocks", "max_ops bounds tile blocks")) == \
        "blocks (batched declined: max_ops bounds tile blocks)"
    assert kb.engine_used("Triton interpreter") == "Triton interpreter"


def test_partial_launch_writes_exactly_its_region() -> None:
    """A launch over a prefix of the grid (the benchmark's pilot) writes the rows
    `Problem.region` names and nothing else."""
    problem = kb.PROBLEMS["matmul"]
    dims = problem.sizes["tiny"]
    x = problem.make_inputs(dims, np.random.default_rng(1))
    c = problem.make_output(dims)
    pilot = (1,) + problem.grid(dims)[1:]
    launch(kernel("matmul"), problem.entry, pilot, problem.args(dims, x, c))
    region = problem.region(pilot)
    assert region == (slice(0, 64),)
    assert not np.isnan(c[region]).any() and np.isnan(c[64:]).all()
    ok, _ = kb.check(problem, dims, x, problem.reference(x), c, region)
    assert ok


def test_run_py_hands_the_kernel_options_to_kernels_bench(monkeypatch) -> None:
    """bench/run.py keeps --ops and --skip and passes every other option to kernels_bench.py
    as given (its defaults live there alone)."""
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    calls = []
    monkeypatch.setattr(bench_run.subprocess, "call", lambda command: calls.append(command) or 0)
    monkeypatch.setattr(sys, "argv", ["run.py", "--size", "full", "--seed=3", "--ops", "50",
                                      "--no-triton", "--skip", "bytecode"])
    assert bench_run.main() == 0
    assert [command[1:] for command in calls] == [
        [str(BENCH / "kernels_bench.py"), "--size", "full", "--seed=3", "--no-triton"],
        [str(BENCH / "syntax_bench.py"), "--ops", "50"]]


TRITON_SCRIPT = """
import json, sys
import numpy as np, torch
sys.path.insert(0, sys.argv[1])
import kernels_bench as kb, triton_kernels
results = {}
for name, problem in kb.PROBLEMS.items():
    dims = problem.sizes["tiny"]
    x = problem.make_inputs(dims, np.random.default_rng(2))
    out = problem.make_output(dims)
    triton_kernels.LAUNCH[name](problem.grid(dims), dims,
                                {k: torch.from_numpy(v) for k, v in x.items()},
                                torch.from_numpy(out))
    results[name] = kb.check(problem, dims, x, problem.reference(x), out, (slice(None),))
print(json.dumps(results))
"""


@pytest.mark.skipif(find_spec("triton") is None or find_spec("torch") is None,
                    reason="triton or torch is not installed (pip install .[bench])")
def test_triton_kernels_match_numpy() -> None:
    """The Triton counterparts, under TRITON_INTERPRET=1, pass the benchmark's check."""
    env = dict(os.environ, TRITON_INTERPRET="1")
    done = subprocess.run([sys.executable, "-c", TRITON_SCRIPT, str(BENCH)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(results) == sorted(kb.PROBLEMS)
    for name, (ok, how) in results.items():
        assert ok, f"{name}: {how}"


def assert_counterparts_match(launches: dict, sizes: tuple[str, ...]) -> None:
    """Each problem's counterpart kernel (`launches[name](grid, dims, inputs, out)`)
    passes the benchmark's check at `sizes`, over the whole grid and over a prefix of it
    (the pilot's), writing nothing past the prefix."""
    for name, problem in kb.PROBLEMS.items():
        for size in sizes:
            dims = problem.sizes[size]
            x = problem.make_inputs(dims, np.random.default_rng(2))
            for grid in (problem.grid(dims), (1,) + problem.grid(dims)[1:]):
                out = problem.make_output(dims)
                launches[name](grid, dims, x, out)
                region = problem.region(grid) if grid != problem.grid(dims) else (slice(None),)
                ok, how = kb.check(problem, dims, x, problem.reference(x), out, region)
                assert ok, f"{name} at {size} over {grid}: {how}"
                if region != (slice(None),):
                    assert np.isnan(out[region[0].stop:]).all()   # nothing past the prefix


@pytest.mark.skipif(find_spec("numba") is None,
                    reason="numba is not installed (pip install .[bench])")
def test_numba_kernels_match_numpy() -> None:
    """The Numba tile-loop counterparts (bench/numba_kernels.py) at the tiny size."""
    import numba_kernels
    assert_counterparts_match(numba_kernels.LAUNCH, ("tiny",))


# ---- the Warp tile-API kernels (bench/warp_kernels.py) -----------------------------------

needs_warp = pytest.mark.skipif(find_spec("warp") is None,
                                reason="warp-lang is not installed (pip install .[bench])")


@pytest.fixture(scope="module")
def warp_kernels(tmp_path_factory):
    """bench/warp_kernels.py compiled once for this module's tests, Warp's kernel cache in
    a temporary directory (WARP_CACHE_PATH, which the bench's subprocesses inherit) rather
    than the home directory."""
    cache = tmp_path_factory.mktemp("warp_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WARP_CACHE_PATH", str(cache))
        import warp
        if warp.config.kernel_cache_dir is None:   # Warp not initialised yet in this process
            patch.setattr(warp.config, "kernel_cache_dir", str(cache))
        import warp_kernels
        warp_kernels.load()
        yield warp_kernels


@needs_warp
def test_warp_kernels_match_numpy(warp_kernels) -> None:
    """The Warp tile-API counterparts (bench/warp_kernels.py) at the tiny and small
    sizes."""
    assert_counterparts_match(warp_kernels.LAUNCH, ("tiny", "small"))


@needs_warp
def test_warp_column_subprocess_speaks_only_json(warp_kernels, tmp_path) -> None:
    """The bench's measuring subprocess for the Warp column (warm-up, compile or cache
    load, check, timed runs) writes nothing but JSON lines to stdout, so Warp's console
    messages cannot corrupt the protocol; its runs fill a checked column."""
    problem = kb.PROBLEMS["softmax"]
    dims = problem.sizes["small"]
    data = tmp_path / problem.name
    data.mkdir()
    inputs = problem.make_inputs(dims, np.random.default_rng(0))
    for name, array in inputs.items():
        np.save(data / f"in_{name}.npy", array)
    spec = {"impl": "warp", "problem": problem.name, "dims": dims, "data": str(data),
            "options": {}, "repeat": 2, "pilot": 0, "budget": 10**6, "tag": "warp"}
    done = subprocess.run([sys.executable, str(BENCH / "kernels_bench.py"), "--child",
                           json.dumps(spec)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    events = [json.loads(line) for line in done.stdout.splitlines()]   # every line JSON
    assert [e["event"] for e in events] == ["ready", "run", "run"]
    column = kb.Column("Warp tile API (1 thread)")
    kb.summarise(column, events, problem, dims, data, "warp", inputs,
                 problem.reference(inputs), problem.grid(dims))
    assert column.runs == 2 and column.seconds > 0
    assert "engine: Warp (CPU)" in column.note and "checked all" in column.note


def test_warp_column_says_na_without_warp_and_obeys_its_flag(monkeypatch) -> None:
    """Without warp-lang the Warp column is "n/a" with the reason; --no-warp skips it."""
    real = importlib.util.find_spec
    monkeypatch.setattr(kb.importlib.util, "find_spec",
                        lambda name, *a: None if name == "warp" else real(name, *a))
    warp = next(peer for peer in kb.PEERS if peer.runner == "warp")
    assert warp.available() == "n/a (warp-lang not installed)"
    assert kb.parse_args(["--no-warp"]).no_warp and not kb.parse_args([]).no_warp


# ---- the cuTile Python kernels (bench/cutile_kernels.py) ---------------------------------

#: Problems whose cuTile export is op for op the text kernel's math: same bytes expected.
CUTILE_SAME_BYTES = ("vector_add", "softmax", "matmul")
#: The others, and the multiply-add cuTile contracts into one fma there (its compiler's
#: rewrite pass fuse_mul_addsub, always on), where the text kernel rounds twice.
CUTILE_FMA = {"layernorm": "x_hat * W + B", "attention": "l * alpha + rowsum"}


def cutile_kernels():
    """bench/cutile_kernels.py, or skip the test when cuTile Python is missing."""
    pytest.importorskip("cuda.tile", reason="cuTile Python is not installed "
                                            "(pip install cuda-tile, or .[oracles])")
    import cutile_kernels
    return cutile_kernels


def run_cutile(name: str, engine: str, seed: int = 0
               ) -> tuple[kb.Problem, dict, dict, np.ndarray, object]:
    """Launch problem `name`'s cuTile kernel at its tiny size through tileir.cutile, UB
    checks on: (problem, dims, inputs, output, the interpreter's Run)."""
    ck = cutile_kernels()
    problem = kb.PROBLEMS[name]
    dims = problem.sizes["tiny"]
    inputs = problem.make_inputs(dims, np.random.default_rng(seed))
    out = problem.make_output(dims)
    result = ck.run(name, problem.grid(dims), inputs, out, checks=True, engine=engine)
    return problem, dims, inputs, out, result


def op_names(module: Module) -> list[str]:
    """The names of every operation in `module`, nested ones included."""
    return [op.name for op in module.walk()]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", list(kb.PROBLEMS))
def test_cutile_kernel_within_the_problems_tolerance(name: str, engine: str) -> None:
    """Each cuTile kernel passes the benchmark's own check against NumPy (the problem's
    stated tolerance, every element written), and "auto" runs it on the batched engine."""
    problem, dims, x, out, result = run_cutile(name, engine)
    ok, how = kb.check(problem, dims, x, problem.reference(x), out, (slice(None),))
    assert ok, how
    if engine == "auto":
        assert result.engine == "batched", result.reason


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", CUTILE_SAME_BYTES)
def test_cutile_kernel_gives_the_text_kernels_bytes(name: str, engine: str) -> None:
    """vector_add, softmax and matmul: the cuTile export computes the text kernel's ops
    (loads with the same padding, the same reduces, mmaf per K step of 32, the same
    elementwise ops), so every output byte is the text kernel's on the same inputs."""
    *_, want = run(name, engine, seed=4)
    *_, got, _ = run_cutile(name, engine, seed=4)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", list(kb.PROBLEMS))
def test_cutile_exports_fma_exactly_where_stated(name: str) -> None:
    """Why layernorm and attention are not compared byte for byte: their cuTile export has
    one fma (the contracted multiply-add) where the text kernel has mulf then addf; the
    three other exports have none."""
    ck = cutile_kernels()
    problem = kb.PROBLEMS[name]
    dims = problem.sizes["tiny"]
    x = problem.make_inputs(dims, np.random.default_rng(0))
    exported = ck.export_module(name, x, problem.make_output(dims))
    assert op_names(exported.module).count("cuda_tile.fma") == (1 if name in CUTILE_FMA else 0)
    assert "cuda_tile.fma" not in op_names(kernel(name))


def test_cutile_layernorm_within_one_rounding_of_the_text_kernel() -> None:
    """Layernorm: everything before the last step is the same ops on the same values, so
    with a = x_hat (f32), b = W, c = B the text kernel gives fl(fl(ab) + c) and cuTile
    fl(ab + c): they differ by at most u |ab| (1 + u) + 2 u |ab + c|, within
    2 u (|W| |x_hat| + |y|) (|ab| from float64 x_hat errs by far less than that slack)."""
    *_, want = run("layernorm", "auto", seed=5)
    _, dims, x, got, _ = run_cutile("layernorm", "auto", seed=5)
    x64 = x["x"].astype(np.float64)
    centered = x64 - x64.mean(axis=1, keepdims=True)
    xhat = centered / np.sqrt((centered ** 2).mean(axis=1, keepdims=True) + kb.EPS)
    bound = 2 * U32 * (np.abs(x["w"]) * np.abs(xhat) + np.abs(got.astype(np.float64)))
    assert (np.abs(got.astype(np.float64) - want) <= bound).all()


def test_cutile_attention_within_one_f16_step_of_the_text_kernel() -> None:
    """Attention: the fma'd running sum l differs from the text kernel's by a few f32
    roundings (2 key steps here), far below an f16 step, so the f16 outputs are equal or
    adjacent: at most one f16 step (of the larger magnitude) apart."""
    *_, want = run("attention", "auto", seed=6)
    *_, got, _ = run_cutile("attention", "auto", seed=6)
    step = np.spacing(np.maximum(np.abs(got), np.abs(want))).astype(np.float64)
    assert (np.abs(got.astype(np.float64) - want.astype(np.float64)) <= step).all()


def test_cutile_runner_exports_once_then_times_the_batched_engine(monkeypatch, capsys
                                                                  ) -> None:
    """The benchmark's cuTile runner exports once per signature (cuTile specialises a
    signature on the arguments' shapes, as its own launch does); a second runner for the
    same arguments reuses that export (it says so), and its launches run batched and pass
    the check."""
    cutile_kernels()
    monkeypatch.setattr(kb, "_EXPORTED", {})
    problem = kb.PROBLEMS["softmax"]
    for size in ("small", "small"):
        dims = problem.sizes[size]
        x = problem.make_inputs(dims, np.random.default_rng(7))
        launcher = kb.cutile_runner(problem, dims, x, {"checks": False, "engine": "auto"})
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in events] == ["export", "export"]
    assert [e["cached"] for e in events] == [False, True]
    measured = kb.timed(problem, dims, launcher, problem.grid(dims))
    assert measured.engine == "batched"
    ok, how = kb.check(problem, dims, x, problem.reference(x), measured.out, (slice(None),))
    assert ok, how
    assert "timed launches reuse it" in kb.export_note(events)


def test_cutile_column_says_na_without_cuda_tile_and_obeys_its_flags(monkeypatch) -> None:
    """Without an importable cuda.tile the cuTile column is "n/a" with the reason; the
    flags choose its checks settings (checks off alone by default)."""
    monkeypatch.setitem(sys.modules, "cuda.tile", None)   # makes `import cuda.tile` fail
    assert kb.cutile_available().startswith("n/a (cuda.tile not importable: ")
    default = kb.cutile_configurations(kb.parse_args([]))
    assert [options["checks"] for _, options in default] == [False]
    both = kb.cutile_configurations(kb.parse_args(["--cutile-checks", "on,off"]))
    assert [options["checks"] for _, options in both] == [True, False]
    assert kb.parse_args(["--no-cutile"]).no_cutile
    with pytest.raises(SystemExit):
        kb.parse_args(["--cutile-checks", "maybe"])


@pytest.mark.skipif(find_spec("llvmlite") is None, reason="the compiled engine needs llvmlite")
def test_compile_times_prints_one_row_per_kernel(capsys) -> None:
    """--compile-times: a header naming LLVM and the CPU, then per kernel the seconds to
    compile, to load from the disk cache and to find in memory (times, so only their
    form is checked here; the middle one a load indeed: nothing compiled for it)."""
    from tileir.interp import compiled as jit
    compiled, loaded = jit.compilations(), jit.loads()
    kb.main(["--compile-times", "--problems", "vector_add,softmax"])
    assert (jit.compilations(), jit.loads()) == (compiled + 2, loaded + 2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("== compile times: the compiled engine, LLVM ")
    assert lines[1].split() == ["kernel", "compiled", "s", "from", "disk", "s", "in",
                                "memory", "s"]
    assert [line.split()[0] for line in lines[2:]] == ["vector_add", "softmax"]
    for line in lines[2:]:
        assert all(float(x) > 0 for x in line.split()[1:])
