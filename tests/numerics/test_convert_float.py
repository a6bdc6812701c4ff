"""Float-to-float conversion (ftof): every rounding mode, exact to the bit.

The expected codes come from fp_reference, a neighbour-search model of the formats
that shares no code with tileir.numerics.  Inputs are chosen so that every rounding
decision of a target format is exercised: each target value, each midpoint between
neighbours, and the source values just either side of those points.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fp_reference as ref
from tileir import numerics
from tileir.enums import RoundingMode
from tileir.types import element_type

MODES = {name: RoundingMode.from_keyword(name) for name in ref.MODES}
TABLE_TARGETS = ["f16", "bf16", "tf32", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN",
                 "f8E5M3FNU"]
SMALL = ["f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN", "f8E5M3FNU"]
SAMPLED_BINADES = {"tf32": [0, 1, 2, 63, 126, 127, 128, 191, 253, 254]}
NUMPY_SOURCE = {"f64": np.float64, "f32": np.float32, "f16": np.float16,
                "bf16": ml_dtypes.bfloat16}


def words_of(values: np.ndarray, name: str) -> np.ndarray:
    t = element_type(name)
    return numerics.to_words(values, t).astype(np.uint64)


def neighbourhood_inputs(target: str, source: str) -> np.ndarray:
    """Source values at and around every rounding boundary of `target`."""
    dtype = NUMPY_SOURCE[source]
    values, codes = ref.table(target)
    v = np.array(values, dtype=np.float64)
    if target in SAMPLED_BINADES:
        # tf32 has 2**18 magnitudes: take whole binades where its rules differ (subnormals,
        # the first normals, overflow) and a few ordinary ones.
        exponent = np.array(codes) >> ref.SPECS[target].mantissa
        v = v[np.isin(exponent, SAMPLED_BINADES[target])]
    lo, hi = v[:-1], v[1:]
    mid = (lo + hi) / 2
    top = v[-1]
    beyond = np.array([top * 2, top * 1024, (top + 2.0 ** (ref.SPECS[target].bias + 1)) / 2,
                       2.0 ** (ref.SPECS[target].bias + 1), v[0] / 2, v[0] / 3])
    points = np.concatenate([v, mid, beyond]).astype(np.float64)
    with np.errstate(over="ignore"):
        s = points.astype(dtype)
        around = np.concatenate([s, np.nextafter(s, dtype(np.inf)), np.nextafter(s, dtype(0))])
    around = around[np.isfinite(around.astype(np.float64))]
    around = np.concatenate([around, -around,
                             np.array([np.inf, -np.inf, np.nan, 0.0, -0.0]).astype(dtype)])
    return np.unique(around.astype(np.float64).view(np.uint64)).view(np.float64).astype(dtype)


CASES = [(t, s) for t in TABLE_TARGETS for s in ("f32", "f64")] + \
        [(t, s) for t in SMALL for s in ("f16", "bf16")]


@pytest.mark.parametrize("target, source", CASES, ids=[f"{s}->{t}" for t, s in CASES])
@pytest.mark.parametrize("mode", list(MODES))
def test_rounding_boundaries(target, source, mode, tally):
    inputs = neighbourhood_inputs(target, source)
    # Guard against an empty or truncated input set passing vacuously: every target value
    # of the source's range contributes at least itself and its negation.
    assert len(inputs) >= 4 * 2 ** (ref.SPECS[target].mantissa + 1)
    s_type, t_type = element_type(source), element_type(target)
    got = words_of(numerics.convert_float(inputs, s_type, t_type, MODES[mode]), target)
    exact = inputs.astype(np.float64).tolist()
    want = [ref.convert(x, target, mode) for x in exact]
    bad = [(x, hex(g), hex(w)) for x, g, w in zip(exact, got.tolist(), want) if g != w]
    assert not bad, bad[:10]
    tally(f"ftof conversions ({source}->{target})", len(inputs))


@pytest.mark.parametrize("source", SMALL + ["f16", "bf16"])
def test_every_small_value_to_every_float_type(source, tally):
    """Every code of a small format, to every float type, in every mode."""
    spec = ref.SPECS[source]
    s_type = element_type(source)
    values = numerics.from_words(np.arange(1 << spec.bits, dtype=np.uint64), s_type)
    exact = numerics.to_float64(values, s_type).tolist()
    # 16-bit sources (65,536 values) go to the narrow formats in the ops' only mode; the
    # 8- and 4-bit ones to every table format in every mode.
    wide_source = spec.bits > 8
    targets = SMALL if wide_source else [t for t in TABLE_TARGETS if t != source]
    modes = ["nearest_even"] if wide_source else list(MODES)
    checked = 0
    for target in targets:
        for mode in modes:
            got = words_of(numerics.convert_float(values, s_type, element_type(target),
                                                  MODES[mode]), target).tolist()
            want = [ref.convert(x, target, mode) for x in exact]
            assert got == want, (source, target, mode)
            checked += len(got)
    for target in ("f32", "f64"):   # widening: the value is kept, NaN stays NaN
        for mode in MODES.values():
            out = numerics.convert_float(values, s_type, element_type(target), mode)
            back = out.astype(np.float64)
            same = (back == np.array(exact)) & (np.signbit(back) == np.signbit(exact))
            assert np.all(same | (np.isnan(back) & np.isnan(exact)))
            checked += len(back)
    tally(f"ftof conversions (every {source} value)", checked)


# ---------------------------------------------------------------------------------------
# f64 -> f32: too many values for a table; the hardware rounds to nearest and
# nextafter steps to the neighbour, an oracle independent of tileir's integer rounding.
# ---------------------------------------------------------------------------------------

def f32_reference(x: float, mode: str) -> np.float32:
    with np.errstate(over="ignore"):
        return _f32_reference(x, mode)


def _f32_reference(x: float, mode: str) -> np.float32:
    nearest = np.float32(x)
    if math.isnan(x) or math.isinf(x) or float(nearest) == x or mode == "nearest_even":
        return nearest
    if mode == "nearest_away":
        toward_x = np.float32(math.inf if x > float(nearest) else -math.inf)
        other = np.nextafter(nearest, toward_x)
        tie = abs(float(other) - x) == abs(float(nearest) - x)
        return other if tie and abs(float(other)) > abs(float(nearest)) else nearest
    if mode == "zero":
        wrong_side = abs(float(nearest)) > abs(x)
        return np.nextafter(nearest, np.float32(0)) if wrong_side else nearest
    if mode == "positive_inf" and float(nearest) < x:
        return np.nextafter(nearest, np.float32(math.inf))
    if mode == "negative_inf" and float(nearest) > x:
        return np.nextafter(nearest, np.float32(-math.inf))
    return nearest


@settings(max_examples=400, deadline=None)
@given(bits=st.integers(0, (1 << 64) - 1), mode=st.sampled_from(list(MODES)))
def test_f64_to_f32_random_bits(bits, mode):
    x = np.array([bits], dtype=np.uint64).view(np.float64)
    got = numerics.convert_float(x, element_type("f64"), element_type("f32"), MODES[mode])[0]
    want = f32_reference(float(x[0]), mode)
    if math.isnan(want):
        assert numerics.to_words(np.array([got]), element_type("f32"))[0] == 0x7FFFFFFF
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("mode", list(MODES))
def test_f64_to_f32_boundaries(mode, tally):
    # Every power of two across f32's range, its midpoints, and their f64 neighbours.
    exponents = np.arange(-152, 130)
    base = np.ldexp(1.0, exponents)
    ulp32 = np.ldexp(1.0, np.maximum(exponents, -126) - 23)
    points = np.concatenate([base, base + ulp32 / 2, base - ulp32 / 4, base + ulp32 * 1.5,
                             base * 1.75, np.array([3.4028235677973366e38, 3.4028235677973362e38,
                                                    3.402823669209385e38])])
    points = np.concatenate([points, np.nextafter(points, np.inf), np.nextafter(points, 0)])
    points = np.concatenate([points, -points])
    got = numerics.convert_float(points, element_type("f64"), element_type("f32"), MODES[mode])
    for x, g in zip(points.tolist(), got.tolist()):
        want = float(f32_reference(x, mode))
        assert g == want and math.copysign(1, g) == math.copysign(1, want), (x, mode)
    tally("ftof conversions (f64->f32)", len(points))


# ---------------------------------------------------------------------------------------
# Spec 5.1.3 special-value table, case by case
# ---------------------------------------------------------------------------------------

def convert_one(x: float, target: str, mode: str = "nearest_even", source: str = "f64"):
    out = numerics.convert_float(np.array([x], dtype=NUMPY_SOURCE[source]), element_type(source),
                                 element_type(target), MODES[mode])
    return int(words_of(out, target)[0])


@pytest.mark.parametrize("target, inf, minus_inf, nan, overflow", [
    # IEEE-like: overflow may give Inf, Inf stays Inf, NaN stays NaN (canonical NaN)
    ("f16", 0x7C00, 0xFC00, 0x7FFF, 0x7C00),
    ("bf16", 0x7F80, 0xFF80, 0x7FFF, 0x7F80),
    ("tf32", 0x7F800000, 0xFF800000, 0x7FFFE000, 0x7F800000),
    # e5m2: satfinite, +-Inf -> +-MAX_NORM, NaN -> NaN
    ("f8E5M2", 0x7B, 0xFB, 0x7F, 0x7B),
    # e4m3: satfinite, NaN -> +MAX_NORM
    ("f8E4M3FN", 0x7E, 0xFE, 0x7E, 0x7E),
])
def test_special_value_table(target, inf, minus_inf, nan, overflow):
    assert convert_one(math.inf, target) == inf
    assert convert_one(-math.inf, target) == minus_inf
    assert convert_one(math.nan, target) == nan
    assert convert_one(-math.nan, target) == nan
    assert convert_one(1e300, target) == overflow
    assert convert_one(-1e300, target) == overflow | (minus_inf & ~inf)


def test_ieee_overflow_depends_on_the_rounding_mode():
    big = 70000.0  # above f16's largest finite value, 65504
    assert convert_one(big, "f16", "nearest_even") == 0x7C00
    assert convert_one(65519.0, "f16", "nearest_even") == 0x7BFF   # below the midpoint
    assert convert_one(65520.0, "f16", "nearest_even") == 0x7C00   # the midpoint: to Inf
    assert convert_one(big, "f16", "zero") == 0x7BFF
    assert convert_one(big, "f16", "negative_inf") == 0x7BFF
    assert convert_one(-big, "f16", "positive_inf") == 0xFBFF
    assert convert_one(-big, "f16", "negative_inf") == 0xFC00


def test_sub_byte_and_unsigned_formats_saturate():
    assert convert_one(7.0, "f4E2M1FN") == 0x7            # 6.0
    assert convert_one(-100.0, "f4E2M1FN") == 0xF         # -6.0
    assert convert_one(math.nan, "f4E2M1FN") == 0x7       # no NaN: +MAX
    assert convert_one(math.inf, "f8E8M0FNU") == 0xFE     # 2**127
    assert convert_one(math.nan, "f8E8M0FNU") == 0xFF
    assert convert_one(0.0, "f8E8M0FNU", "zero") == 0x00  # no zero: the smallest, 2**-127
    assert convert_one(-3.0, "f8E5M3FNU") == 0x00         # no negatives: 0
    assert convert_one(1e9, "f8E5M3FNU") == 0xFE          # 114688
    assert convert_one(math.nan, "f8E5M3FNU") == 0xFF


def test_e8m0_directed_rounding():
    # ftof to f8E8M0FNU allows zero and positive_inf (Ops.td): 3.0 lies between 2 and 4.
    assert convert_one(3.0, "f8E8M0FNU", "zero") == 128
    assert convert_one(3.0, "f8E8M0FNU", "positive_inf") == 129
    assert convert_one(2.0 ** -130, "f8E8M0FNU", "positive_inf") == 0


def test_spec_packing_example_values():
    # 0.5 and 1.5 are f4E2M1FN codes 0b0001 and 0b0011 (spec 5.2.2)
    assert convert_one(0.5, "f4E2M1FN") == 0b0001
    assert convert_one(1.5, "f4E2M1FN") == 0b0011


# ---------------------------------------------------------------------------------------
# Flush-to-zero is applied to the rounded result (spec 5.1.3 note)
# ---------------------------------------------------------------------------------------

def test_flush_to_zero_after_rounding():
    f64, f32 = element_type("f64"), element_type("f32")
    tiny = 2.0 ** -126  # smallest normal f32
    just_below = tiny * (1 - 2.0 ** -30)   # rounds up to the smallest normal: kept
    half = tiny / 2                        # a subnormal result: flushed, sign kept
    out = numerics.convert_float(np.array([just_below, half, -half, tiny]), f64, f32,
                                 RoundingMode.NEAREST_EVEN, flush_to_zero=True)
    assert out.tolist() == [tiny, 0.0, -0.0, tiny]
    assert np.signbit(out).tolist() == [False, False, True, False]
    down = numerics.convert_float(np.array([just_below]), f64, f32, RoundingMode.ZERO,
                                  flush_to_zero=True)
    assert down.tolist() == [0.0]          # rounds down to a subnormal first


def test_flush_subnormal_inputs():
    f32 = element_type("f32")
    x = np.array([1e-40, -1e-40, 1e-30, -0.0], dtype=np.float32)
    out = numerics.flush_subnormals(x, f32)
    assert out.tolist() == [0.0, -0.0, np.float32(1e-30), -0.0]
    assert np.signbit(out).tolist() == [False, True, False, True]


def test_tf32_rounding_of_f32():
    x = np.array([1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -12], dtype=np.float32)
    assert numerics.round_to_tf32(x).tolist() == [1.0, 1.0 + 2.0 ** -9, 1.0]
    assert numerics.round_to_tf32(x, RoundingMode.NEAREST_AWAY).tolist() == [
        1.0 + 2.0 ** -10, 1.0 + 2.0 ** -9, 1.0]
    assert numerics.round_to_tf32(x, RoundingMode.POSITIVE_INF).tolist() == [
        1.0 + 2.0 ** -10, 1.0 + 2.0 ** -9, 1.0 + 2.0 ** -10]


FTZ_CASES = [("f16", "f32"), ("bf16", "f64"), ("f8E5M2", "f32"), ("f8E4M3FN", "f16")]


@pytest.mark.parametrize("target, source", FTZ_CASES, ids=[f"{s}->{t}" for t, s in FTZ_CASES])
@pytest.mark.parametrize("mode", list(MODES))
def test_rounding_boundaries_with_flush_to_zero(target, source, mode, tally):
    inputs = neighbourhood_inputs(target, source)
    got = words_of(numerics.convert_float(inputs, element_type(source), element_type(target),
                                          MODES[mode], flush_to_zero=True), target)
    want = [ref.convert(x, target, mode, flush_to_zero=True)
            for x in inputs.astype(np.float64).tolist()]
    assert got.tolist() == want
    tally(f"ftof conversions with FTZ ({source}->{target})", len(inputs))


@pytest.mark.parametrize("shape", [(), (2, 3), (0,), (2, 1, 4)])
def test_shapes_are_preserved(shape):
    x = np.full(shape, 1.7, dtype=np.float32)
    f32 = element_type("f32")
    for target in ("f16", "f4E2M1FN", "tf32", "f8E5M3FNU"):
        out = numerics.convert_float(x, f32, element_type(target))
        assert out.shape == shape and out.dtype == numerics.numpy_dtype(element_type(target))


# ---- the cast fast path of convert_float ----------------------------------------------------


def _cast_inputs(t, rng):
    """Every f16/bf16 word; for f32 and f64 random words plus values one bit pattern away
    from the midpoints of every narrower format (where a double rounding would show)."""
    from tileir.numerics import numpy_dtype
    from tileir.types import BF16, F16, F32
    if t in (F16, BF16):
        return np.arange(1 << 16, dtype=np.uint16).view(numpy_dtype(t))
    if t == F32:
        high = np.arange(1 << 16, dtype=np.uint32)
        words = np.concatenate([
            rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32),
            high << 16 | 0x8000, high << 16 | 0x8001, high << 16 | 0x7FFF,   # bf16 midpoints
            high << 13 | 0x1000, high << 13 | 0x1001, high << 13 | 0x0FFF])  # f16 midpoints
        return words.view(np.float32)
    top = rng.integers(0, 1 << 35, 100_000, dtype=np.uint64) << np.uint64(29)
    parts = [rng.integers(0, 1 << 63, 100_000, dtype=np.uint64)]
    for bit in (28, 41):                                   # f32 and f16 midpoints
        half = np.uint64(1) << np.uint64(bit)
        parts += [top | half, (top | half) + np.uint64(1), (top | half) - np.uint64(1)]
    return np.concatenate(parts).view(np.float64)


def test_the_cast_fast_path_gives_the_exact_paths_bits(monkeypatch) -> None:
    from tileir.numerics import convert
    from tileir.types import F64
    ran = []
    original = convert._cast
    monkeypatch.setattr(convert, "_cast", lambda v, t: ran.append(t) or original(v, t))
    rng = np.random.default_rng(7)
    from tileir.numerics.formats import encode
    for source, target in sorted(convert._CASTS, key=str):
        values = _cast_inputs(source, rng)
        exact = convert.from_words(encode(convert.to_float64(values, source),
                                          convert.float_format(target),
                                          RoundingMode.NEAREST_EVEN, False), target)
        fast = [convert.convert_float(values, source, target)]
        if source == F64:
            fast.append(convert.from_float64(values, target))
        width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[exact.dtype.itemsize]
        for result in fast:
            assert result.dtype == exact.dtype
            different = np.flatnonzero(result.view(width) != exact.view(width))
            assert different.size == 0, (source, target, values[different[:3]])
    assert len(ran) == len(convert._CASTS) + sum(s == F64 for s, _ in convert._CASTS)


def test_directed_rounding_does_not_take_the_cast() -> None:
    from tileir.types import F16, F32
    x = np.array([1 + 2.0 ** -11 + 2.0 ** -20], np.float32)     # just above an f16 midpoint
    assert numerics.convert_float(x, F32, F16).view(np.uint16)[0] == 0x3C01
    assert numerics.convert_float(x, F32, F16, RoundingMode.ZERO).view(np.uint16)[0] == 0x3C00


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_widening_by_cast_gives_the_decoded_bits(name: str) -> None:
    from tileir.numerics import convert
    from tileir.numerics.formats import decode
    t = element_type(name)
    words = np.arange(1 << 16, dtype=np.uint16)
    values = words.view(numerics.numpy_dtype(t))
    assert t in convert._WIDEN
    fast = convert.to_float64(values, t)
    exact = decode(words, convert.float_format(t))
    assert fast.view(np.uint64).tolist() == exact.view(np.uint64).tolist()


@pytest.mark.parametrize("name,word", [("f32", np.uint32), ("f64", np.uint64)])
def test_widening_f32_and_f64_by_cast_gives_the_decoded_bits(name: str, word) -> None:
    from tileir.numerics import convert
    from tileir.numerics.formats import decode
    t = element_type(name)
    bits = 8 * np.dtype(word).itemsize
    rng = np.random.default_rng(3)
    words = np.concatenate([rng.integers(0, 1 << (bits - 1), 50_000, dtype=np.uint64),
                            rng.integers(0, 1 << (bits - 1), 50_000, dtype=np.uint64)
                            | np.uint64(1 << (bits - 1))]).astype(word)
    exponent = np.array((1 << (bits - 1)) - 1 - ((1 << (bits - 12 if bits == 64 else 23)) - 1),
                        dtype=word)                 # every exponent bit set: inf and NaN
    words[:1000] |= exponent
    assert t in convert._NATIVE
    fast = convert.to_float64(words.view(numerics.numpy_dtype(t)), t)
    exact = decode(words, convert.float_format(t))
    assert fast.view(np.uint64).tolist() == exact.view(np.uint64).tolist()
