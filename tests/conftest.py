"""Shared fixtures: where ../shared lives, and a tally of checks printed after the run."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from tileir.api import check_document
from tileir.verify import Options

REPO = Path(__file__).resolve().parents[1]

# The compiled engine's disk cache: one of the run's own (subprocesses inherit it), so no
# test sees kernels compiled by an earlier run and counts of compiles stay exact.
_CACHE = tempfile.mkdtemp(prefix="tileir-test-cache-")
os.environ["TILEIR_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
SHARED = Path(os.environ.get("TILEIR_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "cuda-tile" / "test"
SEEDS = SHARED / "seeds"


def require(path: Path) -> Path:
    """Skip the calling test, saying why, when a file from ../shared is absent."""
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is not beside this checkout)")
    return path


@pytest.fixture
def tally(request):
    """Record how many individual checks a test made, under a category name.

    The counts appear in the summary at the end of the run (also under pytest-xdist).
    """

    def record(category: str, count: int) -> None:
        request.node.user_properties.append(("tally", (category, int(count))))

    return record


def pytest_terminal_summary(terminalreporter):
    # A test may hand a whole section to this summary as user property ("summary", (title,
    # text)); it travels with the report, so it shows under pytest-xdist too.
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for key, value in report.user_properties:
                if key == "summary":
                    title, text = value
                    terminalreporter.section(title)
                    terminalreporter.write_line(text)
    totals: Counter[str] = Counter()
    for report in terminalreporter.stats.get("passed", []):
        if report.when != "call":
            continue
        for key, value in report.user_properties:
            if key == "tally":
                category, count = value
                totals[category] += count
    if totals:
        terminalreporter.section("checks made by passing tests")
        width = max(len(c) for c in totals)
        for category in sorted(totals):
            terminalreporter.write_line(f"{category:<{width}}  {totals[category]:>12,}")
        terminalreporter.write_line(f"{'total':<{width}}  {sum(totals.values()):>12,}")


# ---- verifier tests: the diagnostics a piece of Tile IR text gets ----------------------


def diagnose_text(text: str, **options: bool) -> list[str]:
    """``severity: message`` of every diagnostic (notes included, in order) that parsing
    and verifying `text` produces; unregistered ops are allowed, as in the suite."""
    _, found = check_document(text, "test.mlir", options=Options(**options),
                              allow_unregistered=True)
    lines: list[str] = []

    def add(diagnostic) -> None:
        lines.append(f"{diagnostic.severity.value}: {diagnostic.message}")
        for note in diagnostic.notes:
            add(note)
    for diagnostic in found:
        add(diagnostic)
    return lines


@pytest.fixture
def diagnose() -> Callable[..., list[str]]:
    """`diagnose(text, warn_hints=False, error_hints=False)` -> diagnostic lines."""
    return diagnose_text


# ---- interpreter tests: one op's semantics on given inputs ------------------------------


def first_op(text: str):
    """The first op inside the first function of `text` (a module with a testing$func or
    entry), parsed and verified."""
    from tileir import parse
    module = parse(text, "test.mlir")
    function = module.items[0]
    return function.regions[0].blocks[0].operations[0]


def run_op_text(text: str, *inputs, checks: bool = True, block_id=(0, 0, 0), grid=(1, 1, 1)):
    """Run the semantics of the first op in `text`'s first function on `inputs`."""
    from tileir.interp import SEMANTICS, Step
    from tileir.interp.machine import Machine
    from tileir.types import TileType
    op = first_op(text)
    step = Step(op, block_id=block_id, grid=grid, checks=checks)
    result = SEMANTICS[op.opdef.name](step, *inputs)
    if not op.results:
        return result
    # As the machine does: 0-d NumPy scalars become arrays, and every tile result must
    # have the result type's dtype and shape (leading batch axes allowed only when an
    # input has them), so a wrong dtype or shape fails the unit test.
    values = list(result) if len(op.results) > 1 else [result]
    values = [np.asarray(v) if isinstance(v, np.generic) else v for v in values]
    batched = any(isinstance(x, np.ndarray) and isinstance(v.type, TileType)
                  and x.ndim > len(v.type.shape) for x, v in zip(inputs, op.operands))
    for r, value in zip(op.results, values):
        Machine._check_value(step, r.type, value, batched)
    return tuple(values) if len(op.results) > 1 else values[0]


@pytest.fixture
def run_op() -> Callable[..., object]:
    """`run_op(text, *inputs, checks=True)` -> the op's result value(s)."""
    return run_op_text


# ---- Tile IR text for tests --------------------------------------------------------------


def function_module(args: str, *body: str) -> str:
    """A module holding one ``testing$func @f(args)`` whose body is the lines `body` (its
    terminator implied)."""
    lines = "".join(f"    {line}\n" for line in body)
    return f"cuda_tile.module @m {{\n  cuda_tile.testing$func @f({args}) {{\n{lines}  }}\n}}"


def entry_module(body: str, params: str = "") -> str:
    """A module holding one ``entry @k(params)`` running `body`, then returning."""
    return (f"cuda_tile.module @m {{\n  cuda_tile.entry @k({params}) {{\n{body}\n"
            f"    cuda_tile.return\n  }}\n}}")


def tile_type(spec: str) -> str:
    """``!cuda_tile.tile<spec>``."""
    return f"!cuda_tile.tile<{spec}>"
