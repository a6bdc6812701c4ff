"""The machine: control flow, reduce/scan, launch (arguments, grid, schedules), printing,
assert, alloca, globals, cross-block races, and end-to-end kernels."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import io

import numpy as np
import pytest

import tileir
from conftest import SHARED, require
from tileir.diagnostics import ExecutionError
from tileir.interp import launch
from tileir.interp.launch import block_order

VECTOR_ADD = SHARED / "reference" / "artifacts" / "vector_add_readme.v13.4.mlir"


def module(body: str, params: str = "%out: tile<ptr<i32>>") -> str:
    """A module with one entry `k(params)` running `body`."""
    return f"""cuda_tile.module @m {{
  entry @k({params}) {{
{body}
    return
  }}
}}"""


def store_at(value: str, index: int, ty: str = "i32") -> str:
    """Text storing scalar `value` at element `index` of `%out` (token-ordered after %t)."""
    return f"""
    %ix{index} = constant <i32: {index}> : tile<i32>
    %px{index} = offset %out, %ix{index} : tile<ptr<{ty}>>, tile<i32> -> tile<ptr<{ty}>>
    %sx{index} = store_ptr_tko weak %px{index}, {value} : tile<ptr<{ty}>>, tile<{ty}> -> token
"""


def run(body: str, n: int = 1, dtype=np.int32, ty: str = "i32", **kwargs) -> list:
    """Launch a one-block kernel writing `n` scalars to `%out`; those scalars."""
    out = np.full(n, -99, dtype)
    launch(module(body, f"%out: tile<ptr<{ty}>>"), "k", 1, [out], **kwargs)
    return out.tolist()


# ---- control flow -------------------------------------------------------------


def test_for_sums_its_induction_variable():
    body = """
    %lo = constant <i32: 2> : tile<i32>
    %hi = constant <i32: 11> : tile<i32>
    %st = constant <i32: 3> : tile<i32>
    %z = constant <i32: 0> : tile<i32>
    %r = for %i in (%lo to %hi, step %st) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {
      %s = addi %acc, %i : tile<i32>
      continue %s : tile<i32>
    }""" + store_at("%r", 0)
    assert run(body) == [2 + 5 + 8]


def test_for_with_no_iterations_gives_init_and_unsigned_compare():
    body = """
    %lo = constant <i8: 1> : tile<i8>
    %hi = constant <i8: -1> : tile<i8>
    %st = constant <i8: 100> : tile<i8>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for %i in (%lo to %hi, step %st) : tile<i8> iter_values(%acc = %z) -> (tile<i32>) {
      %s = addi %acc, %one : tile<i32>
      continue %s : tile<i32>
    }
    %u = for unsigned %i in (%lo to %hi, step %st) : tile<i8> iter_values(%acc = %z) -> (tile<i32>) {
      %s = addi %acc, %one : tile<i32>
      continue %s : tile<i32>
    }""" + store_at("%r", 0) + store_at("%u", 1)
    # signed: 1 < -1 is false; unsigned: 1, 101, 201 < 255
    assert run(body, 2) == [0, 3]


def test_for_with_non_positive_step_is_reported():
    body = """
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 4> : tile<i32>
    %st = constant <i32: 0> : tile<i32>
    for %i in (%lo to %hi, step %st) : tile<i32> {
    }"""
    with pytest.raises(ExecutionError, match="non-positive step 0"):
        run(body)


def test_if_yields_from_the_taken_branch():
    body = """
    %c = constant <i1: false> : tile<i1>
    %a = constant <i32: 7> : tile<i32>
    %b = constant <i32: 9> : tile<i32>
    %r = if %c -> (tile<i32>) {
      yield %a : tile<i32>
    } else {
      yield %b : tile<i32>
    }""" + store_at("%r", 0)
    assert run(body) == [9]


def test_loop_with_break_inside_if():
    # x = 1; loop { if x > 50 break x; x = 3x }  -> 81
    body = """
    %one = constant <i32: 1> : tile<i32>
    %three = constant <i32: 3> : tile<i32>
    %lim = constant <i32: 50> : tile<i32>
    %r = loop iter_values(%x = %one) : tile<i32> -> tile<i32> {
      %big = cmpi greater_than %x, %lim, signed : tile<i32> -> tile<i1>
      if %big {
        break %x : tile<i32>
      }
      %n = muli %x, %three : tile<i32>
      continue %n : tile<i32>
    }""" + store_at("%r", 0)
    assert run(body) == [81]


def test_return_inside_a_loop_ends_the_kernel():
    body = """
    %v = constant <i32: 5> : tile<i32>
    loop {
    """ + store_at("%v", 0).replace("\n", "\n  ") + """
      return
    }
    %w = constant <i32: 6> : tile<i32>""" + store_at("%w", 1)
    assert run(body, 2) == [5, -99]


def test_assert_fails_with_its_message():
    body = """
    %c = constant <i1: [true, false]> : tile<2xi1>
    assert %c, "lanes must agree" : tile<2xi1>"""
    with pytest.raises(ExecutionError, match=r"assertion failed: lanes must agree \(first false "
                                             r"element \[1\]\)"):
        run(body)
    run(body.replace("[true, false]", "[true, true]"))


# ---- reduce and scan ------------------------------------------------------------


def test_reduce_and_scan_integer_sum_and_reverse_scan():
    body = """
    %v = iota : tile<8xi32>
    %r = reduce %v dim=0 identities=[0 : i32] : tile<8xi32> -> tile<i32>
      (%e: tile<i32>, %a: tile<i32>) {
        %s = addi %e, %a : tile<i32>
        yield %s : tile<i32>
      }
    %c = scan %v dim=0 reverse=true identities=[0 : i32] : tile<8xi32> -> tile<8xi32>
      (%e: tile<i32>, %a: tile<i32>) {
        %s = addi %e, %a : tile<i32>
        yield %s : tile<i32>
      }
    %z = constant <i32: 0> : tile<i32>
    %c0 = extract %c[%z] : tile<8xi32> -> tile<1xi32>
    %c0s = reshape %c0 : tile<1xi32> -> tile<i32>
    %six = constant <i32: 6> : tile<i32>
    %c6 = extract %c[%six] : tile<8xi32> -> tile<1xi32>
    %c6s = reshape %c6 : tile<1xi32> -> tile<i32>""" + store_at("%r", 0) + \
        store_at("%c0s", 1) + store_at("%c6s", 2)
    # sum 0..7 = 28; reverse inclusive scan at 0 = 28, at 6 = 6 + 7 = 13
    assert run(body, 3) == [28, 28, 13]


def test_reduce_along_a_dimension_of_a_2d_tile_with_two_operands():
    # A 2x4 tile of iota reshaped: [[0,1,2,3],[4,5,6,7]]; reduce dim 1 with (max, sum).
    body = """
    %v = iota : tile<8xi32>
    %m = reshape %v : tile<8xi32> -> tile<2x4xi32>
    %mx, %sm = reduce %m, %m dim=1 identities=[-2147483648 : i32, 0 : i32] : tile<2x4xi32>, tile<2x4xi32> -> tile<2xi32>, tile<2xi32>
      (%e0: tile<i32>, %a0: tile<i32>, %e1: tile<i32>, %a1: tile<i32>) {
        %x = maxi %e0, %a0 signed : tile<i32>
        %s = addi %e1, %a1 : tile<i32>
        yield %x, %s : tile<i32>, tile<i32>
      }
    %one = constant <i32: 1> : tile<i32>
    %mx1 = extract %mx[%one] : tile<2xi32> -> tile<1xi32>
    %mxs = reshape %mx1 : tile<1xi32> -> tile<i32>
    %sm1 = extract %sm[%one] : tile<2xi32> -> tile<1xi32>
    %sms = reshape %sm1 : tile<1xi32> -> tile<i32>""" + store_at("%mxs", 0) + \
        store_at("%sms", 1)
    assert run(body, 2) == [7, 22]


def test_float_reduce_uses_a_pairwise_tree():
    # [1, 2^-24, 2^-24, 2^-24] in f32: pairwise ((1 + 2^-24) + (2^-24 + 2^-24)) = 1 + 2^-23
    # exactly (1 + 2^-24 ties to 1, then 1 + 2^-23 is representable);
    # a left-to-right fold would give 1.
    text = """
    %p = constant <f32: [1.0, 5.9604644775390625E-8, 5.9604644775390625E-8, 5.9604644775390625E-8]> : tile<4xf32>
    %r = reduce %p dim=0 identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<f32>
      (%e: tile<f32>, %a: tile<f32>) {
        %s = addf %e, %a : tile<f32>
        yield %s : tile<f32>
      }""" + store_at("%r", 0, "f32")
    out = np.zeros(1, np.float32)
    launch(module(text, "%out: tile<ptr<f32>>"), "k", 1, [out])
    assert out.view(np.uint32).tolist() == [0x3F800001]


# ---- launch ---------------------------------------------------------------------


def test_block_orders():
    def order(grid, schedule, seed=None):
        return list(block_order(grid, schedule, seed))
    assert order((2, 2, 1), "sequential") == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    assert order((3, 1, 2), "reverse") == [(2, 0, 1), (1, 0, 1), (0, 0, 1),
                                           (2, 0, 0), (1, 0, 0), (0, 0, 0)]
    shuffled = order((4, 2, 1), "random", 5)
    assert sorted(shuffled) == sorted(order((4, 2, 1), "sequential"))
    assert shuffled == order((4, 2, 1), "random", 5)
    # the order is made as blocks run: the largest grid costs nothing until then
    huge = block_order((2**31 - 1, 2**31 - 1, 2**31 - 1), "reverse", None)
    assert next(huge) == (2**31 - 2, 2**31 - 2, 2**31 - 2)


GRID_BODY = """
    %x, %y, %z = get_tile_block_id : tile<i32>
    %nx, %ny, %nz = get_num_tile_blocks : tile<i32>
    %row = muli %y, %nx : tile<i32>
    %lin = addi %row, %x : tile<i32>
    %p = offset %out, %lin : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %ten = constant <i32: 10> : tile<i32>
    %v = muli %x, %ten : tile<i32>
    %w = addi %v, %y : tile<i32>
    %s = store_ptr_tko weak %p, %w : tile<ptr<i32>>, tile<i32> -> token"""


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
def test_every_block_of_a_2d_grid_runs_once(schedule):
    out = np.full(6, -1, np.int32)
    launch(module(GRID_BODY), "k", (3, 2), [out], schedule=schedule, seed=1)
    assert out.tolist() == [0, 10, 20, 1, 11, 21]


def test_blocks_writing_one_address_race():
    body = """
    %x, %y, %z = get_tile_block_id : tile<i32>
    %s = store_ptr_tko weak %out, %x : tile<ptr<i32>>, tile<i32> -> token"""
    with pytest.raises(ExecutionError, match=r"races with tile block \(0, 0, 0\)"):
        launch(module(body), "k", 2, [np.zeros(1, np.int32)])
    launch(module(body), "k", 2, [np.zeros(1, np.int32)], checks=False)


@pytest.mark.parametrize("args, message", [
    ([], "takes 2 arguments, got 0"),
    ([np.zeros(2, np.float32), 1], "expects an array of dtype int32, uint32 for i32"),
    ([[1, 2], 1], "expects a NumPy array of i32, got list"),
    ([np.zeros(4, np.int32)[::2], 1], "must be a C-contiguous array"),
    ([np.zeros(2, np.int32), 2**40], "value 1099511627776 does not fit in i32"),
    ([np.zeros(2, np.int32), 1.5], "expects an integer, got float"),
])
def test_bad_arguments_are_diagnosed(args, message):
    text = module("", "%out: tile<ptr<i32>>, %n: tile<i32>")
    with pytest.raises(ExecutionError, match=message.replace("(", r"\(")):
        launch(text, "k", 1, args)


def test_unknown_kernel_and_bad_grid():
    with pytest.raises(ExecutionError, match=r"no entry named 'nope' .*entries: k"):
        launch(module(""), "nope", 1, [np.zeros(1, np.int32)])
    with pytest.raises(ExecutionError, match="grid must have 1 to 3 positive extents"):
        launch(module(""), "k", (1, 0), [np.zeros(1, np.int32)])


def test_scalar_arguments_unsigned_and_float():
    body = store_at("%n", 0)
    out = np.zeros(1, np.int32)
    launch(module(body, "%out: tile<ptr<i32>>, %n: tile<i32>"), "k", 1, [out, 2**32 - 1])
    assert out.tolist() == [-1]


# ---- print, alloca, globals ---------------------------------------------------------


def test_print_tko_formats_like_printf():
    body = """
    %f = constant <f32: [1.5, -2.0]> : tile<2xf32>
    %i = constant <i32: 42> : tile<i32>
    %m = constant <i8: [[-1, 2], [3, 4]]> : tile<2x2xi8>
    %t = print_tko "v=%+.2f n=%05d %%\\n", %f, %i : tile<2xf32>, tile<i32> -> token
    %u = print_tko "%u %x|%d", %m, %m, %m token = %t : tile<2x2xi8>, tile<2x2xi8>, tile<2x2xi8> -> token"""
    stream = io.StringIO()
    launch(module(body), "k", 1, [np.zeros(1, np.int32)], stdout=stream)
    assert stream.getvalue() == ("v=[+1.50, -2.00] n=00042 %\n"
                                 "[[255, 2], [3, 4]] [[ff, 2], [3, 4]]|[[-1, 2], [3, 4]]")


def test_alloca_gives_fresh_zeroed_memory():
    body = """
    %a = alloca num_elem = 4, alignment = 16 : tile<ptr<i32>>
    %three = constant <i32: 3> : tile<i32>
    %p = offset %a, %three : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %v, %t = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token
    %four = constant <i32: 4> : tile<i32>
    %q = offset %a, %four : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %w, %u = load_ptr_tko weak %q : tile<ptr<i32>> -> tile<i32>, token""" + store_at("%v", 0)
    with pytest.raises(ExecutionError, match="outside every mapped buffer"):
        run(body)
    assert run(body.split("    %four")[0] + store_at("%v", 0)) == [0]


def test_get_global_reads_the_global_initializer():
    text = """cuda_tile.module @m {
  global @table <i32: [5, 6, 7, 8]> : tile<4xi32>
  entry @k(%out: tile<ptr<i32>>) {
    %g = get_global @table : tile<ptr<i32>>
    %two = constant <i32: 2> : tile<i32>
    %p = offset %g, %two : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %v, %t = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token
    %s = store_ptr_tko weak %out, %v : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}"""
    out = np.zeros(1, np.int32)
    launch(text, "k", 1, [out])
    assert out.tolist() == [7]


# ---- end to end ----------------------------------------------------------------------


def vector_add_module() -> tileir.ir.Module:
    """NVIDIA's README vector-add kernel (tileirdisasm text, 13.4)."""
    require(VECTOR_ADD)
    return tileir.parse(VECTOR_ADD.read_text(), str(VECTOR_ADD))


@pytest.mark.parametrize("schedule", ["sequential", "random"])
def test_vector_add_end_to_end(schedule):
    m = vector_add_module()
    rng = np.random.default_rng(0)
    n = 64
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    c = np.zeros(n)
    launch(m, m.entries[0].symbol, n // 16, [a, n, 1, b, n, 1, c, n, 1], schedule=schedule,
           seed=7)
    assert c.tobytes() == (a + b).tobytes()


def test_launch_names_the_only_entry_by_default():
    m = vector_add_module()
    n = 16
    a, b, c = np.arange(n, dtype=np.float64), np.ones(n), np.zeros(n)
    launch(m, None, 1, [a, n, 1, b, n, 1, c, n, 1])
    assert c.tolist() == [float(i + 1) for i in range(n)]


def test_vector_add_with_too_many_blocks_is_reported_with_location_and_block():
    m = vector_add_module()
    n = 32
    a, b, c = np.ones(n), np.ones(n), np.zeros(n)
    with pytest.raises(ExecutionError) as info:
        launch(m, m.entries[0].symbol, 3, [a, n, 1, b, n, 1, c, n, 1])
    text = str(info.value)
    assert "vector_add_readme.v13.4.mlir:23:" in text and "load_view_tko" in text
    assert "tile block (2, 0, 0)" in text and "outside the index space [2]" in text


def test_vector_add_lying_about_its_length_faults():
    # The kernel is told n = 48 but the buffers hold 32 elements: block 2 reads past them.
    m = vector_add_module()
    a, b, c = np.ones(32), np.ones(32), np.zeros(32)
    with pytest.raises(ExecutionError, match=r"outside every mapped buffer .*tile block \(2"):
        launch(m, m.entries[0].symbol, 3, [a, 48, 1, b, 48, 1, c, 48, 1])


READ_ZERO_WRITE_OWN = """
    %x, %y, %z = get_tile_block_id : tile<i32>
    %v, %t = load_ptr_tko weak %out : tile<ptr<i32>> -> tile<i32>, token
    %shift = constant <i32: SHIFT> : tile<i32>
    %i = addi %x, %shift : tile<i32>
    %p = offset %out, %i : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %s = store_ptr_tko weak %p, %v token = %t : tile<ptr<i32>>, tile<i32> -> token"""


def test_blocks_sharing_reads_do_not_race():
    out = np.array([5, 0, 0, 0], np.int32)
    launch(module(READ_ZERO_WRITE_OWN.replace("SHIFT", "1")), "k", 3, [out])
    assert out.tolist() == [5, 5, 5, 5]


@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_a_block_writing_what_another_reads_races_in_any_order(schedule):
    # Block 0 writes element 0, which every block reads.
    with pytest.raises(ExecutionError, match="races with tile block"):
        launch(module(READ_ZERO_WRITE_OWN.replace("SHIFT", "0")), "k", 3,
               [np.zeros(3, np.int32)], schedule=schedule)


def test_continue_inside_if_inside_for():
    # sum of the even i in [0, 6): odd i continue early with the unchanged sum.
    body = """
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 6> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %r = for %i in (%lo to %hi, step %st) : tile<i32> iter_values(%acc = %zero) -> (tile<i32>) {
      %m = remi %i, %two signed : tile<i32>
      %odd = cmpi not_equal %m, %zero, signed : tile<i32> -> tile<i1>
      if %odd {
        continue %acc : tile<i32>
      }
      %s = addi %acc, %i : tile<i32>
      continue %s : tile<i32>
    }""" + store_at("%r", 0)
    assert run(body) == [0 + 2 + 4]


LOOP_STORES = """
    %tv = make_tensor_view %out, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>
    %t0 = make_token : token
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 3> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %r = for %i in (%lo to %hi, step %st) : tile<i32> iter_values(%t = %t0) -> (token) {
      %v = iota : tile<4xi32>
      %i1 = reshape %i : tile<i32> -> tile<1xi32>
      %i4 = broadcast %i1 : tile<1xi32> -> tile<4xi32>
      %w = addi %v, %i4 : tile<4xi32>
      %ts = store_view_tko weak %w, %pv[INDEX] token = TOKEN : tile<4xi32>, partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
      continue %ts : token
    }"""


def test_tokens_threaded_through_loop_iterations():
    out = np.zeros(4, np.int32)
    text = LOOP_STORES.replace("INDEX", "%lo").replace("TOKEN", "%t")
    launch(module(text, "%out: tile<ptr<i32>>, %n: tile<i32>"), "k", 1, [out, 4])
    assert out.tolist() == [2, 3, 4, 5]      # the last iteration's store wins, in order


def test_unthreaded_stores_in_a_loop_race():
    text = LOOP_STORES.replace("INDEX", "%lo").replace("TOKEN", "%t0")
    with pytest.raises(ExecutionError, match="races with 'cuda_tile.store_view_tko'"):
        launch(module(text, "%out: tile<ptr<i32>>, %n: tile<i32>"), "k", 1,
               [np.zeros(4, np.int32), 4])
    # Different tiles per iteration do not conflict even without a token chain.
    out = np.zeros(12, np.int32)
    text = LOOP_STORES.replace("INDEX", "%i").replace("TOKEN", "%t0")
    launch(module(text, "%out: tile<ptr<i32>>, %n: tile<i32>"), "k", 1, [out, 12])
    assert out.tolist() == [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5]


def test_float_scalar_argument_rounds_to_the_parameter_type():
    body = """
    %s = store_ptr_tko weak %out, %x : tile<ptr<f16>>, tile<f16> -> token"""
    out = np.zeros(1, np.float16)
    # 1 + 2^-11 + 2^-20 is just above the tie between 1 and 1 + 2^-10: rounds up
    launch(module(body, "%out: tile<ptr<f16>>, %x: tile<f16>"), "k", 1,
           [out, 1 + 2**-11 + 2**-20])
    assert out.view(np.uint16).tolist() == [0x3C01]



def test_max_ops_stops_a_block_that_never_ends():
    body = """
    loop {
      continue
    }"""
    with pytest.raises(ExecutionError, match="past the limit of 50 operations"):
        launch(module(body), "k", 1, [np.zeros(1, np.int32)], max_ops=50)


@pytest.mark.parametrize("keep, reverse, expected", [
    # keeping the accumulator: reduce's tree carries the first element to the end; the
    # scan's fold starts at the identity (spec: result[0] = f(identity, X[0])), kept to the end
    ("%a", "false", [10, 0]),
    ("%e", "false", [13, 13]),   # keeping the element: the last element
    ("%a", "true", [10, 0]),     # reverse scan: the fold also starts at the identity
])
def test_reduce_and_scan_pass_element_then_accumulator(keep, reverse, expected):
    # f(e, a) = a is associative but not commutative: the result shows the order of the
    # body's arguments (element first, accumulator second) and the fold's direction.  The
    # scan is read where its prefix covers the whole tile (index 3, or 0 when reversed).
    body = f"""
    %v = constant <i32: [10, 11, 12, 13]> : tile<4xi32>
    %r = reduce %v dim=0 identities=[0 : i32] : tile<4xi32> -> tile<i32>
      (%e: tile<i32>, %a: tile<i32>) {{
        yield {keep} : tile<i32>
      }}
    %c = scan %v dim=0 reverse={reverse} identities=[0 : i32] : tile<4xi32> -> tile<4xi32>
      (%e: tile<i32>, %a: tile<i32>) {{
        yield {keep} : tile<i32>
      }}
    %last = constant <i32: {0 if reverse == "true" else 3}> : tile<i32>
    %c3 = extract %c[%last] : tile<4xi32> -> tile<1xi32>
    %c3s = reshape %c3 : tile<1xi32> -> tile<i32>""" + store_at("%r", 0) + store_at("%c3s", 1)
    got = run(body, 2)
    if reverse == "true":
        got = got[1:]  # the reduce is the same as in the forward case
        expected = expected[1:]
    assert got == expected
