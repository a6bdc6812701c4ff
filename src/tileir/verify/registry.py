"""How op-specific verifiers are written: a decorator that files a check under op names,
and the diagnostics a check raises.

A check is ``check(op, ctx) -> None``; it raises `Failure` (built with `op_error` or
`error_at`) to reject the op, as an MLIR verifier returns failure after emitting.  Checks
run in MLIR's order for their stage:

- ``"verify"``: the op's ``verify()``, after its traits;
- ``"regions"``: ``verifyRegions()``, after every op nested in its regions verified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..diagnostics import Diagnostic, error, note, warning
from ..ir import location_of

STAGES = ("verify", "regions")

Check = Callable[[Any, "Context"], None]

CHECKS: dict[str, dict[str, list[Check]]] = {stage: {} for stage in STAGES}


def verifier(*names: str, stage: str = "verify") -> Callable[[Check], Check]:
    """File `check` as the `stage` verifier of each op in `names` (short names)."""
    if stage not in STAGES:
        raise ValueError(f"unknown verifier stage {stage!r}")

    def register(check: Check) -> Check:
        """File `check` and return it unchanged."""
        for name in names:
            CHECKS[stage].setdefault(name, []).append(check)
        return check
    return register


class Failure(Exception):
    """A check rejected an op; carries the diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def op_error(op: Any, message: str, notes: Iterable[Diagnostic] = ()) -> Failure:
    """MLIR's ``emitOpError``: the message prefixed with ``'<op name>' op``."""
    return Failure(error(f"'{op.name}' op {message}", location_of(op), notes))


def error_at(thing: Any, message: str, notes: Iterable[Diagnostic] = ()) -> Failure:
    """MLIR's ``emitError`` at an op, value or location: the message as is."""
    return Failure(error(message, location_of(thing), notes))


def note_at(thing: Any, message: str) -> Diagnostic:
    """A note attached to a diagnostic, pointing at `thing`."""
    return note(message, location_of(thing))


@dataclass
class Options:
    """What the caller asked of the verifier (cuda-tile-opt's flags)."""

    #: ``-Wunsupported-hints``: report unknown optimization hints as warnings.
    warn_hints: bool = False
    #: ``-Werr-hints``: ... and as errors.
    error_hints: bool = False
    #: Warn about what the spec forbids but the reference accepts (``tileir check``).
    spec_warnings: bool = False


@dataclass
class Context:
    """Passed to every check: the options, and the diagnostics emitted so far, in order."""

    options: Options = field(default_factory=Options)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def op_error(self, op: Any, message: str) -> None:
        """Report an op error without failing the check (the reference emits some errors
        and carries on verifying)."""
        self.diagnostics.append(op_error(op, message).diagnostic)

    def warn(self, thing: Any, message: str) -> None:
        """Report a warning at `thing`."""
        self.diagnostics.append(warning(message, location_of(thing)))
