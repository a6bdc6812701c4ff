"""Verifiers of the control flow ops (`tileir.ops.control_flow`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
