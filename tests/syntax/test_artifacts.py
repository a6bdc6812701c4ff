"""Kernels printed by NVIDIA's tileirdisasm parse and print back byte for byte."""

from __future__ import annotations

import pytest

from conftest import SHARED, require
from tileir import parse

ARTIFACTS = SHARED / "reference" / "artifacts"
FILES = sorted(p.name for p in ARTIFACTS.glob("*.mlir")) if ARTIFACTS.is_dir() else []


@pytest.mark.parametrize("name", FILES or ["(no artifacts)"])
def test_tileirdisasm_text_round_trips(name: str, tally) -> None:
    path = require(ARTIFACTS / name)
    text = path.read_text(encoding="utf-8")
    module = parse(text, name)
    assert module.format(debuginfo="loc(" in text) == text
    tally("tileirdisasm artifacts printed byte-identically", 1)
