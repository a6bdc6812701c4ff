"""The passes tileir knows: each registered once with its name (MLIR's argument), the ops
it runs on, its options and a one-line summary.

A pass is a function ``run(op, options)`` that rewrites `op` in place; it reports a
failure by raising `PassFailure` with a diagnostic (MLIR's ``signalPassFailure`` after an
``emitError``).  Options are declared with their type and default, and parsed from the
pipeline's ``{name=value ...}`` text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..diagnostics import Diagnostic, TileIRError

#: Anchors a pass may declare: an op name, "function" (MLIR's FunctionOpInterface: an
#: ``entry`` or a testing function) or "any" (an OperationPass<>: whatever op it is
#: nested under).
FUNCTION_OPS = frozenset({"cuda_tile.entry", "cuda_tile.testing$func"})


class PassFailure(TileIRError):
    """A pass that could not do its job: its diagnostics say why (the run stops)."""


@dataclass(frozen=True)
class PassOption:
    """One option of a pass: its name as the pipeline spells it, its type, default and
    help."""

    name: str
    type: type
    default: Any
    help: str = ""


@dataclass(frozen=True)
class PassDef:
    """A registered pass."""

    name: str
    anchor: str
    run: Callable[[Any, dict[str, Any]], None]
    summary: str = ""
    options: tuple[PassOption, ...] = field(default=())

    def accepts(self, op_name: str) -> bool:
        """Whether the pass may run on an op named `op_name`."""
        if self.anchor == "any":
            return True
        if self.anchor == "function":
            return op_name in FUNCTION_OPS
        return op_name == self.anchor


#: Every registered pass, by name.
PASSES: dict[str, PassDef] = {}


def register(name: str, anchor: str = "any", summary: str = "",
             options: tuple[PassOption, ...] = ()) -> Callable[[Callable], Callable]:
    """Register the decorated function as pass `name`."""
    def add(run: Callable[[Any, dict[str, Any]], None]) -> Callable:
        """Record `run` under `name`."""
        PASSES[name] = PassDef(name, anchor, run, summary, tuple(options))
        return run
    return add


def load_passes() -> dict[str, PassDef]:
    """`PASSES`, with every pass module of the package imported (each registers itself)."""
    from . import passes  # noqa: F401  (registration happens on import)
    return PASSES


def failure(message: str, location: Any = None) -> PassFailure:
    """A `PassFailure` with one error at `location` (an op's location, or none)."""
    from ..diagnostics import error
    from ..ir import location_of
    where = location_of(location) if location is not None else None
    return PassFailure(error(message, where))


__all__ = ["Diagnostic", "FUNCTION_OPS", "PASSES", "PassDef", "PassFailure", "PassOption",
           "failure", "load_passes", "register"]
