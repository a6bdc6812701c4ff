"""The compiled engine's mmaf (f32 operands, f32 accumulator) against the reference
engine (engine="blocks"): the same bytes for random, special (NaN, infinities, signed
zeros, subnormals) and near-tie inputs; near a midpoint the compiled code hands the tile to
the reference's mmaf semantics (`settle.py`) and goes on; every other mmaf declines with
its reason."""
# ruff: noqa: E501  (kernel text: one op per line, as the bench kernels write them)

from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import F32_SPECIAL, assert_declined, assert_engine, mma_kernel  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402

BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"





def run_both(text: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, **options) -> dict:
    """{engine: (Run, d's bytes)} of `text` on fresh copies of a, b, c."""
    results = {}
    for engine in ("blocks", "compiled"):
        d = np.full(c.shape, 7, c.dtype)
        run = tileir.launch(text, None, 1, [a.copy(), b.copy(), c.copy(), d], engine=engine,
                            **options)
        results[engine] = (run, d.tobytes())
    return results


def assert_same(results: dict, engine: str = "compiled") -> None:
    """The reference's bytes, run on `engine` ("blocks": handed over after the compiled
    run stopped, to the batched engine where it applies, else one block at a time)."""
    run, out = results["compiled"]
    assert out == results["blocks"][1]
    assert_engine(run, engine)


@pytest.mark.parametrize("m, n, k, seed", [(4, 4, 4, 0), (16, 8, 32, 1), (5, 7, 3, 2),
                                           (1, 1, 1, 3), (8, 16, 64, 4)])
def test_random_inputs(m, n, k, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((m, k)) * rng.choice([1e-3, 1, 1e3], (m, k))).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    assert_same(run_both(mma_kernel(m, n, k), a, b, c))


def test_wide_exponents_and_subnormals():
    """Products from 2**-298 to 2**254, results rounding to subnormals and to zero."""
    rng = np.random.default_rng(9)
    exps = rng.integers(-149, 127, (8, 8))
    a = np.ldexp(rng.uniform(1, 2, (8, 8)), exps).astype(np.float32) * \
        rng.choice([-1, 1], (8, 8)).astype(np.float32)
    b = np.ldexp(rng.uniform(1, 2, (8, 8)), -exps.T // 2).astype(np.float32)
    c = np.zeros((8, 8), np.float32)
    c[0] = np.float32(2.0 ** -149)
    c[1] = -np.float32(2.0 ** -149)
    assert_same(run_both(mma_kernel(8, 8, 8), a, b, c))


def test_signed_zeros():
    """Every term zero, of either sign: the reference's +0 (a -0 acc too)."""
    z = np.float32(-0.0)
    a = np.full((4, 4), z, np.float32)
    a[1] = 0.0
    b = np.full((4, 4), z, np.float32)
    b[:, 2] = 0.0
    c = np.full((4, 4), z, np.float32)
    c[3] = 0.0
    results = run_both(mma_kernel(4, 4, 4), a, b, c)
    assert_same(results)
    assert results["compiled"][1] == np.zeros((4, 4), np.float32).tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nan_and_infinities(seed):
    """NaN, infinity and zero operands in some rows and columns (inf * 0, inf - inf,
    NaN payloads: the canonical NaN), finite elsewhere (the reference's k loop)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    a[rng.integers(0, 16, 6), rng.integers(0, 16, 6)] = rng.choice(F32_SPECIAL, 6)
    b[rng.integers(0, 16, 6), rng.integers(0, 16, 6)] = rng.choice(F32_SPECIAL, 6)
    c[rng.integers(0, 16, 4), rng.integers(0, 16, 4)] = rng.choice(F32_SPECIAL, 4)
    assert_same(run_both(mma_kernel(16, 16, 16), a, b, c))


@pytest.mark.parametrize("where", ["lhs", "rhs", "acc"])
def test_one_input_not_finite_among_zeros_settles_the_tile(where):
    """A single infinity or NaN whose every product is with a zero (inf * 0 is NaN) or
    that only acc holds, the rest small integers: the tile is settled by the reference's
    semantics (one settlement), the reference's bytes."""
    a = np.ones((8, 8), np.float32)
    b = np.ones((8, 8), np.float32)
    c = np.zeros((8, 8), np.float32)
    if where == "lhs":
        a[3, 5], b[5] = np.inf, 0.0
    elif where == "rhs":
        b[2, 6], a[:, 2] = np.nan, 0.0
    else:
        c[7, 7] = -np.inf
    before = jit.settlements()
    results = run_both(mma_kernel(8, 8, 8), a, b, c)
    assert jit.settlements() - before == 1
    assert_same(results)


def test_every_special_pair():
    """acc + a * b for every pair of special values (K = 1) and every acc."""
    s = F32_SPECIAL
    a = s.reshape(16, 1).copy()
    b = s.reshape(1, 16).copy()
    for acc in s:
        c = np.full((16, 16), acc, np.float32)
        results = run_both(mma_kernel(16, 16, 1), a, b, c)
        assert_same(results)    # (an inexact cancellation x - x: settled)


def _tie_inputs(tail: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Element (0, 0) sums to 1 + 2**-24 (a midpoint between two f32 values) + tail."""
    a = np.ones((4, 4), np.float32)
    b = np.full((4, 4), 0.5, np.float32)
    c = np.zeros((4, 4), np.float32)
    a[0] = [1.0, 2.0 ** -24, 2.0 ** -20 if tail else 0.0, 0.0]
    b[1:3] = 0.0            # (other elements: no ties)
    b[:, 0] = [1.0, 1.0, np.float32(tail * 2.0 ** 20), 0.0]
    return a, b, c


@pytest.mark.parametrize("tail", [2.0 ** -60, -(2.0 ** -60), 2.0 ** -70])
def test_near_a_midpoint_is_settled_by_the_reference_semantics(tail):
    """Within the compiled sum's resolution of a midpoint (2**-60 is below an ulp of its
    f64 head) and not provably exact: the compiled code cannot decide, hands the tile to
    the reference's mmaf semantics (one settlement) and runs on: compiled, the
    reference's bytes, rounded the way the exact value lies."""
    a, b, c = _tie_inputs(tail)
    before = jit.settlements()
    results = run_both(mma_kernel(4, 4, 4), a, b, c)
    assert jit.settlements() - before == 1
    assert_same(results)
    d = np.frombuffer(results["blocks"][1], np.float32)
    assert d[0] == (np.float32(1) if tail < 0 else np.nextafter(np.float32(1), np.float32(2)))


@pytest.mark.parametrize("tail", [0.0, 2.0 ** -40, -(2.0 ** -40), 2.0 ** -50, -(2.0 ** -50)])
def test_just_off_a_midpoint_is_compiled(tail):
    """Off a midpoint by more than the double-f64 sum's bound: decided in compiled code,
    rounded the way the exact value lies (2**-50 lies inside the single f64 sum's bound,
    about 2**-48.5 here: the closer look with TwoSum decides it); the exact midpoint
    (tail 0: every term a multiple of 2**-24, every partial sum exact) is decided by the
    closer look's exact-sum test (ties to even).  No settlement."""
    a, b, c = _tie_inputs(tail)
    before = jit.settlements()
    results = run_both(mma_kernel(4, 4, 4), a, b, c)
    assert jit.settlements() == before
    assert_same(results)
    d = np.frombuffer(results["compiled"][1], np.float32)
    assert d[0] == (np.float32(1) if tail <= 0 else np.nextafter(np.float32(1), np.float32(2)))


def test_exact_sums_are_compiled():
    """Small integers and dyadic values: every partial sum exact (exact cancellations to
    +0 and exact midpoints included), so the compiled code decides them all."""
    rng = np.random.default_rng(11)
    for _ in range(4):
        a = np.ldexp(rng.integers(-2**12, 2**12, (16, 32)), -12).astype(np.float32)
        b = np.ldexp(rng.integers(-2**12, 2**12, (32, 16)), -12).astype(np.float32)
        c = rng.integers(-4, 4, (16, 16)).astype(np.float32)
        assert_same(run_both(mma_kernel(16, 16, 32), a, b, c))
    a = np.array([[3.0, -3.0]], np.float32)
    b = np.array([[5.0], [5.0]], np.float32)
    c = np.array([[-0.0]], np.float32)
    results = run_both(mma_kernel(1, 1, 2), a, b, c)
    assert_same(results)
    assert results["compiled"][1] == np.zeros(1, np.float32).tobytes()


@pytest.mark.parametrize("k", [16, 4])
def test_exact_midpoints_decided_by_row_and_column_bits_or_closer(k):
    """Exact midpoints (1 + 2**-24 rounds to even, 1) decided without a settlement, in
    both passes over the undecided: row 0 holds a 2**-120 that only meets zeros of b, so
    the bound from its row's lowest bit is too coarse and the element-wise closer look
    decides it; the other rows are decided from their rows' and columns' lowest bits;
    row 7 cancels exactly to +0.  (k = 16: vector row bits, k = 4: scalar.)"""
    a = np.zeros((8, k), np.float32)
    b = np.zeros((k, 8), np.float32)
    a[:, :2] = [1.0, 2.0 ** -12]
    b[:2, :] = [[1.0], [2.0 ** -12]]
    a[0, 2] = 2.0 ** -120              # (b's row 2 is all zeros)
    a[7, :2] = [1.0, -1.0]
    b[1, 7] = 1.0                      # d[7, 7] = 1 - 1 = +0; d[7, j] = 1 - 2**-12 else
    c = np.zeros((8, 8), np.float32)
    c[7, 7] = -0.0
    before = jit.settlements()
    results = run_both(mma_kernel(8, 8, k), a, b, c)
    assert jit.settlements() == before
    assert_same(results)
    d = np.frombuffer(results["compiled"][1], np.float32).reshape(8, 8)
    expected = np.ones((8, 8), np.float32)
    expected[:, 7] = np.float32(1 + 2.0 ** -12)
    expected[7] = np.float32(1 - 2.0 ** -12)
    expected[7, 7] = 0.0
    assert d.tobytes() == expected.tobytes()


def test_inexact_cancellation_is_settled_by_the_reference_semantics():
    """1 + 2**-60 - 1 - 2**-60 = 0, not provably exact: the bound straddles zero; the
    tile is settled by the reference's semantics (+0), compiled."""
    a = np.array([[1.0, 2.0 ** -30, -1.0, -(2.0 ** -30)]], np.float32)
    b = np.array([[1.0], [2.0 ** -30], [1.0], [2.0 ** -30]], np.float32)
    c = np.zeros((1, 1), np.float32)
    before = jit.settlements()
    results = run_both(mma_kernel(1, 1, 4), a, b, c)
    assert jit.settlements() - before == 1
    assert_same(results)
    assert results["compiled"][1] == np.zeros(1, np.float32).tobytes()


def test_cancelled_products_near_a_midpoint():
    """acc = -fl(a b): the result is the rounding error of a f32 product sum, far below
    its terms; compiled or rerun, the reference's bytes."""
    rng = np.random.default_rng(3)
    for _ in range(3):
        a = rng.standard_normal((16, 32)).astype(np.float32)
        b = rng.standard_normal((32, 16)).astype(np.float32)
        c = -(a.astype(np.float64) @ b).astype(np.float32)
        results = run_both(mma_kernel(16, 16, 32), a, b, c)
        assert results["compiled"][1] == results["blocks"][1]


def _bench_matmul(m: int, n: int, k: int, engine: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), 7, np.float32)
    run = tileir.launch(BENCH / "matmul.mlir", None, (-(-m // 64), -(-n // 64), 1),
                        [a, m, k, k, b, k, n, n, c, m, n, n], engine=engine)
    return run, c.tobytes()


@pytest.mark.parametrize("m, n, k", [(64, 64, 32), (70, 65, 40), (128, 96, 100)])
def test_bench_matmul_is_compiled(m, n, k):
    """The bench kernel: zero-padded partial tiles, a K loop carrying the accumulator."""
    ref = _bench_matmul(m, n, k, "blocks")
    run, out = _bench_matmul(m, n, k, "compiled")
    assert run.engine == "compiled", run
    assert out == ref[1]


@pytest.mark.parametrize("kind, why", [
    ("f64", "'cuda_tile.mmaf' with f64 operands and a f64 accumulator"),
])
def test_other_mmaf_declines(kind, why):
    rng = np.random.default_rng(0)
    dtype = np.float64
    a, b, c = (rng.standard_normal((4, 4)).astype(dtype) for _ in range(3))
    results = run_both(mma_kernel(4, 4, 4, kind, kind), a, b, c)
    run, out = results["compiled"]
    assert_declined(run, why)
    assert out == results["blocks"][1]


def test_mmaf_with_a_large_k_declines():
    a = np.ones((1, 32768), np.float32)
    b = np.ones((32768, 1), np.float32)
    c = np.zeros((1, 1), np.float32)
    results = run_both(mma_kernel(1, 1, 32768), a, b, c)
    run, out = results["compiled"]
    assert_declined(run, "K = 32768")
    assert out == results["blocks"][1]


def test_mmaf_with_fast_acc_declines():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(3))
    results = run_both(mma_kernel(4, 4, 4, extra="fast_acc "), a, b, c)
    run, out = results["compiled"]
    assert_declined(run, "attribute fast_acc")
    assert out == results["blocks"][1]


def test_batched_mmaf_declines():
    """mmaf on rank-3 tiles (a batch of products) is not compiled."""
    tv = "tensor_view<2x4x4xf32, strides=[16,4,1]>"
    pv = f"partition_view<tile=(2x4x4), {tv}>"
    ld = f"{pv}, tile<i32> -> tile<2x4x4xf32>, token"
    views = "\n".join(
        f"    %{x}v = make_tensor_view %{x}, shape = [2, 4, 4], strides = [16, 4, 1] : {tv}\n"
        f"    %{x}p = make_partition_view %{x}v : {pv}" for x in "abcd")
    text = f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %d: tile<ptr<f32>>) {{
    %t = make_token : token
{views}
    %z = constant <i32: 0> : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%z, %z, %z] token = %t : {ld}
    %y, %t2 = load_view_tko weak %bp[%z, %z, %z] token = %t : {ld}
    %w, %t3 = load_view_tko weak %cp[%z, %z, %z] token = %t : {ld}
    %r = mmaf %x, %y, %w : tile<2x4x4xf32>, tile<2x4x4xf32>, tile<2x4x4xf32>
    %done = store_view_tko weak %r, %dp[%z, %z, %z] token = %t : tile<2x4x4xf32>, {pv}, tile<i32> -> token
    return
  }}
}}"""
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((2, 4, 4)).astype(np.float32) for _ in range(3))
    results = run_both(text, a, b, c)
    run, out = results["compiled"]
    assert_declined(run, "on tiles of rank 3")
    assert out == results["blocks"][1]


def _refuse(kind: type[BaseException]):
    def tile(*args, **kwargs):
        raise kind("stop")
    return tile


def test_a_failing_settlement_hands_the_launch_over(monkeypatch):
    """A settle function that fails (here: made to raise) returns non-zero: the run stops,
    the journal puts memory back and the batched engine reruns: the reference's bytes."""
    from tileir.interp.compiled import settle
    monkeypatch.setattr(settle, "_tile", _refuse(RuntimeError))
    a, b, c = _tie_inputs(2.0 ** -60)
    results = run_both(mma_kernel(4, 4, 4), a, b, c)
    run, out = results["compiled"]
    assert run.engine == "batched", run
    assert run.reason.startswith("compiled engine: a check failed"), run
    assert out == results["blocks"][1]


def test_ctrl_c_in_a_settlement_stops_the_launch_with_memory_as_it_was(monkeypatch):
    """Ctrl-C met inside the settle function (called from compiled code, which cannot
    raise): the run stops, memory is put back, and the launch raises KeyboardInterrupt."""
    from tileir.interp.compiled import settle
    monkeypatch.setattr(settle, "_tile", _refuse(KeyboardInterrupt))
    a, b, c = _tie_inputs(2.0 ** -60)
    d = np.full(c.shape, 7, c.dtype)
    with pytest.raises(KeyboardInterrupt):
        tileir.launch(mma_kernel(4, 4, 4), None, 1, [a, b, c, d], engine="compiled")
    assert d.tobytes() == np.full(c.shape, 7, c.dtype).tobytes()
