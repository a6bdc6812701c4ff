"""``tileir.compile``: read, verify and plan a kernel once, launch it many times."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir import ExecutionError, VerificationError
from tileir.interp.plan import plan_of

KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"
VECTOR_ADD = KERNELS / "vector_add.mlir"

SCALE = """cuda_tile.module @m {
  entry @scale(%x: tile<ptr<f32>>, %n: tile<i32>) {
    %t = make_token : token
    %v = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %p = make_partition_view %v : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %b, %by, %bz = get_tile_block_id : tile<i32>
    %a, %ta = load_view_tko weak %p[%b] token = %t : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %k = constant <f32: 3.0> : tile<16xf32>
    %y = mulf %a, %k rounding<nearest_even> : tile<16xf32>
    %d = store_view_tko weak %y, %p[%b] token = %ta : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


@pytest.mark.parametrize("source", ["path", "str path", "text", "bytecode", "module"])
def test_compile_from_every_source_then_launch_many_times(source: str, tmp_path) -> None:
    given = {"path": VECTOR_ADD, "str path": str(VECTOR_ADD), "text": VECTOR_ADD.read_text(),
             "bytecode": tileir.load(VECTOR_ADD).to_bytecode(),
             "module": tileir.load(VECTOR_ADD)}[source]
    kernel = tileir.compile(given)
    assert isinstance(kernel, tileir.Kernel) and kernel.name == "vector_add"
    assert repr(kernel) == ("<tileir.Kernel @vector_add(tile<ptr<f32>>, tile<ptr<f32>>, "
                            "tile<ptr<f32>>, tile<i32>)>")
    rng = np.random.default_rng(7)
    for n in (64, 1000, 17):                     # one compiled kernel, several launches
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        c = np.zeros(n, np.float32)
        run = kernel(-(-n // 64), a, b, c, n)
        assert run.engine == "batched"
        assert c.tobytes() == (a + b).tobytes()
        c[:] = 0
        assert kernel((-(-n // 64),), a, b, c, n, engine="blocks", checks=False).engine == \
            "blocks"
        assert c.tobytes() == (a + b).tobytes()


def test_compiled_kernel_takes_launch_options_and_reports_ub() -> None:
    kernel = tileir.compile(KERNELS / "ub_div_by_zero.mlir")
    a = np.arange(32, dtype=np.int32)
    b = np.ones(32, np.int32)
    b[3] = 0
    q, r = np.zeros(32, np.int32), np.zeros(32, np.int32)
    with pytest.raises(ExecutionError) as caught:
        kernel(2, a, b, q, r, 32, schedule="reverse")
    first = caught.value.diagnostics[0]
    assert first.location.file == str(KERNELS / "ub_div_by_zero.mlir")
    assert first.location.line == 17
    assert (q == 0).all() and (r == 0).all()     # a failed launch leaves the buffers
    with pytest.raises(ExecutionError) as caught:
        kernel(2, a, b, q, r, 32, trace="op=load_view_tko,divi")
    # block 0's two loads ran; its divi failed, so it has no result to record
    assert [e.op for e in caught.value.trace] == ["load_view_tko", "load_view_tko"]
    assert caught.value.trace["y"][0].array().tobytes() == b[:16].tobytes()
    b[3] = 1
    run = kernel(2, a, b, q, r, 32, trace="block=1 op=divi")
    assert run.trace[0].array().tobytes() == (a[16:] // b[16:]).astype(np.int32).tobytes()
    assert q.tobytes() == (a // b).astype(np.int32).tobytes()


def test_every_call_maps_its_own_buffers_whatever_their_ids() -> None:
    """Host addresses are read once per call and looked up by array id: arrays freed
    between calls (whose ids Python reuses), an output passed as an input too, and views
    of one array passed twice must each map the memory of the call that passes them."""
    kernel = tileir.compile(VECTOR_ADD)
    for k in range(6):                  # fresh arrays each time, the last ones freed
        a = np.full(64, k, np.float32)
        b = np.full(64, 0.5, np.float32)
        c = np.zeros(64, np.float32)
        kernel(1, a, b, c, 64)
        assert c.tobytes() == np.full(64, k + 0.5, np.float32).tobytes()
        del a, b, c
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    kernel(1, x, x, y, 64)              # one array as both inputs: y = x + x
    assert y.tobytes() == (np.arange(64, dtype=np.float32) * 2).tobytes()
    buf = np.arange(192, dtype=np.float32)
    kernel(1, buf[64:128], buf[:64], buf[128:], 64)     # three views of one array
    want = np.arange(192, dtype=np.float32)
    want[128:] = want[64:128] + want[:64]
    assert buf.tobytes() == want.tobytes()
    # the output aliasing an input is seen as such: the kernel's unordered load and
    # store of one address race (and the buffer is left as it was)
    with pytest.raises(ExecutionError) as caught:
        kernel(1, buf[:64], buf[64:128], buf[:64], 64)
    assert caught.value.diagnostics[0].message.startswith(
        "'cuda_tile.store_view_tko' op races with 'cuda_tile.load_view_tko' at ")
    assert buf.tobytes() == want.tobytes()


def test_compile_errors() -> None:
    with pytest.raises(ExecutionError) as caught:
        tileir.compile(VECTOR_ADD, "nope")
    assert caught.value.diagnostics[0].message == \
        "no entry named 'nope' in the module (entries: vector_add)"
    with pytest.raises(ExecutionError) as caught:
        tileir.compile(KERNELS / "missing.mlir")
    assert "cannot read the module file" in caught.value.diagnostics[0].message
    kernel = tileir.compile(VECTOR_ADD)
    with pytest.raises(ExecutionError) as caught:
        kernel(1, np.zeros(4, np.float32))
    assert caught.value.diagnostics[0].message == \
        "entry 'vector_add' takes 4 arguments, got 1"


def test_compile_verifies_a_built_module() -> None:
    module = tileir.parse(SCALE)
    entry = module.entries[0]
    mul = next(op for op in entry.regions[0].block if op.name == "cuda_tile.mulf")
    mul.attributes.pop("rounding_mode", None)
    mul.operands[1] = entry.regions[0].block.arguments[1]   # an i32 operand to mulf
    with pytest.raises(VerificationError):
        tileir.compile(module)


def test_an_edited_module_is_planned_again() -> None:
    """The plan is checked against the kernel on each call: an edit after compile is run,
    never a stale plan (here: the constant 3.0 made 5.0)."""
    module = tileir.parse(SCALE)
    kernel = tileir.compile(module)
    x = np.arange(32, dtype=np.float32)
    kernel(2, x, 32)
    assert x.tobytes() == (np.arange(32, dtype=np.float32) * 3).tobytes()
    first_plan = plan_of(kernel.entry)
    replacement = tileir.parse(SCALE.replace("3.0", "5.0"))
    new_constant = next(op for op in replacement.entries[0].regions[0].block
                        if op.name == "cuda_tile.constant")
    old_constant = next(op for op in kernel.entry.regions[0].block
                        if op.name == "cuda_tile.constant")
    old_constant.attributes["value"] = new_constant.attributes["value"]
    x = np.arange(32, dtype=np.float32)
    kernel(2, x, 32)
    assert x.tobytes() == (np.arange(32, dtype=np.float32) * 5).tobytes()
    assert plan_of(kernel.entry) is not first_plan


def test_an_entry_replaced_in_the_module_is_found_again_by_name() -> None:
    """A pass may rebuild an entry: the compiled kernel runs the entry the module holds
    now (here 5.0 in place of 3.0), never the one it was compiled from."""
    module = tileir.parse(SCALE)
    kernel = tileir.compile(module)
    old = kernel.entry
    new = tileir.parse(SCALE.replace("3.0", "5.0")).entries[0]
    body = module.body.operations
    body[body.index(old)] = new
    new.parent = module.body
    x = np.arange(32, dtype=np.float32)
    kernel(2, x, 32)
    assert x.tobytes() == (np.arange(32, dtype=np.float32) * 5).tobytes()
    assert kernel.entry is new
    body.remove(new)                             # no entry of that name any more
    with pytest.raises(ExecutionError) as caught:
        kernel(2, x, 32)
    assert caught.value.diagnostics[0].message == \
        "no entry named 'scale' in the module (entries: none)"


def test_a_progress_that_is_no_function_is_refused() -> None:
    kernel = tileir.compile(SCALE)
    x = np.arange(32, dtype=np.float32)
    message = "progress must be a function of (blocks done, blocks in all) or None, got int"
    for call in (lambda: kernel(2, x, 32, progress=5),
                 lambda: tileir.launch(SCALE, None, 2, [x, 32], progress=5)):
        with pytest.raises(tileir.LaunchError) as caught:
            call()
        assert caught.value.diagnostics[0].message == message
    assert x.tobytes() == np.arange(32, dtype=np.float32).tobytes()
    seen = []
    kernel(2, x, 32, engine="blocks", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]


def test_toplevel_names() -> None:
    assert tileir.compile is tileir.interp.kernel.compile
    assert tileir.Trace is tileir.interp.trace.Trace
