"""Sub-byte packing (spec 5.2.2) and the pack/unpack byte layout."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tileir import numerics
from tileir.types import element_type


def test_spec_example_f4_pair_packs_to_0x31():
    f4 = element_type("f4E2M1FN")
    values = numerics.from_float64(np.array([0.5, 1.5]), f4)
    packed = numerics.pack(values, f4)
    assert packed.view(np.uint8).tolist() == [0x31]
    assert numerics.to_float64(numerics.unpack(packed, f4), f4).tolist() == [0.5, 1.5]


def test_i4_nibbles_low_first():
    i4 = element_type("i4")
    values = numerics.from_integers([1, -1, -8, 7], i4)
    assert numerics.pack(values, i4).view(np.uint8).tolist() == [0xF1, 0x78]
    assert numerics.as_signed(numerics.unpack(np.array([0xF1, 0x78], dtype=np.uint8), i4),
                              i4).tolist() == [1, -1, -8, 7]


def test_i1_packs_as_bits():
    # The reference counts i1 as one bit in pack/unpack: 16 x i1 <-> 2 x i8.
    i1 = element_type("i1")
    bits = np.array([1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], dtype=bool)
    assert numerics.pack(bits, i1).view(np.uint8).tolist() == [0b1101, 0b1000_0000]
    assert numerics.unpack(np.array([0b1101, 0x80], dtype=np.uint8), i1).tolist() == bits.tolist()


def test_wide_types_are_little_endian():
    f16, i32 = element_type("f16"), element_type("i32")
    assert numerics.pack(np.array([1.0, -2.0], dtype=np.float16), f16).view(np.uint8).tolist() == [
        0x00, 0x3C, 0x00, 0xC0]
    assert numerics.pack(np.array([0x01020304], dtype=np.int32), i32).view(np.uint8).tolist() == [
        4, 3, 2, 1]
    assert numerics.unpack(np.array([4, 3, 2, 1], dtype=np.int8), i32).tolist() == [0x01020304]


def test_packing_needs_whole_bytes():
    with pytest.raises(ValueError):
        numerics.pack(np.zeros(3, dtype=bool), element_type("i1"))
    with pytest.raises(ValueError):
        numerics.unpack(np.zeros(3, dtype=np.int8), element_type("f16"))


@pytest.mark.parametrize("name", ["i1", "i4", "f4E2M1FN", "i8", "f8E4M3FN", "f8E5M3FNU", "i16",
                                  "bf16", "f16", "tf32", "f32", "i64", "f64"])
@given(data=st.binary(min_size=8, max_size=64).filter(lambda b: len(b) % 8 == 0))
def test_unpack_then_pack_is_the_identity_on_bytes(name, data):
    t = element_type(name)
    raw = np.frombuffer(data, dtype=np.uint8)
    if name == "tf32":
        raw = raw.copy().view(np.uint32) & np.uint32(0xFFFFE000)   # only tf32's 19 bits
        raw = raw.view(np.uint8)
    assert numerics.pack(numerics.unpack(raw, t), t).view(np.uint8).tolist() == raw.tolist()


def test_packed_bits():
    assert {n: numerics.packed_bits(element_type(n)) for n in
            ["i1", "i4", "f4E2M1FN", "i8", "tf32", "f64"]} == {
        "i1": 1, "i4": 4, "f4E2M1FN": 4, "i8": 8, "tf32": 32, "f64": 64}
