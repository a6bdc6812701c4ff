"""The batched engine: every tile block of a launch at once, each op one NumPy computation
over a leading block axis (see `machine`), for kernels whose tile blocks take the same
control flow and do not order each other (see `analysis`)."""

from .analysis import Plan, analyse
from .machine import BatchMachine, UndefinedBehaviour

__all__ = ["BatchMachine", "Plan", "UndefinedBehaviour", "analyse"]
