"""The passes tileir knows: each registered once with its name (MLIR's argument), the ops
it runs on, its options and a one-line summary.

A pass is a function ``run(op, options)`` that rewrites `op` in place; it reports a
failure by raising `PassFailure` with a diagnostic (MLIR's ``signalPassFailure`` after an
``emitError``).  Options are declared with their type and default, and parsed from the
pipeline's ``{name=value ...}`` text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..diagnostics import Diagnostic, TileIRError
from ..verify.rules import core as _core_rules

#: Anchors a pass may declare: an op name, "function" (MLIR's FunctionOpInterface: an
#: ``entry`` or a testing function, the verifier's own list of them) or "any" (an
#: OperationPass<>: whatever op it is nested under).
FUNCTION_OPS = frozenset(_core_rules.FUNCTION_OPS)


class PassFailure(TileIRError):
    """A pass that could not do its job: its diagnostics say why (the run stops)."""


@dataclass(frozen=True)
class PassOption:
    """One option of a pass: its name as the pipeline spells it, its type, default and
    help, and the values it may take (`choices`; empty: any value of its type).  The
    pipeline parser checks a value against both, so a pass never sees a bad one."""

    name: str
    type: type
    default: Any
    help: str = ""
    choices: tuple[Any, ...] = ()


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
    """Register the decorated function as pass `name` (a name registered already is an
    error, as a fold declared twice is: one pass would silently replace the other)."""
    def add(run: Callable[[Any, dict[str, Any]], None]) -> Callable:
        """Record `run` under `name`."""
        if name in PASSES:
            raise ValueError(f"pass '{name}' registered twice")
        PASSES[name] = PassDef(name, anchor, run, summary, tuple(options))
        return run
    return add


def load_passes() -> dict[str, PassDef]:
    """`PASSES`, with every pass module of the package imported (each registers itself)."""
    from . import passes  # noqa: F401  (registration happens on import)
    return PASSES


def failure(message: str, location: Any = None, notes: Sequence[Diagnostic] = (),
            kind: type[PassFailure] = PassFailure) -> PassFailure:
    """A `PassFailure` (or subclass `kind`) with one error at `location` (an op or its
    location, or none) carrying `notes`."""
    from ..diagnostics import error
    from ..ir import location_of
    where = location_of(location) if location is not None else None
    return kind(error(message, where, tuple(notes)))


__all__ = ["Diagnostic", "FUNCTION_OPS", "PASSES", "PassDef", "PassFailure", "PassOption",
           "failure", "load_passes", "register"]
