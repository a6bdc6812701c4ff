"""Prechecks (tileir/interp/compiled/precheck.py): a kernel whose checks read no loaded
data runs them over every tile block first, and, where they pass, writes the buffers it
only writes without a journal; where they fail nothing is written at all."""

from __future__ import annotations

import pathlib
import signal

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_engine  # noqa: E402
from tileir.interp.compiled import runner  # noqa: E402
from tileir.interp.compiled.lower import _Lowering, lower  # noqa: E402
from tileir.interp.compiled.precheck import check_slice  # noqa: E402
from tileir.interp.launch import entry_of  # noqa: E402
from tileir.interp.memory import Memory  # noqa: E402
from tileir.interp.plan import plan_of  # noqa: E402

EXAMPLES = pathlib.Path(tileir.__file__).parent / "examples" / "kernels"
BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"
VECTOR_ADD = (EXAMPLES / "vector_add.mlir").read_text()
B_TILES = "partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>"
C_TILES = "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>"
#: c = a + c, its store ordered after its load of c: it reads what it writes.
ADD_INTO = VECTOR_ADD.replace(f"%b_tiles[%block] token = %token : {B_TILES}",
                              f"%c_tiles[%block] token = %token : {C_TILES}").replace(
    "%sum, %c_tiles[%block] token = %token", "%sum, %c_tiles[%block] token = %y_token")
#: c[i] = a[i] + b[i] stored at the tile that idx[block] names: the store's index is data.
SCATTER = VECTOR_ADD.replace("%c: tile<ptr<f32>>", "%c: tile<ptr<f32>>, %idx: tile<ptr<i32>>").replace(
    "    %block, %unused_y, %unused_z = get_tile_block_id : tile<i32>\n",
    "    %block, %unused_y, %unused_z = get_tile_block_id : tile<i32>\n"
    "    %i_view = make_tensor_view %idx, shape = [%n], strides = [1] : tile<i32> -> "
    "tensor_view<?xi32, strides=[1]>\n"
    "    %i_tiles = make_partition_view %i_view : partition_view<tile=(1), "
    "tensor_view<?xi32, strides=[1]>>\n"
    "    %where1, %w_token = load_view_tko weak %i_tiles[%block] token = %token : "
    "partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>, tile<i32> -> "
    "tile<1xi32>, token\n"
    "    %where = reshape %where1 : tile<1xi32> -> tile<i32>\n").replace(
    "%sum, %c_tiles[%block]", "%sum, %c_tiles[%where]")


def _kernel(text: str, entry: str | None = None):
    """The plan's kernel of `text`'s entry (the first one without `entry`)."""
    module = tileir.parse(text, "<test>")
    return plan_of(entry_of(module, entry)).kernel


def _slice_reason(text: str, entry: str | None = None):
    """`check_slice` of the kernel, from the checks of its whole lowering."""
    kernel = _kernel(text, entry)
    whole = _Lowering(kernel)
    whole.run()
    return check_slice(kernel, whole.check_counts)


def _has_precheck(text: str, entry: str | None = None) -> bool:
    """Whether the kernel's module defines ``check_span``."""
    return "define i32 @check_span(" in lower(_kernel(text, entry)).ir


@pytest.mark.parametrize("text, entry, reason", [
    (VECTOR_ADD, None, None),
    ((BENCH / "vector_add.mlir").read_text(), "vector_add", None),
    ((BENCH / "layernorm.mlir").read_text(), "layernorm", None),
    ((BENCH / "softmax.mlir").read_text(), "softmax",
     "a check reads the data 'cuda_tile.load_view_tko' loads"),
    ((BENCH / "matmul.mlir").read_text(), "matmul",
     "the kernel has control flow ('cuda_tile.for')"),
    (SCATTER, None, "a check reads the data 'cuda_tile.load_view_tko' loads"),
])
def test_which_kernels_have_a_precheck(text, entry, reason):
    """Straight-line kernels whose checks read only arguments and block ids have one;
    a check reading loaded data (softmax's exp settles its loaded values' roundings;
    a store at a loaded index) or control flow: none."""
    found = _slice_reason(text, entry)
    assert (found if isinstance(found, str) else None) == reason
    assert _has_precheck(text, entry) is (reason is None)


@pytest.fixture
def spans_seen(monkeypatch):
    """The compiled functions each launch runs, in order (``check_span``, ``run_span``)."""
    seen: list[str] = []
    original = runner._spans

    def spans(found, name, *rest):
        seen.append(name)
        return original(found, name, *rest)
    monkeypatch.setattr(runner, "_spans", spans)
    return seen


@pytest.fixture
def copies(monkeypatch):
    """The sizes of the buffers a launch tells its journal it will write."""
    seen: list[int] = []
    original = Memory.writing

    def writing(self, data):
        seen.append(data.nbytes)
        return original(self, data)
    monkeypatch.setattr(Memory, "writing", writing)
    return seen


def test_a_prechecked_launch_writes_without_copying(spans_seen, copies):
    """Vector add: its checks run first, then it writes c with no journal copy, the
    reference's bytes."""
    n = 64 * 20 + 5
    a = np.arange(n, dtype=np.float32) * np.float32(0.25)
    b = np.full(n, 1.5, np.float32)
    outs = {}
    for engine in ("blocks", "compiled"):
        c = np.full(n, 7.0, np.float32)
        spans_seen.clear()
        copies.clear()
        run = tileir.launch(VECTOR_ADD, None, 21, [a, b, c, n], engine=engine)
        outs[engine] = (run, c.tobytes())
    assert_engine(outs["compiled"][0], "compiled")
    assert outs["compiled"][1] == outs["blocks"][1] == (a + b).tobytes()
    assert spans_seen == ["check_span", "run_span"]
    assert copies == []


def test_a_kernel_reading_what_it_writes_keeps_its_journal(spans_seen, copies):
    """c = a + c has a precheck but reads c: c is copied first, no precheck runs."""
    n = 64 * 20
    a = np.arange(n, dtype=np.float32)
    c = np.full(n, 3.0, np.float32)
    run = tileir.launch(ADD_INTO, None, 20, [a, a, c, n], engine="compiled")
    assert_engine(run, "compiled")
    assert c.tobytes() == (a + np.float32(3.0)).tobytes()
    assert spans_seen == ["run_span"]
    assert copies == [c.nbytes]


def test_a_precheck_failing_stops_before_any_write(spans_seen):
    """A grid one block past the index space: the precheck fails, run_span never runs,
    c is untouched and the diagnostic is the reference's."""
    n = 64 * 20
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    errors = {}
    for engine in ("blocks", "compiled"):
        c = np.full(n, 3.0, np.float32)
        spans_seen.clear()
        with pytest.raises(tileir.ExecutionError) as caught:
            tileir.launch(VECTOR_ADD, None, 21, [a, b, c, n], engine=engine)
        errors[engine] = str(caught.value)
        assert c.tobytes() == np.full(n, 3.0, np.float32).tobytes()
    assert spans_seen == ["check_span"]
    assert errors["compiled"] == errors["blocks"]
    assert "index" in errors["blocks"]


def test_a_store_at_a_loaded_index_keeps_its_journal(spans_seen):
    """The scatter's store index is data: no precheck; its run is journaled, and an index
    out of range puts c back and gives the reference's diagnostic."""
    n = 64 * 4
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    for where, fails in (([3, 2, 1, 0], False), ([0, 1, 2, 9], True)):
        idx = np.zeros(n, np.int32)
        idx[:4] = where
        results = {}
        for engine in ("blocks", "compiled"):
            c = np.full(n, 3.0, np.float32)
            spans_seen.clear()
            try:
                run = tileir.launch(SCATTER, None, 4, [a, b, c, idx, n], engine=engine)
                results[engine] = (run.engine, c.tobytes())
            except tileir.ExecutionError as error:
                results[engine] = (str(error), c.tobytes())
                assert c.tobytes() == np.full(n, 3.0, np.float32).tobytes()
        assert results["compiled"][1] == results["blocks"][1]
        assert spans_seen == ["run_span"]
        if fails:
            assert results["compiled"][0] == results["blocks"][0]
        else:
            assert results["compiled"][0] == "compiled"


def test_ctrl_c_during_an_unjournaled_run_is_taken_when_it_ends(monkeypatch):
    """SIGINT arriving as the unjournaled run starts: the run finishes (c holds a + b
    whole), then KeyboardInterrupt is raised, and SIGINT's handler is the one before."""
    original = runner._spans

    def spans(found, name, *rest):
        if name == "run_span":
            signal.raise_signal(signal.SIGINT)
        return original(found, name, *rest)
    monkeypatch.setattr(runner, "_spans", spans)
    before = signal.getsignal(signal.SIGINT)
    n = 64 * 20
    a, b = np.arange(n, dtype=np.float32), np.full(n, 2.0, np.float32)
    c = np.zeros(n, np.float32)
    with pytest.raises(KeyboardInterrupt) as caught:
        tileir.launch(VECTOR_ADD, None, 20, [a, b, c, n], engine="compiled")
    assert caught.value.__notes__ == [
        "tileir: this interrupt came while a launch ran without a journal; it was taken "
        "when the run had ended, so the buffers the launch writes hold its whole result"]
    assert c.tobytes() == (a + b).tobytes()
    assert signal.getsignal(signal.SIGINT) is before


def test_deferred_interrupts_hold_sigint_until_the_block_ends():
    """Inside the block SIGINT raises nothing; at its end the handler before runs."""
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with runner.deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            reached.append("after the signal")
    assert reached == ["after the signal"]
    with runner.deferred_interrupts():
        reached.append("no signal")
    assert reached == ["after the signal", "no signal"]


#: A scan and a reduce whose bodies read a constant from outside them and check for
#: overflow (found by an audit: the dry lowering met the constant unlowered, and the
#: kernel no longer compiled).
OUTER = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %io = iota : tile<8xi32>
    %k = constant <i32: 2> : tile<i32>
    %s = scan %io dim=0 reverse=false identities=[0 : i32] : tile<8xi32> -> tile<8xi32>
      (%e: tile<i32>, %a: tile<i32>) {
        %q0 = addi %e, %a overflow<no_signed_wrap> : tile<i32>
        %q = maxi %q0, %k signed : tile<i32>
        yield %q : tile<i32>
      }
    %r = reduce %io dim=0 identities=[1 : i32] : tile<8xi32> -> tile<i32>
      (%e2: tile<i32>, %a2: tile<i32>) {
        %q2 = muli %e2, %k overflow<no_signed_wrap> : tile<i32>
        yield %q2 : tile<i32>
      }
    %v = make_tensor_view %out, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %p = make_partition_view %v : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
    %t1 = store_view_tko weak %io, %p[%bx] token = %t0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}"""


def test_a_body_reading_values_from_outside_is_prechecked_with_them():
    """The scan's and the reduce's bodies read %k from outside: both kept with %k, the
    kernel runs compiled after its precheck with the reference's bytes."""
    assert _has_precheck(OUTER) is True
    outs = {}
    for engine in ("blocks", "compiled"):
        out = np.full(64, 5, np.int32)
        before = runner.unjournaled()
        run = tileir.launch(OUTER, None, 4, [out, 64], engine=engine)
        outs[engine] = (run, out.tobytes(), runner.unjournaled() - before)
    assert_engine(outs["compiled"][0], "compiled")
    assert outs["compiled"][1] == outs["blocks"][1]
    assert outs["compiled"][2] == 1


def test_a_slice_the_dry_lowering_cannot_lower_leaves_the_kernel_compiled(monkeypatch):
    """Should the slice miss an op a kept op reads (as the audit's reduce case did), the
    kernel has no precheck but still compiles, and runs journaled."""
    from tileir.interp.compiled import precheck
    monkeypatch.setattr(precheck, "check_slice", lambda kernel, counts: frozenset(
        op for op in kernel.walk() if op.name == "cuda_tile.store_view_tko"))
    text = VECTOR_ADD.replace("@examples", "@examples_no_slice")
    assert not _has_precheck(text)
    n = 64 * 4
    a, b, c = np.arange(n, dtype=np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    before = runner.unjournaled()
    run = tileir.launch(text, None, 4, [a, b, c, n], engine="compiled")
    assert_engine(run, "compiled")
    assert c.tobytes() == (a + b).tobytes() and runner.unjournaled() == before


def test_a_kernel_loaded_from_disk_keeps_its_precheck(tmp_path, monkeypatch):
    """The precheck is found in the object code itself: a kernel loaded from the disk
    cache (no compile) runs unjournaled, as compiled."""
    from tileir.interp import compiled as jit
    from tileir.interp.compiled import disk
    monkeypatch.setenv(disk.VARIABLE, str(tmp_path / "cache"))
    text = VECTOR_ADD.replace("@examples", "@examples_from_disk")
    n = 64 * 4
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    for loads in (0, 1):
        jit.clear()
        loaded, before = jit.loads(), runner.unjournaled()
        c = np.zeros(n, np.float32)
        assert_engine(tileir.launch(text, None, 4, [a, b, c, n], engine="compiled"),
                      "compiled")
        assert (jit.loads() - loaded, runner.unjournaled() - before) == (loads, 1)
        assert c.tobytes() == (a + b).tobytes()
