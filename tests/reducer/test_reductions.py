"""Each reduction of `tileir.reducer.reductions.REDUCTIONS` on a small kernel: the exact
candidates it makes, each a valid kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

import tileir
from tileir.reducer.reductions import REDUCTIONS, candidates, clone, count_ops, measure

IF_AND_FOR = """\
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i1: true> : tile<i1>
    %v = if %c -> (tile<4xf32>) {
      %a = constant <f32: 1.0> : tile<4xf32>
      yield %a : tile<4xf32>
    } else {
      %b = constant <f32: 2.0> : tile<4xf32>
      yield %b : tile<4xf32>
    }
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 4> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r:2 = for %i in (%lo to %hi, step %one) : tile<i32>
        iter_values(%x = %v, %y = %v) -> (tile<4xf32>, tile<4xf32>) {
      %n = negf %x : tile<4xf32>
      continue %n, %y : tile<4xf32>, tile<4xf32>
    }
    %s = addf %r#0, %r#1 : tile<4xf32>
    return
  }
}
"""
LOOP = """\
cuda_tile.module @kernels {
  entry @k() {
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = loop iter_values(%x = %z) : tile<i32> -> tile<i32> {
      %c = cmpi greater_than_or_equal %x, %one, signed : tile<i32> -> tile<i1>
      if %c {
        break %x : tile<i32>
      }
      %n = addi %x, %one : tile<i32>
      continue %n : tile<i32>
    }
    return
  }
}
"""
ARGUMENTS = """\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>, %q: tile<ptr<f32>>, %u: tile<ptr<i8>>) {
    %x, %t = load_ptr_tko weak %p : tile<ptr<f32>> -> tile<f32>, token
    %t2 = store_ptr_tko weak %q, %x : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}
"""
ATTRIBUTES = """\
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <f32: 1.0> : tile<4xf32>
    %d = divf %c, %c rounding<zero> flush_to_zero : tile<4xf32>
    return
  }
}
"""
STRIDED = ("strided_view<tile=(4), traversal_strides=[4], padding_value = nan, "
           "tensor_view<16xf32, strides=[1]>>")
VIEWS = f"""\
cuda_tile.module @kernels {{
  entry @k(%p: tile<ptr<f32>>) {{
    %tv = make_tensor_view %p, shape = [16], strides = [1] : tensor_view<16xf32, strides=[1]>
    %sv = make_strided_view %tv : {STRIDED}
    %z = constant <i32: 0> : tile<i32>
    %v, %t = load_view_tko weak %sv[%z] : {STRIDED}, tile<i32> -> tile<4xf32>, token
    return
  }}
}}
"""
ELEMENTS = """\
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <bf16: [2.5, 1.0]> : tile<2xbf16>
    %r = reduce %c dim=0 identities=[0.0 : bf16] : tile<2xbf16> -> tile<bf16>
    (%a: tile<bf16>, %b: tile<bf16>) {
      %m = addf %a, %b : tile<bf16>
      yield %m : tile<bf16>
    }
    return
  }
}
"""
VALUES = """\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    %c = constant <f32: 3.0> : tile<f32>
    %d = negf %c : tile<f32>
    %t = store_ptr_tko weak %p, %d : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}
"""


def _made(text: str, name: str) -> dict[tuple, str]:
    """Each candidate reduction `name` makes of `text`, by key, as text (each verifies)."""
    made = {key: module.format() for key, module in candidates(tileir.parse(text), name)}
    for candidate in made.values():
        tileir.parse(candidate)
    return made


def _body(*lines: str, arguments: str = "") -> str:
    """A module of one entry @k with `arguments` and the ops of `lines`."""
    return ("cuda_tile.module @kernels {\n  entry @k(" + arguments + ") {\n" +
            "".join(f"    {line}\n" for line in lines) + "    return\n  }\n}\n")


def test_unwrap_keeps_one_branch_of_an_if_or_one_iteration_of_a_for() -> None:
    made = _made(IF_AND_FOR, "unwrap")
    assert list(made) == [(2, 0), (2, 1), (10, 0)]
    assert " if " not in made[(2, 0)] and "%cst_2_f32" not in made[(2, 0)]
    assert " if " not in made[(2, 1)] and "%cst_1_f32" not in made[(2, 1)]
    assert made[(10, 0)].endswith("""\
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %1 = negf %0 : tile<4xf32>
    %2 = addf %1, %0  : tile<4xf32>
    return
  }
}
""")


def test_carried_drops_a_loop_carried_value_or_a_result() -> None:
    made = _made(IF_AND_FOR, "carried")
    assert sorted(made) == [(2, 1, 0), (10, 0, 0), (10, 0, 1)]
    assert "iter_values(%iterArg0 = %0) -> (tile<4xf32>)" in made[(10, 0, 1)]
    assert "%1 = addf %for, %0  : tile<4xf32>" in made[(10, 0, 1)]
    assert "%1 = addf %0, %for  : tile<4xf32>" in made[(10, 0, 0)]
    assert "    if %true {\n" in made[(2, 1, 0)]       # (its one result dropped)
    made = _made(LOOP, "carried")
    assert sorted(made) == [(3, 0, 0), (3, 1, 0)]
    assert "%0 = loop : tile<i32> {" in made[(3, 0, 0)]
    assert "        break\n" in made[(3, 1, 0)]          # (the loop's result dropped)


def test_arguments_are_dropped_or_merged() -> None:
    made = _made(ARGUMENTS, "arguments")
    assert sorted(made) == [(0, 1, 0), (0, 2, -1)]
    assert made[(0, 2, -1)].startswith(
        "cuda_tile.module @kernels {\n  entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>)")
    assert "store_ptr_tko weak %arg0, %result" in made[(0, 1, 0)]


def test_attributes_reset_to_their_defaults() -> None:
    made = _made(ATTRIBUTES, "attributes")
    assert sorted(made) == [(2, 0, "flush_to_zero"), (2, 0, "rounding_mode")]
    assert made[(2, 0, "flush_to_zero")] == _body(
        "%cst_1_f32 = constant <f32: 1.000000e+00> : tile<4xf32>",
        "%0 = divf %cst_1_f32, %cst_1_f32 rounding<zero> : tile<4xf32>")


def test_views_lose_their_padding_and_become_partition_views() -> None:
    made = _made(VIEWS, "views")
    assert [key[1] for key in made] == [0, 2]
    padded = "partition_view<tile=(4), padding_value = nan, tensor_view<16xf32, strides=[1]>>"
    assert f"%pview = make_partition_view %tview : {padded}" in list(made.values())[1]
    assert "padding_value" not in list(made.values())[0]


def test_shapes_halve_and_elements_become_f32() -> None:
    made = _made(ELEMENTS, "shapes")
    assert list(made) == [((2,), 0)]    # (a constant keeps its first element)
    assert "constant <bf16: 2.500000e+00> : tile<1xbf16>" in made[((2,), 0)]
    made = _made(ELEMENTS, "elements")
    assert list(made) == [("bf16",)]
    text = made[("bf16",)]
    assert "bf16" not in text
    assert "constant <f32: [2.500000e+00, 1.000000e+00]> : tile<2xf32>" in text
    assert "identities=[0.000000e+00 : f32]" in text


def test_values_are_replaced_by_an_operand_or_a_zero() -> None:
    made = _made(VALUES, "values")
    assert sorted(made) == [(1, 0, 2, 0), (2, 0, 0, 0), (2, 0, 2, 0)]
    assert made[(2, 0, 0, 0)] == _body(
        "%cst_3_f32 = constant <f32: 3.000000e+00> : tile<f32>",
        "%0 = store_ptr_tko weak %arg0, %cst_3_f32 : tile<ptr<f32>>, tile<f32> -> token",
        arguments="%arg0: tile<ptr<f32>>")


def test_chunks_delete_halves_first_then_single_ops() -> None:
    module = tileir.parse(IF_AND_FOR)
    keys = REDUCTIONS["chunks"].keys(module)          # (10 ops but terminators)
    assert keys[:3] == [(-4, 0), (-4, 4), (-4, 8)] and keys[-1] == (-1, 9)
    made = _made(IF_AND_FOR, "chunks")
    assert "addf" not in made[(-1, 9)]
    # (the if's result, used by the for, is made a zero)
    assert made[(-4, 0)].startswith("""\
cuda_tile.module @kernels {
  entry @k() {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<4xf32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
""")


def test_clone_and_measure() -> None:
    module = tileir.parse(IF_AND_FOR)
    copy = clone(module)
    assert copy.format() == module.format() and copy is not module
    assert count_ops(module) == 16                   # (the module included)
    ops, chars, elements, unusual = measure(module, module.format())
    assert (ops, chars) == (16, len(module.format()))
    assert elements == 4 * 9 + 5        # (nine tiles of 4 and five scalars, block arguments too)
    assert unusual == 5                 # (the non-zero constants)


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_every_reduction_has_a_summary_and_is_documented(name: str) -> None:
    assert REDUCTIONS[name].summary
    docs = Path(__file__).resolve().parents[2] / "docs" / "reduce.md"
    assert f"| `{name}` |" in docs.read_text()


def test_passes_merges_equal_constants() -> None:
    """The `passes` reduction's cse candidate keeps one of two equal constants."""
    import tileir
    from tileir.reducer.reductions import candidates
    module = tileir.parse("""cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>) {
    %a = constant <i32: 0> : tile<i32>
    %b = constant <i32: 0> : tile<i32>
    %c = addi %a, %b : tile<i32>
    %t = store_ptr_tko weak %p, %c : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}""")
    made = dict(candidates(module, "passes"))
    assert made[("cse",)].format() == """cuda_tile.module @m {
  entry @k(%arg0: tile<ptr<i32>>) {
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %0 = addi %cst_0_i32, %cst_0_i32 : tile<i32>
    %1 = store_ptr_tko weak %arg0, %0 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


EARLIER = """\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<i32>>) {
    %lo = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = addi %one, %one : tile<i32>
    %s = addi %lo, %two : tile<i32>
    %t = store_ptr_tko weak %p, %s : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


def test_values_are_replaced_by_another_ops_result_visible_at_every_use() -> None:
    made = _made(EARLIER, "values")
    # (ops by pre-order index, the entry 0: %lo by %two or %one; %one by %lo only, not by
    # %two computed from it; %two by %lo, its operand %one being another kind's key; %s
    # by %one)
    assert sorted(k for k in made if k[2] == 3) == [
        (1, 0, 3, 0), (1, 0, 3, 1), (2, 0, 3, 0), (3, 0, 3, 0), (4, 0, 3, 0)]
    assert "%1 = addi %cst_1_i32, %0 : tile<i32>" in made[(1, 0, 3, 1)]
    assert "%0 = addi %cst_0_i32, %cst_0_i32 : tile<i32>" in made[(2, 0, 3, 0)]
    assert "%cst_1_i32" not in made[(2, 0, 3, 0)]


UNIT_DIM = """\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xf32, strides=[8,1]>
    %pv = make_partition_view %tv : partition_view<tile=(1x8), tensor_view<4x8xf32, strides=[8,1]>>
    %z = constant <i32: 2> : tile<i32>
    %v, %t = load_view_tko weak %pv[%z, %z] : partition_view<tile=(1x8), tensor_view<4x8xf32, strides=[8,1]>>, tile<i32> -> tile<1x8xf32>, token
    %n = negf %v : tile<1x8xf32>
    return
  }
}
"""


def test_dims_drops_a_unit_dimension_from_tiles_views_and_indices() -> None:
    made = _made(UNIT_DIM, "dims")
    assert list(made) == [((1, 8), 0)]
    text = made[((1, 8), 0)]
    view = "partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>"
    assert ("%tview = make_tensor_view %arg0, shape = [8], strides = [1] : "
            "tensor_view<8xf32, strides=[1]>") in text
    assert (f"%tile, %result_token = load_view_tko weak %pview[%cst_2_i32] : {view}, "
            "tile<i32> -> tile<8xf32>, token") in text
    assert "%0 = negf %tile : tile<8xf32>" in text


def test_extents_halve_a_tensor_view_and_count_as_smaller() -> None:
    made = _made(UNIT_DIM, "extents")
    spelling = "!cuda_tile.tensor_view<4x8xf32, strides=[8,1]>"
    assert sorted(made) == [(spelling, 0), (spelling, 1)]
    assert "tensor_view<2x8xf32, strides=[8,1]>" in made[(spelling, 0)]
    before = tileir.parse(UNIT_DIM)
    after = tileir.parse(made[(spelling, 1)])
    assert "tensor_view<4x4xf32, strides=[8,1]>" in made[(spelling, 1)]
    # (the same ops and text length: fewer elements, 32 -> 16, make it smaller)
    assert measure(after, after.format())[:2] == measure(before, before.format())[:2]
    assert measure(after, after.format())[2] == measure(before, before.format())[2] - 16


def test_a_candidate_with_a_new_kind_of_warning_is_invalid() -> None:
    from tileir.reducer.core import INVALID, evaluate, warning_kinds
    text = _body("%lo = constant <i32: 0> : tile<i32>",
                 "%one = constant <i32: 1> : tile<i32>",
                 "for %i in (%lo to %one, step %one) : tile<i32> {", "  continue", "}")
    module = tileir.parse(text)
    assert warning_kinds(module) == frozenset()
    key = (2, 0, 3, 0)     # (%one made %lo: a step of 0, a loop that cannot run)
    assert "step %cst_0_i32" in dict(candidates(module, "values"))[key].format()
    size = measure(module, module.format())
    outcome = evaluate(lambda m: True, module.format(), "values", key, size)
    assert outcome.verdict == INVALID
    allowed = frozenset({"step # is not positive: the loop fails when it runs (the spec's "
                         "step must be positive)"})
    assert evaluate(lambda m: True, module.format(), "values", key, size,
                    allowed).verdict != INVALID
