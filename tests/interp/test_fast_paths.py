"""The interpreter's fast paths give the bits of its exact paths: native IEEE arithmetic for
f32/f64 in nearest-even, and element-wise memory access."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import function_module, run_op_text
from tileir.interp.memory import Memory
from tileir.interp.semantics import floating_point as fp
from tileir.types import F16, F32, F64

WORDS = {"f32": (np.uint32, np.float32), "f64": (np.uint64, np.float64)}
SPECIAL = {"f32": [0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
                   0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00001, 0x3F800000, 0x33800000],
           "f64": [0, 1 << 63, 1, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                   0xFFF0000000000000, 0x7FF8000000000000, 0x3FF0000000000000]}


def _values(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random bit patterns of every class (normals, subnormals, zeros, infinities, NaNs),
    plus the special ones, as floats."""
    word, dtype = WORDS[name]
    bits = rng.integers(0, np.iinfo(word).max, n, dtype=word, endpoint=True)
    tiny = rng.integers(0, 1 << 20, n // 4).astype(word)           # subnormals
    near_one = (rng.integers(-30, 30, n // 4) + (127 if name == "f32" else 1023)).astype(word)
    near_one <<= (23 if name == "f32" else 52)
    special = np.array(SPECIAL[name], dtype=word)
    every = np.concatenate([special, bits, tiny, near_one])
    return every[:1 << (every.size.bit_length() - 1)].view(dtype)   # a power-of-two tile


@pytest.mark.parametrize("name", ["f32", "f64"])
@pytest.mark.parametrize("op", ["addf", "subf", "mulf", "divf"])
def test_native_binary_arithmetic_matches_the_exact_path(op: str, name: str,
                                                         monkeypatch) -> None:
    """NumPy's own f32/f64 add, subtract, multiply and divide give the exact bits."""
    rng = np.random.default_rng(2026)
    lhs = _values(name, 20000, rng)
    rhs = rng.permutation(_values(name, 20000, rng))[:lhs.size]
    t = f"tile<{lhs.size}x{name}>"
    text = function_module(f"%a: {t}, %b: {t}", f"%r = {op} %a, %b : {t}")
    fast = run_op_text(text, lhs, rhs)
    monkeypatch.setattr(fp, "_NATIVE", {})
    exact = run_op_text(text, lhs, rhs)
    word = WORDS[name][0]
    assert np.array_equal(fast.view(word), exact.view(word))


@pytest.mark.parametrize("name", ["f32", "f64"])
def test_native_square_root_matches_the_exact_path(name: str, monkeypatch) -> None:
    """NumPy's own f32/f64 square root gives the exact path's bits."""
    values = _values(name, 20000, np.random.default_rng(7))
    t = f"tile<{values.size}x{name}>"
    text = function_module(f"%a: {t}", f"%r = sqrt %a : {t}")
    fast = run_op_text(text, values)
    monkeypatch.setattr(fp, "_NATIVE", {})
    exact = run_op_text(text, values)
    word = WORDS[name][0]
    assert np.array_equal(fast.view(word), exact.view(word))


def test_directed_rounding_and_ftz_keep_the_exact_path() -> None:
    """Directed rounding and flush_to_zero are not NumPy's: the exact path answers."""
    # 1 + 2**-24 in f32: nearest-even gives 1, rounding up gives the next float
    one, tiny = np.float32(1.0), np.float32(2.0 ** -24)
    up = run_op_text(function_module("%a: tile<f32>, %b: tile<f32>",
                                     "%r = addf %a, %b rounding<positive_inf> : tile<f32>"),
                     np.array(one), np.array(tiny))
    assert up.view(np.uint32) == 0x3F800001
    flushed = run_op_text(function_module("%a: tile<f32>, %b: tile<f32>",
                                          "%r = mulf %a, %b flush_to_zero : tile<f32>"),
                          np.array(np.float32(2.0 ** -100)), np.array(np.float32(2.0 ** -30)))
    assert flushed.view(np.uint32) == 0


@pytest.mark.parametrize("path", ["elements", "bytes"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64, np.bool_])
def test_element_and_byte_access_mean_the_same(dtype, path: str, monkeypatch) -> None:
    """Masked loads and stores (repeated addresses: the last lane in row-major order wins)
    through the element fast path and through the byte path give NumPy's answer."""
    from tileir.types import I1, I8, I64
    taken = []
    if path == "bytes":
        monkeypatch.setattr(Memory, "_elements", lambda *args: None)
    else:
        fast = Memory._elements
        monkeypatch.setattr(Memory, "_elements",
                            lambda *args: taken.append(fast(*args)) or taken[-1])
    rng = np.random.default_rng(3)
    memory = Memory()
    array = (rng.integers(0, 2, 256) if dtype == np.bool_ else
             rng.integers(-100, 100, 256)).astype(dtype)
    base = memory.map(array, "a")
    size = array.itemsize
    t = {np.float32: F32, np.int8: I8, np.int64: I64, np.bool_: I1}[dtype]
    addresses = base + size * rng.integers(0, 256, (4, 8))
    mask = rng.integers(0, 2, (4, 8)).astype(bool)
    loaded = memory.load(addresses, t, mask)
    assert np.array_equal(loaded, np.where(mask, array[(addresses - base) // size], 0))
    values = (rng.integers(0, 2, (4, 8)) if dtype == np.bool_ else
              rng.integers(-100, 100, (4, 8))).astype(dtype)
    expected = array.copy()
    for address, value, keep in zip(addresses.reshape(-1), values.reshape(-1), mask.reshape(-1)):
        if keep:
            expected[(address - base) // size] = value
    memory.store(addresses, values, t, mask)
    assert np.array_equal(array, expected)
    if path == "elements":
        assert taken and all(r is not None for r in taken), "the fast path did not run"


def test_an_access_across_elements_takes_the_byte_path() -> None:
    """A 4-byte access starting mid-element is not element-aligned: the fast path declines
    and the bytes are read as they lie (little-endian)."""
    memory = Memory()
    array = np.arange(8, dtype=np.uint8)
    base = memory.map(array, "a")
    assert memory._elements(np.array([base + 1]), 4, np.dtype(np.float32), None) is None
    from tileir.types import I32
    assert memory.load(np.array([base + 1]), I32)[0] == int.from_bytes(bytes([1, 2, 3, 4]),
                                                                        "little")


@pytest.mark.parametrize("t,dtype", [(F32, np.float32), (F16, np.float16)])
def test_nearest_rounding_by_cast_matches_the_general_path(t, dtype) -> None:
    """y and the sign of the exact value's tail, rounded: random doubles over a wide range,
    exact midpoints between neighbours (where the tail decides), the overflow midpoint,
    subnormal halves, zeros, infinities and NaN."""
    from tileir.enums import RoundingMode
    rng = np.random.default_rng(5)
    r = rng.standard_normal(4096).astype(dtype)
    up = np.nextafter(r, np.full(r.shape, np.inf, dtype))
    big = np.finfo(dtype).max.astype(np.float64)
    ulp = big - np.nextafter(np.finfo(dtype).max, np.zeros((), dtype)).astype(np.float64)
    tiny = np.finfo(dtype).smallest_subnormal.astype(np.float64)
    y = np.concatenate([
        rng.standard_normal(4096) * 10.0 ** rng.integers(-50, 50, 4096),
        (r.astype(np.float64) + up.astype(np.float64)) / 2,
        [big, big + ulp / 2, -(big + ulp / 2), big + ulp / 4, np.inf, -np.inf, np.nan, 0.0,
         -0.0, tiny / 2, -tiny / 2, tiny * 1.5, tiny * 2.5, tiny / 4],
        # midpoints between subnormals and at the bottom of the normal range, and values
        # one float64 ulp off them
        (rng.integers(-2 ** 12, 2 ** 12, 512) + 0.5) * tiny,
        np.nextafter((rng.integers(0, 2 ** 12, 256) + 0.5) * tiny, np.inf),
        np.nextafter((rng.integers(0, 2 ** 12, 256) + 0.5) * tiny, -np.inf),
        (r.astype(np.float64) + up.astype(np.float64)) / 2 * 2.0 ** -40])
    word = np.uint32 if dtype == np.float32 else np.uint16
    mixed = rng.integers(-1, 2, y.shape).astype(np.int8)
    for s in [np.full(y.shape, sign, np.int8) for sign in (-1, 0, 1)] + [mixed]:
        fast = fp._round_nearest_cast(y, s, t)
        general = fp._round_general(y, s, t, RoundingMode.NEAREST_EVEN, False)
        assert np.array_equal(fast.view(word), general.view(word))
    no_tail = fp._round_nearest_cast(y, None, t)
    general = fp._round_general(y, np.zeros(y.shape, np.int8), t, RoundingMode.NEAREST_EVEN,
                                False)
    assert np.array_equal(no_tail.view(word), general.view(word))
    # a strided 2-d y, a 0-d y
    grid = y[:4096 * 2].reshape(2, 4096).T
    assert np.array_equal(fp._round_nearest_cast(grid, mixed[:8192].reshape(4096, 2), t),
                          fp._round_nearest_cast(grid.copy(), mixed[:8192].reshape(4096, 2), t))
    assert fp._round_nearest_cast(np.array(y[4096]), np.array(1, np.int8), t).shape == ()


@pytest.mark.parametrize("k", [1, 7, 32, 64, 128])
def test_sliced_matrix_product_matches_the_k_loop(k: int, monkeypatch) -> None:
    """mmaf's sum through float64 products of exact slices equals the double-float k loop,
    also for rows mixing magnitudes 2**60 apart."""
    rng = np.random.default_rng(k)
    a = rng.standard_normal((3, 8, k)).astype(np.float32).astype(np.float64)
    a[..., ::3] *= 2.0 ** -60
    b = rng.standard_normal((3, k, 8)).astype(np.float32).astype(np.float64)
    c = rng.standard_normal((3, 8, 8)).astype(np.float32).astype(np.float64)
    outputs = []
    for sliced in (True, False):
        if not sliced:
            monkeypatch.setattr(fp, "_matmul_sliced", lambda *args: None)
        outputs.append([fp._matmul_round(a, b, c, t).tobytes() for t in (F32, F16, F64)])
    assert outputs[0] == outputs[1]


MIN_MAX_WORDS = {"f16": (np.uint16, np.float16), **WORDS}


def _min_max_pairs(name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pairs covering every class: random bit patterns, and hand-picked pairs of zeros of
    either sign, equal values, opposite values, NaNs and infinities (a power-of-two tile)."""
    word, dtype = MIN_MAX_WORDS[name]
    bits = rng.integers(0, np.iinfo(word).max, 4096, dtype=word, endpoint=True).view(dtype)
    x = rng.standard_normal(64).astype(dtype)
    z, inf, nan = dtype(0), dtype(np.inf), dtype(np.nan)
    left = [z, -z, z, -z, nan, nan, x[0], inf, -inf, inf, nan, -z] + list(x) + list(x)
    right = [-z, z, z, -z, nan, x[1], nan, -inf, inf, inf, -z, nan] + list(x) + list(-x)
    lhs = np.concatenate([bits, np.array(left, dtype)])
    rhs = np.concatenate([rng.permutation(bits), np.array(right, dtype)])
    n = 1 << (lhs.size.bit_length() - 1)
    return lhs[-n:], rhs[-n:]


@pytest.mark.parametrize("propagate", ["", " propagate_nan"])
@pytest.mark.parametrize("op", ["maxf", "minf"])
@pytest.mark.parametrize("name", ["f16", "f32", "f64"])
def test_native_min_max_matches_the_exact_path(name: str, op: str, propagate: str,
                                               monkeypatch) -> None:
    """NumPy's maximum/minimum/fmax/fmin with zeros re-chosen and NaNs made canonical give
    the exact path's bits, -0 < +0 included; the native path is checked to have run."""
    lhs, rhs = _min_max_pairs(name, np.random.default_rng(11))
    t = f"tile<{lhs.size}x{name}>"
    text = function_module(f"%a: {t}, %b: {t}", f"%r = {op} %a, %b{propagate} : {t}")
    ran = []
    native = fp._native_min_max
    monkeypatch.setattr(fp, "_native_min_max", lambda *args: ran.append(1) or native(*args))
    fast = run_op_text(text, lhs, rhs)
    assert ran, "the native path did not run"
    monkeypatch.setattr(fp, "_NATIVE_MIN_MAX", {})
    exact = run_op_text(text, lhs, rhs)
    word = MIN_MAX_WORDS[name][0]
    assert np.array_equal(fast.view(word), exact.view(word))


def _fma_operands(name: str, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """fma operands of every class, plus sums built to land on, and one float64 ulp off,
    the midpoints of the type, exact zeros of either sign, subnormal and overflowing
    results."""
    word, dtype = {"f32": (np.uint32, np.float32), "f16": (np.uint16, np.float16)}[name]
    bits = 16 if name == "f16" else 32
    n = 4096
    a = rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(word).view(dtype)
    b = rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(word).view(dtype)
    c = rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(word).view(dtype)
    finfo = np.finfo(dtype)
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    p = x.astype(np.float64) * y.astype(np.float64)
    ulp = np.spacing(np.abs(p.astype(dtype))).astype(np.float64)
    # c = (the type's value next to p) + half an ulp, minus p rounded: p + c near midpoints
    near = (p.astype(dtype).astype(np.float64) + ulp / 2 - p).astype(dtype)
    cases = [(a, b, c), (x, y, near), (x, y, -x * y), (-x, y, (x * y)),
             (x, y, np.nextafter(near, np.inf)), (x, y, np.nextafter(near, -np.inf)),
             (x * dtype(finfo.tiny), y, np.zeros(n, dtype)),
             (np.full(n, finfo.max, dtype), np.full(n, dtype(1.5)), -x),
             (np.full(n, finfo.max, dtype), np.ones(n, dtype), np.full(n, finfo.max / 2 ** 10,
                                                                         dtype))]
    return tuple(np.concatenate([case[k] for case in cases]) for k in range(3))


@pytest.mark.parametrize("name", ["f32", "f16"])
def test_fma_to_nearest_matches_the_exact_path(name: str, monkeypatch) -> None:
    with np.errstate(all="ignore"):
        lhs, rhs, acc = _fma_operands(name, np.random.default_rng(5))
    size = 1 << lhs.size.bit_length()                 # a power-of-two tile holding all
    lhs, rhs, acc = (np.resize(x, size) for x in (lhs, rhs, acc))
    t = f"tile<{size}x{name}>"
    text = function_module(f"%a: {t}, %b: {t}, %c: {t}", f"%r = fma %a, %b, %c : {t}")
    calls = []
    original = fp._fma_nearest
    monkeypatch.setattr(fp, "_fma_nearest", lambda *a: calls.append(1) or original(*a))
    fast = run_op_text(text, lhs, rhs, acc)
    assert calls
    monkeypatch.setattr(fp, "_CAST", {})          # every rounding by the general path
    exact = run_op_text(text, lhs, rhs, acc)
    word = np.uint16 if name == "f16" else np.uint32
    different = np.flatnonzero(fast.view(word) != exact.view(word))
    assert different.size == 0, (lhs[different[:3]], rhs[different[:3]], acc[different[:3]])
