"""Verifiers of the core ops (`tileir.ops.core`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
