"""Reduction identities as MLIR writes them (issue 16 §2): ``true``/``false`` are i1
integers, so ``false``, ``true``, ``0 : i1``, ``1 : i1`` and ``-1 : i1`` are all identities
of an i1 reduce, printed ``true``/``false``; an array leaves out the type of its i64 and f64
elements, and a bare literal reads as i64 or f64; each reads back from text and bytecode."""

from __future__ import annotations

import numpy as np
import pytest

import tileir
from tileir.interp import launch

def reduce_kernel(t: str, values: str, identity: str, combine: str) -> str:
    """A kernel reducing the constant 4-element tile `values` of type `t` with `combine`
    and `identity`, storing the result through its argument."""
    return f"""cuda_tile.module @kernels {{
  entry @k(%out: tile<ptr<{t}>>) {{
    %c = constant <{t}: [{values}]> : tile<4x{t}>
    %r = reduce %c dim=0 identities=[{identity}] : tile<4x{t}> -> tile<{t}>
    (%x: tile<{t}>, %y: tile<{t}>) {{
      %o = {combine} %x, %y : tile<{t}>
      yield %o : tile<{t}>
    }}
    %t = store_ptr_tko weak %out, %r : tile<ptr<{t}>>, tile<{t}> -> token
    return
  }}
}}"""


def i1_kernel(identity: str, combine: str = "ori") -> str:
    """An i1 reduction of [false, false, true, false]."""
    return reduce_kernel("i1", "false, false, true, false", identity, combine)


@pytest.mark.parametrize("identity, printed", [
    ("false", "false"), ("0 : i1", "false"), ("true", "true"), ("1 : i1", "true"),
    ("-1 : i1", "true")])
def test_an_i1_identity_prints_as_mlir_does_and_round_trips(identity, printed):
    module = tileir.parse(i1_kernel(identity))
    module.verify()
    text = module.format()
    assert f"identities=[{printed}]" in text
    assert tileir.parse(text).format() == text
    assert tileir.from_bytecode(module.to_bytecode()).format() == text


@pytest.mark.parametrize("combine, identity, expected", [
    ("ori", "false", True), ("andi", "true", False), ("xori", "0 : i1", True)])
def test_an_i1_reduction_runs_with_its_identity(combine, identity, expected):
    out = np.zeros(1, np.bool_)
    launch(i1_kernel(identity, combine), None, 1, [out])
    assert out.tolist() == [expected]


def test_an_i1_literal_out_of_range_is_refused():
    with pytest.raises(tileir.ParseError, match="integer constant out of range for "
                                                "attribute"):
        tileir.parse(i1_kernel("2 : i1"))


@pytest.mark.parametrize("t, combine, identity, printed", [
    ("f64", "addf", "0.000000e+00", "0.000000e+00"),
    ("f64", "addf", "0.0 : f64", "0.000000e+00"),
    ("i64", "addi", "0", "0"),
    ("i64", "addi", "0 : i64", "0")])
def test_array_elements_leave_out_the_types_mlir_elides(t, combine, identity, printed):
    # MLIR prints an array's i64 and f64 elements without their type (tileirdisasm's
    # `identities=[0.000000e+00]`), and a bare literal reads as i64 or f64
    values = "1.0, 2.0, 3.0, 4.0" if t == "f64" else "1, 2, 3, 4"
    text = reduce_kernel(t, values, identity, combine)
    module = tileir.parse(text)
    module.verify()
    printed_text = module.format()
    assert f"identities=[{printed}]" in printed_text
    assert tileir.parse(printed_text).format() == printed_text
    assert tileir.from_bytecode(module.to_bytecode()).format() == printed_text
    out = np.zeros(1, np.float64 if t == "f64" else np.int64)
    launch(text, None, 1, [out])
    assert out.tolist() == [10]
