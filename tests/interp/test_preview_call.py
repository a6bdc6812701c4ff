"""A `preview$call` runs code outside Tile IR: the interpreter stops with one error naming
the op, its location and tile block, and the caller's buffers stay as they were."""

from __future__ import annotations

import numpy as np
import pytest

from tileir import ExecutionError, parse
from tileir.interp import launch

KERNEL = """cuda_tile.module @m {
  entry @k(%arg0: tile<i32>) {
    %0 = preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>
    return
  }
  preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = #cuda_tile<preview$access<out>>}) -> tile<i32> 
}
"""


def test_preview_call_is_refused_with_one_error() -> None:
    with pytest.raises(ExecutionError) as caught:
        launch(parse(KERNEL), "k", (1, 1, 1), [np.int32(3)])
    assert [str(d) for d in caught.value.diagnostics] == [
        "-:3:10: error: 'cuda_tile.preview$call' op calls the extern function @f, whose "
        "implementation is code outside Tile IR (--preview=simt): the interpreter cannot run "
        "it (tile block (0, 0, 0))"]
