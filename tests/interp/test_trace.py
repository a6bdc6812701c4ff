"""Traces: every op result of the chosen tile blocks, in program order, without changing
what the kernel computes."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir import ExecutionError
from tileir.generate import generate_with_arguments
from tileir.interp.trace import Trace, TraceSpec, TraceSpecError

KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"
VECTOR_ADD = KERNELS / "vector_add.mlir"

#: A loop summing its induction variable: acc takes 0, 0, 1, 3 and the result is 6.
LOOP = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %sum = for %i in (%zero to %four, step %one) : tile<i32> iter_values(%acc = %zero) -> (tile<i32>) {
      %next = addi %acc, %i : tile<i32>
      continue %next : tile<i32>
    }
    %p = offset %out, %zero : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t = store_ptr_tko weak %p, %sum : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


def _vector_add_args(n: int = 100):
    a = np.arange(n, dtype=np.float32) * 0.5
    b = np.full(n, 3.0, np.float32)
    return a, b, np.zeros(n, np.float32), n


def test_vector_add_trace_of_default_block() -> None:
    a, b, c, n = _vector_add_args()
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=True)
    assert run.engine == "blocks" and run.reason == "tracing runs tile blocks one at a time"
    trace = run.trace
    assert isinstance(trace, Trace) and trace.blocks == [(0, 0, 0)]
    assert [e.op for e in trace] == [
        "entry", "make_token", "make_tensor_view", "make_tensor_view", "make_tensor_view",
        "make_partition_view", "make_partition_view", "make_partition_view",
        "get_tile_block_id", "load_view_tko", "load_view_tko", "addf", "store_view_tko"]
    assert [e.index for e in trace] == list(range(13))
    entry = trace[0]
    assert entry.kind == "arguments" and entry.names == ("%a", "%b", "%c", "%n")
    assert int(entry.values[3]) == 100
    block = trace.filter(op="get_tile_block_id")[0]
    assert block.names == ("%block", "%unused_y", "%unused_z")
    assert [int(v) for v in block.values] == [0, 0, 0]
    total = trace["sum"][0]
    assert (total.op, total.name, total.shape, str(total.element_type)) == \
        ("addf", "%sum", (64,), "f32")
    assert (total.location.file, total.line, total.location.column) == \
        (str(VECTOR_ADD), 17, 12)
    assert total.array().tobytes() == (a[:64] + b[:64]).tobytes()
    loads = trace.filter(op="load_view_tko")
    assert [e.names for e in loads] == [("%x", "%x_token"), ("%y", "%y_token")]
    assert loads[1].array().tobytes() == b[:64].tobytes()
    # the launch's results are those of an untraced launch
    assert c.tobytes() == (a + b).tobytes()


def test_trace_of_another_block_and_its_padding() -> None:
    a, b, c, n = _vector_add_args()
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="block=1 op=load_view_tko")
    x = run.trace["x"][0]
    assert x.block == (1, 0, 0)
    expected = np.zeros(64, np.float32)      # elements 100..127 read the padding: zero
    expected[:36] = a[64:]
    assert x.array().tobytes() == expected.tobytes()
    assert {e.op for e in run.trace} == {"load_view_tko"}


def test_trace_spec_parses_blocks_ops_lines() -> None:
    spec = TraceSpec.parse("block=1,0,0; block=0,1 op=addf,cuda_tile.mulf line=3,10-12")
    assert spec.blocks == ((1, 0, 0), (0, 1, 0))
    assert spec.ops == frozenset({"addf", "cuda_tile.mulf"})
    assert spec.lines == ((3, 3), (10, 12))
    assert TraceSpec.parse("").blocks == ((0, 0, 0),)
    assert TraceSpec.parse("block=all op=addf").blocks is None
    # ranges are kept as ranges: sorted, overlapping and adjacent ones merged
    assert TraceSpec.parse("line=20-24,3,4 line=22-30,32").lines == \
        ((3, 4), (20, 30), (32, 32))
    assert TraceSpec(lines=frozenset({12, 3, 11})).lines == ((3, 3), (11, 12))


def test_line_ranges_of_any_length_cost_nothing() -> None:
    """A spec of long line ranges is read as ranges, never listed line by line (fifty
    ranges of a million lines each once held 50 million ints: 6 GB and 20 s)."""
    ranges = ",".join(f"{k * 10**6}-{k * 10**6 + 10**6}" for k in range(50))
    spec = TraceSpec.parse(f"line={ranges} line=10-{10**30}")
    assert spec.lines == ((0, 10**30),)
    a, b, c, n = _vector_add_args()
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="line=17,9000-99999999999")
    assert [(e.op, e.line) for e in run.trace] == [("addf", 17)]
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="line=1-16,18-99999999")
    assert [e.line for e in run.trace] == [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18]


@pytest.mark.parametrize("text, message", [
    ("block=1,x", "trace spec item 'block=1,x': a block is 1 to 3 non-negative integers "
                  "separated by commas, or 'all'"),
    ("colour=red", "trace spec item 'colour=red': expected block=X,Y,Z, block=all, op=NAME "
                   "or line=N"),
    ("line=9-3", "trace spec item 'line=9-3': expected line numbers or ranges such as "
                 "line=12,20-24"),
    ("op=1x", "trace spec item 'op=1x': expected op names such as op=addf,mulf"),
])
def test_bad_trace_specs(text: str, message: str) -> None:
    with pytest.raises(TraceSpecError) as caught:
        TraceSpec.parse(text)
    assert str(caught.value) == message
    a, b, c, n = _vector_add_args()
    with pytest.raises(ExecutionError) as failed:
        tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=text)
    assert failed.value.diagnostics[0].message == message


def test_trace_filters_by_line_and_op() -> None:
    a, b, c, n = _vector_add_args()
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="line=17-18")
    assert [(e.op, e.line) for e in run.trace] == [("addf", 17), ("store_view_tko", 18)]
    run = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="block=all op=addf")
    assert [e.block for e in run.trace] == [(0, 0, 0), (1, 0, 0)]
    assert run.trace.filter(block=(1,))[0].array()[:36].tobytes() == \
        (a[64:] + b[64:]).tobytes()


def test_loop_iterations_and_carried_values() -> None:
    out = np.zeros(1, np.int32)
    run = tileir.launch(LOOP, None, 1, [out], trace=True)
    assert int(out[0]) == 0 + 1 + 2 + 3
    starts = run.trace.filter(op="for")
    assert [(e.kind, e.iteration) for e in starts] == [
        ("arguments", (0,)), ("arguments", (1,)), ("arguments", (2,)), ("arguments", (3,)),
        ("result", ())]
    assert [int(v) for v in run.trace.arrays("acc")] == [0, 0, 1, 3]
    assert [int(v) for v in run.trace.arrays("i")] == [0, 1, 2, 3]
    assert [int(v) for v in run.trace.arrays("next")] == [0, 1, 3, 6]
    assert [e.iteration for e in run.trace.filter(op="addi")] == [(0,), (1,), (2,), (3,)]
    assert [int(e.value) for e in run.trace.filter(iteration=(2,), op="addi")] == [3]
    assert int(run.trace["sum"][0].value) == 6


def test_format_is_a_table_of_every_value() -> None:
    out = np.zeros(1, np.int32)
    text = tileir.launch(LOOP, None, 1, [out], trace="op=addi,for").trace.format()
    assert text.splitlines() == [
        "#  location       iter  op          value  type       contents",
        "tile block (0, 0, 0):",
        "0  <launch>:6:12  0     for (args)  %i     tile<i32>  0",
        "                                    %acc   tile<i32>  0",
        "1  <launch>:7:15  0     addi        %next  tile<i32>  0",
        "2  <launch>:6:12  1     for (args)  %i     tile<i32>  1",
        "                                    %acc   tile<i32>  0",
        "3  <launch>:7:15  1     addi        %next  tile<i32>  1",
        "4  <launch>:6:12  2     for (args)  %i     tile<i32>  2",
        "                                    %acc   tile<i32>  1",
        "5  <launch>:7:15  2     addi        %next  tile<i32>  3",
        "6  <launch>:6:12  3     for (args)  %i     tile<i32>  3",
        "                                    %acc   tile<i32>  3",
        "7  <launch>:7:15  3     addi        %next  tile<i32>  6",
        "8  <launch>:6:12        for         %sum   tile<i32>  6",
    ]


def test_format_summarizes_large_tiles_and_full_lists_them() -> None:
    a = np.arange(16, dtype=np.float32)
    b = np.full(16, 0.25, np.float32)
    c = np.zeros(16, np.float32)
    trace = tileir.launch(VECTOR_ADD, None, 1, [a, b, c, 16], trace="op=addf").trace
    row = trace.format().splitlines()[2]
    # elements 16..63 add the two loads' padding, zero
    assert row.endswith("min 0.0 max 15.25  [0.25, 1.25, 2.25, 3.25, ...]")
    full = trace.format(full=True).splitlines()
    # the 64 values in one row of the last axis, below the table's row
    values = full[3].split()
    assert [float(v) for v in values] == [float(x) for x in np.concatenate(
        [a + b, np.zeros(48, np.float32)])]


def test_failed_launch_carries_its_trace_and_restores_buffers() -> None:
    a = np.arange(1, 33, dtype=np.int32)
    b = np.ones(32, np.int32)
    b[20] = 0                                 # block 1, element 4: division by zero
    q, r = np.full(32, 7, np.int32), np.full(32, 9, np.int32)
    path = KERNELS / "ub_div_by_zero.mlir"
    with pytest.raises(ExecutionError) as caught:
        tileir.launch(path, None, 2, [a, b, q, r, 32], trace="block=1")
    assert caught.value.diagnostics[0].message == \
        "'cuda_tile.divi' op division by zero at element [4]: 21 / 0 (tile block (1, 0, 0))"
    trace = caught.value.trace
    assert isinstance(trace, Trace) and trace[-1].op == "load_view_tko"
    assert trace["y"][0].array().tobytes() == b[16:].tobytes()
    assert (q == 7).all() and (r == 9).all()


def test_trace_outside_the_grid_or_on_the_batched_engine_is_refused() -> None:
    a, b, c, n = _vector_add_args()
    with pytest.raises(ExecutionError) as caught:
        tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace="block=2")
    assert caught.value.diagnostics[0].message == \
        "the trace names tile block (2, 0, 0), outside the grid (2, 1, 1)"
    with pytest.raises(ExecutionError) as caught:
        tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=True, engine="batched")
    assert caught.value.diagnostics[0].message == \
        "a traced launch runs one tile block at a time: use engine 'auto' or 'blocks'"
    with pytest.raises(ExecutionError) as caught:
        tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=3)
    assert "trace must be True" in caught.value.diagnostics[0].message


def test_a_launch_refused_inside_the_run_carries_no_trace() -> None:
    """A LaunchError says no tile block ran: it carries no (empty) trace, even when the
    refusal comes once the arguments are mapped (the random schedule's bound)."""
    out = np.zeros(1, np.int32)
    with pytest.raises(tileir.LaunchError) as caught:
        tileir.launch(LOOP, None, (1 << 24) + 1, [out], trace=True, schedule="random")
    assert caught.value.diagnostics[0].message.startswith("the random schedule shuffles")
    assert caught.value.trace is None


def test_recorded_values_are_copies() -> None:
    a, b, c, n = _vector_add_args()
    trace = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=True).trace
    total = trace["sum"][0]
    total.values[0][:] = -1          # a user scribbling on an event's array
    assert total.array()[0] == -1    # (its own copy)
    got = total.array()
    got[:] = 5
    assert total.values[0][0] == -1  # `array()` hands out another copy


@pytest.mark.parametrize("checks, engine", [(True, "auto"), (False, "blocks")])
@pytest.mark.parametrize("seed", range(12))
def test_tracing_never_changes_results(seed: int, checks: bool, engine: str) -> None:
    """Generated kernels: every buffer after a traced launch of every block equals the
    buffer after an untraced launch (any engine).  With checks on half of them stop on
    undefined behaviour (both launches then restore their buffers); with checks off every
    one runs to its end, so the comparison is never vacuous (one tile block at a time
    both ways: the engines may differ where the behaviour is undefined)."""
    module, args = generate_with_arguments(seed)
    plain = copy.deepcopy(args)
    traced = copy.deepcopy(args)
    outcome = []
    for arguments, trace in ((plain, None), (traced, "block=all")):
        try:
            tileir.launch(module, None, (2, 1, 1), arguments, trace=trace, checks=checks,
                          engine=engine)
            outcome.append("ok")
        except ExecutionError as exc:
            outcome.append(exc.diagnostics[0].message)
    assert outcome[0] == outcome[1]
    assert checks or outcome[0] == "ok"
    for x, y in zip(plain, traced):
        for u, v in zip(x if isinstance(x, list) else [x], y if isinstance(y, list) else [y]):
            assert u.tobytes() == v.tobytes()


def test_recording_stops_at_its_memory_limit(monkeypatch) -> None:
    """A trace never grows without bound: past its limit it stops (the launch goes on,
    its results complete) and says so."""
    import tileir.interp.trace as tracing
    monkeypatch.setattr(tracing, "MAX_TRACE_BYTES", 600)      # (read by each launch)
    monkeypatch.setattr(tracing, "EVENT_BYTES", 0)      # (tile bytes alone, here)
    a, b, c, n = _vector_add_args()
    trace = tileir.launch(VECTOR_ADD, None, 2, [a, b, c, n], trace=True).trace
    assert c.tobytes() == (a + b).tobytes()
    assert trace.truncated and trace.stopped_at == 600
    # the arguments (3 pointers of 8 bytes, an i32), the block ids (3 i32) and the two
    # 64-float loads (256 bytes each) make 552 bytes; the sum's 256 more pass the limit
    assert [e.op for e in trace][-2:] == ["load_view_tko", "load_view_tko"]
    assert len(trace["sum"]) == 0
    assert trace.format().splitlines()[-1] == (
        "(recording stopped here: the trace's values reached 600 bytes; narrow it with "
        "block=, op= or line=)")


def test_events_without_tile_bytes_are_bounded_too(monkeypatch) -> None:
    """Tokens and views hold no tile bytes, yet every event counts: tracing the tokens of
    every block stops at the limit instead of growing with the grid."""
    import tileir.interp.trace as tracing
    limit = 10 * tracing.EVENT_BYTES
    monkeypatch.setattr(tracing, "MAX_TRACE_BYTES", limit)
    n = 64 * 16
    a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    trace = tileir.launch(VECTOR_ADD, None, 16, [a, b, c, n],
                          trace="block=all op=make_token").trace
    assert trace.truncated and len(trace) == 10
    assert [e.block for e in trace] == [(x, 0, 0) for x in range(10)]
    assert (c == 2).all()
