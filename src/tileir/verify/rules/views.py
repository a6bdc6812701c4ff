"""Verifiers of the views ops (`tileir.ops.views`): building views, querying their shapes,
and loading or storing tiles through them (reference CudaTile.cpp, SharedVerifiers.h)."""

from __future__ import annotations

from typing import Any

from ...enums import MemoryOrderingSemantics as Order
from ...enums import MemoryScope
from ...enums import PointerAttribute
from ...types import TensorViewType, TiledView, Type, ptr_attr_text, quoted
from ..registry import Context, Failure, op_error, verifier
from ..hints import verify_optimization_hints


# ---- making views --------------------------------------------------


def _dynamic_count(values: tuple[int | None, ...]) -> int:
    """How many extents or strides of a tensor_view are ``?``."""
    return sum(v is None for v in values)


def _same_type_error(op: Any, what: str, values: list[Any], first: Type) -> Failure | None:
    """The reference's rule that every dynamic size operand has the type of the first."""
    for i, value in enumerate(values):
        if value.type != first:
            return op_error(op, f"expected dynamic {what} index {i} to be of the same type as "
                                f"the other dynamic values ({quoted(first)}), got "
                                f"{quoted(value.type)}")
    return None


def ptr_attr_error(base: PointerAttribute | None, view: PointerAttribute | None) -> str | None:
    """13.4: a tensor_view carries exactly the ptr_attr of the pointer it is made from."""
    if base is not None and view != base:
        return f"tensor_view must preserve ptr_attr from base pointer ({ptr_attr_text(base)})"
    if base is None and view is not None:
        return "pointer base without ptr_attr cannot produce tensor_view with ptr_attr"
    return None


@verifier("make_tensor_view")
def make_tensor_view(op: Any, ctx: Context) -> None:
    """The base points at the view's element type; one operand per ``?`` extent and stride,
    all of one type."""
    view = op.results[0].type
    base = op.operand_group("base")[0].type
    if not isinstance(view, TensorViewType):
        return
    pointee = base.element_type.pointee
    if view.element_type != pointee:
        raise op_error(op, f"expected pointer to {quoted(view.element_type)} to build "
                           f"tensor_view of this type, got {quoted(pointee)}")
    message = ptr_attr_error(base.element_type.ptr_attr, view.ptr_attr)
    if message is not None:
        raise op_error(op, message)
    shape, strides = op.operand_group("dynamicShape"), op.operand_group("dynamicStrides")
    for what, values, expected in (("shape", shape, _dynamic_count(view.shape)),
                                   ("stride", strides, _dynamic_count(view.strides))):
        if len(values) != expected:
            raise op_error(op, f"expected {expected} dynamic {what} operands, got "
                               f"{len(values)}")
    first = (shape or strides or [None])[0]
    if first is None:
        return
    failure = (_same_type_error(op, "shape", shape, first.type)
               or _same_type_error(op, "stride", strides, first.type))
    if failure is not None:
        raise failure


@verifier("make_partition_view", "make_strided_view", "make_gather_scatter_view")
def make_tiled_view(op: Any, ctx: Context) -> None:
    """The operand's type is the tensor_view the result view is declared over."""
    given = op.operands[0].type
    declared = getattr(op.results[0].type, "tensor_view", None)
    if declared is not None and given != declared:
        raise op_error(op, f"expected the type of the provided tensor_view value "
                           f"({quoted(given)}) to be the same as the view's tensor_view type "
                           f"({quoted(declared)})")


# ---- shape queries --------------------------------------------------


@verifier("get_tensor_shape")
def get_tensor_shape(op: Any, ctx: Context) -> None:
    """One result per dimension of the tensor_view."""
    source = op.operands[0].type
    if isinstance(source, TensorViewType) and len(op.results) != source.rank:
        raise op_error(op, f"expected {source.rank} results due to tensor rank, but got "
                           f"{len(op.results)}")


@verifier("get_index_space_shape")
def get_index_space_shape(op: Any, ctx: Context) -> None:
    """One result per dimension of the view's index space."""
    source = op.operands[0].type
    if isinstance(source, TiledView) and len(op.results) != source.index_rank:
        raise op_error(op, f"expected {source.index_rank} results due to view index space "
                           f"rank, but got {len(op.results)}")


# ---- loads and stores through views --------------------------------------------------


def _groups_named(op: Any) -> Any:
    """``values_named`` for a view access, its operands split once: the operand groups
    cut by one split, the others (a load's ``tile`` result) by `values_named`."""
    opdef = op.opdef
    groups = op.operand_groups()

    def named(name: str) -> list[Any]:
        where = opdef.value_position(name)
        if where is not None and where[0]:
            return groups[where[1]]
        return op.values_named(name)
    return named


def view_access_error(op: Any, named: Any = None) -> Failure | None:
    """The rules a view load or store shares (reference verifyViewLoadStoreCommon): one
    index per view dimension, the view's tile type, and the view's own index rules
    (`named`: how groups are read, `values_named` by default)."""
    named = named or op.values_named
    view = named("view")[0].type
    if not isinstance(view, TiledView):
        return None
    indices = [v.type for v in named("index")]
    tile = named("tile")[0].type
    if len(indices) != view.index_rank:
        return op_error(op, f"expected {view.index_rank} index operands (based on view "
                            f"type), got {len(indices)}")
    if tile != view.tile_type:
        return op_error(op, f"expected tile type to be {quoted(view.tile_type)} (based on "
                            f"view type), got {quoted(tile)}")
    message = view.indices_error(indices)
    return op_error(op, message) if message is not None else None


#: The orderings a load and a store accept, as the reference names them in its message.
ACCEPTED_ORDERS: dict[str, tuple[Order, ...]] = {
    "load": (Order.WEAK, Order.RELAXED, Order.ACQUIRE),
    "store": (Order.WEAK, Order.RELAXED, Order.RELEASE),
}


def memory_model_error(op: Any, kind: str) -> Failure | None:
    """A load's or store's ordering and scope (reference verifyMemoryModelLoad/Store): an
    accepted ordering; weak takes no scope, every other ordering needs one."""
    order: Order = op.enum("memory_ordering_semantics")
    scope: MemoryScope | None = op.enum("memory_scope")
    accepted = ACCEPTED_ORDERS[kind]
    if order not in accepted:
        names = [o.keyword for o in accepted]
        return op_error(op, f"expect one of: {names[0]}, {names[1]}, or {names[2]}, but got: "
                            f"{order.keyword}")
    if order is Order.WEAK and scope is not None:
        return op_error(op, f"weak {kind} must not have memory scope")
    if order is not Order.WEAK and scope is None:
        return op_error(op, f"memory scope is required for {order.keyword} {kind}")
    return None


def inbounds_error(op: Any, named: Any = None) -> Failure | None:
    """13.4's ``inbounds``: one flag per index (a missing attribute means all false)."""
    inbounds = op.attributes.get("inbounds")
    count = len((named or op.values_named)("index"))
    if inbounds is None or len(inbounds.values) == count:
        return None
    return op_error(op, f"inbounds size ({len(inbounds.values)}) must match the number of "
                        f"index dimensions ({count})")


def _view_access(kind: str):
    """The verifier of a view load (`kind` "load") or store ("store")."""
    def check(op: Any, ctx: Context) -> None:
        named = _groups_named(op)
        failure = view_access_error(op, named) or inbounds_error(op, named)
        if failure is not None:
            raise failure
        verify_optimization_hints(op, ctx)
        failure = memory_model_error(op, kind)
        if failure is not None:
            raise failure
    check.__doc__ = (f"A view {kind}: indices and tile fit the view; one inbounds flag per "
                     "index; hints; ordering and scope agree.")
    return check


verifier("load_view_tko")(_view_access("load"))
verifier("store_view_tko")(_view_access("store"))
