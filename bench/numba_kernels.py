"""The five benchmark problems as Numba kernels written as tile loops, for the kernel bench's
Numba column (issue 20's peer table: "Numba tile loops").

Each kernel walks the grid of its Tile IR counterpart in bench/kernels/ (same tiles, f32
math) with plain loops that Numba compiles (`@njit`, one thread: no `parallel`, no BLAS).
`LAUNCH[name](grid, dims, inputs, out)` runs one over `grid` (a prefix of the full grid's
x extent is allowed: the pilot launches of the benchmark).  Numba compiles each kernel at
its first call (the bench's warm-up, untimed).  Attention computes in f32 throughout (P is
not rounded to f16 before P V): within the problem's tolerance, not the same bits.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from numba import njit

Arrays = dict[str, np.ndarray]


@njit(cache=False)
def vector_add(a, b, c, n, blocks):
    """c = a + b, one 1024-element tile per block."""
    for block in range(blocks):
        first = block * 1024
        for i in range(first, min(first + 1024, n)):
            c[i] = a[i] + b[i]


@njit(cache=False)
def softmax(x, y, rows):
    """Row softmax, one row per block."""
    n = x.shape[1]
    for r in range(rows):
        top = np.float32(-np.inf)
        for j in range(n):
            top = max(top, x[r, j])
        total = np.float32(0)
        for j in range(n):
            e = np.float32(math.exp(x[r, j] - top))
            y[r, j] = e
            total += e
        for j in range(n):
            y[r, j] = y[r, j] / total


@njit(cache=False)
def matmul(a, b, c, rows, cols):
    """C = A B in 64 x 64 tiles, K in steps of 32, f32 accumulation."""
    k = a.shape[1]
    acc = np.zeros((64, 64), np.float32)
    for bx in range(rows):
        for by in range(cols):
            acc[:, :] = 0
            for kk in range(0, k, 32):
                for i in range(64):
                    for p in range(kk, kk + 32):
                        v = a[bx * 64 + i, p]
                        for j in range(64):
                            acc[i, j] += v * b[p, by * 64 + j]
            c[bx * 64:bx * 64 + 64, by * 64:by * 64 + 64] = acc


@njit(cache=False)
def layernorm(x, w, b, y, rows, eps):
    """Layernorm with weight and bias, one row per block, f32 math."""
    n = x.shape[1]
    for r in range(rows):
        total = np.float32(0)
        for j in range(n):
            total += x[r, j]
        mean = total / np.float32(n)
        square = np.float32(0)
        for j in range(n):
            d = x[r, j] - mean
            square += d * d
        rstd = np.float32(1) / np.float32(math.sqrt(square / np.float32(n) + eps))
        for j in range(n):
            y[r, j] = (x[r, j] - mean) * rstd * w[j] + b[j]


@njit(cache=False)
def attention(q, k, v, o, blocks, scale):
    """Flash attention: 64 query rows per block, keys in blocks of 64, online softmax."""
    sk = k.shape[0]
    s = np.empty((64, 64), np.float32)
    acc = np.empty((64, 64), np.float32)
    top = np.empty(64, np.float32)
    total = np.empty(64, np.float32)
    for block in range(blocks):
        rows = block * 64
        acc[:, :] = 0
        top[:] = -np.inf
        total[:] = 0
        for kb in range(0, sk, 64):
            for i in range(64):
                for j in range(64):
                    dot = np.float32(0)
                    for d in range(64):
                        dot += q[rows + i, d] * k[kb + j, d]
                    s[i, j] = dot * scale
            for i in range(64):
                new = top[i]
                for j in range(64):
                    new = max(new, s[i, j])
                alpha = np.float32(math.exp(top[i] - new))
                top[i] = new
                row_sum = np.float32(0)
                for j in range(64):
                    p = np.float32(math.exp(s[i, j] - new))
                    s[i, j] = p
                    row_sum += p
                total[i] = total[i] * alpha + row_sum
                for d in range(64):
                    acc[i, d] *= alpha
                for j in range(64):
                    p = s[i, j]
                    for d in range(64):
                        acc[i, d] += p * v[kb + j, d]
        for i in range(64):
            for d in range(64):
                o[rows + i, d] = acc[i, d] / total[i]


def _vector_add(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    vector_add(x["a"], x["b"], out, dims["n"], grid[0])


def _softmax(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    softmax(x["x"], out, grid[0])


def _matmul(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    matmul(x["a"], x["b"], out, grid[0], grid[1])


def _layernorm(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    from kernels_bench import EPS
    layernorm(x["x"], x["w"], x["b"], out, grid[0], np.float32(EPS))


def _attention(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    from kernels_bench import SCALE
    q, k, v = (x[name].astype(np.float32) for name in ("q", "k", "v"))
    wide = np.zeros(out.shape, np.float32)
    attention(q, k, v, wide, grid[0], np.float32(SCALE))
    rows = grid[0] * 64
    out[:rows] = wide[:rows].astype(np.float16)


LAUNCH: dict[str, Callable[[tuple, dict, Arrays, np.ndarray], None]] = {
    "vector_add": _vector_add, "softmax": _softmax, "matmul": _matmul,
    "layernorm": _layernorm, "attention": _attention,
}
