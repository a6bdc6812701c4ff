"""Kernel plans (`tileir.interp.plan`) and the fast paths built on them: loop kernels give
the exact values computed here with Python ints, on both engines, with the scalar paths on
and off; undefined behaviour inside a loop is reported exactly as before (op, location,
tile block); a plan is reused only while its kernel is unchanged, never for another
kernel, and does not keep a kernel alive; launches start threads only for enough work."""

from __future__ import annotations

import gc
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir.diagnostics import ExecutionError
from tileir.interp import SEMANTICS, launch, plan
from tileir.interp.batch.machine import Span
from tileir.interp.plan import plan_of
from tileir.numerics import as_unsigned, unsigned_int
from tileir.types import IntegerType

LOOPS = Path(__file__).resolve().parents[2] / "bench" / "kernels" / "loops"
LAUNCH = sys.modules["tileir.interp.launch"]    # the module (the package exports launch)


def signed32(value: int) -> int:
    """`value` modulo 2^32, read signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


@pytest.fixture(params=[True, False], ids=["scalar-paths", "general"])
def scalar_paths(request, monkeypatch) -> bool:
    """Run the test with the scalar paths on, then off."""
    monkeypatch.setattr(plan, "SCALAR_PATHS", request.param)
    return request.param


# ---- loop kernels: exact values ------------------------------------------------------


def for_loop_reference(n: int) -> list[int]:
    """bench/kernels/loops/for_loop.mlir in Python: the sum of 3i over the i in [0, n)
    with (i & 7) < 3 (wrapped to i32), and how many there are."""
    kept = [i for i in range(n) if i % 8 in (0, 1, 2)]
    return [signed32(sum(3 * i for i in kept)), len(kept)]


def loop_break_reference(m: int) -> list[int]:
    """bench/kernels/loops/loop_break.mlir in Python: the total and the largest Collatz
    step count of the starts in [1, m)."""
    counts = []
    for start in range(1, m):
        x, steps = start, 0
        while x != 1:
            x = 3 * x + 1 if x % 2 else x // 2
            steps += 1
        counts.append(steps)
    return [signed32(sum(counts)), max(counts, default=0)]


@pytest.mark.parametrize("engine", ["blocks", "batched"])
@pytest.mark.parametrize("checks", [True, False])
def test_for_loop_kernel_gives_the_exact_values(engine, checks, scalar_paths) -> None:
    module = tileir.parse((LOOPS / "for_loop.mlir").read_text(), "for_loop.mlir")
    for n in (0, 1, 3, 8, 17, 1000, 3001):
        out = np.full(2, -9, np.int32)
        run = launch(module, None, 1, [out, n], engine=engine, checks=checks)
        assert run.engine == engine and out.tolist() == for_loop_reference(n), n
    assert for_loop_reference(17) == [3 * (0 + 1 + 2 + 8 + 9 + 10 + 16), 7]


def test_for_loop_kernel_wraps_its_sum_at_i32() -> None:
    # the kept sum reaches 2756013750 > 2**31 - 1 for n = 70000; addi has no flag: it wraps
    module = tileir.parse((LOOPS / "for_loop.mlir").read_text(), "for_loop.mlir")
    out = np.zeros(2, np.int32)
    launch(module, None, 1, [out, 70000], engine="blocks")
    assert out.tolist() == for_loop_reference(70000) == [2756013750 - 2**32, 26250]


@pytest.mark.parametrize("engine", ["blocks", "batched"])
def test_loop_break_kernel_gives_the_exact_values(engine, scalar_paths) -> None:
    module = tileir.parse((LOOPS / "loop_break.mlir").read_text(), "loop_break.mlir")
    for m in (1, 2, 3, 28, 200):
        out = np.full(2, -9, np.int32)
        assert launch(module, None, 1, [out, m], engine=engine).engine == engine
        assert out.tolist() == loop_break_reference(m), m
    assert loop_break_reference(28) == [sum([0, 1, 7, 2, 5, 8, 16, 3, 19, 6, 14, 9, 9, 17, 17,
                                             4, 12, 20, 20, 7, 7, 15, 15, 10, 23, 10, 111]),
                                        111]


# ---- undefined behaviour inside loops ---------------------------------------------------

DIVIDE_IN_A_LOOP = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>, %k: tile<i32>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %ten = constant <i32: 10> : tile<i32>
    %thousand = constant <i32: 1000> : tile<i32>
    %seven = constant <i32: 7> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %r = for %i in (%zero to %ten, step %one) : tile<i32> iter_values(%acc = %zero) -> (tile<i32>) {
      %d0 = subi %i, %k : tile<i32>
      %d = addi %d0, %bx : tile<i32>
      %n0 = muli %i, %thousand : tile<i32>
      %n = addi %n0, %seven : tile<i32>
      %q = divi %n, %d signed : tile<i32>
      %s = addi %acc, %q : tile<i32>
      continue %s : tile<i32>
    }
    %p = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t = store_ptr_tko weak %p, %r : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}"""


def divide_reference(k: int, block: int) -> int:
    """DIVIDE_IN_A_LOOP's result in tile block (`block`, 0, 0): the sum over i in [0, 10)
    of (1000 i + 7) / (i - k + block), rounded toward zero."""
    total = 0
    for i in range(10):
        n, d = 1000 * i + 7, i - k + block
        q = abs(n) // abs(d)
        total += q if (n < 0) == (d < 0) else -q
    return signed32(total)


@pytest.mark.parametrize("engine", ["blocks", "auto"])
@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_division_by_zero_at_one_iteration_of_one_block(engine, schedule, scalar_paths):
    module = tileir.parse(DIVIDE_IN_A_LOOP, "ub_loop.mlir")
    out = np.zeros(3, np.int32)
    launch(module, "k", 3, [out, 100], engine=engine, schedule=schedule)
    assert out.tolist() == [divide_reference(100, b) for b in range(3)]
    assert out.tolist() == [-477, -483, -487]
    # k = 11: only tile block (2, 0, 0) reaches a zero divisor, at iteration i = 9
    with pytest.raises(ExecutionError) as caught:
        launch(module, "k", 3, [out, 11], engine=engine, schedule=schedule)
    assert str(caught.value) == ("ub_loop.mlir:14:12: error: 'cuda_tile.divi' op division by "
                                 "zero at element []: 9007 / 0 (tile block (2, 0, 0))")


DOUBLING = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>, %n: tile<i32>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %r = for %i in (%zero to %n, step %one) : tile<i32> iter_values(%x = %one) -> (tile<i32>) {
      %y = muli %x, %two overflow<no_signed_wrap> : tile<i32>
      continue %y : tile<i32>
    }
    %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}"""


@pytest.mark.parametrize("engine", ["blocks", "auto"])
def test_signed_overflow_at_the_31st_doubling(engine, scalar_paths) -> None:
    module = tileir.parse(DOUBLING, "doubling.mlir")
    out = np.zeros(1, np.int32)
    launch(module, "k", 1, [out, 30], engine=engine)
    assert out.tolist() == [2**30]
    with pytest.raises(ExecutionError) as caught:
        launch(module, "k", 1, [out, 31], engine=engine)
    assert str(caught.value) == (
        "doubling.mlir:7:12: error: 'cuda_tile.muli' op signed overflow (no_signed_wrap) at "
        "element []: 1073741824 * 2 (tile block (0, 0, 0))")
    launch(module, "k", 1, [out, 31], engine=engine, checks=False)   # checks off: it wraps
    assert out.tolist() == [-2**31]


def test_max_ops_stops_a_loop_at_the_same_op_with_or_without_scalar_paths(monkeypatch):
    module = tileir.parse(DOUBLING, "doubling.mlir")
    messages = []
    for on in (True, False):
        monkeypatch.setattr(plan, "SCALAR_PATHS", on)
        with pytest.raises(ExecutionError) as caught:
            launch(module, "k", 1, [np.zeros(1, np.int32), 10], max_ops=12)
        messages.append(str(caught.value))
    # 3 constants, the for, then two ops an iteration: op 12 is the muli of iteration 5
    assert messages[0] == messages[1] == (
        "doubling.mlir:7:12: error: 'cuda_tile.muli' op is past the limit of 12 operations "
        "per tile block (a block waiting on another never finishes when blocks run one at a "
        "time) (tile block (0, 0, 0))")


# ---- plans are the kernel's own -------------------------------------------------------

CONSTANT = """cuda_tile.module @m {{
  entry @k(%out: tile<ptr<i32>>, %x: tile<i32>) {{
    %c = constant <i32: {value}> : tile<i32>
    %d = subi %x, %c : tile<i32>
    %t = store_ptr_tko weak %out, %d : tile<ptr<i32>>, tile<i32> -> token
    return
  }}
}}"""


def run_constant(module, x: int, **options) -> int:
    """Launch a CONSTANT module; what it stored."""
    out = np.zeros(1, np.int32)
    launch(module, "k", 1, [out, x], **options)
    return int(out[0])


def test_a_plan_is_kept_while_its_kernel_is_unchanged() -> None:
    module = tileir.parse(CONSTANT.format(value=5), "c.mlir")
    kernel = module.lookup("k")
    assert run_constant(module, 7) == 2
    first = plan_of(kernel)
    assert run_constant(module, 9) == 4
    assert plan_of(kernel) is first and first.kernel is kernel


@pytest.mark.parametrize("engine", ["blocks", "auto"])
def test_a_changed_kernel_gets_a_new_plan(engine) -> None:
    module = tileir.parse(CONSTANT.format(value=5), "c.mlir")
    kernel = module.lookup("k")
    constant, subtract = kernel.regions[0].block.operations[:2]
    assert run_constant(module, 7, engine=engine) == 2
    before = plan_of(kernel)
    # an attribute replaced in place: another module's constant 40
    other = tileir.parse(CONSTANT.format(value=40), "d.mlir")
    constant.attributes["value"] = other.lookup("k").regions[0].block.operations[0] \
        .attributes["value"]
    assert run_constant(module, 7, engine=engine) == 7 - 40
    assert plan_of(kernel) is not before
    # operands swapped in place
    subtract.operands[0], subtract.operands[1] = subtract.operands[1], subtract.operands[0]
    assert run_constant(module, 7, engine=engine) == 40 - 7
    # an op removed: the store now takes the argument itself
    store = kernel.regions[0].block.operations[2]
    store.operands[1] = kernel.regions[0].block.arguments[1]
    del kernel.regions[0].block.operations[1]
    assert run_constant(module, 7, engine=engine) == 7


def test_matches_sees_every_part_a_plan_is_read_from() -> None:
    def fresh():
        module = tileir.parse(CONSTANT.format(value=5), "c.mlir")
        kernel = module.lookup("k")
        return module, kernel, plan.fingerprint(kernel)

    def reorder(attributes: dict) -> None:
        items = list(attributes.items())
        assert len(items) > 1
        attributes.clear()
        attributes.update(reversed(items))

    module, kernel, taken = fresh()
    assert plan.matches(kernel, taken) and plan.fingerprint(kernel) == taken
    assert not plan.matches(module.lookup("k").regions[0].block.operations[0], taken)
    block = kernel.regions[0].block
    constant, subtract = block.operations[:2]
    changes = [
        lambda: constant.attributes.update(extra=constant.attributes["value"]),
        lambda: setattr(subtract.results[0], "type", IntegerType(64)),
        lambda: setattr(block.arguments[1], "type", IntegerType(64)),
        lambda: subtract.operands.reverse(),
        lambda: setattr(subtract, "name", "cuda_tile.addi"),
        lambda: setattr(subtract, "opdef", None),
        lambda: block.operations.pop(1),
        lambda: kernel.regions[0].blocks.append(kernel.regions[0].blocks[0]),
        lambda: kernel.regions.append(kernel.regions[0]),
        lambda: block.arguments.pop(),
        lambda: subtract.results.clear(),
    ]
    for change in changes:
        module, kernel, taken = fresh()
        block = kernel.regions[0].block
        constant, subtract = block.operations[:2]
        change()
        assert not plan.matches(kernel, taken)
    # the same attributes in another order: nothing a plan reads depends on their order
    module, kernel, taken = fresh()
    reorder(kernel.attributes)
    assert plan.matches(kernel, taken)


def test_a_replaced_semantics_function_is_used_at_the_next_launch(monkeypatch) -> None:
    module = tileir.parse(CONSTANT.format(value=5), "c.mlir")
    assert run_constant(module, 7) == 2
    monkeypatch.setitem(SEMANTICS, "subi", lambda step, x, y: np.asarray(x + y, x.dtype))
    assert run_constant(module, 7) == 12       # (not subi's scalar path: it is subi's own)
    assert run_constant(module, 7, engine="blocks") == 12
    monkeypatch.undo()
    assert run_constant(module, 7) == 2


def test_modules_made_and_dropped_in_turn_each_give_their_own_results() -> None:
    # Each module is parsed, run, dropped and collected before the next is made, so its
    # objects' ids may be reused by the next one: each must still run its own kernel.
    gone = []
    for value in range(40):
        module = tileir.parse(CONSTANT.format(value=value), "c.mlir")
        assert run_constant(module, 100) == 100 - value
        assert run_constant(module, 100, engine="blocks") == 100 - value
        gone.append(weakref.ref(module.lookup("k")))
        del module
        gc.collect()
    assert all(ref() is None for ref in gone)      # plans keep no kernel alive


def test_many_launches_of_two_modules_with_changing_arguments() -> None:
    text = (Path(tileir.__file__).parent / "examples" / "kernels" / "vector_add.mlir") \
        .read_text()
    one, two = tileir.parse(text, "a.mlir"), tileir.parse(text, "b.mlir")
    rng = np.random.default_rng(5)
    for i in range(60):
        n = int(rng.integers(1, 300))
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        c = np.full(n, np.nan, np.float32)
        module = one if i % 3 else two
        launch(module, None, -(-n // 64), [a, b, c, n], checks=bool(i % 2),
               engine="blocks" if i % 5 == 0 else "auto")
        assert c.tobytes() == (a + b).tobytes()


def test_toggling_the_scalar_paths_makes_a_new_plan(monkeypatch) -> None:
    module = tileir.parse(CONSTANT.format(value=5), "c.mlir")
    kernel = module.lookup("k")
    with_paths = plan_of(kernel)
    assert with_paths.blocks[kernel.regions[0].block].ops[1].scalar is not None
    monkeypatch.setattr(plan, "SCALAR_PATHS", False)
    without = plan_of(kernel)
    assert without is not with_paths
    assert all(p.scalar is None for b in without.blocks.values() for p in b.ops)
    assert run_constant(module, 7) == 2


# ---- threads, spans and readings ----------------------------------------------------


class NoThreads:
    """Stands in for ThreadPoolExecutor: counts the pools a launch makes."""

    made = 0

    def __init__(self, *args, **kwargs) -> None:
        type(self).made += 1
        from concurrent.futures import ThreadPoolExecutor
        self.pool = ThreadPoolExecutor(*args, **kwargs)

    def submit(self, *args, **kwargs):
        return self.pool.submit(*args, **kwargs)

    def shutdown(self, *args, **kwargs):
        return self.pool.shutdown(*args, **kwargs)


def test_a_small_launch_starts_no_threads_and_a_large_one_does(monkeypatch) -> None:
    text = (Path(tileir.__file__).parent / "examples" / "kernels" / "vector_add.mlir") \
        .read_text()
    module = tileir.parse(text, "v.mlir")
    monkeypatch.setattr(LAUNCH, "ThreadPoolExecutor", NoThreads)
    NoThreads.made = 0
    n = 1024
    a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    assert launch(module, None, 16, [a, b, c, n], workers=8).engine == "batched"
    assert NoThreads.made == 0 and (c == 2).all()
    # 16 blocks of 64 elements hold 8 KiB as float64, less than THREAD_MIN_BYTES; with a
    # lower bound the grid gets a span per worker, on threads
    assert 16 * 64 * 8 < LAUNCH.THREAD_MIN_BYTES
    monkeypatch.setattr(LAUNCH, "THREAD_MIN_BYTES", 8192)
    c[:] = 0
    assert launch(module, None, 16, [a, b, c, n], workers=8).engine == "batched"
    assert NoThreads.made == 1 and (c == 2).all()


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 1, 1), (3, 4, 1), (2, 3, 5)])
def test_span_blocks_are_in_grid_order(shape) -> None:
    span = Span((4, 0, 2), shape, 0)
    expected = [(4 + x, y, 2 + z) for z in range(shape[2]) for y in range(shape[1])
                for x in range(shape[0])]
    blocks = span.blocks()
    assert blocks.dtype == np.int64 and [tuple(row) for row in blocks.tolist()] == expected


@pytest.mark.parametrize("width", [1, 8, 16, 32, 64])
def test_unsigned_int_is_the_unsigned_reading(width) -> None:
    t = IntegerType(width)
    dtype = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width]
    info = np.iinfo(dtype) if width > 1 else None
    values = [0, 1] if width == 1 else \
        [0, 1, -1, info.min, info.max, info.min + 1, 12345 % info.max]
    for v in values:
        x = np.array(v, dtype)
        assert unsigned_int(x, t) == int(as_unsigned(x, t)) == v % (1 << width)
    assert unsigned_int(np.int64(-1), IntegerType(32)) == 2**32 - 1


def affine_model(values: list[int], grid: tuple[int, int, int]) -> tuple[int, ...] | None:
    """(c0, cx, cy, cz) with values[block] = c0 + cx x + cy y + cz z for every block of a
    box `grid` in grid order, found from the definition, or None."""
    gx, gy, gz = grid
    blocks = [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]
    c0 = values[0]
    steps = [values[blocks.index(axis)] - c0 if axis in blocks else 0
             for axis in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
    if any(v != c0 + sum(c * k for c, k in zip(steps, b)) for v, b in zip(values, blocks)):
        return None
    return (c0, *steps)


@pytest.mark.parametrize("grid", [(1, 1, 1), (2, 1, 1), (2, 2, 1), (3, 2, 2), (4, 4, 4),
                                  (9, 8, 1), (5, 3, 7)])
def test_affine_indices_are_found_for_few_and_many_blocks(grid) -> None:
    from tileir.interp.batch.ops import _affine
    rng = np.random.default_rng(sum(grid))
    count = int(np.prod(grid))
    z, y, x = np.indices(grid[::-1]).reshape(3, -1)
    for trial in range(60):
        c = rng.integers(-6, 7, 4)
        values = c[0] + c[1] * x + c[2] * y + c[3] * z
        if trial % 2:
            values[rng.integers(count)] += rng.choice([-1, 1])
        expected = affine_model(values.tolist(), grid)
        assert _affine(values, grid) == expected
        if trial % 2 == 0:
            assert expected is not None
    assert _affine(np.zeros(count + 1, np.int64), grid) is None
