"""The compiled engine's second slice against the reference engine (engine="blocks"):
tiles and views of rank 2 and 3, broadcast, reshape, iota, itof, ftoi, rsqrt, reduce (in
the reference's order) and for loops; the same bytes, the same diagnostics, and a
fallback with a reason wherever it declines."""
# ruff: noqa: E501  (kernel text: one op per line, as the bench kernels write them)

from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import F32_SPECIAL, assert_declined, assert_engine  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402
from tileir.enums import RoundingMode  # noqa: E402
from tileir.interp.compiled.lower import EXP_BAND, EXP_ULPS  # noqa: E402
from tileir.interp.compiled.probes import exp_f64_probe, math_f64_probe  # noqa: E402

BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"

F64_SPECIAL = np.array([0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000,
                        0x7FF0000000000001, 0x7FF0000000000000, 0xFFF0000000000000, 0,
                        0x8000000000000000, 1, 0x800FFFFFFFFFFFFF, 0x0010000000000000,
                        0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
                        0x3FD5555555555555, 0x4340000000000001], np.uint64).view(np.float64)


def launch_both(text, grid, make_args, **options) -> dict:
    """Launch on the reference and the compiled engine, each on fresh arguments from
    `make_args()`; {engine: (Run or the error's text, bytes of every array argument)}."""
    results = {}
    for engine in ("blocks", "compiled"):
        args = make_args()
        try:
            run = tileir.launch(text, None, grid, args, engine=engine, **options)
        except tileir.ExecutionError as error:
            run = str(error)
        results[engine] = (run, [a.tobytes() for a in args if isinstance(a, np.ndarray)])
    return results


def assert_same(results: dict, engine: str = "compiled") -> None:
    """The compiled launch ran on `engine` and left exactly the reference's bytes."""
    run, out = results["compiled"]
    ref_run, ref = results["blocks"]
    assert not isinstance(ref_run, str), ref_run
    assert not isinstance(run, str), run
    assert out == ref
    assert_engine(run, engine)


def assert_declines(results: dict, why: str) -> None:
    """The compiled launch fell back, saying `why`, with the reference's bytes."""
    run, out = results["compiled"]
    assert out == results["blocks"][1]
    assert_declined(run, why)


def tv(shape: tuple, elem: str = "f32") -> str:
    """A static row-major tensor view type."""
    strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    return (f"tensor_view<{'x'.join(map(str, shape))}x{elem}, "
            f"strides=[{','.join(map(str, strides))}]>")


def make_view(name: str, ptr: str, shape: tuple, elem: str = "f32") -> str:
    """A make_tensor_view line of a static row-major view."""
    strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    return (f"    {name} = make_tensor_view {ptr}, shape = [{', '.join(map(str, shape))}], "
            f"strides = [{', '.join(map(str, strides))}] : {tv(shape, elem)}")


def tile(shape: tuple, elem: str = "f32") -> str:
    return f"tile<{'x'.join(map(str, shape))}x{elem}>" if shape else f"tile<{elem}>"


def whole(shape: tuple, elem: str = "f32", out_shape: tuple | None = None,
          out_elem: str | None = None, body: str = "", padding: str = "") -> str:
    """A one-block kernel: %x = the whole (static) tensor a as one tile, `body` computes
    %r, which is stored as the whole tensor c."""
    out_shape = shape if out_shape is None else out_shape
    out_elem = out_elem or elem
    pad = f", padding_value = {padding}" if padding else ""
    pv_in = f"partition_view<tile=({'x'.join(map(str, shape))}){pad}, {tv(shape, elem)}>"
    pv_out = (f"partition_view<tile=({'x'.join(map(str, out_shape))}), "
              f"{tv(out_shape, out_elem)}>")
    zeros_in = ", ".join(["%c0"] * len(shape))
    zeros_out = ", ".join(["%c0"] * len(out_shape))
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<{elem}>>, %c: tile<ptr<{out_elem}>>) {{
    %t = make_token : token
{make_view('%av', '%a', shape, elem)}
{make_view('%cv', '%c', out_shape, out_elem)}
    %ap = make_partition_view %av : {pv_in}
    %cp = make_partition_view %cv : {pv_out}
    %c0 = constant <i32: 0> : tile<i32>
    %x, %t1 = load_view_tko weak %ap[{zeros_in}] token = %t : {pv_in}, tile<i32> -> {tile(shape, elem)}, token
{body}
    %done = store_view_tko weak %r, %cp[{zeros_out}] token = %t : {tile(out_shape, out_elem)}, {pv_out}, tile<i32> -> token
    return
  }}
}}"""


def run_whole(text: str, a: np.ndarray, out_shape: tuple, out_dtype, **options) -> dict:
    return launch_both(text, 1, lambda: [a.copy(), np.full(out_shape, 7, out_dtype)],
                       **options)


# ---- the bench kernels ----------------------------------------------------------------


def _layernorm_args(m: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((m, n)) * 3).astype(np.float32)
    x[0, : min(n, 16)] = F32_SPECIAL[: min(n, 16)]       # NaN, inf, -0.0, subnormals
    if m > 2:
        x[2] = 1e8
        x[2, ::2] = -1e8                                  # cancellation in the sums
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    w[: min(n, 3)] = [np.inf, -0.0, np.nan][: min(n, 3)]
    y = np.full((m, n), 7, np.float32)
    return [x, m, n, n, y, m, n, n, w, b, n, np.float32(1e-5)]


@pytest.mark.parametrize("n", [1, 7, 300, 1024])
@pytest.mark.parametrize("checks", [True, False])
def test_layernorm_is_bit_identical(n, checks):
    """The shipped layernorm (rank-2 views, iota, reshape, broadcast, cmpi, select, itof,
    three reductions, rsqrt) compiles and gives the reference's bytes."""
    m = 5
    results = launch_both(BENCH / "layernorm.mlir", m, lambda: _layernorm_args(m, n, n),
                          checks=checks)
    assert_same(results)


def _softmax_args(m: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((m, n)) * 30).astype(np.float32)
    x[0, : min(n, 16)] = F32_SPECIAL[: min(n, 16)]       # NaN, inf, -0.0, subnormals
    if m > 2:
        x[2, ::2] = 1e8
    return [x, m, n, n, np.full((m, n), 7, np.float32), m, n, n]


@pytest.mark.parametrize("n", [1, 5, 300, 1024])
@pytest.mark.parametrize("checks", [True, False])
def test_softmax_is_bit_identical(n, checks):
    """The shipped softmax (max and sum reductions over -inf padding, exp, broadcast)."""
    m = 4
    results = launch_both(BENCH / "softmax.mlir", m, lambda: _softmax_args(m, n, n),
                          checks=checks)
    assert_same(results)


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_softmax_with_absf_for_exp_is_bit_identical(n):
    """The softmax with exp replaced by absf: max and sum reductions over -inf padding,
    reshape, broadcast and divf, on special values."""
    text = (BENCH / "softmax.mlir").read_text().replace(
        "%p = exp %shifted", "%p = absf %shifted")
    m = 4

    def args():
        rng = np.random.default_rng(n)
        x = (rng.standard_normal((m, n)) * 1e3).astype(np.float32)
        x[1, : min(n, 16)] = F32_SPECIAL[: min(n, 16)]
        x[3, ::2] = 1e8
        return [x, m, n, n, np.full((m, n), 7, np.float32), m, n, n]
    assert_same(launch_both(text, m, args))


# ---- reduce: the reference's tree, element for element ----------------------------------

#: Values whose sum depends on the order of addition (1e8 + 1 - 1e8 is 0 or 1 in f32),
#: with NaN, infinities and signed zeros in some lanes.
ORDER_VALUES = np.array([3, 3, 1e8, -1e8, 1, 1e8, 1, -1e8, 0.5, -0.0, 2, 1e8, -3, 7, -1e8,
                         1, -0.0, 1e-3, 1e8, -1e8], np.float32)


def _tree_sum(values: np.ndarray) -> np.float32:
    """The reference's pairwise order, written out for one lane (for the test's own check
    that the values tell orders apart)."""
    lanes = list(values)
    while len(lanes) > 1:
        if len(lanes) % 2:
            lanes.append(np.float32(0))
        lanes = [np.float32(lanes[2 * k + 1] + lanes[2 * k]) for k in range(len(lanes) // 2)]
    return lanes[0]


def test_order_values_tell_orders_apart():
    for values in (ORDER_VALUES[:4], ORDER_VALUES[:11]):
        forward = np.float32(0)
        for v in values:
            forward = np.float32(forward + v)
        assert _tree_sum(values) != forward


REDUCE_BODIES = {
    "addf": "%s = addf %e, %acc : tile<f32>",
    "subf": "%s = subf %e, %acc : tile<f32>",       # not commutative: elem and acc matter
    "maxf": "%s = maxf %e, %acc : tile<f32>",
    "minf_nan": "%s = minf %acc, %e propagate_nan : tile<f32>",
    "mul_add": "%p = mulf %e, %acc : tile<f32>\n        %s = addf %p, %e : tile<f32>",
}


@pytest.mark.parametrize("shape, dim", [((32,), 0), ((2, 4, 8), 0), ((2, 4, 8), 1),
                                        ((2, 4, 8), 2), ((4, 16), 1), ((8, 1), 1),
                                        ((2, 16), 0)])
@pytest.mark.parametrize("body", sorted(REDUCE_BODIES))
@pytest.mark.parametrize("identity", ["0.000000e+00", "-0.000000e+00"])
def test_reduce_combines_in_the_references_order(shape, dim, body, identity):
    """Signed-zero identities, a non-commutative body, sums that depend on the order.
    (Tile extents are powers of two, so the identity never pads a level.)"""
    out_shape = shape[:dim] + shape[dim + 1:]
    count = int(np.prod(shape))
    a = np.resize(np.concatenate([ORDER_VALUES, F32_SPECIAL]), count).reshape(shape)
    a = np.ascontiguousarray(a.astype(np.float32))
    name = "%r" if out_shape else "%r0"      # (a rank-0 result: stored as 1 element)
    body = f"""    {name} = reduce %x dim={dim} identities=[{identity} : f32] : {tile(shape)} -> {tile(out_shape)}
      (%e: tile<f32>, %acc: tile<f32>) {{
        {REDUCE_BODIES[body]}
        yield %s : tile<f32>
      }}"""
    if not out_shape:
        body += "\n    %r = reshape %r0 : tile<f32> -> tile<1xf32>"
        out_shape = (1,)
    text = whole(shape, out_shape=out_shape, body=body)
    assert_same(run_whole(text, a, out_shape, np.float32))


def test_reduce_of_integers_and_two_inputs():
    """addi wrapping, and an argmax over (value, index) pairs (two inputs, interleaved
    block arguments)."""
    shape = (4, 16)
    a = np.resize(np.concatenate([ORDER_VALUES, F32_SPECIAL]), 64).reshape(shape)
    a = np.ascontiguousarray(a.astype(np.float32))
    a[2, 3] = a[2, 7] = 5.0                                  # a tie: the order decides
    body = """    %lane = iota : tile<16xi32>
    %lane2 = reshape %lane : tile<16xi32> -> tile<1x16xi32>
    %idx = broadcast %lane2 : tile<1x16xi32> -> tile<4x16xi32>
    %big = constant <i32: 0x7FFFFFF0> : tile<4x16xi32>
    %wide = muli %idx, %big : tile<4x16xi32>
    %sum = reduce %wide dim=1 identities=[0 : i32] : tile<4x16xi32> -> tile<4xi32>
      (%e: tile<i32>, %acc: tile<i32>) {
        %s = addi %e, %acc : tile<i32>
        yield %s : tile<i32>
      }
    %best, %at = reduce %x, %idx dim=1 identities=[0xFF800000 : f32, -1 : i32] : tile<4x16xf32>, tile<4x16xi32> -> tile<4xf32>, tile<4xi32>
      (%e0: tile<f32>, %a0: tile<f32>, %e1: tile<i32>, %a1: tile<i32>) {
        %ge = cmpf greater_than_or_equal ordered %e0, %a0 : tile<f32> -> tile<i1>
        %v = select %ge, %e0, %a0 : tile<i1>, tile<f32>
        %i = select %ge, %e1, %a1 : tile<i1>, tile<i32>
        yield %v, %i : tile<f32>, tile<i32>
      }
    %m = addi %at, %sum : tile<4xi32>
    %bits = ftoi %best signed saturating : tile<4xf32> -> tile<4xi32>
    %r = addi %m, %bits : tile<4xi32>"""
    text = whole(shape, out_shape=(4,), out_elem="i32", body=body)
    assert_same(run_whole(text, a, (4,), np.int32))


# ---- shape changes ----------------------------------------------------------------------


@pytest.mark.parametrize("shape, src", [((4, 8), (1, 8)), ((4, 8), (4, 1)),
                                        ((2, 4, 2), (1, 4, 1)), ((2, 4, 2), (2, 1, 2)),
                                        ((4, 2), (1, 1))])
def test_broadcast_and_reshape(shape, src):
    """A tile reshaped to `src` (row-major), broadcast back to `shape`, combined with the
    tile itself."""
    n = int(np.prod(src))
    flat = int(np.prod(shape))
    body = f"""    %f = reshape %x : {tile(shape)} -> tile<{flat}xf32>
    %part = reshape %x : {tile(shape)} -> {tile(shape)}
    %three = reshape %f : tile<{flat}xf32> -> {tile(shape)}
    %k = iota : tile<{n}xi32>
    %kf = itof %k signed : tile<{n}xi32> -> tile<{n}xf32>
    %small = reshape %kf : tile<{n}xf32> -> {tile(src)}
    %wide = broadcast %small : {tile(src)} -> {tile(shape)}
    %s = subf %three, %wide : {tile(shape)}
    %r = mulf %s, %part : {tile(shape)}"""
    a = np.ascontiguousarray(np.resize(np.concatenate([F32_SPECIAL, ORDER_VALUES]), flat)
                             .reshape(shape))
    assert_same(run_whole(whole(shape, body=body), a, shape, np.float32))


# ---- conversions and rsqrt --------------------------------------------------------------

INTS = [0, 1, -1, 2, -2, 3, 0x7FFFFFFF, -0x80000000, (1 << 24) + 1, (1 << 24) + 3,
        -(1 << 24) - 1, (1 << 25) + 2, (1 << 25) + 6, 0x7FFFFFC0, 0x7FFFFFBF, 12345]
LONGS = [0, 1, -1, (1 << 53) + 1, (1 << 53) + 3, -(1 << 53) - 1, (1 << 63) - 1, -(1 << 63),
         (1 << 62) + (1 << 38) + 1, (1 << 62) + (1 << 38), (1 << 24) + 1, -(1 << 40) - 3,
         0x7FFFFFFFFFFFFDFF, 0x7FFFFFFFFFFFFE00, 0x7FFFFFFFFFFFFC00, 42]


@pytest.mark.parametrize("src, dst", [("i32", "f32"), ("i32", "f64"), ("i64", "f32"),
                                      ("i64", "f64")])
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
def test_itof_rounds_as_the_reference(src, dst, signedness):
    """Ties and near-ties of every width, read signed and unsigned (-1 unsigned is
    2**32 - 1 or 2**64 - 1)."""
    a = np.array(INTS if src == "i32" else LONGS, np.int64).astype(
        np.int32 if src == "i32" else np.int64)
    text = whole((16,), src, out_elem=dst,
                 body=f"    %r = itof %x {signedness} : tile<16x{src}> -> tile<16x{dst}>")
    assert_same(run_whole(text, a, (16,), np.float32 if dst == "f32" else np.float64))


FLOATS = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2147483647.0, 2147483648.0, -2147483648.0,
          -2147483904.0, 4294967295.0, 4294967296.0, 9.2233720368547758e18, -1.0, 0.99999,
          -0.99999, 1e30, -1e30, 3.0, 7.75, -0.0, 1e-40]


@pytest.mark.parametrize("src", ["f32", "f64"])
@pytest.mark.parametrize("dst", ["i32", "i64"])
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
@pytest.mark.parametrize("mode", ["nearest_int_to_zero", "nearest_even", "negative_inf",
                                  "positive_inf", "nearest_away"])
def test_ftoi_saturating_rounds_and_clamps_as_the_reference(src, dst, signedness, mode):
    """Every rounding mode (set on the parsed op: the text form spells only the default),
    halves, range edges, NaN, infinities, signed zeros."""
    dtype = np.float32 if src == "f32" else np.float64
    # (not f64's signalling NaN: the reference's np.trunc warns on it, an error under
    # pytest's warning filter)
    special = F32_SPECIAL if src == "f32" else np.delete(F64_SPECIAL, 3)
    if mode == "nearest_away":  # (nor infinities: its inf - inf warns likewise)
        special = special[np.isfinite(special) | np.isnan(special)]
    a = np.resize(np.concatenate([np.array(FLOATS, dtype), special]), 32).astype(dtype)
    text = whole((32,), src, out_elem=dst,
                 body=f"    %r = ftoi %x {signedness} saturating : tile<32x{src}> -> "
                      f"tile<32x{dst}>")
    module = tileir.parse(text, "<ftoi>")
    from tileir.attributes import EnumAttr  # noqa: PLC0415
    for op in module.walk():
        if op.name == "cuda_tile.ftoi":
            op.attributes["rounding_mode"] = EnumAttr(RoundingMode[mode.upper()])
    results = run_whole(module, a, (32,), np.int32 if dst == "i32" else np.int64)
    assert_same(results)


@pytest.mark.parametrize("checks", [True, False])
def test_ftoi_without_saturating(checks):
    """In range: compiled.  A NaN without `saturating`: undefined with checks on (the
    reference's error); with checks off the compiled code stops and the reference reruns."""
    text = whole((16,), "f32", out_elem="i32",
                 body="    %r = ftoi %x signed : tile<16xf32> -> tile<16xi32>")
    fine = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2147483520.0, -2147483648.0, -1.0,
                     0.99999, -0.99999, 3.0, 7.75, -0.0, 1e-40, 100.0], np.float32)
    assert_same(run_whole(text, fine, (16,), np.int32, checks=checks))
    bad = fine.copy()
    bad[5] = np.nan
    results = run_whole(text, bad, (16,), np.int32, checks=checks)
    if checks:
        assert "without 'saturating'" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")
        assert results["compiled"][0].reason.startswith("compiled engine: a check failed")


@pytest.mark.parametrize("elem", ["f32", "f64"])
def test_rsqrt_is_the_references(elem):
    dtype = np.float32 if elem == "f32" else np.float64
    special = F32_SPECIAL if elem == "f32" else F64_SPECIAL
    rng = np.random.default_rng(3)
    a = np.concatenate([special, np.abs(rng.standard_normal(48)).astype(dtype) * 1e3,
                        np.array([4, 0.25, 2, 3, 1e-30, 1e30, -4, 5e-324 if elem == "f64"
                                  else 1e-45], dtype)])[:64].astype(dtype)
    text = whole((8, 8), elem, body=f"    %r = rsqrt %x : tile<8x8x{elem}>")
    assert_same(run_whole(text, a.reshape(8, 8), (8, 8), dtype))


def _near_a_midpoint(x: np.ndarray) -> np.ndarray:
    """How many f64 bit patterns NumPy's exp(x) lies from the nearest midpoint between
    two f32 values."""
    with np.errstate(over="ignore"):
        y = np.exp(x.astype(np.float64))
    r = y.astype(np.float32)
    out = []
    for other in (np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(0))):
        middle = (r.astype(np.float64) + other.astype(np.float64)) / 2
        out.append(np.abs(y.view(np.int64) - middle.view(np.int64)))
    return np.minimum(*out)


def test_exp_is_the_references():
    """f32 exp over special values, the overflow and underflow edges (subnormal results)
    and ordinary values."""
    rng = np.random.default_rng(5)
    edges = np.array([88.72, 88.7228, 88.73, -87.33, -100.5, -103.2, -104, 1e-8, -1e-8, 0.5,
                      1, 2, 10, -10, 20, 80], np.float32)
    a = np.concatenate([F32_SPECIAL, edges, (rng.standard_normal(32) * 20).astype(np.float32)])
    normal = a[(a > -87) & (a < 88)]       # (results of f32's normal range)
    assert _near_a_midpoint(normal).min() > 2 * EXP_BAND
    text = whole((64,), body="    %r = exp %x : tile<64xf32>")
    assert_same(run_whole(text, a.astype(np.float32), (64,), np.float32))


def test_exp_f64_lies_within_exp_ulps_of_numpys():
    """The float64 exp the compiled code rounds (`_exp_f64`, compiled alone) lies within
    EXP_ULPS f64 bit patterns of NumPy's on every 1999th f32 input in [-110, 90] (every
    exponent; tools/exp_accuracy.py walks them all), and is exactly 0, infinity or NaN
    beyond."""
    assert EXP_ULPS < EXP_BAND // 2
    probe = exp_f64_probe()
    top, bottom = (int(np.float32(v).view(np.uint32)) for v in (90.0, -110.0))
    bits = np.concatenate([np.arange(0, top + 1, 1999), np.arange(0x80000000, bottom + 1, 1999),
                           [top, bottom]]).astype(np.uint32)
    x = bits.view(np.float32)
    distance = np.abs(probe(x).view(np.int64) - np.exp(x.astype(np.float64)).view(np.int64))
    assert distance.max() <= EXP_ULPS
    beyond = np.array([np.nan, np.inf, -np.inf, 90.00001, 1e30, -110.00001, -1e30], np.float32)
    expected = np.array([np.nan, np.inf, 0, np.inf, np.inf, 0, 0])
    assert np.array_equal(probe(beyond), expected, equal_nan=True)


@pytest.mark.parametrize("bits", [0xC13D6631, 0xBF81EADF, 0x428A94C5])
@pytest.mark.parametrize("rank", [0, 1])
def test_exp_near_a_midpoint_is_settled_by_the_reference(bits, rank):
    """An input whose f64 exp lies within a few dozen f64 values of a midpoint between two
    f32 values: the compiled code cannot tell which way the reference rounds and hands
    that one element to the reference's exp semantics (one settlement), compiled; as a
    tile and as a scalar."""
    a = np.full(16, 1.5, np.float32)
    a[9] = np.array(bits, np.uint32).view(np.float32)
    assert _near_a_midpoint(a[9:10])[0] < EXP_BAND
    if rank:
        text = whole((16,), body="    %r = exp %x : tile<16xf32>")
    else:       # element 9 alone (the others +inf, the minimum's identity), a scalar exp
        text = whole((16,), body="""    %s = reduce %x dim=0 identities=[0x7F800000 : f32] : tile<16xf32> -> tile<f32>
      (%e: tile<f32>, %q: tile<f32>) {
        %m = minf %e, %q : tile<f32>
        yield %m : tile<f32>
      }
    %y = exp %s : tile<f32>
    %y1 = reshape %y : tile<f32> -> tile<1xf32>
    %r = broadcast %y1 : tile<1xf32> -> tile<16xf32>""")
        a[a != a[9]] = np.inf
    before = jit.settlements()
    results = run_whole(text, a, (16,), np.float32)
    assert jit.settlements() - before == 1
    assert_same(results)


def test_a_value_check_failing_hands_the_launch_to_the_batched_engine():
    """A value check failing in compiled code with checks off (ftoi of NaN without
    `saturating`): the launch is run again by the batched engine (the reference's bytes,
    at the batched engine's speed), not one tile block at a time."""
    text = whole((16,), "f32", out_elem="i32",
                 body="    %r = ftoi %x signed : tile<16xf32> -> tile<16xi32>")
    a = np.arange(16, dtype=np.float32)
    a[5] = np.nan
    results = run_whole(text, a, (16,), np.int32, checks=False)
    run, out = results["compiled"]
    assert run.engine == "batched", run
    assert run.reason.startswith("compiled engine: a check failed"), run
    assert out == results["blocks"][1]


def test_exp_of_f64_declines():
    text = whole((16,), "f64", body="    %r = exp %x : tile<16xf64>")
    assert_declines(run_whole(text, F64_SPECIAL.copy(), (16,), np.float64),
                    "'cuda_tile.exp' on f64")


# ---- rank-2 views: index space, inbounds, padding, races ----------------------------------

ROWS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %lda: tile<i32>,
           %c: tile<ptr<f32>>, %mc: tile<i32>, %nc: tile<i32>, %ldc: tile<i32>) {
    %t = make_token : token
    %av = make_tensor_view %a, shape = [%m, %n], strides = [%lda, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %cv = make_tensor_view %c, shape = [%mc, %nc], strides = [%ldc, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x8), padding_value = nan, tensor_view<?x?xf32, strides=[?,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(2x8), tensor_view<?x?xf32, strides=[?,1]>>
    %i, %j, %k = get_tile_block_id : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%i, %j] token = %t INBOUNDS : partition_view<tile=(2x8), padding_value = nan, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<2x8xf32>, token
    %h = constant <f32: 0.5> : tile<2x8xf32>
    %r = mulf %x, %h : tile<2x8xf32>
    %done = store_view_tko weak %r, %cp[%i, %j] token = %t : tile<2x8xf32>, partition_view<tile=(2x8), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}"""


def run_rows(grid, m, n, lda=None, mc=None, nc=None, ldc=None, inbounds="", **options):
    """ROWS on an m x n matrix a (row stride lda) into c (mc x nc, row stride ldc)."""
    lda, mc, nc = lda or n, mc or m, nc or n
    ldc = ldc or nc
    text = ROWS.replace(" INBOUNDS", f" inbounds = [{inbounds}]" if inbounds else "")

    def args():
        a = np.resize(np.concatenate([F32_SPECIAL, ORDER_VALUES]), m * lda).astype(np.float32)
        c = np.full(mc * ldc + 8, 7, np.float32)
        return [a, m, n, lda, c, mc, nc, ldc]
    return launch_both(text, grid, args, **options)


@pytest.mark.parametrize("checks", [True, False])
def test_rank_2_tiles_pad_and_clip(checks):
    """Partial tiles in both dimensions: NaN padding on load, clipped stores (c is larger
    than a: the padded lanes land in it), a row stride wider than the row."""
    assert_same(run_rows((3, 3), 5, 19, lda=21, mc=6, nc=24, ldc=25, checks=checks))


@pytest.mark.parametrize("checks", [True, False])
def test_rank_2_index_outside_the_index_space(checks):
    results = run_rows((2, 4), 3, 16, mc=4, nc=32, checks=checks)
    if checks:
        assert "outside the index space" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


@pytest.mark.parametrize("flags", ["true, false", "false, true", "false, false"])
def test_rank_2_inbounds_per_dimension(flags):
    """Rows 5 (tile 2: the last tile leaves along dimension 0), columns 16 (tiles fit)."""
    results = run_rows((3, 2), 5, 16, inbounds=flags)
    if flags == "true, false":
        assert "marks dimension 0 inbounds" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results)


def test_overlapping_rows_race_as_the_reference_reports():
    """c's rows overlap (row stride 4 < 16 columns): blocks store the same elements.  The
    proof holds for the kernel's shape, the compiled check of the view fails, and the
    reference reports the race."""
    results = run_rows((2, 1), 4, 8, mc=4, nc=8, ldc=4)
    assert "races with" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]


def test_overlapping_rows_without_checks():
    results = run_rows((2, 1), 4, 8, mc=4, nc=8, ldc=4, checks=False)
    assert_same(results, engine="blocks")
    assert results["compiled"][0].reason.startswith("compiled engine: a check failed")


def test_a_grid_dimension_the_index_leaves_out_declines():
    """Blocks (i, j, 0) and (i, j, 1) store the same tile: with checks on the reference
    reports the race; without, on the reverse schedule, the compiled run's index log
    shows the two blocks meeting, so it hands on (it runs blocks in the sequential order
    only) and the last writer is the reference's."""
    checked = run_rows((3, 2, 2), 6, 16)
    assert "races with" in checked["blocks"][0]
    assert checked["compiled"][0] == checked["blocks"][0]
    unchecked = run_rows((3, 2, 2), 6, 16, checks=False, schedule="reverse")
    assert_declines(unchecked, "the access logs show tile blocks")


# ---- for loops ----------------------------------------------------------------------------

SUM_TILES = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %c: tile<ptr<f32>>,
           %lo: tile<i32>, %st: tile<i32>) {
    %t = make_token : token
    %av = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %cv = make_tensor_view %c, shape = [%m, 4], strides = [4, 1] : tile<i32> -> tensor_view<?x4xf32, strides=[4,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x4), padding_value = neg_zero, tensor_view<?x?xf32, strides=[?,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(2x4), tensor_view<?x4xf32, strides=[4,1]>>
    %steps:2 = get_index_space_shape %ap : partition_view<tile=(2x4), padding_value = neg_zero, tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <f32: 0.0> : tile<2x4xf32>
    %one = constant <f32: 1.0> : tile<2x4xf32>
    %acc, %p, %q, %tk = for %kk in (%lo to %steps#1, step %st) : tile<i32>
        iter_values(%sum = %zero, %u = %zero, %v = %one, %tok = %t) -> (tile<2x4xf32>, tile<2x4xf32>, tile<2x4xf32>, token) {
      %x, %xt = load_view_tko weak %ap[%bx, %kk] token = %tok : partition_view<tile=(2x4), padding_value = neg_zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<2x4xf32>, token
      %next = addf %sum, %x : tile<2x4xf32>
      continue %next, %v, %u, %xt : tile<2x4xf32>, tile<2x4xf32>, tile<2x4xf32>, token
    }
    %pq = subf %p, %q : tile<2x4xf32>
    %r = addf %acc, %pq : tile<2x4xf32>
    %done = store_view_tko weak %r, %cp[%bx, %c0] token = %tk : tile<2x4xf32>, partition_view<tile=(2x4), tensor_view<?x4xf32, strides=[4,1]>>, tile<i32> -> token
    return
  }
}""".replace("%cp[%bx, %c0]", "%cp[%bx, %bz]")


@pytest.mark.parametrize("lo, step", [(0, 1), (1, 2), (0, 3), (5, 1), (9, 1)])
@pytest.mark.parametrize("checks", [True, False])
def test_a_for_loop_carrying_tiles(lo, step, checks):
    """Tiles of a row band summed over the K index space (get_index_space_shape), -0.0
    padding, iteration values swapped at each continue (p, q), a token carried."""
    m, n = 6, 30

    def args():
        a = np.resize(np.concatenate([ORDER_VALUES, F32_SPECIAL]), m * n).astype(np.float32)
        return [a, m, n, np.full((m, 4), 7, np.float32), lo, step]
    assert_same(launch_both(SUM_TILES, 3, args, checks=checks))


@pytest.mark.parametrize("step", [0, -2])
@pytest.mark.parametrize("checks", [True, False])
def test_a_non_positive_step(step, checks):
    """Undefined with checks on (the reference's error); with checks off the reference
    skips the loop: the compiled code stops at its check and the reference reruns."""
    m, n = 4, 16

    def args():
        return [np.arange(m * n, dtype=np.float32), m, n, np.full((m, 4), 7, np.float32),
                0, step]
    results = launch_both(SUM_TILES, 2, args, checks=checks)
    if checks:
        assert "non-positive step" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")
        assert results["compiled"][0].reason.startswith("compiled engine: a check failed")


COUNT = """cuda_tile.module @m {
  entry @k(%c: tile<ptr<T>>, %lo: tile<T>, %hi: tile<T>, %st: tile<T>) {
    %t = make_token : token
    %cv = make_tensor_view %c, shape = [2], strides = [1] : tensor_view<2xT, strides=[1]>
    %cp = make_partition_view %cv : partition_view<tile=(2), tensor_view<2xT, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %z = constant <T: 0> : tile<T>
    %one = constant <T: 1> : tile<T>
    %n, %s = for UNSIGNED%iv in (%lo to %hi, step %st) : tile<T> iter_values(%a = %z, %b = %z) -> (tile<T>, tile<T>) {
      %a1 = addi %a, %one : tile<T>
      %b1 = addi %b, %iv : tile<T>
      continue %a1, %b1 : tile<T>, tile<T>
    }
    %n1 = reshape %n : tile<T> -> tile<1xT>
    %s1 = reshape %s : tile<T> -> tile<1xT>
    %n2 = broadcast %n1 : tile<1xT> -> tile<2xT>
    %s2 = broadcast %s1 : tile<1xT> -> tile<2xT>
    %lane = iota : tile<2xi32>
    %first = constant <i32: 0> : tile<2xi32>
    %is0 = cmpi equal %lane, %first, signed : tile<2xi32> -> tile<2xi1>
    %ns = select %is0, %n2, %s2 : tile<2xi1>, tile<2xT>
    %d0 = store_view_tko weak %ns, %cp[%c0] token = %t : tile<2xT>, partition_view<tile=(2), tensor_view<2xT, strides=[1]>>, tile<i32> -> token
    return
  }
}"""


def _count_kernel(elem: str, unsigned: bool) -> str:
    """COUNT for element type `elem`, comparing its bounds unsigned or signed."""
    return COUNT.replace("T", elem).replace("UNSIGNED", "unsigned " if unsigned else "")


@pytest.mark.parametrize("elem", ["i32", "i64"])
@pytest.mark.parametrize("unsigned", [False, True])
@pytest.mark.parametrize("bounds", ["plain", "negative", "empty", "top", "wide", "mixed"])
def test_for_loop_bounds_are_read_as_the_reference(elem, unsigned, bounds):
    """Bounds signed or unsigned (unsignedCmp), the step always signed, and no wrap: a
    loop that ends near the type's maximum stops as the reference's (Python ints) does."""
    top = (1 << 31) - 1 if elem == "i32" else (1 << 63) - 1
    big = 1 << 30 if elem == "i32" else 1 << 62
    lo, hi, st = {"plain": (0, 10, 1), "negative": (-5, 7, 3), "empty": (7, 5, 1),
                  "top": (top - 15, top, 7), "wide": (1, -2, big),
                  "mixed": (7, -5, big)}[bounds]
    dtype = np.int32 if elem == "i32" else np.int64
    text = _count_kernel(elem, unsigned)
    results = launch_both(text, 1, lambda: [np.full(2, 7, dtype), dtype(lo), dtype(hi),
                                            dtype(st)])
    assert_same(results)


# ---- declines ------------------------------------------------------------------------------


def test_a_store_inside_a_for_loop_declines_with_checks_only():
    """Stores ordered by the carried token (no race): the reference runs; the compiled
    engine cannot rule out a race inside the block with checks on, and runs without."""
    text = SUM_TILES.replace(
        "      continue %next, %v, %u, %xt :",
        "      %d = store_view_tko weak %next, %cp[%bx, %bz] token = %xt : tile<2x4xf32>, "
        "partition_view<tile=(2x4), tensor_view<?x4xf32, strides=[4,1]>>, tile<i32> -> token\n"
        "      continue %next, %v, %u, %d :")
    text = "\n".join(line for line in text.split("\n") if "%done = " not in line)
    m, n = 4, 16

    def args():
        return [np.arange(m * n, dtype=np.float32), m, n, np.full((m, 4), 7, np.float32), 0, 1]
    assert_declines(launch_both(text, 2, args), "a store inside a loop")
    assert_same(launch_both(text, 2, args, checks=False))


@pytest.mark.parametrize("body, why", [
    ("    %f = reshape %x : tile<16xf32> -> tile<2x2x2x2xf32>\n"
     "    %r = reshape %f : tile<2x2x2x2xf32> -> tile<16xf32>", "on a tile of rank 4"),
    ("    %i = iota : tile<16xi16>\n    %r = itof %i signed : tile<16xi16> -> tile<16xf32>",
     "'cuda_tile.iota' of i16"),
    ("    %r0 = reduce %x dim=0 identities=[0.0 : f32] : tile<16xf32> -> tile<f32>\n"
     "      (%e: tile<f32>, %acc: tile<f32>) {\n"
     "        %s = remf %e, %acc : tile<f32>\n"
     "        yield %s : tile<f32>\n      }\n"
     "    %r1 = reshape %r0 : tile<f32> -> tile<1xf32>\n"
     "    %r = broadcast %r1 : tile<1xf32> -> tile<16xf32>",
     "whose body holds 'cuda_tile.remf'"),
    ("    %h = ftoi %x signed saturating : tile<16xf32> -> tile<16xi16>\n"
     "    %g = itof %h signed : tile<16xi16> -> tile<16xf16>\n"
     "    %r = ftof %g : tile<16xf16> -> tile<16xf32>",
     "'cuda_tile.itof' from i16 to f16"),
])
def test_declines_say_why(body, why):
    a = np.resize(ORDER_VALUES, 16).astype(np.float32)
    assert_declines(run_whole(whole((16,), body=body), a, (16,), np.float32), why)


def test_a_for_loop_counting_in_i16_declines():
    text = _count_kernel("i64", False).replace(
        "%n, %s = for %iv in (%lo to %hi, step %st) : tile<i64>",
        "%lo16 = trunci %lo : tile<i64> -> tile<i16>\n"
        "    %hi16 = trunci %hi : tile<i64> -> tile<i16>\n"
        "    %st16 = trunci %st : tile<i64> -> tile<i16>\n"
        "    %n, %s = for %iv16 in (%lo16 to %hi16, step %st16) : tile<i16>").replace(
        "%b1 = addi %b, %iv : tile<i64>",
        "%iv = exti %iv16 signed : tile<i16> -> tile<i64>\n      %b1 = addi %b, %iv : tile<i64>")
    results = launch_both(text, 1, lambda: [np.full(2, 7, np.int64), np.int64(0),
                                            np.int64(5), np.int64(1)])
    assert_declines(results, "'cuda_tile.for' counting in i16")


def test_a_permuted_partition_view_declines():
    """A transposing dim_map: a's 8x4 tiles run along its columns."""
    pv_in = "partition_view<tile=(8x4), tensor_view<4x8xf32, strides=[8,1]>, dim_map=[1, 0]>"
    pv_out = "partition_view<tile=(8x4), tensor_view<8x4xf32, strides=[4,1]>>"
    text = f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %c: tile<ptr<f32>>) {{
    %t = make_token : token
{make_view('%av', '%a', (4, 8))}
{make_view('%cv', '%c', (8, 4))}
    %ap = make_partition_view %av : {pv_in}
    %cp = make_partition_view %cv : {pv_out}
    %c0 = constant <i32: 0> : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%c0, %c0] token = %t : {pv_in}, tile<i32> -> tile<8x4xf32>, token
    %done = store_view_tko weak %x, %cp[%c0, %c0] token = %t : tile<8x4xf32>, {pv_out}, tile<i32> -> token
    return
  }}
}}"""
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    results = run_whole(text, a, (8, 4), np.float32)
    assert_declines(results, "dim_map is not the identity")
    assert results["blocks"][1][1] == np.ascontiguousarray(a.T).tobytes()


def test_itof_in_another_rounding_mode_declines():
    """(Only nearest_even passes the verifier; the lowering still refuses another.)"""
    text = whole((16,), "i32", out_elem="f32",
                 body="    %r = itof %x signed : tile<16xi32> -> tile<16xf32>")
    module = tileir.parse(text, "<itof>")
    from tileir.attributes import EnumAttr  # noqa: PLC0415
    entry = next(op for op in module.walk() if op.name == "cuda_tile.entry")
    for op in module.walk():
        if op.name == "cuda_tile.itof":
            op.attributes["rounding_mode"] = EnumAttr(RoundingMode.ZERO)
    with pytest.raises(jit.Unsupported, match="'cuda_tile.itof' rounds zero"):
        jit.lower(entry)


def test_nested_for_loops():
    """An inner loop whose bounds come from the outer counter, both carrying a scalar
    and a tile (the inner loop's result becomes the outer one's next value)."""
    text = _count_kernel("i32", False).replace(
        """      %a1 = addi %a, %one : tile<i32>
      %b1 = addi %b, %iv : tile<i32>""",
        """      %a1, %b1 = for %jv in (%iv to %hi, step %one) : tile<i32> iter_values(%x = %a, %y = %b) -> (tile<i32>, tile<i32>) {
        %x1 = addi %x, %one : tile<i32>
        %p = muli %iv, %jv : tile<i32>
        %y1 = addi %y, %p : tile<i32>
        continue %x1, %y1 : tile<i32>, tile<i32>
      }""")
    results = launch_both(text, 1, lambda: [np.full(2, 7, np.int32), np.int32(-3),
                                            np.int32(9), np.int32(2)])
    assert_same(results)


CUBE = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %c: tile<ptr<f32>>, %d0: tile<i64>, %d1: tile<i64>, %d2: tile<i64>,
           %s0: tile<i64>, %s1: tile<i64>) {
    %t = make_token : token
    %av = make_tensor_view %a, shape = [%d0, %d1, %d2], strides = [%s0, %s1, 1] : tile<i64> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %cv = make_tensor_view %c, shape = [%d0, %d1, %d2], strides = [%s0, %s1, 1] : tile<i64> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x4x8), padding_value = pos_inf, tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(2x4x8), tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %i, %j, %k = get_tile_block_id : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%k, %i, %j] token = %t : partition_view<tile=(2x4x8), padding_value = pos_inf, tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> tile<2x4x8xf32>, token
    %m = reduce %x dim=2 identities=[0xFF800000 : f32] : tile<2x4x8xf32> -> tile<2x4xf32>
      (%e: tile<f32>, %acc: tile<f32>) {
        %s = minf %e, %acc : tile<f32>
        yield %s : tile<f32>
      }
    %m3 = reshape %m : tile<2x4xf32> -> tile<2x4x1xf32>
    %mb = broadcast %m3 : tile<2x4x1xf32> -> tile<2x4x8xf32>
    %r = subf %x, %mb : tile<2x4x8xf32>
    %done = store_view_tko weak %r, %cp[%k, %i, %j] token = %t : tile<2x4x8xf32>, partition_view<tile=(2x4x8), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}"""


@pytest.mark.parametrize("checks", [True, False])
def test_rank_3_views_with_dynamic_extents_and_strides(checks):
    """Partial tiles in all three dimensions (+inf padding, clipped stores), i64 extents
    and strides, a tile index that permutes the block id (every grid dimension
    covered, so the race proof holds)."""
    d0, d1, d2, s1 = 3, 7, 13, 16
    s0 = d1 * s1 + 3

    def args():
        a = np.resize(np.concatenate([ORDER_VALUES, F32_SPECIAL]), d0 * s0).astype(np.float32)
        return [a, np.full(d0 * s0, 7, np.float32)] + [np.int64(v) for v in (d0, d1, d2, s0, s1)]
    assert_same(launch_both(CUBE, (2, 2, 2), args, checks=checks))


# ---- permute, cat, extract ------------------------------------------------------------------


@pytest.mark.parametrize("shape, order", [((4, 8), (1, 0)), ((2, 4, 8), (2, 0, 1)),
                                          ((2, 4, 8), (1, 2, 0)), ((4, 8), (0, 1))])
def test_permute_is_the_references(shape, order):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * np.float32(1.5)
    out = tuple(shape[k] for k in order)
    text = whole(shape, out_shape=out, body=f"    %r = permute %x [{', '.join(map(str, order))}] : "
                 f"tile<{'x'.join(map(str, shape))}xf32> -> tile<{'x'.join(map(str, out))}xf32>")
    assert_same(run_whole(text, a, out, np.float32))


@pytest.mark.parametrize("dim", [0, 1])
def test_cat_is_the_references(dim):
    a = np.arange(32, dtype=np.int32).reshape(4, 8) - 7
    part = (2, 8) if dim == 0 else (4, 4)
    ends = ", ".join(["%c0"] * 2)
    body = f"""    %lo = extract %x[{ends}] : tile<4x8xi32> -> tile<{part[0]}x{part[1]}xi32>
    %c1 = constant <i32: 1> : tile<i32>
    %hi = extract %x[{'%c1, %c0' if dim == 0 else '%c0, %c1'}] : tile<4x8xi32> -> tile<{part[0]}x{part[1]}xi32>
    %r = cat %hi, %lo dim = {dim} : tile<{part[0]}x{part[1]}xi32>, tile<{part[0]}x{part[1]}xi32> -> tile<4x8xi32>"""
    text = whole((4, 8), "i32", body=body)
    results = run_whole(text, a, (4, 8), np.int32)
    assert_same(results)
    halves = np.split(a, 2, axis=dim)
    assert results["compiled"][1][1] == np.concatenate(halves[::-1], axis=dim).tobytes()


@pytest.mark.parametrize("checks", [True, False])
def test_extract_naming_no_subtile_is_the_references(checks):
    """Subtile number 2 of a dimension holding 2: undefined with checks on (the
    reference's error), wrapped around with checks off (the reference reruns it)."""
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    body = """    %c2 = constant <i32: 2> : tile<i32>
    %r = extract %x[%c2, %c0] : tile<4x8xf32> -> tile<2x8xf32>"""
    results = run_whole(whole((4, 8), out_shape=(2, 8), body=body), a, (2, 8), np.float32,
                        checks=checks)
    if checks:
        assert "names no subtile" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


# ---- if ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("pick", [0, 1])
def test_if_yields_tiles_and_scalars_as_the_reference(pick):
    """An if on a scalar i1 (from the data), yielding a tile and a scalar, a store in one
    region; nested in a for loop: the reference's bytes either way."""
    a = np.arange(16, dtype=np.float32) - np.float32(3.5)
    a[0] = np.float32(pick)
    body = """    %first = reduce %x dim=0 identities=[0xFF800000 : f32] : tile<16xf32> -> tile<f32>
      (%e: tile<f32>, %q: tile<f32>) {
        %mx = maxf %e, %q : tile<f32>
        yield %mx : tile<f32>
      }
    %c1 = constant <i32: 1> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %acc = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%v = %x) -> (tile<16xf32>) {
      %half = constant <f32: 0.5> : tile<f32>
      %x0 = extract %x[%c0] : tile<16xf32> -> tile<1xf32>
      %s0 = reshape %x0 : tile<1xf32> -> tile<f32>
      %big = cmpf greater_than ordered %s0, %half : tile<f32> -> tile<i1>
      %w, %k = if %big -> (tile<16xf32>, tile<f32>) {
        %twice = addf %v, %v : tile<16xf32>
        yield %twice, %first : tile<16xf32>, tile<f32>
      } else {
        %neg = negf %v : tile<16xf32>
        yield %neg, %half : tile<16xf32>, tile<f32>
      }
      %k1 = reshape %k : tile<f32> -> tile<1xf32>
      %kb = broadcast %k1 : tile<1xf32> -> tile<16xf32>
      %next = addf %w, %kb : tile<16xf32>
      continue %next : tile<16xf32>
    }
    %r = subf %acc, %x : tile<16xf32>"""
    text = whole((16,), body=body)
    results = run_whole(text, a, (16,), np.float32)
    assert_same(results)


@pytest.mark.parametrize("checks", [True, False])
def test_a_value_check_outside_the_tensor_is_not_skipped(checks):
    """Found by tools/compiled_campaign.py (seed 1002384): ftoi of a tile whose
    out-of-range element lies past the tensor's extent, stored: the store writes only the
    elements inside, but the reference converts (and checks) the whole tile: undefined
    with checks on. The compiled code computes such a tile whole before storing it."""
    text = """cuda_tile.module @m {
  entry @k(%c: tile<ptr<i32>>) {
    %t = make_token : token
    %cv = make_tensor_view %c, shape = [3], strides = [1] : tile<ptr<i32>> -> tensor_view<3xi32, strides=[1]>
    %cp = make_partition_view %cv : partition_view<tile=(8), tensor_view<3xi32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %big = constant <f32: [1.5, 2.5, 3.5, 1.0e+20, 0.5, 0.25, 7.0, 8.0]> : tile<8xf32>
    %r = ftoi %big signed : tile<8xf32> -> tile<8xi32>
    %done = store_view_tko weak %r, %cp[%c0] token = %t : tile<8xi32>, partition_view<tile=(8), tensor_view<3xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}"""
    results = launch_both(text, 1, lambda: [np.full(3, 9, np.int32)], checks=checks)
    if checks:
        assert "without 'saturating'" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


# ---- scan -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, dim", [((4, 16), 1), ((4, 16), 0), ((2, 4, 8), 2),
                                        ((2, 4, 8), 1), ((16,), 0), ((1, 2), 1)])
@pytest.mark.parametrize("reverse", ["false", "true"])
def test_scan_is_the_references(shape, dim, reverse):
    """Float sums of values of wide magnitudes (their order shows in the bits: Hillis-
    Steele, the identity -0 into the first element), forwards and reversed; and a scan of
    two inputs (a running maximum with its position)."""
    rng = np.random.default_rng(sum(shape) + dim)
    a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)
    t = "x".join(map(str, shape))
    body = f"""    %s = scan %x dim={dim} reverse={reverse} identities=[-0.000000e+00 : f32] : tile<{t}xf32> -> tile<{t}xf32>
      (%e: tile<f32>, %q: tile<f32>) {{
        %v = addf %e, %q : tile<f32>
        yield %v : tile<f32>
      }}
    %i = iota : tile<{shape[-1]}xi32>
    %i1 = reshape %i : tile<{shape[-1]}xi32> -> tile<{'x'.join(['1'] * (len(shape) - 1) + [str(shape[-1])])}xi32>
    %ib = broadcast %i1 : tile<{'x'.join(['1'] * (len(shape) - 1) + [str(shape[-1])])}xi32> -> tile<{t}xi32>
    %m, %w = scan %x, %ib dim={dim} reverse={reverse} identities=[0xFF800000 : f32, 0 : i32] : tile<{t}xf32>, tile<{t}xi32> -> tile<{t}xf32>, tile<{t}xi32>
      (%e: tile<f32>, %q: tile<f32>, %ei: tile<i32>, %qi: tile<i32>) {{
        %gt = cmpf greater_than ordered %e, %q : tile<f32> -> tile<i1>
        %mv = select %gt, %e, %q : tile<i1>, tile<f32>
        %mi = select %gt, %ei, %qi : tile<i1>, tile<i32>
        yield %mv, %mi : tile<f32>, tile<i32>
      }}
    %wf = itof %w signed : tile<{t}xi32> -> tile<{t}xf32>
    %sm = addf %s, %m : tile<{t}xf32>
    %r = addf %sm, %wf : tile<{t}xf32>"""
    if len(shape) == 1:
        body = body.replace(f"    %i1 = reshape %i : tile<{shape[-1]}xi32> -> tile<{shape[-1]}xi32>\n", "").replace(
            f"    %ib = broadcast %i1 : tile<{shape[-1]}xi32> -> tile<{t}xi32>\n", "").replace("%x, %ib", "%x, %i")
    assert_same(run_whole(whole(shape, body=body), a, shape, np.float32))


# ---- math functions -------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["exp2", "log", "log2", "sin", "cos", "tan", "sinh", "cosh",
                                "tanh", "sqrt", "floor", "ceil"])
def test_math_functions_are_the_references(op):
    """Each unary math function over 4096 f32 inputs of every exponent and sign, with the
    special values (NaN, infinities, signed zeros, subnormals): the reference's bytes
    (a rounding too close to call would be settled by the reference's semantics)."""
    rng = np.random.default_rng(len(op))
    bits = rng.integers(0, 2 ** 32, 4096 - F32_SPECIAL.size, dtype=np.uint64).astype(np.uint32)
    a = np.concatenate([F32_SPECIAL, bits.view(np.float32)])
    a[np.isnan(a)] = np.float32(np.nan)
    text = whole((4096,), body=f"    %r = {op} %x : tile<4096xf32>")
    assert_same(run_whole(text, a, (4096,), np.float32))


@pytest.mark.parametrize("op", ["sqrt", "floor", "ceil"])
def test_exact_math_functions_on_f64_are_the_references(op):
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2 ** 64, 1024 - F64_SPECIAL.size, dtype=np.uint64)
    a = np.concatenate([F64_SPECIAL, bits.view(np.float64)])
    text = whole((1024,), "f64", body=f"    %r = {op} %x : tile<1024xf64>")
    assert_same(run_whole(text, a, (1024,), np.float64))


@pytest.mark.parametrize("op", ["exp2", "log", "log2", "sin", "cos", "tan", "sinh", "cosh",
                                "tanh"])
def test_the_c_librarys_f64_functions_lie_near_numpys(op):
    """The f64 value the compiled code rounds (the C library's function) lies within
    EXP_BAND / 2 f64 bit patterns of NumPy's on every 49999th finite f32 input (every
    exponent, both signs; tools/exp_accuracy.py --function walks them all), and its NaN
    and infinite results are NumPy's."""
    probe = math_f64_probe(op)
    bits = np.concatenate([np.arange(0, 0x7F800000, 49999),
                           np.arange(0x80000000, 0xFF800000, 49999)]).astype(np.uint32)
    x = bits.view(np.float32)
    ours = probe(x)
    with np.errstate(all="ignore"):
        numpy = getattr(np, op)(x.astype(np.float64))
    assert np.array_equal(np.isnan(ours), np.isnan(numpy))
    assert np.array_equal(np.isinf(ours), np.isinf(numpy))
    finite = np.isfinite(numpy)
    assert np.array_equal(ours[~finite & ~np.isnan(numpy)], numpy[~finite & ~np.isnan(numpy)])
    distance = np.abs(ours[finite].view(np.int64) - numpy[finite].view(np.int64))
    assert distance.max() <= EXP_BAND // 2
