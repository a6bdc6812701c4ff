"""The suite's FileCheck (bin/llvm_filecheck.py) gives CHECK-NOT LLVM's range: the text
between the previous match and the start of the next one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("filecheck", reason="filecheck is a test extra (pip install -e '.[test]')")

WRAPPER = Path(__file__).resolve().parent / "bin" / "llvm_filecheck.py"


def _check(tmp_path: Path, checks: str, text: str) -> int:
    """The wrapper's exit status on `text` against `checks`."""
    path = tmp_path / "checks.txt"
    path.write_text(checks)
    return subprocess.run([sys.executable, str(WRAPPER), str(path)], input=text,
                          capture_output=True, text=True, timeout=120).returncode


def test_a_forbidden_word_only_inside_the_next_match_passes(tmp_path: Path) -> None:
    """LLVM: the label's own line is not part of the CHECK-NOT range."""
    checks = "CHECK: first\nCHECK-NOT: if\nCHECK: @split_if\n"
    assert _check(tmp_path, checks, "first\nmiddle\nfunc @split_if\n") == 0


def test_a_forbidden_word_between_the_matches_fails(tmp_path: Path) -> None:
    checks = "CHECK: first\nCHECK-NOT: if\nCHECK: @split_if\n"
    assert _check(tmp_path, checks, "first\nan if here\nfunc @split_if\n") == 1


def test_a_forbidden_word_after_the_last_match_fails(tmp_path: Path) -> None:
    assert _check(tmp_path, "CHECK: first\nCHECK-NOT: if\n", "first\nthen if\n") == 1
    assert _check(tmp_path, "CHECK: first\nCHECK-NOT: if\n", "first\nthen\n") == 0


def test_next_and_label_still_work(tmp_path: Path) -> None:
    checks = "CHECK-LABEL: @a\nCHECK-NEXT: x\nCHECK-NOT: y\nCHECK-LABEL: @b\n"
    assert _check(tmp_path, checks, "@a\nx\nz\n@b\n") == 0
    assert _check(tmp_path, checks, "@a\nx\ny\n@b\n") == 1
    assert _check(tmp_path, checks, "@a\nq\nx\n@b\n") == 1


def test_match_full_lines_is_checked_where_the_match_ends(tmp_path: Path) -> None:
    """A pending CHECK-NOT does not move the --match-full-lines check to the match's
    start (where every line would be 'not whole')."""
    checks = tmp_path / "full.txt"
    checks.write_text("CHECK: first\nCHECK-NOT: if\nCHECK: second\n")
    found = subprocess.run([sys.executable, str(WRAPPER), str(checks), "--match-full-lines"],
                           input="first\nmiddle\nsecond\n", capture_output=True, text=True,
                           timeout=120)
    assert found.returncode == 0, found.stderr


def test_count_ends_the_range_at_its_first_match(tmp_path: Path) -> None:
    """LLVM checks a CHECK-NOT before CHECK-COUNT-n up to the first of the n matches."""
    checks = "CHECK: first\nCHECK-NOT: x\nCHECK-COUNT-2: y\n"
    assert _check(tmp_path, checks, "first\ny\nx\ny\n") == 0
    assert _check(tmp_path, checks, "first\nx\ny\ny\n") == 1
