"""Tiles of pointers on the compiled engine (`lower_pointers.py`, `pointer_races.py`)
against the reference (engine="blocks"), byte for byte: gathers and scatters through
``offset``, masks and padding, pointers outside their allocation, races between tile
blocks and within one, and atomics under each schedule (compiled, or declined with the
reason)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_declined, assert_engine, assert_runs_alike  # noqa: E402

#: What both kernels below start with: block b's lanes %at = 16b .. 16b+15, and %live
#: where a lane is below %n.
_LANES = """    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c16 = constant <i32: 16> : tile<i32>
    %base = muli %bx, %c16 : tile<i32>
    %base1 = reshape %base : tile<i32> -> tile<1xi32>
    %base16 = broadcast %base1 : tile<1xi32> -> tile<16xi32>
    %lane = iota : tile<16xi32>
    %at = addi %base16, %lane : tile<16xi32>
    %n1 = reshape %n : tile<i32> -> tile<1xi32>
    %n16 = broadcast %n1 : tile<1xi32> -> tile<16xi32>
    %live = cmpi less_than %at, %n16, signed : tile<16xi32> -> tile<16xi1>"""

#: Block b handles lanes 16b .. 16b+15 of idx (masked past n): dst[lane] = src[idx[lane]],
#: or the padding -1 where idx[lane] is masked; in scatter mode dst[idx[lane]] = src[lane].
_KERNEL = """
cuda_tile.module @m {
  entry @k(%src: tile<ptr<f32>>, %idx: tile<ptr<i32>>, %dst: tile<ptr<f32>>, %n: tile<i32>) {
LANES
    %i1 = reshape %idx : tile<ptr<i32>> -> tile<1xptr<i32>>
    %i16 = broadcast %i1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %ip = offset %i16, %at : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %zeros = constant <i32: 0> : tile<16xi32>
    %j, %t1 = load_ptr_tko weak %ip, %live, %zeros : tile<16xptr<i32>>, tile<16xi1>, tile<16xi32> -> tile<16xi32>, token
    %s1 = reshape %src : tile<ptr<f32>> -> tile<1xptr<f32>>
    %s16 = broadcast %s1 : tile<1xptr<f32>> -> tile<16xptr<f32>>
    %d1 = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %d16 = broadcast %d1 : tile<1xptr<f32>> -> tile<16xptr<f32>>
    %pad = constant <f32: -1.0> : tile<16xf32>
    BODY
    return
  }
}
""".replace("LANES", _LANES)
_GATHER = """
    %sp = offset %s16, %j : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %v, %t2 = load_ptr_tko weak %sp, %live, %pad : tile<16xptr<f32>>, tile<16xi1>, tile<16xf32> -> tile<16xf32>, token
    %dp = offset %d16, %at : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %t3 = store_ptr_tko weak %dp, %v : tile<16xptr<f32>>, tile<16xf32> -> token
"""
_SCATTER = """
    %sp = offset %s16, %at : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %v, %t2 = load_ptr_tko weak %sp, %live, %pad : tile<16xptr<f32>>, tile<16xi1>, tile<16xf32> -> tile<16xf32>, token
    %dp = offset %d16, %j : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %t3 = store_ptr_tko weak %dp, %v, %live : tile<16xptr<f32>>, tile<16xf32>, tile<16xi1> -> token
"""
#: A scatter into dst, then a load of dst[lane] not ordered after it by a token (its
#: value stored back to src, ordered after src's load).
_STORE_THEN_LOAD = _SCATTER + """
    %dq = offset %d16, %at : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %w, %t4 = load_ptr_tko weak %dq, %live, %pad : tile<16xptr<f32>>, tile<16xi1>, tile<16xf32> -> tile<16xf32>, token
    %t5 = store_ptr_tko weak %sp, %w, %live token = %t2 : tile<16xptr<f32>>, tile<16xf32>, tile<16xi1> -> token
"""


def _outcome(body: str, idx: np.ndarray, n: int, engine: str, **options) -> tuple:
    """(engine or "error", reason or the error's first line, the arrays' bytes)."""
    src = np.arange(64, dtype=np.float32) + 0.5
    dst = np.zeros(64, np.float32)
    idx = idx.astype(np.int32)
    try:
        run = tileir.launch(_KERNEL.replace("BODY", body), None, -(-len(idx) // 16),
                            [src, idx, dst, n], engine=engine, **options)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, src.tobytes(), idx.tobytes(), dst.tobytes())


def _alike(body: str, idx: np.ndarray, n: int, compiled: bool, **options) -> tuple:
    """The reference's and the compiled engine's outcomes, asserted alike; the reference's."""
    reference = _outcome(body, idx, n, "blocks", **options)
    assert_runs_alike(reference, _outcome(body, idx, n, "compiled", **options), compiled)
    return reference


def test_gather_with_mask_and_padding():
    idx = np.array([(7 * k) % 64 for k in range(40)])
    reference = _alike(_GATHER, idx, 37, True)        # lanes 37.. masked: padding -1
    dst = np.frombuffer(reference[4], np.float32)
    assert dst[36] == idx[36] + 0.5 and dst[37] == -1 and dst[47] == -1


def test_a_masked_lane_is_neither_accessed_nor_checked():
    idx = np.array([3] * 16 + [1 << 20] * 16)       # (block 1 is masked off whole)
    _alike(_GATHER, idx, 16, True)


def test_a_pointer_outside_its_allocation_is_the_references_error():
    idx = np.array(list(range(16)) + [64] + [0] * 15)     # src has 64 elements
    reference = _alike(_GATHER, idx, 32, False)
    assert reference[0] == "error" and "outside every mapped buffer" in reference[1]
    reference = _alike(_GATHER, np.array([-1] * 16), 16, False)
    assert reference[0] == "error"


def test_a_pointer_outside_its_allocation_with_checks_off_reruns_on_the_reference():
    idx = np.array(list(range(15)) + [64])
    reference = _outcome(_GATHER, idx, 16, "blocks", checks=False)
    compiled = _outcome(_GATHER, idx, 16, "compiled", checks=False)
    assert compiled[2:] == reference[2:] and compiled[0] != "compiled"


def test_a_scatter_two_blocks_write_is_the_references_race():
    idx = np.arange(32) % 20                      # blocks 0 and 1 both write dst[0..3]
    reference = _alike(_SCATTER, idx, 32, False)
    assert reference[0] == "error" and "races with tile block" in reference[1]
    assert not np.frombuffer(reference[4], np.float32).any()    # (buffers put back)


def test_lanes_of_one_store_writing_one_element_do_not_race():
    idx = np.array([5] * 16 + [6] * 16)          # the last lane of each block wins
    reference = _alike(_SCATTER, idx, 32, True)
    dst = np.frombuffer(reference[4], np.float32)
    assert dst[5] == 15.5 and dst[6] == 31.5


def test_a_racing_scatter_with_checks_off_runs_compiled_in_grid_order():
    _alike(_SCATTER, np.arange(32) % 20, 32, True, checks=False)


@pytest.mark.parametrize("schedule", ["reverse", "random"])
def test_a_racing_scatter_under_another_schedule_is_handed_on(schedule):
    """Two blocks writing one element: their order is the schedule's, so the compiled run
    (blocks in grid order) is handed on once the log shows it."""
    idx = np.arange(32) % 20
    compiled = _outcome(_SCATTER, idx, 32, "compiled", checks=False, schedule=schedule,
                        seed=3)
    assert compiled[0] == "blocks" and compiled[1].startswith("compiled engine: the access logs")
    _alike(_SCATTER, np.arange(32), 32, True, checks=False, schedule=schedule, seed=3)


def test_the_fallback_of_a_racing_scatter_follows_the_schedule():
    """Checks off, blocks meeting: only the reference engine, in the schedule's order,
    gives the result (the batched engine runs blocks in grid order)."""
    idx = np.arange(32) % 20
    _alike(_SCATTER, idx, 32, False, checks=False, schedule="reverse")


def test_an_unordered_store_and_load_in_one_block_race():
    idx = np.arange(32)
    reference = _alike(_STORE_THEN_LOAD, idx, 32, False)
    assert reference[0] == "error" and "neither is ordered" in reference[1]
    idx = np.arange(32) + 32                      # disjoint elements: no race
    _alike(_STORE_THEN_LOAD, idx, 32, True)


_ATOMIC = """
cuda_tile.module @m {
  entry @k(%data: tile<ptr<i32>>, %bins: tile<ptr<i32>>, %olds: tile<ptr<i32>>, %n: tile<i32>) {
LANES
    %d1 = reshape %data : tile<ptr<i32>> -> tile<1xptr<i32>>
    %d16 = broadcast %d1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %dp = offset %d16, %at : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %zeros = constant <i32: 0> : tile<16xi32>
    %v, %t1 = load_ptr_tko weak %dp, %live, %zeros : tile<16xptr<i32>>, tile<16xi1>, tile<16xi32> -> tile<16xi32>, token
    %b1 = reshape %bins : tile<ptr<i32>> -> tile<1xptr<i32>>
    %b16 = broadcast %b1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %bp = offset %b16, %v : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %ones = constant <i32: 1> : tile<16xi32>
    ATOMIC
    return
  }
}
""".replace("LANES", _LANES)
_ADD = "%old, %t2 = atomic_rmw_tko relaxed device %bp, add, %ones, %live : " \
    "tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> tile<16xi32>, token"
#: The old values kept: they depend on the order of tile blocks.
_ADD_KEPT = _ADD + """
    %o1 = reshape %olds : tile<ptr<i32>> -> tile<1xptr<i32>>
    %o16 = broadcast %o1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %op = offset %o16, %at : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %t3 = store_ptr_tko weak %op, %old, %live : tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> token"""
_CAS = "%old, %t2 = atomic_cas_tko relaxed device %bp, %zeros, %v, %live : " \
    "tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> tile<16xi32>, token"
_MAX = "%old, %t2 = atomic_rmw_tko relaxed device %bp, max, %v, %live : " \
    "tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> tile<16xi32>, token"


def _atomic(atomic: str, data: np.ndarray, engine: str, **options) -> tuple:
    """A launch of the atomic kernel: (engine or "error", reason or error, the bytes)."""
    data = data.astype(np.int32)
    bins, olds = np.zeros(8, np.int32), np.full(len(data) + 16, -7, np.int32)
    try:
        run = tileir.launch(_ATOMIC.replace("ATOMIC", atomic), None, -(-len(data) // 16),
                            [data, bins, olds, len(data)], engine=engine, **options)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, data.tobytes(), bins.tobytes(), olds.tobytes())


_DATA = np.array([(5 * k * k + 3) % 8 for k in range(45)])


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
@pytest.mark.parametrize("checks", [True, False])
def test_commuting_atomics_compile_under_every_schedule(schedule, checks):
    for atomic in (_ADD, _MAX):
        options = dict(schedule=schedule, seed=5, checks=checks)
        reference = _atomic(atomic, _DATA, "blocks", **options)
        assert_runs_alike(reference, _atomic(atomic, _DATA, "compiled", **options), True)
    assert np.frombuffer(_atomic(_ADD, _DATA, "blocks")[3], np.int32).sum() == len(_DATA)


@pytest.mark.parametrize("atomic", [_ADD_KEPT, _CAS], ids=["add_kept", "cas"])
def test_atomics_whose_result_depends_on_block_order(atomic):
    for schedule in ("sequential", "reverse", "random"):
        options = dict(schedule=schedule, seed=5)
        reference = _atomic(atomic, _DATA, "blocks", **options)
        compiled = _atomic(atomic, _DATA, "compiled", **options)
        assert_runs_alike(reference, compiled, schedule == "sequential")
        if schedule != "sequential":
            assert_declined(SimpleNamespace(engine=compiled[0], reason=compiled[1]),
                            "order of tile blocks")


def test_an_atomic_outside_its_allocation_is_the_references_error():
    data = _DATA.copy()
    data[20] = 8                                  # bins has 8 elements
    reference = _atomic(_ADD, data, "blocks")
    assert reference[0] == "error"
    assert_runs_alike(reference, _atomic(_ADD, data, "compiled"), False)


_ADDF = """
cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %sums: tile<ptr<f32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c8 = constant <i32: 8> : tile<i32>
    %base = muli %bx, %c8 : tile<i32>
    %base1 = reshape %base : tile<i32> -> tile<1xi32>
    %base8 = broadcast %base1 : tile<1xi32> -> tile<8xi32>
    %lane = iota : tile<8xi32>
    %at = addi %base8, %lane : tile<8xi32>
    %x1 = reshape %x : tile<ptr<f32>> -> tile<1xptr<f32>>
    %x8 = broadcast %x1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %xp = offset %x8, %at : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %v, %t1 = load_ptr_tko weak %xp : tile<8xptr<f32>> -> tile<8xf32>, token
    %s1 = reshape %sums : tile<ptr<f32>> -> tile<1xptr<f32>>
    %s8 = broadcast %s1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %old, %t2 = atomic_rmw_tko relaxed device %s8, addf, %v : tile<8xptr<f32>>, tile<8xf32> -> tile<8xf32>, token
    return
  }
}
"""


@pytest.mark.parametrize("nan", [False, True])
def test_a_float_atomic_sum_in_lane_and_block_order(nan):
    """Every lane adds into one element, in row-major lane order and block order; a NaN
    sum is left to the reference (its payload)."""
    outcomes = []
    for engine in ("blocks", "compiled"):
        x = (np.arange(32, dtype=np.float32) * np.float32(0.1)) ** 3
        if nan:
            x[13] = np.float32("nan")
        sums = np.zeros(1, np.float32)
        run = tileir.launch(_ADDF, None, 4, [x, sums], engine=engine)
        outcomes.append((run.engine, run.reason, sums.tobytes()))
    assert outcomes[1][2] == outcomes[0][2]
    assert_engine(SimpleNamespace(engine=outcomes[1][0], reason=outcomes[1][1]),
                  "blocks" if nan else "compiled")
    if not nan:     # (float sums do not commute: another order of blocks declines)
        assert_declined(tileir.launch(_ADDF, None, 4, [x, np.zeros(1, np.float32)],
                                      engine="compiled", schedule="reverse"),
                        "order of tile blocks")


#: Three rounds of a loop: each adds 1 to dst[lane] with an atomic (ATOMIC) or reads
#: dst[lane] and stores it back plus 1 (PLAIN), the store ordered after the load.
_LOOPED = """
    %dp = offset %d16, %at : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %ones = constant <f32: 1.0> : tile<16xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %t0 = make_token : token
    %done = for %r in (%c0 to %c3, step %c1) : tile<i32> iter_values(%t = %t0) -> (token) {
STEP
      continue %tn : token
    }
"""
_ATOMIC_STEP = """      %old, %tn = atomic_rmw_tko relaxed device %dp, addf, %ones, %live token = %t : tile<16xptr<f32>>, tile<16xf32>, tile<16xi1> -> tile<16xf32>, token"""
_PLAIN_STEP = """      %v, %tv = load_ptr_tko weak %dp, %live, %pad token = %t : tile<16xptr<f32>>, tile<16xi1>, tile<16xf32> -> tile<16xf32>, token
      %w = addf %v, %ones : tile<16xf32>
      %tn = store_ptr_tko weak %dp, %w, %live token = %tv : tile<16xptr<f32>>, tile<16xf32>, tile<16xi1> -> token"""


def test_atomics_inside_a_loop_on_a_buffer_only_atomics_reach_run_compiled():
    """Atomics never race with atomics, so an atomic repeated in a loop needs no log
    (as spin_lock.mlir's compare-and-swap loop)."""
    reference = _alike(_LOOPED.replace("STEP", _ATOMIC_STEP), np.arange(32), 32, True)
    assert np.frombuffer(reference[4], np.float32)[:33].tolist() == [3.0] * 32 + [0.0]


def test_plain_pointer_accesses_inside_a_loop_decline_with_checks_on():
    """Repeated plain accesses cannot be logged once per block: declined with checks on
    (the reference's bytes), compiled with checks off on the sequential schedule."""
    body = _LOOPED.replace("STEP", _PLAIN_STEP)
    reference = _outcome(body, np.arange(32), 32, "blocks")
    compiled = _outcome(body, np.arange(32), 32, "compiled")
    assert compiled[2:] == reference[2:]
    assert_declined(SimpleNamespace(engine=compiled[0], reason=compiled[1]),
                    "a pointer access inside a loop")
    _alike(body, np.arange(32), 32, True, checks=False)
