# ruff: noqa: E501 (Tile IR text lines in these tests are long by nature)
"""The batched engine: which kernels it runs, the same bytes as the reference engine, and
undefined behaviour reported exactly as the reference reports it (planted bugs)."""

from __future__ import annotations

import numpy as np
import pytest

from tileir import ExecutionError
from tileir.cli.examples import kernel_text
from tileir.interp import launch

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


def _run(text: str, engine: str, blocks: int = 8, schedule: str = "sequential"):
    a = np.arange(64 * blocks, dtype=np.float32)
    c = np.zeros(64 * blocks, np.float32)
    try:
        run = launch(text, None, blocks, [a, c, 64 * blocks], engine=engine, schedule=schedule,
                     seed=1)
    except ExecutionError as exc:
        return "error", str(exc), c
    return run.engine, run.reason, c


def _same_outcome(text: str, schedule: str = "sequential") -> tuple:
    """Both engines' outcomes: the same error text, or the same output bytes."""
    blocks = _run(text, "blocks", schedule=schedule)
    auto = _run(text, "auto", schedule=schedule)
    if blocks[0] == "error":
        assert auto[:2] == blocks[:2]
    assert auto[2].tobytes() == blocks[2].tobytes()
    return blocks, auto


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
    assert blocks[0] == "error" and "races with tile block" in blocks[1]
    assert auto[1] == blocks[1]      # the exact diagnostic, from the rerun


def test_an_unordered_store_then_load_in_one_block_is_a_race() -> None:
    # a block stores its tile, then loads it back with a token that does not order the two
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %y, %u = load_view_tko weak %c_tiles[%block] token = %t : {VIEW}, tile<i32> -> tile<64xf32>, token""")
    blocks, auto = _same_outcome(text)
    assert blocks[0] == "error" and "races with 'cuda_tile.store_view_tko'" in blocks[1]


def test_a_token_chain_orders_them_and_the_kernel_runs_batched() -> None:
    text = _kernel(f"""    %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    %y, %u = load_view_tko weak %c_tiles[%block] token = %d : {VIEW}, tile<i32> -> tile<64xf32>, token""")
    blocks, auto = _same_outcome(text)
    assert auto[0] == "batched" and blocks[0] == "blocks"
    assert auto[2].tobytes() == np.arange(512, dtype=np.float32).tobytes()


def test_an_index_outside_the_index_space_is_reported_as_the_reference_does() -> None:
    # block b loads tile b + 1: the last block's tile is outside the index space
    text = _kernel(f"""    %one = constant <i32: 1> : tile<i32>
    %next = addi %block, %one : tile<i32>
    %x, %t = load_view_tko weak %a_tiles[%next] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
    %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token""")
    blocks, auto = _same_outcome(text, "reverse")
    assert blocks[0] == "error" and "outside the index space" in blocks[1]


def test_a_divergent_if_falls_back_to_one_block_at_a_time() -> None:
    text = _kernel(f"""    %is_zero = cmpi equal %block, %zero, signed : tile<i32> -> tile<i1>
    if %is_zero {{
      %x, %t = load_view_tko weak %a_tiles[%block] token = %token : {VIEW}, tile<i32> -> tile<64xf32>, token
      %d = store_view_tko weak %x, %c_tiles[%block] token = %t : tile<64xf32>, {VIEW}, tile<i32> -> token
    }}""")
    blocks, auto = _same_outcome(text)
    assert auto[0] == "blocks" and auto[1] == "an 'if' condition differs between tile blocks"
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
    assert auto[0] == "batched"
    expected = 1 + 3 * np.arange(512, dtype=np.float32)
    assert auto[2].tobytes() == expected.tobytes()


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
def test_shipped_examples_give_the_same_bytes_on_both_engines(schedule: str) -> None:
    """The README's example kernels: each engine's output passes its check, and the two
    outputs are byte for byte the same (the reference engine stays tested without the
    optional cuTile corpus)."""
    from tileir.cli.examples import KERNELS
    for example in KERNELS:
        results = []
        for engine in ("blocks", "batched"):
            grid, args, check = example.setup(np.random.default_rng(9))
            run = launch(kernel_text(example.file), None, grid, args, engine=engine,
                         schedule=schedule, seed=2)
            assert run.engine == engine
            assert check()[0], f"{example.file} on the {engine} engine"
            results.append([a.tobytes() for a in args if isinstance(a, np.ndarray)])
        assert results[0] == results[1], example.file
