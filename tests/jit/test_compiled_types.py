"""The compiled engine on the narrow types and the ops that move bits (lower_types.py):
bf16 conversions in every rounding mode and bf16 tiles, i8 and i16 views and integer ops,
`bitcast`, `pack` / `unpack`, `insert`, the gdc token ops; and the two-operand math ops
`fpowi` and `atan2` (lower._libm).  Each launch against the reference engine
(engine="blocks"), byte for byte, asserting the compiled engine ran."""
# ruff: noqa: E501  (kernel text: one op per line)

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import ml_dtypes  # noqa: E402

import tileir  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402
from jit_checks import F32_SPECIAL, assert_declined, assert_engine  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
#: bf16 words: NaNs (payload, signalling, negative), infinities, zeros, subnormals, the
#: extremes, ordinary values.
BF16_SPECIAL = np.array([0x7FC0, 0x7FC1, 0x7F81, 0xFFC0, 0x7F80, 0xFF80, 0, 0x8000, 1,
                         0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3EAB], np.uint16
                        ).view(BF16)
#: Integer extremes and neighbours, per width.
INT_SPECIAL = {np.int8: [0, 1, -1, 2, -2, 127, -128, 100, -77, 0x55],
               np.int16: [0, 1, -1, 2, -2, 32767, -32768, 12345, -777, 0x5555]}
#: The rounding modes a narrowing ftof may name.
ROUNDINGS = ["nearest_even", "zero"]


def kernel(ins: list[str], out: str, body: str, tile: int = 16, out_tile: int | None = None,
           padding: str = "") -> str:
    """c = f(a0, a1, ...): each input a tensor of n elements of its type, loaded as
    tiles of `tile` (%x0, %x1, ...; padded with `padding`); `body` computes %r, a tile
    of `out_tile` elements stored to c (m elements) at the block's index."""
    out_tile = out_tile or tile
    pad = f", padding_value = {padding}" if padding else ""
    ti = "tile<i32>"
    lines, params = [], []
    for k, t in enumerate(ins):
        tv = f"tensor_view<?x{t}, strides=[1]>"
        pv = f"partition_view<tile=({tile}){pad}, {tv}>"
        params.append(f"%a{k}: tile<ptr<{t}>>")
        lines += [f"    %v{k} = make_tensor_view %a{k}, shape = [%n], strides = [1] : {ti} -> {tv}",
                  f"    %p{k} = make_partition_view %v{k} : {pv}",
                  f"    %x{k}, %tk{k} = load_view_tko weak %p{k}[%i] token = %t : {pv}, {ti} -> tile<{tile}x{t}>, token"]
    tv = f"tensor_view<?x{out}, strides=[1]>"
    pv = f"partition_view<tile=({out_tile}), {tv}>"
    loads = "\n".join(lines)
    return f"""cuda_tile.module @m {{
  entry @k({', '.join(params)}, %c: tile<ptr<{out}>>, %n: tile<i32>, %m: tile<i32>) {{
    %t = make_token : token
    %i, %bj, %bk = get_tile_block_id : {ti}
{loads}
    %cv = make_tensor_view %c, shape = [%m], strides = [1] : {ti} -> {tv}
    %cp = make_partition_view %cv : {pv}
{body}
    %done = store_view_tko weak %r, %cp[%i] token = %t : tile<{out_tile}x{out}>, {pv}, {ti} -> token
    return
  }}
}}"""


def launch_both(text: str, arrays: list[np.ndarray], out_dtype, out_count: int | None = None,
                tile: int = 16, **options) -> dict:
    """{engine: (Run or the error's text, c)} for engine="blocks" and "compiled", each on
    fresh copies; c (7s first) holds `out_count` elements (default: as many as a0)."""
    n = arrays[0].size
    m = out_count or n
    results = {}
    for engine in ("blocks", "compiled"):
        c = np.full(m, 7, out_dtype)
        args = [a.copy() for a in arrays] + [c, n, m]
        try:
            run = tileir.launch(text, None, -(-n // tile), args, engine=engine, **options)
        except tileir.ExecutionError as error:
            run = str(error)
        results[engine] = (run, c)
    return results


def assert_same(results: dict, engine: str = "compiled") -> None:
    """The compiled launch left the reference's bytes and ran on `engine`."""
    run, c = results["compiled"]
    ref_run, ref = results["blocks"]
    assert not isinstance(ref_run, str), ref_run
    assert c.tobytes() == ref.tobytes()
    assert_engine(run, engine)


def pairs(values: np.ndarray, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of `values` and `extra` together, as two arrays (a length that is a
    multiple of 16: whole tiles)."""
    v = np.concatenate([values, extra])
    a, b = (x.reshape(-1) for x in np.meshgrid(v, v, indexing="ij"))
    keep = a.size // 16 * 16
    return a[:keep].copy(), b[:keep].copy()


# ---- bf16 --------------------------------------------------------------------------


def _bf16_edge_words() -> np.ndarray:
    """f32 bits around every bf16 rounding boundary: the dropped half exactly 0x8000
    (ties, kept part odd and even), one above and below, 0 and 0xffff; around the largest
    finite bf16 (overflow) and in the subnormals; of both signs; and random words."""
    kept = np.array([0x3F80, 0x3F81, 0x0000, 0x0001, 0x007F, 0x0080, 0x7F7E, 0x7F7F,
                     0x4049, 0x1234], np.uint32)
    dropped = np.array([0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF], np.uint32)
    words = (kept[:, None] << 16 | dropped[None, :]).reshape(-1)
    words = np.concatenate([words, words | 0x80000000])
    rng = np.random.default_rng(3)
    return np.concatenate([words, rng.integers(0, 1 << 32, 400, dtype=np.uint64).astype(np.uint32)])


@pytest.mark.parametrize("rounding", ROUNDINGS)
def test_f32_to_bf16_in_every_rounding_mode(rounding):
    """f32 -> bf16 (then back to f32, and stored as bf16 too): ties, overflow, subnormals,
    NaNs and random words, each rounding mode a narrowing ftof may name."""
    x = np.concatenate([F32_SPECIAL, _bf16_edge_words().view(np.float32)])
    x = x[:x.size // 16 * 16]
    body = (f"    %h = ftof %x0 rounding<{rounding}> : tile<16xf32> -> tile<16xbf16>\n"
            "    %r = select %c1, %h, %h : tile<16xi1>, tile<16xbf16>")
    body = "    %c1 = constant <i1: true> : tile<16xi1>\n" + body
    assert_same(launch_both(kernel(["f32"], "bf16", body), [x], BF16))
    back = (f"    %h = ftof %x0 rounding<{rounding}> : tile<16xf32> -> tile<16xbf16>\n"
            "    %r = ftof %h : tile<16xbf16> -> tile<16xf32>")
    assert_same(launch_both(kernel(["f32"], "f32", back), [x], np.float32))


@pytest.mark.parametrize("rounding", ROUNDINGS)
def test_f16_to_bf16(rounding):
    words = np.concatenate([np.arange(0, 1 << 16, 37, dtype=np.uint16),
                            np.array([0x7E00, 0x7C01, 0xFC00, 0x8001, 0x03FF], np.uint16)])
    x = words[:words.size // 16 * 16].view(np.float16)
    body = f"    %r = ftof %x0 rounding<{rounding}> : tile<16xf16> -> tile<16xbf16>"
    assert_same(launch_both(kernel(["f16"], "bf16", body), [x], BF16))


@pytest.mark.parametrize("target, dtype", [("f32", np.float32), ("f64", np.float64),
                                           ("f16", np.float16)])
def test_bf16_widens_and_narrows(target, dtype):
    """Every bf16 word to f32 and f64 (exact) and to f16 (nearest even: overflow,
    subnormals, ties), NaNs canonical."""
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF16)
    body = f"    %r = ftof %x0 : tile<256xbf16> -> tile<256x{target}>"
    assert_same(launch_both(kernel(["bf16"], target, body, tile=256), [x], dtype, tile=256))


@pytest.mark.parametrize("rounding", ["zero", "positive_inf"])
def test_bf16_widening_in_another_mode(rounding):
    x = np.concatenate([BF16_SPECIAL, BF16_SPECIAL])
    body = f"    %r = ftof %x0 rounding<{rounding}> : tile<16xbf16> -> tile<16xf32>"
    assert_same(launch_both(kernel(["bf16"], "f32", body), [x], np.float32))


def test_bf16_to_f16_in_a_directed_mode_declines():
    x = BF16_SPECIAL.copy()
    body = "    %r = ftof %x0 rounding<zero> : tile<16xbf16> -> tile<16xf16>"
    run, _ = launch_both(kernel(["bf16"], "f16", body), [x], np.float16)["compiled"]
    assert_declined(run, "bf16")


@pytest.mark.parametrize("padding", ["nan", "neg_inf", "zero", "neg_zero"])
def test_bf16_tiles_move_bits(padding):
    """bf16 loads (padded past the tensor), select, reshape, broadcast, permute, stores:
    bits unchanged, NaN payloads included."""
    a = np.concatenate([BF16_SPECIAL, BF16_SPECIAL[::-1], BF16_SPECIAL[:9]])
    b = np.concatenate([BF16_SPECIAL[::-1], BF16_SPECIAL, BF16_SPECIAL[:9]])
    body = ("    %m1 = bitcast %x0 : tile<16xbf16> -> tile<16xi16>\n"
            "    %z = constant <i16: 0> : tile<16xi16>\n"
            "    %lt = cmpi less_than %m1, %z, signed : tile<16xi16> -> tile<16xi1>\n"
            "    %s = select %lt, %x0, %x1 : tile<16xi1>, tile<16xbf16>\n"
            "    %q = reshape %s : tile<16xbf16> -> tile<4x4xbf16>\n"
            "    %p = permute %q [1, 0] : tile<4x4xbf16> -> tile<4x4xbf16>\n"
            "    %r = reshape %p : tile<4x4xbf16> -> tile<16xbf16>")
    results = launch_both(kernel(["bf16", "bf16"], "bf16", body, padding=padding), [a, b], BF16,
                          out_count=48)
    assert_same(results)


# ---- i8 and i16 --------------------------------------------------------------------


@pytest.mark.parametrize("elem, dtype", [("i8", np.int8), ("i16", np.int16)])
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
def test_narrow_integer_ops(elem, dtype, signedness):
    """Arithmetic, bitwise ops, comparisons, min and max, shifts, mulhii, division (no
    zero divisor) on i8 and i16 views: wrapping as the reference wraps."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a, b = pairs(np.array(INT_SPECIAL[dtype], dtype),
                 rng.integers(info.min, info.max + 1, 22).astype(dtype))
    b = np.where(b == 0, dtype(3), b)
    if signedness == "signed":
        b = np.where((a == info.min) & (b == -1), dtype(5), b)
    width = info.bits
    sh = (np.abs(b.astype(np.int64)) % width).astype(dtype)
    t = f"tile<16x{elem}>"
    body = (f"    %s = addi %x0, %x1 : {t}\n"
            f"    %d = subi %x0, %x1 : {t}\n"
            f"    %p = muli %s, %d : {t}\n"
            f"    %q = divi %x0, %x1 {signedness} : {t}\n"
            f"    %w = remi %x0, %x1 {signedness} : {t}\n"
            f"    %mx = maxi %p, %q {signedness} : {t}\n"
            f"    %mn = mini %w, %x0 {signedness} : {t}\n"
            f"    %l = shli %mx, %x2 : {t}\n"
            f"    %h = shri %mn, %x2 {signedness} : {t}\n"
            f"    %hi = mulhii %l, %h : {t}\n"
            f"    %ng = negi %hi : {t}\n"
            f"    %ab = absi %ng : {t}\n"
            f"    %lt = cmpi less_than %ab, %x1, {signedness} : {t} -> tile<16xi1>\n"
            f"    %e = exti %lt signed : tile<16xi1> -> {t}\n"
            f"    %o = ori %e, %ab : {t}\n"
            f"    %r = xori %o, %l : {t}")
    assert_same(launch_both(kernel([elem, elem, elem], elem, body), [a, b, sh], dtype))


@pytest.mark.parametrize("elem, dtype", [("i8", np.int8), ("i16", np.int16)])
def test_narrow_integer_conversions(elem, dtype):
    """exti (signed, unsigned) to i32 and i64, trunci from i32 and i64, itof (both
    signednesses) and saturating ftoi to and from i8 / i16."""
    rng = np.random.default_rng(6)
    x = np.concatenate([np.array(INT_SPECIAL[dtype], dtype),
                        rng.integers(-30000, 30000, 54).astype(dtype)])
    t = f"tile<16x{elem}>"
    body = (f"    %es = exti %x0 signed : {t} -> tile<16xi32>\n"
            f"    %eu = exti %x0 unsigned : {t} -> tile<16xi64>\n"
            f"    %tu = trunci %eu : tile<16xi64> -> {t}\n"
            f"    %big = muli %es, %es : tile<16xi32>\n"
            f"    %tb = trunci %big : tile<16xi32> -> {t}\n"
            f"    %fs = itof %tb signed : {t} -> tile<16xf32>\n"
            f"    %fu = itof %tu unsigned : {t} -> tile<16xf64>\n"
            )
    body += (f"    %k = constant <f32: 3.7> : tile<16xf32>\n"
             f"    %g = mulf %fs, %k : tile<16xf32>\n"
             f"    %is = ftoi %g signed saturating : tile<16xf32> -> {t}\n"
             f"    %iu = ftoi %fu unsigned saturating : tile<16xf64> -> {t}\n"
             f"    %r = xori %is, %iu : {t}")
    assert_same(launch_both(kernel([elem], elem, body), [x], dtype))


@pytest.mark.parametrize("checks", [True, False])
def test_an_ftoi_out_of_i8_range_is_the_references(checks):
    x = np.linspace(-100, 100, 32).astype(np.float32)
    x[20] = 300.0
    body = "    %r = ftoi %x0 signed : tile<16xf32> -> tile<16xi8>"
    results = launch_both(kernel(["f32"], "i8", body), [x], np.int8, checks=checks)
    if checks:
        assert "out of the signed range of i8" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


# ---- bitcast, pack, unpack ---------------------------------------------------------


@pytest.mark.parametrize("source, target, dtype, words", [
    ("f32", "i32", np.float32, F32_SPECIAL),
    ("i32", "f32", np.int32, F32_SPECIAL.view(np.int32)),
    ("f64", "i64", np.float64, np.array([0x7FF8000000000001, 0x7FF0000000000001, 1, 0x8000000000000000] * 4, np.uint64).view(np.float64)),
    ("f16", "i16", np.float16, BF16_SPECIAL.view(np.float16)),
    ("bf16", "f16", BF16, BF16_SPECIAL),
    ("i16", "bf16", np.int16, BF16_SPECIAL.view(np.int16))])
def test_bitcast_keeps_every_bit(source, target, dtype, words):
    """NaN payloads (signalling too) and signed zeros cross unchanged."""
    x = np.concatenate([words, words]).astype(dtype)
    body = f"    %r = bitcast %x0 : tile<16x{source}> -> tile<16x{target}>"
    out = {"i32": np.int32, "f32": np.float32, "i64": np.int64, "i16": np.int16,
           "f16": np.float16, "bf16": BF16}[target]
    assert_same(launch_both(kernel([source], target, body), [x], out))


@pytest.mark.parametrize("source, dtype, middle", [("i32", np.int32, "i16"), ("f32", np.float32, "f16"),
                                                   ("i16", np.int16, "i32"), ("f64", np.float64, "i16"),
                                                   ("bf16", BF16, "f16")])
def test_pack_and_unpack_are_little_endian_bytes(source, dtype, middle):
    """pack to i8 then unpack to another type (the bytes relabelled), both ways."""
    rng = np.random.default_rng(8)
    size = np.dtype(dtype).itemsize
    x = rng.integers(0, 256, 32 * size, dtype=np.uint8).view(dtype)
    msize = {"i8": 1, "i16": 2, "f16": 2, "i32": 4}[middle]
    nbytes = 16 * size
    body = (f"    %b = pack %x0 : tile<16x{source}> -> tile<{nbytes}xi8>\n"
            f"    %r = unpack %b : tile<{nbytes}xi8> -> tile<{nbytes // msize}x{middle}>")
    out = {"i8": np.int8, "i16": np.int16, "f16": np.float16, "i32": np.int32}[middle]
    results = launch_both(kernel([source], middle, body, out_tile=nbytes // msize), [x], out,
                          out_count=2 * nbytes // msize)
    assert_same(results)


def test_pack_of_a_splat_and_of_a_computed_tile():
    x = np.arange(32, dtype=np.int32) * 0x01020304
    body = ("    %k = constant <i32: 305419896> : tile<16xi32>\n"
            "    %s = addi %x0, %k : tile<16xi32>\n"
            "    %b = pack %s : tile<16xi32> -> tile<64xi8>\n"
            "    %kb = pack %k : tile<16xi32> -> tile<64xi8>\n"
            "    %x = xori %b, %kb : tile<64xi8>\n"
            "    %r = unpack %x : tile<64xi8> -> tile<32xi16>")
    assert_same(launch_both(kernel(["i32"], "i16", body, out_tile=32), [x], np.int16,
                            out_count=64))


# ---- insert and the gdc ops --------------------------------------------------------


@pytest.mark.parametrize("index", [0, 1, 3])
def test_insert_replaces_a_subtile(index):
    x = np.arange(32, dtype=np.float32)
    body = (f"    %ix = constant <i32: {index}> : tile<i32>\n"
            "    %s = constant <f32: [-1.0, -2.0, -3.0, -4.0]> : tile<4xf32>\n"
            "    %w = gdc_wait_tko token = %t -> token\n"
            "    %r = insert %s, %x0[%ix] : tile<4xf32>, tile<16xf32>\n"
            "    %g = gdc_launch_dependents_tko token = %w -> token")
    assert_same(launch_both(kernel(["f32"], "f32", body), [x], np.float32))


def test_insert_in_two_dimensions_from_a_block_id():
    x = np.arange(64, dtype=np.int16)
    body = ("    %q = reshape %x0 : tile<16xi16> -> tile<4x4xi16>\n"
            "    %s = constant <i16: [[100, 101], [102, 103]]> : tile<2x2xi16>\n"
            "    %one = constant <i32: 1> : tile<i32>\n"
            "    %ri = remi %i, %one signed : tile<i32>\n"
            "    %p = insert %s, %q[%one, %ri] : tile<2x2xi16>, tile<4x4xi16>\n"
            "    %r = reshape %p : tile<4x4xi16> -> tile<16xi16>")
    assert_same(launch_both(kernel(["i16"], "i16", body), [x], np.int16))


@pytest.mark.parametrize("checks", [True, False])
def test_insert_naming_no_subtile_is_the_references(checks):
    x = np.arange(32, dtype=np.float32)
    body = ("    %ix = constant <i32: 4> : tile<i32>\n"
            "    %s = constant <f32: 5.0> : tile<4xf32>\n"
            "    %r = insert %s, %x0[%ix] : tile<4xf32>, tile<16xf32>")
    results = launch_both(kernel(["f32"], "f32", body), [x], np.float32, checks=checks)
    if checks:
        assert "names no subtile" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


# ---- fpowi and atan2 ---------------------------------------------------------------


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i16", np.int16),
                                         ("i8", np.int8)])
def test_fpowi_is_the_references(elem, dtype):
    """Every special f32 base with exponents 0, +-1, +-2, 3, the extremes of the type and
    random ones (overflow, underflow, zero bases with negative powers, NaN ** 0)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(9)
    bases = np.concatenate([F32_SPECIAL, (rng.standard_normal(16) * 3).astype(np.float32)])
    powers = np.array([0, 1, -1, 2, -2, 3, info.max, info.min, 7, -9, *rng.integers(
        info.min, info.max + 1, 6)], np.int64).astype(dtype)
    a, b = (x.reshape(-1).copy() for x in np.meshgrid(bases, powers, indexing="ij"))
    body = f"    %r = fpowi %x0, %x1 : tile<16xf32>, tile<16x{elem}>"
    assert_same(launch_both(kernel(["f32", elem], "f32", body), [a, b], np.float32))


def test_fpowi_near_one_and_exact_midpoints_are_settled():
    """Bases near 1 with large powers (results of every magnitude); squares that are
    exact midpoints between two f32 values (settled by the reference's semantics)."""
    rng = np.random.default_rng(10)
    x = (1 + rng.standard_normal(512) * 1e-3).astype(np.float32)
    n = rng.integers(-60000, 60000, 512).astype(np.int32)
    body = "    %r = fpowi %x0, %x1 : tile<16xf32>, tile<16xi32>"
    assert_same(launch_both(kernel(["f32", "i32"], "f32", body), [x, n], np.float32))
    ties = (1 + np.arange(1, 17, dtype=np.float32) * np.float32(2 ** -12)).astype(np.float32)
    before = jit.settlements()
    assert_same(launch_both(kernel(["f32", "i32"], "f32", body), [ties, np.full(16, 2, np.int32)],
                            np.float32))
    assert jit.settlements() > before


def test_fpowi_with_an_i1_exponent_and_in_a_scalar():
    """i1's true reads -1; a rank-0 fpowi (settled the scalar way when undecided)."""
    x = np.concatenate([F32_SPECIAL, F32_SPECIAL])
    body = ("    %z = constant <f32: 0.0> : tile<16xf32>\n"
            "    %lt = cmpf less_than ordered %x0, %z : tile<16xf32> -> tile<16xi1>\n"
            "    %p = fpowi %x0, %lt : tile<16xf32>, tile<16xi1>\n"
            "    %e = extract %x0[%i] : tile<16xf32> -> tile<1xf32>\n"
            "    %s = reshape %e : tile<1xf32> -> tile<f32>\n"
            "    %three = constant <i32: 3> : tile<i32>\n"
            "    %c3 = fpowi %s, %three : tile<f32>, tile<i32>\n"
            "    %c1 = reshape %c3 : tile<f32> -> tile<1xf32>\n"
            "    %cb = broadcast %c1 : tile<1xf32> -> tile<16xf32>\n"
            "    %r = addf %p, %cb : tile<16xf32>")
    assert_same(launch_both(kernel(["f32"], "f32", body), [x], np.float32))


def test_atan2_is_the_references():
    """Every pair of special values (signed zeros and infinities choose the quadrant)
    and random pairs of every magnitude."""
    rng = np.random.default_rng(11)
    a, b = pairs(F32_SPECIAL, (rng.standard_normal(16) * 3).astype(np.float32))
    body = "    %r = atan2 %x0, %x1 : tile<16xf32>"
    assert_same(launch_both(kernel(["f32", "f32"], "f32", body), [a, b], np.float32))
    x = (rng.standard_normal(4096) * np.exp2(rng.integers(-40, 40, 4096))).astype(np.float32)
    y = (rng.standard_normal(4096) * np.exp2(rng.integers(-40, 40, 4096))).astype(np.float32)
    assert_same(launch_both(kernel(["f32", "f32"], "f32", body), [x, y], np.float32))


def test_f64_atan2_declines():
    x = np.ones(16)
    body = "    %r = atan2 %x0, %x1 : tile<16xf64>"
    run, _ = launch_both(kernel(["f64", "f64"], "f64", body), [x, x], np.float64)["compiled"]
    assert_declined(run, "only f32 is compiled")
