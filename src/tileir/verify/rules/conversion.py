"""Verifiers of the conversion ops (`tileir.ops.conversion`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
