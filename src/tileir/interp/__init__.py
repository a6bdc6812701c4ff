"""The spec's abstract machine: run Tile IR kernels on NumPy buffers, undefined behaviour
reported, not computed.

`launch` runs an entry kernel over a grid of tile blocks (see `launch.py`); `Machine`
runs one tile block; `Memory` is the virtual address space; `semantics/` holds the meaning
of every op, one module per op group.  See docs/interpreter.md.
"""

from .launch import launch
from .machine import Machine
from .memory import Memory
from .semantics.registry import SEMANTICS
from .step import Step
from .values import TensorView, TiledView, Token

__all__ = ["Machine", "Memory", "SEMANTICS", "Step", "TensorView", "TiledView", "Token",
           "launch"]
