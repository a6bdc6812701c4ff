"""The compiled engine on f16: views, loads and stores of f16 (bits moved unchanged),
`ftof` between f16 and f32 (and f32 and f64), `mmaf` of f16 operands into f32, and the
shipped flash attention; the reference's bytes (engine="blocks") and a reason wherever
it declines."""
# ruff: noqa: E501  (kernel text: one op per line, as the bench kernels write them)

from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402
from jit_checks import F32_SPECIAL, assert_declined, assert_engine, mma_kernel  # noqa: E402

BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"

#: f16 words: NaNs (payloads, signalling, negative), infinities, signed zeros,
#: subnormals, the extremes, ordinary values.
F16_SPECIAL = np.array([0x7E00, 0x7E01, 0x7C01, 0xFE00, 0x7C00, 0xFC00, 0, 0x8000, 1, 0x83FF,
                        0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3555], np.uint16
                       ).view(np.float16)


def launch_both(text, grid, make_args, **options) -> dict:
    """{engine: (Run, bytes of every array argument)} on fresh arguments each."""
    results = {}
    for engine in ("blocks", "compiled"):
        args = make_args()
        run = tileir.launch(text, None, grid, args, engine=engine, **options)
        results[engine] = (run, [a.tobytes() for a in args if isinstance(a, np.ndarray)])
    return results


def assert_same(results: dict, engine: str = "compiled") -> None:
    """The reference's bytes, run on `engine` ("blocks": handed over after the compiled
    run stopped, to the batched engine where it applies, else one block at a time)."""
    run, out = results["compiled"]
    assert out == results["blocks"][1]
    assert_engine(run, engine)


def assert_declines(results: dict, why: str) -> None:
    run, out = results["compiled"]
    assert out == results["blocks"][1]
    assert_declined(run, why)


def elementwise(n: int, elem: str, out_elem: str, body: str, padding: str = "",
                extent: int | None = None) -> str:
    """One block: %x = a (n elements; a tensor of `extent` <= n, padded) as one tile,
    `body` computes %r from %x, stored to c (n elements)."""
    extent = extent or n
    pad = f", padding_value = {padding}" if padding else ""
    tv_in = f"tensor_view<{extent}x{elem}, strides=[1]>"
    tv_out = f"tensor_view<{n}x{out_elem}, strides=[1]>"
    pv_in = f"partition_view<tile=({n}){pad}, {tv_in}>"
    pv_out = f"partition_view<tile=({n}), {tv_out}>"
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<{elem}>>, %c: tile<ptr<{out_elem}>>) {{
    %t = make_token : token
    %av = make_tensor_view %a, shape = [{extent}], strides = [1] : {tv_in}
    %cv = make_tensor_view %c, shape = [{n}], strides = [1] : {tv_out}
    %ap = make_partition_view %av : {pv_in}
    %cp = make_partition_view %cv : {pv_out}
    %c0 = constant <i32: 0> : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%c0] token = %t : {pv_in}, tile<i32> -> tile<{n}x{elem}>, token
{body}
    %done = store_view_tko weak %r, %cp[%c0] token = %t : tile<{n}x{out_elem}>, {pv_out}, tile<i32> -> token
    return
  }}
}}"""


def run_elementwise(text: str, a: np.ndarray, n: int, out_dtype) -> dict:
    return launch_both(text, 1, lambda: [a.copy(), np.full(n, 7, out_dtype)])


# ---- memory -------------------------------------------------------------------------


@pytest.mark.parametrize("padding", ["", "zero", "neg_zero", "nan", "pos_inf", "neg_inf"])
def test_f16_loads_and_stores_move_bits(padding):
    """Every f16 word (NaN payloads included) loaded and stored unchanged; padding
    encoded as the reference encodes it for f16."""
    words = np.arange(1 << 16, dtype=np.uint16)
    n = 1 << 16
    extent = n - 100 if padding else n
    a = words[:extent].view(np.float16).copy()
    text = elementwise(n, "f16", "f16",
                       "    %r = reshape %x : tile<65536xf16> -> tile<65536xf16>", padding,
                       extent)
    assert_same(run_elementwise(text, a, n, np.float16))


def test_f16_select_broadcast_and_for():
    """f16 tiles through select, broadcast, reshape and a for loop's iteration value."""
    a = np.concatenate([F16_SPECIAL, np.linspace(-3, 3, 16).astype(np.float16)])
    body = """    %row = reshape %x : tile<32xf16> -> tile<1x32xf16>
    %b = broadcast %row : tile<1x32xf16> -> tile<4x32xf16>
    %i = iota : tile<32xi32>
    %h = constant <i32: 16> : tile<32xi32>
    %m = cmpi less_than %i, %h, signed : tile<32xi32> -> tile<32xi1>
    %k = constant <f16: 0x3C00> : tile<32xf16>
    %s = select %m, %k, %x : tile<32xi1>, tile<32xf16>
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 3> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for %j in (%lo to %hi, step %one) : tile<i32> iter_values(%v = %s) -> (tile<32xf16>) {
      %w = select %m, %x, %v : tile<32xi1>, tile<32xf16>
      continue %w : tile<32xf16>
    }"""
    assert_same(run_elementwise(elementwise(32, "f16", "f16", body), a, 32, np.float16))


# ---- ftof ---------------------------------------------------------------------------


def test_f16_to_f32_every_word():
    """Every f16 word widened: exact, NaNs the canonical f32 NaN."""
    a = np.arange(1 << 16, dtype=np.uint16).view(np.float16).copy()
    text = elementwise(1 << 16, "f16", "f32",
                       "    %r = ftof %x : tile<65536xf16> -> tile<65536xf32>")
    assert_same(run_elementwise(text, a, 1 << 16, np.float32))


def _f32_near_f16_edges() -> np.ndarray:
    """f32 values around every f16 value and midpoint (both sides, exactly on them), the
    overflow edge (65504, 65520), the subnormal and zero edges, specials, random words."""
    words = np.arange(0, 0x7C00, 7, dtype=np.uint16)
    values = words.view(np.float16).astype(np.float32)
    up = np.nextafter(words.view(np.float16), np.float16(np.inf)).astype(np.float32)
    mid = ((values.astype(np.float64) + up) / 2).astype(np.float32)   # exact midpoints
    near = [values, mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(1e9)),
            np.nextafter(values, np.float32(0)), np.nextafter(values, np.float32(1e9))]
    edges = np.array([65504, 65519.996, 65520, 65520.004, 70000, 1e30, 2.0 ** -14,
                      2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0000001, 2.0 ** -26, 3 * 2.0 ** -25,
                      1e-30, 2.0 ** -149], np.float32)
    rng = np.random.default_rng(1)
    random = rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    out = np.concatenate(near + [edges, F32_SPECIAL, random])
    return np.concatenate([out, -out])


def test_f32_to_f16_rounds_as_the_reference():
    a = _f32_near_f16_edges()
    n = 1 << int(np.ceil(np.log2(a.size)))
    a = np.concatenate([a, np.zeros(n - a.size, np.float32)])
    text = elementwise(n, "f32", "f16", f"    %r = ftof %x : tile<{n}xf32> -> tile<{n}xf16>")
    assert_same(run_elementwise(text, a, n, np.float16))


@pytest.mark.parametrize("source, target, dtype, out", [
    ("f32", "f64", np.float32, np.float64), ("f64", "f32", np.float64, np.float32)])
def test_f32_f64_conversions(source, target, dtype, out):
    rng = np.random.default_rng(2)
    words = rng.integers(0, 1 << 63, 4080, dtype=np.uint64)
    a = (words.astype(np.uint32).view(np.float32) if dtype == np.float32 else
         words.view(np.float64))
    with np.errstate(all="ignore"):     # (signalling NaNs widen quietly)
        special = F32_SPECIAL.astype(np.float64) if dtype == np.float64 else F32_SPECIAL
        a = np.concatenate([special.astype(dtype), a.astype(dtype)])
    text = elementwise(4096, source, target,
                       f"    %r = ftof %x : tile<4096x{source}> -> tile<4096x{target}>")
    assert_same(run_elementwise(text, a, 4096, out))


@pytest.mark.parametrize("body, why", [
    ("    %r = ftof %x : tile<16xf64> -> tile<16xf16>", "from f64 to f16"),
    ("    %r = ftof %x rounding<zero> : tile<16xf64> -> tile<16xf32>", "rounds zero"),
])
def test_other_ftof_declines(body, why):
    a = np.linspace(-2, 2, 16)
    out = np.float16 if "xf16>" in body.split("->")[1] else np.float32
    text = elementwise(16, "f64", "f16" if out == np.float16 else "f32", body)
    assert_declines(run_elementwise(text, a, 16, out), why)


def test_f16_arithmetic_declines():
    a = F16_SPECIAL.copy()
    text = elementwise(16, "f16", "f16", "    %r = addf %x, %x : tile<16xf16>")
    assert_declines(run_elementwise(text, a, 16, np.float16), "'cuda_tile.addf' on f16")


def test_f16_scalar_parameter_declines():
    text = """cuda_tile.module @m {
  entry @k(%c: tile<ptr<f16>>, %s: tile<f16>) {
    %t = make_token : token
    %cv = make_tensor_view %c, shape = [16], strides = [1] : tensor_view<16xf16, strides=[1]>
    %cp = make_partition_view %cv : partition_view<tile=(16), tensor_view<16xf16, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %s1 = reshape %s : tile<f16> -> tile<1xf16>
    %r = broadcast %s1 : tile<1xf16> -> tile<16xf16>
    %done = store_view_tko weak %r, %cp[%c0] token = %t : tile<16xf16>, partition_view<tile=(16), tensor_view<16xf16, strides=[1]>>, tile<i32> -> token
    return
  }
}"""
    results = launch_both(text, 1, lambda: [np.zeros(16, np.float16), np.float16(1.5)])
    assert_declines(results, "f16 scalars are not compiled")


# ---- mmaf of f16 operands -----------------------------------------------------------




def _mma_args(a, b, c):
    return lambda: [a.copy(), b.copy(), c.copy(), np.full(c.shape, 7, c.dtype)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_f16_mmaf_random_and_exact(seed):
    """Random f16 values (wide exponents, subnormals), and small integers whose sums are
    exact (ties, cancellations to +0)."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        a = rng.integers(-8, 8, (16, 32)).astype(np.float16)
        b = rng.integers(-8, 8, (32, 16)).astype(np.float16)
        c = rng.integers(-8, 8, (16, 16)).astype(np.float32)
    else:
        a = (rng.standard_normal((16, 32)) * np.exp2(rng.integers(-20, 12, (16, 32)))).astype(np.float16)
        b = rng.standard_normal((32, 16)).astype(np.float16)
        c = rng.standard_normal((16, 16)).astype(np.float32)
    assert_same(launch_both(mma_kernel(16, 16, 32, "f16"), 1, _mma_args(a, b, c)))


def test_f16_mmaf_specials():
    """NaN payloads, infinities, signed zeros and subnormals of f16 in some rows and
    columns, specials of f32 in acc."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    a[rng.integers(0, 16, 8), rng.integers(0, 16, 8)] = rng.choice(F16_SPECIAL, 8)
    b[rng.integers(0, 16, 8), rng.integers(0, 16, 8)] = rng.choice(F16_SPECIAL, 8)
    c[rng.integers(0, 16, 4), rng.integers(0, 16, 4)] = rng.choice(F32_SPECIAL, 4)
    a[3] = -0.0
    assert_same(launch_both(mma_kernel(16, 16, 16, "f16"), 1, _mma_args(a, b, c)))


def test_f16_mmaf_near_a_midpoint_is_settled():
    """1 + 2**-24 (f16 products 1 * 1 and 2**-12 * 2**-12: a midpoint between two f32
    values) + 2**-60 (acc): closer than the compiled sum resolves, not exact: the tile is
    settled by the reference's mmaf semantics (on its f16 operands), rounding up."""
    a = np.zeros((1, 4), np.float16)
    b = np.zeros((4, 1), np.float16)
    a[0, :2] = [1.0, 2.0 ** -12]
    b[:2, 0] = [1.0, 2.0 ** -12]
    c = np.full((1, 1), 2.0 ** -60, np.float32)
    before = jit.settlements()
    results = launch_both(mma_kernel(1, 1, 4, "f16"), 1, _mma_args(a, b, c))
    assert jit.settlements() - before == 1
    assert_same(results)
    d = np.frombuffer(results["blocks"][1][3], np.float32)
    assert d[0] == np.nextafter(np.float32(1), np.float32(2))
    c[0, 0] = 0.0                       # the exact midpoint: exact, to even, compiled
    results = launch_both(mma_kernel(1, 1, 4, "f16"), 1, _mma_args(a, b, c))
    assert_same(results)
    assert np.frombuffer(results["compiled"][1][3], np.float32)[0] == 1.0


def test_f16_mmaf_with_an_f16_accumulator_declines():
    a = np.ones((4, 4), np.float16)
    c = np.ones((4, 4), np.float16)
    results = launch_both(mma_kernel(4, 4, 4, "f16", "f16"), 1, _mma_args(a, a, c))
    assert_declines(results, "with f16 operands and a f16 accumulator")


# ---- the shipped flash attention ----------------------------------------------------


def _attention_args(sq: int, sk: int, seed: int):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((sq, 64)).astype(np.float16)
    k = rng.standard_normal((sk, 64)).astype(np.float16)
    v = rng.standard_normal((sk, 64)).astype(np.float16)
    o = np.full((sq, 64), 7, np.float16)
    return lambda: [q.copy(), sq, 64, k.copy(), sk, 64, v.copy(), sk, 64, o, sq, 64,
                    np.float32(0.125)]


@pytest.mark.parametrize("sq, sk", [(64, 64), (100, 70), (128, 200), (1, 1)])
def test_attention_is_compiled(sq, sk):
    """f16 views (K^T a column-major view), mmaf of f16 into f32, exp, reductions, the
    online softmax's for loop, ftof both ways: compiled, the reference's bytes."""
    results = launch_both(BENCH / "attention.mlir", -(-sq // 64), _attention_args(sq, sk, sq))
    assert_same(results)
