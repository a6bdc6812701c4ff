"""The package's front door: read Tile IR text into a verified module in one call."""

from __future__ import annotations

from .ir import Module
from .syntax import parser as _parser


def parse(text: str, filename: str | None = None, *, verify: bool = True,
          allow_unregistered: bool = False) -> Module:
    """The ``cuda_tile.module`` in `text`, verified unless ``verify=False``.

    Raises `ParseError` for bad syntax and `VerificationError` (carrying every diagnostic)
    for a module that breaks a rule.
    """
    module = _parser.parse(text, filename, allow_unregistered=allow_unregistered)
    if verify:
        module.verify()
    return module


__all__ = ["parse"]
