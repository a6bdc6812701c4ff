"""How values are written into diagnostics, as MLIR streams them into a message."""

from __future__ import annotations

from typing import Iterable, Sequence

from ..types import Type, quoted


def shape_text(shape: Sequence[int]) -> str:
    """A shape as MLIR streams an ArrayRef: ``4, 16``."""
    return ", ".join(str(d) for d in shape)


def type_list(types: Iterable[Type]) -> str:
    """A type range as MLIR streams it: quoted and comma-separated."""
    return ", ".join(quoted(t) for t in types)


__all__ = ["quoted", "shape_text", "type_list"]
