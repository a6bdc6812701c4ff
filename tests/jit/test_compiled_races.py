"""The race proof (`tileir.interp.compiled.races`) on kernels that load and store one
buffer: what a token chain orders, or different constant tile indices keep apart, runs
compiled with the reference's bytes; what the reference reports as a race, the compiled
engine declines, and the launch reports the reference's race."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from tileir.interp.compiled.tokens import token_order  # noqa: E402
from jit_checks import assert_declined  # noqa: E402

VIEW = "partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>"
TILE = "tile<16xf32>"


def rmw(body: str, grid: int = 4) -> str:
    """A kernel over y (n elements): %bx is the block id, %yp y's partition view, %t0 a
    fresh token, %c0 .. %c3 the i32 constants; `body` loads and stores."""
    return f"""cuda_tile.module @m {{
  entry @k(%y: tile<ptr<f32>>, %n: tile<i32>, %f: tile<i1>) {{
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %yv = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %yp = make_partition_view %yv : {VIEW}
{body}
    return
  }}
}}"""


def load(name: str, index: str, token: str) -> str:
    return (f"    %{name}, %{name}_t = load_view_tko weak %yp[%{index}] token = %{token} : "
            f"{VIEW}, tile<i32> -> {TILE}, token\n")


def store(name: str, value: str, index: str, token: str) -> str:
    return (f"    %{name} = store_view_tko weak %{value}, %yp[%{index}] token = %{token} : "
            f"{TILE}, {VIEW}, tile<i32> -> token\n")


DOUBLE = "    %d = addf %x, %x : tile<16xf32>\n"


def outcome(text: str, grid: int, engine: str, flag: bool = True) -> tuple:
    """(the Run or the error's first line, y's bytes) of one launch on 64 elements."""
    y = np.arange(64, dtype=np.float32)
    try:
        run = tileir.launch(text, None, grid, [y, 64, flag], engine=engine)
    except tileir.ExecutionError as error:
        run = str(error).splitlines()[0]
    return run, y.tobytes()


def assert_compiled_alike(text: str, grid: int = 4, flag: bool = True) -> None:
    ref_run, ref = outcome(text, grid, "blocks", flag)
    run, got = outcome(text, grid, "compiled", flag)
    assert not isinstance(ref_run, str), ref_run
    assert not isinstance(run, str) and run.engine == "compiled", run
    assert got == ref


def assert_race_reported(text: str, between: bool, grid: int = 4, flag: bool = True
                         ) -> None:
    """The reference reports a race, and so does the compiled launch (the proof fails; the
    index log shows the meeting, memory is put back, the reference reruns), leaving y as
    it was.  With checks off and the reverse schedule a meeting within a block is no
    matter (it runs compiled); one `between` blocks makes their order matter (it hands
    on, saying so).  Either way y ends as the reference leaves it."""
    ref_run, ref = outcome(text, grid, "blocks", flag)
    assert isinstance(ref_run, str) and "races with" in ref_run, ref_run
    untouched = np.arange(64, dtype=np.float32).tobytes()
    assert outcome(text, grid, "compiled", flag) == (ref_run, untouched)
    runs = {}
    for engine in ("blocks", "compiled"):
        y = np.arange(64, dtype=np.float32)
        runs[engine] = tileir.launch(text, None, grid, [y, 64, flag], engine=engine,
                                     checks=False, schedule="reverse"), y.tobytes()
    assert runs["compiled"][1] == runs["blocks"][1]
    if between:
        assert_declined(runs["compiled"][0], "the access logs show tile blocks")
    else:
        assert runs["compiled"][0].engine == "compiled"


def test_a_store_ordered_after_the_load_of_its_tile_runs_compiled():
    """y[tile bx] = 2 * y[tile bx], the store's token the load's: cuTile's in-place
    update (axpy_i64 in the corpus)."""
    assert_compiled_alike(rmw(load("x", "bx", "t0") + DOUBLE + store("s", "d", "bx", "x_t")))


def test_a_store_ordered_through_join_tokens_runs_compiled():
    body = load("x", "bx", "t0") + DOUBLE + \
        "    %j = join_tokens %t0, %x_t : token\n" + store("s", "d", "bx", "j")
    assert_compiled_alike(rmw(body))


def test_an_unordered_store_of_the_loaded_tile_is_the_references_race():
    assert_race_reported(rmw(load("x", "bx", "t0") + DOUBLE + store("s", "d", "bx", "t0")),
                         between=False)


def test_stores_to_different_constant_tiles_need_no_order():
    """One block loading tile 0 and storing tiles 1 .. 3 of one view, all on the fresh
    token (as int_bits does)."""
    body = load("x", "c0", "t0") + DOUBLE + \
        "".join(store(f"s{k}", "d", f"c{k}", "t0") for k in (1, 2, 3))
    assert_compiled_alike(rmw(body), grid=1)


def test_two_unordered_stores_to_one_constant_tile_are_the_references_race():
    body = load("x", "c0", "t0") + DOUBLE + store("s1", "d", "c1", "t0") + \
        store("s2", "x", "c1", "t0")
    assert_race_reported(rmw(body), between=False, grid=1)


def test_a_neighbours_tile_is_the_references_race_between_blocks():
    """Block bx stores its tile after loading tile bx + 1 (ordered within the block):
    block bx + 1 stores what block bx read."""
    body = "    %nx = addi %bx, %c1 : tile<i32>\n" + \
        "    %w = remi %nx, %c3 signed : tile<i32>\n" + load("x", "w", "t0") + DOUBLE + \
        store("s", "d", "bx", "x_t")
    assert_race_reported(rmw(body, grid=3), between=True, grid=3)


def test_a_token_carried_through_a_for_loop_keeps_its_order():
    body = load("x", "bx", "t0") + """    %r = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%tk = %x_t) -> (token) {
      continue %tk : token
    }
""" + DOUBLE + store("s", "d", "bx", "r")
    assert_compiled_alike(rmw(body))


def test_a_loop_that_swaps_in_a_fresh_token_loses_the_order():
    """The loop yields a fresh token: after an iteration the store is no longer ordered
    after the load (the reference reports it), so the proof must not claim it."""
    body = load("x", "bx", "t0") + """    %r = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%tk = %x_t) -> (token) {
      %fresh = make_token : token
      continue %fresh : token
    }
""" + DOUBLE + store("s", "d", "bx", "r")
    assert_race_reported(rmw(body), between=False)


@pytest.mark.parametrize("fresh_branch", [True, False])
def test_an_if_orders_only_what_both_regions_yield(fresh_branch):
    """One region yields a fresh token (taken when %f holds), the other the load's: the
    proof meets the two and fails; the index log shows the store meeting the load, and
    the reference reruns, whichever region ran (reporting the race after the fresh
    one)."""
    body = load("x", "bx", "t0") + """    %r = if %f -> (token) {
      %fresh = make_token : token
      yield %fresh : token
    } else {
      yield %x_t : token
    }
""" + DOUBLE + store("s", "d", "bx", "r")
    text = rmw(body)
    if fresh_branch:
        assert_race_reported(text, between=False, flag=True)
    else:       # (the reference takes the ordered region: no race)
        ref_run, ref = outcome(text, 4, "blocks", False)
        run, got = outcome(text, 4, "compiled", False)
        assert got == ref
        assert_declined(run, "the access logs show tile blocks, or unordered ops of one")


def test_an_if_yielding_the_load_token_on_both_sides_keeps_the_order():
    body = load("x", "bx", "t0") + """    %r = if %f -> (token) {
      yield %x_t : token
    } else {
      %j = join_tokens %x_t, %t0 : token
      yield %j : token
    }
""" + DOUBLE + store("s", "d", "bx", "r")
    assert_compiled_alike(rmw(body), flag=True)
    assert_compiled_alike(rmw(body), flag=False)


def test_token_order_names_the_ops_a_chain_orders():
    """The analysis itself: the store after the loop is ordered after the load before
    it (carried token), not after the load inside the loop (it runs many times)."""
    body = load("x", "bx", "t0") + f"""    %r = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%tk = %x_t) -> (token) {{
      %z, %z_t = load_view_tko weak %yp[%bx] token = %tk : {VIEW}, tile<i32> -> {TILE}, token
      continue %z_t : token
    }}
""" + DOUBLE + store("s", "d", "bx", "r")
    module = tileir.parse(rmw(body))
    kernel = next(op for op in module.walk() if op.name.endswith("entry"))
    order = token_order(kernel)
    names = {op: op.name.split(".")[-1] + ("@loop" if op.parent_op is not kernel else "")
             for op in kernel.walk()}
    store_op = next(op for op in order if names[op] == "store_view_tko")
    inner = next(op for op in order if names[op] == "load_view_tko@loop")
    assert sorted(names[op] for op in order[store_op]) == ["load_view_tko"]
    assert sorted(names[op] for op in order[inner]) == ["load_view_tko"]


def test_an_affine_tile_index_is_cleared_by_the_index_log():
    """Block bx stores tiles bx and 2 + bx (as math_ops does, k * blocks + bx): no proof
    covers it, the index log shows every tile stored once, and it runs compiled."""
    body = load("x", "bx", "t0") + DOUBLE + "    %up = addi %bx, %c2 : tile<i32>\n" + \
        store("s", "d", "bx", "x_t") + store("u", "x", "up", "t0")
    assert_compiled_alike(rmw(body, grid=2), grid=2)


def test_a_buffer_stored_through_two_views_declines():
    """Two views of y with different tiles: their indices cannot be compared, so there is
    no index log to clear what the proof does not (block 1 reads block 0's tile: the
    reference's race; checks off and reversed, the order decides)."""
    body = load("x", "bx", "t0") + DOUBLE + store("s", "d", "bx", "x_t") + \
        "    %yq = make_partition_view %yv : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>\n" \
        "    %z, %z_t = load_view_tko weak %yq[%c0] token = %s : partition_view<tile=(32), " \
        "tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token\n"
    ref_run, ref = outcome(rmw(body, grid=2), 2, "blocks")
    run, got = outcome(rmw(body, grid=2), 2, "compiled")
    assert isinstance(ref_run, str) and "races with" in ref_run   # (block 1 reads tile 0)
    assert (run, got) == (ref_run, np.arange(64, dtype=np.float32).tobytes())
    ends = {}
    for engine in ("blocks", "compiled"):
        y = np.arange(64, dtype=np.float32)
        ends[engine] = tileir.launch(rmw(body, grid=2), None, 2, [y, 64, True],
                                     engine=engine, checks=False, schedule="reverse"), \
            y.tobytes()
    assert ends["compiled"][1] == ends["blocks"][1]
    assert_declined(ends["compiled"][0], "another tile block may reach the same elements")
