"""Review fixes: unsigned tensor-view operands, argument and internal errors as
diagnostics, bitmask tokens, and the documented vector_add example."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import tileir
from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from tileir.interp.machine import Machine
from tileir.interp.memory import Memory
from tileir.interp.semantics import SEMANTICS
from tileir.interp.values import FRESH_TOKEN, Token


def entry(body: str, params: str) -> str:
    """A module with one entry `k(params)` running `body`."""
    return f"""cuda_tile.module @m {{
  entry @k({params}) {{
{body}
    return
  }}
}}"""


# ---- make_tensor_view: unsigned, strictly positive sizes and strides ----------------

TV = "tensor_view<?xi32, strides=[1]>"
PV = f"partition_view<tile=(4), {TV}>"
VIEW_KERNEL = entry(f"""
    %v = make_tensor_view %p, shape = [%n], strides = [1] : tile<i8> -> {TV}
    %pv = make_partition_view %v : {PV}
    %k = constant <i32: 49> : tile<i32>
    %w = constant <i32: [7, 7, 7, 7]> : tile<4xi32>
    %t = store_view_tko weak %w, %pv[%k] : tile<4xi32>, {PV}, tile<i32> -> token""",
                    "%p: tile<ptr<i32>>, %n: tile<i8>")


def test_i8_extent_of_200_is_200_not_negative():
    # Extent 200 (bit pattern 0xC8, -56 as a signed i8): tile 49 covers elements 196-199.
    buf = np.zeros(200, np.int32)
    launch(VIEW_KERNEL, "k", 1, [buf, -56])
    assert buf[196:].tolist() == [7, 7, 7, 7] and not buf[:196].any()


def test_zero_extent_is_undefined_behaviour():
    with pytest.raises(ExecutionError, match="zero extent"):
        launch(VIEW_KERNEL, "k", 1, [np.zeros(200, np.int32), 0])


# ---- argument errors are diagnostics ------------------------------------------------

SCALAR_KERNEL = entry("""
    %s = store_ptr_tko weak %out, %x : tile<ptr<{t}>>, tile<{t}> -> token""",
                      "%out: tile<ptr<{t}>>, %x: tile<{t}>")


def scalar_kernel(t: str) -> str:
    """A kernel storing its scalar parameter of type `t` to `%out`."""
    return SCALAR_KERNEL.replace("{t}", t)


def test_read_only_buffer_is_reported():
    buf = np.zeros(4, np.float32)
    buf.flags.writeable = False
    with pytest.raises(ExecutionError, match="read-only"):
        launch(scalar_kernel("f32"), "k", 1, [buf, 1.0])


@pytest.mark.parametrize("t, dtype, value, bits", [
    ("f32", np.uint32, 10**400, 0x7F800000),      # past every float range: +inf
    ("f32", np.uint32, -10**400, 0xFF800000),     # -inf
    ("f64", np.uint64, 10**400, 0x7FF0000000000000),
    ("f16", np.uint16, -10**400, 0xFC00),
    # 2^60 + 2^36 + 1 lies just above the f32 tie between 2^60 and 2^60 + 2^37: rounds up
    # (rounding to f64 first would drop the +1 and land on the tie, then round to even).
    ("f32", np.uint32, 2**60 + 2**36 + 1, 0x5D800001),
    ("f32", np.uint32, 2**60 + 2**36, 0x5D800000),   # the exact tie: to even (2^60)
    ("f32", np.uint32, -(2**60 + 2**36 + 1), 0xDD800001),
], ids=["f32-huge", "f32-minus-huge", "f64-huge", "f16-minus-huge", "f32-above-tie",
        "f32-tie", "f32-minus-above-tie"])
def test_huge_integer_for_a_float_parameter_rounds_to_nearest(t, dtype, value, bits):
    itemsize = np.dtype(dtype).itemsize
    out = np.zeros(1, {2: np.float16, 4: np.float32, 8: np.float64}[itemsize])
    launch(scalar_kernel(t), "k", 1, [out, value])
    assert out.view(dtype).tolist() == [bits]


# ---- unexpected exceptions inside semantics -----------------------------------------

def test_internal_error_in_semantics_is_a_diagnostic(monkeypatch):
    def broken(step, *operands):
        """A semantics function with a bug."""
        return 1 // 0
    monkeypatch.setitem(SEMANTICS, "store_ptr_tko", broken)
    with pytest.raises(ExecutionError,
                       match="'cuda_tile.store_ptr_tko' op internal error: ZeroDivisionError"
                       ) as info:
        launch(scalar_kernel("f32"), "k", 1, [np.zeros(1, np.float32), 1.0])
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_execution_errors_from_semantics_pass_unchanged():
    with pytest.raises(ExecutionError) as info:
        launch(VIEW_KERNEL, "k", 1, [np.zeros(200, np.int32), 0])
    assert "internal error" not in str(info.value)


# ---- tokens are bitmasks -----------------------------------------------------------

def test_token_is_a_bitmask_of_access_ids():
    t = FRESH_TOKEN.with_access(3).with_access(70)
    assert t.after == (1 << 3) | (1 << 70)
    assert t.orders(3) and t.orders(70) and not t.orders(4) and not t.orders(0)
    assert t.join(Token().with_access(5)).after == (1 << 3) | (1 << 5) | (1 << 70)
    assert Token(frozenset({3, 70})) == t    # a set of ids is turned into the mask


LOOP_KERNEL = entry("""
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 2000> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %t0 = make_token : token
    %r = for %i in (%lo to %hi, step %st) : tile<i32> iter_values(%t = %t0) -> (token) {
      %v, %tl = load_ptr_tko weak %out token = %t : tile<ptr<i32>> -> tile<i32>, token
      %w = addi %v, %one : tile<i32>
      %ts = store_ptr_tko weak %out, %w token = %tl : tile<ptr<i32>>, tile<i32> -> token
      continue %ts : token
    }""", "%out: tile<ptr<i32>>")


@pytest.mark.parametrize("checks", [True, False])
def test_token_threaded_loop_of_2000_iterations_runs(checks):
    out = np.zeros(1, np.int32)
    launch(LOOP_KERNEL, "k", 1, [out], checks=checks)
    assert out.tolist() == [2000]


def test_unthreaded_token_in_the_loop_is_still_a_race():
    # The store takes the loop's token, not the load's: the load and the store of the
    # first iteration are unordered, and the store writes what the load read.
    racy = LOOP_KERNEL.replace("token = %tl", "token = %t")
    with pytest.raises(ExecutionError, match="races with"):
        launch(racy, "k", 1, [np.zeros(1, np.int32)])


def test_checks_off_logs_no_accesses_and_tokens_stay_empty():
    module = tileir.parse(LOOP_KERNEL, "loop.mlir")
    memory = Memory()
    out = np.zeros(1, np.int32)
    address = memory.map(out, "out")
    machine = Machine(memory, checks=False)
    machine.run_function(module.lookup("k"), [np.array(address, np.int64)])
    assert out.tolist() == [2000] and machine.accesses == []


# ---- the documented example --------------------------------------------------------

def test_documented_vector_add_example_runs():
    path = pathlib.Path(tileir.__file__).parent / "examples" / "kernels" / "vector_add.mlir"
    m = tileir.parse(path.read_text(), "vector_add.mlir")
    n = 200
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    launch(m, "vector_add", grid=(n + 63) // 64, args=[a, b, c, n])
    assert (c == a + b).all()


def test_interpreter_doc_first_example_is_this_one():
    doc = (pathlib.Path(__file__).parents[2] / "docs" / "interpreter.md").read_text()
    example = doc.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(example, "interpreter.md", "exec"), namespace)  # noqa: S102
    assert namespace["c"].dtype == np.float32 and namespace["c"].any()
