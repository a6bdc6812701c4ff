"""The virtual address space, pointer and view loads and stores, tokens and the race check.

Expected values are worked out by hand from the spec's definitions (data layout 5.2,
partition/strided/gather views, the token race example of the memory model).
"""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest

from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from tileir.interp.memory import (ALIGNMENT, PLACEMENT, REGION_BITS, Memory, MemoryFault,
                                 region_of)
from tileir.interp.values import TensorView, TiledView, Token
from tileir.types import BF16, F4E2M1FN, F32, I1, I4, PartitionViewType, TensorViewType
from conftest import entry_module as kernel

# ---- memory.py -------------------------------------------------------------------


def test_map_gives_each_buffer_the_middle_of_a_region_of_its_own():
    memory = Memory()
    a, b = np.zeros(3, np.float32), np.zeros(5, np.int8)
    base_a, base_b = memory.map(a, "a"), memory.map(b, "b")
    assert base_a % ALIGNMENT == 0 and base_b % ALIGNMENT == 0
    assert (region_of(base_a), region_of(base_b)) == (1, 2)      # region 0 holds null
    assert base_a == (1 << REGION_BITS) + PLACEMENT
    assert base_b == (2 << REGION_BITS) + PLACEMENT
    assert memory.owner(base_a - PLACEMENT) is memory.buffers[0]
    assert memory.owner(base_b + PLACEMENT - 1) is memory.buffers[1]
    assert memory.owner(base_b + PLACEMENT) is None


def test_dense_numbers_pack_buffers_in_order_and_map_back():
    memory = Memory()
    base_a = memory.map(np.zeros(3, np.float32), "a")
    base_b = memory.map(np.zeros(300, np.int8), "b")
    base_c = memory.allocate(16, 16, "c")
    assert memory.dense(np.array([base_a, base_a + 11, base_b, base_b + 299, base_c])
                        ).tolist() == [0, 11, 256, 555, 768]
    assert [memory.address_of(n) for n in (0, 11, 256, 555, 768)] == \
        [base_a, base_a + 11, base_b, base_b + 299, base_c]
    assert [b.tolist() for b in memory.dense_bounds()] == [[0, 256, 768], [12, 556, 784]]
    memory.unmap(base_c)                       # an ended alloca keeps its numbers
    assert memory.dense(np.array([base_c + 4])).tolist() == [772]
    assert memory.dense_buffer(772) is None and memory.dense_buffer(300) == (256, 556)
    with pytest.raises(MemoryFault, match="in no allocation's region"):
        memory.dense(np.array([12]))


def test_load_and_store_go_to_the_callers_array():
    memory = Memory()
    a = np.array([1.5, -2.0, 3.25, 0.0], np.float32)
    base = memory.map(a)
    loaded = memory.load(np.array([base + 8, base]), F32)
    assert loaded.dtype == np.float32 and loaded.tolist() == [3.25, 1.5]
    memory.store(np.array([base + 12, base + 4]), np.array([7.0, 8.0], np.float32), F32,
                 mask=np.array([True, False]))
    assert a.tolist() == [1.5, -2.0, 3.25, 7.0]


def test_bool_and_bf16_layouts():
    memory = Memory()
    flags = np.array([True, False, True], np.bool_)
    halves = np.array([1.0, -0.5], ml_dtypes.bfloat16)
    fb, hb = memory.map(flags), memory.map(halves)
    assert memory.load(np.array([fb + 2, fb + 1]), I1).tolist() == [True, False]
    got = memory.load(np.array(hb + 2), BF16)
    assert got.shape == () and got.view(np.uint16) == 0xBF00  # -0.5 in bf16
    memory.store(np.array([fb + 1]), np.array([True]), I1)
    assert flags.tolist() == [True, True, True]


@pytest.mark.parametrize("offset, fragment", [
    (16, "outside every mapped buffer"),      # one element past the end
    (-4, "outside every mapped buffer"),      # one element before the start
    (14, "outside every mapped buffer"),      # straddles the end
    (2, "misaligned"),
])
def test_check_reports_bad_accesses(offset, fragment):
    memory = Memory()
    base = memory.map(np.zeros(4, np.float32), "a")
    memory.map(np.zeros(4, np.float32), "b")
    problem = memory.check(np.array([base, base + offset]), 4)
    assert problem is not None and fragment in problem
    assert memory.check(np.array([base, base + offset]), 4, np.array([True, False])) is None


# ---- kernels ------------------------------------------------------------------



PTR4 = """
    %c = iota : tile<4xi32>
    %p = reshape %base : tile<ptr<f32>> -> tile<1xptr<f32>>
    %q = broadcast %p : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %ptrs = offset %q, %c : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
"""


def test_ptr_load_store_masked_with_padding():
    body = PTR4 + """
    %m = constant <i1: [true, false, true, false]> : tile<4xi1>
    %pad = constant <f32: -1.0> : tile<4xf32>
    %v, %t = load_ptr_tko weak %ptrs, %m, %pad : tile<4xptr<f32>>, tile<4xi1>, tile<4xf32> -> tile<4xf32>, token
    %t2 = store_ptr_tko weak %ptrs, %v token = %t : tile<4xptr<f32>>, tile<4xf32> -> token
"""
    a = np.array([10, 20, 30, 40], np.float32)
    launch(kernel(body, "%base: tile<ptr<f32>>"), "k", 1, [a])
    assert a.tolist() == [10, -1, 30, -1]


def test_ptr_load_out_of_bounds_is_reported():
    body = PTR4 + """
    %v, %t = load_ptr_tko weak %ptrs : tile<4xptr<f32>> -> tile<4xf32>, token
"""
    with pytest.raises(ExecutionError) as info:
        launch(kernel(body, "%base: tile<ptr<f32>>"), "k", (1, 2),
               [np.zeros(3, np.float32)])
    text = str(info.value)
    assert "load_ptr_tko" in text and "outside every mapped buffer" in text
    assert "element [3]" in text and "tile block (0, 0, 0)" in text


def test_masked_off_lane_out_of_bounds_is_fine():
    body = PTR4 + """
    %m = constant <i1: [true, true, true, false]> : tile<4xi1>
    %v, %t = load_ptr_tko weak %ptrs, %m : tile<4xptr<f32>>, tile<4xi1> -> tile<4xf32>, token
"""
    launch(kernel(body, "%base: tile<ptr<f32>>"), "k", 1, [np.zeros(3, np.float32)])


def test_spec_token_race_example_is_reported():
    # Spec 5 (token type): a store and a load of the same location with no token
    # dependency race.
    body = PTR4 + """
    %val = constant <f32: 1.0> : tile<4xf32>
    %tok0 = store_ptr_tko weak %ptrs, %val : tile<4xptr<f32>>, tile<4xf32> -> token
    %data, %tok1 = load_ptr_tko weak %ptrs : tile<4xptr<f32>> -> tile<4xf32>, token
"""
    with pytest.raises(ExecutionError) as info:
        launch(kernel(body, "%base: tile<ptr<f32>>"), "k", 1,
               [np.zeros(4, np.float32)])
    assert "races with 'cuda_tile.store_ptr_tko'" in str(info.value)
    assert "load_ptr_tko" in str(info.value)


def test_token_chain_orders_store_then_load():
    body = PTR4 + """
    %val = constant <f32: 2.5> : tile<4xf32>
    %tok0 = store_ptr_tko weak %ptrs, %val : tile<4xptr<f32>>, tile<4xf32> -> token
    %data, %tok1 = load_ptr_tko weak %ptrs token = %tok0 : tile<4xptr<f32>> -> tile<4xf32>, token
    %two = addf %data, %data : tile<4xf32>
    %tok2 = store_ptr_tko weak %ptrs, %two token = %tok1 : tile<4xptr<f32>>, tile<4xf32> -> token
"""
    a = np.zeros(4, np.float32)
    launch(kernel(body, "%base: tile<ptr<f32>>"), "k", 1, [a])
    assert a.tolist() == [5.0] * 4


def test_join_tokens_orders_after_both_and_transitively():
    # store A, store B (independent buffers); join; then load both: no race.  A second
    # load of A ordered only after the make_token would race with store A.
    body = """
    %t0 = make_token : token
    %v = constant <i16: 7> : tile<i16>
    %ta = store_ptr_tko weak %a, %v token = %t0 : tile<ptr<i16>>, tile<i16> -> token
    %tb = store_ptr_tko weak %b, %v token = %t0 : tile<ptr<i16>>, tile<i16> -> token
    %j = join_tokens %ta, %tb : token
    %x, %tx = load_ptr_tko weak %b token = %j : tile<ptr<i16>> -> tile<i16>, token
    %y, %ty = load_ptr_tko weak %a token = %tx : tile<ptr<i16>> -> tile<i16>, token
"""
    params = "%a: tile<ptr<i16>>, %b: tile<ptr<i16>>"
    a, b = np.zeros(1, np.int16), np.zeros(1, np.int16)
    launch(kernel(body, params), "k", 1, [a, b])
    assert a.tolist() == [7] and b.tolist() == [7]
    racy = body + """
    %z, %tz = load_ptr_tko weak %a token = %tb : tile<ptr<i16>> -> tile<i16>, token
"""
    with pytest.raises(ExecutionError, match="races"):
        launch(kernel(racy, params), "k", 1, [a, b])
    # With checks off the same kernel runs (deterministically, in program order).
    launch(kernel(racy, params), "k", 1, [a, b], checks=False)


def test_two_reads_never_race():
    body = """
    %x, %tx = load_ptr_tko weak %a : tile<ptr<i32>> -> tile<i32>, token
    %y, %ty = load_ptr_tko weak %a : tile<ptr<i32>> -> tile<i32>, token
"""
    launch(kernel(body, "%a: tile<ptr<i32>>"), "k", 1, [np.zeros(1, np.int32)])


# ---- views -------------------------------------------------------------------


def run_view_load(view_type: str, tile_shape: tuple[int, ...], indices: list[int],
                  src: np.ndarray, shape: list[int], strides: list[int], tensor: str,
                  load_attrs: str = "", checks: bool = True) -> np.ndarray:
    """Load through a view and copy the tile out through a dense tensor view."""
    tile = "x".join(str(d) for d in tile_shape) + "xf32"
    rank = len(tile_shape)
    n = int(np.prod(tile_shape))
    dyn = ", ".join(f"%s{i}" for i in range(len(shape)))
    decls = "\n".join(f"    %s{i} = constant <i32: {d}> : tile<i32>"
                      for i, d in enumerate(shape))
    decls += "\n" + "\n".join(f"    %i{k} = constant <i32: {v}> : tile<i32>"
                              for k, v in enumerate(indices))
    dense = ",".join(str(int(np.prod(tile_shape[k + 1:]))) for k in range(rank))
    dense_tv = f"tensor_view<{'x'.join(map(str, tile_shape))}xf32, strides=[{dense}]>"
    dense_pv = f"partition_view<tile=({'x'.join(map(str, tile_shape))}), {dense_tv}>"
    zeros = ", ".join(["%z"] * rank)
    ind = ", ".join(f"%i{k}" for k in range(len(indices)))
    text = kernel(f"""
{decls}
    %tv = make_tensor_view %src, shape = [{dyn}], strides = [{", ".join(map(str, strides))}] : tile<i32> -> {tensor}
    %v = make_{view_type.split('<')[0]} %tv : {view_type}
    %t, %tok = load_view_tko weak %v[{ind}]{load_attrs} : {view_type}, tile<i32> -> tile<{tile}>, token
    %z = constant <i32: 0> : tile<i32>
    %dv = make_tensor_view %dst, shape = [{", ".join(map(str, tile_shape))}], strides = [{dense}] : {dense_tv}
    %dp = make_partition_view %dv : {dense_pv}
    %s = store_view_tko weak %t, %dp[{zeros}] : tile<{tile}>, {dense_pv}, tile<i32> -> token
""", "%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>")
    dst = np.full(n, 99.0, np.float32)
    launch(text, "k", 1, [src, dst], checks=checks)
    return dst.reshape(tile_shape)


SRC = np.arange(24, dtype=np.float32)  # a 4x6 row-major tensor: element (r, c) = 6r + c
TV46 = "tensor_view<?x?xf32, strides=[6,1]>"


def test_partition_view_loads_the_tile_at_an_index():
    got = run_view_load(f"partition_view<tile=(2x2), {TV46}>", (2, 2), [1, 2], SRC,
                        [4, 6], [6, 1], TV46)
    assert got.tolist() == [[16, 17], [22, 23]]


def test_partition_view_partial_tile_gets_padding():
    got = run_view_load(f"partition_view<tile=(4x4), padding_value = neg_inf, {TV46}>", (4, 4),
                        [0, 1], SRC, [4, 6], [6, 1], TV46)
    assert got[:, :2].tolist() == [[4, 5], [10, 11], [16, 17], [22, 23]]
    assert np.all(got[:, 2:] == -np.inf)


def test_partition_view_neg_zero_and_nan_padding_bits():
    got = run_view_load(f"partition_view<tile=(4x4), padding_value = neg_zero, {TV46}>",
                        (4, 4), [0, 1], SRC, [4, 6], [6, 1], TV46)
    assert got[0, 3].view(np.uint32) == 0x80000000
    got = run_view_load(f"partition_view<tile=(4x4), padding_value = nan, {TV46}>",
                        (4, 4), [0, 1], SRC, [4, 6], [6, 1], TV46)
    assert np.isnan(got[0, 3])


def test_partition_view_dim_map_transposes():
    # tile dim 0 runs along tensor dim 1, tile dim 1 along tensor dim 0:
    # tile (i, j) = tensor(2*1 + j, 2*1 + i) for index (1, 1) with 2x2 tiles.
    got = run_view_load(f"partition_view<tile=(2x2), {TV46}, dim_map=[1, 0]>", (2, 2), [1, 1],
                        SRC, [4, 6], [6, 1], TV46)
    assert got.tolist() == [[14, 20], [15, 21]]


def test_strided_view_tiles_overlap():
    tv = "tensor_view<?xf32, strides=[1]>"
    got = run_view_load(f"strided_view<tile=(4), traversal_strides=[3], {tv}>", (4,), [2],
                        SRC, [24], [1], tv)
    assert got.tolist() == [6, 7, 8, 9]


def test_gather_view_rows_and_out_of_bounds_rows():
    text = kernel("""
    %tv = make_tensor_view %src, shape = [4, 6], strides = [6, 1] : tensor_view<4x6xf32, strides=[6,1]>
    %v = make_gather_scatter_view %tv : gather_scatter_view<tile=(2x4), padding_value = zero, tensor_view<4x6xf32, strides=[6,1]>, sparse_dim=0>
    %rows = constant <i32: [3, 9]> : tile<2xi32>
    %c = constant <i32: 1> : tile<i32>
    %t, %tok = load_view_tko weak %v[%rows, %c] : gather_scatter_view<tile=(2x4), padding_value = zero, tensor_view<4x6xf32, strides=[6,1]>, sparse_dim=0>, tile<2xi32>, tile<i32> -> tile<2x4xf32>, token
    %dv = make_tensor_view %dst, shape = [2, 4], strides = [4, 1] : tensor_view<2x4xf32, strides=[4,1]>
    %dp = make_partition_view %dv : partition_view<tile=(2x4), tensor_view<2x4xf32, strides=[4,1]>>
    %z = constant <i32: 0> : tile<i32>
    %s = store_view_tko weak %t, %dp[%z, %z] : tile<2x4xf32>, partition_view<tile=(2x4), tensor_view<2x4xf32, strides=[4,1]>>, tile<i32> -> token
""", "%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>")
    dst = np.full(8, 99.0, np.float32)
    launch(text, "k", 1, [SRC, dst])
    assert dst.reshape(2, 4).tolist() == [[19, 20, 21, 22], [0, 0, 0, 0]]


def test_index_outside_the_index_space_is_reported():
    with pytest.raises(ExecutionError, match=r"index 3 in dimension 1 is outside the index "
                                             r"space \[2, 3\]"):
        run_view_load(f"partition_view<tile=(2x2), {TV46}>", (2, 2), [0, 3], SRC, [4, 6],
                      [6, 1], TV46)


def test_negative_index_reads_as_unsigned_and_is_outside():
    with pytest.raises(ExecutionError, match="outside the index space"):
        run_view_load(f"partition_view<tile=(2x2), {TV46}>", (2, 2), [-1, 0], SRC, [4, 6],
                      [6, 1], TV46)


def test_inbounds_promise_broken_is_reported():
    view = f"partition_view<tile=(4x4), {TV46}>"
    with pytest.raises(ExecutionError, match="marks dimension 1 inbounds"):
        run_view_load(view, (4, 4), [0, 1], SRC, [4, 6], [6, 1], TV46,
                      load_attrs=" inbounds = [false, true]")
    got = run_view_load(view, (4, 4), [0, 0], SRC, [4, 6], [6, 1], TV46,
                        load_attrs=" inbounds = [true, true]")
    assert got[3].tolist() == [18, 19, 20, 21]


def test_tensor_view_larger_than_its_buffer_faults():
    with pytest.raises(ExecutionError, match="outside every mapped buffer"):
        run_view_load(f"partition_view<tile=(2x2), {TV46}>", (2, 2), [1, 2], SRC[:20].copy(),
                      [4, 6], [6, 1], TV46)


def test_store_view_skips_out_of_bounds_elements():
    text = kernel("""
    %tv = make_tensor_view %dst, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>
    %v = iota : tile<4xi32>
    %one = constant <i32: 1> : tile<i32>
    %s = store_view_tko weak %v, %pv[%one] : tile<4xi32>, partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
""", "%dst: tile<ptr<i32>>, %n: tile<i32>")
    # The mapped buffer is 8 elements but the tensor has 6: elements 6, 7 stay untouched.
    dst = np.full(8, -5, np.int32)
    launch(text, "k", 1, [dst, 6])
    assert dst.tolist() == [-5, -5, -5, -5, 0, 1, -5, -5]


def test_shape_queries(run_op):
    pv = "partition_view<tile=(4x4), tensor_view<?x?xf32, strides=[?,1]>, dim_map=[1, 0]>"
    text = f"""cuda_tile.module @m {{
      cuda_tile.testing$func @f(%v: {pv}) {{
        %a, %b = get_index_space_shape %v : {pv} -> tile<i64>
      }}
    }}"""
    tensor = TensorView(0x10000, (5, 12), (12, 1), F32)
    a, b = run_op(text, TiledView(tensor, PartitionViewType(
        (4, 4), TensorViewType(F32, (None, None), (None, 1)), (1, 0))))
    # tile dim 0 runs along tensor dim 1: ceildiv(12, 4) = 3; tile dim 1: ceildiv(5, 4) = 2
    assert (a.dtype, int(a), int(b)) == (np.int64, 3, 2) and a.shape == ()
    tv = "tensor_view<?x?xf32, strides=[?,1]>"
    text = f"""cuda_tile.module @m {{
      cuda_tile.testing$func @f(%v: {tv}) {{
        %a, %b = get_tensor_shape %v : {tv} -> tile<i32>
      }}
    }}"""
    a, b = run_op(text, tensor)
    assert (a.dtype, int(a), int(b)) == (np.int32, 5, 12)


def test_make_tensor_view_checks_its_dynamic_operands(run_op):
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%p: tile<ptr<f32>>, %n: tile<i32>, %s: tile<i32>) {
        %v = make_tensor_view %p, shape = [%n, 8], strides = [%s, 1] : tile<i32> -> tensor_view<?x8xf32, strides=[?,1]>
      }
    }"""
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    view = run_op(text, np.array(0x10000, np.int64), i32(3), i32(8))
    assert view == TensorView(0x10000, (3, 8), (8, 1), F32)
    # Sizes and strides are unsigned: i32 -1 is 2**32 - 1, not an error.
    view = run_op(text, np.array(0x10000, np.int64), i32(-1), i32(-8))
    assert view == TensorView(0x10000, (2**32 - 1, 8), (2**32 - 8, 1), F32)
    with pytest.raises(ExecutionError, match="zero extent"):
        run_op(text, np.array(0x10000, np.int64), i32(0), i32(8))
    with pytest.raises(ExecutionError, match="zero stride"):
        run_op(text, np.array(0x10000, np.int64), i32(3), i32(0))
    with pytest.raises(ExecutionError, match="misaligned"):
        run_op(text, np.array(0x10002, np.int64), i32(3), i32(8))


def test_make_tensor_view_reads_narrow_dynamic_operands_as_unsigned(run_op):
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%p: tile<ptr<f32>>, %n: tile<i8>, %s: tile<i8>) {
        %v = make_tensor_view %p, shape = [%n, 8], strides = [%s, 1] : tile<i8> -> tensor_view<?x8xf32, strides=[?,1]>
      }
    }"""
    # i8 bit pattern 0xC8 is 200 unsigned (-56 signed); 0x80 is 128.
    view = run_op(text, np.array(0x10000, np.int64), np.array(-56, np.int8),
                  np.array(-128, np.int8))
    assert view == TensorView(0x10000, (200, 8), (128, 1), F32)


# ---- atomics -----------------------------------------------------------------------


SAME4 = """
    %z4 = constant <i32: [0, 0, 1, 0]> : tile<4xi32>
    %p1 = reshape %base : tile<ptr<{t}>> -> tile<1xptr<{t}>>
    %p4 = broadcast %p1 : tile<1xptr<{t}>> -> tile<4xptr<{t}>>
    %ptrs = offset %p4, %z4 : tile<4xptr<{t}>>, tile<4xi32> -> tile<4xptr<{t}>>
"""


def copy_out(value: str, t: str) -> str:
    """Store a 4-element tile to %out."""
    return f"""
    %o1 = reshape %out : tile<ptr<{t}>> -> tile<1xptr<{t}>>
    %o4 = broadcast %o1 : tile<1xptr<{t}>> -> tile<4xptr<{t}>>
    %i4 = iota : tile<4xi32>
    %op = offset %o4, %i4 : tile<4xptr<{t}>>, tile<4xi32> -> tile<4xptr<{t}>>
    %os = store_ptr_tko weak %op, {value} : tile<4xptr<{t}>>, tile<4xf32> -> token
""".replace("tile<4xf32>", f"tile<4x{t}>")


def test_atomic_add_with_repeated_addresses_applies_every_lane():
    body = SAME4.format(t="i32") + """
    %v = constant <i32: [1, 2, 30, 4]> : tile<4xi32>
    %old, %tok = atomic_rmw_tko relaxed device %ptrs, add, %v : tile<4xptr<i32>>, tile<4xi32> -> tile<4xi32>, token
""" + copy_out("%old", "i32")
    mem, out = np.array([100, 7], np.int32), np.zeros(4, np.int32)
    launch(kernel(body, "%base: tile<ptr<i32>>, %out: tile<ptr<i32>>"),
           "k", 1, [mem, out])
    assert mem.tolist() == [107, 37]
    assert out.tolist() == [100, 101, 7, 103]   # lanes applied in row-major order


@pytest.mark.parametrize("mode, expected", [
    # memory [5, 7]; lanes 0, 1, 3 ([-1, 3, 5]) hit element 0, lane 2 (30) element 1
    ("umax", [-1, 30]),       # -1 is 0xFFFFFFFF, the largest unsigned value
    ("max", [5, 30]),
    ("min", [-1, 7]),
    ("umin", [3, 7]),
    ("xchg", [5, 30]),        # the last lane in row-major order wins
    ("and", [5 & -1 & 3 & 5, 7 & 30]),
    ("or", [-1, 7 | 30]),
    ("xor", [5 ^ -1 ^ 3 ^ 5, 7 ^ 30]),
])
def test_atomic_rmw_modes(mode, expected):
    body = SAME4.format(t="i32") + f"""
    %v = constant <i32: [-1, 3, 30, 5]> : tile<4xi32>
    %old, %tok = atomic_rmw_tko relaxed device %ptrs, {mode}, %v : tile<4xptr<i32>>, tile<4xi32> -> tile<4xi32>, token
"""
    mem = np.array([5, 7], np.int32)
    launch(kernel(body, "%base: tile<ptr<i32>>"), "k", 1, [mem])
    assert mem.tolist() == expected


def test_atomic_addf_rounds_to_nearest_even_in_f16():
    body = SAME4.format(t="f16").replace("[0, 0, 1, 0]", "[0, 1, 1, 1]") + """
    %v = constant <f16: [4.8828125E-4, 1.0, 1.0, 1.0]> : tile<4xf16>
    %old, %tok = atomic_rmw_tko relaxed device %ptrs, addf, %v : tile<4xptr<f16>>, tile<4xf16> -> tile<4xf16>, token
"""
    # 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in f16: nearest even gives 1 (0x3C00);
    # 2048 + 1 + 1 + 1: 2049 ties to 2048, three times (f16 spacing at 2048 is 2).
    mem = np.array([1.0, 2048.0], np.float16)
    launch(kernel(body, "%base: tile<ptr<f16>>"), "k", 1, [mem])
    assert mem.view(np.uint16).tolist() == [0x3C00, 0x6800]


def test_atomic_cas_compares_bit_patterns():
    body = SAME4.format(t="f32").replace("[0, 0, 1, 0]", "[0, 1, 1, 0]") + """
    %c = constant <f32: [0.0, -0.0, 2.0, 9.0]> : tile<4xf32>
    %v = constant <f32: [1.0, 5.0, 6.0, 7.0]> : tile<4xf32>
    %old, %tok = atomic_cas_tko relaxed device %ptrs, %c, %v : tile<4xptr<f32>>, tile<4xf32> -> tile<4xf32>, token
""" + copy_out("%old", "f32")
    source = kernel(body, "%base: tile<ptr<f32>>, %out: tile<ptr<f32>>")
    # Lanes hit elements [0, 1, 1, 0], applied per element in lane order (0 then 3; 1 then 2).
    # memory [-0.0, +0.0]: lane 0 expects +0.0 at -0.0 (bits differ: no swap); lane 3
    # expects 9.0; lane 1 expects -0.0 at +0.0 (no); lane 2 expects 2.0.  Nothing swaps.
    mem, out = np.array([-0.0, 0.0], np.float32), np.zeros(4, np.float32)
    launch(source, "k", 1, [mem, out])
    assert mem.view(np.uint32).tolist() == [0x80000000, 0]
    assert out.view(np.uint32).tolist() == [0x80000000, 0, 0, 0x80000000]
    # memory [+0.0, -0.0]: lane 0 swaps +0.0 -> 1.0, then lane 3 sees 1.0 (no); lane 1
    # swaps -0.0 -> 5.0, then lane 2 sees 5.0 (no).  Old values: +0.0, -0.0, 5.0, 1.0.
    mem, out = np.array([0.0, -0.0], np.float32), np.zeros(4, np.float32)
    launch(source, "k", 1, [mem, out])
    assert mem.tolist() == [1.0, 5.0]
    assert out.view(np.uint32).tolist() == [0, 0x80000000, 0x40A00000, 0x3F800000]


def test_atomic_cas_masked_lane_returns_cmp():
    body = SAME4.format(t="f32").replace("[0, 0, 1, 0]", "[0, 1, 1, 0]") + """
    %c = constant <f32: [0.0, -0.0, 2.0, 9.0]> : tile<4xf32>
    %v = constant <f32: [1.0, 5.0, 6.0, 7.0]> : tile<4xf32>
    %m = constant <i1: [1, 0, 1, 0]> : tile<4xi1>
    %old, %tok = atomic_cas_tko relaxed device %ptrs, %c, %v, %m : tile<4xptr<f32>>, tile<4xf32>, tile<4xi1> -> tile<4xf32>, token
""" + copy_out("%old", "f32")
    # memory [+0.0, -0.0]: lane 0 swaps +0.0 -> 1.0 (old +0.0); lane 1 is masked (returns
    # cmp[1] = -0.0, memory untouched); lane 2 expects 2.0 at -0.0 (no swap, old -0.0);
    # lane 3 is masked (returns cmp[3] = 9.0 = 0x41100000, although it would have matched
    # nothing either way).  Spec (atomic_cas_tko): "The returned value for a masked
    # element at position i is cmp[i]".
    mem, out = np.array([0.0, -0.0], np.float32), np.zeros(4, np.float32)
    launch(kernel(body, "%base: tile<ptr<f32>>, %out: tile<ptr<f32>>"), "k", 1, [mem, out])
    assert mem.view(np.uint32).tolist() == [0x3F800000, 0x80000000]
    assert out.view(np.uint32).tolist() == [0, 0x80000000, 0x80000000, 0x41100000]


def test_atomics_from_many_blocks_do_not_race_and_count():
    body = """
    %one = constant <i32: 1> : tile<i32>
    %old, %tok = atomic_rmw_tko relaxed device %base, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
"""
    mem = np.zeros(1, np.int32)
    launch(kernel(body, "%base: tile<ptr<i32>>"), "k", (2, 3), [mem],
           schedule="random", seed=2)
    assert mem.tolist() == [6]


def test_weak_store_unordered_with_an_atomic_races():
    body = """
    %one = constant <i32: 1> : tile<i32>
    %old, %tok = atomic_rmw_tko relaxed device %base, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %s = store_ptr_tko weak %base, %one : tile<ptr<i32>>, tile<i32> -> token
"""
    with pytest.raises(ExecutionError, match="races with 'cuda_tile.atomic_rmw_tko'"):
        launch(kernel(body, "%base: tile<ptr<i32>>"), "k", 1,
               [np.zeros(1, np.int32)])


def test_scatter_store_and_atomic_reduction_through_views():
    gsv = "gather_scatter_view<tile=(2x2), tensor_view<4x3xi32, strides=[3,1]>, sparse_dim=0>"
    pv = "partition_view<tile=(2x2), tensor_view<4x3xi32, strides=[3,1]>>"
    body = f"""
    %tv = make_tensor_view %dst, shape = [4, 3], strides = [3, 1] : tensor_view<4x3xi32, strides=[3,1]>
    %g = make_gather_scatter_view %tv : {gsv}
    %rows = constant <i32: [2, 7]> : tile<2xi32>
    %one = constant <i32: 1> : tile<i32>
    %v = constant <i32: [[1, 2], [3, 4]]> : tile<2x2xi32>
    %s = store_view_tko weak %v, %g[%rows, %one] : tile<2x2xi32>, {gsv}, tile<2xi32>, tile<i32> -> token
    %p = make_partition_view %tv : {pv}
    %t = atomic_red_view_tko relaxed device %p[%one, %one], add, %v token = %s : tile<2x2xi32>, {pv}, tile<i32> -> token
"""
    dst = np.zeros(12, np.int32)
    launch(kernel(body, "%dst: tile<ptr<i32>>"), "k", 1, [dst])
    # scatter: row 2 gets [1, 2] at columns 1, 2; row 7 is out of bounds (skipped).
    # atomic add of tile (1, 1) = rows 2-3, columns 2-3 (column 3 out of bounds).
    assert dst.reshape(4, 3).tolist() == [[0, 0, 0], [0, 0, 0], [0, 1, 2 + 1], [0, 0, 3]]


def test_token_passing_ops(run_op):
    token = Token(frozenset({3}))
    for op in ("memory_fence_alias_tko %t", "gdc_wait_tko token = %t ->  token",
               "gdc_launch_dependents_tko token = %t -> token"):
        text = f"""cuda_tile.module @m {{
          cuda_tile.testing$func @f(%t: token) {{
            %r = {op}
          }}
        }}"""
        assert run_op(text, token) == token


def test_four_bit_elements_pack_two_to_a_byte_through_views():
    # src holds f4E2M1FN [0.5, 1, 1.5, 2, 3, 4]; the tile at index 1 of a 4-wide partition
    # is [3, 4, pad, pad]; its first half is stored at index 1 of dst (elements 2, 3),
    # keeping the other nibbles of dst's bytes.
    body = """
    %ts = make_tensor_view %src, shape = [6], strides = [1] : tensor_view<6xf4E2M1FN, strides=[1]>
    %ps = make_partition_view %ts : partition_view<tile=(4), tensor_view<6xf4E2M1FN, strides=[1]>>
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %v, %t = load_view_tko weak %ps[%one] : partition_view<tile=(4), tensor_view<6xf4E2M1FN, strides=[1]>>, tile<i32> -> tile<4xf4E2M1FN>, token
    %td = make_tensor_view %dst, shape = [6], strides = [1] : tensor_view<6xf4E2M1FN, strides=[1]>
    %pd = make_partition_view %td : partition_view<tile=(2), tensor_view<6xf4E2M1FN, strides=[1]>>
    %half = extract %v[%zero] : tile<4xf4E2M1FN> -> tile<2xf4E2M1FN>
    %s = store_view_tko weak %half, %pd[%one] : tile<2xf4E2M1FN>, partition_view<tile=(2), tensor_view<6xf4E2M1FN, strides=[1]>>, tile<i32> -> token
"""
    src = np.array([0.5, 1, 1.5, 2, 3, 4], ml_dtypes.float4_e2m1fn)
    dst = np.array([-0.5, -1, -1.5, -2, -3, -4], ml_dtypes.float4_e2m1fn)
    launch(kernel(body, "%src: tile<ptr<f4E2M1FN>>, %dst: tile<ptr<f4E2M1FN>>"), "k", 1,
           [src, dst])
    assert dst.astype(np.float32).tolist() == [-0.5, -1, 3, 4, -3, -4]
    assert src.astype(np.float32).tolist() == [0.5, 1, 1.5, 2, 3, 4]


def test_memory_nibbles_low_first():
    memory = Memory()
    data = np.array([0x31, 0xF2], np.uint8)
    base = memory.map(data)
    got = memory.load(np.array([base, base, base + 1, base + 1]), F4E2M1FN,
                      nibbles=np.array([0, 1, 0, 1]))
    assert got.astype(np.float32).tolist() == [0.5, 1.5, 1.0, -6.0]
    assert memory.load(np.array([base + 1, base + 1]), I4,
                       nibbles=np.array([0, 1])).astype(np.int8).tolist() == [2, -1]
    memory.store(np.array([base, base]), np.array([-1, 7], ml_dtypes.int4), I4,
                 nibbles=np.array([1, 0]))
    assert data.tolist() == [0xF7, 0xF2]


@pytest.mark.parametrize("inbounds, column_3_outside", [("[false, false]", False),
                                                        ("[false, true]", True)])
def test_an_atomic_reduction_keeps_its_inbounds_promise(inbounds, column_3_outside):
    # tile (1, 1) covers rows 2-3, columns 2-3 of a 4x3 tensor: column 3 lies outside, so
    # marking dimension 1 inbounds (13.5) is undefined behaviour, not a skipped element
    pv = "partition_view<tile=(2x2), tensor_view<4x3xi32, strides=[3,1]>>"
    body = f"""
    %tv = make_tensor_view %dst, shape = [4, 3], strides = [3, 1] : tensor_view<4x3xi32, strides=[3,1]>
    %p = make_partition_view %tv : {pv}
    %one = constant <i32: 1> : tile<i32>
    %v = constant <i32: [[1, 2], [3, 4]]> : tile<2x2xi32>
    %t = atomic_red_view_tko relaxed device %p[%one, %one], add, %v inbounds = {inbounds} : tile<2x2xi32>, {pv}, tile<i32> -> token
"""
    dst = np.zeros(12, np.int32)
    if column_3_outside:
        with pytest.raises(ExecutionError, match="marks dimension 1 inbounds but the tile "
                                                 "leaves the tensor along it"):
            launch(kernel(body, "%dst: tile<ptr<i32>>"), "k", 1, [dst])
        assert not dst.any()
    else:
        launch(kernel(body, "%dst: tile<ptr<i32>>"), "k", 1, [dst])
        assert dst.reshape(4, 3).tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 3]]
