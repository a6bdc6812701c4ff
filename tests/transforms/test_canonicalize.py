"""The canonicalize pass: each fold and canonicalization pattern (NVIDIA's, see
`tileir.transforms.canonical`) rewrites a small kernel to exactly the expected text, and
the kernel computes the same bits before and after (run on the interpreter)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pytest

import tileir
from tileir.diagnostics import ExecutionError
from tileir.interp import Machine
from tileir.numerics import numpy_dtype
from tileir.transforms import PassFailure, run
from tileir.transforms.canonical import canonicalization_patterns
from tileir.transforms.canonical.common import dense_attr, evaluate
from tileir.transforms.rewriter import FOLDS
from tileir.types import FloatType, IntegerType, TileType
from transform_helpers import KERNELS, expected, module_of, printed


def canonicalized(body: str, pipeline: str = "canonicalize") -> str:
    """`body`'s module after `pipeline`, `printed`."""
    module = module_of(body)
    run(module, pipeline)
    return printed(module)


# ---- running a function before and after ------------------------------------------------


def _random_tile(t: TileType, rng: np.random.Generator) -> np.ndarray:
    """A random tile of type `t`: booleans, small integers (so comparisons go both ways),
    or floats with zeros of both signs, infinities and NaN among them."""
    e, shape = t.element_type, t.shape
    dtype = numpy_dtype(e)
    if e == IntegerType(1):
        return rng.integers(0, 2, size=shape).astype(dtype)
    if isinstance(e, IntegerType):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    assert isinstance(e, FloatType)
    pool = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e-8, 1e4])
    values = np.where(rng.random(shape) < 0.3, rng.choice(pool, size=shape),
                      rng.normal(size=shape) * 10)
    return np.asarray(values).astype(dtype)


def _bits(value: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    """A returned tile, compared bit for bit."""
    a = np.asarray(value)
    return a.dtype.str, a.shape, a.tobytes()


def outcomes(module: tileir.Module, runs: int = 32) -> list:
    """What the module's function returns and prints on `runs` random argument lists
    (None for a run with undefined behaviour, such as an assume that does not hold)."""
    function = module.functions[0]
    rng = np.random.default_rng(7)
    found: list = []
    for _ in range(runs):
        args = [_random_tile(a.type, rng) for a in function.regions[0].block.arguments]
        out = io.StringIO()
        try:
            values = Machine(stdout=out).run_function(function, args)
        except ExecutionError:
            found.append(None)
            continue
        found.append(([_bits(v) for v in values if isinstance(v, np.ndarray)],
                      out.getvalue()))
    return found


def same_outcomes(before: list, after: list) -> None:
    """Every run defined before the pass gives the same bits and text after it (and at
    least a quarter of the runs are defined)."""
    defined = [i for i, b in enumerate(before) if b is not None]
    assert len(defined) * 4 >= len(before)
    assert [after[i] for i in defined] == [before[i] for i in defined]


# ---- the cases: one per fold or pattern ---------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A function, and its text after canonicalize."""

    name: str
    source: str
    result: str


CASES = [
    Case("addf_puts_mulf_on_lhs", """
  testing$func @f(%a: tile<f32>, %b: tile<f32>, %c: tile<f32>) -> tile<f32> {
    %m = mulf %a, %b rounding<zero> : tile<f32>
    %s = addf %c, %m rounding<zero> flush_to_zero : tile<f32>
    return %s : tile<f32>
  }""", """
  testing$func @f(%arg0: tile<f32>, %arg1: tile<f32>, %arg2: tile<f32>) -> tile<f32> {
    %0 = mulf %arg0, %arg1 rounding<zero> : tile<f32>
    %1 = addf %0, %arg2 rounding<zero> flush_to_zero : tile<f32>
    return %1 : tile<f32>
  }"""),
    Case("addf_of_two_mulf_stays", """
  testing$func @f(%a: tile<f32>, %b: tile<f32>) -> tile<f32> {
    %m = mulf %a, %b : tile<f32>
    %n = mulf %b, %a : tile<f32>
    %s = addf %m, %n : tile<f32>
    return %s : tile<f32>
  }""", """
  testing$func @f(%arg0: tile<f32>, %arg1: tile<f32>) -> tile<f32> {
    %0 = mulf %arg0, %arg1 : tile<f32>
    %1 = mulf %arg1, %arg0 : tile<f32>
    %2 = addf %0, %1 : tile<f32>
    return %2 : tile<f32>
  }"""),
    Case("assume_of_the_same_predicate_folds", """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %x = assume div_by<4>, %a : tile<i32>
    %y = assume div_by<4>, %x : tile<i32>
    %z = assume div_by<2>, %y : tile<i32>
    return %z : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i32>) -> tile<i32> {
    %assume = assume div_by<4>, %arg0 : tile<i32>
    %assume_assume = assume div_by<2>, %assume : tile<i32>
    return %assume_assume : tile<i32>
  }"""),
    Case("select_folds_same_constant_and_boolean", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>, %b: tile<i32>) -> (tile<i32>, tile<i32>, \
      tile<i32>, tile<i1>) {
    %t = constant <i1: true> : tile<i1>
    %f = constant <i1: false> : tile<i1>
    %0 = select %c, %a, %a : tile<i1>, tile<i32>
    %1 = select %t, %a, %b : tile<i1>, tile<i32>
    %2 = select %f, %a, %b : tile<i1>, tile<i32>
    %3 = select %c, %t, %f : tile<i1>, tile<i1>
    return %0, %1, %2, %3 : tile<i32>, tile<i32>, tile<i32>, tile<i1>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>) -> (tile<i32>, \
      tile<i32>, tile<i32>, tile<i1>) {
    return %arg1, %arg1, %arg2, %arg0 : tile<i32>, tile<i32>, tile<i32>, tile<i1>
  }"""),
    Case("select_of_compared_operands_folds", """
  testing$func @f(%a: tile<i32>, %b: tile<i32>) -> (tile<i32>, tile<i32>, tile<i32>) {
    %eq = cmpi equal %a, %b, signed : tile<i32> -> tile<i1>
    %ne = cmpi not_equal %b, %a, signed : tile<i32> -> tile<i1>
    %lt = cmpi less_than %a, %b, signed : tile<i32> -> tile<i1>
    %0 = select %eq, %a, %b : tile<i1>, tile<i32>
    %1 = select %ne, %a, %b : tile<i1>, tile<i32>
    %2 = select %lt, %a, %b : tile<i1>, tile<i32>
    return %0, %1, %2 : tile<i32>, tile<i32>, tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i32>, %arg1: tile<i32>) -> (tile<i32>, tile<i32>, tile<i32>) {
    %0 = cmpi less_than %arg0, %arg1, signed : tile<i32> -> tile<i1>
    %1 = select %0, %arg0, %arg1 : tile<i1>, tile<i32>
    return %arg1, %arg0, %1 : tile<i32>, tile<i32>, tile<i32>
  }"""),
    Case("select_on_a_negation_swaps", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>, %b: tile<i32>) -> tile<i32> {
    %t = constant <i1: true> : tile<i1>
    %n = xori %c, %t : tile<i1>
    %0 = select %n, %a, %b : tile<i1>, tile<i32>
    return %0 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>) -> tile<i32> {
    %0 = select %arg0, %arg2, %arg1 : tile<i1>, tile<i32>
    return %0 : tile<i32>
  }"""),
    Case("select_of_select_on_the_same_condition", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>, %b: tile<i32>, %d: tile<i32>) -> (tile<i32>, \
      tile<i32>) {
    %s = select %c, %a, %b : tile<i1>, tile<i32>
    %0 = select %c, %s, %d : tile<i1>, tile<i32>
    %1 = select %c, %d, %s : tile<i1>, tile<i32>
    return %0, %1 : tile<i32>, tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>, \
      %arg3: tile<i32>) -> (tile<i32>, tile<i32>) {
    %0 = select %arg0, %arg1, %arg3 : tile<i1>, tile<i32>
    %1 = select %arg0, %arg3, %arg2 : tile<i1>, tile<i32>
    return %0, %1 : tile<i32>, tile<i32>
  }"""),
    Case("select_false_true_becomes_not", """
  testing$func @f(%c: tile<4xi1>) -> tile<4xi1> {
    %t = constant <i1: true> : tile<4xi1>
    %f = constant <i1: false> : tile<4xi1>
    %0 = select %c, %f, %t : tile<4xi1>, tile<4xi1>
    return %0 : tile<4xi1>
  }""", """
  testing$func @f(%arg0: tile<4xi1>) -> tile<4xi1> {
    %true = constant <i1: true> : tile<4xi1>
    %0 = xori %arg0, %true : tile<4xi1>
    return %0 : tile<4xi1>
  }"""),
    Case("select_of_constants_is_a_constant", """
  testing$func @f() -> (tile<4xi32>, tile<4xf32>, tile<2xf16>, tile<2xbf16>) {
    %c = constant <i1: [0, 1, 1, 0]> : tile<4xi1>
    %a = constant <i32: [-1, -2, -3, -4]> : tile<4xi32>
    %b = constant <i32: 7> : tile<4xi32>
    %0 = select %c, %a, %b : tile<4xi1>, tile<4xi32>
    %k = constant <i1: [1, 0, 1, 0]> : tile<4xi1>
    %x = constant <f32: [0x7FC00001, -0.0, 1.5, 0xFF800000]> : tile<4xf32>
    %y = constant <f32: [2.0, 0x7FC00002, -0.0, 3.0]> : tile<4xf32>
    %1 = select %k, %x, %y : tile<4xi1>, tile<4xf32>
    %d = constant <i1: [0, 1]> : tile<2xi1>
    %h = constant <f16: [0x7E01, 1.0]> : tile<2xf16>
    %g = constant <f16: -2.0> : tile<2xf16>
    %2 = select %d, %h, %g : tile<2xi1>, tile<2xf16>
    %p = constant <bf16: [0x7FC1, 1.0]> : tile<2xbf16>
    %q = constant <bf16: -2.0> : tile<2xbf16>
    %3 = select %d, %q, %p : tile<2xi1>, tile<2xbf16>
    return %0, %1, %2, %3 : tile<4xi32>, tile<4xf32>, tile<2xf16>, tile<2xbf16>
  }""", """
  testing$func @f() -> (tile<4xi32>, tile<4xf32>, tile<2xf16>, tile<2xbf16>) {
    %cst_i32 = constant <i32: [7, -2, -3, 7]> : tile<4xi32>
    %cst_f32 = constant <f32: [0x7FC00001, 0x7FC00002, 1.500000e+00, 3.000000e+00]> : tile<4xf32>
    %cst_f16 = constant <f16: [-2.000000e+00, 1.000000e+00]> : tile<2xf16>
    %cst_bf16 = constant <bf16: [0x7FC1, -2.000000e+00]> : tile<2xbf16>
    return %cst_i32, %cst_f32, %cst_f16, %cst_bf16 : tile<4xi32>, tile<4xf32>, tile<2xf16>, \
      tile<2xbf16>
  }"""),
    Case("select_of_one_and_zero_becomes_exti", """
  testing$func @f(%c: tile<2xi1>) -> (tile<2xi32>, tile<2xi16>, tile<2xi1>) {
    %one = constant <i32: 1> : tile<2xi32>
    %zero = constant <i32: 0> : tile<2xi32>
    %one16 = constant <i16: 1> : tile<2xi16>
    %zero16 = constant <i16: 0> : tile<2xi16>
    %t = constant <i1: true> : tile<2xi1>
    %f = constant <i1: false> : tile<2xi1>
    %0 = select %c, %one, %zero : tile<2xi1>, tile<2xi32>
    %1 = select %c, %zero16, %one16 : tile<2xi1>, tile<2xi16>
    %2 = select %c, %t, %f : tile<2xi1>, tile<2xi1>
    return %0, %1, %2 : tile<2xi32>, tile<2xi16>, tile<2xi1>
  }""", """
  testing$func @f(%arg0: tile<2xi1>) -> (tile<2xi32>, tile<2xi16>, tile<2xi1>) {
    %true = constant <i1: true> : tile<2xi1>
    %0 = exti %arg0 unsigned : tile<2xi1> -> tile<2xi32>
    %1 = xori %arg0, %true : tile<2xi1>
    %2 = exti %1 unsigned : tile<2xi1> -> tile<2xi16>
    return %0, %2, %arg0 : tile<2xi32>, tile<2xi16>, tile<2xi1>
  }"""),
    Case("if_on_a_negation_swaps_branches", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %t = constant <i1: true> : tile<i1>
    %n = xori %c, %t : tile<i1>
    %0 = if %n -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      yield %x : tile<i32>
    } else {
      %y = muli %a, %a : tile<i32>
      yield %y : tile<i32>
    }
    return %0 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) -> tile<i32> {
    %0 = if %arg0 -> (tile<i32>) {
      %1 = muli %arg1, %arg1 : tile<i32>
      yield %1 : tile<i32>
    } else {
      %1 = addi %arg1, %arg1 : tile<i32>
      yield %1 : tile<i32>
    }
    return %0 : tile<i32>
  }"""),
    Case("if_unused_results_go", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %0, %1 = if %c -> (tile<i32>, tile<i32>) {
      %x = addi %a, %a : tile<i32>
      %y = muli %a, %a : tile<i32>
      yield %x, %y : tile<i32>, tile<i32>
    } else {
      %z = subi %a, %a : tile<i32>
      yield %a, %z : tile<i32>, tile<i32>
    }
    return %1 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) -> tile<i32> {
    %0 = if %arg0 -> (tile<i32>) {
      %1 = muli %arg1, %arg1 : tile<i32>
      yield %1 : tile<i32>
    } else {
      %1 = subi %arg1, %arg1 : tile<i32>
      yield %1 : tile<i32>
    }
    return %0 : tile<i32>
  }"""),
    Case("if_yields_become_values_condition_and_not", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> (tile<i32>, tile<i1>, tile<i1>) {
    %t = constant <i1: true> : tile<i1>
    %f = constant <i1: false> : tile<i1>
    %0, %1, %2 = if %c -> (tile<i32>, tile<i1>, tile<i1>) {
      %p = print_tko "then" -> token
      yield %a, %t, %f : tile<i32>, tile<i1>, tile<i1>
    } else {
      yield %a, %f, %t : tile<i32>, tile<i1>, tile<i1>
    }
    return %0, %1, %2 : tile<i32>, tile<i1>, tile<i1>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) -> (tile<i32>, tile<i1>, tile<i1>) {
    %true = constant <i1: true> : tile<i1>
    %0 = xori %arg0, %true : tile<i1>
    if %arg0 {
      %1 = print_tko "then" -> token
    }
    return %arg1, %arg0, %0 : tile<i32>, tile<i1>, tile<i1>
  }"""),
    Case("if_on_a_constant_is_its_branch", """
  testing$func @f(%a: tile<i32>) -> (tile<i32>, tile<i32>) {
    %t = constant <i1: true> : tile<i1>
    %f = constant <i1: false> : tile<i1>
    %0 = if %t -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      yield %x : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    %1 = if %f -> (tile<i32>) {
      yield %a : tile<i32>
    } else {
      %y = muli %a, %a : tile<i32>
      yield %y : tile<i32>
    }
    if %f {
      %p = print_tko "never" -> token
    }
    return %0, %1 : tile<i32>, tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i32>) -> (tile<i32>, tile<i32>) {
    %0 = addi %arg0, %arg0 : tile<i32>
    %1 = muli %arg0, %arg0 : tile<i32>
    return %0, %1 : tile<i32>, tile<i32>
  }"""),
    Case("if_on_a_constant_whose_branch_returns", """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %t = constant <i1: true> : tile<i1>
    %0 = if %t -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      return %x : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    %p = print_tko "unreachable" -> token
    return %0 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i32>) -> tile<i32> {
    %0 = addi %arg0, %arg0 : tile<i32>
    return %0 : tile<i32>
  }"""),
    Case("if_yielding_outside_values_becomes_select", """
  testing$func @f(%c: tile<i1>, %a: tile<4xi32>, %b: tile<4xi32>, \
      %s: tile<i32>) -> (tile<4xi32>, tile<i32>, tile<i32>) {
    %0, %1, %2 = if %c -> (tile<4xi32>, tile<i32>, tile<i32>) {
      %x = addi %s, %s : tile<i32>
      yield %a, %x, %s : tile<4xi32>, tile<i32>, tile<i32>
    } else {
      yield %b, %s, %s : tile<4xi32>, tile<i32>, tile<i32>
    }
    return %0, %1, %2 : tile<4xi32>, tile<i32>, tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<4xi32>, %arg2: tile<4xi32>, \
      %arg3: tile<i32>) -> (tile<4xi32>, tile<i32>, tile<i32>) {
    %reshape = reshape %arg0 : tile<i1> -> tile<1xi1>
    %bcast = broadcast %reshape : tile<1xi1> -> tile<4xi1>
    %0 = select %bcast, %arg1, %arg2 : tile<4xi1>, tile<4xi32>
    %1 = if %arg0 -> (tile<i32>) {
      %2 = addi %arg3, %arg3 : tile<i32>
      yield %2 : tile<i32>
    } else {
      yield %arg3 : tile<i32>
    }
    return %0, %1, %arg3 : tile<4xi32>, tile<i32>, tile<i32>
  }"""),
    Case("if_whose_other_branch_returns_yields_its_values", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>, %b: tile<i32>) -> tile<i32> {
    %0 = if %c -> (tile<i32>) {
      return %b : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    %1 = addi %0, %b : tile<i32>
    return %1 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>) -> tile<i32> {
    if %arg0 {
      return %arg2 : tile<i32>
    }
    %0 = addi %arg1, %arg2 : tile<i32>
    return %0 : tile<i32>
  }"""),
    Case("if_of_tokens_stays", """
  testing$func @f(%c: tile<i1>) -> token {
    %0 = make_token : token
    %1 = make_token : token
    %2 = if %c -> (token) {
      yield %0 : token
    } else {
      yield %1 : token
    }
    return %2 : token
  }""", """
  testing$func @f(%arg0: tile<i1>) -> token {
    %0 = make_token : token
    %1 = make_token : token
    %2 = if %arg0 -> (token) {
      yield %0 : token
    } else {
      yield %1 : token
    }
    return %2 : token
  }"""),
    Case("if_of_ranked_booleans_becomes_broadcast_condition", """
  testing$func @f(%c: tile<i1>) -> (tile<4xi1>, tile<4xi1>) {
    %t = constant <i1: true> : tile<4xi1>
    %f = constant <i1: false> : tile<4xi1>
    %0, %1 = if %c -> (tile<4xi1>, tile<4xi1>) {
      yield %t, %f : tile<4xi1>, tile<4xi1>
    } else {
      yield %f, %t : tile<4xi1>, tile<4xi1>
    }
    return %0, %1 : tile<4xi1>, tile<4xi1>
  }""", """
  testing$func @f(%arg0: tile<i1>) -> (tile<4xi1>, tile<4xi1>) {
    %true = constant <i1: true> : tile<4xi1>
    %reshape = reshape %arg0 : tile<i1> -> tile<1xi1>
    %bcast = broadcast %reshape : tile<1xi1> -> tile<4xi1>
    %reshape_0 = reshape %arg0 : tile<i1> -> tile<1xi1>
    %bcast_1 = broadcast %reshape_0 : tile<1xi1> -> tile<4xi1>
    %0 = xori %bcast_1, %true : tile<4xi1>
    return %bcast, %0 : tile<4xi1>, tile<4xi1>
  }"""),
    Case("if_empty_else_goes", """
  testing$func @f(%c: tile<i1>) {
    if %c {
      %p = print_tko "then" -> token
    } else {
    }
    return
  }""", """
  testing$func @f(%arg0: tile<i1>) {
    if %arg0 {
      %0 = print_tko "then" -> token
    }
    return
  }"""),
    Case("ifs_on_one_condition_combine", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %0 = if %c -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      yield %x : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    %1 = if %c -> (tile<i32>) {
      %y = muli %0, %0 : tile<i32>
      yield %y : tile<i32>
    } else {
      %z = subi %0, %a : tile<i32>
      yield %z : tile<i32>
    }
    return %1 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) -> tile<i32> {
    %0 = if %arg0 -> (tile<i32>) {
      %1 = addi %arg1, %arg1 : tile<i32>
      %2 = muli %1, %1 : tile<i32>
      yield %2 : tile<i32>
    } else {
      %1 = subi %arg1, %arg1 : tile<i32>
      yield %1 : tile<i32>
    }
    return %0 : tile<i32>
  }"""),
    Case("ifs_on_a_condition_and_its_negation_combine", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) {
    %t = constant <i1: true> : tile<i1>
    %n = xori %c, %t : tile<i1>
    if %c {
      %p = print_tko "first then %d", %a : tile<i32> -> token
    }
    if %n {
      %q = print_tko "second then" -> token
    } else {
      %r = print_tko "second else" -> token
    }
    return
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) {
    if %arg0 {
      %0 = print_tko "first then %d", %arg1 : tile<i32> -> token
      %1 = print_tko "second else" -> token
    } else {
      %0 = print_tko "second then" -> token
    }
    return
  }"""),
    Case("nested_ifs_combine_with_andi", """
  testing$func @f(%c: tile<i1>, %d: tile<i1>, %a: tile<i32>, %b: tile<i32>) -> (tile<i32>, \
      tile<i32>) {
    %0, %1 = if %c -> (tile<i32>, tile<i32>) {
      %2 = if %d -> (tile<i32>) {
        %x = addi %a, %b : tile<i32>
        yield %x : tile<i32>
      } else {
        yield %b : tile<i32>
      }
      yield %2, %a : tile<i32>, tile<i32>
    } else {
      yield %b, %b : tile<i32>, tile<i32>
    }
    return %0, %1 : tile<i32>, tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i1>, %arg2: tile<i32>, \
      %arg3: tile<i32>) -> (tile<i32>, tile<i32>) {
    %0 = select %arg0, %arg2, %arg3 : tile<i1>, tile<i32>
    %1 = andi %arg0, %arg1 : tile<i1>
    %2 = if %1 -> (tile<i32>) {
      %3 = addi %arg2, %arg3 : tile<i32>
      yield %3 : tile<i32>
    } else {
      yield %arg3 : tile<i32>
    }
    return %2, %0 : tile<i32>, tile<i32>
  }"""),
    Case("if_whose_branches_both_return_ends_the_block", """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %0 = if %c -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      return %x : tile<i32>
    } else {
      %y = muli %a, %a : tile<i32>
      return %y : tile<i32>
    }
    %p = print_tko "unreachable %d", %0 : tile<i32> -> token
    return %0 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i1>, %arg1: tile<i32>) -> tile<i32> {
    if %arg0 {
      %1 = addi %arg1, %arg1 : tile<i32>
      return %1 : tile<i32>
    }
    %0 = muli %arg1, %arg1 : tile<i32>
    return %0 : tile<i32>
  }"""),
    Case("constants_hoist_out_of_loops_and_dedupe", """
  testing$func @f(%n: tile<i32>) -> tile<i32> {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %0 = for %i in (%zero to %n, step %one) : tile<i32> iter_values(%acc = %zero) -> (tile<i32>) {
      %two = constant <i32: 2> : tile<i32>
      %r = remi %i, %two signed : tile<i32>
      %odd = cmpi equal %r, %one, signed : tile<i32> -> tile<i1>
      %s = addi %acc, %i : tile<i32>
      %1 = if %odd -> (tile<i32>) {
        continue %acc : tile<i32>
      } else {
        %one_again = constant <i32: 1> : tile<i32>
        %t = addi %s, %one_again : tile<i32>
        yield %t : tile<i32>
      }
      continue %1 : tile<i32>
    }
    return %0 : tile<i32>
  }""", """
  testing$func @f(%arg0: tile<i32>) -> tile<i32> {
    %cst_2_i32 = constant <i32: 2> : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %for = for %loopIdx in (%cst_0_i32 to %arg0, \
      step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_i32) -> (tile<i32>) {
      %0 = remi %loopIdx, %cst_2_i32 signed : tile<i32>
      %1 = cmpi equal %0, %cst_1_i32, signed : tile<i32> -> tile<i1>
      %2 = addi %iterArg0, %loopIdx : tile<i32>
      %3 = if %1 -> (tile<i32>) {
        continue %iterArg0 : tile<i32>
      } else {
        %4 = addi %2, %cst_1_i32 : tile<i32>
        yield %4 : tile<i32>
      }
      continue %3 : tile<i32>
    }
    return %for : tile<i32>
  }"""),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rewrites_exactly(case: Case) -> None:
    assert canonicalized(case.source) == expected(case.result)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_computes_the_same_bits(case: Case) -> None:
    module = module_of(case.source)
    before = outcomes(module)
    run(module, "canonicalize")
    same_outcomes(before, outcomes(module))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_is_a_fixed_point(case: Case) -> None:
    once = canonicalized(case.source)
    module = tileir.parse(once)
    run(module, "canonicalize")
    assert printed(module) == once


# ---- the pass and its options -------------------------------------------------------------


def test_dead_code_goes_and_effects_stay() -> None:
    source = """
  testing$func @f(%a: tile<i32>, %p: tile<ptr<i32>>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    %y = muli %x, %x : tile<i32>
    %r, %t = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token
    %c = constant <i1: true> : tile<i1>
    %z = if %c -> (tile<i32>) {
      %w = constant <i32: 5> : tile<i32>
      yield %w : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    return %a : tile<i32>
  }"""
    assert canonicalized(source) == expected("""
  testing$func @f(%arg0: tile<i32>, %arg1: tile<ptr<i32>>) -> tile<i32> {
    %result, %result_token = load_ptr_tko weak %arg1 : tile<ptr<i32>> -> tile<i32>, token
    return %arg0 : tile<i32>
  }""")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bottom_up_gives_the_same_result(case: Case) -> None:
    assert canonicalized(case.source, "canonicalize{top-down=false}") == expected(case.result)


def test_test_convergence_fails_when_the_sweeps_run_out() -> None:
    source = """
  testing$func @f(%c: tile<2xi1>) -> (tile<2xi32>, tile<2xi1>) {
    %zero = constant <i32: 0> : tile<2xi32>
    %one = constant <i32: 1> : tile<2xi32>
    %t = constant <i1: true> : tile<2xi1>
    %n = xori %c, %t : tile<2xi1>
    %0 = select %c, %zero, %one : tile<2xi1>, tile<2xi32>
    return %0, %n : tile<2xi32>, tile<2xi1>
  }"""
    # select_to_exti makes a second `true` in the first sweep: only the next sweep
    # uniques it with the first
    with pytest.raises(PassFailure, match="did not converge"):
        run(module_of(source), "canonicalize{max-iterations=1 test-convergence=true}")
    module = module_of(source)
    run(module, "canonicalize{max-iterations=1}")
    assert printed(module).count("constant <i1: true>") == 2
    run(module, "canonicalize{test-convergence=true}")
    assert printed(module).count("constant <i1: true>") == 1


def test_region_simplify_option_is_checked() -> None:
    with pytest.raises(PassFailure, match="invalid value 'sometimes'"):
        run(module_of(CASES[0].source), "canonicalize{region-simplify=sometimes}")
    assert canonicalized(CASES[0].source, "canonicalize{region-simplify=disabled}") == \
        expected(CASES[0].result)


def test_constants_stay_in_their_isolated_function() -> None:
    source = """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    %c = constant <i32: 3> : tile<i32>
    %y = addi %x, %c : tile<i32>
    return %y : tile<i32>
  }
  testing$func @g(%a: tile<i32>) -> tile<i32> {
    %c = constant <i32: 3> : tile<i32>
    %d = constant <i32: 3> : tile<i32>
    %y = addi %c, %d : tile<i32>
    return %y : tile<i32>
  }"""
    assert canonicalized(source) == expected("""
  testing$func @f(%arg0: tile<i32>) -> tile<i32> {
    %cst_3_i32 = constant <i32: 3> : tile<i32>
    %0 = addi %arg0, %arg0 : tile<i32>
    %1 = addi %0, %cst_3_i32 : tile<i32>
    return %1 : tile<i32>
  }
  testing$func @g(%arg0: tile<i32>) -> tile<i32> {
    %cst_3_i32 = constant <i32: 3> : tile<i32>
    %0 = addi %cst_3_i32, %cst_3_i32 : tile<i32>
    return %0 : tile<i32>
  }""")


@pytest.mark.parametrize("kernel", ["softmax", "flash_attention", "while_break_print",
                                    "custom_reduce", "argmax", "layernorm", "math_ops"])
def test_example_kernels_compute_the_same_after_canonicalize(kernel: str) -> None:
    from tileir.transforms.check import Report
    module = tileir.load(KERNELS / f"{kernel}.mlir")
    before = module.format()
    report = Report()
    run(module, "canonicalize", check_semantics=True, report=report)
    assert report.compared == {"canonicalize": 1} and module.format() != before


# ---- the declarations ---------------------------------------------------------------------


def test_folds_and_patterns_are_the_references() -> None:
    assert {"cuda_tile.constant", "cuda_tile.select", "cuda_tile.assume",
            "cuda_tile.if"} <= set(FOLDS)
    patterns = canonicalization_patterns()
    assert {name: [p.__name__ for p in found] for name, found in
            patterns.by_name.items()} == {
        "cuda_tile.select": ["select_i1_to_not", "select_constants", "select_to_exti"],
        "cuda_tile.addf": ["mulf_on_lhs"],
        "cuda_tile.if": ["remove_unused_results", "replace_yield_with_value",
                         "remove_static_condition", "convert_to_select",
                         "remove_empty_else_branch", "combine_ifs", "combine_nested_ifs",
                         "move_terminator_to_parent"]}
    assert list(canonicalization_patterns("cuda_tile.addf").by_name) == ["cuda_tile.addf"]


def test_evaluate_uses_the_interpreters_semantics() -> None:
    module = module_of("""
  testing$func @f() -> tile<4xf32> {
    %c = constant <i1: [1, 0, 0, 1]> : tile<4xi1>
    %x = constant <f32: [0x7FC00001, 1.0, 2.0, -0.0]> : tile<4xf32>
    %y = constant <f32: 0xFF800000> : tile<4xf32>
    %0 = select %c, %x, %y : tile<4xi1>, tile<4xf32>
    return %0 : tile<4xf32>
  }""")
    ops = module.functions[0].regions[0].block.operations
    [value] = evaluate(ops[3], [op.attr("value") for op in ops[:3]])
    assert value.values == (0x7FC00001, 0xFF800000, 0xFF800000, 0x80000000)
    t = TileType((3,), IntegerType(8))
    assert dense_attr(np.array([-1, 0, 127], np.int8), t).values == (-1, 0, 127)


def test_evaluate_folds_nothing_where_the_interpreter_reports_undefined_behaviour() -> None:
    module = module_of("""
  testing$func @f() -> tile<2xi32> {
    %a = constant <i32: [7, -8]> : tile<2xi32>
    %b = constant <i32: [2, 0]> : tile<2xi32>
    %0 = divi %a, %b signed : tile<2xi32>
    return %0 : tile<2xi32>
  }""")
    ops = module.functions[0].regions[0].block.operations
    assert evaluate(ops[2], [op.attr("value") for op in ops[:2]]) is None   # -8 / 0
    defined = dense_attr(np.array([2, 4], np.int32), ops[1].results[0].type)
    [value] = evaluate(ops[2], [ops[0].attr("value"), defined])
    assert value.values == (3, -2)
