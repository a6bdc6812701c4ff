"""One diagnostic type and one exception family, printed the way MLIR tools print them."""

from __future__ import annotations

import pytest

from tileir import (BytecodeError, Diagnostic, ExecutionError, Location, ParseError, Severity,
                    TileIRError, VerificationError, parse_type)
from tileir.diagnostics import error, note, warning


def test_text_form():
    diag = error("expected '>'", Location("k.mlir", 3, 14),
                 [note("opened here", Location("k.mlir", 3, 5))])
    assert str(diag) == "k.mlir:3:14: error: expected '>'\nk.mlir:3:5: note: opened here"
    assert str(warning("unused")) == "warning: unused"
    assert Diagnostic(Severity.REMARK, None, "fused").severity.value == "remark"


def test_render_shows_the_source_line_and_a_caret():
    source = "tile<4xf32>\ntile<3xf32>\n"
    diag = error("all dimensions must be powers of two, got 3", Location("t.mlir", 2, 5))
    assert diag.render({"t.mlir": source}) == (
        "t.mlir:2:5: error: all dimensions must be powers of two, got 3\n"
        "tile<3xf32>\n"
        "    ^")


@pytest.mark.parametrize("cls", [ParseError, VerificationError, BytecodeError, ExecutionError])
def test_exception_family(cls):
    exc = cls("bad", Location(None, 1, 2))
    assert isinstance(exc, TileIRError)
    assert exc.diagnostics == (error("bad", Location(None, 1, 2)),)
    assert exc.message == "bad" and str(exc) == "<unknown>:1:2: error: bad"


def test_parser_errors_carry_file_line_and_column():
    with pytest.raises(ParseError) as info:
        parse_type("tile<\n  4x\n  3xf32>", "example.mlir")
    (diag,) = info.value.diagnostics
    assert diag.severity is Severity.ERROR
    assert diag.location == Location("example.mlir", 1, 5)
    assert diag.message == "all dimensions must be powers of two, got 4, 3"
