"""NVIDIA's cuda-tile lit suite, run unmodified from ../shared by lit, one pytest test per file.

lit runs once per session (once in all under pytest-xdist) and the per-file table is printed
at the end of the run by the summary hook of tests/conftest.py.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import run_lit
from conftest import CONFORMANCE, require
from expectations import FEATURES, XFAIL

try:
    import fcntl
except ImportError:  # no flock (Windows): each xdist worker runs lit itself
    fcntl = None

FILES = run_lit.suite_files(CONFORMANCE)
MUST_PASS = ["ops", "memory_consistency_ops", "syntax_omit_dialect_prefix", "types", "dense_attr",
             "entry_opt_hints_default_silent", "debuginfo_attr",
             # the verifier's files (issue 4)
             "arith_invalid", "conversion_invalid", "dense_attr_invalid", "entry_opt_hints_error",
             "entry_opt_hints_invalid", "entry_opt_hints_warn", "get_shape_invalid", "invalid",
             "math_invalid", "memory_consistency_ops_invalid", "permute_invalid",
             "reduce_and_scan_invalid", "view_invalid", "debuginfo_attr_invalid",
             "debuginfo_loc_invalid"]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on path (shared by all xdist workers of this session)."""
    if fcntl is None:
        yield
        return
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, run_lit.Result]:
    """lit's result for every file of the suite, from one lit run shared by the workers."""
    require(CONFORMANCE)
    for module in ("lit", "filecheck"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"PyPI `{module}` is not installed (pip install -e '.[test]')")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None:
        root = root.parent
    with _locked(root / "lit.lock"):
        report = root / "lit" / "results.json"
        if report.exists():
            return run_lit.load(report)
        return run_lit.run(root / "lit", CONFORMANCE)


@pytest.mark.parametrize("path", FILES or [pytest.param(None, id="suite-absent")])
def test_lit_file(path: str, lit_results: dict[str, run_lit.Result]) -> None:
    """The file passes, or fails while marked in expectations.py."""
    result = lit_results.get(path)
    if result is None:
        pytest.fail("lit did not run this file", pytrace=False)
    if result.code == "XFAIL":
        pytest.xfail(XFAIL[path])
    if result.code == "UNSUPPORTED":
        pytest.skip("lit: unsupported")
    if result.code == "XPASS":
        pytest.fail(f"passes now: remove its mark in tests/conformance/expectations.py "
                    f"({XFAIL[path]})", pytrace=False)
    if result.code != "PASS":
        pytest.fail(f"lit: {result.code}\n{result.output}", pytrace=False)


def test_lit_table(lit_results: dict[str, run_lit.Result], request: pytest.FixtureRequest) -> None:
    """Hand the per-file table to the terminal summary; lit ran exactly the files expected."""
    title = f"cuda-tile lit conformance ({CONFORMANCE})"
    request.node.user_properties.append(("summary", (title, run_lit.table(lit_results))))
    assert sorted(lit_results) == FILES


def test_expectations_table() -> None:
    """Every mark names a real file and an allowed feature; the parse/print files are unmarked."""
    require(CONFORMANCE)
    assert sorted(set(XFAIL) - set(FILES)) == []
    assert [p for p, reason in XFAIL.items() if not reason.startswith(FEATURES)] == []
    assert [n for n in MUST_PASS if f"Dialect/CudaTile/{n}.mlir" in XFAIL] == []
