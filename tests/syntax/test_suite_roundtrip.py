"""Every positive document of NVIDIA's suite: print -> parse -> print is a fixed point, the
generic form round-trips to the same text, and parse/print files pass their CHECK lines.

Documents are read from ../shared/conformance (never copied); chunks of split files are
checked one by one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONFORMANCE, require
from tileir.cli.opt import split_chunks
from tileir.syntax.parser import parse_document
from tileir.syntax.printer import Printer

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


@pytest.mark.parametrize("doc", DOCS, ids=[f"{d[0]}:{d[1]}" for d in DOCS] or None)
def test_fixed_point_and_generic(doc, tally) -> None:
    require(SUITE)
    rel, first, chunk, unregistered = doc
    ops = parse_document(chunk, rel, first_line=first, allow_unregistered=unregistered)
    printed = _print(ops)
    again = _print(parse_document(printed, "printed", allow_unregistered=unregistered))
    assert again == printed
    generic = _print(ops, generic=True)
    from_generic = _print(parse_document(generic, "generic", allow_unregistered=unregistered))
    assert from_generic == printed
    tally("suite documents: fixed point + generic round trip", 2)


PARSE_PRINT = ["arith", "ops", "conversion", "memory_consistency_ops",
               "syntax_omit_dialect_prefix", "types", "dense_attr", "opt_hints",
               "entry_opt_hints_default_silent", "debuginfo_attr"]


@pytest.mark.parametrize("name", PARSE_PRINT)
def test_check_lines(name: str, tally) -> None:
    """cuda-tile-opt's output (custom and generic RUN lines) passes the file's CHECK lines."""
    path = SUITE / "Dialect" / "CudaTile" / f"{name}.mlir"
    require(path)
    if shutil.which("filecheck") is None and not _has_module("filecheck"):
        pytest.skip("the filecheck package is not installed")
    text = path.read_text(encoding="utf-8")
    debuginfo = "--mlir-print-debuginfo" in text
    for run in _run_lines(text):
        if "%round_trip_test" in run:
            continue
        generic = "-mlir-print-op-generic" in run
        ops = parse_document(text, str(path))
        printed = Printer(generic=generic, debuginfo=debuginfo).print_top(_wrap(ops, path))
        if "| cuda-tile-opt |" in run:
            printed = Printer(debuginfo=debuginfo).print_top(parse_document(printed, "p"))
        check = subprocess.run([sys.executable, "-m", "filecheck", str(path)], input=printed,
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr[-2000:]
        tally("suite files: CHECK lines passed per RUN line", 1)


def _wrap(ops, path: Path):
    from tileir.attributes import FileLineColLoc
    from tileir.ir import Operation
    if len(ops) == 1 and ops[0].name == "builtin.module":
        return ops
    wrapper = Operation("builtin.module", regions=1, location=FileLineColLoc(str(path), 0, 0))
    block = wrapper.regions[0].add_block()
    for op in ops:
        block.append(op)
    return [wrapper]


def _has_module(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None
