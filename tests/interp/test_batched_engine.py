# ruff: noqa: E501 (Tile IR text lines in these tests are long by nature)
"""The batched engine: which kernels it runs, the same bytes as the reference engine, and
undefined behaviour reported exactly as the reference reports it (planted bugs)."""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
import pytest

from tileir import ExecutionError
from tileir.cli.examples import kernel_text
from tileir.interp import launch
from tileir.interp.memory import PLACEMENT, REGION_BITS

VIEW = "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>"
TV = "tensor_view<?xf32, strides=[1]>"


def _kernel(body: str) -> str:
    """A kernel over a, c (n f32) whose body sees %a_tiles, %c_tiles, %block, %token."""
    return f"""cuda_tile.module @k {{
  entry @k(%a: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {{
    %token = make_token : token
    %av = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> {TV}
    %cv = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> {TV}
    %a_tiles = make_partition_view %av : {VIEW}
    %c_tiles = make_partition_view %cv : {VIEW}
    %block, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
{body}
    return
  }}
}}"""


class Outcome(NamedTuple):
    """One launch: the engine that ran (or "error"), its reason (or the error's text), and
    the bytes of c and a afterwards."""

    engine: str
    text: str | None
    c: bytes
    a: bytes


def _run(text: str, engine: str, blocks: int = 8, schedule: str = "sequential",
         a: np.ndarray | None = None, c: np.ndarray | None = None, **options) -> Outcome:
    """Launch over `blocks` tile blocks on copies of `a` (default 0, 1, 2, ...) and `c`
    (default zeros), both of 64 elements per block unless given."""
    a = np.arange(64 * blocks, dtype=np.float32) if a is None else a.copy()
    c = np.zeros(64 * blocks, np.float32) if c is None else c.copy()
    try:
        run = launch(text, None, blocks, [a, c, c.size], engine=engine, schedule=schedule,
                     seed=1, **options)
        engine, reason = run.engine, run.reason
    except ExecutionError as exc:
        engine, reason = "error", str(exc)
    return Outcome(engine, reason, c.tobytes(), a.tobytes())


def _same_outcome(text: str, schedule: str = "sequential", **options) -> tuple:
    """Both engines' outcomes (the reference's, then "auto"'s): the same error text, or
    none, and the same bytes left in memory."""
    blocks = _run(text, "blocks", schedule=schedule, **options)
    auto = _run(text, "auto", schedule=schedule, **options)
    if blocks.engine == "error":
        assert auto.text == blocks.text
    assert (auto.c, auto.a) == (blocks.c, blocks.a)
    return blocks, auto


def _examples_on_both_engines(data_seed: int, **options) -> None:
    """The README's example kernels on both engines: each output passes its check, and the
    two engines' outputs are byte for byte the same."""
    from tileir.cli.examples import KERNELS
    for example in KERNELS:
        results = []
        for engine in ("blocks", "batched"):
            grid, args, check = example.setup(np.random.default_rng(data_seed))
            run = launch(kernel_text(example.file), None, grid, args, engine=engine,
                         **options)
            assert run.engine == engine
            assert check()[0], f"{example.file} on the {engine} engine"
            results.append([a.tobytes() for a in args if isinstance(a, np.ndarray)])
        assert results[0] == results[1], example.file


def test_vector_add_runs_batched_with_the_reference_bytes() -> None:
    text = kernel_text("vector_add.mlir")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(
        np.float32)
    outputs = []
    for engine in ("blocks", "batched"):
        c = np.zeros(1000, np.float32)
        run = launch(text, None, 16, [a, b, c, 1000], engine=engine)
        assert run.engine == engine
        outputs.append(c.tobytes())
    assert outputs[0] == outputs[1] == (a + b).tobytes()


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
def test_two_blocks_storing_one_tile_is_reported_as_the_reference_does(schedule: str) -> None:
    # every block stores its tile of a into tile 0 of c: blocks race with each other
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%zero] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text, schedule)
    assert blocks.engine == "error" and "races with tile block" in blocks.text
    assert auto.text == blocks.text      # the exact diagnostic, from the rerun


def test_an_unordered_store_then_load_in_one_block_is_a_race() -> None:
    # a block stores its tile, then loads it back with a token that does not order the two
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %y, %u = load_view_tko weak %c_tiles[%block] token = %t : {VIEW}, tile<i32> -> tile<64xf32>, token""")
    blocks, auto = _same_outcome(text)
    assert blocks.engine == "error" and "races with 'cuda_tile.store_view_tko'" in blocks.text


def test_a_token_chain_orders_them_and_the_kernel_runs_batched() -> None:
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %y, %u = load_view_tko weak %c_tiles[%block] token = %d : {VIEW}, tile<i32> -> tile<64xf32>, token""")
    blocks, auto = _same_outcome(text)
    assert auto.engine == "batched" and blocks.engine == "blocks"
    assert auto.c == np.arange(512, dtype=np.float32).tobytes()


def test_an_index_outside_the_index_space_is_reported_as_the_reference_does() -> None:
    # block b loads tile b + 1: the last block's tile is outside the index space
    text = _kernel(f"""    %one = constant <i32: 1> : tile<i32>
    %next = addi %block, %one : tile<i32>
    %x, %t = load_view_tko weak %a_tiles[%next] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text, "reverse")
    assert blocks.engine == "error" and "outside the index space" in blocks.text


def test_a_divergent_if_falls_back_to_one_block_at_a_time() -> None:
    text = _kernel(f"""    %is_zero = cmpi equal %block, %zero, signed : tile<i32> -> tile<i1>
    if %is_zero {{
      %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
      %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    }}""")
    blocks, auto = _same_outcome(text)
    assert auto.engine == "blocks" and auto.text == "an 'if' condition differs between tile blocks"
    with pytest.raises(ExecutionError, match="the batched engine cannot run this kernel: an "
                                             "'if' condition differs between tile blocks"):
        launch(text, None, 8, [np.zeros(512, np.float32), np.zeros(512, np.float32), 512],
               engine="batched")


def test_a_loop_value_that_starts_uniform_and_becomes_varying() -> None:
    # acc starts as a constant tile (the same in every block) and adds the block's tile
    # on each of 3 iterations: from the second iteration on it differs between blocks
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %init = constant <f32: 1.0> : tile<64xf32>
    %three = constant <i32: 3> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %acc = for %i in (%zero to %three, step %one) : tile<i32> iter_values(%s = %init) -> (tile<64xf32>) {{
      %r = reshape %s : tile<64xf32> -> tile<8x8xf32>
      %back = reshape %r : tile<8x8xf32> -> tile<64xf32>
      %next = addf %back, %x : tile<64xf32>
      continue %next : tile<64xf32>
    }}
    %d = store_view_tko weak %acc, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text)
    assert auto.engine == "batched"
    expected = 1 + 3 * np.arange(512, dtype=np.float32)
    assert auto.c == expected.tobytes()


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
def test_shipped_examples_give_the_same_bytes_on_both_engines(schedule: str) -> None:
    """The reference engine stays tested on the shipped examples without the optional
    cuTile corpus."""
    _examples_on_both_engines(9, schedule=schedule, seed=2)


# ---- race checks over footprints (checks on, strided windows) -----------------------------


def _no_keys(monkeypatch) -> None:
    """Make turning a box into keys fail the test: the geometry alone must decide."""
    from tileir.interp.batch import footprints

    def refuse(self, grain):
        raise AssertionError("a box was turned into keys")
    monkeypatch.setattr(footprints.Box, "keys", refuse)


def test_in_place_update_is_decided_by_geometry(monkeypatch) -> None:
    # each block loads its tile of c, doubles it and stores it back, ordered by the token:
    # the load and store are one box, whose elements never share a byte
    _no_keys(monkeypatch)
    text = _kernel(f"""    %x, %t = load_view_tko weak %c_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %y = addf %x, %x : tile<64xf32>
    %d = store_view_tko weak %y, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    c = np.arange(512, dtype=np.float32)
    run = launch(text, None, 8, [np.zeros(512, np.float32), c, 512], engine="batched")
    assert run.engine == "batched"
    assert c.tobytes() == (2 * np.arange(512, dtype=np.float32)).tobytes()


def test_reading_the_next_blocks_tile_while_it_writes_its_own_is_a_race() -> None:
    # block b reads tile b + 1 of c and writes tile b: blocks b and b + 1 meet on tile b + 1
    text = _kernel(f"""    %one = constant <i32: 1> : tile<i32>
    %next = addi %block, %one : tile<i32>
    %x, %t = load_view_tko weak %c_tiles[%next] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text, blocks=7, a=np.zeros(512, np.float32),
                                 c=np.arange(512, dtype=np.float32))
    assert blocks.engine == "error"
    # c (argument 1) is mapped in the middle of region 2; block 1 writes c's tile 1
    tile_1_of_c = (2 << REGION_BITS) + PLACEMENT + 64 * 4
    assert f"op races with tile block (0, 0, 0) on address {tile_1_of_c:#x}" in blocks.text
    assert blocks.text.endswith("(tile block (1, 0, 0))")


def test_reading_the_next_tile_of_a_buffer_nobody_writes_is_no_race(monkeypatch) -> None:
    _no_keys(monkeypatch)
    text = _kernel(f"""    %one = constant <i32: 1> : tile<i32>
    %next = addi %block, %one : tile<i32>
    %x, %t = load_view_tko weak %a_tiles[%next] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %y, %u = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %s = addf %x, %y : tile<64xf32>
    %d = store_view_tko weak %s, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(512, np.float32)
    assert launch(text, None, 7, [a, c, 512], engine="batched").engine == "batched"
    assert c[:448].tobytes() == (a[64:] + a[:448]).tobytes()


def test_undefined_behaviour_restores_only_written_buffers(monkeypatch) -> None:
    # the journal copies c (written) and not a (only read) before the rerun: what this
    # launch's journal saved, read when it restores (a spy on `touch` would see the window
    # each write passes, and any other launch's journal running at the time)
    from tileir.interp import memory as memory_module
    saved = []
    original = memory_module.Journal.restore

    def spy(self):
        if any(b.host in (a.ctypes.data, c.ctypes.data) for b in self.memory.buffers):
            saved.append(set(self.saved))
        original(self)
    monkeypatch.setattr(memory_module.Journal, "restore", spy)
    # each block stores its tile of a into its tile of c, then (ordered) into tile 0 of c:
    # the second store is where blocks race, after the first has written c
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %e = store_view_tko weak %x, %c_tiles[%zero] token = %d : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.full(512, 7.0, np.float32)
    with pytest.raises(ExecutionError, match=r"races with tile block \(0, 0, 0\)"):
        launch(text, None, 8, [a, c, 512], engine="auto", on_error="keep")
    assert saved == [{c.ctypes.data}]       # (the batched run's, before the rerun)
    # the rerun started from c as it was: blocks 0 and 1 ran whole (block 1's accesses are
    # checked against block 0's once it has run), the others never did
    assert c.tobytes() == np.r_[a[64:128], a[64:128], np.full(384, 7.0, np.float32)].tobytes()
    # by default the failed launch leaves c as it was before it
    c[...] = 7.0
    saved.clear()
    with pytest.raises(ExecutionError, match=r"races with tile block \(0, 0, 0\)"):
        launch(text, None, 8, [a, c, 512], engine="auto")
    assert saved == [{c.ctypes.data}, {c.ctypes.data}]   # before the rerun, after it
    assert c.tobytes() == np.full(512, 7.0, np.float32).tobytes()


def test_box_geometry() -> None:
    from tileir.interp.batch.footprints import BLOCK_BITS, Box
    rows = Box(1000, (1, 2, 3, 4, 8), (0, 4 * 8 * 3 * 4, 8 * 4, 8 * 3 * 4, 4), 4)
    assert (rows.lo, rows.hi) == (1000, 1000 + 4 * 8 * 3 * 4 * 2)
    assert rows.disjoint()
    assert not Box(0, (1, 1, 4, 64), (0, 0, 0, 4), 4).disjoint()     # every block, one tile
    assert not Box(0, (1, 1, 4, 64), (0, 0, 128, 4), 4).disjoint()   # tiles overlap by half
    assert Box(0, (1, 1, 4, 64), (0, 0, 256, 4), 4).disjoint()
    keys = Box(64, (1, 1, 2, 2), (0, 0, 8, 4), 4).keys(4)
    # grains 16..19 (4-byte grains from byte 64), blocks 0, 0, 1, 1 (block stride 8 bytes)
    assert (keys >> BLOCK_BITS).tolist() == [16, 17, 18, 19]
    assert (keys & ((1 << BLOCK_BITS) - 1)).tolist() == [0, 0, 1, 1]


def test_a_tile_every_block_reads_is_decided_by_geometry(monkeypatch) -> None:
    # every block reads tile 0 of a (the same addresses in all blocks) and adds it to its
    # own tile: read-only sharing, no keys needed
    from tileir.interp.batch import footprints
    _no_keys(monkeypatch)
    monkeypatch.setattr(footprints.Uniform, "keys", footprints.Box.keys)   # refused too
    text = _kernel(f"""    %w, %t0 = load_view_tko weak %a_tiles[%zero] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %s = addf %x, %w : tile<64xf32>
    %d = store_view_tko weak %s, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(512, np.float32)
    assert launch(text, None, 8, [a, c, 512], engine="batched").engine == "batched"
    assert c.tobytes() == (a + np.tile(a[:64], 8)).tobytes()


def test_a_tile_every_block_reads_while_block_zero_writes_it_unordered() -> None:
    # every block reads tile 0 of c, and writes its own tile without a token ordering the
    # read before: block 0 races with itself (and the others read what it writes)
    text = _kernel(f"""    %w, %t0 = load_view_tko weak %c_tiles[%zero] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %w, %c_tiles[%block] token = %token : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text)
    assert blocks.engine == "error" and "races with 'cuda_tile.load_view_tko'" in blocks.text
    assert blocks.text.endswith("(tile block (0, 0, 0))")


def test_every_block_storing_the_same_tile_is_a_race() -> None:
    # a uniform store: the same tile written by every block
    text = _kernel(f"""    %w, %t0 = load_view_tko weak %a_tiles[%zero] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %w, %c_tiles[%zero] token = %t0 : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text)
    assert blocks.engine == "error" and "races with tile block (0, 0, 0)" in blocks.text


# ---- spans: the grid run a box of tile blocks at a time -----------------------------------


@pytest.mark.parametrize("grid,limit,shapes", [
    ((4, 3, 2), 100, [(4, 3, 2)]),
    ((4, 3, 2), 12, [(4, 3, 1), (4, 3, 1)]),
    ((4, 3, 2), 9, [(4, 2, 1), (4, 1, 1)] * 2),
    ((4, 3, 2), 3, [(3, 1, 1), (1, 1, 1)] * 6),
    ((7, 1, 1), 3, [(3, 1, 1), (3, 1, 1), (1, 1, 1)]),
])
def test_spans_cut_the_grid_into_boxes_in_grid_order(grid, limit, shapes) -> None:
    from tileir.interp.batch import spans
    cut = spans(grid, limit)
    assert [s.shape for s in cut] == shapes
    blocks = np.concatenate([s.blocks() for s in cut])
    numbers = blocks[:, 0] + grid[0] * (blocks[:, 1] + grid[1] * blocks[:, 2])
    assert numbers.tolist() == list(range(grid[0] * grid[1] * grid[2]))
    assert [s.first for s in cut] == [int(numbers[sum(c.count for c in cut[:i])])
                                      for i in range(len(cut))]


@pytest.mark.parametrize("span_bytes", [1, 3 * 8 * 64])
def test_races_between_spans_are_reported(span_bytes: int, monkeypatch) -> None:
    # one block per span (or three): the blocks that race run in different spans
    launch_module = sys.modules["tileir.interp.launch"]    # (the package exports the function)
    monkeypatch.setattr(launch_module, "SPAN_BYTES", span_bytes)
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%zero] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text)
    assert blocks.engine == "error" and "races with tile block (0, 0, 0)" in blocks.text
    assert auto.text == blocks.text


@pytest.mark.parametrize("span_bytes", [1, 8 << 10])
def test_shipped_examples_in_small_spans_give_the_reference_bytes(span_bytes: int,
                                                                  monkeypatch) -> None:
    launch_module = sys.modules["tileir.interp.launch"]    # (the package exports the function)
    monkeypatch.setattr(launch_module, "SPAN_BYTES", span_bytes)   # (the reference has none)
    _examples_on_both_engines(4)


# ---- loads through windows return views of memory (small ones copies): writes copy views first ---


@pytest.mark.parametrize("copy_bytes", [0, 1 << 15], ids=["views", "copies"])
def test_a_loaded_tile_keeps_its_values_when_memory_under_it_is_written(copy_bytes: int, monkeypatch) -> None:
    # (loads of at most COPY_BYTES copy their tiles; 0 makes every load a view)
    from tileir.interp.batch import ops
    monkeypatch.setattr(ops, "COPY_BYTES", copy_bytes)
    # x is c's tile; c's tile is overwritten with x + 1; then x (and a reshape of it, and a
    # value carried through a loop) are stored to a: a must get c's old values
    text = _kernel(f"""    %x, %t = load_view_tko weak %c_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %r = reshape %x : tile<64xf32> -> tile<8x8xf32>
    %one = constant <f32: 1.0> : tile<64xf32>
    %x1 = addf %x, %one : tile<64xf32>
    %d = store_view_tko weak %x1, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %back = reshape %r : tile<8x8xf32> -> tile<64xf32>
    %s = addf %back, %x : tile<64xf32>
    %e = store_view_tko weak %s, %a_tiles[%block] token = %d : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    old = np.arange(512, dtype=np.float32)
    blocks, auto = _same_outcome(text, a=np.zeros(512, np.float32), c=old)
    assert auto.engine == "batched"
    assert (auto.a, auto.c) == ((old + old).tobytes(), (old + 1).tobytes())


@pytest.mark.parametrize("copy_bytes", [0, 1 << 15], ids=["views", "copies"])
def test_a_tile_loaded_before_a_loop_that_writes_under_it(copy_bytes: int, monkeypatch) -> None:
    # (loads of at most COPY_BYTES copy their tiles; 0 makes every load a view)
    from tileir.interp.batch import ops
    monkeypatch.setattr(ops, "COPY_BYTES", copy_bytes)
    # x is loaded once; each of 3 iterations adds 1 to c's tile in memory (load, add,
    # store, ordered) and accumulates x: the sum must be 3 x of the old values
    text = _kernel(f"""    %x, %t = load_view_tko weak %c_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %one = constant <f32: 1.0> : tile<64xf32>
    %init = constant <f32: 0.0> : tile<64xf32>
    %three = constant <i32: 3> : tile<i32>
    %step = constant <i32: 1> : tile<i32>
    %acc, %tok = for %i in (%zero to %three, step %step) : tile<i32> iter_values(%s = %init, %k = %t) -> (tile<64xf32>, token) {{
      %y, %u = load_view_tko weak %c_tiles[%block] token = %k : {VIEW}, tile<i32> -> tile<64xf32>, token
      %y1 = addf %y, %one : tile<64xf32>
      %w = store_view_tko weak %y1, %c_tiles[%block] token = %u : tile<64xf32>, {VIEW}, tile<i32> -> token
      %next = addf %s, %x : tile<64xf32>
      continue %next, %w : tile<64xf32>, token
    }}
    %e = store_view_tko weak %acc, %a_tiles[%block] token = %tok : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    old = np.arange(512, dtype=np.float32)
    blocks, auto = _same_outcome(text, a=np.zeros(512, np.float32), c=old)
    assert auto.engine == "batched"
    assert (auto.a, auto.c) == ((old + old + old).tobytes(), (old + 3).tobytes())


def test_a_failure_of_the_batched_engine_reruns_and_says_so(monkeypatch) -> None:
    from tileir.interp.batch import ops

    def broken(step, *operands):
        raise ValueError("planted")
    monkeypatch.setitem(ops.BATCHED, "get_tile_block_id", broken)
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(512, np.float32)
    run = launch(text, None, 8, [a, c, 512])
    assert run.engine == "blocks"
    assert run.reason == ("the batched engine failed ('cuda_tile.get_tile_block_id' op internal "
                          "error: ValueError: planted); rerun one tile block at a time")
    assert c.tobytes() == a.tobytes()


def test_a_reversed_tile_order_is_a_window_with_a_negative_block_stride(monkeypatch) -> None:
    # block b copies tile 7 - b of a into tile b of c: a box with a negative block stride,
    # decided by geometry (checks on), the reference's bytes
    from tileir.interp.batch import ops
    _no_keys(monkeypatch)
    boxes = []
    original = ops.window
    monkeypatch.setattr(ops, "window", lambda *args: boxes.append(original(*args)) or
                        boxes[-1])
    text = _kernel(f"""    %seven = constant <i32: 7> : tile<i32>
    %mirror = subi %seven, %block : tile<i32>
    %x, %t = load_view_tko weak %a_tiles[%mirror] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(512, np.float32)
    assert launch(text, None, 8, [a, c, 512], engine="batched").engine == "batched"
    assert c.tobytes() == a.reshape(8, 64)[::-1].reshape(-1).tobytes()
    # every span's load and store went through a window: -256 and 256 bytes per block
    assert boxes and all(found is not None for found in boxes)
    assert sorted({found[1].strides[2] for found in boxes}) == [-256, 256]


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_spans_on_threads_give_the_reference_bytes_and_diagnostics(workers: int,
                                                                   monkeypatch) -> None:
    # one block per span, on several threads: the result, and a race's diagnostic (the
    # failing span stops the others; the rerun reports it), are the reference engine's
    launch_module = sys.modules["tileir.interp.launch"]
    monkeypatch.setattr(launch_module, "SPAN_BYTES", 1)
    good = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %y = addf %x, %x : tile<64xf32>
    %d = store_view_tko weak %y, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(512, np.float32)
    assert launch(good, None, 8, [a, c, 512], workers=workers).engine == "batched"
    assert c.tobytes() == (a + a).tobytes()
    bad = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %e = store_view_tko weak %x, %c_tiles[%zero] token = %d : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(bad, c=np.full(512, 7.0, np.float32), workers=workers)
    assert blocks.engine == "error" and "races with tile block (0, 0, 0)" in blocks.text


# ---- checks off: blocks that meet hand the kernel to the reference ------------------------

_NEIGHBOUR = """cuda_tile.module @m {
  entry @k(%y: tile<ptr<f32>>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %nx = addi %bx, %c1 : tile<i32>
    %w = remi %nx, %c3 signed : tile<i32>
    %yv = make_tensor_view %y, shape = [48], strides = [1] : tensor_view<48xf32, strides=[1]>
    %yp = make_partition_view %yv : partition_view<tile=(16), tensor_view<48xf32, strides=[1]>>
    %x, %xt = load_view_tko weak %yp[%w] token = %t0 : partition_view<tile=(16), tensor_view<48xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %d = addf %x, %x : tile<16xf32>
    %s = store_view_tko weak %d, %yp[%bx] token = %xt : tile<16xf32>, partition_view<tile=(16), tensor_view<48xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}"""


@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_blocks_meeting_with_checks_off_run_in_the_schedules_order(schedule):
    """Block b doubles tile b + 1 (mod 3) into tile b: with checks off the result depends
    on the order of blocks.  The batched engine, which runs every block's load before any
    store, sees the blocks meet and hands the kernel to the reference engine, so the bytes
    are the schedule's (sequential: tile 2 doubles the new tile 0)."""
    outs = {}
    for engine in ("blocks", "batched"):
        y = np.arange(48, dtype=np.float32)
        run = launch(_NEIGHBOUR, None, 3, [y], engine=engine, checks=False, schedule=schedule)
        outs[engine] = run, y
    assert outs["batched"][1].tobytes() == outs["blocks"][1].tobytes()
    run = outs["batched"][0]
    assert run.engine == "blocks" and "with checks off their order decides" in run.reason
    expected = {"sequential": [32.0, 64.0, 64.0], "reverse": [0.0, 0.0, 0.0]}[schedule]
    assert outs["blocks"][1][::16].tolist() == expected
