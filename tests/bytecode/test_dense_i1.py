"""i1 constants are written as MLIR and NVIDIA's tools keep them (issue 16 §2): a splat as
one byte (0x00 or 0xFF), anything else bit-packed, element i in bit i % 8 of byte i // 8.
tileirdisasm 13.5 refused the one byte per element tileir wrote ("i1 dense attribute
payload size 4 is not a recognized encoding for 4 elements")."""

from __future__ import annotations

import pytest

from tileir.attributes import DenseElementsAttr
from tileir.bytecode.attrs import decode_dense, encode_dense
from tileir.types import I1, TileType


@pytest.mark.parametrize("values, raw", [
    ((0, 0, 1, 0), b"\x04"),
    ((1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1), b"\x0d\x81"),
    ((1,) * 8, b"\xff"),
    ((0,) * 4, b"\x00"),
])
def test_i1_elements_are_bit_packed(values, raw) -> None:
    t = TileType((len(values),), I1)
    attr = DenseElementsAttr(t, values)
    assert encode_dense(attr) == bytes([len(raw)]) + raw
    assert decode_dense(raw, t, 0) == attr
