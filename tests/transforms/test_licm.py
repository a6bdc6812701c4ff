"""loop-invariant-code-motion: what moves out of ``for`` and ``loop`` bodies (exact IR),
what must stay (ops some inputs make undefined behaviour, ops with regions, ops with
effects, ops using the loop's values), and, by running kernels before and after, that
hoisting never changes a result nor brings undefined behaviour into a zero-trip loop."""
# ruff: noqa: E501  (expected output lines are as long as cuda-tile-opt prints them)

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import tileir
from tileir.transforms import PASSES, run
from tileir.transforms.passes.licm import is_speculatable

PIPELINE = "cuda_tile.module(loop-invariant-code-motion)"


def hoisted(text: str) -> str:
    """`text` after the pass, printed."""
    module = tileir.parse(text)
    run(module, PIPELINE)
    return module.format()


SPECULATION = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %n: tile<i32>, %a: tile<i32>, %s: tile<i32>) {
        %c0 = constant <i32: 0> : tile<i32>
        %c1 = constant <i32: 1> : tile<i32>
        %r = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %c3 = constant <i32: 3> : tile<i32>
          %x = addi %a, %c3 : tile<i32>
          %y = muli %x, %x : tile<i32>
          %d = divi %y, %a signed : tile<i32>
          %m = remi %y, %a signed : tile<i32>
          %o = addi %x, %a overflow<no_signed_wrap> : tile<i32>
          %sh = shli %a, %c3 : tile<i32>
          %sv = shli %a, %s : tile<i32>
          %u = addi %acc, %i : tile<i32>
          %v1 = addi %u, %d : tile<i32>
          %v2 = addi %v1, %m : tile<i32>
          %v3 = addi %v2, %o : tile<i32>
          %v4 = addi %v3, %sh : tile<i32>
          %v5 = addi %v4, %sv : tile<i32>
          continue %v5 : tile<i32>
        }
        %w = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
    """)


def test_speculatable_invariants_move_and_undefined_ones_stay() -> None:
    # the constant, then its users (the worklist), then theirs; division, remainder, a
    # no-signed-wrap add and a shift by an unknown amount stay (a zero-trip loop must not
    # run them); so do ops using the induction variable or the loop-carried value
    assert hoisted(SPECULATION) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %cst_3_i32 = constant <i32: 3> : tile<i32>
            %0 = addi %arg2, %cst_3_i32 : tile<i32>
            %1 = muli %0, %0 : tile<i32>
            %2 = shli %arg2, %cst_3_i32 : tile<i32>
            %for = for %loopIdx in (%cst_0_i32 to %arg1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %4 = divi %1, %arg2 signed : tile<i32>
              %5 = remi %1, %arg2 signed : tile<i32>
              %6 = addi %0, %arg2 overflow<no_signed_wrap> : tile<i32>
              %7 = shli %arg2, %arg3 : tile<i32>
              %8 = addi %iterArg0, %loopIdx : tile<i32>
              %9 = addi %8, %4 : tile<i32>
              %10 = addi %9, %5 : tile<i32>
              %11 = addi %10, %6 : tile<i32>
              %12 = addi %11, %2 : tile<i32>
              %13 = addi %12, %7 : tile<i32>
              continue %13 : tile<i32>
            }
            %3 = store_ptr_tko weak %arg0, %for : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


NESTED = textwrap.dedent("""\
    cuda_tile.module @m {
      entry @k(%out: tile<ptr<i32>>, %in: tile<ptr<i32>>, %n: tile<i32>, %a: tile<i32>) {
        %c0 = constant <i32: 0> : tile<i32>
        %c1 = constant <i32: 1> : tile<i32>
        %flag = cmpi greater_than %a, %c0, signed : tile<i32> -> tile<i1>
        %r = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
          %l = loop iter_values(%b = %acc) : tile<i32> -> tile<i32> {
            %c2 = constant <i32: 2> : tile<i32>
            %x = muli %a, %c2 : tile<i32>
            %y = addi %x, %i : tile<i32>
            %z = addi %y, %b : tile<i32>
            %e = if %flag -> (tile<i32>) {
              yield %x : tile<i32>
            } else {
              yield %a : tile<i32>
            }
            %v, %t = load_ptr_tko weak %in : tile<ptr<i32>> -> tile<i32>, token
            %q = addi %z, %e : tile<i32>
            %q2 = addi %q, %v : tile<i32>
            break %q2 : tile<i32>
          }
          continue %l : tile<i32>
        }
        %w = store_ptr_tko weak %out, %r : tile<ptr<i32>>, tile<i32> -> token
        return
      }
    }
    """)


def test_inner_loops_first_and_out_of_both() -> None:
    # x leaves the loop and then the for; y (the for's induction variable) only the loop;
    # the invariant if (not speculatable) and the load (an effect) stay
    assert hoisted(NESTED) == textwrap.dedent("""\
        cuda_tile.module @m {
          entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<ptr<i32>>, %arg2: tile<i32>, %arg3: tile<i32>) {
            %cst_0_i32 = constant <i32: 0> : tile<i32>
            %cst_1_i32 = constant <i32: 1> : tile<i32>
            %0 = cmpi greater_than %arg3, %cst_0_i32, signed : tile<i32> -> tile<i1>
            %cst_2_i32 = constant <i32: 2> : tile<i32>
            %1 = muli %arg3, %cst_2_i32 : tile<i32>
            %for = for %loopIdx in (%cst_0_i32 to %arg2, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
              %3 = addi %1, %loopIdx : tile<i32>
              %4 = loop iter_values(%arg4 = %iterArg0) : tile<i32> -> tile<i32> {
                %5 = addi %3, %arg4 : tile<i32>
                %6 = if %0 -> (tile<i32>) {
                  yield %1 : tile<i32>
                } else {
                  yield %arg3 : tile<i32>
                }
                %result, %result_token = load_ptr_tko weak %arg1 : tile<ptr<i32>> -> tile<i32>, token
                %7 = addi %5, %6 : tile<i32>
                %8 = addi %7, %result : tile<i32>
                break %8 : tile<i32>
              }
              continue %4 : tile<i32>
            }
            %2 = store_ptr_tko weak %arg0, %for : tile<ptr<i32>>, tile<i32> -> token
            return
          }
        }
        """)


def _ops(body: str, params: str = "%a: tile<i32>, %f: tile<f32>") -> dict[str, object]:
    """The ops of a kernel `body`, by the result name each had in the text."""
    module = tileir.parse(f"cuda_tile.module @m {{ entry @k({params}) {{\n{body}\n"
                          "return } }")
    ops = module.entries[0].regions[0].block.operations
    return {line.split("=")[0].strip(): op for line, op in zip(body.splitlines(), ops)}


def test_which_pure_ops_are_speculatable() -> None:
    ops = _ops("""%c3 = constant <i32: 3> : tile<i32>
%c40 = constant <i32: 40> : tile<i32>
%add = addi %a, %c3 : tile<i32>
%nuw = addi %a, %c3 overflow<no_unsigned_wrap> : tile<i32>
%neg = negi %a overflow<no_signed_wrap> : tile<i32>
%shl = shli %a, %c3 : tile<i32>
%far = shri %a, %c40 signed : tile<i32>
%div = divi %a, %c3 signed : tile<i32>
%rem = remi %a, %c3 unsigned : tile<i32>
%ftoi = ftoi %f signed : tile<f32> -> tile<i32>
%sat = ftoi %f signed saturating : tile<f32> -> tile<i32>
%exp = exp %f : tile<f32>
%tok = make_token : token""")
    assert {name: is_speculatable(op) for name, op in ops.items()} == {  # type: ignore[arg-type]
        "%c3": True, "%c40": True, "%add": True, "%nuw": False, "%neg": False, "%shl": True,
        "%far": False, "%div": False, "%rem": False, "%ftoi": False, "%sat": True,
        "%exp": True, "%tok": True}


def test_a_second_run_changes_nothing() -> None:
    once = hoisted(SPECULATION)
    assert hoisted(once) == once


def test_registration() -> None:
    licm = PASSES["loop-invariant-code-motion"]
    assert (licm.anchor, licm.options) == ("any", ())
    module = tileir.parse(SPECULATION)
    run(module, "cuda_tile.module(cuda_tile.entry(loop-invariant-code-motion))")
    assert module.format() == hoisted(SPECULATION)


# ---- by execution -----------------------------------------------------------------------


def _launch(module: tileir.Module, args: list) -> bytes | str:
    """The output buffer's bytes, or the undefined behaviour reported."""
    out = np.zeros(1, np.int32)
    try:
        tileir.launch(module, None, grid=1, args=[out, *args])
    except tileir.ExecutionError as error:
        return str(error)
    return out.tobytes()


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("a, s", [(5, 2), (0, 1), (2**31 - 1, 40), (-7, 31)])
def test_results_and_undefined_behaviour_are_kept(n: int, a: int, s: int) -> None:
    # with n = 0 the loop never runs: a division by a = 0, an overflowing nsw add or a
    # shift by 40 in its body must not run either
    before, after = tileir.parse(SPECULATION), tileir.parse(SPECULATION)
    run(after, PIPELINE)
    args = [np.int32(n), np.int32(a), np.int32(s)]
    result = _launch(before, args)
    assert _launch(after, args) == result
    if n == 0:
        assert result == np.zeros(1, np.int32).tobytes()


@pytest.mark.parametrize("n, a", [(0, 3), (3, -2), (5, 9)])
def test_nested_loops_keep_their_results(n: int, a: int) -> None:
    before, after = tileir.parse(NESTED), tileir.parse(NESTED)
    run(after, PIPELINE)
    make = lambda: [np.array([11], np.int32), np.int32(n), np.int32(a)]  # noqa: E731
    assert _launch(before, make()) == _launch(after, make())
