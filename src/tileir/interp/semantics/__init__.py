"""The meaning of every op, one module per op group (mirroring `tileir.ops`).

Importing this package files every op's semantics in `registry.SEMANTICS`.
"""

from .registry import SEMANTICS, semantics

__all__ = ["SEMANTICS", "semantics"]
