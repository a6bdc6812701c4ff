"""The verifier: every rule of the spec and of NVIDIA's reference verifier, with its
diagnostics.

`verify(op)` returns the diagnostics; `check(op)` raises `VerificationError` carrying them
when any is an error.
"""

from __future__ import annotations

from ..diagnostics import Severity, VerificationError
from ..ir import Operation
from .engine import verify
from .registry import Options


def check(op: Operation, options: Options | None = None) -> None:
    """Raise `VerificationError` with every diagnostic when `op` does not verify."""
    diagnostics = verify(op, options)
    if any(d.severity is Severity.ERROR for d in diagnostics):
        raise VerificationError(diagnostics)


__all__ = ["Options", "check", "verify"]
