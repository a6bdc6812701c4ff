"""Atomic reductions through partition views (``atomic_red_view_tko``) on the compiled
engine against the reference (engine="blocks"), byte for byte: every compiled mode and
type, partial tiles at the tensor's edge, several blocks reducing into one tile under each
schedule (compiled, or handed on with the reason), races within a block, checks on and
off, NaN sums, and accesses outside the index space or the buffer."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_declined, assert_engine, assert_runs_alike  # noqa: E402

#: Block b loads tile b of x (16 elements, padded past n) and reduces it into tile
#: b % k of out (extent m); BODY may add ops (after the reduction %t2).
_KERNEL = """
cuda_tile.module @m {
  entry @k(%x: tile<ptr<ELT>>, %out: tile<ptr<ELT>>, %n: tile<i32>, %m: tile<i32>, %k: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %xv = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xELT, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>
    %v, %t1 = load_view_tko weak %xp[%bx] token = %t0 : partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> tile<16xELT>, token
    %ov = make_tensor_view %out, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xELT, strides=[1]>
    %op = make_partition_view %ov : partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>
    %i = remi %bx, %k unsigned : tile<i32>
    %t2 = atomic_red_view_tko relaxed device %op[%i], MODE, %v token = %t0 : tile<16xELT>, partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> token
    BODY
    return
  }
}
"""
#: A weak load of out's tile, not ordered after the reduction (a race with checks on).
_LOAD_UNORDERED = """
    %w, %t3 = load_view_tko weak %op[%i] token = %t0 : partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> tile<16xELT>, token
    %t4 = store_view_tko weak %w, %xp[%bx] token = %t1 : tile<16xELT>, partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> token
"""
#: The same load, ordered after the reduction by its token.
_LOAD_ORDERED = _LOAD_UNORDERED.replace("token = %t0", "token = %t2")
#: A second reduction (max) into the same tile, unordered: two atomics never race.
_SECOND_ATOMIC = """
    %t5 = atomic_red_view_tko relaxed device %op[%i], max, %v token = %t0 : tile<16xELT>, partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> token
"""

#: The reduction again, three times in a ``for`` loop (two atomics never race, so with
#: checks on it still runs compiled).
_IN_A_LOOP = """
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    for %j in (%c0 to %c3, step %c1) : tile<i32> {
      %t6 = atomic_red_view_tko relaxed device %op[%i], MODE, %v token = %t0 : tile<16xELT>, partition_view<tile=(16), tensor_view<?xELT, strides=[1]>>, tile<i32> -> token
      continue
    }
"""

_DTYPES = {"i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}
_INT_MODES = ("add", "and", "or", "xor", "max", "min", "umax", "umin")


def _inputs(t: str, n: int, m: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """x (n elements) and out (m elements): integers of every sign and size, floats of
    widely different magnitudes (so a sum's bits depend on its order)."""
    rng = np.random.default_rng(seed)
    dtype = _DTYPES[t]
    if t.startswith("i"):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        out = rng.integers(info.min, info.max, m, dtype=dtype, endpoint=True)
    else:
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dtype)
        out = (rng.standard_normal(m) * 10.0 ** rng.integers(-6, 7, m)).astype(dtype)
    return x, out


def _outcome(t: str, mode: str, engine: str, *, n: int = 70, m: int = 20, k: int = 2,
             grid: int = 5, body: str = "", x: np.ndarray | None = None,
             out: np.ndarray | None = None, **options) -> tuple:
    """(engine or "error", reason or the error's first line, the bytes of x and out)."""
    fresh_x, fresh_out = _inputs(t, n, m)
    x = fresh_x if x is None else x.copy()
    out = fresh_out if out is None else out.copy()
    text = _KERNEL.replace("BODY", body).replace("MODE", mode).replace("ELT", t)
    try:
        run = tileir.launch(text, None, grid, [x, out, n, m, k], engine=engine, **options)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, x.tobytes(), out.tobytes())


def _alike(t: str, mode: str, expect_compiled: bool, **kwargs) -> tuple:
    """The compiled launch against the reference's; the compiled outcome."""
    compiled = _outcome(t, mode, "compiled", **kwargs)
    assert_runs_alike(_outcome(t, mode, "blocks", **kwargs), compiled, expect_compiled)
    return compiled


@pytest.mark.parametrize("t, mode", [*((t, m) for t in ("i32", "i64") for m in _INT_MODES),
                                     ("f32", "addf"), ("f64", "addf")])
def test_each_mode_and_type_runs_compiled(t, mode):
    """Five blocks reduce into two tiles of out (the second partial: 4 of 16 elements);
    x's last tile is partial too (padded with 0)."""
    _alike(t, mode, True)


@pytest.mark.parametrize("checks", [True, False])
def test_many_blocks_into_one_tile_sum_in_grid_order(checks):
    """Thirty blocks add into one tile: the float sum's bits are those of grid order."""
    _alike("f32", "addf", True, n=480, grid=30, k=1, checks=checks)
    _alike("f64", "addf", True, n=480, grid=30, k=1, checks=checks)


def test_a_tile_past_the_tensor_edge_touches_only_its_elements():
    """out holds 36 elements but the view's extent is 20: the reduction into tile 1 stops
    at element 19, whatever lies beyond."""
    x, out = _inputs("i32", 70, 36)
    compiled = _alike("i32", "add", True, out=out, m=20, x=x)
    assert compiled[3][20 * 4:] == out[20:].tobytes()


@pytest.mark.parametrize("schedule", ["reverse", "random"])
@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("t, mode", [("i32", "add"), ("i64", "xor"), ("i32", "umin"),
                                     ("i64", "max")])
def test_commuting_integer_reductions_run_compiled_under_any_schedule(t, mode, checks,
                                                                      schedule):
    """Integer modes that commute leave one memory in every order of blocks."""
    _alike(t, mode, True, grid=8, n=128, k=1, checks=checks, schedule=schedule, seed=3)


@pytest.mark.parametrize("checks", [True, False])
def test_a_float_sum_of_blocks_meeting_under_another_schedule_is_handed_on(checks):
    """A float sum's bits depend on the order of blocks: blocks meeting on one tile under
    the reverse schedule rerun on the reference engine, in that order."""
    compiled = _alike("f32", "addf", False, grid=8, n=128, k=1, checks=checks,
                      schedule="reverse")
    assert "access logs" in compiled[1]


def test_a_float_sum_of_blocks_apart_runs_compiled_under_another_schedule():
    """Each block reducing into a tile of its own: the index log shows no meeting."""
    _alike("f32", "addf", True, grid=4, n=64, m=64, k=4, schedule="reverse")


def test_two_modes_on_one_buffer_under_another_schedule_are_handed_on():
    """add and max into one tile do not commute with each other."""
    compiled = _alike("i32", "add", False, body=_SECOND_ATOMIC, grid=4, n=64, k=1,
                      schedule="random", seed=1)
    assert "access logs" in compiled[1]


@pytest.mark.parametrize("checks", [True, False])
def test_two_atomics_on_one_tile_do_not_race(checks):
    """Two reductions of one block into one tile, no token ordering them: no race."""
    _alike("i32", "add", True, body=_SECOND_ATOMIC, checks=checks)


@pytest.mark.parametrize("checks", [True, False])
def test_reductions_in_a_loop_run_compiled(checks):
    """Each block reduces its tile four times, three of them in a ``for`` loop."""
    _alike("i64", "add", True, body=_IN_A_LOOP, checks=checks)
    _alike("f32", "addf", True, body=_IN_A_LOOP, checks=checks)


def test_an_unordered_load_of_the_reduced_tile_races():
    """A weak load of the tile the block reduces into, not ordered after it: with checks
    on the reference reports the race (the compiled run hands it over)."""
    blocks = _outcome("i32", "add", "blocks", body=_LOAD_UNORDERED)
    assert blocks[0] == "error" and "races with" in blocks[1]
    _alike("i32", "add", False, body=_LOAD_UNORDERED)


def test_an_ordered_load_of_the_reduced_tile_runs_compiled():
    """The same load ordered after the reduction by its token: no race, and it reads the
    tile as the blocks before it left it (grid order)."""
    _alike("i32", "add", True, body=_LOAD_ORDERED, grid=4, n=64, k=1)
    _alike("i32", "add", True, body=_LOAD_UNORDERED, grid=4, n=64, k=1, checks=False)


def test_a_nan_sum_is_the_reference_s():
    """inf + -inf: the compiled run stops and the reference gives the NaN's bits."""
    x = np.zeros(70, np.float32)
    x[3], x[16 + 3] = np.inf, -np.inf
    compiled = _outcome("f32", "addf", "compiled", x=x, k=1)
    assert_engine(SimpleRun(*compiled[:2]), "blocks")
    assert compiled == (*compiled[:2], *_outcome("f32", "addf", "blocks", x=x, k=1)[2:])


@pytest.mark.parametrize("checks", [True, False])
def test_an_index_outside_the_index_space_is_the_reference_s(checks):
    """Block 2 reduces into tile 2 of a 2-tile view: undefined (checks on: the
    reference's error; off: its result); blocks 0 and 1 leave nothing behind."""
    _alike("i32", "add", False, k=5, checks=checks)


@pytest.mark.parametrize("checks", [True, False])
def test_a_view_past_its_buffer_is_the_reference_s(checks):
    """The view's extent (40) reaches past out's 20 elements: the corner check stops the
    run, memory is put back, and the reference reports (or computes)."""
    x, out = _inputs("f32", 70, 20)
    compiled = _outcome("f32", "addf", "compiled", x=x, out=out, m=40, k=3, checks=checks)
    reference = _outcome("f32", "addf", "blocks", x=x, out=out, m=40, k=3, checks=checks)
    if checks:
        assert reference[0] == "error" and compiled[:2] == reference[:2]
    else:
        assert_engine(SimpleRun(*compiled[:2]), "blocks")
    assert compiled[2:] == reference[2:]


#: Rank 2: block (bx, by, bz) adds tile [bz, 0] (8x16) of x (24x16) into tile [bx, by]
#: of out (r x c, row stride s): the tiles at the bottom and right edges are partial,
#: and the bz blocks meet on each tile.
_KERNEL_2D = """
cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %out: tile<ptr<f32>>, %r: tile<i32>, %c: tile<i32>, %s: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %xv = make_tensor_view %x, shape = [24, 16], strides = [16, 1] : tensor_view<24x16xf32, strides=[16,1]>
    %xp = make_partition_view %xv : partition_view<tile=(8x16), tensor_view<24x16xf32, strides=[16,1]>>
    %v, %t1 = load_view_tko weak %xp[%bz, %c0] token = %t0 : partition_view<tile=(8x16), tensor_view<24x16xf32, strides=[16,1]>>, tile<i32> -> tile<8x16xf32>, token
    %ov = make_tensor_view %out, shape = [%r, %c], strides = [%s, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %op = make_partition_view %ov : partition_view<tile=(8x16), tensor_view<?x?xf32, strides=[?,1]>>
    %t2 = atomic_red_view_tko relaxed device %op[%bx, %by], addf, %v token = %t0 : tile<8x16xf32>, partition_view<tile=(8x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


def _outcome_2d(engine: str, r: int, c: int, s: int, **options) -> tuple:
    """(engine or "error", reason or the error's first line, the bytes of x and out)."""
    x, _ = _inputs("f32", 24 * 16, 0)
    _, out = _inputs("f32", 0, (r - 1) * s + c, seed=6)
    try:
        run = tileir.launch(_KERNEL_2D, None, (2, 2, 3), [x, out, r, c, s], engine=engine,
                            **options)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, x.tobytes(), out.tobytes())


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("s", [20, 23])
def test_rank_2_partial_tiles_at_both_edges(s, checks):
    """A 12x20 tensor in 8x16 tiles (row stride 20, or 23 with gaps left untouched)."""
    assert_runs_alike(_outcome_2d("blocks", 12, 20, s, checks=checks),
                      _outcome_2d("compiled", 12, 20, s, checks=checks), True)


def test_rank_2_overlapping_rows_are_the_reference_s():
    """Row stride 4 under 20 columns: rows overlap, so distinct coordinates reach one
    element: the compiled run stops and the reference gives the result."""
    compiled = _outcome_2d("compiled", 12, 20, 4, checks=False)
    assert_engine(SimpleRun(*compiled[:2]), "blocks")
    assert compiled[2:] == _outcome_2d("blocks", 12, 20, 4, checks=False)[2:]


def test_f16_sums_decline():
    """f16 arithmetic is not compiled."""
    x = np.ones(70, np.float16)
    out = np.zeros(20, np.float16)
    text = _KERNEL.replace("BODY", "").replace("MODE", "addf").replace("ELT", "f16")
    run = tileir.launch(text, None, 5, [x, out, 70, 20, 2], engine="compiled")
    assert_declined(run, "addf on f16")


class SimpleRun:
    """An outcome's engine and reason, as `assert_engine` reads a `Run`."""

    def __init__(self, engine: str, reason: str | None) -> None:
        self.engine, self.reason = engine, reason


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("m", [32, 20])
def test_inbounds_holds_or_is_the_reference_s(m, checks):
    """``inbounds``: whole tiles run compiled; a partial one (m = 20) stops the run, and
    the reference reports it (checks on) or computes it."""
    text = _KERNEL.replace("BODY", "").replace("MODE", "add").replace("ELT", "i32").replace(
        "%v token = %t0 :", "%v token = %t0 inbounds = [true] :")
    outcomes = []
    for engine in ("blocks", "compiled"):
        x, out = _inputs("i32", 70, m)
        try:
            run = tileir.launch(text, None, 5, [x, out, 70, m, 2], engine=engine,
                                checks=checks)
            head = (run.engine, run.reason)
        except tileir.ExecutionError as exc:
            head = ("error", str(exc).splitlines()[0])
        outcomes.append((*head, x.tobytes(), out.tobytes()))
    assert_runs_alike(*outcomes, m == 32)
    if m == 20 and not checks:
        assert_engine(SimpleRun(*outcomes[1][:2]), "blocks")


_MIXED_WIDTHS = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<i32>>, %b: tile<ptr<i64>>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %isb0 = cmpi equal %bx, %c0, signed : tile<i32> -> tile<i1>
    %av = make_tensor_view %a, shape = [4], strides = [1] : tensor_view<4xi32, strides=[1]>
    %ap = make_partition_view %av : partition_view<tile=(2), tensor_view<4xi32, strides=[1]>>
    %bv = make_tensor_view %b, shape = [2], strides = [1] : tensor_view<2xi64, strides=[1]>
    %bp = make_partition_view %bv : partition_view<tile=(1), tensor_view<2xi64, strides=[1]>>
    %big = constant <i64: 4294967295> : tile<1xi64>
    %one = constant <i32: [1, 0]> : tile<2xi32>
    if %isb0 {
      %t1 = atomic_red_view_tko relaxed device %bp[%c0], MODE, %big token = %t0 : tile<1xi64>, partition_view<tile=(1), tensor_view<2xi64, strides=[1]>>, tile<i32> -> token
      yield
    } else {
      %t2 = atomic_red_view_tko relaxed device %ap[%c0], MODE, %one token = %t0 : tile<2xi32>, partition_view<tile=(2), tensor_view<4xi32, strides=[1]>>, tile<i32> -> token
      yield
    }
    return
  }
}"""


@pytest.mark.parametrize("mode", ["add", "max"])
@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_atomics_of_two_widths_on_one_word_do_not_commute(mode, schedule):
    """An i64 and an i32 atomic add (or max) on one word, from two blocks, through two
    parameters aliasing one array: the carry crosses the 32-bit half, so their order
    matters; under the reverse schedule the compiled engine hands on (found by an audit:
    it ran them in grid order)."""
    outs = {}
    for engine in ("blocks", "compiled"):
        base = np.zeros(16, np.uint8)
        run = tileir.launch(_MIXED_WIDTHS.replace("MODE", mode), None, 2,
                            [base.view(np.int32), base.view(np.int64)], engine=engine,
                            schedule=schedule)
        outs[engine] = run, base.tobytes()
    assert outs["compiled"][1] == outs["blocks"][1]
    if schedule == "sequential":
        assert outs["compiled"][0].engine == "compiled"
    else:
        assert_declined(outs["compiled"][0], "atomics of another mode or width")
