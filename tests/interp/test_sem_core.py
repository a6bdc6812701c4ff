"""Semantics of the core ops (constants, shapes, subtiles, grid queries, offset, assume)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tileir.diagnostics import ExecutionError


def module(op: str, *args: str) -> str:
    """A module whose first function takes `args` (``%a: type``) and starts with `op`."""
    return ("cuda_tile.module @m {\n  cuda_tile.testing$func @f(" + ", ".join(args) + ") {\n"
            f"    {op}\n  }}\n}}")


def tile(spec: str) -> str:
    return f"!cuda_tile.tile<{spec}>"


def i32(v: int) -> np.ndarray:
    """A rank-0 i32 tile."""
    return np.array(v, dtype=np.int32)


# ---- constant ----------------------------------------------------------------------------


def test_constant_dense_f32(run_op):
    out = run_op(module("%0 = cuda_tile.constant <f32: [[1.0, 2.0], [3.0, -0.0]]> : "
                        + tile("2x2xf32")))
    assert out.dtype == np.float32 and out.shape == (2, 2)
    assert out.view(np.uint32).tolist() == [[0x3F800000, 0x40000000], [0x40400000, 0x80000000]]


def test_constant_splats(run_op):
    out = run_op(module("%0 = cuda_tile.constant <i32: -7> : " + tile("2x2xi32")))
    assert out.dtype == np.int32 and out.tolist() == [[-7, -7], [-7, -7]]
    out = run_op(module("%0 = cuda_tile.constant <i1: true> : " + tile("4xi1")))
    assert out.dtype == np.bool_ and out.tolist() == [True] * 4
    out = run_op(module("%0 = cuda_tile.constant <i64: -9223372036854775808> : " + tile("i64")))
    assert out.shape == () and int(out) == -(2**63)


def test_constant_narrow_floats(run_op):
    # e4m3: 1.0 = 0 0111 000 = 0x38, -2.0 = 1 1000 000 = 0xC0.
    out = run_op(module("%0 = cuda_tile.constant <f8E4M3FN: [1.0, -2.0]> : "
                        + tile("2xf8E4M3FN")))
    assert out.dtype == ml_dtypes.float8_e4m3fn and out.view(np.uint8).tolist() == [0x38, 0xC0]
    out = run_op(module("%0 = cuda_tile.constant <bf16: 1.5> : " + tile("2xbf16")))
    assert out.view(np.uint16).tolist() == [0x3FC0, 0x3FC0]


def test_constant_i8_values(run_op):
    out = run_op(module("%0 = cuda_tile.constant <i8: [-128, 127, 0, -1]> : " + tile("4xi8")))
    assert out.dtype == np.int8 and out.tolist() == [-128, 127, 0, -1]


# ---- grid queries ------------------------------------------------------------------------


def test_get_tile_block_id_and_num_tile_blocks(run_op):
    text = module("%0:3 = cuda_tile.get_tile_block_id : " + tile("i32"))
    out = run_op(text, block_id=(3, 1, 2), grid=(4, 2, 5))
    assert [o.dtype for o in out] == [np.int32] * 3 and [o.shape for o in out] == [()] * 3
    assert [int(o) for o in out] == [3, 1, 2]
    text = module("%0:3 = cuda_tile.get_num_tile_blocks : " + tile("i32"))
    assert [int(o) for o in run_op(text, block_id=(3, 1, 2), grid=(4, 2, 5))] == [4, 2, 5]


# ---- iota --------------------------------------------------------------------------------


def test_iota(run_op):
    out = run_op(module("%0 = cuda_tile.iota : " + tile("4xi32")))
    assert out.dtype == np.int32 and out.tolist() == [0, 1, 2, 3]
    # Values are unsigned: 128..255 in an i8 tile hold the bits of -128..-1.
    out = run_op(module("%0 = cuda_tile.iota : " + tile("256xi8")))
    assert out.view(np.uint8).tolist() == list(range(256))
    out = run_op(module("%0 = cuda_tile.iota : " + tile("2xi1")))
    assert out.tolist() == [False, True]


# ---- shape ops ---------------------------------------------------------------------------


def test_broadcast(run_op):
    text = module(f"%0 = cuda_tile.broadcast %a : {tile('1x4xi32')} -> {tile('2x4xi32')}",
                  f"%a: {tile('1x4xi32')}")
    out = run_op(text, np.array([[1, 2, 3, 4]], np.int32))
    assert out.tolist() == [[1, 2, 3, 4], [1, 2, 3, 4]]
    text = module(f"%0 = cuda_tile.broadcast %a : {tile('2x1xf16')} -> {tile('2x4xf16')}",
                  f"%a: {tile('2x1xf16')}")
    out = run_op(text, np.array([[1.0], [-0.0]], np.float16))
    assert out.view(np.uint16).tolist() == [[0x3C00] * 4, [0x8000] * 4]


def test_reshape_is_row_major(run_op):
    text = module(f"%0 = cuda_tile.reshape %a : {tile('2x4xi32')} -> {tile('4x2xi32')}",
                  f"%a: {tile('2x4xi32')}")
    out = run_op(text, np.array([[0, 1, 2, 3], [4, 5, 6, 7]], np.int32))
    assert out.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    text = module(f"%0 = cuda_tile.reshape %a : {tile('f32')} -> {tile('1x1xf32')}",
                  f"%a: {tile('f32')}")
    assert run_op(text, np.array(2.5, np.float32)).tolist() == [[2.5]]


def test_permute(run_op):
    # Spec example: shape [2, 4, 8] with permutation [2, 0, 1] gives shape [8, 2, 4];
    # result[i, j, k] = source[j, k, i].
    text = module(f"%0 = cuda_tile.permute %a [2, 0, 1] : {tile('2x4x8xi32')} -> "
                  f"{tile('8x2x4xi32')}", f"%a: {tile('2x4x8xi32')}")
    source = np.arange(64, dtype=np.int32).reshape(2, 4, 8)
    out = run_op(text, source)
    assert out.shape == (8, 2, 4)
    assert int(out[5, 1, 3]) == 1 * 32 + 3 * 8 + 5
    assert int(out[7, 0, 2]) == 0 * 32 + 2 * 8 + 7


def test_cat(run_op):
    def text(dim: int, lhs: str, rhs: str, result: str) -> str:
        return module(f"%0 = cuda_tile.cat %a, %b dim = {dim} : {tile(lhs)}, {tile(rhs)} -> "
                      f"{tile(result)}", f"%a: {tile(lhs)}", f"%b: {tile(rhs)}")
    a = np.array([[1, 2], [3, 4]], np.int32)
    b = np.array([[5, 6], [7, 8]], np.int32)
    assert run_op(text(0, "2x2xi32", "2x2xi32", "4x2xi32"), a, b).tolist() == \
        [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert run_op(text(1, "2x2xi32", "2x2xi32", "2x4xi32"), a, b).tolist() == \
        [[1, 2, 5, 6], [3, 4, 7, 8]]


def test_select_keeps_bits(run_op):
    text = module(f"%0 = cuda_tile.select %c, %a, %b : {tile('4xi1')}, {tile('4xf32')}",
                  f"%c: {tile('4xi1')}", f"%a: {tile('4xf32')}", f"%b: {tile('4xf32')}")
    a = np.array([0x7FC00001, 0x80000000, 1, 2], np.uint32).view(np.float32)
    b = np.array([3, 4, 0xFF800000, 0x00000001], np.uint32).view(np.float32)
    out = run_op(text, np.array([True, True, False, False]), a, b)
    assert out.dtype == np.float32
    assert out.view(np.uint32).tolist() == [0x7FC00001, 0x80000000, 0xFF800000, 1]


# ---- extract / insert -------------------------------------------------------------------


EXTRACT = module(f"%0 = cuda_tile.extract %a[%i, %j] : {tile('8x8xi32')} -> {tile('2x4xi32')}",
                 f"%a: {tile('8x8xi32')}", f"%i: {tile('i32')}", f"%j: {tile('i32')}")
INSERT = module(f"%0 = cuda_tile.insert %s, %d[%i, %j] : {tile('2x4xi32')}, {tile('8x8xi32')}",
                f"%s: {tile('2x4xi32')}", f"%d: {tile('8x8xi32')}", f"%i: {tile('i32')}",
                f"%j: {tile('i32')}")
GRID = np.arange(64, dtype=np.int32).reshape(8, 8)


def test_extract_takes_subtile_by_number(run_op):
    # Subtile (3, 1) of shape 2x4 covers rows 6..7 and columns 4..7.
    out = run_op(EXTRACT, GRID, i32(3), i32(1))
    assert out.tolist() == [[52, 53, 54, 55], [60, 61, 62, 63]]
    out = run_op(EXTRACT, GRID, i32(0), i32(0))
    assert out.tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]


@pytest.mark.parametrize("i, j", [(4, 0), (0, 2), (-1, 0)])
def test_extract_out_of_range_is_undefined(run_op, i, j):
    # 8 / 2 = 4 subtiles along dimension 0 and 8 / 4 = 2 along dimension 1; indices are read
    # unsigned, so -1 is 4294967295.
    with pytest.raises(ExecutionError, match="names no subtile"):
        run_op(EXTRACT, GRID, i32(i), i32(j))
    assert run_op(EXTRACT, GRID, i32(i), i32(j), checks=False).shape == (2, 4)


def test_extract_rank0(run_op):
    text = module(f"%0 = cuda_tile.extract %a[] : {tile('f32')} -> {tile('f32')}",
                  f"%a: {tile('f32')}")
    assert run_op(text, np.array(1.5, np.float32)).tolist() == 1.5


def test_insert_replaces_subtile(run_op):
    source = np.full((2, 4), -1, np.int32)
    out = run_op(INSERT, source, GRID, i32(2), i32(1))
    expected = GRID.copy()
    expected[4:6, 4:8] = -1
    assert out.tolist() == expected.tolist()
    assert GRID[4, 4] == 36  # the destination operand is not modified


def test_insert_out_of_range_is_undefined(run_op):
    with pytest.raises(ExecutionError, match="names no subtile"):
        run_op(INSERT, np.zeros((2, 4), np.int32), GRID, i32(0), i32(2))
    run_op(INSERT, np.zeros((2, 4), np.int32), GRID, i32(0), i32(2), checks=False)


def test_extract_and_insert_with_batch_axis(run_op):
    """A leading axis (every tile block at once) with a different index per block."""
    text = module(f"%0 = cuda_tile.extract %a[%i] : {tile('8xi32')} -> {tile('2xi32')}",
                  f"%a: {tile('8xi32')}", f"%i: {tile('i32')}")
    source = np.arange(16, dtype=np.int32).reshape(2, 8)
    out = run_op(text, source, np.array([3, 1], np.int32))
    assert out.tolist() == [[6, 7], [10, 11]]
    text = module(f"%0 = cuda_tile.insert %s, %d[%i] : {tile('2xi32')}, {tile('8xi32')}",
                  f"%s: {tile('2xi32')}", f"%d: {tile('8xi32')}", f"%i: {tile('i32')}")
    out = run_op(text, np.array([[-1, -2], [-3, -4]], np.int32), np.zeros((2, 8), np.int32),
                 np.array([0, 2], np.int32))
    assert out.tolist() == [[-1, -2, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, -3, -4, 0, 0]]


def test_shape_ops_with_batch_axis(run_op):
    text = module(f"%0 = cuda_tile.broadcast %a : {tile('1x2xi32')} -> {tile('2x2xi32')}",
                  f"%a: {tile('1x2xi32')}")
    out = run_op(text, np.array([[[1, 2]], [[3, 4]]], np.int32))
    assert out.tolist() == [[[1, 2], [1, 2]], [[3, 4], [3, 4]]]
    text = module(f"%0 = cuda_tile.permute %a [1, 0] : {tile('2x4xi32')} -> {tile('4x2xi32')}",
                  f"%a: {tile('2x4xi32')}")
    batch = np.arange(16, dtype=np.int32).reshape(2, 2, 4)
    assert run_op(text, batch).tolist() == [b.T.tolist() for b in batch]
    text = module(f"%0 = cuda_tile.cat %a, %a dim = 0 : {tile('2xi32')}, {tile('2xi32')} -> "
                  f"{tile('4xi32')}", f"%a: {tile('2xi32')}")
    rows = np.array([[1, 2], [3, 4]], np.int32)
    assert run_op(text, rows, rows).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]


# ---- pack / unpack ---------------------------------------------------------------------


def test_pack_f4_nibble_order(run_op):
    # Spec 5.2.2: [0.5, 1.5] packs to the byte 0x31 (element 0 in bits 3..0).
    x = np.array([0.5, 1.5, -6.0, 0.0], ml_dtypes.float4_e2m1fn)
    text = module("%0 = cuda_tile.pack %a : !cuda_tile.tile<4xf4E2M1FN> -> "
                  "!cuda_tile.tile<2xi8>", "%a: !cuda_tile.tile<4xf4E2M1FN>")
    out = run_op(text, x)
    assert out.dtype == np.int8 and out.view(np.uint8).tolist() == [0x31, 0x0F]


def test_unpack_f4_nibble_order(run_op):
    text = module("%0 = cuda_tile.unpack %a : !cuda_tile.tile<2xi8> -> "
                  "!cuda_tile.tile<4xf4E2M1FN>", "%a: !cuda_tile.tile<2xi8>")
    out = run_op(text, np.array([0x31, 0x0F], np.uint8).view(np.int8))
    assert out.astype(np.float32).tolist() == [0.5, 1.5, -6.0, 0.0]


def test_pack_unpack_wide_types_little_endian(run_op):
    text = module("%0 = cuda_tile.pack %a : !cuda_tile.tile<2xf16> -> !cuda_tile.tile<4xi8>",
                  "%a: !cuda_tile.tile<2xf16>")
    out = run_op(text, np.array([1.0, -2.0], np.float16))  # 0x3C00, 0xC000
    assert out.view(np.uint8).tolist() == [0x00, 0x3C, 0x00, 0xC0]
    text = module("%0 = cuda_tile.unpack %a : !cuda_tile.tile<8xi8> -> "
                  "!cuda_tile.tile<2xi32>", "%a: !cuda_tile.tile<8xi8>")
    data = np.array([0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF], np.uint8).view(np.int8)
    out = run_op(text, data)
    assert out.dtype == np.int32 and out.tolist() == [0x12345678, -1]


def test_pack_i4(run_op):
    text = module("%0 = cuda_tile.pack %a : !cuda_tile.tile<4xi4> -> !cuda_tile.tile<2xi8>",
                  "%a: !cuda_tile.tile<4xi4>")
    out = run_op(text, np.array([1, -1, -8, 7], ml_dtypes.int4))
    assert out.view(np.uint8).tolist() == [0xF1, 0x78]


def test_pack_with_batch_axis(run_op):
    """A leading axis (all tile blocks at once) packs each row on its own."""
    text = module("%0 = cuda_tile.pack %a : !cuda_tile.tile<2xf4E2M1FN> -> "
                  "!cuda_tile.tile<1xi8>", "%a: !cuda_tile.tile<2xf4E2M1FN>")
    x = np.array([[0.5, 1.5], [1.0, 0.5]], ml_dtypes.float4_e2m1fn)
    assert run_op(text, x).view(np.uint8).tolist() == [[0x31], [0x12]]


# ---- offset ------------------------------------------------------------------------------


def offset_text(pointee: str, index: str, n: int = 4) -> str:
    p, o = tile(f"{n}xptr<{pointee}>"), tile(f"{n}x{index}")
    return module(f"%0 = cuda_tile.offset %p, %o : {p}, {o} -> {p}", f"%p: {p}", f"%o: {o}")


def test_offset_scales_by_storage_size(run_op):
    base = np.full(4, 0x1000, np.int64)
    out = run_op(offset_text("f32", "i32"), base, np.array([0, 1, -1, 3], np.int32))
    assert out.dtype == np.int64 and out.tolist() == [0x1000, 0x1004, 0xFFC, 0x100C]
    out = run_op(offset_text("f64", "i8"), base, np.array([-128, 127, 0, 1], np.int8))
    assert out.tolist() == [0x1000 - 1024, 0x1000 + 1016, 0x1000, 0x1008]
    # i1 is stored in a byte, tf32 in four.
    out = run_op(offset_text("i1", "i32"), base, np.array([3, 0, 1, 2], np.int32))
    assert out.tolist() == [0x1003, 0x1000, 0x1001, 0x1002]
    out = run_op(offset_text("tf32", "i16"), base, np.array([3, 0, 1, 2], np.int16))
    assert out.tolist() == [0x100C, 0x1000, 0x1004, 0x1008]


def test_offset_reads_i1_signed(run_op):
    # The offset is read signed: an i1 true is -1.
    base = np.full(2, 0x1000, np.int64)
    out = run_op(offset_text("f32", "i1", 2), base, np.array([True, False]))
    assert out.tolist() == [0xFFC, 0x1000]


def test_offset_rank0_gives_a_0d_array(run_op):
    p, o = tile("ptr<f32>"), tile("i64")
    text = module(f"%0 = cuda_tile.offset %p, %o : {p}, {o} -> {p}", f"%p: {p}", f"%o: {o}")
    out = run_op(text, np.array(0x1000, np.int64), np.array(3, np.int64))
    assert isinstance(out, np.ndarray) and out.shape == () and int(out) == 0x100C


def test_offset_sub_byte_pointee(run_op):
    # A pointer to a 4-bit pointee is a nibble address (2 * byte + nibble): offset adds n,
    # odd offsets included (the high nibble).
    base = np.full(4, 0x2000, np.int64)
    out = run_op(offset_text("f4E2M1FN", "i32"), base, np.array([0, 1, 3, -1], np.int32))
    assert out.tolist() == [0x2000, 0x2001, 0x2003, 0x1FFF]


def test_offset_unsigned_wrap_is_undefined(run_op):
    text = offset_text("f32", "i32", 2)
    with pytest.raises(ExecutionError, match="wraps around"):
        run_op(text, np.array([0x10, 0x10], np.int64), np.array([0, -5], np.int32))
    # 2^64 - 16 read unsigned: +3 elements stays below 2^64, +4 reaches it.
    top = np.array([-16, -16], np.int64)
    assert run_op(text, top, np.array([3, 0], np.int32)).tolist() == [-4, -16]
    with pytest.raises(ExecutionError, match="wraps around"):
        run_op(text, top, np.array([3, 4], np.int32))
    assert run_op(text, top, np.array([3, 4], np.int32), checks=False).tolist() == [-4, 0]


def test_offset_signed_product_overflow_is_undefined(run_op):
    text = offset_text("f32", "i64", 2)
    # 2^61 * 4 = 2^63 does not fit a signed 64-bit product; -2^61 * 4 = -2^63 does.
    with pytest.raises(ExecutionError, match="overflows a signed 64-bit"):
        run_op(text, np.zeros(2, np.int64), np.array([0, 2**61], np.int64))
    high = np.array([-(2**63), -(2**63)], np.int64)  # the address 2^63
    assert run_op(text, high, np.array([-(2**61), 0], np.int64)).tolist() == [0, -(2**63)]


# ---- assume ------------------------------------------------------------------------------


def assume_text(predicate: str, t: str) -> str:
    return module(f"%0 = cuda_tile.assume #cuda_tile.{predicate}, %a : {tile(t)}",
                  f"%a: {tile(t)}")


def test_assume_passes_value_through(run_op):
    x = np.array([4, 8, -4, 0], np.int32)
    assert run_op(assume_text("div_by<4>", "4xi32"), x) is x


def test_assume_div_by(run_op):
    text = assume_text("div_by<4>", "4xi32")
    with pytest.raises(ExecutionError, match=r"div_by<4> does not hold: element \[1\] is 6"):
        run_op(text, np.array([4, 6, 8, 12], np.int32))
    run_op(text, np.array([4, 6, 8, 12], np.int32), checks=False)


def test_assume_div_by_every_along(run_op):
    text = assume_text("div_by<4, every 2 along 1>", "2x4xi32")
    run_op(text, np.array([[8, 9, 16, 17], [4, 5, 0, 1]], np.int32))
    with pytest.raises(ExecutionError, match="increase by 1"):
        run_op(text, np.array([[8, 10, 16, 17], [4, 5, 0, 1]], np.int32))
    with pytest.raises(ExecutionError, match="not divisible by 4"):
        run_op(text, np.array([[8, 9, 16, 17], [6, 7, 0, 1]], np.int32))


def test_assume_div_by_every_uses_signed_reading(run_op):
    # The spec's example: i8 [0x7E, 0x7F, 0x80, 0x81] wraps when read signed, so every = 4
    # is wrong and every = 2 is right.
    x = np.array([0x7E, 0x7F, 0x80, 0x81], np.uint8).view(np.int8)
    run_op(assume_text("div_by<2, every 2 along 0>", "4xi8"), x)
    with pytest.raises(ExecutionError, match="increase by 1"):
        run_op(assume_text("div_by<2, every 4 along 0>", "4xi8"), x)


def test_assume_div_by_pointers_step_by_pointee_size(run_op):
    text = assume_text("div_by<16, every 4 along 0>", "4xptr<f32>")
    run_op(text, np.array([0x100, 0x104, 0x108, 0x10C], np.int64))
    with pytest.raises(ExecutionError, match="increase by 4"):
        run_op(text, np.array([0x100, 0x101, 0x102, 0x103], np.int64))


def test_assume_same_elements(run_op):
    text = assume_text("same_elements<[2]>", "4xi32")
    run_op(text, np.array([5, 5, 7, 7], np.int32))
    with pytest.raises(ExecutionError, match="same_elements"):
        run_op(text, np.array([5, 6, 7, 7], np.int32))
    text = assume_text("same_elements<[1, 4]>", "2x4xi64")
    run_op(text, np.array([[1, 1, 1, 1], [2, 2, 2, 2]], np.int64))
    with pytest.raises(ExecutionError, match="dimension 1"):
        run_op(text, np.array([[1, 1, 1, 1], [2, 2, 3, 2]], np.int64))


def test_assume_bounded(run_op):
    text = assume_text("bounded<0, ?>", "4xi32")
    run_op(text, np.array([0, 5, 2**31 - 1, 1], np.int32))
    with pytest.raises(ExecutionError, match=r"element \[2\] is -1"):
        run_op(text, np.array([0, 5, -1, 1], np.int32))
    text = assume_text("bounded<-3, 3>", "2xi8")
    run_op(text, np.array([-3, 3], np.int8))
    with pytest.raises(ExecutionError, match="outside"):
        run_op(text, np.array([-4, 3], np.int8))
    run_op(text, np.array([-4, 3], np.int8), checks=False)


def test_assume_div_by_on_tensor_view_checks_base_address(run_op):
    from tileir.interp.values import TensorView
    from tileir.types import F32
    view_type = "!cuda_tile.tensor_view<4xf32, strides=[1]>"
    text = module(f"%0 = cuda_tile.assume #cuda_tile.div_by<16>, %a : {view_type}",
                  f"%a: {view_type}")
    good = TensorView(0x1000, (4,), (1,), F32)
    assert run_op(text, good) is good
    with pytest.raises(ExecutionError, match="base address 0x1004"):
        run_op(text, TensorView(0x1004, (4,), (1,), F32))


def test_every_core_op_outside_memory_and_regions_has_semantics():
    from tileir.interp import SEMANTICS
    from tileir.ops.registry import all_ops
    mine = {"constant", "broadcast", "cat", "extract", "insert", "get_num_tile_blocks",
            "get_tile_block_id", "iota", "offset", "pack", "unpack", "permute", "reshape",
            "select", "assume"}
    declared = {d.name for d in all_ops() if d.group in ("Core", "Misc")}
    assert mine <= declared and mine <= set(SEMANTICS)
