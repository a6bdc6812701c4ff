"""Parse errors reported exactly as cuda-tile-opt reports them: message, line, column, notes.

Every expectation here is written from the reference's parsing rules (MLIR's parser and
cuda_tile's custom parsers), not from tileir's output:

* errors raised through an op's own parser (MLIR's OpAsmParser::emitError) start with
  ``custom op '<full op name>' ``; errors of MLIR's own parser (tokens, SSA values, types
  written with their ``!cuda_tile.`` prefix) have no prefix;
* a type mismatch on an SSA value carries a note "prior use here" at the value's definition
  (or first use, for a forward reference);
* some custom parsers report twice (a failed ``parseKeyword`` is followed by their own message).
"""

from __future__ import annotations

import pytest

from tileir import ParseError
from tileir.syntax.parser import parse_document

Diag = tuple[int, int, str, str]


def diagnostics(text: str) -> list[Diag]:
    """(line, column, severity, message) of every diagnostic and note the parse gives."""
    with pytest.raises(ParseError) as info:
        parse_document(text, "t.mlir", allow_unregistered=True)
    found: list[Diag] = []
    for diag in info.value.diagnostics:
        for d in (diag, *diag.notes):
            assert d.location is not None
            found.append((d.location.line, d.location.column, d.severity.value, d.message))
    return found


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """The line and column where the `nth` occurrence of `needle` starts in `text`."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def func(body: str, args: str = "%a: !cuda_tile.tile<4xi32>, %b: !cuda_tile.tile<4xf32>") -> str:
    """A module with one testing function around `body` (which starts on line 3)."""
    return f"cuda_tile.module @m {{\n  testing$func @f({args}) {{\n{body}\n  }}\n}}\n"


# ---- SSA values ------------------------------------------------------------------------


def test_use_with_other_type_notes_its_definition():
    text = func("    %x = cuda_tile.constant <i32: 1> : !cuda_tile.tile<i32>\n"
                "    %y = cuda_tile.addi %x, %x : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (4, 25, "error", "use of value '%x' expects different type than prior uses: "
                         "'!cuda_tile.tile<4xi32>' vs '!cuda_tile.tile<i32>'"),
        (3, 5, "note", "prior use here")]


def test_function_argument_is_its_own_prior_use():
    text = func("    %y = cuda_tile.addf %b, %b : !cuda_tile.tile<4xf64>")
    assert diagnostics(text) == [
        (*at(text, "%b, %b"), "error", "use of value '%b' expects different type than prior "
                                       "uses: '!cuda_tile.tile<4xf64>' vs "
                                       "'!cuda_tile.tile<4xf32>'"),
        (*at(text, "%b: "), "note", "prior use here")]


def test_forward_reference_notes_its_first_use():
    text = ('"cuda_tile.module"() <{sym_name = "m"}> ({\n'
            '  "use"(%v) : (!cuda_tile.tile<i32>) -> ()\n'
            '  "use"(%v) : (!cuda_tile.tile<i64>) -> ()\n'
            '  %v = "def"() : () -> !cuda_tile.tile<i32>\n'
            '}) : () -> ()\n')
    assert diagnostics(text) == [
        (3, 9, "error", "use of value '%v' expects different type than prior uses: "
                        "'!cuda_tile.tile<i64>' vs '!cuda_tile.tile<i32>'"),
        (2, 9, "note", "prior use here")]


def test_definition_after_use_with_other_type():
    text = ('"cuda_tile.module"() <{sym_name = "m"}> ({\n'
            '  "use"(%v) : (!cuda_tile.tile<i32>) -> ()\n'
            '  %v = "def"() : () -> !cuda_tile.tile<f32>\n'
            '}) : () -> ()\n')
    assert diagnostics(text) == [
        (3, 3, "error", "definition of SSA value '%v#0' has type '!cuda_tile.tile<f32>'"),
        (2, 9, "note", "previously used here with type '!cuda_tile.tile<i32>'")]


def test_redefinition_notes_the_first_definition():
    text = func("    %x = cuda_tile.constant <i32: 1> : !cuda_tile.tile<i32>\n"
                "    %x = cuda_tile.constant <i32: 2> : !cuda_tile.tile<i32>")
    assert diagnostics(text) == [(4, 5, "error", "redefinition of SSA value '%x'"),
                                 (3, 5, "note", "previously defined here")]


def test_result_count_must_match_the_names_bound():
    text = func("    %x, %y = cuda_tile.constant <i32: 1> : !cuda_tile.tile<i32>")
    assert diagnostics(text) == [
        (3, 5, "error", "operation defines 1 results but was provided 2 to bind")]


def test_an_op_without_results_cannot_be_named():
    text = "%r = cuda_tile.loop {}\n"
    assert diagnostics(text) == [(1, 1, "error", "cannot name an operation with no results")]


# ---- enum keywords in custom syntax ------------------------------------------------------

PREDICATES = ("{'equal', 'not_equal', 'less_than', 'less_than_or_equal', 'greater_than', "
              "'greater_than_or_equal'}")


def test_unknown_comparison_predicate():
    text = func("    %c = cuda_tile.cmpi equality %a, %a, signed : !cuda_tile.tile<4xi32> "
                "-> !cuda_tile.tile<4xi1>")
    assert diagnostics(text) == [
        (3, 25, "error", "custom op 'cuda_tile.cmpi' expected 'comparison_predicate' to be "
                         f"one of: {PREDICATES}")]


def test_missing_comparison_predicate_reports_twice():
    text = func("    %c = cuda_tile.cmpi %a, %a, signed : !cuda_tile.tile<4xi32> "
                "-> !cuda_tile.tile<4xi1>")
    assert diagnostics(text) == [
        (3, 25, "error", "custom op 'cuda_tile.cmpi' expected valid keyword"),
        (3, 25, "error", "custom op 'cuda_tile.cmpi' expected 'comparison_predicate' to be "
                         f"one of: {PREDICATES}")]


def test_missing_signedness_reports_twice():
    text = func("    %c = cuda_tile.maxi %a, %a : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (3, 32, "error", "custom op 'cuda_tile.maxi' expected valid keyword"),
        (3, 32, "error", "custom op 'cuda_tile.maxi' expected signedness to be one of: "
                         "{'signed', 'unsigned'}")]


def test_comparison_ordering():
    text = func("    %c = cuda_tile.cmpf equal sometimes %b, %b : !cuda_tile.tile<4xf32> "
                "-> !cuda_tile.tile<4xi1>")
    assert diagnostics(text) == [
        (3, 31, "error", "custom op 'cuda_tile.cmpf' expected 'comparison_ordering' to be "
                         "one of: {'ordered', 'unordered'}")]


ARGS_PTR = "%p: !cuda_tile.tile<2x!cuda_tile.ptr<i32>>, %v: !cuda_tile.tile<2xi32>"


def test_enum_attribute_keyword_not_listed():
    text = func("    %r, %t = cuda_tile.atomic_rmw_tko relaxed device %p, foo, %v\n"
                "      : !cuda_tile.tile<2x!cuda_tile.ptr<i32>>, !cuda_tile.tile<2xi32> -> "
                "!cuda_tile.tile<2xi32>, !cuda_tile.token", ARGS_PTR)
    assert diagnostics(text) == [
        (3, 58, "error", "custom op 'cuda_tile.atomic_rmw_tko' expected string or keyword "
                         "containing one of the following enum values for attribute 'mode' "
                         "[and, or, xor, add, addf, max, min, umax, umin, xchg]")]


def test_memory_ordering_of_a_view_load():
    args = "%v: !cuda_tile.partition_view<tile=(2), !cuda_tile.tensor_view<8xf32, strides=[1]>>"
    text = func("    %t, %tok = cuda_tile.load_view_tko invalid %v[] : "
                "partition_view<tile=(2), tensor_view<8xf32, strides=[1]>>, tile<i32> "
                "-> tile<2xf32>, token", args)
    assert diagnostics(text) == [
        (3, 40, "error", "custom op 'cuda_tile.load_view_tko' invalid "
                         "memory_ordering_semantics attribute specification. Got \"invalid\" "
                         "but expect one of: weak, relaxed, acquire, release, acq_rel")]


def test_enum_attribute_parameter():
    text = func("    %x = cuda_tile.addi %a, %a overflow<sometimes> : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (3, 41, "error", "custom op 'cuda_tile.addi' expected "
                         "::mlir::cuda_tile::IntegerOverflow to be one of: none, "
                         "no_signed_wrap, no_unsigned_wrap, no_wrap"),
        (3, 50, "error", "custom op 'cuda_tile.addi' failed to parse "
                         "CudaTile_IntegerOverflowAttr parameter 'value' which is to be a "
                         "`::mlir::cuda_tile::IntegerOverflow`")]


# ---- rounding modes ----------------------------------------------------------------------


def test_ieee_rounding_rejects_modes_it_does_not_list():
    text = func("    %x = cuda_tile.mulf %b, %b rounding<approx> : !cuda_tile.tile<4xf32>")
    # Reported where the parser stands after ``rounding<...>``: the colon.
    assert diagnostics(text) == [
        (*at(text, ": !cuda_tile.tile<4xf32>\n"), "error",
         "custom op 'cuda_tile.mulf' expected rounding mode to be one of: 'nearest_even', "
         "'zero', 'negative_inf', 'positive_inf', got: 'approx'")]


def test_divf_rounding_rejects_only_unknown_keywords():
    text = func("    %x = cuda_tile.divf %b, %b rounding<sideways> : !cuda_tile.tile<4xf32>")
    assert diagnostics(text) == [
        (*at(text, ": !cuda_tile.tile<4xf32>\n"), "error",
         "custom op 'cuda_tile.divf' expected rounding mode to be one of: 'nearest_even', "
         "'zero', 'negative_inf', 'positive_inf', 'approx', 'full'")]


def test_divf_rounding_keeps_a_mode_for_the_verifier():
    text = func("    %x = cuda_tile.divf %b, %b rounding<nearest_int_to_zero> "
                ": !cuda_tile.tile<4xf32>")
    (module,) = parse_document(text, "t.mlir")
    divf = module.regions[0].block.operations[0].regions[0].block.operations[0]
    assert divf.attr("rounding_mode").value.keyword == "nearest_int_to_zero"


# ---- types ---------------------------------------------------------------------------------


def test_type_errors_in_short_form_carry_the_op_prefix():
    text = func("    %x = cuda_tile.addi %a, %a : tile<4x-4xi32>")
    assert diagnostics(text) == [
        (*at(text, "-4xi32"), "error", "custom op 'cuda_tile.addi' expected valid keyword")]


def test_type_errors_in_qualified_form_do_not():
    text = func("", "%a: !cuda_tile.tile<1x-1x4xf32>")
    assert diagnostics(text) == [(*at(text, "-1x4"), "error", "expected valid keyword")]


def test_unknown_short_type():
    text = func("    %x = cuda_tile.addi %a, %a : pluto")
    # Reported where the parser stands after the mnemonic: the next line's brace.
    assert diagnostics(text) == [(4, 3, "error", "custom op 'cuda_tile.addi' unknown type: pluto")]


# ---- typed dense literals --------------------------------------------------------------


def constant(literal: str) -> str:
    return func(f"    %c = cuda_tile.constant {literal}")


ELEMENTS = ("i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN "
            "or f8E5M2 or f8E8M0FNU or f4E2M1FN")


def test_dense_integer_out_of_range():
    text = constant("<i8: 256> : !cuda_tile.tile<i8>")
    assert diagnostics(text) == [
        (*at(text, "256"), "error", "custom op 'cuda_tile.constant' integer constant out of "
                                    "range for type")]


def test_dense_integer_beyond_int64_reports_twice():
    text = constant("<i64: 9223372036854775808> : !cuda_tile.tile<i64>")
    assert diagnostics(text) == [
        (*at(text, "922"), "error", "custom op 'cuda_tile.constant' integer value too large"),
        (*at(text, "922"), "error", "custom op 'cuda_tile.constant' expected integer value")]


def test_dense_boolean_for_a_wide_integer():
    text = constant("<i32: true> : !cuda_tile.tile<i32>")
    assert diagnostics(text) == [
        (*at(text, "true"), "error", "custom op 'cuda_tile.constant' expected integer value")]


def test_dense_decimal_integer_for_a_float():
    # Reported at the literal, after its minus sign (MLIR's parseFloat).
    text = constant("<f32: [1.0, -2]> : !cuda_tile.tile<2xf32>")
    assert diagnostics(text) == [
        (*at(text, "2]"), "error", "unexpected decimal integer literal for a floating point "
                                   "value"),
        (*at(text, "2]"), "note", "add a trailing dot to make the literal a float")]


def test_dense_shape_mismatch():
    text = constant("<i32: [1, 2]> : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (*at(text, "!cuda_tile.tile<4xi32>\n"), "error", "custom op 'cuda_tile.constant' inferred "
                                                  "shape of elements literal ([2]) does not "
                                                  "match type ([4])")]


def test_dense_ragged_literal():
    # Reported where the parser stands after the odd element: the outer ']'.
    text = constant("<i32: [[1, 2], [3]]> : !cuda_tile.tile<2x2xi32>")
    assert diagnostics(text) == [
        (*at(text, "]>"), "error", "tensor literal is invalid; ranks are not consistent "
                                   "between elements")]


def test_dense_element_type_mismatch():
    text = constant("<f16: 1.0> : !cuda_tile.tile<f32>")
    assert diagnostics(text) == [
        (*at(text, "!cuda_tile.tile<f32>"), "error", "custom op 'cuda_tile.constant' mismatch "
                                                     "between the element type: 'f16' and the "
                                                     "tile element type 'f32'")]


def test_dense_unknown_element_type_reports_twice():
    text = constant("<pluto : 1.0> : !cuda_tile.tile<f32>")
    assert diagnostics(text) == [
        (*at(text, ": 1.0"), "error", "custom op 'cuda_tile.constant' unknown type: pluto"),
        (*at(text, ": 1.0"), "error", "custom op 'cuda_tile.constant' expect element type to "
                                      f"be one of {ELEMENTS} values, but got '<<NULL TYPE>>'")]


def test_dense_element_type_not_allowed():
    text = constant("<index: 1> : !cuda_tile.tile<i32>")
    assert diagnostics(text) == [
        (*at(text, ": 1>"), "error", "custom op 'cuda_tile.constant' expect element type to be "
                                     f"one of {ELEMENTS} values, but got 'index'")]


def test_dense_result_must_be_a_tile():
    text = constant("<f32: 1.0> : tensor<f32>")
    assert diagnostics(text) == [
        (*at(text, "tensor<f32>"), "error", "custom op 'cuda_tile.constant' result #0 must be "
                                            f"tile of {ELEMENTS} values, but got "
                                            "'tensor<f32>'")]


# ---- views ---------------------------------------------------------------------------------

BASE = "%base: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %n: !cuda_tile.tile<i64>"


def test_make_tensor_view_garbage_in_shape():
    text = func("    %v = cuda_tile.make_tensor_view %base, shape = [32, x], strides = [1] "
                ": tensor_view<32xf32, strides=[1]>", BASE)
    assert diagnostics(text) == [
        (*at(text, "x]"), "error", "custom op 'cuda_tile.make_tensor_view' expected either "
                                   "integer or SSA value")]


def test_make_tensor_view_shape_count():
    text = func("    %v = cuda_tile.make_tensor_view %base, shape = [], strides = [1] "
                ": tensor_view<32xf32, strides=[1]>", BASE)
    assert diagnostics(text) == [
        (*at(text, "[]"), "error", "custom op 'cuda_tile.make_tensor_view' expected shape "
                                   "declaration to contain 1 elements due to tensor_view type, "
                                   "but 0 were provided")]


def test_make_tensor_view_dynamic_stride_where_type_is_static():
    text = func("    %v = cuda_tile.make_tensor_view %base, shape = [32], strides = [%n] "
                ": tile<i64> -> tensor_view<32xf32, strides=[1]>", BASE)
    assert diagnostics(text) == [
        (*at(text, "%n]"), "error", "custom op 'cuda_tile.make_tensor_view' input stride "
                                    "dimension 0 does not match tensor_view type (expected 1, "
                                    "got dynamic)")]


def test_make_partition_view_needs_a_partition_view():
    args = "%tv: !cuda_tile.tensor_view<8xf32, strides=[1]>"
    text = func("    %v = cuda_tile.make_partition_view %tv : tensor_view<8xf32, strides=[1]>",
                args)
    assert diagnostics(text) == [
        (*at(text, "tensor_view<8", 1), "error", "custom op 'cuda_tile.make_partition_view' "
                                                 "expected 'partition_view' type, but got "
                                                 "'!cuda_tile.tensor_view<8xf32, "
                                                 "strides=[1]>'")]


def test_get_tensor_shape_needs_a_tensor_view():
    text = func("    %s = cuda_tile.get_tensor_shape %a : tile<4xi32> -> tile<i32>")
    assert diagnostics(text) == [
        (*at(text, "tile<4xi32> ->"), "error", "custom op 'cuda_tile.get_tensor_shape' "
                                               "expected tensor_view, got "
                                               "'!cuda_tile.tile<4xi32>'")]


VIEW = "partition_view<tile=(2), tensor_view<8xi32, strides=[1]>>"


def test_atomic_red_view_mode_is_reported_at_its_comma():
    args = f"%v: !cuda_tile.{VIEW}, %x: !cuda_tile.tile<2xi32>, %i: !cuda_tile.tile<i32>"
    text = func(f"    %t = cuda_tile.atomic_red_view_tko relaxed %v[%i], nand, %x "
                f": tile<2xi32>, {VIEW}, tile<i32> -> token", args)
    assert diagnostics(text) == [
        (*at(text, ", nand"), "error", "custom op 'cuda_tile.atomic_red_view_tko' unknown "
                                       "atomic RMW mode: "
                         "'nand'; expected one of: and, or, xor, add, addf, max, min, umax, "
                         "umin")]


def test_view_index_types_must_follow_indices():
    args = f"%v: !cuda_tile.{VIEW}, %i: !cuda_tile.tile<i32>"
    text = func(f"    %t, %tok = cuda_tile.load_view_tko weak %v[%i] : {VIEW} "
                "-> tile<2xi32>, token", args)
    # Checked once every type is read: reported at the next line's brace.
    assert diagnostics(text) == [
        (4, 3, "error", "custom op 'cuda_tile.load_view_tko' index types must be specified "
                        "when indices are present")]


# ---- other custom syntax -------------------------------------------------------------------


def test_assume_needs_a_predicate_attribute():
    text = func("    %x = cuda_tile.assume 32 : i32, %a : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (3, 27, "error", "custom op 'cuda_tile.assume' expected assume predicate attribute")]


def test_optimization_hints_entry_must_be_a_dictionary():
    text = ("cuda_tile.module @m {\n"
            "  entry @k() optimization_hints=<sm_100=2> {\n  }\n}\n")
    assert diagnostics(text) == [
        (2, 42, "error", "custom op 'cuda_tile.entry' expected dictionary attribute for "
                         "optimization_hints entry `sm_100` got value=2 : i64")]


def test_optimization_hints_key():
    text = ("cuda_tile.module @m {\n"
            "  entry @k() optimization_hints=<2> {\n  }\n}\n")
    assert diagnostics(text) == [
        (2, 34, "error", "custom op 'cuda_tile.entry' expected valid keyword or string")]


def test_operand_and_type_counts():
    text = func("    %r = cuda_tile.reduce dim=0 identities=[0 : i32] : !cuda_tile.tile<4xi32> "
                "-> !cuda_tile.tile<i32>\n    (%x: !cuda_tile.tile<i32>) {\n    }")
    assert diagnostics(text) == [
        (3, 27, "error", "custom op 'cuda_tile.reduce' number of operands and types do not "
                         "match: got 0 operands and 1 types")]


def test_string_attribute_is_required():
    text = func("    cuda_tile.print_tko : !cuda_tile.tile<2xf16> -> !cuda_tile.token")
    # A missing token is reported right after the text before it (MLIR emitWrongTokenError).
    assert diagnostics(text) == [(*at(text, " : !cuda_tile.tile<2xf16>"), "error",
                                  "expected attribute value")]


def test_region_needs_its_brace():
    text = "cuda_tile.module @m\n"
    # A missing token is reported at the end of the line before (MLIR emitWrongTokenError).
    assert diagnostics(text) == [(1, 20, "error", "expected '{' to begin a region")]


def test_empty_region_without_arguments_has_no_block():
    text = func("    %r = cuda_tile.reduce %a dim=0 identities=[0 : i32] : "
                "!cuda_tile.tile<4xi32> -> !cuda_tile.tile<i32>\n    () {}")
    (module,) = parse_document(text, "t.mlir")
    reduce = module.regions[0].block.operations[0].regions[0].block.operations[0]
    assert len(reduce.regions[0].blocks) == 0
    assert len(parse_document("cuda_tile.module @m {}\n")[0].regions[0].blocks) == 1


def test_undeclared_values_are_all_reported_in_source_order():
    text = func("    %x = cuda_tile.addi %u, %w : !cuda_tile.tile<4xi32>")
    assert diagnostics(text) == [
        (*at(text, "%u"), "error", "use of undeclared SSA value name"),
        (*at(text, "%w"), "error", "use of undeclared SSA value name")]


def test_undeclared_values_wait_for_the_end_of_the_text():
    # MLIR reports names never defined once everything is parsed: a later syntax error wins.
    text = func("    %x = cuda_tile.addi %u, %u : !cuda_tile.tile<4xi32>") + "%y = \n"
    # At the end of the text the missing token is reported right after the last one, '='.
    assert diagnostics(text) == [(6, 5, "error", "expected operation name in quotes")]


# ---- the generic form ----------------------------------------------------------------------


def test_generic_operand_type_count():
    text = ('"cuda_tile.module"() <{sym_name = "m"}> ({\n'
            '  %x = "def"() : () -> !cuda_tile.tile<i32>\n'
            '  "use"(%x) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> ()\n'
            '}) : () -> ()\n')
    assert diagnostics(text) == [
        (*at(text, "(!cuda_tile"), "error", "expected 1 operand type but had 2")]


def test_generic_needs_its_function_type():
    text = '"use"() -> ()\n'
    assert diagnostics(text) == [
        (*at(text, " ->"), "error", "expected ':' followed by operation type")]


def test_result_count_syntax():
    assert diagnostics('%x:0 = "def"() : () -> ()\n') == [
        (1, 4, "error", "expected named operation to have at least 1 result")]
    assert diagnostics('%x, = "def"() : () -> ()\n') == [
        (1, 4, "error", "expected valid ssa identifier")]


# ---- tokens --------------------------------------------------------------------------------


def test_lexer_errors():
    assert diagnostics('"use"(% ) : () -> ()\n') == [(1, 7, "error", "invalid SSA name")]
    assert diagnostics('"use"() {a = "x\\q"} : () -> ()\n') == [
        (1, 16, "error", "unknown escape in string literal")]
    assert diagnostics('"use"() {a = "x\n') == [
        (1, 16, "error", "expected '\"' in string literal")]


def test_missing_token_is_reported_after_the_text_before_it():
    # Blank space, line ends and end-of-line comments are skipped backwards.
    text = func("    %x = cuda_tile.addi %a, %a   // no type\n\n")
    assert diagnostics(text) == [(*at(text, "   // no type"), "error", "expected ':'")]


# ---- debug-info attributes: MLIR's generated struct(params) parser ---------------------

_FILE = '#file = #cuda_tile.di_file<"foo.py" in "/tmp/">\n'
_UNIT = '#unit = #cuda_tile.di_compile_unit<file = #file>\n'
_SUBPROGRAM = ('#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", '
               'linkageName = "k", compileUnit = #unit, scopeLine = 1>\n')


def test_struct_without_a_parameter_name() -> None:
    # di_compile_unit has one required parameter: the parser wants a keyword first
    text = _FILE + "#unit = #cuda_tile.di_compile_unit<>\n"
    line, column = at(text, ">\n", 1)
    assert diagnostics(text) == [(line, column, "error", "expected valid keyword"),
                                 (line, column, "error", "expected a parameter name in struct")]


@pytest.mark.parametrize("missing", ["name", "linkageName"])
def test_struct_missing_required_parameter(missing: str) -> None:
    # di_subprogram has an optional scopeLine, so any subset parses and is then checked
    params = {"file": "#file", "line": "1", "name": '"f"', "linkageName": '"f"',
              "compileUnit": "#unit", "scopeLine": "2"}
    del params[missing]
    body = ", ".join(f"{k} = {v}" for k, v in params.items())
    text = _FILE + _UNIT + f"#sp = #cuda_tile.di_subprogram<{body}>\n"
    line, column = at(text, ">\n", 2)
    assert diagnostics(text) == [
        (line, column, "error", f"struct is missing required parameter: {missing}")]


def test_struct_duplicate_parameter() -> None:
    text = _FILE + "#unit = #cuda_tile.di_compile_unit<file = #file, file = #file>\n"
    assert diagnostics(text)[0][2:] == ("error", "expected '>'")
    text = (_FILE + _UNIT + "#b = #cuda_tile.di_lexical_block<scope = #unit, file = #file, "
            "line = 1>\n")
    line, column = at(text, "#unit,")
    assert diagnostics(text) == [        # (a compile unit is no local scope)
        (line, column, "error", "invalid kind of attribute specified")]
    text = (_FILE + _UNIT + _SUBPROGRAM + "#b = #cuda_tile.di_lexical_block<scope = #sp, "
            "file = #file, line = 1, line = 2>\n")
    line, column = at(text, "2>")
    assert diagnostics(text) == [
        (line, column, "error", "duplicate or unknown struct parameter name: line")]


def test_nested_symbol_reference_round_trips() -> None:
    # MLIR's nested symbol references: @outer::@inner
    text = ('cuda_tile.module @m {\n  testing$func @f() {\n'
            '    "some.op"() {plain = @f, ref = @m::@f} : () -> ()\n  }\n}\n')
    ops = parse_document(text, "t.mlir", allow_unregistered=True)
    inner = ops[0].regions[0].blocks[0].operations[0].regions[0].blocks[0].operations[0]
    assert inner.attributes["ref"].format() == "@m::@f"
    assert (inner.attributes["ref"].name, inner.attributes["ref"].nested) == ("m", ("f",))
