"""Verifiers of the memory ops (`tileir.ops.memory`): pointer loads and stores, tokens and
alloca (reference CudaTile.cpp, SharedVerifiers.h).

The pointer/value type relations of the pointer loads and stores are ODS traits
(``TypesMatchWith``), declared with the ops and checked by `tileir.verify.traits`."""

from __future__ import annotations

from typing import Any

from ...enums import PointerAttribute
from ...types import I1, Type, mlir_bit_width, quoted
from ..registry import Context, op_error, verifier
from ..hints import verify_optimization_hints
from .views import memory_model_error


# ---- pointer loads and stores --------------------------------------------------


def is_multicast(pointers: Type) -> bool:
    """Whether a tile of pointers points into multicast memory (13.5's ptr_attr)."""
    pointer = getattr(pointers, "element_type", None)
    return getattr(pointer, "ptr_attr", None) is PointerAttribute.MULTICAST


@verifier("load_ptr_tko")
def load_ptr_tko(op: Any, ctx: Context) -> None:
    """No multicast pointer (13.5); hints; a pointer load's ordering is weak, relaxed or
    acquire, with a scope unless weak."""
    if is_multicast(op.values_named("source")[0].type):
        raise op_error(op, "multicast pointer is not allowed")
    verify_optimization_hints(op, ctx)
    failure = memory_model_error(op, "load")
    if failure is not None:
        raise failure


@verifier("store_ptr_tko")
def store_ptr_tko(op: Any, ctx: Context) -> None:
    """No multicast pointer (13.5); hints; a pointer store's ordering is weak, relaxed or
    release, with a scope unless weak."""
    if is_multicast(op.values_named("destination")[0].type):
        raise op_error(op, "multicast pointer is not allowed")
    verify_optimization_hints(op, ctx)
    failure = memory_model_error(op, "store")
    if failure is not None:
        raise failure


# ---- tokens --------------------------------------------------


@verifier("join_tokens")
def join_tokens(op: Any, ctx: Context) -> None:
    """Joining needs at least two tokens."""
    if len(op.operands) < 2:
        raise op_error(op, "expect two or more tokens")


# ---- alloca --------------------------------------------------


def natural_size(element: Type) -> int:
    """Bytes of one element as the reference counts them for alloca (i1 takes a byte; a
    float its IEEE semantics' size in bits, divided by 8 and rounded down)."""
    if element == I1:
        return 1
    width = mlir_bit_width(element)
    return width // 8 if width is not None else 0


@verifier("alloca")
def alloca(op: Any, ctx: Context) -> None:
    """The alignment is a power of two, at least the size of one element."""
    alignment = op.attr("alignment").value
    if alignment <= 0 or alignment & (alignment - 1):
        raise op_error(op, "'alignment' must be power of two")
    pointee = op.results[0].type.element_type.pointee
    size = natural_size(pointee)
    if alignment < size:
        raise op_error(op, f"'alignment' ({alignment}) must be at least the natural size "
                           f"({size} bytes) for element type {quoted(pointee)}")
