"""Verifiers of the integer ops (`tileir.ops.integer`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
