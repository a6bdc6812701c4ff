"""The compiled engine (tileir.interp.compiled) against the reference engine (engine="blocks"): the
same bytes, the same diagnostics, and a fallback with a reason wherever it declines."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_declined, assert_engine  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402

EXAMPLES = pathlib.Path(tileir.__file__).parent / "examples" / "kernels"
BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"

#: Float inputs that exercise every special case: NaNs with payloads, signalling and
#: negative NaNs, infinities, signed zeros, subnormals, extremes, ordinary values.
F32_SPECIAL = [0x7FC00000, 0x7FC00001, 0xFFC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0,
               0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
               0xBF800000, 0x3EAAAAAB]
F64_SPECIAL = [0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000,
               0x7FF0000000000001, 0x7FF0000000000000, 0xFFF0000000000000, 0,
               0x8000000000000000, 1, 0x800FFFFFFFFFFFFF, 0x0010000000000000,
               0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
               0x3FD5555555555555, 0x4340000000000001]
INT_SPECIAL = [0, 1, -1, 2, -2, 0x7FFFFFFF, -0x80000000, 12345, -777, 0x55555555]


def pairs(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values of `dtype`, plus random ones, as two arrays."""
    rng = np.random.default_rng(7)
    if dtype in (np.float32, np.float64):
        bits = F32_SPECIAL if dtype == np.float32 else F64_SPECIAL
        words = np.array(bits, np.uint32 if dtype == np.float32 else np.uint64)
        special = words.view(dtype)
        extra = rng.standard_normal(40).astype(dtype) * dtype(3)
    else:
        special = np.array(INT_SPECIAL, np.int64).astype(dtype)
        extra = rng.integers(-1000, 1000, 40).astype(dtype)
    values = np.concatenate([special, extra])
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.reshape(-1).copy(), b.reshape(-1).copy()


def kernel(elem: str, body: str, tile: int = 16, out: str | None = None,
           padding: str = "") -> str:
    """A kernel c[i] = f(a[i], b[i]): a and b hold n elements, c m (m > n: padding shows),
    one tile of `tile` elements per tile block; `body` computes %r from %x and %y."""
    out = out or elem
    pad = f", padding_value = {padding}" if padding else ""
    tv_in, tv_out = (f"tensor_view<?x{e}, strides=[1]>" for e in (elem, out))
    view_in = f"partition_view<tile=({tile}){pad}, {tv_in}>"
    view_out = f"partition_view<tile=({tile}), {tv_out}>"
    ti, stored = "tile<i32>", f"tile<{tile}x{out}>"
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<{elem}>>, %b: tile<ptr<{elem}>>, %c: tile<ptr<{out}>>, %n: tile<i32>,
           %m: tile<i32>) {{
    %t = make_token : token
    %av = make_tensor_view %a, shape = [%n], strides = [1] : {ti} -> {tv_in}
    %bv = make_tensor_view %b, shape = [%n], strides = [1] : {ti} -> {tv_in}
    %cv = make_tensor_view %c, shape = [%m], strides = [1] : {ti} -> {tv_out}
    %ap = make_partition_view %av : {view_in}
    %bp = make_partition_view %bv : {view_in}
    %cp = make_partition_view %cv : {view_out}
    %i, %j, %k = get_tile_block_id : tile<i32>
    %x, %t1 = load_view_tko weak %ap[%i] token = %t : {view_in}, {ti} -> tile<{tile}x{elem}>, token
    %y, %t2 = load_view_tko weak %bp[%i] token = %t : {view_in}, {ti} -> tile<{tile}x{elem}>, token
{body}
    %done = store_view_tko weak %r, %cp[%i] token = %t : {stored}, {view_out}, {ti} -> token
    return
  }}
}}"""


def run_both(text: str, a: np.ndarray, b: np.ndarray, out_dtype: type | None = None,
             extra: int = 0, grid: int | tuple | None = None, **options):
    """Launch `text` on the reference and the compiled engine, each on fresh copies;
    returns {engine: (Run or the error's text, c)}."""
    n, tile = a.size, 16
    m = n + extra
    results = {}
    for engine in ("blocks", "compiled"):
        c = np.full(m, 7, out_dtype or a.dtype)
        args = [a.copy(), b.copy(), c, n, m]
        try:
            run = tileir.launch(text, None, grid or -(-m // tile), args, engine=engine,
                                **options)
        except tileir.ExecutionError as error:
            run = str(error)
        results[engine] = (run, c)
    return results


def assert_same(results: dict, engine: str = "compiled") -> None:
    """The compiled launch left exactly the reference's bytes and ran on `engine`
    ("blocks": handed over after the compiled run stopped, to the batched engine where it
    applies, else one tile block at a time)."""
    run, c = results["compiled"]
    ref_run, ref = results["blocks"]
    assert not isinstance(ref_run, str), ref_run
    assert c.tobytes() == ref.tobytes()
    assert_engine(run, engine)


# ---- the shipped vector add ----------------------------------------------------------


@pytest.mark.parametrize("path", [EXAMPLES / "vector_add.mlir", BENCH / "vector_add.mlir"])
@pytest.mark.parametrize("n", [1, 64, 1000, 3000])
@pytest.mark.parametrize("checks", [True, False])
def test_vector_add_is_bit_identical(path, n, checks):
    tile = 64 if path.parent == EXAMPLES else 1024
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    outputs = {}
    for engine in ("blocks", "compiled"):
        c = np.full(n, -1, np.float32)
        run = tileir.launch(path, None, -(-n // tile), [a, b, c, n], engine=engine,
                            checks=checks)
        outputs[engine] = (run, c)
    assert outputs["compiled"][0].engine == "compiled"
    assert outputs["compiled"][0].reason is None
    assert outputs["compiled"][1].tobytes() == outputs["blocks"][1].tobytes()


# ---- elementwise kernels on special values ---------------------------------------------

FLOAT_BODIES = {
    "addf": "    %r = addf %x, %y : tile<16x{e}>",
    "subf": "    %r = subf %x, %y rounding<nearest_even> : tile<16x{e}>",
    "mulf": "    %r = mulf %x, %y : tile<16x{e}>",
    "divf": "    %r = divf %x, %y : tile<16x{e}>",
    "maxf": "    %r = maxf %x, %y : tile<16x{e}>",
    "minf": "    %r = minf %x, %y : tile<16x{e}>",
    "maxf_nan": "    %r = maxf %x, %y propagate_nan : tile<16x{e}>",
    "minf_nan": "    %r = minf %x, %y propagate_nan : tile<16x{e}>",
    "negf_absf": "    %u = negf %x : tile<16x{e}>\n    %v = absf %y : tile<16x{e}>\n"
                 "    %r = subf %u, %v : tile<16x{e}>",
    "select": "    %lt = cmpf less_than unordered %x, %y : tile<16x{e}> -> tile<16xi1>\n"
              "    %ge = cmpf greater_than_or_equal ordered %x, %y : tile<16x{e}> -> "
              "tile<16xi1>\n"
              "    %s = select %lt, %x, %y : tile<16xi1>, tile<16x{e}>\n"
              "    %r = select %ge, %y, %s : tile<16xi1>, tile<16x{e}>",
    "constants": "    %h = constant <{e}: 0.5> : tile<16x{e}>\n"
                 "    %d = constant <{e}: [1.0, -0.0, 0x7FC00001, 2.0, 3.0, 4.0, 5.0, 6.0, "
                 "7.0, 8.0, 9.0, 1.0e-40, 11.0, 12.0, 13.0, 14.0]> : tile<16x{e}>\n"
                 "    %p = mulf %x, %h : tile<16x{e}>\n    %r = addf %p, %d : tile<16x{e}>",
}


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(FLOAT_BODIES))
def test_float_ops_are_bit_identical(elem, name):
    if name == "constants" and elem == "f64":
        body = FLOAT_BODIES[name].replace("0x7FC00001", "0x7FF8000000000001")
    else:
        body = FLOAT_BODIES[name]
    a, b = pairs(np.float32 if elem == "f32" else np.float64)
    results = run_both(kernel(elem, body.format(e=elem)), a, b)
    assert_same(results)


@pytest.mark.parametrize("tile", [4, 8])
@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("op", ["maxf", "minf"])
def test_max_min_on_short_tiles_are_bit_identical(op, elem, tile):
    """maxf and minf on tiles under 16 elements, signalling NaNs among the pairs (the
    reference's NumPy fmax once gave NaN there, the number on longer tiles)."""
    a, b = pairs(np.float32 if elem == "f32" else np.float64)
    body = f"    %r = {op} %x, %y : tile<{tile}x{elem}>"
    results = run_both(kernel(elem, body, tile=tile), a, b, grid=-(-a.size // tile))
    assert_same(results)


@pytest.mark.parametrize("padding", ["zero", "neg_zero", "nan", "pos_inf", "neg_inf"])
def test_padding_is_the_references(padding):
    a, b = pairs(np.float32)
    a, b = a[:37], b[:37]
    body = "    %r = addf %x, %y : tile<16xf32>"
    results = run_both(kernel("f32", body, padding=padding), a, b, extra=11)
    assert_same(results)


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
def test_integer_ops_are_bit_identical(elem, dtype, signedness):
    body = (f"    %s = addi %x, %y : tile<16x{elem}>\n"
            f"    %p = muli %s, %y : tile<16x{elem}>\n"
            f"    %d = subi %p, %x : tile<16x{elem}>\n"
            f"    %q = xori %d, %x : tile<16x{elem}>\n"
            f"    %o = ori %q, %y : tile<16x{elem}>\n"
            f"    %w = andi %o, %s : tile<16x{elem}>\n"
            f"    %lt = cmpi less_than %x, %y, {signedness} : tile<16x{elem}> -> tile<16xi1>\n"
            f"    %r = select %lt, %w, %q : tile<16xi1>, tile<16x{elem}>")
    a, b = pairs(dtype)
    assert_same(run_both(kernel(elem, body), a, b))


def test_scalar_ops_on_block_ids():
    """Rank-0 arithmetic (block ids, grid extents) feeding a tile compare."""
    body = ("    %g, %g1, %g2 = get_num_tile_blocks : tile<i32>\n"
            "    %one = constant <i32: 1> : tile<i32>\n"
            "    %last = subi %g, %one : tile<i32>\n"
            "    %is_last = cmpi equal %i, %last, signed : tile<i32> -> tile<i1>\n"
            "    %zero = constant <f32: 0.0> : tile<f32>\n"
            "    %neg = constant <f32: -0.0> : tile<f32>\n"
            "    %z = select %is_last, %neg, %zero : tile<i1>, tile<f32>\n"
            "    %zz = addf %z, %z : tile<f32>\n"
            "    %r = addf %x, %y : tile<16xf32>")
    a, b = pairs(np.float32)
    assert_same(run_both(kernel("f32", body), a, b))


# ---- undefined behaviour: the reference's diagnostic, buffers as they were --------------


@pytest.mark.parametrize("on_error", ["restore", "keep"])
def test_out_of_bounds_reports_the_references_error(on_error):
    """n larger than the buffers: blocks 0 and 1 run, block 2 reads past the end."""
    path = EXAMPLES / "vector_add.mlir"
    outcome = {}
    for engine in ("blocks", "compiled"):
        a, b = np.arange(150, dtype=np.float32), np.ones(150, np.float32)
        c = np.full(150, 7, np.float32)
        with pytest.raises(tileir.ExecutionError) as info:
            tileir.launch(path, None, 4, [a, b, c, 200], engine=engine, on_error=on_error)
        outcome[engine] = (str(info.value), c.tobytes())
    assert outcome["compiled"] == outcome["blocks"]
    assert "outside every mapped buffer" in outcome["compiled"][0]
    if on_error == "restore":
        assert outcome["compiled"][1] == np.full(150, 7, np.float32).tobytes()


def test_out_of_bounds_without_checks_gives_the_references_bytes():
    """With checks off the reference skips the bad accesses; the compiled run stops at its
    check and the reference reruns, so the bytes are the reference's."""
    path = EXAMPLES / "vector_add.mlir"
    outputs = {}
    for engine in ("blocks", "compiled"):
        a, b = np.arange(150, dtype=np.float32), np.ones(150, np.float32)
        c = np.full(150, 7, np.float32)
        run = tileir.launch(path, None, 4, [a, b, c, 200], engine=engine, checks=False)
        outputs[engine] = (run, c.tobytes())
    assert_engine(outputs["compiled"][0], "blocks")
    assert outputs["compiled"][1] == outputs["blocks"][1]


@pytest.mark.parametrize("checks", [True, False])
def test_index_outside_the_index_space(checks):
    """A grid of more tiles than the view has: undefined with checks on."""
    a, b = pairs(np.float32)
    a, b = a[:40], b[:40]
    body = "    %r = addf %x, %y : tile<16xf32>"
    results = run_both(kernel("f32", body), a, b, grid=5, checks=checks)
    if checks:
        assert isinstance(results["blocks"][0], str)
        assert results["compiled"][0] == results["blocks"][0]
        assert "outside the index space" in results["compiled"][0]
    else:
        assert_same(results, engine="blocks")
        assert results["compiled"][0].reason.startswith("compiled engine: a check failed")


def test_a_race_between_blocks_is_reported_as_the_reference_does():
    """A 2-D grid whose blocks (x, 0) and (x, 1) store the same tile: the compiled engine
    declines (its race checks are not compiled) and the race is reported."""
    a, b = pairs(np.float32)
    a, b = a[:32], b[:32]
    results = run_both(kernel("f32", "    %r = addf %x, %y : tile<16xf32>"), a, b,
                       grid=(2, 2))
    assert isinstance(results["blocks"][0], str) and "races with" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]


def test_an_in_place_kernel_declines_with_checks():
    """c is a: one buffer loaded and stored by unordered ops (the reference reports the
    race), so the compiled engine declines; without checks it runs."""
    text = kernel("f32", "    %r = addf %x, %y : tile<16xf32>")
    outcome = {}
    for checks in (True, False):
        for engine in ("blocks", "compiled"):
            a, b = np.arange(32, dtype=np.float32), np.ones(32, np.float32)
            try:
                run = tileir.launch(text, None, 2, [a, b, a, 32, 32], engine=engine,
                                    checks=checks)
            except tileir.ExecutionError as error:
                run = str(error)
            outcome[checks, engine] = (run, a.tobytes())
    assert outcome[True, "compiled"] == outcome[True, "blocks"]
    assert "races with" in outcome[True, "compiled"][0]
    run, data = outcome[False, "compiled"]
    assert run.engine == "compiled" and data == outcome[False, "blocks"][1]


# ---- declines: the fallback says why ---------------------------------------------------


@pytest.mark.parametrize("body, why", [
    ("    %r = remf %x, %y : tile<16xf32>", "op 'cuda_tile.remf' is not compiled"),
    ("    %r = addf %x, %y rounding<zero> : tile<16xf32>", "'cuda_tile.addf' rounds zero"),
    ("    %r = addf %x, %y flush_to_zero : tile<16xf32>", "has flush_to_zero"),
])
def test_unsupported_kernels_fall_back_with_a_reason(body, why):
    a, b = pairs(np.float32)
    results = run_both(kernel("f32", body), a, b)
    run, c = results["compiled"]
    assert_declined(run, why)
    assert c.tobytes() == results["blocks"][1].tobytes()


OVERFLOW_BODIES = {
    "addi": "    %r = addi %x, %y overflow<{flag}> : tile<16x{e}>",
    "subi": "    %r = subi %x, %y overflow<{flag}> : tile<16x{e}>",
    "muli": "    %r = muli %x, %y overflow<{flag}> : tile<16x{e}>",
    "shli": ("    %mask = constant <{e}: 7> : tile<16x{e}>\n    %s = andi %y, %mask : tile<16x{e}>\n"
             "    %r = shli %x, %s overflow<{flag}> : tile<16x{e}>"),
    "negi": "    %r = negi %x overflow<{flag}> : tile<16x{e}>",
}


#: The exact result of each flagged op on Python ints (x, y read in one reading).
EXACT = {"addi": lambda x, y: x + y, "subi": lambda x, y: x - y, "muli": lambda x, y: x * y,
         "shli": lambda x, y: x << (y & 7), "negi": lambda x, y: -x}
#: The readings each flag promises do not wrap (signed: True).
PROMISED = {"no_signed_wrap": (True,), "no_unsigned_wrap": (False,), "no_wrap": (True, False)}
FLAGGED = [(name, flag) for name in sorted(OVERFLOW_BODIES) for flag in PROMISED
           if not (name == "negi" and flag == "no_unsigned_wrap")]   # (the verifier's rule)


def wide_pairs(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """`pairs` with the type's extremes and their neighbours among the values."""
    info = np.iinfo(dtype)
    extra = np.array([info.min, info.min + 1, info.max, info.max - 1, info.max // 2 + 1,
                      -(info.max // 2) - 1], dtype)
    a, _ = pairs(dtype)
    values = np.concatenate([np.unique(a), extra])
    x, y = np.meshgrid(values, values, indexing="ij")
    return x.reshape(-1).copy(), y.reshape(-1).copy()


def wraps(name: str, x: int, y: int, bits: int, signed: bool) -> bool:
    """Whether `name` on (x, y), both read signed or unsigned, leaves that reading."""
    if not signed:
        x, y = x % (1 << bits), y % (1 << bits)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return not low <= EXACT[name](x, y) <= high


@pytest.mark.parametrize("name, flag", FLAGGED)
@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
def test_overflow_flags_are_checked_as_the_reference_does(name, flag, elem, dtype):
    """Each flagged op over pairs of special values and extremes (some wrap in each
    reading): with checks on the reference's error and untouched bytes; on the pairs
    that wrap in no promised reading, compiled with the reference's bytes; with checks
    off the reference's bytes (the compiled run stops where a promise breaks)."""
    body = OVERFLOW_BODIES[name].format(flag=flag, e=elem)
    a, b = wide_pairs(dtype)
    results = run_both(kernel(elem, body), a, b)
    assert isinstance(results["blocks"][0], str) and "overflow" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]
    assert results["compiled"][1].tobytes() == results["blocks"][1].tobytes()
    unchecked = run_both(kernel(elem, body), a, b, checks=False)
    assert unchecked["compiled"][1].tobytes() == unchecked["blocks"][1].tobytes()
    bits = np.dtype(dtype).itemsize * 8
    safe = np.array([not any(wraps(name, int(x), int(y), bits, signed)
                             for signed in PROMISED[flag]) for x, y in zip(a, b)])
    assert safe.any() and not safe.all()
    assert_same(run_both(kernel(elem, body), a[safe], b[safe]))


@pytest.mark.parametrize("flag", ["no_signed_wrap", "no_unsigned_wrap", "no_wrap"])
def test_trunci_overflow_flags_are_checked(flag):
    """i64 -> i32 under each flag: values that lose their reading stop the compiled run
    and the reference reports them; values that fit run compiled."""
    body = f"    %r = trunci %x overflow<{flag}> : tile<16xi64> -> tile<16xi32>"
    text = kernel("i64", body, out="i32")
    a, b = wide_pairs(np.int64)
    results = run_both(text, a, b, out_dtype=np.int32)
    assert "truncates" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]
    fits = {"no_signed_wrap": (a >= -2**31) & (a < 2**31),
            "no_unsigned_wrap": (a >= 0) & (a < 2**32),
            "no_wrap": (a >= 0) & (a < 2**31)}[flag]
    assert_same(run_both(text, a[fits], b[fits], out_dtype=np.int32))


def test_max_ops_falls_back():
    a, b = np.arange(32, dtype=np.float32), np.ones(32, np.float32)
    results = run_both(kernel("f32", "    %r = addf %x, %y : tile<16xf32>"), a, b,
                       max_ops=1000)
    assert results["compiled"][0].reason == \
        "compiled engine: max_ops bounds tile blocks run one at a time"
    assert results["compiled"][1].tobytes() == results["blocks"][1].tobytes()


def test_without_llvmlite_it_falls_back(monkeypatch):
    monkeypatch.setitem(sys.modules, "llvmlite", None)
    monkeypatch.setitem(sys.modules, "llvmlite.binding", None)
    a, b = np.arange(100, dtype=np.float32), np.ones(100, np.float32)
    c = np.zeros(100, np.float32)
    run = tileir.launch(EXAMPLES / "vector_add.mlir", None, 2, [a, b, c, 100],
                        engine="compiled")
    assert_declined(run, "llvmlite is not installed")
    assert (c == a + b).all()


def test_a_broken_llvmlite_falls_back(monkeypatch):
    """llvmlite present whose library cannot load (an OSError at import): the launch
    falls back with the reason, engine="auto" too, instead of failing (found by a
    review)."""
    from tileir.interp.compiled import cache, runner

    def broken() -> None:
        raise OSError("Could not find/load shared object file")
    monkeypatch.setattr(cache, "llvm", broken)
    monkeypatch.setattr(runner, "AUTO_WORK", 0)       # (auto tries it on any launch)
    for engine in ("compiled", "auto"):
        a, b = np.arange(100, dtype=np.float32), np.ones(100, np.float32)
        c = np.zeros(100, np.float32)
        run = tileir.launch(EXAMPLES / "vector_add.mlir", None, 2, [a, b, c, 100],
                            engine=engine)
        assert (c == a + b).all()
        assert_declined(run, "llvmlite cannot be used here: OSError: Could not find")


# ---- the cache -------------------------------------------------------------------------


def test_a_second_launch_does_not_recompile(monkeypatch, tmp_path):
    text = kernel("f64", "    %r = divf %x, %y : tile<16xf64>")
    a, b = pairs(np.float64)
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path))   # (an empty disk cache)
    jit.clear()                     # (another test may have compiled this kernel)
    before = jit.compilations()
    run_both(text, a, b)
    assert jit.compilations() == before + 1
    run_both(text, a[:100], b[:100])                      # another launch, other sizes
    tileir.launch(tileir.parse(text, "<again>"), None, 7, [a, b, np.zeros_like(a), 100, 100],
                  engine="compiled")                      # the same text parsed again
    assert jit.compilations() == before + 1
    run_both(text.replace("divf", "mulf"), a, b)          # another kernel compiles
    assert jit.compilations() == before + 2


# ---- checks the compiled code makes itself ---------------------------------------------


@pytest.mark.parametrize("flag", ["true", "false"])
@pytest.mark.parametrize("checks", [True, False])
def test_inbounds_promises(flag, checks):
    """A load marked inbounds whose last tile leaves the tensor: undefined with checks on
    (the reference's error), padding otherwise."""
    text = kernel("f32", "    %r = addf %x, %y : tile<16xf32>", padding="nan").replace(
        "%x, %t1 = load_view_tko weak %ap[%i] token = %t :",
        f"%x, %t1 = load_view_tko weak %ap[%i] token = %t inbounds = [{flag}] :")
    a, b = np.arange(40, dtype=np.float32), np.ones(40, np.float32)
    results = run_both(text, a, b, extra=8, checks=checks)
    if flag == "true" and checks:
        assert "marks dimension 0 inbounds" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="compiled" if flag == "false" else "blocks")


def _block_strided(text: str) -> str:
    """`kernel`'s text with c's stride the tile block id plus one (not the same in every
    block)."""
    view = "tensor_view<?xf32, strides=[1]>"
    strided = "tensor_view<?xf32, strides=[?]>"
    text = text.replace(
        f"%cv = make_tensor_view %c, shape = [%m], strides = [1] : tile<i32> -> {view}",
        "%one = constant <i32: 1> : tile<i32>\n    %s = addi %i, %one : tile<i32>\n"
        f"    %cv = make_tensor_view %c, shape = [%m], strides = [%s] : tile<i32> -> {strided}")
    text = text.replace(f"%cp = make_partition_view %cv : partition_view<tile=(16), {view}>",
                        f"%cp = make_partition_view %cv : partition_view<tile=(16), {strided}>")
    text = text.replace(f"{view}>, tile<i32> -> token", f"{strided}>, tile<i32> -> token")
    lines = text.split("\n")
    block_id = next(line for line in lines if "get_tile_block_id" in line)
    lines.remove(block_id)
    lines.insert(3, block_id)
    return "\n".join(lines)


@pytest.mark.parametrize("checks", [True, False])
def test_a_store_whose_stride_varies_by_block(checks):
    """Stores that may overlap between blocks: with checks on the compiled engine cannot
    stand in for the race check and declines; with checks off it runs, blocks in order."""
    text = _block_strided(kernel("f32", "    %r = addf %x, %y : tile<16xf32>"))
    a, b = np.arange(32, dtype=np.float32), np.ones(32, np.float32)
    results = run_both(text, a, b, extra=64, grid=2, checks=checks)
    run, c = results["compiled"]
    if checks:
        assert "stride may differ between tile blocks" in run.reason
        assert run.engine != "compiled"
        assert c.tobytes() == results["blocks"][1].tobytes()
    else:
        assert_same(results)


def test_unaligned_host_arrays():
    """An array whose data is not aligned in host memory (a view at an odd byte)."""
    path = EXAMPLES / "vector_add.mlir"
    outputs = []
    for engine in ("blocks", "compiled"):
        raw = bytearray(4 * 100 + 1)
        c = np.frombuffer(raw, dtype=np.float32, count=100, offset=1)
        a = np.frombuffer(bytearray(np.arange(100, dtype=np.float32).tobytes()) + b"x",
                          dtype=np.float32, count=100)
        run = tileir.launch(path, None, 2, [a, np.ones(100, np.float32), c, 100],
                            engine=engine)
        outputs.append((run.engine, c.tobytes()))
    assert not np.frombuffer(bytearray(401), np.float32, 100, 1).flags.aligned
    assert outputs[1] == ("compiled", outputs[0][1])


@pytest.mark.parametrize("checks", [True, False])
def test_a_computed_tile_index(checks):
    """Blocks in reverse: tile index (grid - 1) - block id, computed on rank-0 values.
    The race proof needs a plain block id; the index log shows each block storing its
    own tile, so it runs compiled, checks on or off."""
    body = ("    %g, %g1, %g2 = get_num_tile_blocks : tile<i32>\n"
            "    %one = constant <i32: 1> : tile<i32>\n"
            "    %last = subi %g, %one : tile<i32>\n"
            "    %back = subi %last, %i : tile<i32>\n"
            "    %r = addf %x, %y : tile<16xf32>")
    text = kernel("f32", body).replace("%cp[%i]", "%cp[%back]")
    a, b = np.arange(64, dtype=np.float32), np.full(64, 0.5, np.float32)
    assert_same(run_both(text, a, b, checks=checks))


def test_a_computed_tile_index_two_blocks_share_is_the_references_race():
    """Tile index block id / 2: blocks 0 and 1 store one tile.  The index log shows it;
    memory is put back and the reference reports the race."""
    body = ("    %two = constant <i32: 2> : tile<i32>\n"
            "    %half = divi %i, %two signed : tile<i32>\n"
            "    %r = addf %x, %y : tile<16xf32>")
    text = kernel("f32", body).replace("%cp[%i]", "%cp[%half]")
    a, b = np.arange(64, dtype=np.float32), np.full(64, 0.5, np.float32)
    results = run_both(text, a, b)
    assert "races with" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]
    assert (results["compiled"][1] == 7).all()


def test_i64_extents():
    text = kernel("f32", "    %r = mulf %x, %y : tile<16xf32>").replace(
        "%n: tile<i32>,", "%n: tile<i64>,").replace(
        "shape = [%n], strides = [1] : tile<i32>", "shape = [%n], strides = [1] : tile<i64>")
    a, b = pairs(np.float32)
    assert_same(run_both(text, a[:300], b[:300]))


@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_unchecked_races_follow_the_schedule(schedule):
    """Checks off, blocks (x, 0) and (x, 1) storing one tile: the last writer wins.  The
    compiled engine runs blocks in the sequential order only, and declines otherwise."""
    a, b = pairs(np.float32)
    a, b = a[:32], b[:32]
    results = run_both(kernel("f32", "    %r = addf %x, %y : tile<16xf32>"), a, b,
                       grid=(2, 2), checks=False, schedule=schedule)
    run, c = results["compiled"]
    assert c.tobytes() == results["blocks"][1].tobytes()
    if schedule == "sequential":
        assert run.engine == "compiled"
    else:
        assert run.engine != "compiled" and "the access logs show tile blocks" in run.reason


# ---- engine="auto" ------------------------------------------------------------------------


def _auto_vector_add(n: int, text: str | None = None):
    """The shipped vector add launched with engine="auto" on n elements: (Run, c)."""
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, np.float32)
    c = np.zeros(n, np.float32)
    text = text or (EXAMPLES / "vector_add.mlir").read_text().replace("@", "@auto_", 1)
    run = tileir.launch(text, None, -(-n // 64), [a, b, c, n], engine="auto")
    assert c.tobytes() == (a + b).tobytes()
    return run


def test_auto_leaves_a_small_launch_to_the_batched_engine_without_compiling():
    """Too little work to pay for compiling: batched, nothing compiled, no reason given
    (auto's choice, not a failure)."""
    jit.clear()
    before = jit.compilations()
    run = _auto_vector_add(100)
    assert (run.engine, run.reason) == ("batched", None)
    assert jit.compilations() == before


def test_auto_compiles_a_launch_with_work_enough(monkeypatch, tmp_path):
    """From AUTO_WORK element operations on, auto compiles the kernel and runs it
    compiled; a later small launch of the same kernel runs batched although the kernel
    is compiled (the engine depends on the launch alone, not on what ran before)."""
    from tileir.interp.compiled import runner
    monkeypatch.setenv("TILEIR_CACHE_DIR", str(tmp_path))
    jit.clear()
    per_block = 3 * 64 + 3      # (the kernel's tiles: two loads and an add of 64; block ids)
    monkeypatch.setattr(runner, "AUTO_WORK", per_block * 16)
    before = jit.compilations()
    assert_engine(_auto_vector_add(15 * 64 + 1), "compiled")
    assert jit.compilations() == before + 1
    run = _auto_vector_add(10)
    assert (run.engine, run.reason) == ("batched", None)


def test_auto_says_why_a_kernel_with_work_enough_did_not_run_compiled(monkeypatch):
    """A kernel the compiled engine does not support, launched with work enough: batched,
    and `Run.reason` says why not compiled."""
    from tileir.interp.compiled import runner
    monkeypatch.setattr(runner, "AUTO_WORK", 1)
    text = (EXAMPLES / "vector_add.mlir").read_text().replace("@", "@auto_abs_", 1).replace(
        "addf %x, %y", "remf %x, %y")
    a, b, c = (np.ones(40, np.float32) for _ in range(3))
    run = tileir.launch(text, None, 1, [a, b, c, 40], engine="auto")
    assert run.engine == "batched"
    assert run.reason == "compiled engine: op 'cuda_tile.remf' is not compiled"


# ---- spans of tile blocks on threads --------------------------------------------------------


@pytest.fixture
def thread_spy(monkeypatch):
    """Threads from any work on; records the thread count of every compiled run."""
    from tileir.interp.compiled import runner
    monkeypatch.setattr(runner, "THREAD_WORK", 1)
    seen: list[int] = []
    original = runner._spans

    def spans(found, name, args, blocks, threads, scratch_bytes, *stop):
        if name == "run_span":      # (not a precheck: `precheck.py`)
            seen.append(threads)
        return original(found, name, args, blocks, threads, scratch_bytes, *stop)
    monkeypatch.setattr(runner, "_spans", spans)
    return seen


@pytest.mark.parametrize("workers", [2, 3, 7])
def test_spans_on_threads_give_the_references_bytes(thread_spy, workers):
    """The bench softmax over 37 rows on 2, 3 and 7 threads: the reference's bytes."""
    rng = np.random.default_rng(workers)
    x = (rng.standard_normal((37, 300)) * 4).astype(np.float32)
    text = (BENCH / "softmax.mlir").read_text()
    outs = {}
    for engine in ("blocks", "compiled"):
        y = np.zeros((37, 300), np.float32)
        run = tileir.launch(text, "softmax", 37, [x, 37, 300, 300, y, 37, 300, 300],
                            engine=engine, workers=workers)
        outs[engine] = (run, y.tobytes())
    assert_engine(outs["compiled"][0], "compiled")
    assert outs["compiled"][1] == outs["blocks"][1]
    assert thread_spy == [workers]


def test_a_check_failing_on_one_thread_puts_memory_back(thread_spy):
    """A grid one block past the index space: the last span's check fails while the
    others store; every buffer is put back and the reference reports the error, as one
    thread does.  (The kernel adds into c, c = a + c, so it reads what it writes: it runs
    with a journal, not after a precheck.)"""
    n = 64 * 20
    a = np.arange(n, dtype=np.float32)
    b_type = "partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>"
    c_type = "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>"
    text = (EXAMPLES / "vector_add.mlir").read_text().replace(
        f"%b_tiles[%block] token = %token : {b_type}",
        f"%c_tiles[%block] token = %token : {c_type}").replace(
        "%sum, %c_tiles[%block] token = %token", "%sum, %c_tiles[%block] token = %y_token")
    errors = {}
    for engine in ("blocks", "compiled"):
        c = np.full(n, 3.0, np.float32)
        with pytest.raises(tileir.ExecutionError) as caught:
            tileir.launch(text, None, 21, [a, a, c, n], engine=engine, workers=4)
        errors[engine] = str(caught.value)
        assert c.tobytes() == np.full(n, 3.0, np.float32).tobytes()
    assert errors["compiled"] == errors["blocks"]
    assert thread_spy == [4]


def test_a_kernel_without_the_race_proof_runs_on_one_thread(thread_spy):
    """Checks off, sequential: a kernel whose blocks all store one tile (the last write
    wins, in grid order) runs compiled but on one thread."""
    text = (EXAMPLES / "vector_add.mlir").read_text().replace(
        "%c_tiles[%block]", "%c_tiles[%zero]").replace(
        "%block, %unused_y", "%zero = constant <i32: 0> : tile<i32>\n    %block, %unused_y")
    n = 64 * 8
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    outs = {}
    for engine in ("blocks", "compiled"):
        c = np.zeros(n, np.float32)
        run = tileir.launch(text, None, 8, [a, b, c, n], engine=engine, workers=4,
                            checks=False)
        outs[engine] = (run, c.tobytes())
    assert_engine(outs["compiled"][0], "compiled")
    assert outs["compiled"][1] == outs["blocks"][1]
    assert thread_spy == [1]


# ---- integer division, remainders, shifts, mulhii ------------------------------------------


def _no_bad_divisors(a: np.ndarray, b: np.ndarray, signed: bool) -> np.ndarray:
    """b with its zeros (and, signed, the -1s under the minimum) replaced by 3."""
    bad = b == 0
    if signed:
        bad |= (a == np.iinfo(a.dtype).min) & (b == -1)
    return np.where(bad, b.dtype.type(3), b)


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
@pytest.mark.parametrize("signedness, rounding", [
    ("signed", ""), ("signed", " rounding<zero>"), ("signed", " rounding<negative_inf>"),
    ("signed", " rounding<positive_inf>"), ("unsigned", ""), ("unsigned", " rounding<zero>"),
    ("unsigned", " rounding<positive_inf>")])     # (unsigned negative_inf: not valid)
def test_divi_and_remi_are_bit_identical(elem, dtype, signedness, rounding):
    """Every pair of special values (minimums, -1, 1, 2, ...) and random ones, divisors
    of 0 (and the minimum by -1) left out: compiled, the reference's bytes."""
    body = (f"    %dq = divi %x, %y {signedness}{rounding} : tile<16x{elem}>\n"
            f"    %dm = remi %x, %y {signedness} : tile<16x{elem}>\n"
            f"    %r = xori %dq, %dm : tile<16x{elem}>")
    a, b = (x[:2496] for x in pairs(dtype))        # (whole tiles: no zero padding)
    b = _no_bad_divisors(a, b, signedness == "signed")
    assert_same(run_both(kernel(elem, body), a, b))


@pytest.mark.parametrize("op, checks", [("divi", True), ("divi", False), ("remi", True),
                                        ("remi", False)])
def test_division_by_zero_is_the_references(op, checks):
    """A zero divisor: undefined with checks on (the reference's error, memory as it
    was); with checks off the compiled code stops and the reference's result stands."""
    body = f"    %r = {op} %x, %y signed : tile<16xi32>"
    a = np.arange(1, 65, dtype=np.int32)
    b = np.full(64, 5, np.int32)
    b[37] = 0
    results = run_both(kernel("i32", body), a, b, checks=checks)
    if checks:
        assert "by zero" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


def test_signed_minimum_by_minus_one_is_the_references():
    a = np.full(32, np.iinfo(np.int32).min, np.int32)
    b = np.full(32, -1, np.int32)
    results = run_both(kernel("i32", "    %r = divi %x, %y signed : tile<16xi32>"), a, b)
    assert "signed division overflow" in results["blocks"][0]
    assert results["compiled"][0] == results["blocks"][0]


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
def test_shifts_and_mulhii_are_bit_identical(elem, dtype):
    width = np.dtype(dtype).itemsize * 8
    a, _ = pairs(dtype)
    b = (np.arange(a.size) % width).astype(dtype)
    body = (f"    %l = shli %x, %y : tile<16x{elem}>\n"
            f"    %s = shri %x, %y signed : tile<16x{elem}>\n"
            f"    %u = shri %l, %y unsigned : tile<16x{elem}>\n"
            f"    %h = mulhii %x, %s : tile<16x{elem}>\n"
            f"    %v = xori %s, %u : tile<16x{elem}>\n"
            f"    %r = xori %v, %h : tile<16x{elem}>")
    assert_same(run_both(kernel(elem, body), a, b))


@pytest.mark.parametrize("amount", [32, 33, -1])
@pytest.mark.parametrize("checks", [True, False])
def test_a_shift_past_the_width_is_the_references(amount, checks):
    """A shift by 32 or more (-1 reads unsigned as 2**32 - 1): undefined with checks on;
    with checks off the reference's result stands."""
    a = np.arange(64, dtype=np.int32)
    b = np.full(64, 3, np.int32)
    b[50] = amount
    results = run_both(kernel("i32", "    %r = shli %x, %y : tile<16xi32>"), a, b,
                       checks=checks)
    if checks:
        assert "not less than the bit width" in results["blocks"][0]
        assert results["compiled"][0] == results["blocks"][0]
    else:
        assert_same(results, engine="blocks")


# ---- assume ------------------------------------------------------------------------------


def _assumed(predicate_a: str, predicate_n: str) -> str:
    """The shipped vector add with its pointer a and its n passed through assumes (the
    form cuTile emits)."""
    text = (EXAMPLES / "vector_add.mlir").read_text()
    text = text.replace("%token = make_token : token", "%token = make_token : token\n"
                        f"    %aa = assume {predicate_a}, %a : tile<ptr<f32>>\n"
                        f"    %nn = assume {predicate_n}, %n : tile<i32>", 1)
    text = text.replace("make_tensor_view %a, shape = [%n]", "make_tensor_view %aa, shape = [%nn]")
    return text.replace("make_tensor_view %b, shape = [%n]", "make_tensor_view %b, shape = [%nn]")


@pytest.mark.parametrize("predicate_a, predicate_n", [
    ("div_by<4>", "bounded<0, ?>"), ("div_by<16>", "bounded<1, 1000>"),
    ("div_by<1>", "div_by<8>")])
def test_assume_that_holds_runs_compiled(predicate_a, predicate_n):
    """Assumed predicates that hold (pointers of arrays tileir maps 16-aligned, n = 200):
    compiled, over several tile blocks (the race proof sees through the assumes)."""
    text = _assumed(predicate_a, predicate_n)
    a = np.arange(200, dtype=np.float32)
    outs = {}
    for engine in ("blocks", "compiled"):
        c = np.zeros(200, np.float32)
        run = tileir.launch(text, None, 4, [a, np.ones(200, np.float32), c, 200], engine=engine)
        outs[engine] = (run, c.tobytes())
    assert_engine(outs["compiled"][0], "compiled")
    assert outs["compiled"][1] == outs["blocks"][1]


@pytest.mark.parametrize("checks", [True, False])
def test_assume_that_fails_is_the_references(checks):
    """n = 200 under bounded<0, 100>: undefined with checks on (the reference's error,
    memory as it was); ignored with checks off (the reference's result)."""
    text = _assumed("div_by<4>", "bounded<0, 100>")
    a = np.arange(200, dtype=np.float32)
    outs = {}
    for engine in ("blocks", "compiled"):
        c = np.zeros(200, np.float32)
        try:
            run = tileir.launch(text, None, 4, [a, np.ones(200, np.float32), c, 200],
                                engine=engine, checks=checks)
        except tileir.ExecutionError as exc:
            run = str(exc)
        outs[engine] = (run, c.tobytes())
    assert outs["compiled"][1] == outs["blocks"][1]
    if checks:
        assert "does not hold" in outs["blocks"][0]
        assert outs["compiled"][0] == outs["blocks"][0]
    else:
        assert_engine(outs["compiled"][0], "blocks")


# ---- fma, maxi, mini -------------------------------------------------------------------------


@pytest.mark.parametrize("elem, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_fma_is_the_references(elem, dtype):
    """x * y + (x + y) for every pair of special values: one rounding, signed zeros,
    infinities, NaN made canonical; and x * y - fl(x * y), the product's rounding error
    (exact only if fused)."""
    a, b = pairs(dtype)
    rng = np.random.default_rng(3)
    body = (f"    %q = addf %x, %y : tile<16x{elem}>\n"
            f"    %r = fma %x, %y, %q : tile<16x{elem}>")
    assert_same(run_both(kernel(elem, body), a, b))
    tiny = np.ldexp(1.0, -24 if elem == "f32" else -53)
    x = (1 + rng.integers(1, 1 << 12, 4096) * tiny).astype(dtype)
    y = (1 + rng.integers(1, 1 << 12, 4096) * tiny).astype(dtype)
    body = (f"    %q = mulf %x, %y : tile<16x{elem}>\n"
            f"    %ng = negf %q : tile<16x{elem}>\n"
            f"    %r = fma %x, %y, %ng : tile<16x{elem}>")      # (the product's rounding error)
    assert_same(run_both(kernel(elem, body), x, y))


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
def test_maxi_and_mini_are_the_references(elem, dtype, signedness):
    a, b = pairs(dtype)
    body = (f"    %hi = maxi %x, %y {signedness} : tile<16x{elem}>\n"
            f"    %lo = mini %x, %y {signedness} : tile<16x{elem}>\n"
            f"    %r = subi %hi, %lo : tile<16x{elem}>")
    assert_same(run_both(kernel(elem, body), a, b))


@pytest.mark.parametrize("elem, dtype", [("i32", np.int32), ("i64", np.int64)])
def test_negi_absi_and_width_changes_are_the_references(elem, dtype):
    """negi and absi (the minimum included), exti from i1 (signed: -1) and i32, trunci
    to i32 and i1, over every pair of special values."""
    a, b = pairs(dtype)
    narrow = "i32" if elem == "i64" else "i1"
    body = (f"    %ng = negi %x : tile<16x{elem}>\n"
            f"    %ab = absi %y : tile<16x{elem}>\n"
            f"    %lt = cmpi less_than %x, %y, signed : tile<16x{elem}> -> tile<16xi1>\n"
            f"    %es = exti %lt signed : tile<16xi1> -> tile<16x{elem}>\n"
            f"    %eu = exti %lt unsigned : tile<16xi1> -> tile<16x{elem}>\n"
            f"    %tr = trunci %ng : tile<16x{elem}> -> tile<16x{narrow}>\n"
            f"    %te = exti %tr signed : tile<16x{narrow}> -> tile<16x{elem}>\n"
            f"    %s1 = addi %ng, %ab : tile<16x{elem}>\n"
            f"    %s2 = xori %es, %eu : tile<16x{elem}>\n"
            f"    %s3 = addi %s1, %s2 : tile<16x{elem}>\n"
            f"    %r = subi %s3, %te : tile<16x{elem}>")
    assert_same(run_both(kernel(elem, body), a, b))


def test_fpowf_is_the_references():
    """x ** y (C pow's special cases) over every pair of special values and random ones,
    and over bases near 1 with large exponents (results of every magnitude)."""
    a, b = pairs(np.float32)
    assert_same(run_both(kernel("f32", "    %r = fpowf %x, %y : tile<16xf32>"), a, b))
    rng = np.random.default_rng(4)
    x = (1 + rng.standard_normal(2048) * 1e-3).astype(np.float32)
    y = (rng.standard_normal(2048) * 3e4).astype(np.float32)
    assert_same(run_both(kernel("f32", "    %r = fpowf %x, %y : tile<16xf32>"), x, y))
