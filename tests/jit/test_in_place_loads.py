"""Tiles read where they lie (tileir/interp/compiled/lower.py, `_in_place`): a loaded tile
wholly inside its tensor, contiguous and aligned, from a buffer the launch writes nothing
of, is read from the caller's memory instead of a copy; every other load is copied.
Either way the tile is the value the load gave: these kernels store over what they
loaded, pad, stride and misalign, and must give NumPy's exact sums."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_engine  # noqa: E402
from tileir.interp.compiled.runner import in_place_mask  # noqa: E402

EXAMPLES = pathlib.Path(tileir.__file__).parent / "examples" / "kernels"
VECTOR_ADD = (EXAMPLES / "vector_add.mlir").read_text()
#: Vector add with its ops in one token chain (load a, load b, store c), so that c may
#: reach what a and b read.
CHAINED = VECTOR_ADD.replace("%b_tiles[%block] token = %token", "%b_tiles[%block] token = %x_token"
                             ).replace("%c_tiles[%block] token = %token", "%c_tiles[%block] token = %y_token")


def doubled(rows: int, cols: int, tile: tuple[int, int]) -> str:
    """y = x + x over tiles of shape `tile` of a rows x cols f32 matrix (grid: the tiles
    along each dimension)."""
    view = f"tensor_view<{rows}x{cols}xf32, strides=[{cols},1]>"
    parts = f"partition_view<tile=({tile[0]}x{tile[1]}), padding_value = zero, {view}>"
    t = f"tile<{tile[0]}x{tile[1]}xf32>"
    return f"""cuda_tile.module @m {{
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>) {{
    %t = make_token : token
    %xv = make_tensor_view %x, shape = [{rows}, {cols}], strides = [{cols}, 1] : {view}
    %yv = make_tensor_view %y, shape = [{rows}, {cols}], strides = [{cols}, 1] : {view}
    %xp = make_partition_view %xv : {parts}
    %yp = make_partition_view %yv : {parts}
    %i, %j, %unused = get_tile_block_id : tile<i32>
    %v, %vt = load_view_tko weak %xp[%i, %j] token = %t : {parts}, tile<i32> -> {t}, token
    %s = addf %v, %v : {t}
    %done = store_view_tko weak %s, %yp[%i, %j] token = %t : {t}, {parts}, tile<i32> -> token
    return
  }}
}}"""


def test_the_in_place_word_marks_the_buffers_the_launch_never_writes():
    """Bit p for each pointer parameter p whose buffer nothing of the launch writes (an
    alias of a written buffer is that buffer); none from parameter 63 on."""
    read, written, shared = object(), object(), object()
    owners = {0: read, 1: written, 2: shared, 3: read, 63: read}
    assert in_place_mask(owners, {id(written): written, id(shared): shared}) == 0b1001
    assert in_place_mask(owners, {}) == 0b1111


@pytest.mark.parametrize("n", [64 * 5, 64 * 5 + 7, 3])
def test_tiles_read_in_place_add_exactly(n):
    """Whole tiles read in place, a last partial one (padded) copied: NumPy's sums."""
    rng = np.random.default_rng(n)
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    c = np.full(n, 7, np.float32)
    run = tileir.launch(VECTOR_ADD, None, -(-n // 64), [a, b, c, n], engine="compiled")
    assert_engine(run, "compiled")
    assert c.tobytes() == (a + b).tobytes()


def test_a_store_over_a_loaded_tile_leaves_the_tile_as_loaded():
    """c is a shifted by one element: the block stores c[0] (a[1]) before it adds a[1].
    The launch writes a's buffer, so a is copied when loaded: c = a + b as a was."""
    rng = np.random.default_rng(1)
    memory = rng.standard_normal(65).astype(np.float32)
    a, c = memory[:64], memory[1:]
    b = rng.standard_normal(64).astype(np.float32)
    expected = (a + b).tobytes()
    run = tileir.launch(CHAINED, None, 1, [a, b, c, 64], engine="compiled")
    assert_engine(run, "compiled")
    assert memory[1:].tobytes() == expected


def test_a_tile_read_and_written_through_one_parameter_is_as_loaded():
    """c = c + c, a, b and c one array (loaded, then stored over): the sums of the values
    loaded."""
    rng = np.random.default_rng(2)
    c = rng.standard_normal(64).astype(np.float32)
    expected = (c + c).tobytes()
    run = tileir.launch(CHAINED, None, 1, [c, c, c, 64], engine="compiled")
    assert_engine(run, "compiled")
    assert c.tobytes() == expected


def test_a_misaligned_buffer_is_read_alike():
    """f32 arrays two bytes off a four-byte boundary (an in-place read of them would
    be a misaligned load, which the in-place test leaves to the copy; an x86 CPU reads
    either alike, so this checks the sums, not which path ran): NumPy's sums."""
    n = 128
    rng = np.random.default_rng(3)
    raw = [bytearray(4 * n + 2) for _ in range(2)]
    a, b = (np.frombuffer(r, np.float32, n, offset=2) for r in raw)
    a[:], b[:] = rng.standard_normal(n), rng.standard_normal(n)
    assert a.ctypes.data % 4 and b.ctypes.data % 4
    c = np.full(n, 7, np.float32)
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], engine="compiled")
    assert_engine(run, "compiled")
    assert c.tobytes() == (a + b).tobytes()


@pytest.mark.parametrize("rows, cols, tile", [(8, 8, (1, 8)), (8, 8, (2, 8)), (8, 8, (4, 4)),
                                              (8, 16, (2, 8)), (6, 8, (4, 8)), (8, 1, (8, 1))])
def test_two_dimensional_tiles_contiguous_or_not(rows, cols, tile):
    """Whole rows (one contiguous run: in place), part rows (strided: copied), a tile
    past the last row (padded: copied) and a column: NumPy's x + x."""
    rng = np.random.default_rng(rows * cols + tile[0])
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = np.full((rows, cols), 7, np.float32)
    grid = (-(-rows // tile[0]), -(-cols // tile[1]), 1)
    run = tileir.launch(doubled(rows, cols, tile), None, grid, [x, y], engine="compiled")
    assert_engine(run, "compiled")
    assert y.tobytes() == (x + x).tobytes()


TILE_SUMS = """cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %out: tile<ptr<f32>>, %n: tile<i32>, %blocks: tile<i32>) {
    %t = make_token : token
    %xv = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %ov = make_tensor_view %out, shape = [%blocks], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %op = make_partition_view %ov : partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>
    %b, %unused_y, %unused_z = get_tile_block_id : tile<i32>
    %v, %vt = load_view_tko weak %xp[%b] token = %t : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %s = reduce %v dim=0 identities=[0.000000e+00 : f32] : tile<64xf32> -> tile<f32>
      (%e: tile<f32>, %a: tile<f32>) {
        %r = addf %e, %a : tile<f32>
        yield %r : tile<f32>
      }
    %s1 = reshape %s : tile<f32> -> tile<1xf32>
    %done = store_view_tko weak %s1, %op[%b] token = %t : tile<1xf32>, partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}"""


def test_a_tile_past_the_tensor_reads_its_padding_not_the_memory_beyond():
    """The last tile of x (70 elements of a larger array) reaches past x's extent: its
    padding zeros, not the array's next elements, are summed (the reference's bytes;
    the sum of x's own elements)."""
    memory = np.arange(1, 129, dtype=np.float32)
    x = memory[:70]
    sums = {}
    for engine in ("blocks", "compiled"):
        out = np.full(2, 7, np.float32)
        run = tileir.launch(TILE_SUMS, None, 2, [x, out, 70, 2], engine=engine)
        sums[engine] = out.tobytes()
    assert_engine(run, "compiled")
    assert sums["compiled"] == sums["blocks"]
    assert np.frombuffer(sums["compiled"], np.float32).tolist() == [float(sum(range(1, 65))),
                                                                    float(sum(range(65, 71)))]
