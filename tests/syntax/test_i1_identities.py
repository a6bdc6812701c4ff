"""An i1 reduction's identity (issue 16 §2): MLIR's ``true``/``false`` are i1 integers, so
``false``, ``true``, ``0 : i1``, ``1 : i1`` and ``-1 : i1`` are all identities of an i1
reduce, printed ``true``/``false`` and read back from text and bytecode; anything else is
out of i1's range."""

from __future__ import annotations

import numpy as np
import pytest

import tileir
from tileir.interp import launch

KERNEL = """cuda_tile.module @kernels {
  entry @k(%out: tile<ptr<i1>>) {
    %c = constant <i1: [false, false, true, false]> : tile<4xi1>
    %r = reduce %c dim=0 identities=[IDENTITY] : tile<4xi1> -> tile<i1>
    (%x: tile<i1>, %y: tile<i1>) {
      %o = COMBINE %x, %y : tile<i1>
      yield %o : tile<i1>
    }
    %t = store_ptr_tko weak %out, %r : tile<ptr<i1>>, tile<i1> -> token
    return
  }
}"""


@pytest.mark.parametrize("identity, printed", [
    ("false", "false"), ("0 : i1", "false"), ("true", "true"), ("1 : i1", "true"),
    ("-1 : i1", "true")])
def test_an_i1_identity_prints_as_mlir_does_and_round_trips(identity, printed):
    module = tileir.parse(KERNEL.replace("IDENTITY", identity).replace("COMBINE", "ori"))
    module.verify()
    text = module.format()
    assert f"identities=[{printed}]" in text
    assert tileir.parse(text).format() == text
    assert tileir.from_bytecode(module.to_bytecode()).format() == text


@pytest.mark.parametrize("combine, identity, expected", [
    ("ori", "false", True), ("andi", "true", False), ("xori", "0 : i1", True)])
def test_an_i1_reduction_runs_with_its_identity(combine, identity, expected):
    out = np.zeros(1, np.bool_)
    launch(KERNEL.replace("IDENTITY", identity).replace("COMBINE", combine), None, 1, [out])
    assert out.tolist() == [expected]


def test_an_i1_literal_out_of_range_is_refused():
    with pytest.raises(tileir.ParseError, match="integer constant out of range for "
                                                "attribute"):
        tileir.parse(KERNEL.replace("IDENTITY", "2 : i1").replace("COMBINE", "ori"))
