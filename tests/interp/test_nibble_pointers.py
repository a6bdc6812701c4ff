"""Pointers to 4-bit elements address nibbles (spec 5.2.1, 5.2.2).

A ``ptr<f4E2M1FN>`` holds ``2 * byte address + nibble``; ``offset`` adds elements, so the
spec's pattern (base pointer plus iota offsets, accessed in contiguous pairs) reaches both
nibbles of every byte.  Expected values come from the spec's encoding of f4E2M1FN (E2M1:
0 0000, 0.5 0001, 1 0010, 1.5 0011, 2 0100, 3 0101, 4 0110, 6 0111, sign bit 8) and its
packing order (element 2k in bits 3..0, element 2k+1 in bits 7..4).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from conftest import entry_module as kernel

F4 = "f4E2M1FN"
VALUES = [0, 0.5, 1, 1.5, 2, 3, 4, 6]  # codes 0..7: byte k holds codes 2k, 2k+1



def pointers(name: str, base: str, offsets: list[int], pointee: str = F4) -> str:
    """Ops making `%{name}`: a tile of pointers `base + offsets` (as the spec builds them)."""
    n = len(offsets)
    ptr = f"ptr<{pointee}>"
    return f"""
    %{name}_o = constant <i32: {offsets}> : tile<{n}xi32>
    %{name}_r = reshape {base} : tile<{ptr}> -> tile<1x{ptr}>
    %{name}_b = broadcast %{name}_r : tile<1x{ptr}> -> tile<{n}x{ptr}>
    %{name} = offset %{name}_b, %{name}_o : tile<{n}x{ptr}>, tile<{n}xi32> -> tile<{n}x{ptr}>
"""


def copy_kernel(src_offsets: list[int], dst_offsets: list[int], mask: str = "") -> str:
    """Load `src` at `src_offsets` and store the values to `dst` at `dst_offsets`."""
    n = len(src_offsets)
    t = f"tile<{n}xptr<{F4}>>"
    store_mask = ", %m" if mask else ""
    mask_type = f", tile<{n}xi1>" if mask else ""
    body = pointers("s", "%src", src_offsets) + pointers("d", "%dst", dst_offsets)
    if mask:
        body += f"    %m = constant <i1: {mask}> : tile<{n}xi1>\n"
    body += f"""    %v, %t = load_ptr_tko weak %s : {t} -> tile<{n}x{F4}>, token
    %u = store_ptr_tko weak %d, %v{store_mask} : {t}, tile<{n}x{F4}>{mask_type} -> token
"""
    return kernel(body, f"%src: tile<ptr<{F4}>>, %dst: tile<ptr<{F4}>>")


def f4(values: list[float]) -> np.ndarray:
    """An f4E2M1FN buffer (one element per item, as launch takes it)."""
    return np.array(values, ml_dtypes.float4_e2m1fn)


def floats(a: np.ndarray) -> list[float]:
    """The values of a 4-bit float buffer."""
    return a.astype(np.float32).tolist()


@pytest.mark.parametrize("checks", [True, False])
def test_iota_offset_copy_round_trips(checks):
    # The spec's supported pattern: base + iota offsets, consecutive lanes in pairs.
    src, dst = f4(VALUES), f4([-6] * 8)
    launch(copy_kernel(list(range(8)), list(range(8))), "k", 1, [src, dst], checks=checks)
    assert floats(dst) == VALUES
    assert floats(src) == VALUES


def test_iota_copy_across_tile_blocks():
    # Each block copies its own 4 elements: base + 4 * block + iota.
    body = """
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %start = muli %bx, %four : tile<i32>
    %s0 = offset %src, %start : tile<ptr<f4E2M1FN>>, tile<i32> -> tile<ptr<f4E2M1FN>>
    %d0 = offset %dst, %start : tile<ptr<f4E2M1FN>>, tile<i32> -> tile<ptr<f4E2M1FN>>
""" + pointers("s", "%s0", [0, 1, 2, 3]) + pointers("d", "%d0", [0, 1, 2, 3]) + """
    %v, %t = load_ptr_tko weak %s : tile<4xptr<f4E2M1FN>> -> tile<4xf4E2M1FN>, token
    %u = store_ptr_tko weak %d, %v : tile<4xptr<f4E2M1FN>>, tile<4xf4E2M1FN> -> token
"""
    src, dst = f4(VALUES), f4([0] * 8)
    launch(kernel(body, f"%src: tile<ptr<{F4}>>, %dst: tile<ptr<{F4}>>"), "k", 2, [src, dst])
    assert floats(dst) == VALUES


def test_pairs_pack_low_nibble_first_in_memory():
    # Load the 8 values in pairs, then read the same memory as bytes through ptr_to_ptr:
    # byte k = code(2k+1) << 4 | code(2k) = 0x10, 0x32, 0x54, 0x76.
    body = pointers("s", "%src", list(range(8))) + """
    %v, %t = load_ptr_tko weak %s : tile<8xptr<f4E2M1FN>> -> tile<8xf4E2M1FN>, token
    %b = ptr_to_ptr %src : tile<ptr<f4E2M1FN>> -> tile<ptr<i8>>
""" + pointers("q", "%b", [0, 1, 2, 3], "i8") + pointers("o", "%out", [0, 1, 2, 3], "i8") + """
    %w, %t2 = load_ptr_tko weak %q : tile<4xptr<i8>> -> tile<4xi8>, token
    %u = store_ptr_tko weak %o, %w : tile<4xptr<i8>>, tile<4xi8> -> token
"""
    out = np.zeros(4, np.int8)
    launch(kernel(body, f"%src: tile<ptr<{F4}>>, %out: tile<ptr<i8>>"), "k", 1,
           [f4(VALUES), out])
    assert out.tolist() == [0x10, 0x32, 0x54, 0x76]


def test_odd_offsets_address_the_high_nibble():
    # Lanes at offsets 1, 3, 5, 7 read the high nibbles 0.5, 1.5, 3, 6; they break the
    # pairs rule, so this runs with checks off (deterministic, nibble-exact).
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([1, 3, 5, 7], [0, 1, 2, 3]), "k", 1, [src, dst], checks=False)
    assert floats(dst) == [0.5, 1.5, 3, 6, -1, -1, -1, -1]
    # Storing to odd offsets rewrites only the high nibbles.
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([0, 1, 2, 3], [1, 3, 5, 7]), "k", 1, [src, dst], checks=False)
    assert floats(dst) == [-1, 0, -1, 0.5, -1, 1, -1, 1.5]


def test_pair_starting_at_an_odd_offset_copies_shifted():
    # Offsets 2..5 pair up as (2, 3) and (4, 5): bytes 1 and 2, both nibbles each.
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([2, 3, 4, 5], [4, 5, 6, 7]), "k", 1, [src, dst])
    assert floats(dst) == [-1, -1, -1, -1, 1, 1.5, 2, 3]


@pytest.mark.parametrize("offsets", [[1, 3, 5, 7], [1, 2, 3, 4], [1, 0, 3, 2], [0, 1, 4, 6],
                                     [0, 2, 4, 6]])
def test_unpaired_lanes_are_reported(offsets):
    # Planted violations of 5.2.1's contiguous pairs: lane 2k not at a low nibble, or lane
    # 2k+1 not the next nibble of the same byte.
    src, dst = f4(VALUES), f4([0] * 8)
    with pytest.raises(ExecutionError, match="contiguous pair") as info:
        launch(copy_kernel(offsets, [0, 1, 2, 3]), "k", 1, [src, dst])
    assert "load_ptr_tko" in str(info.value)
    with pytest.raises(ExecutionError, match="contiguous pair") as info:
        launch(copy_kernel([0, 1, 2, 3], offsets), "k", 1, [src, dst])
    assert "store_ptr_tko" in str(info.value)


def test_pairs_need_not_follow_each_other():
    # The rule is about pairs only: lanes (0, 1) and (2, 3) may both address byte 0.
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([0, 1, 0, 1], [0, 1, 2, 3]), "k", 1, [src, dst])
    assert floats(dst) == [0, 0.5, 0, 0.5, -1, -1, -1, -1]


def test_masked_lanes():
    # A pair with one lane masked off keeps its pointers' pairing (the rule is about the
    # pointer tile) and writes only the active nibble; a fully masked-off pair does not
    # access memory, so its pointers are not checked.
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([0, 1, 2, 3], [0, 1, 2, 3], "[true, false, true, true]"), "k", 1,
           [src, dst])
    assert floats(dst) == [0, -1, 1, 1.5, -1, -1, -1, -1]
    src, dst = f4(VALUES), f4([-1] * 8)
    launch(copy_kernel([0, 1, 2, 3], [0, 1, 5, 3], "[true, true, false, false]"), "k", 1,
           [src, dst])
    assert floats(dst) == [0, 0.5, -1, -1, -1, -1, -1, -1]


def test_get_global_of_four_bit_elements_is_a_nibble_pointer():
    text = f"""cuda_tile.module @m {{
  global @table <{F4}: [0.5, 1.5, 3.0, 6.0]> : tile<4x{F4}>
  entry @k(%dst: tile<ptr<{F4}>>) {{
    %g = get_global @table : tile<ptr<{F4}>>
{pointers("s", "%g", [2, 3, 0, 1])}{pointers("d", "%dst", [0, 1, 2, 3])}
    %v, %t = load_ptr_tko weak %s : tile<4xptr<{F4}>> -> tile<4x{F4}>, token
    %u = store_ptr_tko weak %d, %v : tile<4xptr<{F4}>>, tile<4x{F4}> -> token
    return
  }}
}}"""
    dst = f4([0] * 4)
    launch(text, "k", 1, [dst])
    assert floats(dst) == [3, 6, 0.5, 1.5]


def test_tensor_view_from_a_nibble_pointer():
    # A view at base + 2 elements starts at byte 1; one at base + 1 would start mid-byte.
    pv = f"partition_view<tile=(2), tensor_view<2x{F4}, strides=[1]>>"

    def body(start: int) -> str:
        return f"""
    %k = constant <i32: {start}> : tile<i32>
    %b = offset %src, %k : tile<ptr<{F4}>>, tile<i32> -> tile<ptr<{F4}>>
    %tv = make_tensor_view %b, shape = [2], strides = [1] : tensor_view<2x{F4}, strides=[1]>
    %pv = make_partition_view %tv : {pv}
    %z = constant <i32: 0> : tile<i32>
    %v, %t = load_view_tko weak %pv[%z] : {pv}, tile<i32> -> tile<2x{F4}>, token
""" + pointers("d", "%dst", [0, 1]) + f"""
    %u = store_ptr_tko weak %d, %v : tile<2xptr<{F4}>>, tile<2x{F4}> -> token
"""
    params = f"%src: tile<ptr<{F4}>>, %dst: tile<ptr<{F4}>>"
    dst = f4([0, 0])
    launch(kernel(body(2), params), "k", 1, [f4(VALUES), dst])
    assert floats(dst) == [1, 1.5]
    with pytest.raises(ExecutionError, match="high nibble"):
        launch(kernel(body(1), params), "k", 1, [f4(VALUES), dst])


def module(op: str, *args: str) -> str:
    """A module whose first function takes `args` and starts with `op`."""
    return ("cuda_tile.module @m {\n  cuda_tile.testing$func @f(" + ", ".join(args) + ") {\n"
            f"    {op}\n  }}\n}}")


def cast(name: str, source: str, target: str) -> str:
    """`name` from ``tile<2 x source>`` to ``tile<2 x target>``."""
    return module(f"%0 = cuda_tile.{name} %a : !cuda_tile.tile<2x{source}> -> "
                  f"!cuda_tile.tile<2x{target}>", f"%a: !cuda_tile.tile<2x{source}>")


def test_pointer_integer_casts_use_byte_addresses(run_op):
    p4 = f"ptr<{F4}>"
    nibbles = np.array([0x2000, 0x2001], np.int64)  # byte 0x1000, low and high nibble
    assert run_op(cast("ptr_to_int", p4, "i64"), nibbles).tolist() == [0x1000, 0x1000]
    out = run_op(cast("int_to_ptr", "i64", p4), np.array([0x1000, 0x1001], np.int64))
    assert out.dtype == np.int64 and out.tolist() == [0x2000, 0x2002]
    assert run_op(cast("ptr_to_ptr", p4, "ptr<i8>"), nibbles).tolist() == [0x1000, 0x1000]
    out = run_op(cast("ptr_to_ptr", "ptr<i8>", p4), np.array([0x1000, 0x1001], np.int64))
    assert out.tolist() == [0x2000, 0x2002]
    assert run_op(cast("ptr_to_ptr", p4, p4), nibbles).tolist() == [0x2000, 0x2001]


def test_assume_div_by_reads_the_byte_address(run_op):
    p4 = f"!cuda_tile.tile<2xptr<{F4}>>"

    def text(predicate: str) -> str:
        return module(f"%0 = cuda_tile.assume {predicate}, %a : {p4}", f"%a: {p4}")
    aligned = np.array([0x2000, 0x2001], np.int64)  # byte 0x1000, both nibbles
    assert run_op(text("div_by<16, every 2 along 0>"), aligned) is aligned
    with pytest.raises(ExecutionError, match="does not hold"):
        run_op(text("div_by<16>"), aligned)  # the high nibble is not 16-byte aligned
    with pytest.raises(ExecutionError, match="does not hold"):
        run_op(text("div_by<16, every 2 along 0>"), np.array([0x2001, 0x2002], np.int64))
    with pytest.raises(ExecutionError, match="do not increase by 1"):
        run_op(text("div_by<16, every 2 along 0>"), np.array([0x2000, 0x2002], np.int64))


def test_unpaired_lanes_with_a_batch_axis():
    from tileir.interp.pointers import unpaired_lanes
    # Two tile blocks' 2-lane pointer tiles on a leading batch axis: the second is shifted.
    p = np.array([[0x2000, 0x2001], [0x2001, 0x2002]], np.int64)
    assert unpaired_lanes(p, 1, None).tolist() == [[False, False], [True, True]]
    assert unpaired_lanes(p, 1, np.array([True, False])).tolist() == \
        [[False, False], [True, True]]
    assert unpaired_lanes(p[:1], 1, None) is None
    # An odd number of lanes leaves the last one unpaired (the verifier rejects such tiles).
    assert unpaired_lanes(np.array([0x2000, 0x2001, 0x2002], np.int64), 1, None).tolist() == \
        [False, False, True]
