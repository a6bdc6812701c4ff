"""The spec's abstract machine: run Tile IR kernels on NumPy buffers, undefined behaviour
reported, not computed.

`launch` runs an entry kernel over a grid of tile blocks (see `launch.py`), on the batched
engine (`batch/`, every tile block at once) where it applies, else one tile block at a time
on a `Machine`; `Memory` is the virtual address space; `semantics/` holds the meaning of
every op, one module per op group.  See docs/interpreter.md.
"""

from .launch import ENGINES, Run, launch
from .machine import Machine
from .memory import Memory
from .semantics.registry import SEMANTICS
from .step import Step
from .values import TensorView, TiledView, Token

__all__ = ["ENGINES", "Machine", "Memory", "Run", "SEMANTICS", "Step", "TensorView",
           "TiledView", "Token", "launch"]
