"""Every access stays in the allocation its pointer came from (issue 15 §2): a view reaches
only the allocation its base pointer points into, its address arithmetic never wraps, and
a pointer keeps its allocation through ``offset`` (each allocation owns a 2**42-byte region
of the address space; an integer turned into a pointer carries the allocation whose
region holds it).  Each was a wild write that ran silently, landing in the next
argument's buffer."""

from __future__ import annotations

import numpy as np
import pytest

from tileir import ExecutionError
from tileir.interp import launch
from tileir.interp.memory import PLACEMENT, REGION_BITS

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


ENGINES = ["blocks", "batched", "compiled"]


def _engine(engine: str) -> str:
    """The launch engine for a run that fails: "auto" tries the batched engine first;
    "compiled" runs compiled code where the kernel's ops are (else it falls back too)."""
    return engine if engine in ("blocks", "compiled") else "auto"


#: The distance in bytes from one argument's buffer to the next one's (one region).
REGION = 1 << REGION_BITS


@pytest.mark.parametrize("engine", ENGINES)
def test_a_view_claiming_more_than_its_allocation_cannot_reach_the_next_buffer(engine):
    # a holds 64 floats; a view of a whose stride puts element 64 (tile 1's first) one
    # region further, exactly at b[0]
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    stride = REGION // (TILE * 4)
    with pytest.raises(ExecutionError) as caught:
        launch(_kernel(2 * TILE, stride, 1), None, 1, [a, b], engine=_engine(engine))
    message = caught.value.diagnostics[0].message
    assert "in buffer 'argument 1 of 'k'' through a view of buffer 'argument 0 of 'k''" in \
        message and message.endswith("a view reaches only the allocation its base pointer "
                                     "points into (tile block (0, 0, 0))")
    assert not a.any() and not b.any()
    # a view of a claiming 2**40 elements: its tile 0 is a's own and runs
    launch(_kernel(2**40, 1, 0), None, 1, [a, b], engine=engine)
    assert (a == 1).all() and not b.any()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stride_whose_address_arithmetic_wraps_is_reported(engine):
    # element 1 of a view with stride 2**62 + 0x80 is 2**64 + 512 bytes past a: wrapped,
    # 512 bytes past a
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    with pytest.raises(ExecutionError, match=r"the view's address arithmetic overflows 64 "
                                             r"bits \(tile block \(0, 0, 0\)\)"):
        launch(_kernel(2 * TILE, 2**62 + 0x80, 0), None, 1, [a, b], engine=_engine(engine))
    assert not a.any() and not b.any()


def _offset_kernel(count: int, width: int = 64) -> str:
    """Stores 1.0 through ``offset %a, count`` (an i`width` count of f32 elements)."""
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>) {{
    %n = constant <i{width}: {count}> : tile<i{width}>
    %p = offset %a, %n : tile<ptr<f32>>, tile<i{width}> -> tile<ptr<f32>>
    %one = constant <f32: 1.0> : tile<f32>
    %t = store_ptr_tko weak %p, %one : tile<ptr<f32>>, tile<f32> -> token
    return
  }}
}}"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_pointer_moved_past_its_buffer_stays_in_its_own_region(engine):
    # (it landed on b[0]: buffers were 256 bytes apart)
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    for count, past in ((128, 512), (2**38, 2**40)):       # 512 bytes, then 1 TiB
        with pytest.raises(ExecutionError, match=(
                r"accesses address 0x[0-9a-f]+ \(element \[\]\), outside every mapped "
                r"buffer \(buffer 'argument 0 of 'k'' spans \[0x[0-9a-f]+, 0x[0-9a-f]+\), "
                rf"the address is {past} bytes past its base\)")):
            launch(_offset_kernel(count), None, 1, [a, b], engine=_engine(engine))
    assert not a.any() and not b.any()


@pytest.mark.parametrize("engine", ENGINES)
def test_offset_never_moves_a_pointer_into_another_allocation(engine):
    # a's pointer moved by exactly one region would address b[0]
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    with pytest.raises(ExecutionError) as caught:
        launch(_offset_kernel(REGION // 4), None, 1, [a, b], engine=_engine(engine))
    message = caught.value.diagnostics[0].message
    assert message.startswith("'cuda_tile.offset' op moves pointer 0x")
    assert message.endswith(
        f"(in the region of buffer 'argument 0 of 'k'') by {REGION} bytes into the region "
        "of buffer 'argument 1 of 'k'': tileir gives each allocation a region of 2**42 "
        "bytes and follows no pointer from one allocation's region into another's (tile "
        "block (0, 0, 0))")
    assert not a.any() and not b.any()
    # the null pointer's region holds no allocation: moving from it into one is refused
    count = (REGION + PLACEMENT) // 4           # (null plus this is a's base)
    null = f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>) {{
    %zero = constant <i64: 0> : tile<i64>
    %z = int_to_ptr %zero : tile<i64> -> tile<ptr<f32>>
    %n = constant <i64: {count}> : tile<i64>
    %p = offset %z, %n : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
    %one = constant <f32: 1.0> : tile<f32>
    %t = store_ptr_tko weak %p, %one : tile<ptr<f32>>, tile<f32> -> token
    return
  }}
}}"""
    with pytest.raises(ExecutionError, match=r"moves pointer 0x0 \(in the region of no "
                                             rf"allocation\) by {4 * count} bytes into the "
                                             "region of buffer 'argument 0 of 'k''"):
        launch(null, None, 1, [a], engine=_engine(engine))
    assert not a.any()


INT_TO_PTR = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>) {
    %i = ptr_to_int %a : tile<ptr<f32>> -> tile<i64>
    %d = constant <i64: DISTANCE> : tile<i64>
    %j = addi %i, %d : tile<i64>
    %p = int_to_ptr %j : tile<i64> -> tile<ptr<f32>>
    %one = constant <f32: 1.0> : tile<f32>
    %t = store_ptr_tko weak %p, %one : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_integer_turned_into_a_pointer_carries_the_allocation_of_its_region(engine):
    # the documented rule: the integer names the allocation whose region holds it, so
    # a's address plus one region is a pointer to b[0]; plus 256 bytes, past a's end
    a, b = np.zeros(TILE, np.float32), np.zeros(TILE, np.float32)
    launch(INT_TO_PTR.replace("DISTANCE", str(REGION + 4)), None, 1, [a, b], engine=engine)
    assert not a.any() and b.tolist() == [0.0, 1.0] + [0.0] * (TILE - 2)
    with pytest.raises(ExecutionError, match=r"outside every mapped buffer \(buffer "
                                             r"'argument 0 of 'k'' spans .*the address is 256 "
                                             r"bytes past its base\)"):
        launch(INT_TO_PTR.replace("DISTANCE", "256"), None, 1, [a, b], engine=_engine(engine))
