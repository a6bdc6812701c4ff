"""Verifiers of the atomics ops (`tileir.ops.atomics`): element types per mode, orderings
and scopes, and the view-based reduction's view rules (reference CudaTile.cpp and
SharedVerifiers.h)."""

from __future__ import annotations

from typing import Any, Callable

from ...enums import AtomicRMWMode as Mode
from ...enums import MemoryOrderingSemantics as Order
from ...enums import MemoryScope
from ...types import (BF16, F16, F32, F64, I32, I64, GatherScatterViewType, IntegerType,
                      TiledView, TileType, Type, mlir_bit_width, quoted)
from ..registry import Context, Failure, op_error, verifier
from ..text import shape_text
from .memory import is_multicast
from .views import inbounds_error, multicast_view_error


def _int_32_64(t: Type) -> bool:
    """i32 or i64: what the integer modes work on."""
    return t in (I32, I64)


def _float_addf(t: Type) -> bool:
    """f16, bf16, f32 or f64: what addf works on."""
    return t in (F16, BF16, F32, F64)


def _xchg(t: Type) -> bool:
    """A 32- or 64-bit integer or float: what xchg works on."""
    return mlir_bit_width(t) in (32, 64)


_INT_MODES = (Mode.AND, Mode.OR, Mode.XOR, Mode.ADD, Mode.MAX, Mode.MIN, Mode.UMAX, Mode.UMIN)

#: Per mode, the element types it accepts and the end of the reference's message.
MODE_RULES: dict[Mode, tuple[Callable[[Type], bool], str]] = {
    **{m: (_int_32_64, "works only with integers i32 and i64") for m in _INT_MODES},
    Mode.ADDF: (_float_addf, "works only with floats f16, bf16, f32, and f64"),
    Mode.XCHG: (_xchg, "works only with integers or float of 32 or 64 bitwidth"),
}

#: The orderings an atomic accepts (reference verifyAtomicMemoryOrdering).
ATOMIC_ORDERS = (Order.RELAXED, Order.ACQUIRE, Order.RELEASE, Order.ACQ_REL)


def mode_error(op: Any, mode: Mode, element: Type) -> Failure | None:
    """The RMW mode works on `element` (reference verifyAtomicRMWMode)."""
    accepts, text = MODE_RULES[mode]
    return None if accepts(element) else op_error(op, f"'{mode.keyword}' {text}")


def ordering_error(op: Any) -> Failure | None:
    """An atomic's ordering is relaxed, acquire, release or acq_rel."""
    if op.enum("memory_ordering_semantics") not in ATOMIC_ORDERS:
        return op_error(op, "memory ordering semantics must be one of: relaxed, acquire, "
                            "release, acq_rel")
    return None


def _pointee_error(op: Any, name: str) -> Failure | None:
    """The pointers point to the element type of operand `name`."""
    pointee = op.values_named("pointers")[0].type.element_type.pointee
    element = op.values_named(name)[0].type.element_type
    if pointee != element:
        return op_error(op, f"expected pointee type ({quoted(pointee)}) to match element type "
                            f"of '{name}' ({quoted(element)})")
    return None


def _multicast_error(op: Any, what: str) -> Failure | None:
    """13.5: no atomic on multicast memory through pointers."""
    if is_multicast(op.values_named("pointers")[0].type):
        return op_error(op, f"multicast pointer is not supported for {what}")
    return None


def _mask_error(op: Any, name: str, names: str) -> Failure | None:
    """The optional mask has the shape of operand `name`."""
    mask = op.values_named("mask")
    if mask and mask[0].type.shape != op.values_named(name)[0].type.shape:
        return op_error(op, f"failed to verify that all of {{{names}}} have same shape")
    return None


def _raise_first(*checks: Callable[[], Failure | None]) -> None:
    """Run `checks` in order; raise the first failure."""
    for check in checks:
        failure = check()
        if failure is not None:
            raise failure


@verifier("atomic_rmw_tko")
def atomic_rmw_tko(op: Any, ctx: Context) -> None:
    """Pointee and argument element types agree; mask shape; mode and ordering."""
    element = op.values_named("arg")[0].type.element_type
    _raise_first(lambda: _multicast_error(op, "atomic_rmw"),
                 lambda: _pointee_error(op, "arg"),
                 lambda: _mask_error(op, "arg", "pointers, arg, mask"),
                 lambda: mode_error(op, op.enum("mode"), element),
                 lambda: ordering_error(op))


def _cas_element_error(op: Any) -> Failure | None:
    """Compare-and-swap works on 32- or 64-bit integers and floats."""
    element = op.values_named("val")[0].type.element_type
    if mlir_bit_width(element) not in (32, 64):
        return op_error(op, "expect only float or integer types with 32 or 64 bit")
    return None


@verifier("atomic_cas_tko")
def atomic_cas_tko(op: Any, ctx: Context) -> None:
    """Pointee and value element types agree, 32 or 64 bits; mask shape; ordering."""
    _raise_first(lambda: _multicast_error(op, "atomic_cas"),
                 lambda: _pointee_error(op, "val"),
                 lambda: _cas_element_error(op),
                 lambda: _mask_error(op, "val", "pointers, val, cmp and mask"),
                 lambda: ordering_error(op))


# ---- atomic_red_view_tko --------------------------------------------------


def _red_view_kind_error(op: Any, view: Type) -> Failure | None:
    """Only partition and strided views without padding."""
    if not isinstance(view, TiledView):
        return op_error(op, "view operand must be a TileView type")
    if isinstance(view, GatherScatterViewType):
        return op_error(op, "gather_scatter_view is not supported; use partition_view instead")
    if view.padding_value is not None:
        return op_error(op, "views with padding_value are not supported for atomic reductions")
    return None


def _red_value_error(op: Any, view: TiledView) -> Failure | None:
    """The value is one tile of the view: same element type and shape."""
    value = op.values_named("value")[0].type
    if view.element_type != value.element_type:
        return op_error(op, f"view element type ({quoted(view.element_type)}) must match "
                            f"value element type ({quoted(value.element_type)})")
    if view.tile_shape != value.shape:
        return op_error(op, f"view tile shape {shape_text(view.tile_shape)} must match value "
                            f"shape {shape_text(value.shape)} for element-wise atomic "
                            "operations")
    return None


def _red_mode_error(op: Any) -> Failure | None:
    """No exchange; the mode works on the value's element type."""
    mode = op.enum("mode")
    if mode is Mode.XCHG:
        return op_error(op, "atomic_red_view_tko op cannot use xchg operation")
    return mode_error(op, mode, op.values_named("value")[0].type.element_type)


def _red_memory_error(op: Any) -> Failure | None:
    """Relaxed ordering only, at tile-block or device scope (what TMA reductions support)."""
    if op.enum("memory_ordering_semantics") is not Order.RELAXED:
        return op_error(op, "only 'relaxed' memory ordering is supported for view-based "
                            "atomic reductions")
    if op.enum("memory_scope") is MemoryScope.SYS:
        return op_error(op, "memory scope 'sys' is not supported for view-based atomic "
                            "reductions; use 'tl_blk' or 'device' for TMA compatibility")
    return None


def _red_index_error(op: Any, view: TiledView) -> Failure | None:
    """One scalar integer index per tile dimension."""
    indices = op.values_named("index")
    rank = len(view.tile_shape)
    if len(indices) != rank:
        return op_error(op, f"expected {rank} index operand(s) for view with tile rank "
                            f"{rank}, got {len(indices)}")
    for i, index in enumerate(indices):
        t = index.type
        if not isinstance(t, TileType):
            continue
        if t.rank != 0:
            return op_error(op, f"index operand {i} must be a scalar tile (rank 0), got shape "
                                f"{shape_text(t.shape)}")
        if not isinstance(t.element_type, IntegerType):
            return op_error(op, f"index operand {i} must be a scalar integer tile, got element "
                                f"type {quoted(t.element_type)}")
    return None


@verifier("atomic_red_view_tko")
def atomic_red_view_tko(op: Any, ctx: Context) -> None:
    """The reference's rules for a view-based atomic reduction, in its order."""
    view = op.values_named("view")[0].type
    _raise_first(lambda: _red_view_kind_error(op, view),
                 lambda: _red_value_error(op, view),
                 lambda: _red_mode_error(op),
                 lambda: _red_memory_error(op),
                 lambda: _red_index_error(op, view),
                 lambda: inbounds_error(op),                # 13.5
                 lambda: multicast_view_error(op, view))    # 13.5
