"""MLIR's -verify-diagnostics matcher (tileir.cli.expected) and its use in cuda-tile-opt."""

from __future__ import annotations

from pathlib import Path

from tileir.cli.expected import check, parse_expectations
from tileir.cli.opt import main as opt_main
from tileir.diagnostics import Location, error, note, warning


def _lines(text: str) -> list[tuple[str, int | None, str, bool]]:
    return [(e.severity.value, e.line, e.text, e.is_regex)
            for e in parse_expectations(text, "f.mlir")]


def test_designators_give_the_expected_lines() -> None:
    text = "\n".join([
        "a",                                        # 1
        "// expected-error @below {{one}}",          # 2
        "// expected-note @below {{two}}",           # 3
        "b",                                        # 4: both @below land here
        "c // expected-warning {{three}}",          # 5: same line
        "// expected-remark @above {{four}}",        # 6: line 5 is the last plain line? no:
        "// expected-error@+2 {{five}}",             # 7
        "// expected-error@-1 {{six}}",              # 8
        "// expected-error@unknown {{seven}}",       # 9
        "// expected-error-re {{x {{[0-9]+}} y}}",   # 10
    ])
    assert _lines(text) == [
        ("error", 4, "one", False), ("note", 4, "two", False),
        ("warning", 5, "three", False),
        # line 5 holds a designator, so the last line without one is line 4
        ("remark", 4, "four", False),
        ("error", 9, "five", False), ("error", 7, "six", False),
        ("error", None, "seven", False), ("error", 10, "x {{[0-9]+}} y", True),
    ]


def test_first_line_offsets_chunks() -> None:
    assert _lines("// expected-error @below {{m}}\nop") == [("error", 2, "m", False)]
    [e] = parse_expectations("// expected-error @below {{m}}\nop", "f.mlir", first_line=40)
    assert e.line == 41


def test_match_by_line_severity_and_substring() -> None:
    expectations = parse_expectations("// expected-error @below {{wrong type}}\nop\n",
                                      "f.mlir")
    found = [error("op has the wrong type here", Location("f.mlir", 2, 3))]
    assert check(found, expectations, "f.mlir") == []


def test_notes_are_matched_on_their_own_lines() -> None:
    text = "// expected-note @below {{prior use here}}\nx\n// expected-error @below {{bad}}\ny\n"
    expectations = parse_expectations(text, "f.mlir")
    diagnostic = error("bad use", Location("f.mlir", 4, 1),
                       [note("prior use here", Location("f.mlir", 2, 1))])
    assert check([diagnostic], expectations, "f.mlir") == []


def test_failures_are_reported() -> None:
    expectations = parse_expectations("// expected-error @below {{missing}}\nop\n", "f.mlir")
    found = [error("something else", Location("f.mlir", 2, 1))]
    failures = check(found, expectations, "f.mlir")
    assert [f.message for f in failures] == [
        "unexpected error: something else",
        'expected error "missing" was not produced']
    assert failures[1].location == Location("f.mlir", 1, 4)


def test_severity_must_agree() -> None:
    # a near miss is reported at the expectation, which then counts as not produced
    expectations = parse_expectations("op // expected-error {{careful}}\n", "f.mlir")
    failures = check([warning("careful now", Location("f.mlir", 1, 9))], expectations,
                     "f.mlir")
    assert [(f.message, f.location) for f in failures] == [
        ("'warning' diagnostic emitted when expecting a 'error'", Location("f.mlir", 1, 7)),
        ('expected error "careful" was not produced', Location("f.mlir", 1, 7))]


def test_each_diagnostic_meets_one_expectation() -> None:
    text = "op\n// expected-error@-1 {{twice}}\n// expected-error@-2 {{twice}}\n"
    expectations = parse_expectations(text, "f.mlir")
    failures = check([error("twice", Location("f.mlir", 1, 1))], expectations, "f.mlir")
    assert [(f.message, f.location.line) for f in failures] == [
        ('expected error "twice" was not produced', 3)]


def test_regex_pieces() -> None:
    expectations = parse_expectations("op // expected-error-re {{got {{[0-9]+}} items}}\n",
                                      "f.mlir")
    assert check([error("got 12 items", Location("f.mlir", 1, 1))], expectations,
                 "f.mlir") == []
    expectations = parse_expectations("op // expected-error-re {{got {{[0-9]+}} items}}\n",
                                      "f.mlir")
    assert len(check([error("got many items", Location("f.mlir", 1, 1))], expectations,
                     "f.mlir")) == 2


def test_unknown_location_and_other_files() -> None:
    expectations = parse_expectations("// expected-error@unknown {{lost}}\n", "f.mlir")
    assert check([error("lost it", None)], expectations, "f.mlir") == []
    # a diagnostic in another file matches no expectation, not even @unknown ones
    text = "op // expected-error {{elsewhere}}\n// expected-error@unknown {{elsewhere}}\n"
    expectations = parse_expectations(text, "f.mlir")
    failures = check([error("elsewhere", Location("g.py", 1, 1))], expectations, "f.mlir")
    assert [f.message for f in failures] == [
        "unexpected error: elsewhere", 'expected error "elsewhere" was not produced',
        'expected error "elsewhere" was not produced']


def test_cuda_tile_opt_verify_diagnostics(tmp_path: Path, capsys) -> None:
    good = tmp_path / "good.mlir"
    good.write_text(
        "cuda_tile.module @m {\n"
        "  cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>) {\n"
        "    // expected-error @below {{'cuda_tile.addi' op operand #0 must be tile of}}\n"
        "    %0 = cuda_tile.addi %a, %a : !cuda_tile.tile<2xf32>\n"
        "  }\n"
        "}\n"
        "// -----\n"
        "cuda_tile.module @n {\n"
        "}\n")
    assert opt_main([str(good), "-verify-diagnostics", "-split-input-file"]) == 0
    bad = tmp_path / "bad.mlir"
    bad.write_text(good.read_text().replace("{{'cuda_tile.addi' op", "{{'cuda_tile.subi' op"))
    assert opt_main([str(bad), "-verify-diagnostics", "-split-input-file"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:4:10: error: unexpected error: 'cuda_tile.addi' op operand #0" in err
    assert f"{bad}:3:8: error: expected error \"'cuda_tile.subi' op operand #0 must be " \
           "tile of\" was not produced" in err
