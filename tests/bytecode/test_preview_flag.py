"""The header's preview flag follows from what a file holds: a preview attribute on an
entry argument (no preview op anywhere; set through the API, as the text of an entry keeps
no argument attributes) still makes the written file say so, else no reader (tileir's or
NVIDIA's) would take it back."""

from __future__ import annotations

import pytest

from tileir import parse
from tileir.attributes import ArrayAttr, DictAttr
from tileir.bytecode import BytecodeError, from_bytecode, to_bytecode
from tileir.preview import PreviewAttr

TEXT = """cuda_tile.module @m {
  entry @k(%arg0: tile<i32>) {
    return
  }
}
"""
ONE = PreviewAttr("expr_int", (1,))


def _with_preview_attr():
    module = parse(TEXT)
    module.entries[0].attributes["arg_attrs"] = ArrayAttr((DictAttr.of({"test.x": ONE}),))
    return module


def test_a_preview_attribute_sets_the_header_flag() -> None:
    data = to_bytecode(_with_preview_attr(), "13.5")
    assert data[10:12] == b"\x01\x00"
    back = from_bytecode(data, preview=("simt",))
    assert back.entries[0].attributes["arg_attrs"] == ArrayAttr((DictAttr.of({"test.x": ONE}),))


def test_without_preview_content_the_flag_is_clear() -> None:
    assert to_bytecode(parse(TEXT), "13.5")[10:12] == b"\x00\x00"


def test_a_flagged_file_needs_a_preview_feature() -> None:
    with pytest.raises(BytecodeError, match="requires at least one enabled preview feature"):
        from_bytecode(to_bytecode(_with_preview_attr(), "13.5"))
