"""Verifiers of the views ops (`tileir.ops.views`): building views, querying their shapes,
and loading or storing tiles through them (reference CudaTile.cpp, SharedVerifiers.h)."""

from __future__ import annotations

from math import prod
from typing import Any

from ...enums import MemoryOrderingSemantics as Order
from ...enums import MemoryScope
from ...enums import MultimemReductionKind as Reduction
from ...enums import PointerAttribute
from ...types import (BF16, F16, F32, F64, FloatType, IntegerType, PartitionViewType,
                      TensorViewType, TiledView, TileType, Type, mlir_bit_width,
                      ptr_attr_text, quoted)
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


def multicast_view_error(op: Any, view: Type) -> Failure | None:
    """13.5: only the multimem ops access a multicast-backed view."""
    tensor_view = getattr(view, "tensor_view", None)
    if getattr(tensor_view, "ptr_attr", None) is PointerAttribute.MULTICAST:
        return op_error(op, "multicast ptr_attr is not allowed")
    return None


def _view_access(kind: str):
    """The verifier of a view load (`kind` "load") or store ("store")."""
    def check(op: Any, ctx: Context) -> None:
        named = _groups_named(op)
        failure = view_access_error(op, named) or inbounds_error(op, named) or \
            multicast_view_error(op, named("view")[0].type)
        if failure is not None:
            raise failure
        verify_optimization_hints(op, ctx)
        failure = memory_model_error(op, kind)
        if failure is not None:
            raise failure
    check.__doc__ = (f"A view {kind}: indices and tile fit the view; one inbounds flag per "
                     "index; no multicast view; hints; ordering and scope agree.")
    return check


verifier("load_view_tko")(_view_access("load"))
verifier("store_view_tko")(_view_access("store"))


# ---- 13.5: multimem accesses --------------------------------------------------------------

#: The float element types a multimem access moves.
_MULTIMEM_FLOATS = (F16, BF16, F32, F64)
#: Reductions that need integer elements.
_INTEGER_REDUCTIONS = (Reduction.AND, Reduction.OR, Reduction.XOR, Reduction.UMIN,
                       Reduction.UMAX)


def _multimem_element_error(op: Any, tile: TileType) -> Failure | None:
    """32- or 64-bit integers, or f16, bf16, f32, f64 in tiles of whole 4-byte words."""
    element = tile.element_type
    if isinstance(element, IntegerType):
        if element.width not in (32, 64):
            return op_error(op, f"multimem requires 32- or 64-bit integer/index element "
                                f"types; got {element.width} bits")
        return None
    if not isinstance(element, FloatType):
        return op_error(op, "multimem expects integer, index, or standard floating-point "
                            "tensor elements")
    if element not in _MULTIMEM_FLOATS:
        return op_error(op, "multimem supports only f16, bf16, f32, and f64 floating-point "
                            "element types")
    count = prod(tile.shape)
    width = mlir_bit_width(element) or 0
    if count * width % 32:
        return op_error(op, f"multimem op requires tile total size to be a multiple of 4 "
                            f"bytes for float element types; got {count} element(s) of "
                            f"{width} bits (total {count * width} bits)")
    return None


def _multimem_reduction_error(op: Any, element: Type) -> Failure | None:
    """Integers take every reduction; floats add, and a load-reduce of f16 or bf16 also
    min and max."""
    reduction = op.enum("reduction")
    if reduction is None or not isinstance(element, FloatType) or reduction is Reduction.ADD:
        return None
    if reduction in _INTEGER_REDUCTIONS:
        return op_error(op, "and/or/xor/umin/umax reductions require integer element types")
    if op.opdef.name == "multimem_reduce_view_tko":
        return op_error(op, "supports only add for floating-point element types")
    if element not in (F16, BF16):
        return op_error(op, f"min/max supports f16 and bf16 float types only; got "
                            f"{quoted(element)}")
    return None


def _multicast_error(op: Any, view: Type) -> Failure | None:
    """The view is backed by multicast memory (its tensor_view's ptr_attr), and is a
    partition_view; an f16 or bf16 one has exactly one stride known to be 1."""
    tensor_view = getattr(view, "tensor_view", None)
    ptr_attr = getattr(tensor_view, "ptr_attr", None)
    if ptr_attr is not PointerAttribute.MULTICAST:
        got = ptr_attr.keyword if ptr_attr is not None else "none"
        return op_error(op, f"expected a multicast pointer, but got {got}")
    if not isinstance(view, PartitionViewType):
        return op_error(op, f"multimem view operations support only partition_view; got "
                            f"{quoted(view)}")
    if view.element_type in (F16, BF16):
        unit = sum(stride == 1 for stride in tensor_view.strides)
        if unit != 1:
            return op_error(op, f"f16/bf16 multimem views must have exactly one element "
                                f"stride statically known to equal 1; got {unit}")
    return None


def _multimem_memory_error(op: Any) -> Failure | None:
    """A load-reduce orders as a load, a store as a store; a reduce is relaxed or release."""
    name = op.opdef.name
    if name == "multimem_load_reduce_view_tko":
        return memory_model_error(op, "load")
    if name == "multimem_store_view_tko":
        return memory_model_error(op, "store")
    if op.enum("memory_ordering_semantics") not in (Order.RELAXED, Order.RELEASE):
        return op_error(op, "memory ordering semantics must be one of: relaxed, release")
    return None


@verifier("multimem_load_reduce_view_tko", "multimem_reduce_view_tko",
          "multimem_store_view_tko")
def multimem_view_access(op: Any, ctx: Context) -> None:
    """13.5's multimem accesses, in the order NVIDIA's 13.5 verifier reports: the view
    access rules, the element type, the reduction, a multicast partition_view, the inbounds
    flags, then the ordering and scope."""
    named = _groups_named(op)
    view = named("view")[0].type
    tile = named("reduced_values" if op.opdef.name == "multimem_load_reduce_view_tko"
                 else "tile")[0].type
    if not isinstance(view, TiledView) or not isinstance(tile, TileType):
        return
    for check in (lambda: _view_access_with(op, named, view, tile),
                  lambda: _multimem_element_error(op, tile),
                  lambda: _multimem_reduction_error(op, tile.element_type),
                  lambda: _multicast_error(op, view),
                  lambda: inbounds_error(op, named),
                  lambda: _multimem_memory_error(op)):
        failure = check()
        if failure is not None:
            raise failure


def _view_access_with(op: Any, named: Any, view: TiledView, tile: TileType) -> Failure | None:
    """`view_access_error` with the tile of a multimem access (a load-reduce's result)."""
    def with_tile(name: str) -> list[Any]:
        return [_Typed(tile)] if name == "tile" else named(name)
    return view_access_error(op, with_tile)


class _Typed:
    """Stands for a value of type `type` where only its type is asked for."""

    def __init__(self, type_: Type) -> None:
        self.type = type_
