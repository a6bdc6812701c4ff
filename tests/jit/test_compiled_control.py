"""``loop`` (break, continue, also inside nested ifs), ``print_tko`` and ``assert`` on the
compiled engine against the reference (engine="blocks"): the same bytes, the same printed
text (once, in the reference's order), the same diagnostics."""

from __future__ import annotations

import faulthandler
import io
import signal
import threading

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import assert_declined, assert_engine, assert_runs_alike  # noqa: E402
from tileir.interp.compiled import lower_control  # noqa: E402
from tileir.interp.compiled.settle import POLLING, Settler  # noqa: E402
from tileir.interp.semantics.registry import short_name  # noqa: E402

TI = "tile<i32>"


def module(params: str, body: str) -> str:
    """An entry @k with `params`, whose body is `body` followed by ``return``."""
    return f"""cuda_tile.module @m {{
  entry @k({params}) {{
{body}
    return
  }}
}}"""


def store_one(value: str, param: str = "%out", index: str = "%bx", elem: str = "i32") -> str:
    """Store rank-0 tile `value` as element `index` of the 1-d i32 buffer `param`."""
    tv = f"tensor_view<?x{elem}, strides=[1]>"
    pv = f"partition_view<tile=(1), {tv}>"
    name = param[1:]
    return f"""    %{name}.n:3 = get_num_tile_blocks : {TI}
    %{name}.v = make_tensor_view {param}, shape = [%{name}.n#0], strides = [1] : {TI} -> {tv}
    %{name}.p = make_partition_view %{name}.v : {pv}
    %{name}.r = reshape {value} : tile<{elem}> -> tile<1x{elem}>
    %{name}.t = make_token : token
    %{name}.d = store_view_tko weak %{name}.r, %{name}.p[{index}] token = %{name}.t \
: tile<1x{elem}>, {pv}, {TI} -> token"""


def launch(text: str, grid: int, args: list, engine: str, **options) -> tuple:
    """(engine or "error", reason or the error's text, printed text, bytes of every array
    argument) of one launch (on copies of the arrays)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    printed = io.StringIO()
    try:
        run = tileir.launch(text, "k", grid, args, engine=engine, stdout=printed, **options)
        head: tuple = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc))
    return (*head, printed.getvalue(),
            [a.tobytes() for a in args if isinstance(a, np.ndarray)])


def assert_alike(text: str, grid: int, args: list, compiled: bool = True, **options) -> tuple:
    """The compiled launch leaves what the reference's leaves, prints what it prints and
    fails as it fails; it ran compiled when `compiled`, else handed on with the reason
    (`jit_checks.assert_runs_alike`).  Returns the reference's outcome."""
    reference = launch(text, grid, args, "blocks", **options)
    assert_runs_alike(reference, launch(text, grid, args, "compiled", **options), compiled)
    return reference


# ---- loop: Collatz steps, break inside an if, the next value from an if that yields -----

COLLATZ = module("%out: tile<ptr<i32>>, %start: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %two = constant <i32: 2> : {TI}
    %three = constant <i32: 3> : {TI}
    %x0 = addi %start, %bx : {TI}
    %xf, %sf = loop iter_values(%x = %x0, %s = %zero) : {TI}, {TI} -> {TI}, {TI} {{
      %done = cmpi equal %x, %one, signed : {TI} -> tile<i1>
      if %done {{
        break %x, %s : {TI}, {TI}
      }}
      %r = remi %x, %two unsigned : {TI}
      %even = cmpi equal %r, %zero, signed : {TI} -> tile<i1>
      %nx = if %even -> ({TI}) {{
        %h = divi %x, %two unsigned : {TI}
        yield %h : {TI}
      }} else {{
        %t = muli %x, %three : {TI}
        %u = addi %t, %one : {TI}
        yield %u : {TI}
      }}
      %ns = addi %s, %one : {TI}
      continue %nx, %ns : {TI}, {TI}
    }}
    %p = print_tko "block %d: collatz(%d) = %d steps (%x)\\n", %bx, %x0, %sf, %xf : {TI}, {TI}, {TI}, {TI} -> token
{store_one("%sf")}""")


@pytest.mark.parametrize("start", [1, 2, 3, 7, 27])
def test_loops_break_at_each_block_own_iteration(start):
    """Each block breaks after its own number of iterations (0 for x0 = 1); the steps and
    the printed lines are the reference's, in grid order."""
    reference = assert_alike(COLLATZ, 6, [np.full(6, -1, np.int32), start])
    lines = reference[2].splitlines()
    assert len(lines) == 6 and lines[0].startswith("block 0: collatz(")
    steps = np.frombuffer(reference[3][0], np.int32)
    expected = []
    for x in range(start, start + 6):
        n = 0
        while x != 1:
            x, n = (x // 2 if x % 2 == 0 else 3 * x + 1), n + 1
        expected.append(n)
    assert steps.tolist() == expected
    assert lines[0] == f"block 0: collatz({start}) = {expected[0]} steps (1)"


# ---- continue with carried tiles, swapped and replaced inside an if -------------------

SWAP = module("%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %out: tile<ptr<f32>>, %cnt: tile<ptr<i32>>, "
              "%n: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %t = make_token : token
    %av = make_tensor_view %a, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %bv = make_tensor_view %b, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %ov = make_tensor_view %out, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %ap = make_partition_view %av : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %bp = make_partition_view %bv : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %op = make_partition_view %ov : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %three = constant <i32: 3> : {TI}
    %x, %t1 = load_view_tko weak %ap[%zero] token = %t : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, {TI} -> tile<8xf32>, token
    %y, %t2 = load_view_tko weak %bp[%zero] token = %t : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, {TI} -> tile<8xf32>, token
    %half = constant <f32: 0.5> : tile<8xf32>
    %p, %q, %c = loop iter_values(%u = %x, %v = %y, %i = %zero) : tile<8xf32>, tile<8xf32>, {TI} -> tile<8xf32>, tile<8xf32>, {TI} {{
      %stop = cmpi greater_than_or_equal %i, %n, signed : {TI} -> tile<i1>
      if %stop {{
        break %u, %v, %i : tile<8xf32>, tile<8xf32>, {TI}
      }}
      %next = addi %i, %one : {TI}
      %r = remi %i, %three signed : {TI}
      %swap = cmpi equal %r, %zero, signed : {TI} -> tile<i1>
      if %swap {{
        continue %v, %u, %next : tile<8xf32>, tile<8xf32>, {TI}
      }}
      %w = mulf %u, %half : tile<8xf32>
      %z = addf %v, %w : tile<8xf32>
      continue %z, %u, %next : tile<8xf32>, tile<8xf32>, {TI}
    }}
    %d = subf %p, %q : tile<8xf32>
    %s1 = store_view_tko weak %d, %op[%zero] token = %t : tile<8xf32>, partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, {TI} -> token
{store_one("%c", "%cnt", "%zero")}""")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 10])
def test_continue_swaps_and_replaces_carried_tiles(n):
    """A continue inside an if swaps the two carried tiles (each one the other's slot), the
    one at the end replaces them; the results are the reference's bits."""
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    reference = assert_alike(SWAP, 1, [a, b, np.zeros(8, np.float32), np.zeros(1, np.int32), n])
    out = np.frombuffer(reference[3][2], np.float32)
    u, v = a.copy(), b.copy()
    for i in range(n):
        u, v = (v, u) if i % 3 == 0 else (v + u * np.float32(0.5), u)
    assert out.tobytes() == (u - v).tobytes()
    assert np.frombuffer(reference[3][3], np.int32).tolist() == [max(n, 0)]


# ---- nested ifs and nested loops --------------------------------------------------------

NESTED = module("%out: tile<ptr<i32>>, %limit: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %five = constant <i32: 5> : {TI}
    %total, %rounds = loop iter_values(%acc = %zero, %i = %zero) : {TI}, {TI} -> {TI}, {TI} {{
      %inner = loop iter_values(%j = %zero, %sum = %acc) : {TI}, {TI} -> {TI} {{
        %big = cmpi greater_than_or_equal %j, %i, signed : {TI} -> tile<i1>
        if %big {{
          break %sum : {TI}
        }}
        %j1 = addi %j, %one : {TI}
        %s1 = addi %sum, %j : {TI}
        continue %j1, %s1 : {TI}, {TI}
      }}
      %i1 = addi %i, %one : {TI}
      %over = cmpi greater_than %inner, %limit, signed : {TI} -> tile<i1>
      if %over {{
        %tail = addi %bx, %i : {TI}
        %odd = remi %tail, %five signed : {TI}
        %deep = cmpi equal %odd, %zero, signed : {TI} -> tile<i1>
        if %deep {{
          %neg = subi %zero, %inner : {TI}
          break %neg, %i1 : {TI}, {TI}
        }} else {{
          break %inner, %i1 : {TI}, {TI}
        }}
      }}
      continue %inner, %i1 : {TI}, {TI}
    }}
    %code = muli %total, %five : {TI}
    %res = addi %code, %rounds : {TI}
{store_one("%res")}""")


@pytest.mark.parametrize("limit", [-1, 0, 10, 100, 1000])
def test_break_inside_nested_ifs_and_loops(limit):
    """An inner loop breaks out of itself only; the outer one breaks from an if inside an
    if (either branch); each block's result is the reference's."""
    reference = assert_alike(NESTED, 7, [np.zeros(7, np.int32), limit])
    expected = []
    for bx in range(7):
        acc, i = 0, 0
        while True:
            acc = acc + sum(range(i))
            i += 1
            if acc > limit:
                acc = -acc if (bx + i - 1) % 5 == 0 else acc
                break
        expected.append(acc * 5 + i)
    assert np.frombuffer(reference[3][0], np.int32).tolist() == expected


# ---- print_tko --------------------------------------------------------------------------

PRINTS = module("%a: tile<ptr<f32>>, %out: tile<ptr<i32>>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %t = make_token : token
    %av = make_tensor_view %a, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %ap = make_partition_view %av : partition_view<tile=(4), tensor_view<8xf32, strides=[1]>>
    %x, %t1 = load_view_tko weak %ap[%bx] token = %t : partition_view<tile=(4), tensor_view<8xf32, strides=[1]>>, {TI} -> tile<4xf32>, token
    %m = reshape %x : tile<4xf32> -> tile<2x2xf32>
    %neg = constant <i32: -3> : {TI}
    %big = constant <i64: 81985529216486895> : tile<i64>
    %flags = constant <i1: [true, false, true, true]> : tile<4xi1>
    %iota = iota : tile<4xi64>
    %e = exp %x : tile<4xf32>
    %p1 = print_tko "[%d] %f|%+09.3e|%g %% %u %x %X %o\\n", %bx, %x, %m, %e, %neg, %big, %iota, %neg : {TI}, tile<4xf32>, tile<2x2xf32>, tile<4xf32>, {TI}, tile<i64>, tile<4xi64>, {TI} -> token
    %p2 = print_tko "flags %d, 100%%\\n", %flags token = %p1 : tile<4xi1> -> token
    %p3 = print_tko "plain text, no operands\\n" -> token
{store_one("%bx")}""")


def test_printed_text_is_the_references():
    """Every conversion (signs, widths, exponents, unsigned and hex readings, tiles of rank
    1 and 2, i1 and i64, %%) prints the reference's text, blocks in
    grid order, and only once."""
    a = np.array([1.5, -0.0, np.nan, 3e-40, np.inf, -2.25, 1e10, 7], np.float32)
    reference = assert_alike(PRINTS, 2, [a, np.zeros(2, np.int32)])
    lines = reference[2].splitlines()
    assert len(lines) == 6
    assert lines[0].startswith("[0] [1.500000, -0.000000, nan, 0.000000]|[[+1.500e+00,")
    assert lines[1] == "flags [1, 0, 1, 1], 100%"
    assert lines[2] == "plain text, no operands"
    assert lines[3].startswith("[1] [inf, -2.250000, 10000000000.000000, 7.000000]|")


def test_a_printing_kernel_on_another_schedule_is_declined():
    """The reference prints blocks in schedule order; the compiled engine runs them in
    grid order, so under another schedule it hands the kernel on (one block: compiled)."""
    a = np.arange(8, dtype=np.float32)
    for schedule in ("reverse", "random"):
        reference = launch(PRINTS, 2, [a, np.zeros(2, np.int32)], "blocks",
                           schedule=schedule, seed=3)
        got = launch(PRINTS, 2, [a, np.zeros(2, np.int32)], "compiled",
                     schedule=schedule, seed=3)
        assert got[2:] == reference[2:]
        assert got[0] == "blocks" and "in grid order, not the" in got[1]
    assert_alike(PRINTS, 1, [a, np.zeros(2, np.int32)], schedule="reverse")


def test_a_printing_kernel_runs_on_one_thread():
    """Blocks and workers enough for threads (work 2**22): the text is still the
    reference's, in grid order."""
    grid = 1024
    text = module("%out: tile<ptr<i32>>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %big = iota : tile<4096xi32>
    %p = print_tko "%d;", %bx : {TI} -> token
{store_one("%bx")}""")
    reference = assert_alike(text, grid, [np.zeros(grid, np.int32)], workers=4)
    assert reference[2] == "".join(f"{b};" for b in range(grid))


# ---- assert -----------------------------------------------------------------------------

ASSERTS = module("%a: tile<ptr<i32>>, %out: tile<ptr<i32>>, %limit: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %t = make_token : token
    %av = make_tensor_view %a, shape = [32], strides = [1] : tensor_view<32xi32, strides=[1]>
    %ap = make_partition_view %av : partition_view<tile=(8), tensor_view<32xi32, strides=[1]>>
    %x, %t1 = load_view_tko weak %ap[%bx] token = %t : partition_view<tile=(8), tensor_view<32xi32, strides=[1]>>, {TI} -> tile<8xi32>, token
    %p = print_tko "block %d sees %d\\n", %bx, %x : {TI}, tile<8xi32> -> token
    %lim1 = reshape %limit : {TI} -> tile<1xi32>
    %lim = broadcast %lim1 : tile<1xi32> -> tile<8xi32>
    %ok = cmpi less_than %x, %lim, signed : tile<8xi32> -> tile<8xi1>
    assert %ok, "every element is below the limit" : tile<8xi1>
    %bad = cmpi equal %bx, %limit, signed : {TI} -> tile<i1>
    %true = constant <i1: true> : tile<i1>
    %okay = xori %bad, %true : tile<i1>
    assert %okay, "the block is not the limit" : tile<i1>
{store_one("%bx")}""")


def test_assert_that_holds_runs_compiled():
    a = np.arange(32, dtype=np.int32)
    reference = assert_alike(ASSERTS, 4, [a, np.full(4, -1, np.int32), 100])
    assert np.frombuffer(reference[3][1], np.int32).tolist() == [0, 1, 2, 3]
    assert reference[2].count("\n") == 4


@pytest.mark.parametrize("limit", [2, 13, 30])
def test_failing_assert_gives_the_references_error_and_prints_once(limit):
    """A tile assert (its false elements listed) or a scalar one fails in some block after
    earlier blocks printed: the error text and the printed text are the reference's (the
    compiled run's buffered text is dropped), memory as it was."""
    a = np.arange(32, dtype=np.int32)
    a[20] = 1000
    out = np.full(4, -1, np.int32)
    reference = assert_alike(ASSERTS, 4, [a, out, limit], compiled=False)
    assert reference[0] == "error" and "assertion failed: " in reference[1]
    assert reference[3][1] == out.tobytes()
    printed = reference[2].splitlines()
    assert printed and all(line.startswith(f"block {b} sees") for b, line in enumerate(printed))
    assert len(printed) == len(set(printed))


def test_failing_assert_message_lists_the_false_elements():
    text = module("%a: tile<ptr<i32>>", f"""
    %t = make_token : token
    %zero = constant <i32: 0> : {TI}
    %av = make_tensor_view %a, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xi32, strides=[8,1]>
    %ap = make_partition_view %av : partition_view<tile=(4x8), tensor_view<4x8xi32, strides=[8,1]>>
    %x, %t1 = load_view_tko weak %ap[%zero, %zero] token = %t : partition_view<tile=(4x8), tensor_view<4x8xi32, strides=[8,1]>>, {TI}, {TI} -> tile<4x8xi32>, token
    %z = constant <i32: 0> : tile<4x8xi32>
    %ok = cmpi greater_than_or_equal %x, %z, signed : tile<4x8xi32> -> tile<4x8xi1>
    assert %ok, "non-negative" : tile<4x8xi1>""")
    a = np.arange(32, dtype=np.int32)
    a[[3, 9, 31]] = -1
    reference = assert_alike(text, 1, [a], compiled=False)
    assert "first false element [0, 3]; 3 false elements: [0, 3], [1, 1], [3, 7]" in \
        reference[1]
    a[[3, 9, 31]] = 5
    assert_alike(text, 1, [a])          # (holding: compiled)


# ---- what is declined, and an endless loop stays interruptible -----------------------

def test_continue_inside_an_if_of_a_for_is_declined():
    text = module("%out: tile<ptr<i32>>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %four = constant <i32: 4> : {TI}
    %r = for %i in (%zero to %four, step %one) : {TI} iter_values(%s = %zero) -> ({TI}) {{
      %c = cmpi equal %i, %one, signed : {TI} -> tile<i1>
      if %c {{
        continue %s : {TI}
      }}
      %n = addi %s, %i : {TI}
      continue %n : {TI}
    }}
{store_one("%r")}""")
    out = np.zeros(1, np.int32)
    reference = launch(text, 1, [out], "blocks")
    got = launch(text, 1, [out], "compiled")
    assert got[2:] == reference[2:] and np.frombuffer(got[3][0], np.int32).tolist() == [5]
    run = tileir.launch(text, "k", 1, [out], engine="compiled")
    assert_declined(run, "'cuda_tile.continue' ending an iteration of 'cuda_tile.for'")


class _Interrupt(BaseException):
    """What the test's alarm raises (as Ctrl-C raises KeyboardInterrupt)."""


def test_an_endless_loop_stops_on_an_interrupt_with_memory_restored(monkeypatch):
    """The reference runs a loop until it breaks (Ctrl-C stops it); the compiled loop
    runs on a thread of its own and polls a stop flag that the launching thread sets when
    a signal handler raises, so the interrupt reaches the caller, the loop stops and the
    launch's memory (stored to before the loop) is put back."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run on the main thread only")
    text = module("%out: tile<ptr<i32>>, %limit: tile<i64>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %one = constant <i64: 1> : tile<i64>
    %r = trunci %limit : tile<i64> -> {TI}
{store_one("%r")}
    %x = loop iter_values(%i = %one) : tile<i64> -> tile<i64> {{
      %end = cmpi equal %i, %limit, signed : tile<i64> -> tile<i1>
      if %end {{
        break %i : tile<i64>
      }}
      %j = addi %i, %one : tile<i64>
      continue %j : tile<i64>
    }}""")
    assert_interrupted_with_memory_restored(text, 0, monkeypatch)    # (i never reaches 0)


def assert_interrupted_with_memory_restored(text: str, endless: int, monkeypatch) -> None:
    """`text` stores trunci(%limit) and then loops until %limit: with 1000 it ends
    (compiled, 1000 stored); with `endless` it does not, and at the loop's first poll
    the launching thread gets a signal whose handler raises (as Ctrl-C's does): the
    interrupt reaches the caller, the loop stops and the store is put back.  The signal
    is sent from the poll itself, so the test does not hang on timing; should the loop
    stop polling, faulthandler ends the process after 120 s (a failure, not a hang)."""
    out = np.full(1, 7, np.int32)
    assert tileir.launch(text, "k", 1, [out, 1000], engine="compiled").engine == "compiled"
    assert out.tolist() == [1000]
    polls: list[int] = []
    settle = Settler._settle

    def polled(self: Settler, index: int, *rest: int) -> int:
        """The settle function, sending the signal at the first poll."""
        if short_name(self.ops[index]) in POLLING and not polls:
            polls.append(index)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGALRM)
        return settle(self, index, *rest)

    def alarm(signum: int, frame: object) -> None:
        raise _Interrupt()
    monkeypatch.setattr(Settler, "_settle", polled)
    previous = signal.signal(signal.SIGALRM, alarm)
    faulthandler.dump_traceback_later(120, exit=True)
    try:
        with pytest.raises(_Interrupt):
            tileir.launch(text, "k", 1, [out, endless], engine="compiled")
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)
    assert polls and out.tolist() == [1000]


#: Stores trunci(%limit), then runs a ``for`` of %limit iterations (2**62: endless).
LONG_FOR = module("%out: tile<ptr<i32>>, %limit: tile<i64>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i64: 0> : tile<i64>
    %one = constant <i64: 1> : tile<i64>
    %r = trunci %limit : tile<i64> -> {TI}
{store_one("%r")}
    %x = for %i in (%zero to %limit, step %one) : tile<i64> iter_values(%a = %zero) -> (tile<i64>) {{
      %m = muli %a, %a : tile<i64>
      %b = xori %m, %i : tile<i64>
      continue %b : tile<i64>
    }}""")


def test_a_long_for_loop_stops_on_an_interrupt_with_memory_restored(monkeypatch):
    """A ``for`` of 2**62 iterations polls as a ``loop`` does (found by an audit: only
    ``loop`` polled, so Ctrl-C waited for the ``for`` to end): the interrupt reaches the
    caller and the launch's memory (stored to before the loop) is put back."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run on the main thread only")
    assert_interrupted_with_memory_restored(LONG_FOR, 1 << 62, monkeypatch)


def test_an_interrupt_while_a_span_thread_starts_runs_no_block_on_it(monkeypatch):
    """Ctrl-C inside a span thread's start (CI crashed on it twice: the thread, unknown
    to the launch, ran on after the launch had failed, calling its freed settle
    function): the thread runs no block, the launch raises and memory is put back."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run on the main thread only")
    text = LONG_FOR
    out = np.full(1, 7, np.int32)
    assert tileir.launch(text, "k", 1, [out, 1000], engine="compiled").engine == "compiled"
    polls: list[int] = []
    settle = Settler._settle

    def counted(self: Settler, index: int, *rest: int) -> int:
        polls.append(index)
        return settle(self, index, *rest)
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def interrupted(self: threading.Thread) -> None:
        """Start the thread, then be interrupted as its start returns."""
        start(self)
        started.append(self)
        raise _Interrupt()
    monkeypatch.setattr(Settler, "_settle", counted)
    monkeypatch.setattr(threading.Thread, "start", interrupted)
    try:
        with pytest.raises(_Interrupt):
            tileir.launch(text, "k", 1, [out, 1 << 62], engine="compiled")
    finally:
        monkeypatch.setattr(threading.Thread, "start", start)
    for thread in started:      # (it returns at once; a bound, not a hang, if it does not)
        thread.join(120)
    assert len(started) == 1 and not started[0].is_alive()
    assert polls == [] and out.tolist() == [1000]


def test_a_loop_polls_through_the_settle_function():
    """The settle function answers a loop's poll with 0, or 1 once the run must stop."""
    op = next(o for o in tileir.parse(COLLATZ).walk() if o.name == "cuda_tile.loop")
    settler = Settler([op])
    assert settler._settle(0, 0, 0, 0, 0) == 0
    settler.stop.set()
    assert settler._settle(0, 0, 0, 0, 0) == 1
    assert lower_control.POLL_CYCLES > 0


def test_an_unchanged_kernel_engine_reports_compiled():
    run = tileir.launch(COLLATZ, "k", 3, [np.zeros(3, np.int32), 5], engine="compiled",
                        stdout=io.StringIO())
    assert_engine(run, "compiled")


def test_tokens_carried_through_a_loop_and_returned_by_break():
    """A token iteration value and a token result: ordering only, the stores' bytes and
    the break's tile result are the reference's."""
    text = module("%out: tile<ptr<i32>>, %n: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %t0 = make_token : token
    %tf, %s = loop iter_values(%t = %t0, %i = %zero) : token, {TI} -> token, {TI} {{
      %more = cmpi less_than %i, %n, signed : {TI} -> tile<i1>
      %t1 = join_tokens %t, %t0 : token
      if %more {{
        %j = addi %i, %one : {TI}
        continue %t1, %j : token, {TI}
      }}
      %sq = muli %i, %i : {TI}
      break %t1, %sq : token, {TI}
    }}
    %r = addi %s, %bx : {TI}
{store_one("%r")}""")
    reference = assert_alike(text, 3, [np.zeros(3, np.int32), 6])
    assert np.frombuffer(reference[3][0], np.int32).tolist() == [36, 37, 38]


def test_the_shipped_while_break_print_with_a_view_store():
    """The shipped example's loop and print (its pointer-tile store replaced by a view
    store): compiled with checks off and on (its nsw multiply checked), printing the
    reference's lines."""
    import pathlib
    shipped = pathlib.Path(tileir.__file__).parent / "examples" / "kernels" / \
        "while_break_print.mlir"
    text = shipped.read_text()
    pointer_store = """    %p = offset %steps, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t1 = store_ptr_tko weak %p, %sf : tile<ptr<i32>>, tile<i32> -> token"""
    assert pointer_store in text
    text = text.replace(pointer_store, store_one("%sf", "%steps")).replace(
        "entry @while_break_print(", "entry @k(")
    reference = assert_alike(text, 5, [np.zeros(5, np.int32), 3], checks=False)
    assert reference[2].splitlines() == [
        "block 0: collatz(3) = 7 steps", "block 1: collatz(4) = 2 steps",
        "block 2: collatz(5) = 5 steps", "block 3: collatz(6) = 8 steps",
        "block 4: collatz(7) = 16 steps"]
    assert np.frombuffer(reference[3][0], np.int32).tolist() == [7, 2, 5, 8, 16]
    assert assert_alike(text, 5, [np.zeros(5, np.int32), 3])[2] == reference[2]


def test_a_store_inside_a_loop_declines_with_checks_on():
    """A store in a loop's body may run more than once per block: with checks on the
    race checks are not compiled, so it declines (the stores, ordered by a token carried
    through the loop, do not race); with checks off it runs compiled and the last store
    wins, as in the reference."""
    tv = "tensor_view<?xi32, strides=[1]>"
    pv = f"partition_view<tile=(1), {tv}>"
    text = module("%out: tile<ptr<i32>>, %n: tile<i32>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %zero = constant <i32: 0> : {TI}
    %one = constant <i32: 1> : {TI}
    %g:3 = get_num_tile_blocks : {TI}
    %v = make_tensor_view %out, shape = [%g#0], strides = [1] : {TI} -> {tv}
    %p = make_partition_view %v : {pv}
    %t0 = make_token : token
    %last, %tf = loop iter_values(%i = %zero, %t = %t0) : {TI}, token -> {TI}, token {{
      %r = reshape %i : {TI} -> tile<1xi32>
      %ts = store_view_tko weak %r, %p[%bx] token = %t : tile<1xi32>, {pv}, {TI} -> token
      %j = addi %i, %one : {TI}
      %end = cmpi greater_than_or_equal %j, %n, signed : {TI} -> tile<i1>
      if %end {{
        break %j, %ts : {TI}, token
      }}
      continue %j, %ts : {TI}, token
    }}""")
    for checks in (False, True):
        reference = assert_alike(text, 2, [np.zeros(2, np.int32), 4], compiled=not checks,
                                 checks=checks)
        assert np.frombuffer(reference[3][0], np.int32).tolist() == [3, 3]
    run = tileir.launch(text, "k", 2, [np.zeros(2, np.int32), 4], engine="compiled")
    assert_declined(run, "a store inside a loop")


def test_a_printing_loop_kernel_loaded_from_the_disk_cache(tmp_path, monkeypatch):
    """The print and loop ops the code calls back for are kept on disk with the code: a
    kernel loaded from there prints and loops as the reference does."""
    from tileir.interp import compiled as jit
    from tileir.interp.compiled import disk
    monkeypatch.setenv(disk.VARIABLE, str(tmp_path / "cache"))
    text = COLLATZ.replace("collatz(", "collatz from disk(")     # (a kernel of its own)
    jit.clear()
    first = assert_alike(text, 4, [np.zeros(4, np.int32), 9])
    jit.clear()
    loaded = jit.loads()
    assert assert_alike(text, 4, [np.zeros(4, np.int32), 9]) == first
    assert jit.loads() == loaded + 1
    assert first[2].splitlines()[0] == "block 0: collatz from disk(9) = 19 steps (1)"


_PRINT_AND_STORE = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %p = print_tko "block %d\\n", %bx : tile<i32> -> token
    %n:3 = get_num_tile_blocks : tile<i32>
    %v = make_tensor_view %out, shape = [%n#0], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %v : partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>
    %r = reshape %bx : tile<i32> -> tile<1xi32>
    %t = make_token : token
    %d = store_view_tko weak %r, %pv[%bx] token = %t : tile<1xi32>, partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}"""


class _FullStream(io.TextIOBase):
    """A stream whose device is full."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def _closed_stream() -> io.StringIO:
    stream = io.StringIO()
    stream.close()
    return stream


@pytest.mark.parametrize("on_error", ["restore", "keep"])
@pytest.mark.parametrize("stream", [_closed_stream, _FullStream], ids=["closed", "full"])
def test_a_stream_that_cannot_take_the_printed_text_gives_the_references_error(stream,
                                                                               on_error):
    """The compiled run holds its text until it succeeds; when the stream then refuses
    it, memory is put back and the reference reruns: its error (naming the print and
    its tile block) and its memory, even with on_error="keep" (found by a review: the
    compiled run's stores were kept and the error named only the kernel)."""
    working = io.StringIO()             # (the kernel does run compiled: then it prints)
    run = tileir.launch(_PRINT_AND_STORE, "k", 4, [np.full(4, -1, np.int32)],
                        engine="compiled", stdout=working)
    assert run.engine == "compiled" and working.getvalue() == \
        "block 0\nblock 1\nblock 2\nblock 3\n"
    outcomes = []
    for engine in ("blocks", "compiled"):
        out = np.full(4, -1, np.int32)
        with pytest.raises(tileir.ExecutionError) as caught:
            tileir.launch(_PRINT_AND_STORE, "k", 4, [out], engine=engine, stdout=stream(),
                          on_error=on_error)
        outcomes.append((str(caught.value).splitlines()[0], out.tolist()))
    assert outcomes[1] == outcomes[0]
    assert "'cuda_tile.print_tko' op" in outcomes[0][0] and outcomes[0][1] == [-1] * 4


def test_kernels_of_one_text_settle_with_their_own_ops():
    """Compiled code is shared by every kernel of one text; the ops it calls back for
    (here a print) are each launch's own (found by a review: the first kernel's ops were
    kept with the code, so a module edited in place changed what a later, fresh module
    of the original text printed)."""
    def text(message: str) -> str:
        return module("%out: tile<ptr<i32>>", f"""
    %bx, %by, %bz = get_tile_block_id : {TI}
    %p = print_tko "{message} %d;", %bx : {TI} -> token
{store_one("%bx")}""")

    def printed(kernel_module, engine: str) -> tuple:
        stream = io.StringIO()
        run = tileir.launch(kernel_module, "k", 2, [np.zeros(2, np.int32)], engine=engine,
                            stdout=stream)
        return run.engine, stream.getvalue()
    first = tileir.parse(text("hello"))
    assert printed(first, "compiled") == ("compiled", "hello 0;hello 1;")
    edited = next(o for o in first.walk() if o.name == "cuda_tile.print_tko")
    edited.attributes["str"] = next(
        o for o in tileir.parse(text("bye")).walk() if o.name == "cuda_tile.print_tko"
    ).attributes["str"]
    assert printed(first, "compiled") == ("compiled", "bye 0;bye 1;")
    assert printed(tileir.parse(text("hello")), "compiled") == \
        ("compiled", "hello 0;hello 1;")
