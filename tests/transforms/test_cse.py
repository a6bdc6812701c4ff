"""cse: which repeated ops it merges (exact IR), where it must not (different attributes
or types, effects, sibling regions, values across isolated ops), regions compared op by op,
dead ops dropped, and, by running the kernel before and after, that results never
change."""
# ruff: noqa: E501  (expected output lines are as long as cuda-tile-opt prints them)

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import tileir
from tileir.attributes import UNKNOWN_LOC
from tileir.transforms import PASSES, run
from tileir.transforms.passes.cse import attributes_key
from transform_helpers import (BIT_DISTINCT_CONSTANTS, BIT_DISTINCT_UNIQUED, expected,
                               module_of, printed)

KERNEL = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %in: tile<ptr<i32>>, %n: tile<i32>, %a: tile<i32>) {
        %c0 = constant <i32: 0> : tile<i32>
        %c1 = constant <i32: 1> : tile<i32>
        %c0b = constant <i32: 0> : tile<i32>
        %x = addi %a, %c1 : tile<i32>
        %y = addi %a, %c1 : tile<i32>
        %ynsw = addi %a, %c1 overflow<no_signed_wrap> : tile<i32>
        %tagged = addi %a, %c1 {note = 1} : tile<i32>
        %ms = maxi %a, %c1 signed : tile<i32>
        %mu = maxi %a, %c1 unsigned : tile<i32>
        %dead = muli %a, %a : tile<i32>
        %l1, %t1 = load_ptr_tko weak %in : tile<ptr<i32>> -> tile<i32>, token
        %l2, %t2 = load_ptr_tko weak %in : tile<ptr<i32>> -> tile<i32>, token
        %r = for %i in (%c0b to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %z = addi %a, %c1 : tile<i32>
          %w = addi %acc, %i : tile<i32>
          %w2 = addi %acc, %i : tile<i32>
          %s = addi %w, %w2 : tile<i32>
          %s2 = addi %s, %z : tile<i32>
          continue %s2 : tile<i32>
        }
        %p = cmpi greater_than %a, %c0, signed : tile<i32> -> tile<i1>
        %e1 = if %p -> (tile<i32>) {
          %q = muli %x, %x : tile<i32>
          yield %q : tile<i32>
        } else {
          %q = subi %a, %c1 : tile<i32>
          yield %q : tile<i32>
        }
        %e2 = if %p -> (tile<i32>) {
          %q = muli %x, %x : tile<i32>
          yield %q : tile<i32>
        } else {
          %q = subi %a, %c1 : tile<i32>
          yield %q : tile<i32>
        }
        %e3 = if %p -> (tile<i32>) {
          %q = muli %x, %a : tile<i32>
          yield %q : tile<i32>
        } else {
          %q = subi %a, %c1 : tile<i32>
          yield %q : tile<i32>
        }
        %q3 = muli %x, %x : tile<i32>
        %v1 = addi %x, %y : tile<i32>
        %v2 = addi %v1, %ynsw : tile<i32>
        %v3 = addi %v2, %tagged : tile<i32>
        %v4 = addi %v3, %ms : tile<i32>
        %v5 = addi %v4, %mu : tile<i32>
        %v6 = addi %v5, %l1 : tile<i32>
        %v7 = addi %v6, %l2 : tile<i32>
        %v8 = addi %v7, %r : tile<i32>
        %v9 = addi %v8, %e1 : tile<i32>
        %v10 = addi %v9, %e2 : tile<i32>
        %v11 = addi %v10, %e3 : tile<i32>
        %v12 = addi %v11, %q3 : tile<i32>
        %w = store_ptr_tko weak %out, %v12 : tile<ptr<i32>>, tile<i32> -> token
        return
      }
      entry @other(%out: tile<ptr<i32>>) {
        %c1 = constant <i32: 1> : tile<i32>
        %w = store_ptr_tko weak %out, %c1 : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
    """)


def test_repeats_are_merged_where_visible() -> None:
    # merged: the second constant 0 and addi, the addi in the loop (an enclosing block's
    # op is visible there), the loop's repeated addi, the second if (its regions match);
    # kept: another overflow flag, a discardable attribute, another signedness, the loads
    # (effects), the third if (another then region), the muli after the ifs (the one in
    # the region is not visible there), the constant of another entry (isolated); the
    # unused muli is dropped
    module = tileir.parse(KERNEL)
    run(module, "cse")
    assert module.format() == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<ptr<i32>>, %arg2: tile<i32>, %arg3: tile<i32>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %0 = addi %arg3, %cst_1_i32 : tile<i32>
            %1 = addi %arg3, %cst_1_i32 overflow<no_signed_wrap> : tile<i32>
            %2 = addi %arg3, %cst_1_i32 {note = 1 : i64} : tile<i32>
            %3 = maxi %arg3, %cst_1_i32 signed : tile<i32>
            %4 = maxi %arg3, %cst_1_i32 unsigned : tile<i32>
            %result, %result_token = load_ptr_tko weak %arg1 : tile<ptr<i32>> -> tile<i32>, token
            %result_0, %result_token_1 = load_ptr_tko weak %arg1 : tile<ptr<i32>> -> tile<i32>, token
            %for = for %loopIdx in (%cst_0_i32 to %arg2, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %22 = addi %iterArg0, %loopIdx : tile<i32>
              %23 = addi %22, %22 : tile<i32>
              %24 = addi %23, %0 : tile<i32>
              continue %24 : tile<i32>
            }
            %5 = cmpi greater_than %arg3, %cst_0_i32, signed : tile<i32> -> tile<i1>
            %6 = if %5 -> (tile<i32>) {
              %22 = muli %0, %0 : tile<i32>
              yield %22 : tile<i32>
            } else {
              %22 = subi %arg3, %cst_1_i32 : tile<i32>
              yield %22 : tile<i32>
            }
            %7 = if %5 -> (tile<i32>) {
              %22 = muli %0, %arg3 : tile<i32>
              yield %22 : tile<i32>
            } else {
              %22 = subi %arg3, %cst_1_i32 : tile<i32>
              yield %22 : tile<i32>
            }
            %8 = muli %0, %0 : tile<i32>
            %9 = addi %0, %0 : tile<i32>
            %10 = addi %9, %1 : tile<i32>
            %11 = addi %10, %2 : tile<i32>
            %12 = addi %11, %3 : tile<i32>
            %13 = addi %12, %4 : tile<i32>
            %14 = addi %13, %result : tile<i32>
            %15 = addi %14, %result_0 : tile<i32>
            %16 = addi %15, %for : tile<i32>
            %17 = addi %16, %6 : tile<i32>
            %18 = addi %17, %6 : tile<i32>
            %19 = addi %18, %7 : tile<i32>
            %20 = addi %19, %8 : tile<i32>
            %21 = store_ptr_tko weak %arg0, %20 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
          entry @other(%arg0: tile<ptr<i32>>) {
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %0 = store_ptr_tko weak %arg0, %cst_1_i32 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


def test_anchored_on_any_op() -> None:
    assert PASSES["cse"].anchor == "any"
    whole, nested = tileir.parse(KERNEL), tileir.parse(KERNEL)
    run(whole, "cse")
    run(nested, "cuda_tile.module(cuda_tile.entry(cse))")
    assert whole.format() == nested.format()


def test_a_second_run_changes_nothing() -> None:
    module = tileir.parse(KERNEL)
    run(module, "cse")
    once = module.format()
    run(module, "cse")
    assert module.format() == once


def _body(text: str) -> tileir.Module:
    """A module whose only entry, on %a and %out, has the body `text`."""
    return tileir.parse("cuda_tile.module @m { entry @k(%a: tile<i32>, %out: tile<ptr<i32>>) "
                        "{\n" + text + "\nreturn } }")


#: Two equal adds (ops 1 and 2) whose sum is stored.
TWO_ADDS = """%c1 = constant <i32: 1> : tile<i32>
%x = addi %a, %c1 : tile<i32>
%y = addi %a, %c1 : tile<i32>
%s = addi %x, %y : tile<i32>
%t = store_ptr_tko weak %out, %s : tile<ptr<i32>>, tile<i32> -> token"""


def test_a_declared_default_counts_as_given() -> None:
    module = _body(TWO_ADDS)
    ops = module.entries[0].regions[0].block.operations
    assert "overflow" not in ops[1].attributes
    ops[1].attributes["overflow"] = ops[1].opdef.attr_default("overflow")   # as built
    assert attributes_key(ops[1]) == attributes_key(ops[2])
    run(module, "cse")
    assert "%1 = addi %0, %0 : tile<i32>" in module.format()


def test_result_types_must_match() -> None:
    module = _body("""%b = trunci %a : tile<i32> -> tile<i8>
%x = exti %b signed : tile<i8> -> tile<i32>
%y = exti %b signed : tile<i8> -> tile<i16>
%z = exti %y signed : tile<i16> -> tile<i32>
%s = addi %x, %z : tile<i32>
%t = store_ptr_tko weak %out, %s : tile<ptr<i32>>, tile<i32> -> token""")
    before = module.format()
    run(module, "cse")
    assert module.format() == before


def test_the_kept_op_takes_a_known_location() -> None:
    module = _body(TWO_ADDS)
    ops = module.entries[0].regions[0].block.operations
    first, second = ops[1], ops[2]
    where = second.location
    first.location = UNKNOWN_LOC
    run(module, "cse")
    assert first.location == where and second.parent is None


def test_constants_equal_as_numbers_but_not_in_bits_stay_apart() -> None:
    """0.0 and -0.0 compare equal as floats, NaNs of two payloads unequal: CSE keys
    attributes by their bits, so only the repeated -0.0 merges."""
    module = module_of(BIT_DISTINCT_CONSTANTS)
    run(module, "cse")
    assert printed(module) == expected(BIT_DISTINCT_UNIQUED)


def _launch(module: tileir.Module, n: int, a: int) -> bytes | str:
    """Entry k's output on (n, a), or the undefined behaviour it reports."""
    out, src = np.zeros(1, np.int32), np.array([a % 97 - 40], np.int32)
    try:
        tileir.launch(module, "k", grid=1, args=[out, src, np.int32(n), np.int32(a)])
    except tileir.ExecutionError as error:
        return str(error)
    return out.tobytes()


@pytest.mark.parametrize("n, a", [(0, 0), (3, 5), (4, -9), (2, 2**31 - 1)])
def test_results_never_change(n: int, a: int) -> None:
    before, after = tileir.parse(KERNEL), tileir.parse(KERNEL)
    run(after, "cse")
    assert _launch(before, n, a) == _launch(after, n, a)
