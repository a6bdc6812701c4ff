"""End-to-end dense-math kernels (tileir/examples/kernels): matmul (f32, f16), softmax,
layernorm and flash attention, run by the interpreter and checked against NumPy.

Tolerances: exact where the math is exact (integer-valued inputs whose products and sums
are representable); otherwise a bound derived from the kernel's roundings, stated at each
check, with u = 2**-24 (f32 unit roundoff) and u16 = 2**-11 (f16).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np
import pytest

import tileir
from conftest import SHARED, require
from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from tileir.ir import Module

U32 = 2.0 ** -24
U16 = 2.0 ** -11
SCHEDULES = ("sequential", "reverse", "random")


@lru_cache(maxsize=None)
def kernel(name: str) -> Module:
    """The parsed shipped kernel `name`.mlir (parsed once per test session)."""
    text = resources.files("tileir").joinpath(f"examples/kernels/{name}.mlir").read_text()
    return tileir.parse(text, f"{name}.mlir")


def ceil_div(a: int, b: int) -> int:
    """ceil(a / b) for positive integers."""
    return -(-a // b)


# ---- matmul_f32 ----------------------------------------------------------------------


def run_matmul_f32(a: np.ndarray, b: np.ndarray, k: int, n: int, m: int,
                   c: np.ndarray, schedule: str = "sequential") -> None:
    """Launch matmul_f32 on the leading m x k, k x n, m x n of `a`, `b`, `c` (strided)."""
    launch(kernel("matmul_f32"), None, (ceil_div(m, 16), ceil_div(n, 16)),
           [a, m, k, a.shape[1], b, k, n, b.shape[1], c, m, n, c.shape[1]],
           schedule=schedule, seed=3)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_matmul_f32_integer_inputs_are_exact(schedule: str) -> None:
    """Integer-valued f32 matmul with partial tiles is exact under every schedule."""
    # Partial tiles in every dimension (M=20, N=33 over 16x16 tiles, K=13 over 8-steps).
    # |C| <= 13 * 64 < 2**24: every partial sum is an integer f32 holds, so C is exact.
    rng = np.random.default_rng(0)
    m, k, n = 20, 13, 33
    a = rng.integers(-8, 8, (m, k)).astype(np.float32)
    b = rng.integers(-8, 8, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    run_matmul_f32(a, b, k, n, m, c, schedule)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


def test_matmul_f32_strided_reads_only_its_rows_and_writes_only_its_tile() -> None:
    """Row strides wider than the matrices: nothing past K or N is read or written."""
    # The matrices live in wider buffers (row strides 16, 40, 48): the columns past K and
    # N are NaN in the inputs and a sentinel in the output; zero padding comes from the
    # view bounds, so no NaN may leak in and no sentinel may be overwritten.
    rng = np.random.default_rng(1)
    m, k, n = 18, 11, 35
    a = np.full((m, 16), np.nan, np.float32)
    b = np.full((k, 40), np.nan, np.float32)
    c = np.full((m, 48), -7.0, np.float32)
    a[:, :k] = rng.integers(-4, 5, (m, k))
    b[:, :n] = rng.integers(-4, 5, (k, n))
    run_matmul_f32(a, b, k, n, m, c)
    np.testing.assert_array_equal(c[:, :n], a[:, :k].astype(np.float64) @ b[:, :n])
    assert (c[:, n:] == -7.0).all()


def test_matmul_f32_random_inputs_within_the_rounding_bound() -> None:
    """Random f32 matmul is within ceil(K/8) u of |A| @ |B|."""
    # Each mmaf rounds (acc + A_tile @ B_tile) once to f32 (the interpreter's mmaf is
    # correctly rounded); over ceil(K/8) steps, each rounding errs by at most
    # u * |partial sum| <= u * (|A| @ |B|), so |C - A @ B| <= ceil(K/8) * u * (|A| @ |B|).
    rng = np.random.default_rng(2)
    m, k, n = 17, 29, 31
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    run_matmul_f32(a, b, k, n, m, c, "random")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = ceil_div(k, 8) * U32 * (np.abs(a64) @ np.abs(b64))
    assert (np.abs(c - a64 @ b64) <= bound).all()


def test_matmul_f32_grid_past_the_index_space_is_reported() -> None:
    """A tile block indexing past the partition's index space is reported."""
    # M = 5 has one row of 16x8 tiles: tile block (1, 0) indexes past it (undefined
    # behaviour, reported rather than computed).
    a = np.zeros((5, 1), np.float32)
    b = np.zeros((1, 7), np.float32)
    c = np.zeros((5, 7), np.float32)
    with pytest.raises(ExecutionError, match=r"outside the index space.*tile block \(1, 0, 0\)"):
        launch(kernel("matmul_f32"), None, (2, 1), [a, 5, 1, 1, b, 1, 7, 7, c, 5, 7, 7])


def test_matmul_f32_with_empty_k() -> None:
    """K = 0 makes a tensor view with a zero extent: undefined behaviour (spec: sizes are
    strictly positive); with checks off the loop runs no step and C is the zero sum."""
    a = np.zeros((5, 1), np.float32)
    b = np.zeros((1, 7), np.float32)
    c = np.full((5, 7), 3.0, np.float32)
    args = [a, 5, 0, 1, b, 0, 7, 7, c, 5, 7, 7]
    with pytest.raises(ExecutionError, match="zero extent"):
        launch(kernel("matmul_f32"), None, (1, 1), args)
    launch(kernel("matmul_f32"), None, (1, 1), args, checks=False)
    assert (c == 0).all()


# ---- matmul_f16 ----------------------------------------------------------------------


def run_matmul_f16(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                   schedule: str = "sequential") -> None:
    """Launch matmul_f16 on dense row-major `a` (M x K), `b` (K x N) into `c` (M x N)."""
    (m, k), n = a.shape, b.shape[1]
    launch(kernel("matmul_f16"), None, (ceil_div(m, 16), ceil_div(n, 16)),
           [a, m, k, k, b, k, n, n, c, m, n, n], schedule=schedule, seed=5)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_matmul_f16_integer_inputs_are_exact(schedule: str) -> None:
    """Integer-valued f16 matmul is exact under every schedule."""
    # |C| <= 40 * 16 = 640 <= 2048: integers f16 holds exactly, so the final ftof is exact.
    rng = np.random.default_rng(3)
    m, k, n = 24, 40, 20
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    run_matmul_f16(a, b, c, schedule)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


def test_matmul_f16_accumulates_in_f32() -> None:
    """Sums f16 cannot hold survive in the f32 accumulator."""
    # 2048 + 1 + 1 + ... : in f16, 2048 + 1 rounds back to 2048 (ulp 2 there); accumulated
    # in f32 the 32 ones survive and the f16 result 2080 is exact.
    k = 33
    a = np.ones((1, k), np.float16)
    b = np.ones((k, 1), np.float16)
    b[0, 0] = 2048
    c = np.zeros((1, 1), np.float16)
    run_matmul_f16(a, b, c)
    assert c[0, 0] == 2048 + 32


def test_matmul_f16_random_inputs_within_the_rounding_bound() -> None:
    """Random f16 matmul is within the f32 accumulation plus f16 rounding bound."""
    # f32 accumulation errs by at most ceil(K/16) * u * (|A| @ |B|) (as for matmul_f32),
    # then ftof rounds once to f16: at most half an f16 ulp of the f32 value, which is
    # below u16 * |f32 value|.
    rng = np.random.default_rng(4)
    m, k, n = 20, 50, 18
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    run_matmul_f16(a, b, c, "reverse")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = a64 @ b64
    acc_err = ceil_div(k, 16) * U32 * (np.abs(a64) @ np.abs(b64))
    bound = acc_err + U16 * (np.abs(exact) + acc_err) + 2.0 ** -25  # + f16 subnormal step
    assert (np.abs(c.astype(np.float64) - exact) <= bound).all()


def test_cutile_matmul_f16_artifact_runs_exactly() -> None:
    """NVIDIA's cuTile matmul artifact runs exactly and its assumptions are checked."""
    # NVIDIA's tileirdisasm output of the cuTile matmul (128x128 tiles, K steps of 32, f32
    # accumulation, f16 result): two tile blocks, integer inputs so C is exact.
    path = require(SHARED / "reference" / "artifacts" / "matmul_f16.v13.4.mlir")
    module = tileir.parse(path.read_text(), path.name)
    rng = np.random.default_rng(14)
    m, k, n = 256, 96, 128
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    launch(module, None, (2, 1), [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1])
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
    # Its `assume div_by<16>` on the sizes is checked: K = 95 breaks it.
    with pytest.raises(ExecutionError, match="assumed predicate"):
        launch(module, None, (2, 1), [a, m, 95, k, 1, b, 95, n, n, 1, c, m, n, n, 1])


# ---- softmax -------------------------------------------------------------------------


def run_softmax(x: np.ndarray, schedule: str = "sequential") -> np.ndarray:
    """Launch softmax on the rows of `x` (f32); the result."""
    m, n = x.shape
    y = np.full_like(x, np.nan)
    launch(kernel("softmax"), None, m, [x, m, n, n, y, m, n, n], schedule=schedule, seed=7)
    return y


def softmax_bound(x: np.ndarray) -> np.ndarray:
    """Per-row relative error bound of the f32 softmax kernel."""
    # x - max rounds with error <= u * |x - max|, which exp turns into a relative error of
    # about u * |x - max|; exp itself rounds once (u); the pairwise sum over 64 lanes is 6
    # levels deep (6u on top of its terms' errors); the divide rounds once (u).  Numerator
    # and denominator errors add: 2 * (u * max|x - max| + u) + 6u + u, plus u of margin.
    # (Observed on the test data: 17 u against a bound of 38 u.)
    spread = (x.max(axis=1, keepdims=True) - x).astype(np.float64)
    return (2 * spread.max(axis=1, keepdims=True) + 9 + 1) * U32


def softmax64(x: np.ndarray) -> np.ndarray:
    """Row softmax in float64."""
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_softmax_rows_within_the_rounding_bound(schedule: str) -> None:
    """Row softmax is within the derived relative bound under every schedule."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((7, 50)) * 4).astype(np.float32)
    y = run_softmax(x, schedule)
    ref = softmax64(x)
    assert (np.abs(y - ref) <= softmax_bound(x) * ref).all()


def test_softmax_subtracts_the_max_so_large_inputs_do_not_overflow() -> None:
    """Inputs near 1000 do not overflow; a one-element row gives 1."""
    # exp(1000) overflows f32; shifting by the row max keeps every exp in [0, 1].  N = 64
    # fills the tile; N = 1 gives exactly 1 whatever the value.
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((3, 64)) + 1000).astype(np.float32)
    y = run_softmax(x)
    ref = softmax64(x)
    assert (np.abs(y - ref) <= softmax_bound(x) * ref).all()
    one = run_softmax(np.array([[-3.0e38], [7.0]], np.float32))
    assert one.tolist() == [[1.0], [1.0]]


def test_softmax_of_equal_values_is_exactly_uniform() -> None:
    """Equal inputs give exactly 1/N."""
    # exp(0) = 1 exactly, the sum of 32 ones is 32, and 1/32 is exact.
    y = run_softmax(np.full((2, 32), 3.25, np.float32))
    assert (y == 1 / 32).all()


# ---- layernorm -----------------------------------------------------------------------


def run_layernorm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float,
                  schedule: str = "sequential") -> np.ndarray:
    """Launch layernorm on the rows of `x` with weight `w`, bias `b`; the result."""
    m, n = x.shape
    y = np.full_like(x, np.nan)
    launch(kernel("layernorm"), None, m, [x, m, n, n, y, m, n, n, w, b, n, eps],
           schedule=schedule, seed=11)
    return y


def layernorm64(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """(layernorm, x_hat) in float64, eps taken as the f32 the kernel receives."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    xhat = (x64 - mean) / np.sqrt(var + float(np.float32(eps)))
    return xhat * w + b, xhat


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_layernorm_rows_within_the_rounding_bound(schedule: str) -> None:
    """Layernorm is within 32 u of |x_hat w| + |b| under every schedule."""
    # Rows with |mean| below a few standard deviations.  The mean errs by at most
    # (6 + 1) u * mean|x| (pairwise sum of 64 lanes, divide), so x - mean errs by about
    # u * |x - mean| + 7u * mean|x|, a few u of the standard deviation; the variance's
    # squares, sum and divide add (2 + 6 + 1) u relative, rsqrt rounds once, and the
    # three final ops round once each.  32 u of (|x_hat * w| + |b|) covers this with a
    # margin (observed: about 3 u).
    rng = np.random.default_rng(8)
    m, n = 6, 50
    x = (rng.standard_normal((m, n)) * 3 + 1).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = run_layernorm(x, w, b, 1e-5, schedule)
    ref, xhat = layernorm64(x, w, b, 1e-5)
    assert (np.abs(y - ref) <= 32 * U32 * (np.abs(xhat * w) + np.abs(b))).all()


def test_layernorm_masks_padding_lanes_out_of_the_variance() -> None:
    """Lanes past N do not count in the variance."""
    # Row [1, 3] (N = 2): mean 2, variance 1 (padding lanes would add 62 * 4 if they were
    # counted), eps 0: x_hat = [-1, 1] exactly, then * w + b exactly.
    x = np.array([[1.0, 3.0]], np.float32)
    w = np.array([2.0, 0.5], np.float32)
    b = np.array([10.0, -1.0], np.float32)
    y = run_layernorm(x, w, b, 0.0)
    assert y.tolist() == [[8.0, -0.5]]


# ---- flash attention -----------------------------------------------------------------


def run_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float,
                  schedule: str = "sequential") -> np.ndarray:
    """Launch flash_attention (head dimension 16); O as f32."""
    sq, sk = q.shape[0], k.shape[0]
    o = np.full((sq, 16), np.nan, np.float32)
    launch(kernel("flash_attention"), None, ceil_div(sq, 16),
           [q, sq, 16, k, sk, 16, v, sk, 16, o, sq, 16, scale], schedule=schedule, seed=13)
    return o


def attention64(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """softmax(scale * Q K^T) V in float64."""
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def test_flash_attention_within_the_f16_probability_bound() -> None:
    """Flash attention is within the f16-rounded-P bound of float64 attention."""
    # Sq = 40, Sk = 37: partial query and key blocks (3 key blocks, the last masked).
    # The dominant error is P rounded to f16 for P @ V: each p in [0, 1] errs by at most
    # u16 * p (or 2**-25 below f16's normal range), while l sums the unrounded p, so O
    # errs by at most u16 * max|V| (weights summing to 1) plus 2**-25 * Sk * max|V| / l,
    # l >= 1.  The f32 work adds tens of u: scores |s| < 16 err by u * |s|, which exp turns
    # into relative errors of p, and the sums, rescalings and divide round a few times
    # each; 1e-5 * max|V| (168 u) covers it.  (Observed: 0.08 of the u16 term.)
    rng = np.random.default_rng(9)
    sq, sk = 40, 37
    q = rng.standard_normal((sq, 16)).astype(np.float16)
    k = rng.standard_normal((sk, 16)).astype(np.float16)
    v = rng.standard_normal((sk, 16)).astype(np.float16)
    o = run_attention(q, k, v, 0.25)
    vmax = float(np.abs(v.astype(np.float64)).max())
    bound = (U16 + 2.0 ** -25 * sk + 1e-5) * vmax
    assert np.abs(o - attention64(q, k, v, 0.25)).max() <= bound


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_flash_attention_with_equal_keys_averages_the_values_exactly(schedule: str) -> None:
    """Equal scores give exactly the column mean of V (tail keys masked)."""
    # K = 0: every score is 0, every p is exp(0) = 1 (exact in f16), the running max
    # stays 0 and the rescale factor exp(0) = 1.  With integer V the accumulator holds the
    # exact column sums, so O is the correctly rounded column mean.  The 11 padding keys
    # of the last block would add ones to l if the mask failed.
    rng = np.random.default_rng(10)
    sq, sk = 20, 37
    q = rng.standard_normal((sq, 16)).astype(np.float16)
    k = np.zeros((sk, 16), np.float16)
    v = rng.integers(-50, 50, (sk, 16)).astype(np.float16)
    o = run_attention(q, k, v, 0.25, schedule)
    mean = (v.astype(np.float64).sum(axis=0) / sk).astype(np.float32)
    np.testing.assert_array_equal(o, np.broadcast_to(mean, o.shape))


def test_flash_attention_one_dominant_key_selects_its_value() -> None:
    """A dominant key selects its value row exactly, across a rescale."""
    # Query i scores 64 with key i and 0 or -64 with every other key: exp(-64) < 2**-92
    # rounds to 0 in f16 and vanishes next to 1 in the f32 sums, so O row i is V row i
    # exactly.  Queries 16..31 see only scores 0 and -64 in the first key block and their
    # key in the second, so their accumulator is rescaled by exp(-64) (the online path).
    n = 32
    q = np.zeros((n, 16), np.float16)
    k = np.zeros((n, 16), np.float16)
    q[np.arange(n), np.arange(n) % 16] = 8
    k[np.arange(n), np.arange(n) % 16] = 8
    k[16:, :] *= -1  # keys 16..31 point the other way: queries 16..31 see 8*(-8) = -64
    q[16:, :] *= -1
    rng = np.random.default_rng(12)
    v = rng.standard_normal((n, 16)).astype(np.float16)
    o = run_attention(q, k, v, 1.0)
    np.testing.assert_array_equal(o, v.astype(np.float32))
