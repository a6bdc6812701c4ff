"""Fixtures for verifier tests: the diagnostics a piece of Tile IR text gets."""

from __future__ import annotations

from typing import Callable

import pytest

from tileir.diagnostics import TileIRError
from tileir.syntax.parser import parse_document
from tileir.verify import Options, verify


def diagnose_text(text: str, **options: bool) -> list[str]:
    """``severity: message`` of every diagnostic (notes included, in order) that parsing
    and verifying `text` produces; unregistered ops are allowed, as in the suite."""
    try:
        ops = parse_document(text, "test.mlir", allow_unregistered=True)
    except TileIRError as exc:
        found = list(exc.diagnostics)
    else:
        found = [d for op in ops for d in verify(op, Options(**options))]
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
