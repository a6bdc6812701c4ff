"""The batched engine: every tile block of a launch at once, each op one NumPy computation
over a leading block axis (see `machine`), for kernels whose tile blocks take the same
control flow and do not order each other (see `analysis`)."""

from .analysis import Plan, analyse
from .footprints import BlockFootprints
from .machine import BatchMachine, InternalError, Span, Stopped, UndefinedBehaviour, spans

__all__ = ["BatchMachine", "BlockFootprints", "InternalError", "Plan", "Span", "Stopped",
           "UndefinedBehaviour", "analyse", "spans"]
