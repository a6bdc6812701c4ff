"""Chunk-by-chunk tally of the suite's ``-verify-diagnostics`` files.

For every ``// -----`` chunk of every test/Dialect file whose RUN line uses
``-verify-diagnostics``, run cuda-tile-opt's own pipeline (with the RUN line's flags) and
compare its diagnostics with the chunk's ``expected-*`` comments:

- an *error chunk* (it expects an error) passes *strictly* when every diagnostic matches an
  expectation and every expectation is met; it is *rejected* when any error is reported;
- a *clean chunk* (it expects no error) passes when no error is reported and its expected
  warnings, if any, all match.

Run ``python tests/conformance/verify_chunks.py [-v]`` for the table (``-v`` lists each
failing chunk with its mismatches).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED = Path(os.environ.get("TILEIR_SHARED", REPO.parent / "shared"))
SUITE = SHARED / "conformance" / "cuda-tile" / "test"
sys.path.insert(0, str(REPO / "src"))

from run_lit import SUITE_VERSIONS  # noqa: E402
from tileir.cli.expected import check, parse_expectations  # noqa: E402
from tileir.cli.opt import build_parser, run_chunk, split_chunks  # noqa: E402
from tileir.diagnostics import Severity  # noqa: E402

_RUN = re.compile(r"//\s*RUN:\s*cuda-tile-opt\s+(.*)")


@dataclass
class FileTally:
    """Counts for one file."""

    name: str
    error_chunks: int = 0
    strict: int = 0
    rejected: int = 0
    clean_chunks: int = 0
    clean_pass: int = 0
    failures: list[tuple[int, list[str]]] = field(default_factory=list)


def _needs_test_pass(match: re.Match) -> bool:
    """The reference's C++-only test passes (``--test-...``) are not part of tileir."""
    return "--test-" in match.group(1)


def verify_files() -> list[Path]:
    """The test/Dialect files whose cuda-tile-opt RUN line uses -verify-diagnostics."""
    found = []
    for path in sorted((SUITE / "Dialect").rglob("*.mlir")):
        match = _RUN.search(path.read_text(encoding="utf-8"))
        if match and "-verify-diagnostics" in match.group(1) and not _needs_test_pass(match):
            found.append(path)
    return found


@contextlib.contextmanager
def suite_build() -> Iterator[None]:
    """Stand in for the build the suite was written for (`run_lit.SUITE_VERSIONS`), as the
    lit configuration does for the tools it runs."""
    saved = os.environ.get("TILEIR_BYTECODE_VERSIONS")
    os.environ["TILEIR_BYTECODE_VERSIONS"] = SUITE_VERSIONS
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TILEIR_BYTECODE_VERSIONS"]
        else:
            os.environ["TILEIR_BYTECODE_VERSIONS"] = saved


def tally_file(path: Path) -> FileTally:
    """One file's chunks checked against its expectations, as the suite's 13.3 build."""
    with suite_build():
        return _tally_file(path)


def _tally_file(path: Path) -> FileTally:
    text = path.read_text(encoding="utf-8")
    words = _RUN.search(text).group(1).split()
    args = build_parser().parse_args([w for w in words if w != "%s"])
    chunks = split_chunks(text) if args.split else [(text, 1)]
    result = FileTally(str(path.relative_to(SUITE)))
    filename = str(path)
    for chunk, first_line in chunks:
        expectations = parse_expectations(chunk, filename, first_line)
        wants_error = any(e.severity is Severity.ERROR for e in expectations)
        _, diagnostics = run_chunk(chunk, filename, args, first_line)
        mismatches = check(diagnostics, expectations, filename)
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        if wants_error:
            result.error_chunks += 1
            result.strict += not mismatches
            result.rejected += bool(errors)
        else:
            result.clean_chunks += 1
            result.clean_pass += not mismatches
        if mismatches:
            result.failures.append((first_line, [str(m) for m in mismatches]))
    return result


def tally() -> list[FileTally]:
    return [tally_file(path) for path in verify_files()]


def main(argv: list[str]) -> int:
    results = tally()
    print(f"{'file':52} {'error chunks':>12} {'strict':>7} {'rejected':>9} "
          f"{'clean':>6} {'pass':>5}")
    totals = [0] * 5
    for r in results:
        row = (r.error_chunks, r.strict, r.rejected, r.clean_chunks, r.clean_pass)
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{r.name:52} {row[0]:12} {row[1]:7} {row[2]:9} {row[3]:6} {row[4]:5}")
    print(f"{'total':52} {totals[0]:12} {totals[1]:7} {totals[2]:9} {totals[3]:6} "
          f"{totals[4]:5}")
    if totals[0]:
        print(f"strict {100 * totals[1] / totals[0]:.1f}%, rejected "
              f"{100 * totals[2] / totals[0]:.1f}%")
    if "-v" in argv:
        for r in results:
            for line, mismatches in r.failures:
                print(f"\n== {r.name} chunk at line {line}")
                for m in mismatches:
                    print("  " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
