"""Verifiers of the views ops (`tileir.ops.views`)."""

from __future__ import annotations

from ..registry import Context, op_error, verifier  # noqa: F401
