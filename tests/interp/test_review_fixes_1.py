"""Review fixes (batch 1): scan applies its identity once, ``for unsignedCmp`` reads its step
signed, and the unit-test runner checks every result's dtype and shape."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import numpy as np
import pytest

from conftest import run_op_text
from tileir.diagnostics import ExecutionError
from tileir.interp import launch


def run_tile(body: str, value: str, n: int, ty: str, dtype) -> np.ndarray:
    """Launch a one-block kernel running `body`, then storing the `n`-element tile `value`
    of element type `ty` to `%out`; the stored array."""
    text = f"""cuda_tile.module @m {{
  entry @k(%out: tile<ptr<{ty}>>) {{
{body}
    %o1 = reshape %out : tile<ptr<{ty}>> -> tile<1xptr<{ty}>>
    %on = broadcast %o1 : tile<1xptr<{ty}>> -> tile<{n}xptr<{ty}>>
    %io = iota : tile<{n}xi32>
    %op = offset %on, %io : tile<{n}xptr<{ty}>>, tile<{n}xi32> -> tile<{n}xptr<{ty}>>
    %os = store_ptr_tko weak %op, {value} : tile<{n}xptr<{ty}>>, tile<{n}x{ty}> -> token
    return
  }}
}}"""
    out = np.zeros(n, dtype)
    launch(text, "k", 1, [out])
    return out


# ---- scan: result[0] = f(identity, X[0]) -----------------------------------------------


@pytest.mark.parametrize("identity, reverse, expected", [
    # addf: -0.0 + +0.0 = +0.0 (round to nearest), then +0.0 + -0.0 = +0.0
    ("0.000000e+00", "false", [0, 0]),
    ("0.000000e+00", "true", [0, 0]),
    # with identity -0.0 every sum is -0.0 + -0.0 = -0.0
    ("-0.000000e+00", "false", [0x80000000, 0x80000000]),
])
def test_scan_addf_folds_the_identity_into_negative_zeros(identity, reverse, expected):
    body = f"""
    %v = constant <f32: [-0.0, -0.0]> : tile<2xf32>
    %s = scan %v dim=0 reverse={reverse} identities=[{identity} : f32] : tile<2xf32> -> tile<2xf32>
      (%e: tile<f32>, %a: tile<f32>) {{
        %r = addf %e, %a rounding<nearest_even> : tile<f32>
        yield %r : tile<f32>
      }}"""
    out = run_tile(body, "%s", 2, "f32", np.float32)
    assert out.view(np.uint32).tolist() == expected


@pytest.mark.parametrize("reverse, expected", [
    # identity 5 enters the fold once: [5+1, 5+1+2, 5+1+2+3, 5+1+2+3+4] (applied at
    # every element it would give [6, 13, 21, 30])
    ("false", [6, 8, 11, 15]),
    # reversed: the fold starts at the last element: [5+4+3+2+1, 5+4+3+2, 5+4+3, 5+4]
    ("true", [15, 14, 12, 9]),
])
def test_scan_applies_a_non_neutral_identity_exactly_once(reverse, expected):
    body = f"""
    %v = constant <i32: [1, 2, 3, 4]> : tile<4xi32>
    %s = scan %v dim=0 reverse={reverse} identities=[5 : i32] : tile<4xi32> -> tile<4xi32>
      (%e: tile<i32>, %a: tile<i32>) {{
        %r = addi %e, %a : tile<i32>
        yield %r : tile<i32>
      }}"""
    assert run_tile(body, "%s", 4, "i32", np.int32).tolist() == expected


def test_scan_2d_applies_the_identity_to_the_first_element_of_every_row():
    # rows [1, 2], [3, 4] scanned along dim 1 with identity 10: [11, 13], [13, 17]
    body = """
    %v = constant <i32: [[1, 2], [3, 4]]> : tile<2x2xi32>
    %s = scan %v dim=1 reverse=false identities=[10 : i32] : tile<2x2xi32> -> tile<2x2xi32>
      (%e: tile<i32>, %a: tile<i32>) {
        %r = addi %e, %a : tile<i32>
        yield %r : tile<i32>
      }
    %f = reshape %s : tile<2x2xi32> -> tile<4xi32>"""
    assert run_tile(body, "%f", 4, "i32", np.int32).tolist() == [11, 13, 13, 17]


# ---- for unsignedCmp: the bounds compare unsigned, the step is signed --------------------


@pytest.mark.parametrize("unsigned, expected", [("unsigned", 4), ("", 0)])
def test_for_unsigned_compares_bounds_across_the_sign_boundary(unsigned, expected):
    # lower 0x7FFFFFFE, upper 0x80000002 (-2147483646 signed, 2147483650 unsigned), step 1:
    # unsigned gives 4 iterations (0x7FFFFFFE .. 0x80000001); signed, none.
    body = f"""
    %lo = constant <i32: 2147483646> : tile<i32>
    %hi = constant <i32: -2147483646> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for {unsigned} %i in (%lo to %hi, step %st) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {{
      %s = addi %acc, %one : tile<i32>
      continue %s : tile<i32>
    }}
    %r1 = reshape %r : tile<i32> -> tile<1xi32>"""
    assert run_tile(body, "%r1", 1, "i32", np.int32).tolist() == [expected]


NEGATIVE_STEP = """
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 10> : tile<i32>
    %st = constant <i32: -1> : tile<i32>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for unsigned %i in (%lo to %hi, step %st) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {
      %s = addi %acc, %one : tile<i32>
      continue %s : tile<i32>
    }
    %r1 = reshape %r : tile<i32> -> tile<1xi32>"""


def test_for_unsigned_with_a_negative_step_is_reported():
    # Step -1 read unsigned would be 0xFFFFFFFF (one iteration); the step is signed: -1 is
    # not positive, which the spec forbids ("step must be positive").
    with pytest.raises(ExecutionError, match="non-positive step -1"):
        run_tile(NEGATIVE_STEP, "%r1", 1, "i32", np.int32)


def test_for_unsigned_with_a_negative_step_without_checks_runs_no_iteration():
    text = f"""cuda_tile.module @m {{
  entry @k(%out: tile<ptr<i32>>) {{
{NEGATIVE_STEP}
    %o1 = reshape %out : tile<ptr<i32>> -> tile<1xptr<i32>>
    %os = store_ptr_tko weak %o1, %r1 : tile<1xptr<i32>>, tile<1xi32> -> token
    return
  }}
}}"""
    out = np.full(1, -99, np.int32)
    launch(text, "k", 1, [out], checks=False)
    assert out.tolist() == [0]


# ---- the unit-test runner checks result dtypes and shapes ---------------------------------


def test_run_op_text_rejects_a_result_of_the_wrong_dtype(monkeypatch):
    from tileir.interp import SEMANTICS
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>, %b: !cuda_tile.tile<2xf32>) {
        %0 = cuda_tile.addf %a, %b rounding<nearest_even> : !cuda_tile.tile<2xf32>
      }
    }"""
    a = np.ones(2, np.float32)
    assert run_op_text(text, a, a).tolist() == [2.0, 2.0]
    monkeypatch.setitem(SEMANTICS, "addf", lambda step, x, y: (x + y).astype(np.float64))
    with pytest.raises(ExecutionError, match="semantics returned float64"):
        run_op_text(text, a, a)
    monkeypatch.setitem(SEMANTICS, "addf", lambda step, x, y: (x + y)[:1])
    with pytest.raises(ExecutionError, match=r"semantics returned float32\[1\]"):
        run_op_text(text, a, a)
