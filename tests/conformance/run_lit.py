"""Run NVIDIA's cuda-tile lit suite through lit.cfg.py and print a per-file result table.

By hand: `python tests/conformance/run_lit.py [-v] [--filter REGEX]` (exit status 1 when a
file fails unexpectedly or passes while marked). test_lit.py uses the same functions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from expectations import XFAIL

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SUFFIXES = [".mlir"]
# test/python, test/CAPI and test/lib need NVIDIA's C++ build; Inputs holds fixtures.
#: The build the suite was written for: NVIDIA's 13.3 tools with their testing versions
#: (``TILEIR_BYTECODE_VERSIONS``): messages name "[13.1 - 13.3]", the versioning tests
#: write 250.0 and 250.1, and the verifier applies and words the 13.3 rules.
SUITE_VERSIONS = "13.1 13.2 13.3 250.0 250.1"
EXCLUDES = ["Inputs", "python", "CAPI", "lib", "lit.cfg.py", "round_trip_test.py"]
CODES = ["PASS", "FAIL", "XFAIL", "XPASS", "UNSUPPORTED", "UNRESOLVED", "TIMEOUT"]
UNEXPECTED = {"FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"}
_LIT_MAIN = "import sys; from lit.main import main; sys.exit(main())"


@dataclass(frozen=True)
class Result:
    """What lit reported for one test file."""

    path: str
    code: str
    output: str


def default_suite() -> Path:
    """The suite's test/ directory: $TILEIR_SHARED or ../shared, as in tests/conftest.py."""
    shared = Path(os.environ.get("TILEIR_SHARED", REPO.parent / "shared"))
    return shared / "conformance" / "cuda-tile" / "test"


def suite_files(suite: Path) -> list[str]:
    """The suite-relative paths of the files lit runs as tests (empty if the suite is absent)."""
    if not suite.is_dir():
        return []
    return sorted(
        path.relative_to(suite).as_posix()
        for path in suite.rglob("*")
        if path.suffix in SUFFIXES and not set(path.relative_to(suite).parts) & set(EXCLUDES)
    )


def run(out_dir: Path, suite: Path | None = None,
        lit_args: Sequence[str] = ()) -> dict[str, Result]:
    """Run lit on the suite with outputs under out_dir; return the results by file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    report = out_dir / "results.json"
    report.unlink(missing_ok=True)
    command = [sys.executable, "-c", _LIT_MAIN, str(HERE), "-q", f"--param=exec_root={out_dir}",
               "-o", str(report), *lit_args]
    if suite is not None:
        command.append(f"--param=suite={suite}")
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if not report.exists():
        raise RuntimeError(f"lit wrote no results ({done.returncode}):\n{done.stdout}{done.stderr}")
    return load(report)


def load(report: Path) -> dict[str, Result]:
    """The results of a lit JSON report (`-o`), by suite-relative path."""
    results = {}
    for test in json.loads(report.read_text())["tests"]:
        path = test["name"].split(" :: ", 1)[1]
        results[path] = Result(path, test["code"], test["output"])
    return dict(sorted(results.items()))


def note(result: Result) -> str:
    """The table's note for a result: the XFAIL reason, or what to do about an XPASS."""
    reason = XFAIL.get(result.path, "")
    return f"passes now: remove its mark ({reason})" if result.code == "XPASS" else reason


def table(results: dict[str, Result]) -> str:
    """A per-file table of results with totals."""
    width = max([len("file"), *map(len, results)])
    lines = [f"{'file':<{width}}  {'result':<11}  expected failure because"]
    lines += [f"{r.path:<{width}}  {r.code:<11}  {note(r)}".rstrip() for r in results.values()]
    counts = Counter(r.code for r in results.values())
    extra = sorted(set(counts) - set(CODES))
    totals = ", ".join(f"{counts[code]} {code}" for code in CODES + extra if counts[code])
    lines.append(f"{len(results)} files: {totals}")
    return "\n".join(lines)


def main() -> int:
    """Command line: run the suite, print the table, fail on unexpected results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print lit's output for unexpected results")
    parser.add_argument("--filter", help="only files whose path matches this regex")
    parser.add_argument("--out", type=Path, help="output directory (default: a temp dir)")
    args = parser.parse_args()
    if not default_suite().is_dir():
        print(f"{default_suite()} is absent (../shared is not beside this checkout)")
        return 0
    lit_args = [f"--filter={args.filter}"] if args.filter else []
    with tempfile.TemporaryDirectory(prefix="tileir-lit-") as tmp:
        results = run(args.out or Path(tmp), lit_args=lit_args)
    bad = [r for r in results.values() if r.code in UNEXPECTED]
    if args.verbose:
        for result in bad:
            print(f"===== {result.code}: {result.path}\n{result.output}")
    print(table(results))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
