"""Verifiers of the misc ops (`tileir.ops.misc`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
