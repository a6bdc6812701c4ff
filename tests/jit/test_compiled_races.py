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


def assert_race_declined(text: str, why: str, grid: int = 4, flag: bool = True) -> None:
    """The reference reports a race; the compiled launch declines (saying `why`) and
    reports the same race, leaving y as it was."""
    ref_run, ref = outcome(text, grid, "blocks", flag)
    assert isinstance(ref_run, str) and "races with" in ref_run, ref_run
    assert outcome(text, grid, "compiled", flag) == (ref_run, np.arange(64, dtype=np.float32)
                                                      .tobytes())
    y = np.arange(64, dtype=np.float32)
    run = tileir.launch(text, None, grid, [y, 64, flag], engine="compiled", checks=False)
    assert run.engine == "compiled"           # (checks off, sequential: nothing to prove)
    with pytest.raises(tileir.ExecutionError, match="races with"):
        tileir.launch(text, None, grid, [y, 64, flag], engine="compiled")
    assert_declined(_declined_run(text, grid, flag), why)


def _declined_run(text: str, grid: int, flag: bool):
    """The Run of a compiled launch that declined with checks off and the reverse
    schedule (where the proof is needed, and nothing is reported)."""
    y = np.arange(64, dtype=np.float32)
    return tileir.launch(text, None, grid, [y, 64, flag], engine="compiled", checks=False,
                         schedule="reverse")


def test_a_store_ordered_after_the_load_of_its_tile_runs_compiled():
    """y[tile bx] = 2 * y[tile bx], the store's token the load's: cuTile's in-place
    update (axpy_i64 in the corpus)."""
    assert_compiled_alike(rmw(load("x", "bx", "t0") + DOUBLE + store("s", "d", "bx", "x_t")))


def test_a_store_ordered_through_join_tokens_runs_compiled():
    body = load("x", "bx", "t0") + DOUBLE + \
        "    %j = join_tokens %t0, %x_t : token\n" + store("s", "d", "bx", "j")
    assert_compiled_alike(rmw(body))


def test_an_unordered_store_of_the_loaded_tile_is_the_references_race():
    assert_race_declined(rmw(load("x", "bx", "t0") + DOUBLE + store("s", "d", "bx", "t0")),
                         "no token chain orders")


def test_stores_to_different_constant_tiles_need_no_order():
    """One block loading tile 0 and storing tiles 1 .. 3 of one view, all on the fresh
    token (as int_bits does)."""
    body = load("x", "c0", "t0") + DOUBLE + \
        "".join(store(f"s{k}", "d", f"c{k}", "t0") for k in (1, 2, 3))
    assert_compiled_alike(rmw(body), grid=1)


def test_two_unordered_stores_to_one_constant_tile_are_the_references_race():
    body = load("x", "c0", "t0") + DOUBLE + store("s1", "d", "c1", "t0") + \
        store("s2", "x", "c1", "t0")
    assert_race_declined(rmw(body), "no token chain orders", grid=1)


def test_a_neighbours_tile_is_the_references_race_between_blocks():
    """Block bx stores its tile after loading tile bx + 1 (ordered within the block):
    block bx + 1 stores what block bx read."""
    body = "    %nx = addi %bx, %c1 : tile<i32>\n" + \
        "    %w = remi %nx, %c3 signed : tile<i32>\n" + load("x", "w", "t0") + DOUBLE + \
        store("s", "d", "bx", "x_t")
    assert_race_declined(rmw(body, grid=3), "another tile block may reach", grid=3)


def test_a_token_carried_through_a_for_loop_keeps_its_order():
    body = load("x", "bx", "t0") + f"""    %r = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%tk = %x_t) -> (token) {{
      continue %tk : token
    }}
""" + DOUBLE + store("s", "d", "bx", "r")
    assert_compiled_alike(rmw(body))


def test_a_loop_that_swaps_in_a_fresh_token_loses_the_order():
    """The loop yields a fresh token: after an iteration the store is no longer ordered
    after the load (the reference reports it), so the proof must not claim it."""
    body = load("x", "bx", "t0") + f"""    %r = for %i in (%c0 to %c3, step %c1) : tile<i32> iter_values(%tk = %x_t) -> (token) {{
      %fresh = make_token : token
      continue %fresh : token
    }}
""" + DOUBLE + store("s", "d", "bx", "r")
    assert_race_declined(rmw(body), "no token chain orders")


@pytest.mark.parametrize("fresh_branch", [True, False])
def test_an_if_orders_only_what_both_regions_yield(fresh_branch):
    """One region yields the load's token, the other a fresh one (taken when %f is
    `fresh_branch`... reversed): the proof meets the two and declines, whichever runs."""
    body = load("x", "bx", "t0") + f"""    %r = if %f -> (token) {{
      %fresh = make_token : token
      yield %fresh : token
    }} else {{
      yield %x_t : token
    }}
""" + DOUBLE + store("s", "d", "bx", "r")
    text = rmw(body)
    if fresh_branch:
        assert_race_declined(text, "no token chain orders", flag=True)
    else:       # (the reference takes the ordered region: no race; the proof declines)
        ref_run, ref = outcome(text, 4, "blocks", False)
        run, got = outcome(text, 4, "compiled", False)
        assert got == ref and run.engine in ("batched", "blocks")
        assert_declined(run, "no token chain orders")


def test_an_if_yielding_the_load_token_on_both_sides_keeps_the_order():
    body = load("x", "bx", "t0") + f"""    %r = if %f -> (token) {{
      yield %x_t : token
    }} else {{
      %j = join_tokens %x_t, %t0 : token
      yield %j : token
    }}
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
