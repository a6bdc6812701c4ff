"""Hand-written verifiers of the core, control flow and misc ops: each test builds a small
program breaking one rule of the reference verifier and asserts its exact diagnostics."""

from __future__ import annotations

import pytest


def func(body: str, args: str = "", results: str = "") -> str:
    """`body` inside a testing function of a module."""
    signature = f"({args})" + (f" -> {results}" if results else "")
    return f"cuda_tile.module @m {{\n  testing$func @f{signature} {{\n{body}\n  }}\n}}"


def entry(body: str, args: str = "", extra: str = "") -> str:
    """`body` inside an entry of a module."""
    return f"cuda_tile.module @m {{\n  entry @k({args}){extra} {{\n{body}\n  }}\n}}"


# ---- module, entry, return, globals --------------------------------------------------


def test_entry_must_not_return_values(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.entry @k(%a: !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32> {
        cuda_tile.return %a : !cuda_tile.tile<f32>
      }
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.entry' op entry op must not return values"]


def test_entry_arguments_are_scalar_tiles(diagnose) -> None:
    text = entry("", args="%a: !cuda_tile.tile<2x2xf32>")
    assert diagnose(text) == ["error: 'cuda_tile.entry' op entry op must have scalar types "
                              "(rank 0 !cuda_tile.tile)"]


def test_return_operand_count_against_function(diagnose) -> None:
    text = func("", args="%a: !cuda_tile.tile<2xi16>", results="!cuda_tile.tile<2xi16>")
    assert diagnose(text) == ["error: 'cuda_tile.return' op has 0 operands, but enclosing "
                              "function (@f) returns 1"]


def test_return_operand_type_against_function(diagnose) -> None:
    text = func("    cuda_tile.return %b : !cuda_tile.tile<2xf32>",
                args="%a: !cuda_tile.tile<2xi16>, %b: !cuda_tile.tile<2xf32>",
                results="!cuda_tile.tile<2xi16>")
    assert diagnose(text) == ["error: type of return operand 0 ('!cuda_tile.tile<2xf32>') "
                              "doesn't match function result type ('!cuda_tile.tile<2xi16>') "
                              "in function @f"]


def test_global_value_has_rank_one(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.global @g <f16: [[1.0, 2.0]]> : !cuda_tile.tile<1x2xf16>
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.global' op type must have rank 1"]


def test_get_global_pointee_matches_global(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.global @g1 <f16: [1.0, 2.0]> : !cuda_tile.tile<2xf16>
      entry @k() {
        %0 = cuda_tile.get_global @g1 : !cuda_tile.tile<!cuda_tile.ptr<f32>>
      }
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.get_global' op pointee type of result type "
                              "'!cuda_tile.ptr<f32>' does not match type 'f16' of the global @g1"]


def test_get_global_names_a_global(diagnose) -> None:
    text = entry("    %0 = cuda_tile.get_global @g1 : !cuda_tile.tile<!cuda_tile.ptr<f32>>")
    assert diagnose(text) == ["error: 'cuda_tile.get_global' op 'g1' does not reference a "
                              "valid global"]


def test_get_global_of_an_entry_is_not_a_global(diagnose) -> None:
    text = """cuda_tile.module @m {
      entry @g1() {
        %0 = cuda_tile.get_global @g1 : !cuda_tile.tile<!cuda_tile.ptr<f32>>
      }
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.get_global' op 'g1' does not reference a "
                              "valid global"]


def test_region_with_no_block(diagnose) -> None:
    text = """cuda_tile.module @m {
      "cuda_tile.testing$func"() ({ }) {function_type = () -> (), sym_name = "foo"} : () -> ()
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.testing$func' op region #0 ('body') failed to "
                              "verify constraint: region with 1 blocks"]


# ---- debug info --------------------------------------------------

DI = """#file = #cuda_tile.di_file<"foo.py" in "/tmp/">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "test", linkageName = "test",
  compileUnit = #cu, scopeLine = 2>
#other = #cuda_tile.di_subprogram<file = #file, line = 3, name = "o", linkageName = "o",
  compileUnit = #cu, scopeLine = 4>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 3, column = 4>
#in_sp = #cuda_tile.di_loc<loc("/tmp/foo.py":7:8) in #sp>
#in_block = #cuda_tile.di_loc<loc("/tmp/foo.py":9:10) in #block>
#in_other = #cuda_tile.di_loc<loc("/tmp/foo.py":5:6) in #other>
"""
FILE = '#cuda_tile.di_file<"foo.py" in "/tmp/">'
SP = (f'#cuda_tile.di_subprogram<file = {FILE}, line = 1, name = "test", linkageName = '
      f'"test", compileUnit = #cuda_tile.di_compile_unit<file = {FILE}>, scopeLine = 2>')
OTHER = (f'#cuda_tile.di_subprogram<file = {FILE}, line = 3, name = "o", linkageName = "o", '
         f'compileUnit = #cuda_tile.di_compile_unit<file = {FILE}>, scopeLine = 4>')


def di_entry(name: str, entry_loc: str, return_loc: str) -> str:
    """An entry `name` located at `entry_loc` whose return is at `return_loc`."""
    return DI + f"""cuda_tile.module @m {{
      entry @{name}() {{
        return loc({return_loc})
      }} loc({entry_loc})
    }}"""


def test_function_scope_must_be_a_subprogram(diagnose) -> None:
    text = di_entry("test", '"named"(#in_block)', "#in_sp")
    block = f"#cuda_tile.di_lexical_block<scope = {SP}, file = {FILE}, line = 3, column = 4>"
    assert diagnose(text) == [f"error: 'cuda_tile.entry' op invalid function debug info scope: "
                              f"{block}. Function location must have cuda_tile.di_subprogram "
                              "debug info scope."]


def test_function_name_matches_linkage_name(diagnose) -> None:
    text = di_entry("foo", "fused[#in_sp]", "#in_sp")
    assert diagnose(text) == [f"error: 'cuda_tile.entry' op invalid function debug info scope: "
                              f"{SP}. Function name \"foo\" does not match subprogram scope "
                              "linkage name \"test\"."]


def test_op_scope_needs_function_scope(diagnose) -> None:
    text = di_entry("test", "unknown", 'callsite("/tmp/foo.py":1:1 at #in_block)')
    assert diagnose(text) == [f"error: 'cuda_tile.return' op invalid operation debug info "
                              f"scope: {SP}. Operation has debug info scope, but function debug "
                              "info scope is undefined."]


def test_op_scope_matches_function_scope(diagnose) -> None:
    text = di_entry("test", "#in_sp", "#in_other")
    assert diagnose(text) == [f"error: invalid operation debug info scope: {OTHER}. Operation "
                              f"debug info scope does not match function debug info scope: {SP}."]


def test_lexical_block_inside_function_scope_is_fine(diagnose) -> None:
    assert diagnose(di_entry("test", "#in_sp", "#in_block")) == []


def test_module_level_op_has_no_scope(diagnose) -> None:
    text = DI + """cuda_tile.module @m {
      "some.op"() : () -> () loc("g"(#in_sp))
    }"""
    assert diagnose(text) == [f"error: 'some.op' op invalid operation debug info scope: "
                              f'loc(#cuda_tile.di_loc<loc("/tmp/foo.py":7:8) in {SP}>). Global '
                              "variables must not have scope."]


# ---- optimization hints --------------------------------------------------


def hinted(hints: str) -> str:
    """An entry carrying `hints` as its optimization_hints."""
    return entry("    return", args="%a: !cuda_tile.tile<ptr<f32>>",
                 extra=f" optimization_hints=<{hints}>")


HINT_CASES = [
    ("sm_100a={num_cta_in_cga=2}", "unknown hint key sm_100a"),
    ("sm_100={num_qqq=1}", "num_qqq is not known hint for current Operation"),
    ("sm_100={latency=1}", "latency is not known hint for current Operation"),
    ('sm_100={num_cta_in_cga="a"}', "integer value expected for sm_100.num_cta_in_cga"),
    ("sm_100={num_cta_in_cga=7}", "expected power-of-two ≤ 16 for sm_100.num_cta_in_cga"),
    ("sm_100={num_cta_in_cga=32}", "expected power-of-two ≤ 16 for sm_100.num_cta_in_cga"),
    ("sm_80={num_cta_in_cga=2}", "expected 1 for sm_80.num_cta_in_cga"),
    ("sm_100={occupancy=33}",
     "integer value in the range [1, 32] is expected for sm_100.occupancy"),
    ('sm_100={num_worker_warps_per_cta="x"}',
     "integer value expected for sm_100.num_worker_warps_per_cta"),
    ("sm_100={num_worker_warps_per_cta=3}",
     "expected power-of-two ≤ 32 for sm_100.num_worker_warps_per_cta"),
]


@pytest.mark.parametrize("hints, message", HINT_CASES)
def test_hint_problems_are_silent_by_default(diagnose, hints: str, message: str) -> None:
    assert diagnose(hinted(hints)) == []


@pytest.mark.parametrize("hints, message", HINT_CASES)
def test_hint_problems_warn(diagnose, hints: str, message: str) -> None:
    assert diagnose(hinted(hints), warn_hints=True) == [f"warning: {message}"]


@pytest.mark.parametrize("hints, message", HINT_CASES)
def test_hint_problems_fail_with_error_hints(diagnose, hints: str, message: str) -> None:
    assert diagnose(hinted(hints), warn_hints=True, error_hints=True) == [
        f"warning: {message}",
        "error: 'cuda_tile.entry' op Optimization hints verification failed"]


def test_valid_hints_verify_clean(diagnose) -> None:
    text = hinted("sm_100={num_cta_in_cga=2, num_worker_warps_per_cta=8, occupancy=4}, "
                  "default={occupancy=1}")
    assert diagnose(text, warn_hints=True, error_hints=True) == []


# ---- control flow --------------------------------------------------


def test_continue_outside_loop_chain(diagnose) -> None:
    text = entry("""    %c = cuda_tile.constant <i1: true> : !cuda_tile.tile<i1>
    cuda_tile.if %c {
      cuda_tile.continue
    }""")
    assert diagnose(text) == [
        "error: 'cuda_tile.continue' op can only be nested within a ancestor chain of "
        "'cuda_tile.for', 'cuda_tile.loop', 'cuda_tile.if' operations",
        "note: see unexpected ancestor operation"]


def test_break_inside_for(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    cuda_tile.for %iv in (%c0 to %c0, step %c0) : !cuda_tile.tile<i32> {
      %c = cuda_tile.constant <i1: true> : !cuda_tile.tile<i1>
      cuda_tile.if %c {
        cuda_tile.break
      }
    }""")
    assert diagnose(text) == [
        "error: 'cuda_tile.break' op can only be nested within a ancestor chain of "
        "'cuda_tile.loop', 'cuda_tile.if' operations",
        "note: see unexpected ancestor operation"]


def test_break_operands_match_loop_results(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    cuda_tile.loop {
      cuda_tile.break %c0 : !cuda_tile.tile<i32>
    }""")
    assert diagnose(text) == [
        "error: 'cuda_tile.break' op operand types must correspond to the parent loop result "
        "types: ('!cuda_tile.tile<i32>') vs ()"]


def test_continue_in_for_matches_results(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    cuda_tile.for %iv in (%c0 to %c0, step %c0) : !cuda_tile.tile<i32> {
      cuda_tile.continue %c0 : !cuda_tile.tile<i32>
    }""")
    assert diagnose(text) == [
        "error: `for` is missing a valid terminator. `continue` op should have operand types "
        "that match the parent loop return types: (), but found: ('!cuda_tile.tile<i32>')"]


def test_implicit_continue_in_loop_matches_iter_values(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    cuda_tile.loop iter_values(%x = %c0) : tile<i32> { }""")
    assert diagnose(text) == [
        "error: `loop` is missing a valid terminator. `continue` op should have operand types "
        "that match the parent loop iter_values: ('!cuda_tile.tile<i32>'), but found: ()"]


def test_for_induction_variable_type(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    "cuda_tile.for"(%c0, %c0, %c0) ({
      ^bb0(%i : !cuda_tile.tile<i64>):
        cuda_tile.continue
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> ()""")
    assert diagnose(text) == [
        "error: 'cuda_tile.for' op expected induction variable to be same type as bounds and "
        "step: '!cuda_tile.tile<i64>' vs '!cuda_tile.tile<i32>'"]


def test_for_init_and_iter_value_types(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    %f = cuda_tile.constant <f32: 0.0> : !cuda_tile.tile<f32>
    %r = "cuda_tile.for"(%c0, %c0, %c0, %f) ({
      ^bb0(%i : !cuda_tile.tile<i32>, %x : !cuda_tile.tile<f64>):
        cuda_tile.continue %f : !cuda_tile.tile<f32>
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>,
          !cuda_tile.tile<f32>) -> (!cuda_tile.tile<f32>)""")
    assert diagnose(text) == [
        "error: 'cuda_tile.for' op init value 0 and region iter_value 0 have different type: "
        "'!cuda_tile.tile<f32>' != '!cuda_tile.tile<f64>'"]


def test_for_iter_value_count(diagnose) -> None:
    text = entry("""    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    %f = cuda_tile.constant <f32: 0.0> : !cuda_tile.tile<f32>
    %r = "cuda_tile.for"(%c0, %c0, %c0, %f) ({
      ^bb0(%i : !cuda_tile.tile<i32>, %x : !cuda_tile.tile<f32>, %y : !cuda_tile.tile<f32>):
        cuda_tile.continue %x : !cuda_tile.tile<f32>
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>,
          !cuda_tile.tile<f32>) -> (!cuda_tile.tile<f32>)""")
    assert diagnose(text) == [
        "error: 'cuda_tile.for' op mismatch in number of region iterator values and loop "
        "iterator inits: 2 vs 1"]


VIEW = "tensor_view<2x2xf32, strides=[1,1]>"
PVIEW = f"partition_view<tile=(2x2), {VIEW}>"


def test_loop_result_may_not_be_a_view(diagnose) -> None:
    text = func(f"""    %0 = loop : {VIEW} {{
      break %v : {VIEW}
    }}""", args=f"%v: !cuda_tile.{VIEW}")
    assert diagnose(text) == ["error: 'cuda_tile.loop' op result type 0 is a tensor_view, "
                              "which is not supported"]


def test_loop_may_not_carry_a_tile_view(diagnose) -> None:
    text = func(f"""    loop iter_values(%x = %v) : {PVIEW} {{
      continue %x : {PVIEW}
    }}""", args=f"%v: !cuda_tile.{PVIEW}")
    assert diagnose(text) == ["error: 'cuda_tile.loop' op loop-carried value 0 is a tile view, "
                              "which is not supported"]


def test_if_result_may_not_be_a_view(diagnose) -> None:
    text = func(f"""    %0 = if %c -> ({PVIEW}) {{
      yield %v : {PVIEW}
    }} else {{
      yield %v : {PVIEW}
    }}""", args=f"%c: !cuda_tile.tile<i1>, %v: !cuda_tile.{PVIEW}")
    assert diagnose(text) == ["error: 'cuda_tile.if' op result type 0 is a tile view, which "
                              "is not supported"]


IF_CASES = [
    ("-> (!cuda_tile.tile<i32>)", "yield %v : !cuda_tile.tile<i32>", None,
     "op has non-empty return type, must define else branch"),
    ("-> (!cuda_tile.tile<i32>)", "yield %v : !cuda_tile.tile<i32>", "yield",
     "op has return type of '!cuda_tile.tile<i32>' but else branch does not yield anything"),
    ("", "yield %v : !cuda_tile.tile<i32>", "yield",
     "op does not return a value, but then branch yields '!cuda_tile.tile<i32>'"),
    ("-> (!cuda_tile.tile<i64>)", "yield %v : !cuda_tile.tile<i32>",
     "yield %w : !cuda_tile.tile<i64>",
     "op type does not match yield type, then branch yields '!cuda_tile.tile<i32>' but op "
     "result type is '!cuda_tile.tile<i64>'"),
    ("-> (!cuda_tile.tile<i64>)", "yield %w : !cuda_tile.tile<i64>",
     "yield %v : !cuda_tile.tile<i32>",
     "op type does not match yield type, else branch yields '!cuda_tile.tile<i32>' but op "
     "result type is '!cuda_tile.tile<i64>'"),
]


@pytest.mark.parametrize("results, then, otherwise, message", IF_CASES)
def test_if_branches_yield_results(diagnose, results: str, then: str, otherwise: str | None,
                                   message: str) -> None:
    else_part = f" else {{\n      {otherwise}\n    }}" if otherwise is not None else ""
    name = "%r = " if results else ""
    text = func(f"    {name}if %c {results} {{\n      {then}\n    }}{else_part}",
                args="%c: !cuda_tile.tile<i1>, %v: !cuda_tile.tile<i32>, "
                     "%w: !cuda_tile.tile<i64>")
    assert diagnose(text) == [f"error: 'cuda_tile.if' {message}"]


# ---- shape ops --------------------------------------------------


def one_op(line: str, args: str) -> str:
    """A testing function of arguments `args` holding the single op `line`."""
    return func(f"    {line}", args=args)


SHAPE_CASES = [
    ("%0 = cuda_tile.broadcast %a : tile<4x4xf32> -> tile<2x4xf32>", "%a: !cuda_tile.tile<4x4xf32>",
     "'cuda_tile.broadcast' op expects the shape of source tile to be compatible with that of "
     "the result tile, but got: 4, 4 and 2, 4"),
    ("%0 = cuda_tile.cat %a, %a dim = 2 : tile<2x4xf32>, tile<2x4xf32> -> tile<4x4xf32>",
     "%a: !cuda_tile.tile<2x4xf32>", "'cuda_tile.cat' op expect dim to be [0, 2), but got: 2"),
    ("%0 = cuda_tile.cat %a, %a dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x16xf32>",
     "%a: !cuda_tile.tile<2x4xf32>",
     "'cuda_tile.cat' op invalid concat at position 1, expected: 8 but got: 16"),
    ("%0 = cuda_tile.cat %a, %a dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<4x8xf32>",
     "%a: !cuda_tile.tile<2x4xf32>",
     "'cuda_tile.cat' op expect lhs and result shapes to match at non-concat position 0, "
     "expected: 2 but got: 4"),
    ("%0 = cuda_tile.iota : !cuda_tile.tile<2x2xi32>", "",
     "'cuda_tile.iota' op expects result type to be 1-d tile"),
    ("%0 = cuda_tile.iota : !cuda_tile.tile<512xi8>", "",
     "'cuda_tile.iota' op the number of elements 512 exceeds the maximum value of element "
     "type 'i8'"),
    ("%0 = cuda_tile.reshape %a : !cuda_tile.tile<2x2xf32> -> !cuda_tile.tile<8xf32>",
     "%a: !cuda_tile.tile<2x2xf32>",
     "'cuda_tile.reshape' op expected source tile and result tile to have the same number "
     "of elements"),
    ("%0 = cuda_tile.permute %a [0] : tile<2xf32> -> tile<2xf32>", "%a: !cuda_tile.tile<2xf32>",
     "'cuda_tile.permute' op expects at least rank 2, but got: 1"),
    ("%0 = cuda_tile.permute %a [0, 1, 2] : tile<2x4xf32> -> tile<2x4xf32>",
     "%a: !cuda_tile.tile<2x4xf32>",
     "'cuda_tile.permute' op expect permutation size (3) to equal the rank of the source (2)"),
    ("%0 = cuda_tile.permute %a [1, 1] : tile<2x4xf32> -> tile<4x2xf32>",
     "%a: !cuda_tile.tile<2x4xf32>", "'cuda_tile.permute' op expect permutation elements to be "
     "unique"),
    ("%0 = cuda_tile.permute %a [0, 100] : tile<2x4xf32> -> tile<4x2xf32>",
     "%a: !cuda_tile.tile<2x4xf32>",
     "'cuda_tile.permute' op permutation element at index 1 (100) is out of bound [0, 2)"),
    ("%0 = cuda_tile.permute %a [1, 0] : tile<2x4xf32> -> tile<2x4xf32>",
     "%a: !cuda_tile.tile<2x4xf32>",
     "'cuda_tile.permute' op result shape invalid at index 0, expected: 4, but got: 2"),
    ("%0 = cuda_tile.select %c, %a, %a : tile<2xi1>, tile<2xf4E2M1FN>",
     "%c: !cuda_tile.tile<2xi1>, %a: !cuda_tile.tile<2xf4E2M1FN>",
     "'cuda_tile.select' op cannot operate on sub-byte type F4E2M1FN"),
    ("%0 = cuda_tile.pack %a : tile<64xi8> -> tile<64xi8>", "%a: !cuda_tile.tile<64xi8>",
     "'cuda_tile.pack' op expects source and result to have different element type widths"),
    ("%0 = cuda_tile.pack %a : tile<64xi4> -> tile<64xi8>", "%a: !cuda_tile.tile<64xi4>",
     "'cuda_tile.pack' op expects source and result to have the same size in bytes, but got "
     "source tile size 32 bytes and result tile size 64 bytes"),
    ("%0 = cuda_tile.extract %a[%i] : tile<4xf32> -> tile<8xf32>",
     "%a: !cuda_tile.tile<4xf32>, %i: !cuda_tile.tile<i32>",
     "'cuda_tile.extract' op source dimension 0 size (4) must be evenly divisible by result "
     "dimension 0 size (8)"),
    ("%0 = cuda_tile.extract %a[%i, %i] : tile<4xf32> -> tile<2xf32>",
     "%a: !cuda_tile.tile<4xf32>, %i: !cuda_tile.tile<i32>",
     "'cuda_tile.extract' op expected 1 indices, but got 2"),
]


@pytest.mark.parametrize("line, args, message", SHAPE_CASES)
def test_shape_op_rules(diagnose, line: str, args: str, message: str) -> None:
    assert diagnose(one_op(line, args)) == [f"error: {message}"]


def test_extract_constant_index_out_of_bounds_warns(diagnose) -> None:
    text = func("""    %i = cuda_tile.constant <i32: 5> : !cuda_tile.tile<i32>
    %0 = cuda_tile.extract %a[%i] : tile<8xf32> -> tile<2xf32>""",
                args="%a: !cuda_tile.tile<8xf32>")
    assert diagnose(text) == ["warning: extract index 0 value 5 may be out of bounds (max valid "
                              "index: 3)"]


@pytest.mark.parametrize("step, warned", [(0, True), (-2, True), (1, False)])
def test_a_constant_for_step_that_is_not_positive_warns(diagnose, step: int,
                                                         warned: bool) -> None:
    text = func(f"""    %lo = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    %s = cuda_tile.constant <i32: {step}> : !cuda_tile.tile<i32>
    cuda_tile.for %i in (%lo to %lo, step %s) : tile<i32> {{
      cuda_tile.continue
    }}""")
    message = (f"warning: step {step} is not positive: the loop fails when it runs (the "
               "spec's step must be positive)")
    assert diagnose(text, spec_warnings=True) == ([message] if warned else [])
    assert diagnose(text) == []         # (a spec warning: only ``tileir check`` gives it)


# ---- reduce and scan --------------------------------------------------


def reduce(operands: str, identities: str, types: str, results: str, block: str,
           body: str, op: str = "reduce", extra: str = "") -> str:
    """A reduce (or scan) over `operands` (``a``: 8xf32, ``b``: 8xi32) with a combiner
    taking `block` arguments and running `body`."""
    names = ", ".join(f"%{n}" for n in operands.split())
    count = len(results.split(", "))
    lhs = f"%r:{count}" if count > 1 else "%r"
    return func(f"""    {lhs} = cuda_tile.{op} {names} dim=0 {extra}identities=[{identities}]
      : {types} -> {results}
      ({block}) {{
      {body}
    }}""", args="%a: !cuda_tile.tile<8xf32>, %b: !cuda_tile.tile<8xi32>")


F = "!cuda_tile.tile<f32>"
I32 = "!cuda_tile.tile<i32>"
F8 = "!cuda_tile.tile<8xf32>"
I8 = "!cuda_tile.tile<8xi32>"

REDUCE_CASES = [
    (reduce("a", "0.0 : f32, 0.0 : f32", F8, f"{F}, {F}", f"%x : {F}, %y : {F}",
            f"cuda_tile.yield %x, %y : {F}, {F}"),
     "op expect same number of operands and results"),
    (reduce("a", "0.0 : f32, 0.0 : f32", F8, F, f"%x : {F}, %y : {F}",
            f"cuda_tile.yield %x : {F}"),
     "op expect identities to match the number of operands but got: 1 operands and 2 "
     "identities"),
    (reduce("a b", "0.0 : f32, 0.0 : f32", f"{F8}, {I8}", f"{F}, {I32}",
            f"%x : {F}, %y : {F}, %z : {I32}, %w : {I32}", f"cuda_tile.yield %x, %z : {F}, {I32}"),
     "op expect same type for operand at index: 1 and identity at index: 1 but got: 'i32' "
     "and 'f32'"),
    (reduce("a", "0.0 : f32", F8, F, f"%x : !cuda_tile.tile<1xf32>, %y : {F}",
            "cuda_tile.yield"),
     "op expect 0-rank tile type at index: 0 but got: '!cuda_tile.tile<1xf32>'"),
    (reduce("a", "0.0 : f32", F8, F, f"%x : {F}, %y : {I32}", "cuda_tile.yield"),
     "op expect same element type for block argument at index: 0 and 1 but got: 'f32' and "
     "'i32'"),
    (reduce("a", "0.0 : f32", F8, F, "", "cuda_tile.yield"),
     "op expect 2 block arguments but got: 0"),
    (reduce("a", "0.0 : f32", F8, F, f"%x : {I32}, %y : {I32}", "cuda_tile.yield"),
     "op expect same type for operand at index: 0 and block argument at index: 0 but got: "
     "'f32' and 'i32'"),
    (reduce("a", "0.0 : f32", F8, F, f"%x : {F}, %y : {F}", "cuda_tile.yield"),
     "op expect number of terminators operands (0) to match number of operands (1)"),
    (reduce("a b", "0.0 : f32, 0 : i32", f"{F8}, {I8}", f"{F}, {I32}",
            f"%x : {F}, %y : {F}, %z : {I32}, %w : {I32}", f"cuda_tile.yield %z, %x : {I32}, {F}"),
     "op expect same type for operand at index: 0 and terminator argument at index: 0 but "
     "got: 'f32' and 'i32'"),
    (reduce("a", "0.0 : f32", F8, F8, f"%x : {F}, %y : {F}", f"cuda_tile.yield %x : {F}",
            op="scan", extra="reverse=false ").replace("%r = cuda_tile.scan %a dim=0",
                                                      "%r = cuda_tile.scan %a dim=1"),
     "op dimension (1) is out of bound [0, 1)"),
    (reduce("a", "0.0 : f32", F8, "!cuda_tile.tile<4xf32>", f"%x : {F}, %y : {F}",
            f"cuda_tile.yield %x : {F}", op="scan", extra="reverse=false "),
     "op expect same type for operand at index: 0 and result at index: 0"),
]


@pytest.mark.parametrize("text, message", REDUCE_CASES)
def test_reduce_and_scan_rules(diagnose, text: str, message: str) -> None:
    name = "scan" if "cuda_tile.scan" in text else "reduce"
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' {message}"]


def test_reduce_result_types_are_inferred(diagnose) -> None:
    text = reduce("a b", "0.0 : f32, 0 : i32", f"{F8}, {I8}", f"!cuda_tile.tile<1xf32>, {I32}",
                  f"%x : {F}, %y : {F}, %z : {I32}, %w : {I32}",
                  f"cuda_tile.yield %x, %z : {F}, {I32}")
    assert diagnose(text) == [
        "error: 'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<f32>', "
        "'!cuda_tile.tile<i32>' are incompatible with return type(s) of operation "
        "'!cuda_tile.tile<1xf32>', '!cuda_tile.tile<i32>'",
        "error: 'cuda_tile.reduce' op failed to infer returned types"]


def test_reduce_body_must_be_pure(diagnose) -> None:
    text = reduce("a", "0.0 : f32", F8, F, f"%x : {F}, %y : {F}",
                  f"""%t = cuda_tile.print_tko "x" -> !cuda_tile.token
      cuda_tile.yield %x : {F}""")
    assert diagnose(text) == ["error: 'cuda_tile.print_tko' op only pure operations are "
                              "allowed inside 'cuda_tile.reduce'"]


def test_bf16_identity_accepted_for_f16_operand(diagnose) -> None:
    text = func("""    %r = cuda_tile.reduce %a dim=0 identities=[0.0 : bf16]
      : !cuda_tile.tile<8xf16> -> !cuda_tile.tile<f16>
      (%x : !cuda_tile.tile<f16>, %y : !cuda_tile.tile<f16>) {
      cuda_tile.yield %x : !cuda_tile.tile<f16>
    }""", args="%a: !cuda_tile.tile<8xf16>")
    assert diagnose(text) == []


# ---- assume and print --------------------------------------------------

ASSUME_CASES = [
    ("div_by<3>", "!cuda_tile.tile<4xi32>", "'cuda_tile.div_by' divisor must be a power of 2"),
    ("div_by<9223372036854775808>", "!cuda_tile.tile<4xi32>",
     "'cuda_tile.div_by' divisor is too large"),
    ("div_by<4>", "!cuda_tile.tile<4xf32>",
     "'cuda_tile.div_by' is valid only for tile of integer/pointer or tensor_view values"),
    ("div_by<4, every 2 along 0>", "!cuda_tile.tile<i32>",
     "'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a 0D tile"),
    ("div_by<4, every 2 along 1>", "!cuda_tile.tile<16xi32>",
     "'cuda_tile.div_by' every_dim (1) must be >= 0 and < tile rank (1)"),
    ("div_by<4, every 32 along 0>", "!cuda_tile.tile<16xi32>",
     "expected 'cuda_tile.div_by' every_dim to be within 0 and the size of the respective "
     "dimension (16)"),
    ("same_elements<[1]>", "!cuda_tile.tile<i32>",
     "expected number of values in 'cuda_tile.same_elements' (1) to match rank of "
     "constrained tile (0)"),
    ("same_elements<[2]>", "!cuda_tile.tile<16xf32>",
     "'cuda_tile.same_elements' is valid only for tile of integer/pointer values"),
    ("same_elements<[32]>", "!cuda_tile.tile<16xi32>",
     "expected 'cuda_tile.same_elements' value 0 to be within 0 and the size of the "
     "respective dimension (16)"),
    ("bounded<0, 1>", "!cuda_tile.tile<16xf32>",
     "'cuda_tile.bounded' is valid only for tile of integer values"),
    ("bounded<0, 128>", "!cuda_tile.tile<16xi8>",
     "'cuda_tile.bounded' expects upper bound to be within [-128, 127]"),
    ("bounded<-129, ?>", "!cuda_tile.tile<16xi8>",
     "'cuda_tile.bounded' expects lower bound to be within [-128, 127]"),
    ("bounded<5, 4>", "!cuda_tile.tile<16xi8>",
     "'cuda_tile.bounded' expects lower bound to be less than or equal to upper bound"),
]


@pytest.mark.parametrize("predicate, type_, message", ASSUME_CASES)
def test_assume_predicates(diagnose, predicate: str, type_: str, message: str) -> None:
    text = one_op(f"%0 = cuda_tile.assume {predicate}, %a : {type_}", f"%a: {type_}")
    assert diagnose(text) == [f"error: 'cuda_tile.assume' op {message}"]


def test_assume_div_by_on_tensor_view(diagnose) -> None:
    good = one_op(f"%0 = cuda_tile.assume div_by<16>, %a : !cuda_tile.{VIEW}",
                  f"%a: !cuda_tile.{VIEW}")
    bad = one_op(f"%0 = cuda_tile.assume div_by<16, every 2 along 0>, %a : !cuda_tile.{VIEW}",
                 f"%a: !cuda_tile.{VIEW}")
    assert diagnose(good) == []
    assert diagnose(bad) == ["error: 'cuda_tile.assume' op 'cuda_tile.div_by' 'every'/'along' "
                             "cannot be used if the constrained value is a tensor_view"]


PRINT_CASES = [
    ('"one %i"', "", "incorrect number of operands: expected 1, found 0"),
    ('"%f %f", %a', " : !cuda_tile.tile<2xf16>",
     "incorrect number of operands: expected 2, found 1"),
    ('"hello %", %a', " : !cuda_tile.tile<2xf16>", "found unterminated format expression"),
    ('"100%% sure"', "", None),
    ('"%5.2f and %lld", %a, %a', " : !cuda_tile.tile<2xf16>, !cuda_tile.tile<2xf16>", None),
]


@pytest.mark.parametrize("operands, types, message", PRINT_CASES)
def test_print_format_string(diagnose, operands: str, types: str, message: str | None) -> None:
    text = entry("    %a = cuda_tile.constant <f16: [1.0, 2.0]> : !cuda_tile.tile<2xf16>\n"
                 f"    %t = cuda_tile.print_tko {operands}{types} -> !cuda_tile.token")
    expected = [] if message is None else [f"error: 'cuda_tile.print_tko' op {message}"]
    assert diagnose(text) == expected
