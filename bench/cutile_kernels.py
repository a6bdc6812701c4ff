"""The five benchmark problems as cuTile Python kernels (``@ct.kernel``), run on tileir.

Importing this module needs ``cuda.tile`` (the ``cuda-tile`` package, the ``oracles``
extra).  Each kernel has the tiling and the math of its Tile IR counterpart in
bench/kernels/*.mlir, op for op where cuTile lets us say it:

* vector_add: 1024-element tiles, zero padding;
* softmax: one 1x1024 row per tile block, -inf padding, max / exp / sum / divide;
* matmul: 64x64 output tiles, K steps of 32 (64x32 by 32x64 products), f32 accumulation
  with ``ct.mma`` (one rounding per K step), zero padding;
* layernorm: one 1x1024 row per block; mean = sum / N, lanes past N masked out of the
  centred row, biased variance, ``rsqrt(var + eps)``, then ``* W + B``;
* attention: 64 query rows per block, 64 keys per step, f16 Q/K/V, f32 scores and
  accumulator, keys past Sk masked to -inf, online softmax, P rounded to f16 for P @ V,
  f16 output.

One difference cuTile does not let us avoid: its compiler contracts a float multiply that
feeds an add into one ``fma`` (the rewrite pass ``fuse_mul_addsub``, always on), so
layernorm's ``x_hat * W + B`` and attention's running sum ``l * alpha + rowsum`` round once
where the Tile IR text kernels (``mulf`` then ``addf``) round twice.  vector_add, softmax
and matmul export op for op to the text kernels' math and give the same bytes.

The kernels are launched through ``tileir.cutile.launch`` (the drop-in for
``cuda.tile.launch``), which exports them to bytecode with cuTile's own compiler front
end (once per argument signature: the export is cached) and runs the bytecode on the
interpreter.  `run(name, grid, inputs, out, **options)` launches one over `grid`
(a prefix of the full grid's x extent is allowed: the pilot launches of the benchmark)
and returns the interpreter's `Run` (which engine ran); `export_module` gives the module
that runs.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import cuda.tile as ct
import numpy as np

from tileir.cutile import Exported, export, flatten, launch

Arrays = dict[str, np.ndarray]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF


@ct.kernel
def vector_add(a, b, c):
    """c = a + b, one 1024-element tile per block (the extent n is the arrays')."""
    i = ct.bid(0)
    x = ct.load(a, (i,), (1024,), padding_mode=ZERO)
    y = ct.load(b, (i,), (1024,), padding_mode=ZERO)
    ct.store(c, (i,), x + y)


@ct.kernel
def softmax(x, y):
    """Row softmax of one 1x1024 row per block (lanes past N load -inf: exp gives 0)."""
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (1, 1024), padding_mode=NEG_INF)
    p = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, (i, 0), p / ct.sum(p, axis=1, keepdims=True))


@ct.kernel
def matmul(a, b, c):
    """One 64x64 tile of C = A @ B per block, f32 accumulation over K steps of 32."""
    bx = ct.bid(0)
    by = ct.bid(1)
    acc = ct.zeros((64, 64), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, 1, (64, 32))):
        ta = ct.load(a, (bx, kk), (64, 32), padding_mode=ZERO)
        tb = ct.load(b, (kk, by), (32, 64), padding_mode=ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (bx, by), acc)


@ct.kernel
def layernorm(x, y, w, b, eps: float):
    """Layernorm with weight and bias of one 1x1024 row per block (biased variance;
    lanes past N, x's row length, load 0 and are masked out of the centred row)."""
    i = ct.bid(0)
    n = x.shape[1]
    t = ct.load(x, (i, 0), (1, 1024), padding_mode=ZERO)
    weight = ct.reshape(ct.load(w, (0,), (1024,), padding_mode=ZERO), (1, 1024))
    bias = ct.reshape(ct.load(b, (0,), (1024,), padding_mode=ZERO), (1, 1024))
    inside = ct.reshape(ct.arange(1024, dtype=ct.int32), (1, 1024)) < n
    count = ct.astype(ct.full((1, 1), n, dtype=ct.int32), ct.float32)
    mean = ct.sum(t, axis=1, keepdims=True) / count
    d = ct.where(inside, t - mean, ct.zeros((1, 1024), dtype=ct.float32))
    var = ct.sum(d * d, axis=1, keepdims=True) / count
    ct.store(y, (i, 0), d * ct.rsqrt(var + eps) * weight + bias)


@ct.kernel
def attention(q, k, v, o, scale: float):
    """64 query rows of flash attention per block, online softmax over 64-key steps;
    keys past Sk score -inf; P rounded to f16 for P @ V; O rounded to f16."""
    i = ct.bid(0)
    sk = k.shape[0]
    qt = ct.load(q, (i, 0), (64, 64), padding_mode=ZERO)
    lane = ct.reshape(ct.arange(64, dtype=ct.int32), (1, 64))
    zero = ct.zeros((64, 64), dtype=ct.float32)
    neginf = ct.full((64, 64), -math.inf, dtype=ct.float32)
    m = ct.full((64, 1), -math.inf, dtype=ct.float32)
    lsum = ct.zeros((64, 1), dtype=ct.float32)
    acc = ct.zeros((64, 64), dtype=ct.float32)
    for j in range(ct.num_tiles(k, 0, (64, 64))):
        kt = ct.load(k, (0, j), (64, 64), order="F", padding_mode=ZERO)   # K^T's tile
        tv = ct.load(v, (j, 0), (64, 64), padding_mode=ZERO)
        s0 = ct.mma(qt, kt, zero) * scale
        s = ct.where(lane + j * 64 < sk, s0, neginf)
        mnew = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        alpha = ct.exp(m - mnew)
        p = ct.exp(s - mnew)
        lsum = lsum * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(ct.astype(p, ct.float16), tv, acc * alpha)
        m = mnew
    ct.store(o, (i, 0), ct.astype(acc / lsum, ct.float16))


Arguments = Callable[[Arrays, np.ndarray], tuple[Any, tuple]]


def _vector_add(x: Arrays, out: np.ndarray) -> tuple[Any, tuple]:
    """vector_add and its arguments."""
    return vector_add, (x["a"], x["b"], out)


def _softmax(x: Arrays, out: np.ndarray) -> tuple[Any, tuple]:
    """softmax and its arguments."""
    return softmax, (x["x"], out)


def _matmul(x: Arrays, out: np.ndarray) -> tuple[Any, tuple]:
    """matmul (64x64 tiles, K step 32) and its arguments."""
    return matmul, (x["a"], x["b"], out)


def _layernorm(x: Arrays, out: np.ndarray) -> tuple[Any, tuple]:
    """layernorm and its arguments (eps as the benchmark's)."""
    from kernels_bench import EPS
    return layernorm, (x["x"], out, x["w"], x["b"], EPS)


def _attention(x: Arrays, out: np.ndarray) -> tuple[Any, tuple]:
    """attention (64 queries per block, 64 keys per step) and its arguments."""
    from kernels_bench import SCALE
    return attention, (x["q"], x["k"], x["v"], out, SCALE)


#: problem name -> (inputs, output) -> (the @ct.kernel, its ct.launch arguments)
ARGUMENTS: dict[str, Arguments] = {
    "vector_add": _vector_add, "softmax": _softmax, "matmul": _matmul,
    "layernorm": _layernorm, "attention": _attention,
}


def run(name: str, grid: tuple[int, ...], x: Arrays, out: np.ndarray, **options: Any
        ) -> Any:
    """Launch problem `name`'s kernel over `grid` through tileir.cutile.launch (options:
    checks, engine, schedule, ...); returns the interpreter's `Run`."""
    kernel, args = ARGUMENTS[name](x, out)
    return launch(None, grid, kernel, args, **options)


def export_module(name: str, x: Arrays, out: np.ndarray) -> Exported:
    """The Tile IR module cuTile exports problem `name`'s kernel to for these arguments
    (what `run` executes; cached by tileir.cutile after the first call)."""
    kernel, args = ARGUMENTS[name](x, out)
    constraints, _ = flatten(kernel, args)
    return export(kernel, constraints)
