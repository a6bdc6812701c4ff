"""Verifiers of the floating point ops (`tileir.ops.floating_point`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
