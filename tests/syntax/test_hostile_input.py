"""Hostile text and bytecode (issue 15 §3): each class found by an audit ends with one
located diagnostic, in bounded time and memory, or reads and prints back faithfully."""

from __future__ import annotations

import pytest

import tileir
from tileir import BytecodeError
from tileir.api import check_document
from tileir.attributes import MAX_NESTING
from tileir.diagnostics import EXCERPT, error
from tileir.diagnostics import Location as SourcePoint

KERNEL = "cuda_tile.module @m {{\n  entry @k() {{\n{body}\n    return\n  }}\n}}\n"


def _errors(text: str) -> list[str]:
    """The messages of every diagnostic `text` gets (parse, then verify)."""
    ops, diagnostics = check_document(text, "h.mlir")
    return [f"{d.location.line}:{d.location.column}: {d.message}" if d.location else d.message
            for d in diagnostics]


def test_a_forward_reference_with_a_huge_result_number() -> None:
    # (it grew a list to 4 billion entries)
    body = "    %a = addi %0#4294967296, %0#4294967296 : tile<i32>"
    assert _errors(KERNEL.format(body=body)) == ["3:17: invalid SSA value result number"]
    # a large result number that is valid costs nothing: the name is simply undeclared
    body = "    %a = addi %0#2000000000, %0#2000000000 : tile<i32>"
    assert _errors(KERNEL.format(body=body)) == ["3:15: use of undeclared SSA value name"]


@pytest.mark.parametrize("digits", [25, 5000, 100_000])
def test_integer_literals_of_any_length(digits: int) -> None:
    body = f"    %c = constant <i32: {'9' * digits}> : tile<i32>"
    assert _errors(KERNEL.format(body=body))[0] == \
        "3:25: custom op 'cuda_tile.constant' integer value too large"


def test_a_huge_dimension_and_a_huge_integer_width() -> None:
    body = f"    %c = constant <i32: 1> : tile<{'9' * 5000}xi32>"
    assert _errors(KERNEL.format(body=body)) == ["3:35: invalid dimension"]


def test_malformed_attribute_aliases() -> None:
    assert _errors("#l=-\n" + KERNEL.format(body="")) == \
        ["1:5: expected constant integer or floating point value"]
    # an alias chain that comes back to itself
    text = KERNEL.format(body="    %c = constant <i32: 1> : tile<i32> loc(#a)") + \
        "#a = loc(#b)\n#b = loc(#a)\n"
    assert _errors(text) == ["7:10: location alias 'b' refers to itself"]


def test_an_integer_where_a_float_is_expected_in_an_attribute() -> None:
    body = ("    %r = reduce %x dim=0 identities=[0 : f32] : tile<8xf32> -> tile<f32> "
            "(%a: tile<f32>, %b: tile<f32>) {\n      yield %a : tile<f32>\n    }")
    ops, diagnostics = check_document(KERNEL.format(body=body), "h.mlir")
    assert [(d.message, [n.message for n in d.notes]) for d in diagnostics] == [
        ("unexpected decimal integer literal for a floating point value",
         ["add a trailing dot to make the literal a float"])]
    # the same as a dense constant gets
    body = "    %c = constant <f32: 0> : tile<f32>"
    ops, same = check_document(KERNEL.format(body=body), "h.mlir")
    assert [(d.message, [n.message for n in d.notes]) for d in same] == \
        [(diagnostics[0].message, [diagnostics[0].notes[0].message])]


def _callsites(depth: int) -> str:
    loc = '"f":1:1'
    for i in range(depth):
        loc = f'callsite({loc} at "g":{i}:1)'
    return KERNEL.format(body=f"    %c = constant <i32: 1> : tile<i32> loc({loc})")


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5000])
def test_locations_nested_too_deep(depth: int) -> None:
    errors = _errors(_callsites(depth))
    assert len(errors) == 1 and errors[0].startswith("3:") and errors[0].endswith(
        f": locations and debug scopes nest more than {MAX_NESTING} deep")


def test_locations_as_deep_as_allowed_print_and_round_trip() -> None:
    module = tileir.parse(_callsites(MAX_NESTING - 1), "h.mlir")
    printed = module.format(debuginfo=True)
    assert printed.count("callsite(") == MAX_NESTING - 1
    data = module.to_bytecode()
    again = tileir.from_bytecode(data)
    assert again.to_bytecode() == data
    reparsed = tileir.parse(printed, "p.mlir")
    assert reparsed.format(debuginfo=True) == printed and reparsed.to_bytecode() == data


def test_a_type_with_a_hundred_thousand_dimensions_reads_in_linear_time() -> None:
    body = "    %c = constant <i32: 1> : tile<" + "1x" * 100_000 + "i32>"
    ops, diagnostics = check_document(KERNEL.format(body=body), "h.mlir")
    constant = ops[0].regions[0].block.operations[0].regions[0].block.operations[0]
    assert constant.results[0].type.shape == (1,) * 100_000 and diagnostics == []


def test_hint_keys_print_quoted_when_they_are_no_identifier() -> None:
    text = KERNEL.format(body="").replace(
        "entry @k()", 'entry @k() optimization_hints=<"sm_100 = {}, sm_90" = '
                      '{num_cta_in_cga = 2}>')
    module = tileir.parse(text, "h.mlir")
    printed = str(module)
    assert 'optimization_hints=<"sm_100 = {}, sm_90" = {num_cta_in_cga = 2}>' in printed
    again = tileir.from_bytecode(module.to_bytecode())
    assert again.entries[0].attributes["optimization_hints"] == \
        module.entries[0].attributes["optimization_hints"]
    assert str(tileir.parse(str(again), "again.mlir")) == str(again)


def _constant_bytes() -> bytearray:
    text = KERNEL.format(body="    %v = constant <f4E2M1FN: [1.5, 3.0]> : tile<2xf4E2M1FN>")
    return bytearray(tileir.parse(text, "h.mlir").to_bytecode())


def test_a_four_bit_float_byte_with_its_high_nibble_set_is_refused() -> None:
    data = _constant_bytes()
    at = data.find(bytes([3, 5]))     # 1.5 and 3.0, one element per byte
    data[at + 1] = 0x15
    with pytest.raises(BytecodeError, match="constant element 1 has bits 0x15, more than "
                                            "the 4 bits of f4E2M1FN"):
        tileir.from_bytecode(bytes(data))


@pytest.mark.parametrize("item, message", [
    ("    entry @inner() {\n      return\n    }", "'cuda_tile.entry' op expects parent op "
                                                  "'cuda_tile.module'"),
    ("    global @g <i32: [1]> : tile<1xi32>", "'cuda_tile.global' op expects parent op "
                                                "'cuda_tile.module'"),
    ("    cuda_tile.module @x {\n    }", "'cuda_tile.module' op expects parent op "
                                         "'builtin.module' or none (a module cannot be nested "
                                         "in a cuda_tile op)"),
])
def test_module_items_nested_in_a_kernel_body_are_refused(item, message) -> None:
    assert [e.split(": ", 1)[1] for e in _errors(KERNEL.format(body=item))] == [message]


def test_a_long_source_line_is_cut_around_the_caret() -> None:
    line = "x" * 100_000 + "^here" + "y" * 100_000
    column = 100_001
    rendered = error("bad", SourcePoint("f.mlir", 1, column)).render({"f.mlir": line + "\n"})
    head, excerpt, caret = rendered.split("\n")
    assert head == f"f.mlir:1:{column}: error: bad"
    assert excerpt.startswith("...x") and excerpt.endswith("y...")
    assert len(excerpt) == EXCERPT + 6
    assert excerpt[caret.index("^"):].startswith("^here")
    # a short line is shown whole, as before
    short = error("bad", SourcePoint("f.mlir", 2, 3)).render({"f.mlir": "a\nbcd\n"})
    assert short == "f.mlir:2:3: error: bad\nbcd\n  ^"


# ---- found by tools/fuzz_campaign.py ------------------------------------------------------


def test_attributes_nested_too_deep() -> None:
    ops, diagnostics = check_document("#a = " + "[" * 20000, "h.mlir")
    assert [d.message for d in diagnostics] == ["attributes nest more than 64 deep"]


def test_a_huge_integer_width() -> None:
    text = "cuda_tile.module @m {\n  entry @k(%a: tile<i" + "9" * 5000 + \
        ">) {\n    return\n  }\n}\n"
    assert [e.split(": ", 1)[1] for e in _errors(text)] == ["invalid integer width"]


def test_a_di_loc_alias_that_refers_to_itself() -> None:
    file = '#cuda_tile.di_file<"f" in "d">'
    text = (f'#s = #cuda_tile.di_subprogram<file = {file}, line = 1, name = "k", '
            f'linkageName = "k", compileUnit = #cuda_tile.di_compile_unit<file = {file}>, '
            "scopeLine = 1>\n#a = #cuda_tile.di_loc<loc(#a) in #s>\n"
            + KERNEL.format(body="").replace("    return\n", "    return loc(#a)\n"))
    assert _errors(text) == ["2:28: location alias 'a' refers to itself"]


@pytest.mark.parametrize("scope", ["#foo.bar", 'loc("g":3:4)'])
def test_a_di_loc_scope_must_be_a_debug_scope(scope: str) -> None:
    text = f'#d = #cuda_tile.di_loc<loc("f":1:1) in {scope}>\n' + \
        KERNEL.format(body="").replace("    return\n", "    return loc(#d)\n")
    assert _errors(text) == ["1:40: expected a debug-info scope for di_loc "
                             "(#cuda_tile.di_subprogram or #cuda_tile.di_lexical_block)"]


def test_non_ascii_strings_print_the_same_after_every_round() -> None:
    text = KERNEL.format(body='    %t = print_tko "é\\n" -> token')
    once = str(tileir.parse(text, "h.mlir"))
    assert '"\\C3\\A9\\0A"' in once
    assert str(tileir.parse(once, "again.mlir")) == once
    module = tileir.parse(once, "again.mlir")
    assert str(tileir.from_bytecode(module.to_bytecode())).split("\n")[2] == \
        once.split("\n")[2]
    # escapes that spell no UTF-8 text are refused, not read as other characters
    assert _errors('cuda_tile.module @m attributes {x = "\\FF"} {\n}\n') == \
        ["1:37: string literal escapes bytes that are not UTF-8 text"]


def test_hint_keys_are_kept_sorted_as_a_dictionary_keeps_them() -> None:
    text = KERNEL.format(body="").replace(
        "entry @k()", "entry @k() optimization_hints=<sm_90 = {num_cta_in_cga = 2}, "
                      "sm_100 = {num_cta_in_cga = 4}>")
    module = tileir.parse(text, "h.mlir")
    assert "optimization_hints=<sm_100 = {num_cta_in_cga = 4}, sm_90 = {num_cta_in_cga = 2}>" \
        in str(module)
    data = module.to_bytecode()
    assert tileir.from_bytecode(data).to_bytecode() == data


def test_a_constant_spelled_element_by_element_with_equal_elements_is_a_splat() -> None:
    text = KERNEL.format(body="    %c = constant <i8: [1, 2]> : tile<2xi8>")
    data = bytearray(tileir.parse(text, "h.mlir").to_bytecode())
    at = data.find(bytes([1, 2]))
    data[at + 1] = 1
    module = tileir.from_bytecode(bytes(data))
    printed = str(module)
    assert "constant <i8: 1> : tile<2xi8>" in printed
    assert str(tileir.parse(printed, "p.mlir")) == printed


def test_a_dense_literal_nested_too_deep() -> None:
    body = "    %c = constant <i32: " + "[" * 20000 + "1" + "]" * 20000 + "> : tile<i32>"
    assert [e.split(": ", 1)[1] for e in _errors(KERNEL.format(body=body))] == \
        ["tensor literal nests more than 64 deep"]


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_di_loc_holds_a_file_line_col_location(where: str) -> None:
    # (an unknown location in a di_loc crashed the bytecode writer)
    file = '#cuda_tile.di_file<"f" in "d">'
    scope = (f'#s = #cuda_tile.di_subprogram<file = {file}, line = 1, name = "k", '
             f'linkageName = "k", compileUnit = #cuda_tile.di_compile_unit<file = {file}>, '
             "scopeLine = 1>\n")
    unknown = "#u = loc(unknown)\n"
    text = (unknown if where == "before" else "") + scope + \
        "#d = #cuda_tile.di_loc<#u in #s>\n" + \
        KERNEL.format(body="").replace("    return\n", "    return loc(#d)\n") + \
        (unknown if where == "after" else "")
    errors = _errors(text)
    assert len(errors) == 1 and errors[0].endswith(": invalid kind of attribute specified")
    line = 3 if where == "before" else 2
    assert errors[0] == f"{line}:24: invalid kind of attribute specified"
