"""The five benchmark problems as NVIDIA Warp tile-API kernels on Warp's CPU device, for the
kernel bench's Warp column (issue 20's peer table: "NVIDIA Warp tile API (CPU)").

Each kernel is written with Warp's tile API (``tile_load``/``tile_store``, tile arithmetic,
``tile_max``/``tile_sum``/``tile_reduce``/``tile_map``, ``tile_matmul``) and walks the
grid of its Tile IR counterpart in bench/kernels/ with the same tiles: 1024-element tiles
(vector add), one 1x1024 row tile per block (softmax, layernorm), 64x64 output tiles
with K steps of 32 (matmul), 64 queries per block over blocks of 64 keys with the online
softmax, f16 Q/K/V, P rounded to f16 for P V and f32 accumulation (attention).
`LAUNCH[name](grid, dims, inputs, out)` runs one over `grid` (a prefix of the full grid's
x extent is allowed: the benchmark's pilot launches).

One thread: Warp's CPU launch runs the grid's blocks as a plain loop in the calling
thread (the generated ``<kernel>_cpu_forward`` entry loops over the tasks; there is no
thread pool), launched here with ``block_dim=1`` and ``wp.config.enable_cpu_blocks`` left
False (its default: CPU blocks of more than one logical thread would run as fibers,
still on the calling thread).  Loading the module compiles serially
(``load_module_max_workers`` 0, Warp's default).  Host arrays: the NumPy inputs and the
output buffer are wrapped as Warp CPU arrays without copies (``wp.array(..., copy=False)``
shares their memory) inside each launch, so the timed region includes that wrapping
(microseconds) and no data copy; the kernel writes the NumPy output buffer directly.

Only full tiles: every benchmark size is a whole number of tiles along the tiled row
axes (N = 1024 for softmax and layernorm, multiples of 64 for matmul and attention), which
the launchers assert; Warp's bounds-checked loads would pad with zero where the Tile IR
kernels pad softmax with -inf and mask layernorm's and attention's extra lanes.  Vector
add's partial last tile is handled (zero-padded load, clipped store, as in Tile IR).
Warp compiles the module (all five kernels, forward only) at the first launch or `load`;
its kernel cache is Warp's (``wp.config.kernel_cache_dir`` or ``WARP_CACHE_PATH``, which
the bench and tests point at a temporary directory), and its console messages are
silenced with ``wp.config.log_level`` (Warp 1.19 has no ``quiet`` flag).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import warp as wp

wp.config.log_level = wp.LOG_WARNING   # no "Module ... load on device 'cpu' took ..." lines
wp.set_module_options({"enable_backward": False})   # forward kernels only: faster compile

Arrays = dict[str, np.ndarray]
VADD_TILE = 1024    # vector_add: elements per tile
ROW_TILE = 1024     # softmax, layernorm: lanes per row tile
MM_TILE = 64        # matmul: output tile edge
MM_K = 32           # matmul: K step
ATT_TILE = 64       # attention: queries per block, keys per step, head dimension


@wp.kernel
def vector_add(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32),
               c: wp.array(dtype=wp.float32)):
    """c = a + b, one 1024-element tile per block."""
    block = wp.tid()
    ta = wp.tile_load(a, shape=VADD_TILE, offset=block * VADD_TILE)
    tb = wp.tile_load(b, shape=VADD_TILE, offset=block * VADD_TILE)
    wp.tile_store(c, ta + tb, offset=block * VADD_TILE)


@wp.kernel
def softmax(x: wp.array2d(dtype=wp.float32), y: wp.array2d(dtype=wp.float32)):
    """Row softmax, one 1x1024 row tile per block: exp(x - max) / sum."""
    row = wp.tid()
    v = wp.tile_load(x, shape=(1, ROW_TILE), offset=(row, 0))
    top = wp.tile_broadcast(wp.tile_max(v), shape=(1, ROW_TILE))
    e = wp.tile_map(wp.exp, v - top)
    total = wp.tile_broadcast(wp.tile_sum(e), shape=(1, ROW_TILE))
    wp.tile_store(y, e / total, offset=(row, 0))


@wp.kernel
def layernorm(x: wp.array2d(dtype=wp.float32), w: wp.array(dtype=wp.float32),
              b: wp.array(dtype=wp.float32), y: wp.array2d(dtype=wp.float32),
              eps: wp.float32):
    """Layernorm with weight and bias, one 1x1024 row tile per block, biased variance."""
    row = wp.tid()
    n = wp.float32(x.shape[1])
    v = wp.tile_load(x, shape=(1, ROW_TILE), offset=(row, 0))
    tw = wp.tile_broadcast(wp.tile_load(w, shape=ROW_TILE), shape=(1, ROW_TILE))
    tb = wp.tile_broadcast(wp.tile_load(b, shape=ROW_TILE), shape=(1, ROW_TILE))
    mean = wp.tile_sum(v) / n
    d = v - wp.tile_broadcast(mean, shape=(1, ROW_TILE))
    var = wp.tile_sum(d * d)[0] / n
    rstd = wp.float32(1.0) / wp.sqrt(var + eps)
    wp.tile_store(y, d * rstd * tw + tb, offset=(row, 0))


@wp.kernel
def matmul(a: wp.array2d(dtype=wp.float32), b: wp.array2d(dtype=wp.float32),
           c: wp.array2d(dtype=wp.float32)):
    """C = A B in 64x64 output tiles, K in steps of 32, f32 accumulation."""
    bx, by = wp.tid()
    steps = (a.shape[1] + MM_K - 1) // MM_K
    acc = wp.tile_zeros(shape=(MM_TILE, MM_TILE), dtype=wp.float32, storage="shared")
    for kk in range(steps):
        ta = wp.tile_load(a, shape=(MM_TILE, MM_K), offset=(bx * MM_TILE, kk * MM_K))
        tb = wp.tile_load(b, shape=(MM_K, MM_TILE), offset=(kk * MM_K, by * MM_TILE))
        wp.tile_matmul(ta, tb, acc)
    wp.tile_store(c, acc, offset=(bx * MM_TILE, by * MM_TILE))


@wp.kernel
def attention(q: wp.array2d(dtype=wp.float16), k: wp.array2d(dtype=wp.float16),
              v: wp.array2d(dtype=wp.float16), o: wp.array2d(dtype=wp.float16),
              scale: wp.float32):
    """Flash attention: 64 queries per block, keys in blocks of 64, online softmax (running
    max m, running sum l, rescaled accumulator), f16 in and out, f32 accumulation."""
    block = wp.tid()
    steps = (k.shape[0] + ATT_TILE - 1) // ATT_TILE
    tq = wp.tile_load(q, shape=(ATT_TILE, ATT_TILE), offset=(block * ATT_TILE, 0))
    m = wp.tile_full(shape=ATT_TILE, value=-wp.inf, dtype=wp.float32)
    l = wp.tile_zeros(shape=ATT_TILE, dtype=wp.float32)
    acc = wp.tile_zeros(shape=(ATT_TILE, ATT_TILE), dtype=wp.float32, storage="shared")
    for j in range(steps):
        tk = wp.tile_load(k, shape=(ATT_TILE, ATT_TILE), offset=(j * ATT_TILE, 0))
        tv = wp.tile_load(v, shape=(ATT_TILE, ATT_TILE), offset=(j * ATT_TILE, 0))
        s = wp.tile_zeros(shape=(ATT_TILE, ATT_TILE), dtype=wp.float32, storage="shared")
        wp.tile_matmul(tq, wp.tile_transpose(tk), s)          # f16 x f16 -> f32
        s = s * scale
        m_new = wp.tile_map(wp.max, m, wp.tile_reduce(wp.max, s, axis=1))
        alpha = wp.tile_map(wp.exp, m - m_new)
        p = wp.tile_map(wp.exp, s - wp.tile_broadcast(wp.tile_reshape(m_new, shape=(ATT_TILE, 1)), shape=(ATT_TILE, ATT_TILE)))
        l = l * alpha + wp.tile_sum(p, axis=1)
        acc = acc * wp.tile_broadcast(wp.tile_reshape(alpha, shape=(ATT_TILE, 1)), shape=(ATT_TILE, ATT_TILE))
        wp.tile_matmul(wp.tile_astype(p, wp.float16), tv, acc)  # P rounded to f16
        m = m_new
    out = acc / wp.tile_broadcast(wp.tile_reshape(l, shape=(ATT_TILE, 1)), shape=(ATT_TILE, ATT_TILE))
    wp.tile_store(o, wp.tile_astype(out, wp.float16), offset=(block * ATT_TILE, 0))


def load() -> None:
    """Compile (or load from Warp's kernel cache) the module for the CPU device, so the
    first timed launch does not pay for it."""
    wp.load_module(vector_add.module, device="cpu", block_dim=1)


def _wrap(array: np.ndarray) -> wp.array:
    """A Warp CPU array sharing `array`'s memory (no copy)."""
    return wp.array(array, device="cpu", copy=False)


def _launch(kernel, grid: tuple, arrays: list[np.ndarray], *scalars) -> None:
    """Launch `kernel` over `grid` on the CPU, one thread per block, on wrapped arrays."""
    wp.launch_tiled(kernel, dim=list(grid), inputs=[_wrap(a) for a in arrays] + list(scalars),
                    block_dim=1, device="cpu")


def _full_tiles(what: str, size: int, tile: int) -> None:
    """Refuse a size that is not a whole number of tiles (see the module docstring)."""
    if size % tile:
        raise ValueError(f"warp_kernels: {what} = {size} is not a multiple of {tile}")


def _vector_add(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    _launch(vector_add, grid, [x["a"], x["b"], out])


def _softmax(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    _full_tiles("N", dims["n"], ROW_TILE)
    _launch(softmax, grid, [x["x"], out])


def _matmul(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    for name in ("m", "k", "n"):
        _full_tiles(name.upper(), dims[name], MM_TILE)
    _launch(matmul, grid, [x["a"], x["b"], out])


def _layernorm(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    from kernels_bench import EPS
    _full_tiles("N", dims["n"], ROW_TILE)
    _launch(layernorm, grid, [x["x"], x["w"], x["b"], out], wp.float32(EPS))


def _attention(grid: tuple, dims: dict, x: Arrays, out: np.ndarray) -> None:
    from kernels_bench import SCALE
    _full_tiles("Sq", dims["sq"], ATT_TILE)
    _full_tiles("Sk", dims["sk"], ATT_TILE)
    _launch(attention, grid, [x["q"], x["k"], x["v"], out], wp.float32(SCALE))


LAUNCH: dict[str, Callable[[tuple, dict, Arrays, np.ndarray], None]] = {
    "vector_add": _vector_add, "softmax": _softmax, "matmul": _matmul,
    "layernorm": _layernorm, "attention": _attention,
}
