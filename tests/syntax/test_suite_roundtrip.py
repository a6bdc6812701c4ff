"""Every positive document of NVIDIA's suite: print -> parse -> print is a fixed point, the
generic form round-trips to the same text, and parse/print files pass their CHECK lines.

Documents are read from ../shared/conformance (never copied); chunks of split files are
checked one by one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONFORMANCE, require
from tileir.cli.opt import build_parser, split_chunks
from tileir.cli.opt import run as run_opt
from tileir.syntax.parser import parse_document
from tileir.syntax.printer import Printer
from tileir.verify import verify

SUITE = CONFORMANCE / "test" if (CONFORMANCE / "test").is_dir() else CONFORMANCE


def _run_lines(text: str) -> list[str]:
    lines = [m.group(1) for m in re.finditer(r"//\s*RUN:\s*(.*)", text)]
    joined, current = [], ""
    for line in lines:
        current += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            joined.append(current.strip())
            current = ""
    return joined


def positive_documents() -> list[tuple[str, int, str, bool]]:
    """(file, first line, chunk text, allow-unregistered) of every document that must parse."""
    if not SUITE.is_dir():
        return []
    docs = []
    for path in sorted(SUITE.rglob("*.mlir")):
        if "Inputs" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        runs = _run_lines(text)
        if not runs or any(r.startswith("not ") or "-verify-diagnostics" in r or
                           "--list-versions" in r or "-cudatilebc-to-mlir" in r
                           for r in runs):
            continue
        split = any("split-input-file" in r for r in runs)
        unregistered = any("allow-unregistered-dialect" in r for r in runs)
        rel = str(path.relative_to(SUITE))
        chunks = split_chunks(text) if split else [(text, 1)]
        docs.extend((rel, first, chunk, unregistered) for chunk, first in chunks)
    return docs


DOCS = positive_documents()


def _print(ops, generic: bool = False) -> str:
    return Printer(generic=generic).print_top(ops)


def _op_names(ops) -> list[str]:
    return [nested.name for op in ops for nested in op.walk()]


@pytest.mark.parametrize("doc", DOCS, ids=[f"{d[0]}:{d[1]}" for d in DOCS] or None)
def test_fixed_point_and_generic(doc, tally) -> None:
    require(SUITE)
    rel, first, chunk, unregistered = doc
    ops = parse_document(chunk, rel, first_line=first, allow_unregistered=unregistered)
    names = _op_names(ops)
    printed = _print(ops)
    reparsed = parse_document(printed, "printed", allow_unregistered=unregistered)
    # Nothing is lost in printing (every op survives), and printing is a fixed point.
    assert _op_names(reparsed) == names
    assert _print(reparsed) == printed
    generic = _print(ops, generic=True)
    from_generic = parse_document(generic, "generic", allow_unregistered=unregistered)
    assert _op_names(from_generic) == names
    assert _print(from_generic) == printed
    tally("suite documents: fixed point + generic round trip", 2)


@pytest.mark.parametrize("doc", DOCS, ids=[f"{d[0]}:{d[1]}" for d in DOCS] or None)
def test_positive_documents_verify(doc, tally) -> None:
    """Every document the suite expects to be valid verifies without an error or warning."""
    require(SUITE)
    rel, first, chunk, unregistered = doc
    ops = parse_document(chunk, rel, first_line=first, allow_unregistered=unregistered)
    assert [str(d) for op in ops for d in verify(op)] == []
    tally("suite documents: verify clean", 1)


PARSE_PRINT = ["arith", "ops", "conversion", "memory_consistency_ops",
               "syntax_omit_dialect_prefix", "types", "dense_attr", "opt_hints",
               "entry_opt_hints_default_silent", "debuginfo_attr"]


def _run_opt_pipeline(run: str, path: Path) -> str:
    """The text the ``cuda-tile-opt ... | cuda-tile-opt ...`` stages of a RUN line produce,
    run in process with the same flags."""
    text = path.read_text(encoding="utf-8")
    for stage in run.split("|"):
        words = stage.split()
        if not words or words[0] != "cuda-tile-opt":
            continue
        args = build_parser().parse_args([w for w in words[1:] if w != "%s"])
        text, messages, failed = run_opt(text, str(path), args)
        assert not failed, messages
    return text


@pytest.mark.parametrize("name", PARSE_PRINT)
def test_check_lines(name: str, tally) -> None:
    """cuda-tile-opt's output on every parse/print RUN line passes the file's CHECK lines
    (the %round_trip_test line needs the bytecode and is run by lit)."""
    path = SUITE / "Dialect" / "CudaTile" / f"{name}.mlir"
    require(path)
    if not _has_module("filecheck"):
        pytest.skip("the filecheck package is not installed")
    for run in _run_lines(path.read_text(encoding="utf-8")):
        if "%round_trip_test" in run:
            continue
        assert run.startswith("cuda-tile-opt") and run.rstrip().endswith("FileCheck %s"), run
        printed = _run_opt_pipeline(run, path)
        check = subprocess.run([sys.executable, "-m", "filecheck", str(path)], input=printed,
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr[-2000:]
        tally("suite files: CHECK lines passed per RUN line", 1)


def _has_module(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None
