"""Verifiers of the memory ops (`tileir.ops.memory`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
