"""docs/workbench.md stays true: its console session, run command by command in one empty
directory (the tested tileir as `tileir` and `python`), prints what the page shows, bar
the `time:` lines (stdout and stderr together, as a terminal shows them)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.test_readme import _env, _tools

PAGE = Path(__file__).resolve().parents[2] / "docs" / "workbench.md"


def session() -> list[tuple[str, str]]:
    """Each ``$ command`` of the page's console blocks, in order, with the output shown
    under it."""
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", PAGE.read_text(), re.S):
        for chunk in re.split(r"(?m)^\$ ", block)[1:]:
            command, _, shown = chunk.partition("\n")
            steps.append((command, shown))
    return steps


def _untimed(text: str) -> str:
    """`text` without its ``time:`` lines (the only output that varies)."""
    return "".join(line for line in text.splitlines(True) if not line.startswith("time: "))


def test_the_page_has_its_session() -> None:
    commands = [command for command, _ in session()]
    assert len(commands) == 11
    assert commands[0].startswith("cp ") and commands[-1].startswith("python -c")


def test_the_session_prints_what_the_page_shows(tmp_path: Path) -> None:
    tools, work = tmp_path / "tools", tmp_path / "work"
    tools.mkdir()
    work.mkdir()
    _tools(tools)
    for command, shown in session():
        done = subprocess.run(["bash", "-c", f"{command} 2>&1"], cwd=work,
                              env=_env(str(tools)), capture_output=True, text=True,
                              timeout=300)
        assert _untimed(done.stdout) == _untimed(shown), command


@pytest.mark.parametrize("command, status", [
    ("tileir check bug_scale2d.mlir", 0),
    ("tileir run bug_scale2d.mlir --grid 2,4 arange:32x64xf32 zeros:32x64xf32 32 64", 1),
])
def test_exit_statuses(command: str, status: int, tmp_path: Path) -> None:
    """The bug's run fails (undefined behaviour: exit 1); the file itself is valid."""
    tools = tmp_path / "tools"
    tools.mkdir()
    _tools(tools)
    subprocess.run(["bash", "-c", session()[0][0]], cwd=tmp_path, env=_env(str(tools)),
                   check=True)
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=_env(str(tools)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == status
