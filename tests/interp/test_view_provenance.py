"""A view reaches only the allocation its base pointer points into, and its address
arithmetic never wraps (issue 15 §2): both were wild writes that ran silently, landing in
the next argument's buffer."""

from __future__ import annotations

import numpy as np
import pytest

from tileir import ExecutionError
from tileir.interp import launch
from tileir.interp.memory import ALIGNMENT, GAP

TILE = 64


def _kernel(shape: int, stride: int, index: int) -> str:
    """Stores 1.0 into the tile at `index` of a view of `a` (shape and stride given)."""
    tensor = f"tensor_view<{shape}xf32, strides=[{stride}]>"
    view = f"partition_view<tile=({TILE}), {tensor}>"
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>) {{
    %va = make_tensor_view %a, shape = [{shape}], strides = [{stride}] : {tensor}
    %pa = make_partition_view %va : {view}
    %i = constant <i32: {index}> : tile<i32>
    %one = constant <f32: 1.0> : tile<{TILE}xf32>
    %t = store_view_tko weak %one, %pa[%i] : tile<{TILE}xf32>, {view}, tile<i32> -> token
    return
  }}
}}"""


ENGINES = ["blocks", "batched"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_view_claiming_more_than_its_allocation_cannot_reach_the_next_buffer(engine):
    # a holds 64 floats; b is mapped past a's red zone, so tile `into_b` of a view of a
    # claiming 2**40 elements starts exactly at b[0]
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    distance = -(-(TILE * 4 + GAP) // ALIGNMENT) * ALIGNMENT
    into_b = distance // (TILE * 4)
    with pytest.raises(ExecutionError) as caught:
        launch(_kernel(2**40, 1, into_b), None, 1, [a, b],
               engine="blocks" if engine == "blocks" else "auto")
    message = caught.value.diagnostics[0].message
    assert "in buffer 'argument 1 of 'k'' through a view of buffer 'argument 0 of 'k''" in \
        message and message.endswith("a view reaches only the allocation its base pointer "
                                     "points into (tile block (0, 0, 0))")
    assert not a.any() and not b.any()
    # tile 0 of the same view is a's own: it runs
    launch(_kernel(2**40, 1, 0), None, 1, [a, b], engine=engine)
    assert (a == 1).all() and not b.any()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stride_whose_address_arithmetic_wraps_is_reported(engine):
    # element 1 of a view with stride 2**62 + 0x80 is 2**64 + 512 bytes past a: wrapped,
    # 512 bytes past a
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    with pytest.raises(ExecutionError, match=r"the view's address arithmetic overflows 64 "
                                             r"bits \(tile block \(0, 0, 0\)\)"):
        launch(_kernel(2 * TILE, 2**62 + 0x80, 0), None, 1, [a, b],
               engine="blocks" if engine == "blocks" else "auto")
    assert not a.any() and not b.any()


OFFSET = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>) {
    %n = constant <i32: 128> : tile<i32>
    %p = offset %a, %n : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
    %one = constant <f32: 1.0> : tile<f32>
    %t = store_ptr_tko weak %p, %one : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_pointer_moved_past_its_buffer_lands_in_the_red_zone(engine):
    # (it landed on b[0]: buffers were 256 bytes apart)
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    with pytest.raises(ExecutionError, match=r"accesses address 0x[0-9a-f]+ \(element \[\]\), "
                                             r"outside every mapped buffer \(buffer 'argument 0 "
                                             r"of 'k'' spans \[0x[0-9a-f]+, 0x[0-9a-f]+\), the "
                                             r"address is 512 bytes past its base\)"):
        launch(OFFSET, None, 1, [a, b], engine="blocks" if engine == "blocks" else "auto")
    assert not a.any() and not b.any()
