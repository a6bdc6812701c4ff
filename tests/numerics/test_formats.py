"""Every code of every small float format decodes to the value its definition gives."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from fp_reference import NAN, SPECS, same_value, value_of
from tileir import numerics
from tileir.types import element_type

SMALL = ["f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN", "f8E5M3FNU"]


@pytest.mark.parametrize("name", SMALL + ["tf32"])
def test_decode_every_code(name, tally):
    spec = SPECS[name]
    codes = np.arange(1 << spec.bits, dtype=np.uint64) << np.uint64(spec.shift)
    t = element_type(name)
    decoded = numerics.to_float64(numerics.from_words(codes, t), t)
    for code, got in zip(codes.tolist(), decoded.tolist()):
        want = value_of(code, spec)
        got_value = NAN if math.isnan(got) else got
        assert same_value(want, got_value), (name, hex(code), want, got)
    tally(f"codes decoded ({name})", len(codes))


# What each format's extremes are, from the spec and the formats' public definitions.
EXTREMES = {
    "f16": (65504.0, 2.0 ** -24),
    "bf16": (3.3895313892515355e38, 2.0 ** -133),
    "tf32": (3.4011621342146535e38, 2.0 ** -136),
    "f32": (3.4028234663852886e38, 2.0 ** -149),
    "f8E4M3FN": (448.0, 2.0 ** -9),
    "f8E5M2": (57344.0, 2.0 ** -16),
    "f8E8M0FNU": (2.0 ** 127, 2.0 ** -127),
    "f4E2M1FN": (6.0, 0.5),
    "f8E5M3FNU": (114688.0, 2.0 ** -17),
}


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_format_extremes(name):
    fmt = numerics.float_format(element_type(name))
    assert (fmt.max_finite, fmt.min_positive) == EXTREMES[name]


# ml_dtypes implements some of these formats: an independent oracle for decoding.
ML_DTYPES = {"bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
             "f8E5M2": ml_dtypes.float8_e5m2, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
             "f4E2M1FN": ml_dtypes.float4_e2m1fn, "f16": np.float16}


@pytest.mark.parametrize("name", sorted(ML_DTYPES))
def test_decode_agrees_with_ml_dtypes(name, tally):
    spec = SPECS[name]
    raw = np.arange(1 << spec.bits, dtype=np.uint16 if spec.bits > 8 else np.uint8)
    with np.errstate(invalid="ignore"):
        theirs = raw.view(ML_DTYPES[name]).astype(np.float64)
    ours = numerics.to_float64(numerics.from_words(raw, element_type(name)), element_type(name))
    assert np.array_equal(ours, theirs, equal_nan=True)
    assert np.array_equal(np.signbit(ours), np.signbit(theirs))
    tally(f"codes decoded, checked against ml_dtypes ({name})", len(raw))


def test_f8e5m3fnu_landmarks():
    # From the 13.4 definition: unsigned, 5 exponent bits (bias 15), 3 mantissa bits,
    # subnormals, 0xFF is the only NaN.
    t = element_type("f8E5M3FNU")
    values = numerics.to_float64(numerics.from_words(
        np.array([0x00, 0x01, 0x07, 0x08, 0x78, 0xFE, 0xFF]), t), t)
    assert values[:6].tolist() == [0.0, 2.0 ** -17, 7 * 2.0 ** -17, 2.0 ** -14, 1.0, 114688.0]
    assert math.isnan(values[6])


def test_tf32_ignores_the_low_mantissa_bits_of_its_container():
    t = element_type("tf32")
    word = np.array([0x3F800000 | 0x1FFF], dtype=np.uint32)  # 1.0 plus bits below tf32's mantissa
    assert numerics.to_float64(numerics.from_words(word, t), t).tolist() == [1.0]
