"""The five benchmark problems as Triton kernels, for Triton's CPU interpreter.

Import this module only with ``TRITON_INTERPRET=1`` in the environment (Triton reads it at
import): kernels_bench.py runs it in a subprocess that sets it.  Each kernel has the tiling
of its Tile IR counterpart in bench/kernels/ (same grid, same tile sizes, same math: f32
accumulation, P rounded to f16 for attention's P @ V), and takes torch CPU tensors.
`LAUNCH[name](grid, dims, inputs, out)` runs one over `grid` (a prefix of the full grid's
x extent is allowed: the pilot launches of the benchmark).
"""

from __future__ import annotations

from typing import Callable

import torch
import triton
import triton.language as tl

Tensors = dict[str, torch.Tensor]


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    """c = a + b over one 1024-element block per program."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    a = tl.load(a_ptr + offsets, mask=inside, other=0.0)
    b = tl.load(b_ptr + offsets, mask=inside, other=0.0)
    tl.store(c_ptr + offsets, a + b, mask=inside)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, ldx, ldy, BLOCK: tl.constexpr):
    """Row softmax of one row per program (lanes past n read -inf)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    x = tl.load(x_ptr + row * ldx + cols, mask=inside, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * ldy + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, m, n, k, lda, ldb, ldc,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """One BM x BN tile of C = A @ B per program, f32 accumulation over K steps of BK."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        ks = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rows[:, None] * lda + ks[None, :],
                    mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * ldb + cols[None, :],
                    mask=(ks[:, None] < k) & (cols[None, :] < n), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rows[:, None] * ldc + cols[None, :], acc,
             mask=(rows[:, None] < m) & (cols[None, :] < n))


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, n, ldx, ldy, eps, BLOCK: tl.constexpr):
    """Layernorm with weight and bias of one row per program (biased variance)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    x = tl.load(x_ptr + row * ldx + cols, mask=inside, other=0.0)
    mean = tl.sum(x, axis=0) / n
    centered = tl.where(inside, x - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / n
    w = tl.load(w_ptr + cols, mask=inside, other=0.0)
    b = tl.load(b_ptr + cols, mask=inside, other=0.0)
    y = centered * tl.rsqrt(var + eps) * w + b
    tl.store(y_ptr + row * ldy + cols, y, mask=inside)


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sq, sk, ldq, ldk, ldv, ldo, scale,
                     BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    """BM query rows of flash attention per program, online softmax over BN-key blocks."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + rows[:, None] * ldq + dims[None, :], mask=rows[:, None] < sq, other=0.0)
    m_run = tl.full((BM,), -float("inf"), dtype=tl.float32)
    l_run = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for start in range(0, sk, BN):
        keys = start + tl.arange(0, BN)
        valid = keys < sk
        kt = tl.load(k_ptr + keys[None, :] * ldk + dims[:, None], mask=valid[None, :], other=0.0)
        v = tl.load(v_ptr + keys[:, None] * ldv + dims[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q, kt, out_dtype=tl.float32) * scale
        s = tl.where(valid[None, :], s, -float("inf"))
        m_new = tl.maximum(m_run, tl.max(s, axis=1))
        alpha = tl.exp(m_run - m_new)
        p = tl.exp(s - m_new[:, None])
        l_run = l_run * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None], out_dtype=tl.float32)
        m_run = m_new
    out = acc / l_run[:, None]
    tl.store(o_ptr + rows[:, None] * ldo + dims[None, :], out.to(tl.float16),
             mask=rows[:, None] < sq)


def _vector_add(grid: tuple, dims: dict, x: Tensors, out: torch.Tensor) -> None:
    """Launch vector_add_kernel."""
    vector_add_kernel[grid](x["a"], x["b"], out, dims["n"], BLOCK=1024)


def _softmax(grid: tuple, dims: dict, x: Tensors, out: torch.Tensor) -> None:
    """Launch softmax_kernel."""
    softmax_kernel[grid](x["x"], out, dims["n"], dims["n"], dims["n"], BLOCK=1024)


def _matmul(grid: tuple, dims: dict, x: Tensors, out: torch.Tensor) -> None:
    """Launch matmul_kernel (64x64 tiles, K step 32)."""
    m, k, n = dims["m"], dims["k"], dims["n"]
    matmul_kernel[grid](x["a"], x["b"], out, m, n, k, k, n, n, BM=64, BN=64, BK=32)


def _layernorm(grid: tuple, dims: dict, x: Tensors, out: torch.Tensor) -> None:
    """Launch layernorm_kernel (eps as the benchmark's)."""
    from kernels_bench import EPS
    n = dims["n"]
    layernorm_kernel[grid](x["x"], out, x["w"], x["b"], n, n, n, EPS, BLOCK=1024)


def _attention(grid: tuple, dims: dict, x: Tensors, out: torch.Tensor) -> None:
    """Launch attention_kernel (64 queries per program, 64 keys per step)."""
    from kernels_bench import SCALE
    attention_kernel[grid](x["q"], x["k"], x["v"], out, dims["sq"], dims["sk"], 64, 64, 64,
                           64, SCALE, BM=64, BN=64, D=64)


LAUNCH: dict[str, Callable[[tuple, dict, Tensors, torch.Tensor], None]] = {
    "vector_add": _vector_add, "softmax": _softmax, "matmul": _matmul,
    "layernorm": _layernorm, "attention": _attention,
}
