"""Verifiers of the bitwise ops (`tileir.ops.bitwise`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
