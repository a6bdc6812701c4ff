"""Review fixes 3: aliased buffer arguments share addresses, alloca buffers end with
their block, and assert lists every false element."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import numpy as np
import pytest

from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from tileir.interp.memory import Memory


def entry(body: str, params: str) -> str:
    """A module with one entry `k(params)` running `body`."""
    return f"""cuda_tile.module @m {{
  entry @k({params}) {{
{body}
    return
  }}
}}"""


# ---- aliased arguments ----------------------------------------------------------------

# Store 7s through %a, then load through %b with no token chain between the two.
ALIAS = entry("""
    %v = constant <i32: [7, 7, 7, 7]> : tile<4xi32>
    %pa1 = reshape %a : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pa0 = broadcast %pa1 : tile<1xptr<i32>> -> tile<4xptr<i32>>
    %i = iota : tile<4xi32>
    %pa = offset %pa0, %i : tile<4xptr<i32>>, tile<4xi32> -> tile<4xptr<i32>>
    %t0 = store_ptr_tko weak %pa, %v : tile<4xptr<i32>>, tile<4xi32> -> token
    %pb1 = reshape %b : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pb0 = broadcast %pb1 : tile<1xptr<i32>> -> tile<4xptr<i32>>
    %pb = offset %pb0, %i : tile<4xptr<i32>>, tile<4xi32> -> tile<4xptr<i32>>
    %w, %t1 = load_ptr_tko weak %pb : tile<4xptr<i32>> -> tile<4xi32>, token
    %pc1 = reshape %c : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pc0 = broadcast %pc1 : tile<1xptr<i32>> -> tile<4xptr<i32>>
    %pc = offset %pc0, %i : tile<4xptr<i32>>, tile<4xi32> -> tile<4xptr<i32>>
    %t2 = store_ptr_tko weak %pc, %w : tile<4xptr<i32>>, tile<4xi32> -> token""",
              "%a: tile<ptr<i32>>, %b: tile<ptr<i32>>, %c: tile<ptr<i32>>")

# The same, with the load ordered after the store by the store's token.
ORDERED = ALIAS.replace("load_ptr_tko weak %pb :", "load_ptr_tko weak %pb token = %t0 :")


def test_the_same_array_for_two_parameters_is_a_race():
    a, c = np.zeros(4, np.int32), np.zeros(4, np.int32)
    with pytest.raises(ExecutionError, match="races with 'cuda_tile.store_ptr_tko'"):
        launch(ALIAS, "k", 1, [a, a, c])


def test_overlapping_views_race_on_their_shared_bytes():
    # b = base[2:6] overlaps a = base[0:4] in base[2:4]: the load of b[0] reads what
    # the store to a[2] wrote.
    base = np.zeros(8, np.int32)
    with pytest.raises(ExecutionError, match="races with"):
        launch(ALIAS, "k", 1, [base[0:4], base[2:6], np.zeros(4, np.int32)])


def test_disjoint_views_and_arrays_do_not_race():
    base = np.arange(8, dtype=np.int32)
    c = np.zeros(4, np.int32)
    launch(ALIAS, "k", 1, [base[0:4], base[4:8], c])
    assert base.tolist() == [7, 7, 7, 7, 4, 5, 6, 7] and c.tolist() == [4, 5, 6, 7]
    a, b = np.zeros(4, np.int32), np.arange(4, dtype=np.int32)
    launch(ALIAS, "k", 1, [a, b, c])
    assert a.tolist() == [7] * 4 and c.tolist() == [0, 1, 2, 3]


def test_aliased_results_land_in_the_callers_arrays():
    # Ordered by a token: no race; the load through b sees the store through a.
    a, c = np.zeros(4, np.int32), np.zeros(4, np.int32)
    launch(ORDERED, "k", 1, [a, a, c])
    assert a.tolist() == [7] * 4 and c.tolist() == [7] * 4
    base = np.zeros(8, np.int32)
    launch(ORDERED, "k", 1, [base[0:4], base[2:6], c])
    assert base.tolist() == [7, 7, 7, 7, 0, 0, 0, 0] and c.tolist() == [7, 7, 0, 0]


def test_c_aliasing_a_is_a_race_with_the_load():
    # The final store through c (ordered after the first store only) writes the bytes
    # the load read through b (= a).
    a = np.zeros(4, np.int32)
    with pytest.raises(ExecutionError, match="races with 'cuda_tile.load_ptr_tko'"):
        launch(ORDERED.replace("store_ptr_tko weak %pc, %w :",
                               "store_ptr_tko weak %pc, %w token = %t0 :"), "k", 1, [a, a, a])


CROSS = entry("""
    %bid, %y, %z = get_tile_block_id : tile<i32>
    %v = constant <i32: 1> : tile<i32>
    %pa = offset %a, %bid : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t0 = store_ptr_tko weak %pa, %v : tile<ptr<i32>>, tile<i32> -> token
    %one = constant <i32: 1> : tile<i32>
    %k = subi %one, %bid : tile<i32>
    %pb = offset %b, %k : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %w, %t1 = load_ptr_tko weak %pb : tile<ptr<i32>> -> tile<i32>, token""",
              "%a: tile<ptr<i32>>, %b: tile<ptr<i32>>")


def test_aliased_parameters_race_across_tile_blocks():
    # Block i stores a[i] and loads b[1 - i]: the other block's store when b is a.
    a = np.zeros(2, np.int32)
    with pytest.raises(ExecutionError, match="races with tile block"):
        launch(CROSS, "k", 2, [a, a])
    launch(CROSS, "k", 2, [a, np.zeros(2, np.int32)])
    assert a.tolist() == [1, 1]


def test_views_of_different_arrays_sharing_bytes_are_refused():
    raw = bytearray(32)
    a = np.frombuffer(raw, np.int32)[0:4]
    b = np.frombuffer(raw, np.int32)[2:6]
    with pytest.raises(ExecutionError, match="share memory but are not views of one"):
        launch(ALIAS, "k", 1, [a, b, np.zeros(4, np.int32)])


def test_memory_maps_a_view_inside_its_mapped_base():
    memory = Memory()
    base = np.zeros(8, np.int32)
    first = memory.map(base)
    assert memory.map(base) == first
    assert memory.map(base[3:5]) == first + 12
    assert len(memory.buffers) == 1


def test_memory_refuses_a_partial_overlap():
    memory = Memory()
    base = np.zeros(8, np.int32)
    memory.map(base[:4])
    with pytest.raises(ValueError, match="partially overlaps"):
        memory.map(base[2:6])


# ---- alloca lifetime ----------------------------------------------------------------------

ESCAPE = entry("""
    %t = constant <i1: true> : tile<i1>
    %p = if %t -> (tile<ptr<i32>>) {
      %a = alloca num_elem = 4, alignment = 16 : tile<ptr<i32>>
      %v = constant <i32: 5> : tile<i32>
      %s = store_ptr_tko weak %a, %v : tile<ptr<i32>>, tile<i32> -> token
      %w, %u = load_ptr_tko weak %a token = %s : tile<ptr<i32>> -> tile<i32>, token
      %o = store_ptr_tko weak %out, %w : tile<ptr<i32>>, tile<i32> -> token
      yield %a : tile<ptr<i32>>
    } else {
      yield %out : tile<ptr<i32>>
    }
    %x, %y = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token""",
               "%out: tile<ptr<i32>>")


def test_alloca_is_unmapped_when_its_block_ends():
    out = np.zeros(1, np.int32)
    with pytest.raises(ExecutionError, match=r"outside every mapped buffer \(it was in buffer 'alloca at <launch>:6:12', unmapped"):
        launch(ESCAPE, "k", 1, [out])
    assert out.tolist() == [0]   # a failed launch leaves the caller's buffers as they were
    with pytest.raises(ExecutionError, match=r"outside every mapped buffer"):
        launch(ESCAPE, "k", 1, [out], on_error="keep")
    assert out.tolist() == [5]   # inside the block the alloca was usable
    # Without the use after the block, the kernel runs.
    launch(ESCAPE.split("    %x, %y")[0] + "    return\n  }\n}", "k", 1, [out])


LOOP = entry("""
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 50> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    for %i in (%lo to %hi, step %st) : tile<i32> {
      %a = alloca num_elem = 256, alignment = 16 : tile<ptr<i32>>
      %s = store_ptr_tko weak %a, %i : tile<ptr<i32>>, tile<i32> -> token
      continue
    }""", "%out: tile<ptr<i32>>")


def test_alloca_in_a_loop_does_not_leak(monkeypatch):
    # Every iteration's buffer is unmapped when the iteration's block ends, so at most
    # one alloca (besides %out) is mapped at any time and none is left at the end.
    peak = []
    original = Memory.allocate

    def allocate(self, *args, **kwargs):
        base = original(self, *args, **kwargs)
        peak.append(len(self.buffers))
        return base
    monkeypatch.setattr(Memory, "allocate", allocate)
    seen = []
    original_unmap = Memory.unmap

    def unmap(self, base):
        original_unmap(self, base)
        seen.append(len(self.buffers))
    monkeypatch.setattr(Memory, "unmap", unmap)
    launch(LOOP, "k", 1, [np.zeros(1, np.int32)])
    assert len(peak) == 50 and max(peak) == 2
    assert len(seen) == 50 and seen[-1] == 1


def test_alloca_addresses_are_never_reused():
    # A stale pointer to an ended alloca never lands in a later one.
    memory = Memory()
    first = memory.allocate(16, 16)
    memory.unmap(first)
    second = memory.allocate(16, 16)
    assert second > first and memory.buffer_at(first) is None


# ---- assert ---------------------------------------------------------------------------------


def run_assert(values: str, shape: str) -> None:
    """Launch a kernel asserting the i1 constant `values` of type tile<`shape`xi1>."""
    launch(entry(f"""
    %c = constant <i1: {values}> : tile<{shape}xi1>
    assert %c, "must hold" : tile<{shape}xi1>""", "%out: tile<ptr<i32>>"), "k", 1,
           [np.zeros(1, np.int32)])


def test_assert_lists_every_false_element_in_row_major_order():
    with pytest.raises(ExecutionError) as info:
        run_assert("[[true, false, true, true], [false, true, false, true]]", "2x4")
    assert ("assertion failed: must hold (first false element [0, 1]; 3 false elements: "
            "[0, 1], [1, 0], [1, 2])") in str(info.value)


def test_assert_with_one_false_element_and_all_true():
    with pytest.raises(ExecutionError, match=r"must hold \(first false element \[2\]\)"):
        run_assert("[true, true, false, true]", "4")
    run_assert("[true, true, true, true]", "4")


def test_assert_caps_the_list():
    with pytest.raises(ExecutionError) as info:
        run_assert("false", "64")
    text = str(info.value)
    listed = ", ".join(f"[{i}]" for i in range(16))
    assert f"64 false elements: {listed} and 48 more)" in text


def test_assert_on_a_rank_0_tile():
    body = """
    %c = constant <i1: false> : tile<i1>
    assert %c, "scalar" : tile<i1>"""
    with pytest.raises(ExecutionError, match=r"assertion failed: scalar \(tile block"):
        launch(entry(body, "%out: tile<ptr<i32>>"), "k", 1, [np.zeros(1, np.int32)])


def test_alloca_of_4_bit_elements_gives_a_nibble_pointer():
    # ptr<f4E2M1FN> values are nibble addresses (2 * byte + nibble): a byte address
    # would point at half the alloca's address, outside every buffer.
    import ml_dtypes
    f4 = "f4E2M1FN"
    ptrs = f"tile<2xptr<{f4}>>"
    body = f"""
    %a = alloca num_elem = 2, alignment = 1 : tile<ptr<{f4}>>
    %i = iota : tile<2xi32>
    %a1 = reshape %a : tile<ptr<{f4}>> -> tile<1xptr<{f4}>>
    %a2 = broadcast %a1 : tile<1xptr<{f4}>> -> {ptrs}
    %pa = offset %a2, %i : {ptrs}, tile<2xi32> -> {ptrs}
    %o1 = reshape %out : tile<ptr<{f4}>> -> tile<1xptr<{f4}>>
    %o2 = broadcast %o1 : tile<1xptr<{f4}>> -> {ptrs}
    %po = offset %o2, %i : {ptrs}, tile<2xi32> -> {ptrs}
    %v = constant <{f4}: [1.0, 3.0]> : tile<2x{f4}>
    %s = store_ptr_tko weak %pa, %v : {ptrs}, tile<2x{f4}> -> token
    %w, %t = load_ptr_tko weak %pa token = %s : {ptrs} -> tile<2x{f4}>, token
    %o = store_ptr_tko weak %po, %w : {ptrs}, tile<2x{f4}> -> token"""
    out = np.zeros(2, ml_dtypes.float4_e2m1fn)
    launch(entry(body, f"%out: tile<ptr<{f4}>>"), "k", 1, [out])
    assert out.astype(np.float32).tolist() == [1.0, 3.0]
