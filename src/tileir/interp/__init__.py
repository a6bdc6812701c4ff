"""The spec's abstract machine: run Tile IR kernels on NumPy buffers, undefined behaviour
reported, not computed (work in progress: the op semantics come first)."""

from .semantics import SEMANTICS, semantics
from .step import Step

__all__ = ["SEMANTICS", "Step", "semantics"]
