"""``tileir reduce`` from Python: shrink a kernel while a test still holds.

`reduce(module, predicate)` returns the smallest module found (a `ReduceResult`) for which
`predicate(module) -> bool` still holds, every candidate a valid kernel; the predicates of
`tileir.reducer.predicates` cover NVIDIA's tileiras crashing or refusing, tileir's own
diagnostics, and tileir's engines disagreeing.  `tileir.reduce` is this `reduce`.
"""

from __future__ import annotations

from . import predicates
from .core import Progress, ReduceError, ReduceResult, reduce
from .reductions import REDUCTIONS, count_ops

__all__ = ["Progress", "REDUCTIONS", "ReduceError", "ReduceResult", "count_ops", "predicates",
           "reduce"]
