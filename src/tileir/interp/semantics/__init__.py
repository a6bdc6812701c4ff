"""The meaning of every op, one module per op group (mirroring `tileir.ops`, plus `regions`
for reduce and scan, whose bodies the machine runs).

Importing this package files every op's semantics in `registry.SEMANTICS`.
"""

from . import (atomics, bitwise, control_flow, conversion, core, floating_point,  # noqa: F401
               integer, memory, misc, multimem, preview, regions, views)
from .registry import SEMANTICS, semantics, short_name

__all__ = ["SEMANTICS", "semantics", "short_name"]
