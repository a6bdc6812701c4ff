"""Our own cuTile Python kernels for the bytecode oracle corpus, with how to launch them.

Each `Kernel` names a `@ct.kernel` function, the `KernelSignature` parameters it is exported
with (array and scalar constraints, plain ints for `Constant` parameters), the bytecode
versions cuTile can export it at, and a `Launch`: the grid, the runtime arguments (constants
are folded into the kernel, so they are not arguments) and a NumPy reference that computes the
expected outputs from the inputs. The launch data is for the interpreter; the bytecode tests
only export the kernels. Importing this module needs `cuda.tile` (the `oracles` extra).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint

ALL_VERSIONS = ("13.1", "13.3", "13.4")

Arrays = dict[str, np.ndarray]


@dataclass(frozen=True)
class Arg:
    """One runtime argument: an array (`shape` non-empty) or a scalar (`shape == ()`)."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    role: str  # "in", "out", "inout" or "scalar"
    value: float | int | None = None


@dataclass(frozen=True)
class Launch:
    """How to run a kernel: grid, arguments, input maker and NumPy reference for the outputs."""

    grid: tuple[int, int, int]
    args: tuple[Arg, ...]
    inputs: Callable[[np.random.Generator], Arrays]
    reference: Callable[[Arrays], Arrays]


@dataclass(frozen=True)
class Rejected:
    """A kernel cuTile exports but NVIDIA's reader rejects (its verifier fails)."""

    name: str
    function: Any
    parameters: tuple[Any, ...]
    versions: tuple[str, ...] = field(default=ALL_VERSIONS)


@dataclass(frozen=True)
class Kernel:
    """A corpus entry: name, cuTile kernel, export parameters, launch and export versions."""

    name: str
    function: Any
    parameters: tuple[Any, ...]
    launch: Launch
    versions: tuple[str, ...] = field(default=ALL_VERSIONS)


def array(dtype: Any, ndim: int, index_dtype: Any = ct.int32) -> ArrayConstraint:
    """A contiguous (last stride 1), 16-aligned array whose shape is a multiple of 16."""
    return ArrayConstraint(dtype, ndim, index_dtype=index_dtype, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,),
                           base_addr_divisible_by=16, shape_divisible_by=16)


def scalar(dtype: Any) -> ScalarConstraint:
    """A runtime scalar parameter of the given dtype."""
    return ScalarConstraint(dtype)


def arg(name: str, dtype: str, shape: tuple[int, ...], role: str) -> Arg:
    """An array argument."""
    return Arg(name, dtype, shape, role)


def uniform(rng: np.random.Generator, shape: tuple[int, ...], dtype: str,
            low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """Uniform random floats of a NumPy dtype."""
    return rng.uniform(low, high, size=shape).astype(dtype)


# ---- vector add -------------------------------------------------------------------------

@ct.kernel
def vector_add(a, b, c, tile: ct.Constant[int]):
    """c = a + b, one tile per block."""
    i = ct.bid(0)
    x = ct.load(a, (i,), (tile,))
    y = ct.load(b, (i,), (tile,))
    ct.store(c, (i,), x + y)


@ct.kernel
def axpy_i64(x, y, alpha: float):
    """y = alpha * x + y on int64-indexed f64 arrays."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (16,))
    u = ct.load(y, (i,), (16,))
    ct.store(y, (i,), alpha * t + u)


# ---- matmul -----------------------------------------------------------------------------

@ct.kernel
def matmul_f16(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """c (f16) = a (f16) @ b (f16), accumulated in f32 with mma over K tiles."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (tm, tk))):
        x = ct.load(a, (bm, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, bn), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (bm, bn), ct.astype(acc, ct.float16))


@ct.kernel
def matmul_f32(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """c = a @ b in f32 with the @ operator."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (tm, tk))):
        acc = acc + ct.load(a, (bm, k), (tm, tk)) @ ct.load(b, (k, bn), (tk, tn))
    ct.store(c, (bm, bn), acc)


# ---- softmax and layernorm --------------------------------------------------------------

@ct.kernel
def softmax_rows(x, y, rows: ct.Constant[int], cols: ct.Constant[int]):
    """Row softmax over `rows` rows per block."""
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (rows, cols))
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, (i, 0), e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def layernorm(x, w, b, y, eps: float, rows: ct.Constant[int], cols: ct.Constant[int]):
    """y = (x - mean) / sqrt(var + eps) * w + b per row."""
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (rows, cols))
    mean = ct.sum(t, axis=1, keepdims=True) / cols
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / cols
    weight = ct.reshape(ct.load(w, (0,), (cols,)), (1, cols))
    bias = ct.reshape(ct.load(b, (0,), (cols,)), (1, cols))
    ct.store(y, (i, 0), d * ct.rsqrt(var + eps) * weight + bias)


# ---- attention --------------------------------------------------------------------------

@ct.kernel
def flash_attention(q, k, v, o, scale: float, bq: ct.Constant[int], bk: ct.Constant[int],
                    d: ct.Constant[int]):
    """o = softmax(q k^T * scale) v with an online softmax over key tiles."""
    i = ct.bid(0)
    qt = ct.load(q, (i, 0), (bq, d))
    m = ct.full((bq, 1), -math.inf, dtype=ct.float32)
    denom = ct.zeros((bq, 1), dtype=ct.float32)
    acc = ct.zeros((bq, d), dtype=ct.float32)
    for j in range(ct.num_tiles(k, 0, (bk, d))):
        kt = ct.load(k, (j, 0), (bk, d))
        vt = ct.load(v, (j, 0), (bk, d))
        s = ct.mma(qt, ct.transpose(kt), ct.zeros((bq, bk), dtype=ct.float32)) * scale
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m - m_new)
        denom = denom * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(ct.astype(p, ct.float16), vt, acc * alpha)
        m = m_new
    ct.store(o, (i, 0), ct.astype(acc / denom, ct.float16))


# ---- reduce and scan --------------------------------------------------------------------

def _min_abs(a, b):
    """Combiner for a custom reduce: the smaller magnitude."""
    return ct.minimum(ct.abs(a), ct.abs(b))


@ct.kernel
def reduce_scan(x, total, prefix, top, where_top, smallest, rows: ct.Constant[int],
                cols: ct.Constant[int]):
    """Row sum, row cumsum, row max and argmax, and a custom min-|x| reduce."""
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (rows, cols))
    ct.store(total, (i,), ct.sum(t, axis=1))
    ct.store(prefix, (i, 0), ct.cumsum(t, axis=1))
    ct.store(top, (i,), ct.max(t, axis=1))
    ct.store(where_top, (i,), ct.argmax(t, axis=1))
    ct.store(smallest, (i,), ct.reduce(t, 1, _min_abs, math.inf))


# ---- atomics, gather and scatter --------------------------------------------------------

@ct.kernel
def histogram(values, bins, peak, seen, tile: ct.Constant[int]):
    """bins[v] += 1 per value (atomic add at loaded indices), peak[0] = max, seen[v] = 1 (CAS)."""
    i = ct.bid(0)
    v = ct.load(values, (i,), (tile,))
    ct.atomic_add(bins, v, 1)
    ct.atomic_max(peak, ct.zeros((tile,), dtype=ct.int32), v)
    ct.atomic_cas(seen, v, 0, 1)


@ct.kernel
def gather_scatter(src, perm, dst, tile: ct.Constant[int]):
    """dst[perm[j]] = 2 * src[perm[j]] for the even j of each tile; odd j gather padding."""
    i = ct.bid(0)
    p = ct.load(perm, (i,), (tile,))
    even = ct.arange(tile, dtype=ct.int32) % 2 == 0
    g = ct.gather(src, p, mask=even, padding_value=-1.0)
    ct.scatter(dst, p, g * 2.0)


@ct.kernel
def view_atomics(x, n, sums, peaks, bits, tile: ct.Constant[int]):
    """Tiled-view atomic reductions (atomic_red_view_tko, 13.3): rows 8*(i % 2) to
    8*(i % 2) + 7 of sums += tile i of x (addf, two indices), peaks = max and bits = xor
    of n's tiles (one index)."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,))
    sums.tiled_view((8, tile)).atomic_store_add((i % 2, 0), t)
    u = ct.load(n, (i,), (tile,))
    peaks.tiled_view((tile,)).atomic_store_max((0,), u)
    bits.tiled_view((tile,)).atomic_store_xor((0,), u)


# ---- control flow with print and assert -------------------------------------------------

@ct.kernel
def control_flow(x, y, steps, limit: float, tile: ct.Constant[int]):
    """Halve a tile until its max drops below `limit` (loop with break), then add 0+1+2."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,))
    n = 0
    while True:
        t = t * 0.5
        n += 1
        if ct.max(t) < limit:
            break
    for j in range(3):
        t = t + j
    ct.printf("block %d took %d halvings\n", i, n)
    ct.assert_(n > 0, "the loop ran no iteration")
    if n > 4:
        t = -t
    ct.store(y, (i,), t)
    ct.store(steps, (i,), ct.full((1,), n, dtype=ct.int32))


# ---- integer, math and shape ops --------------------------------------------------------

@ct.kernel
def integer_ops(a, b, u, bits, shifts, extremes, quotients, unsigned, tile: ct.Constant[int]):
    """Bitwise ops, shifts, min/max, floor division and modulo, signed and unsigned."""
    i = ct.bid(0)
    x = ct.load(a, (i,), (tile,))
    y = ct.load(b, (i,), (tile,))
    w = ct.load(u, (i,), (tile,))
    ct.store(bits, (i,), ((x & y) ^ (x | y)) | ~x)
    ct.store(shifts, (i,), (x << 3) >> (y & 7))
    ct.store(extremes, (i,), ct.maximum(x, y) - ct.minimum(x, -y) + abs(x))
    ct.store(quotients, (i,), x // y + x % y)
    ct.store(unsigned, (i,), (w >> 3) + w % 5 + ct.maximum(w, 7))


@ct.kernel
def math_ops(x, exps, trig, powers, tile: ct.Constant[int]):
    """exp/log family, trigonometry, roots and powers on positive floats."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,))
    ct.store(exps, (i,), ct.exp(t) + ct.log(t) + ct.exp2(t) + ct.log2(t))
    ct.store(trig, (i,), ct.sin(t) * ct.cos(t) + ct.tanh(t) + ct.tan(t * 0.5)
             + ct.sinh(t) - ct.cosh(t))
    ct.store(powers, (i,), ct.sqrt(t) * ct.rsqrt(t + 1.0) + ct.pow(t, 2.5)
             + ct.floor(t * 3.0) - ct.ceil(-t) + abs(-t) + t ** 3)


@ct.kernel
def ops_13_3(x, n, y, halves, tile: ct.Constant[int]):
    """Ops newer than 13.1: atan2 (13.2), byte packing and unpacking (13.3)."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,))
    ct.store(y, (i,), ct.atan2(t, t + 1.0))
    packed = ct.pack_to_bytes(ct.load(n, (i,), (tile,)))
    ct.store(halves, (i,), ct.unpack_from_bytes(packed, ct.int16))


@ct.kernel
def ops_13_4(x, y, tile: ct.Constant[int]):
    """Ops new in 13.4: grid dependency control, insert into a tile and integer powers."""
    ct.grid_dependency_control_wait()
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,)) ** 2
    ct.store(y, (i,), ct.insert(t, (1,), ct.full((4,), 7.0, dtype=ct.float32)))
    ct.grid_dependency_control_launch_dependents()


@ct.kernel
def shape_ops(x, v, y, z):
    """Transpose, reshape, cat, extract, broadcast, expand_dims and a 3-d permute."""
    t = ct.load(x, (0, 0), (16, 32))
    r = ct.reshape(ct.transpose(t), (16, 32))
    c = ct.cat((t, r), 0)
    e = ct.extract(c, (1, 0), (16, 32))
    row = ct.expand_dims(ct.load(v, (0,), (32,)), 0)
    ct.store(y, (0, 0), e + ct.broadcast_to(row, (16, 32)))
    p = ct.permute(ct.reshape(t, (4, 4, 32)), (2, 0, 1))
    ct.store(z, (0, 0), ct.reshape(p, (32, 16)))


@ct.kernel
def conversions(x, halves, ints, bits, flags, tile: ct.Constant[int]):
    """Float narrowing and widening, float<->int, bitcast, where and isnan."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (tile,))
    h = ct.astype(ct.astype(t, ct.bfloat16), ct.float16)
    ct.store(halves, (i,), h)
    n = ct.astype(ct.where(ct.isnan(t), 0.0, t) * 100.0, ct.int32)   # NaN to int is UB
    ct.store(ints, (i,), n + ct.astype(ct.astype(n, ct.float32) * 0.5, ct.int32)
             + ct.astype(ct.astype(n, ct.int8), ct.int32))
    ct.store(bits, (i,), ct.bitcast(t, ct.int32))
    ct.store(flags, (i,), ct.where(ct.isnan(t) | (t > 0.5), 1, 0))


@ct.kernel
def unsigned_floordiv(u, q, tile: ct.Constant[int]):
    """q = u // 7 on uint32, which cuTile 1.7.0 writes as an invalid unsigned divi."""
    i = ct.bid(0)
    ct.store(q, (i,), ct.load(u, (i,), (tile,)) // 7)


# ---- NumPy references -------------------------------------------------------------------

def _softmax(x: np.ndarray) -> np.ndarray:
    """Row softmax."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layernorm(x: Arrays) -> Arrays:
    """Reference layernorm with eps 1e-5."""
    t = x["x"]
    d = t - t.mean(axis=1, keepdims=True)
    var = (d * d).mean(axis=1, keepdims=True)
    return {"y": (d / np.sqrt(var + 1e-5) * x["w"] + x["b"]).astype(np.float32)}


def _attention(x: Arrays) -> Arrays:
    """Reference attention with scale 1/sqrt(32)."""
    q, k, v = (x[n].astype(np.float32) for n in "qkv")
    return {"o": (_softmax(q @ k.T / math.sqrt(32)) @ v).astype(np.float16)}


def _reduce_scan(x: Arrays) -> Arrays:
    """Row reductions and scans."""
    t = x["x"]
    return {"total": t.sum(axis=1), "prefix": np.cumsum(t, axis=1), "top": t.max(axis=1),
            "where_top": t.argmax(axis=1).astype(np.int32),
            "smallest": np.abs(t).min(axis=1)}


def _gather_scatter(x: Arrays) -> Arrays:
    """dst[perm[j]] = 2*src[perm[j]] for even j, -2 for odd j."""
    dst = x["dst"].copy()
    even = np.arange(64) % 2 == 0
    dst[x["perm"]] = np.where(even, 2 * x["src"][x["perm"]], -2.0).astype(np.float32)
    return {"dst": dst}


def _view_atomics(x: Arrays) -> Arrays:
    """Tiles 0 and 2 of x summed into rows 0-7, tiles 1 and 3 into rows 8-15; the max
    (with the initial zeros) and the xor of n's four tiles."""
    tiles, n = x["x"].reshape(4, 16), x["n"].reshape(4, 16)
    sums = np.repeat(np.stack([tiles[0] + tiles[2], tiles[1] + tiles[3]]), 8, axis=0)
    return {"sums": sums.astype(np.float32),
            "peaks": np.maximum(n.max(axis=0), 0).astype(np.int32),
            "bits": np.bitwise_xor.reduce(n, axis=0).astype(np.int32)}


def _control_flow(x: Arrays) -> Arrays:
    """Per 16-element block: halve until max < 0.25, add 3, negate after more than 4 halvings."""
    y = np.empty_like(x["x"])
    steps = x["steps"].copy()
    for i in range(4):
        t, n = x["x"][16 * i:16 * i + 16], 0
        while True:
            t, n = t * np.float32(0.5), n + 1
            if t.max() < 0.25:
                break
        t = t + np.float32(3)
        y[16 * i:16 * i + 16] = -t if n > 4 else t
        steps[i] = n
    return {"y": y, "steps": steps}


def _integer_ops(x: Arrays) -> Arrays:
    """Integer results with Python floor division and modulo."""
    a, b, u = x["a"], x["b"], x["u"]
    return {"bits": ((a & b) ^ (a | b)) | ~a, "shifts": (a << 3) >> (b & 7),
            "extremes": np.maximum(a, b) - np.minimum(a, -b) + np.abs(a),
            "quotients": a // b + a % b,
            "unsigned": (u >> 3) + u % 5 + np.maximum(u, np.uint32(7))}


def _math_ops(x: Arrays) -> Arrays:
    """Transcendental results in f32."""
    t = x["x"]
    f = np.float32
    return {"exps": np.exp(t) + np.log(t) + np.exp2(t) + np.log2(t),
            "trig": np.sin(t) * np.cos(t) + np.tanh(t) + np.tan(t * f(0.5)) + np.sinh(t)
            - np.cosh(t),
            "powers": np.sqrt(t) / np.sqrt(t + f(1)) + t ** f(2.5) + np.floor(t * f(3))
            - np.ceil(-t) + t + t ** 3}


def _ops_13_4(x: Arrays) -> Arrays:
    """Squares, with elements 4..7 of every 16 replaced by 7."""
    y = x["x"] ** 2
    y.reshape(4, 16)[:, 4:8] = 7.0
    return {"y": y}


def _shape_ops(x: Arrays) -> Arrays:
    """The reshapes of shape_ops in NumPy."""
    t = x["x"]
    r = t.T.reshape(16, 32)
    e = np.concatenate([t, r], 0)[16:32]
    return {"y": e + x["v"][None, :],
            "z": t.reshape(4, 4, 32).transpose(2, 0, 1).reshape(32, 16)}


def _conversions(x: Arrays) -> Arrays:
    """Conversions; bf16 is f32 rounded to nearest even at its top 16 bits."""
    t = x["x"]
    bits = t.view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    n = np.where(np.isnan(t), np.float32(0), t * np.float32(100)).astype(np.int32)  # NaN -> 0
    return {"halves": rounded.astype(np.float16),
            "ints": n + (n.astype(np.float32) * np.float32(0.5)).astype(np.int32)
            + n.astype(np.int8).astype(np.int32),
            "bits": bits.view(np.int32),
            "flags": np.where(np.isnan(t) | (t > 0.5), 1, 0).astype(np.int32)}


def _positive(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Floats in [0.25, 2) for math that needs positive inputs."""
    return uniform(rng, shape, "float32", 0.25, 2.0)


def _nonzero(rng: np.random.Generator) -> np.ndarray:
    """Int32 divisors in [-9, 9] without zero."""
    b = rng.integers(1, 10, size=64, dtype=np.int32)
    return np.where(rng.integers(0, 2, size=64) == 1, b, -b).astype(np.int32)


F16, F32, F64, I16, I32, U32 = "float16", "float32", "float64", "int16", "int32", "uint32"

KERNELS: tuple[Kernel, ...] = (
    Kernel("vector_add", vector_add, (array(ct.float32, 1),) * 3 + (16,),
           Launch((4, 1, 1), (arg("a", F32, (64,), "in"), arg("b", F32, (64,), "in"),
                              arg("c", F32, (64,), "out")),
                  lambda r: {"a": uniform(r, (64,), F32), "b": uniform(r, (64,), F32)},
                  lambda x: {"c": x["a"] + x["b"]})),
    Kernel("axpy_i64", axpy_i64,
           (array(ct.float64, 1, ct.int64), array(ct.float64, 1, ct.int64), scalar(ct.float64)),
           Launch((4, 1, 1), (arg("x", F64, (64,), "in"), arg("y", F64, (64,), "inout"),
                              Arg("alpha", F64, (), "scalar", 2.5)),
                  lambda r: {"x": uniform(r, (64,), F64), "y": uniform(r, (64,), F64)},
                  lambda x: {"y": 2.5 * x["x"] + x["y"]})),
    Kernel("matmul_f16", matmul_f16, (array(ct.float16, 2),) * 3 + (32, 32, 16),
           Launch((2, 2, 1), (arg("a", F16, (64, 64), "in"), arg("b", F16, (64, 64), "in"),
                              arg("c", F16, (64, 64), "out")),
                  lambda r: {"a": uniform(r, (64, 64), F16), "b": uniform(r, (64, 64), F16)},
                  lambda x: {"c": (x["a"].astype(np.float32) @ x["b"].astype(np.float32))
                             .astype(np.float16)})),
    Kernel("matmul_f32", matmul_f32, (array(ct.float32, 2),) * 3 + (16, 16, 16),
           Launch((4, 2, 1), (arg("a", F32, (64, 48), "in"), arg("b", F32, (48, 32), "in"),
                              arg("c", F32, (64, 32), "out")),
                  lambda r: {"a": uniform(r, (64, 48), F32), "b": uniform(r, (48, 32), F32)},
                  lambda x: {"c": x["a"] @ x["b"]})),
    Kernel("softmax_rows", softmax_rows, (array(ct.float32, 2),) * 2 + (4, 64),
           Launch((4, 1, 1), (arg("x", F32, (16, 64), "in"), arg("y", F32, (16, 64), "out")),
                  lambda r: {"x": uniform(r, (16, 64), F32, -4, 4)},
                  lambda x: {"y": _softmax(x["x"])})),
    Kernel("layernorm", layernorm,
           (array(ct.float32, 2), array(ct.float32, 1), array(ct.float32, 1),
            array(ct.float32, 2), scalar(ct.float32), 4, 64),
           Launch((4, 1, 1), (arg("x", F32, (16, 64), "in"), arg("w", F32, (64,), "in"),
                              arg("b", F32, (64,), "in"), arg("y", F32, (16, 64), "out"),
                              Arg("eps", F32, (), "scalar", 1e-5)),
                  lambda r: {"x": uniform(r, (16, 64), F32, -3, 3),
                             "w": uniform(r, (64,), F32), "b": uniform(r, (64,), F32)},
                  _layernorm)),
    Kernel("flash_attention", flash_attention,
           (array(ct.float16, 2),) * 4 + (scalar(ct.float32), 16, 16, 32),
           Launch((4, 1, 1), (arg("q", F16, (64, 32), "in"), arg("k", F16, (64, 32), "in"),
                              arg("v", F16, (64, 32), "in"), arg("o", F16, (64, 32), "out"),
                              Arg("scale", F32, (), "scalar", 1 / math.sqrt(32))),
                  lambda r: {n: uniform(r, (64, 32), F16) for n in "qkv"},
                  _attention)),
    Kernel("reduce_scan", reduce_scan,
           (array(ct.float32, 2), array(ct.float32, 1), array(ct.float32, 2),
            array(ct.float32, 1), array(ct.int32, 1), array(ct.float32, 1), 4, 64),
           Launch((4, 1, 1), (arg("x", F32, (16, 64), "in"), arg("total", F32, (16,), "out"),
                              arg("prefix", F32, (16, 64), "out"),
                              arg("top", F32, (16,), "out"),
                              arg("where_top", I32, (16,), "out"),
                              arg("smallest", F32, (16,), "out")),
                  lambda r: {"x": uniform(r, (16, 64), F32)}, _reduce_scan)),
    Kernel("histogram", histogram, (array(ct.int32, 1),) * 4 + (16,),
           Launch((4, 1, 1), (arg("values", I32, (64,), "in"), arg("bins", I32, (16,), "inout"),
                              arg("peak", I32, (16,), "inout"), arg("seen", I32, (16,), "inout")),
                  lambda r: {"values": r.integers(0, 16, size=64, dtype=np.int32),
                             "bins": np.zeros(16, np.int32), "peak": np.zeros(16, np.int32),
                             "seen": np.zeros(16, np.int32)},
                  lambda x: {"bins": np.bincount(x["values"], minlength=16).astype(np.int32),
                             "peak": np.array([x["values"].max()] + [0] * 15, np.int32),
                             "seen": (np.bincount(x["values"], minlength=16) > 0)
                             .astype(np.int32)})),
    Kernel("gather_scatter", gather_scatter,
           (array(ct.float32, 1), array(ct.int32, 1), array(ct.float32, 1), 16),
           Launch((4, 1, 1), (arg("src", F32, (64,), "in"), arg("perm", I32, (64,), "in"),
                              arg("dst", F32, (64,), "inout")),
                  lambda r: {"src": uniform(r, (64,), F32),
                             "perm": r.permutation(64).astype(np.int32),
                             "dst": np.zeros(64, np.float32)},
                  _gather_scatter)),
    Kernel("view_atomics", view_atomics,
           (array(ct.float32, 1), array(ct.int32, 1), array(ct.float32, 2),
            array(ct.int32, 1), array(ct.int32, 1), 16),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("n", I32, (64,), "in"),
                              arg("sums", F32, (16, 16), "inout"),
                              arg("peaks", I32, (16,), "inout"),
                              arg("bits", I32, (16,), "inout")),
                  lambda r: {"x": uniform(r, (64,), F32),
                             "n": r.integers(-1000, 1000, size=64, dtype=np.int32),
                             "sums": np.zeros((16, 16), np.float32),
                             "peaks": np.zeros(16, np.int32), "bits": np.zeros(16, np.int32)},
                  _view_atomics),
           ("13.3", "13.4")),
    Kernel("control_flow", control_flow,
           (array(ct.float32, 1), array(ct.float32, 1), array(ct.int32, 1), scalar(ct.float32),
            16),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("y", F32, (64,), "out"),
                              arg("steps", I32, (16,), "inout"),
                              Arg("limit", F32, (), "scalar", 0.25)),
                  lambda r: {"x": uniform(r, (64,), F32, 0.0, 8.0),
                             "steps": np.zeros(16, np.int32)}, _control_flow)),
    Kernel("integer_ops", integer_ops,
           (array(ct.int32, 1), array(ct.int32, 1), array(ct.uint32, 1))
           + (array(ct.int32, 1),) * 4 + (array(ct.uint32, 1), 16),
           Launch((4, 1, 1), (arg("a", I32, (64,), "in"), arg("b", I32, (64,), "in"),
                              arg("u", U32, (64,), "in"), arg("bits", I32, (64,), "out"),
                              arg("shifts", I32, (64,), "out"),
                              arg("extremes", I32, (64,), "out"),
                              arg("quotients", I32, (64,), "out"),
                              arg("unsigned", U32, (64,), "out")),
                  lambda r: {"a": r.integers(-1000, 1000, size=64, dtype=np.int32),
                             "b": _nonzero(r),
                             "u": r.integers(0, 2**32, size=64, dtype=np.uint32)},
                  _integer_ops)),
    Kernel("math_ops", math_ops, (array(ct.float32, 1),) * 4 + (16,),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("exps", F32, (64,), "out"),
                              arg("trig", F32, (64,), "out"),
                              arg("powers", F32, (64,), "out")),
                  lambda r: {"x": _positive(r, (64,))}, _math_ops)),
    Kernel("ops_13_3", ops_13_3,
           (array(ct.float32, 1), array(ct.int32, 1), array(ct.float32, 1),
            array(ct.int16, 1), 16),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("n", I32, (64,), "in"),
                              arg("y", F32, (64,), "out"), arg("halves", I16, (128,), "out")),
                  lambda r: {"x": uniform(r, (64,), F32),
                             "n": r.integers(-2**31, 2**31, size=64, dtype=np.int32)},
                  lambda x: {"y": np.arctan2(x["x"], x["x"] + np.float32(1)),
                             "halves": x["n"].view(np.int16)}),
           ("13.3", "13.4")),
    Kernel("ops_13_4", ops_13_4, (array(ct.float32, 1),) * 2 + (16,),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("y", F32, (64,), "out")),
                  lambda r: {"x": uniform(r, (64,), F32)}, _ops_13_4),
           ("13.4",)),
    Kernel("shape_ops", shape_ops,
           (array(ct.float32, 2), array(ct.float32, 1), array(ct.float32, 2),
            array(ct.float32, 2)),
           Launch((1, 1, 1), (arg("x", F32, (16, 32), "in"), arg("v", F32, (32,), "in"),
                              arg("y", F32, (16, 32), "out"), arg("z", F32, (32, 16), "out")),
                  lambda r: {"x": uniform(r, (16, 32), F32), "v": uniform(r, (32,), F32)},
                  _shape_ops)),
    Kernel("conversions", conversions,
           (array(ct.float32, 1), array(ct.float16, 1)) + (array(ct.int32, 1),) * 3 + (16,),
           Launch((4, 1, 1), (arg("x", F32, (64,), "in"), arg("halves", F16, (64,), "out"),
                              arg("ints", I32, (64,), "out"), arg("bits", I32, (64,), "out"),
                              arg("flags", I32, (64,), "out")),
                  lambda r: {"x": np.where(np.arange(64) % 9 == 0, np.float32("nan"),
                                           uniform(r, (64,), F32)).astype(np.float32)},
                  _conversions)),
)

# cuTile 1.7.0 gives unsigned floor division `rounding<negative_inf>`, which the Tile IR
# verifier forbids with `unsigned`: tileirdisasm and tileiras refuse the file.
REJECTED: tuple[Rejected, ...] = (
    Rejected("unsigned_floordiv", unsigned_floordiv, (array(ct.uint32, 1),) * 2 + (16,)),
)
