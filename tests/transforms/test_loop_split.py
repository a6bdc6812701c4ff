"""loop-split: the exact IR it prints for small kernels, when it declines, and, by running
each kernel before and after the pass, that it never changes a result (bounds at the
type's edges, signed and unsigned loops, zero-trip loops, splits at either end)."""
# ruff: noqa: E501  (expected output lines are as long as cuda-tile-opt prints them)

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import tileir
from tileir.transforms import PASSES, run
from tileir.transforms.check import Report
from tileir.transforms.passes.loop_split import constant_int

PIPELINE = "cuda_tile.module(cuda_tile.entry(loop-split{options}))"


def split(text: str, options: str = "") -> str:
    """`text` after loop-split, printed."""
    module = tileir.parse(textwrap.dedent(text))
    run(module, PIPELINE.format(options="{" + options + "}" if options else ""))
    return module.format()


def unchanged(text: str, options: str = "") -> bool:
    """Whether loop-split leaves `text` as it prints."""
    return split(text, options) == tileir.parse(textwrap.dedent(text)).format()


# ---- printed IR ------------------------------------------------------------------------


CONSTANT_GT = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>) {
        %c0 = constant <i32: 0> : tile<i32>
        %c1 = constant <i32: 1> : tile<i32>
        %c10 = constant <i32: 10> : tile<i32>
        %c4 = constant <i32: 4> : tile<i32>
        %r = for %i in (%c0 to %c10, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %p = cmpi greater_than %i, %c4, signed : tile<i32> -> tile<i1>
          %v = if %p -> (tile<i32>) {
            %d = muli %i, %i : tile<i32>
            yield %d : tile<i32>
          } else {
            yield %i : tile<i32>
          }
          %s = addi %acc, %v : tile<i32>
          continue %s : tile<i32>
        }
        %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
""")


def test_constant_bound_splits_with_the_reference_ops() -> None:
    # i > 4: the first loop runs to min(4 + 1, 10) with the else branch, the second from
    # max(4 + 1, 0) with the then branch, carrying the first loop's result
    assert split(CONSTANT_GT) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %cst_10_i32 = constant <i32: 10> : tile<i32>
            %cst_4_i32 = constant <i32: 4> : tile<i32>
            %cst_1_i32_0 = constant <i32: 1> : tile<i32>
            %0 = addi %cst_4_i32, %cst_1_i32_0 : tile<i32>
            %1 = mini %0, %cst_10_i32 signed : tile<i32>
            %2 = maxi %0, %cst_0_i32 signed : tile<i32>
            %for = for %loopIdx in (%cst_0_i32 to %1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %4 = addi %iterArg0, %loopIdx : tile<i32>
              continue %4 : tile<i32>
            }
            %for_1 = for %loopIdx in (%2 to %cst_10_i32, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %for) -> (tile<i32>) {
              %4 = muli %loopIdx, %loopIdx : tile<i32>
              %5 = addi %iterArg0, %4 : tile<i32>
              continue %5 : tile<i32>
            }
            %3 = store_ptr_tko weak %arg0, %for_1 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


def test_constant_step_is_rounded_to_an_iteration() -> None:
    text = CONSTANT_GT.replace("%c1 = constant <i32: 1>", "%c1 = constant <i32: 3>")
    assert "\n".join(split(text).splitlines()[7:14]) == textwrap.indent(textwrap.dedent("""\
        %0 = addi %cst_4_i32, %cst_1_i32 : tile<i32>
        %1 = subi %0, %cst_0_i32 : tile<i32>
        %2 = divi %1, %cst_3_i32 signed rounding<positive_inf> : tile<i32>
        %3 = muli %2, %cst_3_i32 : tile<i32>
        %4 = addi %cst_0_i32, %3 : tile<i32>
        %5 = mini %4, %cst_10_i32 signed : tile<i32>
        %6 = maxi %4, %cst_0_i32 signed : tile<i32>"""), " " * 4)


DYNAMIC = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %lb: tile<i32>, %ub: tile<i32>, %step: tile<i32>, %b: tile<i32>) {
        %c0 = constant <i32: 0> : tile<i32>
        %r = for %i in (%lb to %ub, step %step) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %p = cmpi greater_than_or_equal %b, %i, signed : tile<i32> -> tile<i1>
          %v = if %p -> (tile<i32>) {
            %d = muli %acc, %i : tile<i32>
            yield %d : tile<i32>
          } else {
            %d = subi %acc, %i : tile<i32>
            yield %d : tile<i32>
          }
          continue %v : tile<i32>
        }
        %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
""")


def test_dynamic_operands_split_without_wrapping() -> None:
    # b >= i is i <= b: the point b + 1 saturates at the maximum, is clamped into
    # [lb, ub]; the second loop starts at the first iteration at or past it
    assert split(DYNAMIC) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %0 = addi %arg4, %cst_1_i32 : tile<i32>
            %1 = maxi %0, %arg4 signed : tile<i32>
            %2 = mini %1, %arg2 signed : tile<i32>
            %3 = maxi %2, %arg1 signed : tile<i32>
            %4 = subi %3, %arg1 : tile<i32>
            %5 = remi %4, %arg3 unsigned : tile<i32>
            %6 = subi %arg3, %5 : tile<i32>
            %7 = remi %6, %arg3 unsigned : tile<i32>
            %8 = subi %arg2, %3 : tile<i32>
            %9 = mini %7, %8 unsigned : tile<i32>
            %10 = addi %3, %9 : tile<i32>
            %for = for %loopIdx in (%arg1 to %3, step %arg3) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %12 = muli %iterArg0, %loopIdx : tile<i32>
              continue %12 : tile<i32>
            }
            %for_0 = for %loopIdx in (%10 to %arg2, step %arg3) : tile<i32> iter_values(%iterArg0 = %for) -> (tile<i32>) {
              %12 = subi %iterArg0, %loopIdx : tile<i32>
              continue %12 : tile<i32>
            }
            %11 = store_ptr_tko weak %arg0, %for_0 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


def test_dynamic_bound_with_unit_step_needs_no_arithmetic_for_less_than() -> None:
    text = DYNAMIC.replace("%lb: tile<i32>, %ub: tile<i32>, %step: tile<i32>, ", "%ub: tile<i32>, ") \
        .replace("(%lb to %ub, step %step)", "(%c0 to %ub, step %one)") \
        .replace("%c0 = constant <i32: 0> : tile<i32>",
                 "%c0 = constant <i32: 0> : tile<i32>\n    %one = constant <i32: 1> : tile<i32>") \
        .replace("greater_than_or_equal %b, %i", "less_than %i, %b")
    assert split(text).splitlines()[4:7] == [
        "    %0 = mini %arg2, %arg1 signed : tile<i32>",
        "    %1 = maxi %arg2, %cst_0_i32 signed : tile<i32>",
        "    %for = for %loopIdx in (%cst_0_i32 to %0, step %cst_1_i32) : tile<i32> "
        "iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {"]


OTHER_USES = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %n: tile<i64>, %b: tile<i64>) {
        %c0 = constant <i64: 0> : tile<i64>
        %c1 = constant <i64: 1> : tile<i64>
        %z = constant <i32: 0> : tile<i32>
        %r = for %i in (%c0 to %n, step %c1) : tile<i64> iter_values(%acc = %z) -> (tile<i32>) {
          %p = cmpi less_than %i, %b, signed : tile<i64> -> tile<i1>
          %x = trunci %i : tile<i64> -> tile<i32>
          %q = select %p, %x, %acc : tile<i1>, tile<i32>
          %v = if %p -> (tile<i32>) {
            %d = addi %q, %x : tile<i32>
            continue %d : tile<i32>
          } else {
            yield %q : tile<i32>
          }
          %w = if %p -> (tile<i32>) {
            yield %v : tile<i32>
          } else {
            yield %x : tile<i32>
          }
          %s = muli %w, %x : tile<i32>
          continue %s : tile<i32>
        }
        %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
""")


def test_other_uses_see_a_constant_and_continue_ends_the_body() -> None:
    # i < b: the first loop takes the then branches (the first ends in continue, so the
    # rest of the body goes), the second the else branches; select sees true / false
    assert split(OTHER_USES) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<i64>, %arg2: tile<i64>) {
            %cst_0_i64 = constant <i64: 0> : tile<i64>
            %cst_1_i64 = constant <i64: 1> : tile<i64>
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %0 = mini %arg2, %arg1 signed : tile<i64>
            %1 = maxi %arg2, %cst_0_i64 signed : tile<i64>
            %for = for %loopIdx in (%cst_0_i64 to %0, step %cst_1_i64) : tile<i64> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %true = constant <i1: true> : tile<i1>
              %3 = trunci %loopIdx : tile<i64> -> tile<i32>
              %4 = select %true, %3, %iterArg0 : tile<i1>, tile<i32>
              %5 = addi %4, %3 : tile<i32>
              continue %5 : tile<i32>
            }
            %for_0 = for %loopIdx in (%1 to %arg1, step %cst_1_i64) : tile<i64> iter_values(%iterArg0 = %for) -> (tile<i32>) {
              %false = constant <i1: false> : tile<i1>
              %3 = trunci %loopIdx : tile<i64> -> tile<i32>
              %4 = select %false, %3, %iterArg0 : tile<i1>, tile<i32>
              %5 = muli %3, %3 : tile<i32>
              continue %5 : tile<i32>
            }
            %2 = store_ptr_tko weak %arg0, %for_0 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


NESTED = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %n: tile<i32>) {
        %c0 = constant <i32: 0> : tile<i32>
        %c1 = constant <i32: 1> : tile<i32>
        %c2 = constant <i32: 2> : tile<i32>
        %r = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %p = cmpi less_than %i, %c2, signed : tile<i32> -> tile<i1>
          %v = if %p -> (tile<i32>) {
            %w = for %j in (%c0 to %n, step %c1) : tile<i32> iter_values(%a = %acc) -> (tile<i32>) {
              %q = cmpi greater_than %j, %c1, signed : tile<i32> -> tile<i1>
              %u = if %q -> (tile<i32>) {
                %m = muli %a, %j : tile<i32>
                yield %m : tile<i32>
              } else {
                %m = addi %a, %j : tile<i32>
                yield %m : tile<i32>
              }
              continue %u : tile<i32>
            }
            yield %w : tile<i32>
          } else {
            %m = subi %acc, %i : tile<i32>
            yield %m : tile<i32>
          }
          continue %v : tile<i32>
        }
        %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
""")


def test_inner_loop_splits_first_then_the_outer_one() -> None:
    # the inner loop (j > 1) splits inside the then branch; the outer loop (i < 2) then
    # splits, its first part taking that branch whole
    assert split(NESTED) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<i32>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %cst_2_i32 = constant <i32: 2> : tile<i32>
            %0 = mini %cst_2_i32, %arg1 signed : tile<i32>
            %1 = maxi %cst_2_i32, %cst_0_i32 signed : tile<i32>
            %for = for %loopIdx in (%cst_0_i32 to %0, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %cst_1_i32_1 = constant <i32: 1> : tile<i32>
              %3 = addi %cst_1_i32, %cst_1_i32_1 : tile<i32>
              %4 = mini %3, %arg1 signed : tile<i32>
              %5 = maxi %3, %cst_0_i32 signed : tile<i32>
              %for_2 = for %loopIdx_4 in (%cst_0_i32 to %4, step %cst_1_i32) : tile<i32> iter_values(%iterArg0_5 = %iterArg0) -> (tile<i32>) {
                %6 = addi %iterArg0_5, %loopIdx_4 : tile<i32>
                continue %6 : tile<i32>
              }
              %for_3 = for %loopIdx_4 in (%5 to %arg1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0_5 = %for_2) -> (tile<i32>) {
                %6 = muli %iterArg0_5, %loopIdx_4 : tile<i32>
                continue %6 : tile<i32>
              }
              continue %for_3 : tile<i32>
            }
            %for_0 = for %loopIdx in (%1 to %arg1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %for) -> (tile<i32>) {
              %3 = subi %iterArg0, %loopIdx : tile<i32>
              continue %3 : tile<i32>
            }
            %2 = store_ptr_tko weak %arg0, %for_0 : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


# ---- when it declines -------------------------------------------------------------------


def _variant(old: str, new: str) -> str:
    """`CONSTANT_GT` with one piece of text replaced."""
    assert old in CONSTANT_GT
    return CONSTANT_GT.replace(old, new)


@pytest.mark.parametrize("old, new", [
    ("greater_than %i, %c4", "equal %i, %c4"),                       # not an ordering
    ("greater_than %i, %c4", "not_equal %c4, %i"),
    ("greater_than %i, %c4, signed", "greater_than %i, %c4, unsigned"),   # signedness
    ("for %i", "for unsigned %i"),
    ("greater_than %i, %c4", "greater_than %acc, %c4"),              # no induction variable
    ("greater_than %i, %c4", "greater_than %i, %acc"),               # a loop-carried bound
    ("greater_than %i, %c4", "greater_than %i, %i"),
    ("%p = cmpi greater_than %i, %c4", "%e = addi %i, %c1 : tile<i32>\n"
     "      %p = cmpi greater_than %i, %e"),                             # a bound from the body
])
def test_conditions_it_cannot_split_on(old: str, new: str) -> None:
    assert unchanged(_variant(old, new))


def test_a_condition_that_is_not_a_comparison() -> None:
    text = _variant("%p = cmpi greater_than %i, %c4, signed : tile<i32> -> tile<i1>",
                    "%e = trunci %i : tile<i32> -> tile<i1>\n      %p = xori %e, %e : tile<i1>")
    assert unchanged(text)


def test_threshold_counts_branch_ops_or_heavy_ones() -> None:
    assert unchanged(CONSTANT_GT, "split-threshold=2")      # one op in the then branch
    assert not unchanged(CONSTANT_GT, "split-threshold=1")
    bigger = _variant("%d = muli %i, %i : tile<i32>",
                      "%e = muli %i, %i : tile<i32>\n        %d = addi %e, %i : tile<i32>")
    assert not unchanged(bigger, "split-threshold=2")
    assert unchanged(bigger, "split-threshold=3")
    assert unchanged(CONSTANT_GT, "split-threshold=0")
    heavy = _variant("%d = muli %i, %i : tile<i32>",
                     "%l, %tk = load_ptr_tko weak %out : tile<ptr<i32>> -> tile<i32>, token\n"
                     "        %d = muli %l, %i : tile<i32>")
    assert not unchanged(heavy, "split-threshold=100")


def test_hints_override_the_option_innermost_first() -> None:
    on_if = _variant("        yield %i : tile<i32>\n      }",
                     "        yield %i : tile<i32>\n      } {cuda_tile.loop_split = HINT}")
    on_for = _variant("      continue %s : tile<i32>\n    }",
                      "      continue %s : tile<i32>\n    } {cuda_tile.loop_split = HINT}")
    on_entry = _variant("    return\n  }", "    return\n  } {cuda_tile.loop_split = HINT}")
    for hinted in (on_if, on_for, on_entry):
        assert unchanged(hinted.replace("HINT", "0"))
        assert not unchanged(hinted.replace("HINT", "1"), "split-threshold=0")
    both = on_for.replace("HINT", "0").replace("    return\n  }",
                                               "    return\n  } {cuda_tile.loop_split = 1}")
    assert unchanged(both)
    assert not unchanged(on_if.replace("HINT", "1").replace(
        "    return\n  }", "    return\n  } {cuda_tile.loop_split = 0}"))


def test_options_and_anchor() -> None:
    loop_split = PASSES["loop-split"]
    assert loop_split.anchor == "function"
    assert [(o.name, o.type, o.default) for o in loop_split.options] == \
        [("split-threshold", int, 1)]
    module = tileir.parse(textwrap.dedent(CONSTANT_GT))
    with pytest.raises(tileir.transforms.PassFailure):
        run(module, "cuda_tile.module(loop-split)")


def test_constant_int_reads_signed_or_unsigned() -> None:
    module = tileir.parse("cuda_tile.module @m { entry @k() {\n"
                          "  %c = constant <i8: -1> : tile<i8>\n  return } }")
    value = module.entries[0].regions[0].block.operations[0].result
    assert (constant_int(value, False), constant_int(value, True)) == (-1, 255)


# ---- by execution -----------------------------------------------------------------------

PREDICATES = ["less_than", "less_than_or_equal", "greater_than", "greater_than_or_equal"]


def kernel(t: str, predicate: str, sign: str, iv_left: bool,
           constants: tuple[int, int, int, int] | None = None) -> str:
    """A loop over [lb, ub) by step, each iteration folding the induction variable into a
    hash that depends on which branch ran (i `predicate` bound, or bound `predicate` i);
    lb, ub, step and bound are parameters, or the given constants."""
    loop = "for unsigned" if sign == "unsigned" else "for"
    widen = {"i8": f"%x = exti %i {sign} : tile<i8> -> tile<i32>",
             "i16": f"%x = exti %i {sign} : tile<i16> -> tile<i32>",
             "i64": "%x = trunci %i : tile<i64> -> tile<i32>"}[t]
    names = ("lb", "ub", "step", "b")
    if constants is None:
        params = "".join(f", %{n}: tile<{t}>" for n in names)
        values = ""
    else:
        params = ""
        values = "".join(f"    %{n} = constant <{t}: {v}> : tile<{t}>\n"
                         for n, v in zip(names, constants))
    compared = "%i, %b" if iv_left else "%b, %i"
    return f"""cuda_tile.module @m {{
  entry @k(%out: tile<ptr<i32>>{params}) {{
{values}    %c0 = constant <i32: 0> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %c5 = constant <i32: 5> : tile<i32>
    %r = {loop} %i in (%lb to %ub, step %step) : tile<{t}> iter_values(%acc = %c0) -> (tile<i32>) {{
      {widen}
      %p = cmpi {predicate} {compared}, {sign} : tile<{t}> -> tile<i1>
      %v = if %p -> (tile<i32>) {{
        %m = muli %acc, %c3 : tile<i32>
        %a = addi %m, %x : tile<i32>
        yield %a : tile<i32>
      }} else {{
        %m = muli %acc, %c5 : tile<i32>
        %a = subi %m, %x : tile<i32>
        yield %a : tile<i32>
      }}
      continue %v : tile<i32>
    }}
    %t = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
    return
  }}
}}
"""


def _wrapped(value: int, bits: int) -> int:
    """`value` as the signed integer of the same `bits` low bits."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _launch(module: tileir.Module, args: list) -> bytes:
    out = np.zeros(1, np.int32)
    tileir.launch(module, None, grid=1, args=[out, *args])
    return out.tobytes()


def _cases(bits: int, unsigned: bool) -> list[tuple[int, int, int, int]]:
    """(lb, ub, step, bound), read with the loop's signedness: zero-trip loops, bounds
    at the type's ends, splits before, at and after each end, steps of 1 and more."""
    low, high = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    mid = (low + high) // 2
    cases = [(0, 0, 1, 0), (5, 2, 1, 3), (5, 5, 3, 5)]                  # zero-trip
    for lb, ub in ((0, 10), (low, low + 9), (high - 9, high), (mid - 4, mid + 5)):
        for step in (1, 3, 4, 11):
            for bound in (lb - 1, lb, lb + 1, lb + 4, ub - 2, ub - 1, ub, ub + 1, low, high):
                if low <= bound <= high:
                    cases.append((lb, ub, step, bound))
    cases += [(low, high, (1 << (bits - 2)) + 1, b) for b in (low, mid, high - 1, high)]
    cases += [(low + 1, high, high // 3, b) for b in (low, mid + 1, high)]
    return cases


@pytest.mark.parametrize("sign", ["signed", "unsigned"])
@pytest.mark.parametrize("predicate", PREDICATES)
@pytest.mark.parametrize("iv_left", [True, False], ids=["iv-left", "iv-right"])
def test_i8_results_never_change_with_dynamic_operands(sign: str, predicate: str,
                                                       iv_left: bool) -> None:
    text = kernel("i8", predicate, sign, iv_left)
    before, after = tileir.parse(text), tileir.parse(text)
    run(after, PIPELINE.format(options=""))
    assert after.format().count(" in (") == 2
    for case in _cases(8, sign == "unsigned"):
        args = [np.int8(_wrapped(v, 8)) for v in case]
        assert _launch(before, args) == _launch(after, args), case


@pytest.mark.parametrize("sign", ["signed", "unsigned"])
@pytest.mark.parametrize("predicate", PREDICATES)
def test_i8_results_never_change_with_constant_operands(sign: str, predicate: str) -> None:
    for iv_left in (True, False):
        for case in _cases(8, sign == "unsigned")[::3]:
            text = kernel("i8", predicate, sign, iv_left,
                          tuple(_wrapped(v, 8) for v in case))     # type: ignore[arg-type]
            before, after = tileir.parse(text), tileir.parse(text)
            run(after, PIPELINE.format(options=""))
            assert after.format().count(" in (") == 2
            assert _launch(before, []) == _launch(after, []), (iv_left, case)


@pytest.mark.parametrize("t, bits", [("i16", 16), ("i64", 64)])
@pytest.mark.parametrize("sign", ["signed", "unsigned"])
def test_wide_types_at_their_edges(t: str, bits: int, sign: str) -> None:
    dtype = {16: np.int16, 64: np.int64}[bits]
    for predicate in PREDICATES:
        text = kernel(t, predicate, sign, True)
        before, after = tileir.parse(text), tileir.parse(text)
        run(after, PIPELINE.format(options=""))
        assert after.format().count(" in (") == 2, predicate
        for case in _cases(bits, sign == "unsigned")[::4]:
            args = [dtype(_wrapped(v, bits)) for v in case]
            assert _launch(before, args) == _launch(after, args), (predicate, case)


def test_the_reference_arithmetic_would_wrap_where_this_does_not() -> None:
    # i <= 127 on i8 is always true: the reference's 127 + 1 wraps to -128 and would run
    # every iteration in the else loop
    text = kernel("i8", "less_than_or_equal", "signed", True)
    before, after = tileir.parse(text), tileir.parse(text)
    run(after, PIPELINE.format(options=""))
    args = [np.int8(v) for v in (120, 127, 1, 127)]
    assert _launch(before, args) == _launch(after, args)
    constant = kernel("i8", "less_than_or_equal", "signed", True, (120, 127, 1, 127))
    printed = split(constant)
    assert "%1 = maxi %0, %cst_127_i8_0 signed : tile<i8>" in printed    # saturating + 1


def test_the_semantics_check_agrees() -> None:
    # tileir.transforms' own check: the kernel (a load in one branch) run on made-up
    # inputs before and after the pass
    heavy = _variant("%d = muli %i, %i : tile<i32>",
                     "%l, %tk = load_ptr_tko weak %in : tile<ptr<i32>> -> tile<i32>, token\n"
                     "        %d = muli %l, %i : tile<i32>")
    module = tileir.parse(heavy.replace("(%out: tile<ptr<i32>>)",
                                        "(%out: tile<ptr<i32>>, %in: tile<ptr<i32>>)"))
    report = Report()
    run(module, PIPELINE.format(options=""), check_semantics=True, report=report)
    assert report.compared == {"loop-split": 1} and module.format().count(" in (") == 2
