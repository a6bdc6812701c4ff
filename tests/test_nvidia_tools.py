"""`tileir.nvidia.tool_path`: the one place that finds NVIDIA's tools."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tileir.nvidia import ARCHITECTURE_LIMIT, tool_path


def test_a_tool_on_path_comes_first(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "tileirdisasm"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    assert tool_path("tileirdisasm") == str(fake)


def test_a_tool_nowhere_is_none(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tool_path("no-such-nvidia-tool") is None


def test_the_architecture_refusal_is_recognized() -> None:
    match = ARCHITECTURE_LIMIT.search(
        "error: Incompatibility with architecture 'sm_90': f8E8M0FNU needs sm_100")
    assert match is not None and match.group(1) == "sm_90"
