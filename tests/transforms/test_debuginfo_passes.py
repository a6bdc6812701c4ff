"""The debug-info passes: synthesize-debug-info-scopes and the renaming utility with its
test pass (test-debuginfo-update-symbol-name), checked by the exact text cuda-tile-opt
prints with --mlir-print-debuginfo and by their exact diagnostics."""
# ruff: noqa: E501  (expected output lines are as long as cuda-tile-opt prints them)

from __future__ import annotations

import pytest

import tileir
from tileir.attributes import (ArrayAttr, DICompileUnitAttr, DIFileAttr, DILocAttr,
                               DISubprogramAttr, DictAttr, FileLineColLoc, FusedLoc, NameLoc,
                               StringAttr, SymbolRefAttr, UNKNOWN_LOC, CallSiteLoc)
from tileir.transforms import PassFailure, run
from tileir.transforms.passes.synthesize_debug_info_scopes import file_location, split_path
from tileir.transforms.symbols import (lookup_symbol_in, parse_nested_symbol, rename_symbol,
                                       replace_elements)
from transform_helpers import ONE_ENTRY, opt

SYNTHESIZE = "--pass-pipeline=builtin.module(cuda_tile.module(synthesize-debug-info-scopes))"


def with_debuginfo(tmp_path, monkeypatch, capsys, text: str, *flags: str) -> str:
    """What cuda-tile-opt prints for `text` with `flags` and ``--mlir-print-debuginfo``;
    it must succeed without a message."""
    status, out, err = opt(tmp_path, monkeypatch, capsys, text, *flags,
                           "--mlir-print-debuginfo")
    assert (status, err) == (0, "")
    return out


# ---- synthesize-debug-info-scopes ------------------------------------------------------


def test_synthesize_uses_file_locations_through_names_call_sites_and_fused(
        tmp_path, monkeypatch, capsys) -> None:
    text = """cuda_tile.module @m {
  entry @k() {
    %c = constant <i32: 1> : tile<i32> loc(callsite("inner"("a.py":9:2) at "/src/lib/k.py":7:5))
    return loc(fused["other.py":2:3, "/src/lib/k.py":8:1])
  } loc("/src/lib/k.py":5:1)
  testing$func @f() {
    return
  } loc(unknown)
} loc("kern"("/src/lib/mod.py":1:1))
"""
    out = with_debuginfo(tmp_path, monkeypatch, capsys, text, SYNTHESIZE)
    # @k: its own file and line; the constant keeps its call site's caller, the return
    # the first file location of its fused location.  @f has no file location: the
    # compile unit's file (the module's), line 1; its return keeps the parser's location.
    assert out == """module {
  cuda_tile.module @m {
    entry @k() {
      %cst_1_i32 = constant <i32: 1> : tile<i32> loc(#loc9)
      return loc(#loc10)
    } loc(#loc8)
    testing$func @f() {
      return loc(#loc12)
    } loc(#loc11)
  } loc(#loc7)
} loc(#loc)
#di_file = #cuda_tile.di_file<"k.py" in "/src/lib">
#di_file1 = #cuda_tile.di_file<"mod.py" in "/src/lib">
#loc = loc("in.mlir":0:0)
#loc1 = loc("/src/lib/mod.py":1:1)
#loc2 = loc("/src/lib/k.py":5:1)
#loc3 = loc("/src/lib/k.py":7:5)
#loc4 = loc("other.py":2:3)
#loc5 = loc("mod.py":1:1)
#loc6 = loc("in.mlir":7:5)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file1>
#loc7 = loc("kern"(#loc1))
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 5, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 5>
#di_subprogram1 = #cuda_tile.di_subprogram<file = #di_file1, line = 1, name = "f", linkageName = "f", compileUnit = #di_compile_unit, scopeLine = 1>
#loc8 = #cuda_tile.di_loc<#loc2 in #di_subprogram>
#loc9 = #cuda_tile.di_loc<#loc3 in #di_subprogram>
#loc10 = #cuda_tile.di_loc<#loc4 in #di_subprogram>
#loc11 = #cuda_tile.di_loc<#loc5 in #di_subprogram1>
#loc12 = #cuda_tile.di_loc<#loc6 in #di_subprogram1>
"""


def test_synthesize_without_any_file_location(tmp_path, monkeypatch, capsys) -> None:
    text = """cuda_tile.module @m {
  entry @k() {
    return loc(unknown)
  } loc(unknown)
} loc(unknown)
"""
    out = with_debuginfo(tmp_path, monkeypatch, capsys, text, SYNTHESIZE)
    assert out == """module {
  cuda_tile.module @m {
    entry @k() {
      return loc(#loc3)
    } loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#di_file = #cuda_tile.di_file<"<unknown>" in "">
#loc = loc("in.mlir":0:0)
#loc1 = loc(unknown)
#loc2 = loc("<unknown>":1:1)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 1, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 1>
#loc3 = #cuda_tile.di_loc<#loc2 in #di_subprogram>
"""


def test_synthesize_leaves_a_function_with_a_scope_alone(tmp_path, monkeypatch,
                                                          capsys) -> None:
    text = """#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 4, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 4>
cuda_tile.module @m {
  entry @k() {
    return loc("k.py":5:3)
  } loc(fused["k.py":4:1, #cuda_tile.di_loc<loc("k.py":4:1) in #sp>])
  entry @j() {
    return loc(unknown)
  } loc("k.py":7:1)
} loc(unknown)
"""
    out = with_debuginfo(tmp_path, monkeypatch, capsys, text, SYNTHESIZE)
    # @k's scope (inside a fused location) stays, and so does its return's location;
    # @j gets one whose compile unit is the module's unknown file.
    assert out == """module {
  cuda_tile.module @m {
    entry @k() {
      return loc(#loc3)
    } loc(#loc7)
    entry @j() {
      return loc(#loc6)
    } loc(#loc6)
  } loc(#loc1)
} loc(#loc)
#di_file = #cuda_tile.di_file<"k.py" in "/src">
#di_file1 = #cuda_tile.di_file<"k.py" in "">
#di_file2 = #cuda_tile.di_file<"<unknown>" in "">
#loc = loc("in.mlir":0:0)
#loc1 = loc(unknown)
#loc2 = loc("k.py":4:1)
#loc3 = loc("k.py":5:3)
#loc4 = loc("k.py":7:1)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#di_compile_unit1 = #cuda_tile.di_compile_unit<file = #di_file2>
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 4, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 4>
#di_subprogram1 = #cuda_tile.di_subprogram<file = #di_file1, line = 7, name = "j", linkageName = "j", compileUnit = #di_compile_unit1, scopeLine = 7>
#loc5 = #cuda_tile.di_loc<#loc2 in #di_subprogram>
#loc6 = #cuda_tile.di_loc<#loc4 in #di_subprogram1>
#loc7 = loc(fused[#loc2, #loc5])
"""


def test_synthesize_is_anchored_on_the_cuda_tile_module(tmp_path, monkeypatch,
                                                         capsys) -> None:
    status, out, err = opt(tmp_path, monkeypatch, capsys,
                           "cuda_tile.module @m {\n}\n",
                           "--pass-pipeline=builtin.module(synthesize-debug-info-scopes)")
    assert (status, out) == (1, "")
    assert err == "error: can't run 'synthesize-debug-info-scopes' pass on 'builtin.module' op\n"


def test_file_location_and_split_path() -> None:
    here = FileLineColLoc("/a/b.py", 3, 4)
    assert file_location(NameLoc("n", CallSiteLoc(UNKNOWN_LOC, here))) is here
    assert file_location(FusedLoc((UNKNOWN_LOC, here))) is here
    # only the fused location's own members count, as in the reference
    assert file_location(FusedLoc((NameLoc("n", here),))) is None
    assert file_location(NameLoc("n")) is None
    assert file_location(UNKNOWN_LOC) is None
    assert [split_path(p) for p in ("/tmp/foo.py", "foo.py", "/foo.py", "a/b/", "/")] == [
        ("foo.py", "/tmp"), ("foo.py", ""), ("foo.py", "/"), (".", "a/b"), ("/", "")]


# ---- test-debuginfo-update-symbol-name ---------------------------------------------------

SCOPED = """#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 2>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 3, column = 4>
cuda_tile.module @m {
  entry @k() {
    %c = constant <i32: 1> : tile<i32> loc(#cuda_tile.di_loc<loc("k.py":3:4) in #block>)
    return loc(fused[#cuda_tile.di_loc<loc("k.py":4:4) in #sp>, "k.py":4:5])
  } loc(#cuda_tile.di_loc<loc("k.py":1:1) in #sp>)
}
"""


def test_rename_updates_the_linkage_name_everywhere(tmp_path, monkeypatch, capsys) -> None:
    out = with_debuginfo(tmp_path, monkeypatch, capsys, SCOPED,
                         "--test-debuginfo-update-symbol-name=symbol-to-rename=m::k "
                         "scope=m::k new-name=k_f32")
    # the subprogram inside the lexical block and inside the fused location is the
    # renamed one too: no second subprogram is printed
    assert out == """module {
  cuda_tile.module @m {
    entry @k_f32() {
      %cst_1_i32 = constant <i32: 1> : tile<i32> loc(#loc8)
      return loc(#loc9)
    } loc(#loc6)
  } loc(#loc1)
} loc(#loc)
#di_file = #cuda_tile.di_file<"k.py" in "/src">
#loc = loc("in.mlir":0:0)
#loc1 = loc("in.mlir":5:1)
#loc2 = loc("k.py":1:1)
#loc3 = loc("k.py":3:4)
#loc4 = loc("k.py":4:4)
#loc5 = loc("k.py":4:5)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 1, name = "k", linkageName = "k_f32", compileUnit = #di_compile_unit, scopeLine = 2>
#di_lexical_block = #cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 3, column = 4>
#loc6 = #cuda_tile.di_loc<#loc2 in #di_subprogram>
#loc7 = #cuda_tile.di_loc<#loc4 in #di_subprogram>
#loc8 = #cuda_tile.di_loc<#loc3 in #di_lexical_block>
#loc9 = loc(fused[#loc7, #loc5])
"""


GLOBAL = """cuda_tile.module @m {
  global @g <f32: [1.0, 2.0]> : tile<2xf32>
  entry @k() {
    %p = get_global @g : tile<ptr<f32>>
    return
  }
}
"""


def test_rename_with_update_uses(tmp_path, monkeypatch, capsys) -> None:
    status, out, err = opt(
        tmp_path, monkeypatch, capsys, GLOBAL,
        "--test-debuginfo-update-symbol-name=symbol-to-rename=m::g new-name=h "
        "update-uses=true")
    assert (status, err) == (0, "")
    lines = [line.strip() for line in out.splitlines()]
    assert lines[2].split() == ["global", "@h", "<f32:", "[1.000000e+00,", "2.000000e+00]>",
                                ":", "tile<2xf32>"]
    assert lines[4] == "%0 = get_global @h : tile<ptr<f32>>"


def test_rename_without_update_uses_leaves_them(tmp_path, monkeypatch, capsys) -> None:
    status, out, err = opt(
        tmp_path, monkeypatch, capsys, GLOBAL,
        "--test-debuginfo-update-symbol-name=symbol-to-rename=m::g new-name=h")
    assert (status, out) == (1, "")
    assert err == """in.mlir:4:10: error: 'cuda_tile.get_global' op 'g' does not reference a valid global
    %p = get_global @g : tile<ptr<f32>>
         ^
"""


def test_rename_a_module(tmp_path, monkeypatch, capsys) -> None:
    status, out, err = opt(
        tmp_path, monkeypatch, capsys, "cuda_tile.module @m {\n}\n",
        "--test-debuginfo-update-symbol-name=symbol-to-rename=m new-name=n update-uses")
    assert (status, err, out) == (0, "", "module {\n  cuda_tile.module @n {\n  }\n}\n")


@pytest.mark.parametrize("options, message", [
    ("symbol-to-rename=m::nope new-name=x",
     "in.mlir:0:0: error: could not find symbol op with name '@m::@nope'\n"),
    ("symbol-to-rename=m::g::x new-name=x",
     "in.mlir:0:0: error: could not find symbol op with name '@m::@g::@x'\n"),
    ("symbol-to-rename=m::g scope=m::nope new-name=x",
     "in.mlir:0:0: error: could not find symbol op with name '@m::@nope'\n"),
    ("symbol-to-rename=m::g scope=m::k new-name=x",
     "in.mlir:2:3: error: attempted to update symbol names in a scope that did not enclose "
     "the symbol itself\n  global @g <f32: [1.0, 2.0]> : tile<2xf32>\n  ^\n"
     "in.mlir:3:3: note: scope defined here\n  entry @k() {\n  ^\n"),
    ("symbol-to-rename=m::g new-name=k update-uses=true",
     "in.mlir:2:3: error: redefinition of symbol named 'k'\n"
     "  global @g <f32: [1.0, 2.0]> : tile<2xf32>\n  ^\n"
     "in.mlir:3:3: note: see existing symbol definition here\n  entry @k() {\n  ^\n"),
])
def test_rename_errors(tmp_path, monkeypatch, capsys, options: str, message: str) -> None:
    status, out, err = opt(tmp_path, monkeypatch, capsys, GLOBAL,
                           f"--test-debuginfo-update-symbol-name={options}")
    assert (status, out, err) == (1, "", message)


def test_rename_errors_are_verified_diagnostics(tmp_path, monkeypatch, capsys) -> None:
    text = """cuda_tile.module @m {
  // expected-error@below {{attempted to update symbol names in a scope that did not enclose the symbol itself}}
  entry @k() {
    return
  }
  // expected-note@below {{scope defined here}}
  entry @j() {
    return
  }
}
"""
    status, out, err = opt(tmp_path, monkeypatch, capsys, text, "--verify-diagnostics",
                           "--test-debuginfo-update-symbol-name=symbol-to-rename=m::k "
                           "scope=m::j new-name=x")
    assert (status, err) == (0, "")


# ---- the utility, from Python ----------------------------------------------------------------


def _subprogram(name: str) -> DISubprogramAttr:
    file = DIFileAttr("k.py", "/src")
    return DISubprogramAttr(file, 1, name, name, DICompileUnitAttr(file), 1)


def test_rename_symbol_replaces_only_inside_its_scope() -> None:
    module = tileir.parse("cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n"
                          "  entry @j() {\n    return\n  }\n}\n")
    k, j = module.entries
    old = _subprogram("k")
    k.location = DILocAttr(FileLineColLoc("k.py", 1, 1), old)
    inside = DictAttr.of({"a": ArrayAttr((StringAttr("s"), DILocAttr(UNKNOWN_LOC, old)))})
    k.regions[0].block.operations[0].discardable["dbg"] = inside
    j.discardable["dbg"] = DILocAttr(UNKNOWN_LOC, old)
    rename_symbol(k, "k2", scope=k)
    new = DISubprogramAttr(old.file, 1, "k", "k2", old.compile_unit, 1)
    assert k.symbol == "k2" and k.location == DILocAttr(FileLineColLoc("k.py", 1, 1), new)
    assert k.regions[0].block.operations[0].discardable["dbg"] == DictAttr.of(
        {"a": ArrayAttr((StringAttr("s"), DILocAttr(UNKNOWN_LOC, new)))})
    assert j.discardable["dbg"] == DILocAttr(UNKNOWN_LOC, old)   # outside the scope


def test_rename_symbol_defaults_to_the_whole_ir_and_keeps_other_scopes() -> None:
    module = tileir.parse(ONE_ENTRY)
    k = module.entries[0]
    old, other = _subprogram("k"), _subprogram("other")
    k.location = DILocAttr(FileLineColLoc("k.py", 1, 1), old)
    module.discardable["dbg"] = ArrayAttr((DILocAttr(UNKNOWN_LOC, old),
                                           DILocAttr(UNKNOWN_LOC, other)))
    rename_symbol(k, "k2")
    new = DISubprogramAttr(old.file, 1, "k", "k2", old.compile_unit, 1)
    assert module.discardable["dbg"] == ArrayAttr((DILocAttr(UNKNOWN_LOC, new),
                                                   DILocAttr(UNKNOWN_LOC, other)))
    run(module, "")   # still verifies: the function's scope names it


def test_rename_symbol_without_a_subprogram_only_renames() -> None:
    module = tileir.parse(ONE_ENTRY)
    before = module.entries[0].location
    rename_symbol(module.entries[0], "k2")
    assert module.entries[0].symbol == "k2" and module.entries[0].location is before


def test_a_top_level_symbol_needs_no_enclosing_scope() -> None:
    module = tileir.parse(ONE_ENTRY)
    rename_symbol(module, "n", scope=module.entries[0])
    assert module.sym_name == "n"
    with pytest.raises(PassFailure):
        rename_symbol(module.entries[0], "x", scope=module.entries[0].regions[0]
                      .block.operations[0])


def test_lookup_and_replace_elements() -> None:
    module = tileir.parse(ONE_ENTRY)
    assert parse_nested_symbol("a::b::c") == SymbolRefAttr("a", ("b", "c"))
    assert lookup_symbol_in(module, SymbolRefAttr("k")) is module.entries[0]
    assert lookup_symbol_in(module, SymbolRefAttr("k", ("x",))) is None
    assert lookup_symbol_in(module, SymbolRefAttr("nope")) is None
    loc = NameLoc("n", FusedLoc((UNKNOWN_LOC, FileLineColLoc("a", 1, 1))))
    unchanged = replace_elements(loc, lambda a: None)
    assert unchanged is loc   # nothing replaced: nothing copied
    moved = replace_elements(loc, lambda a: FileLineColLoc("b", 2, 2)
                             if a == FileLineColLoc("a", 1, 1) else None)
    assert moved == NameLoc("n", FusedLoc((UNKNOWN_LOC, FileLineColLoc("b", 2, 2))))
