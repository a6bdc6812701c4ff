"""Verifiers of the atomics ops (`tileir.ops.atomics`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
