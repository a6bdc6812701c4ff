"""Views (spec group "Views"): tensor views, tiled views, and loads/stores through them.

A load or store through a tiled view computes, for every element of the tile, its tensor
coordinates, then its byte address ``base + size * sum(coord[d] * stride[d])`` and whether
it lies inside the tensor:

* partition view: tile dimension k runs along tensor dimension ``dim_map[k]`` from
  ``index[k] * tile_shape[k]``; strided view: from ``index[k] * traversal_strides[k]``;
* gather/scatter view: along `sparse_dim` the coordinates are the index tile's elements,
  along every other dimension k they run from ``index[k]``.

Indices are read as unsigned integers.  An index outside the view's index space is
undefined behaviour (gather indices themselves may be out of bounds).  Out-of-bounds
elements of a load yield the view's padding value (0 when it has none: the spec leaves
them unspecified); those of a store are not written.  A dimension marked ``inbounds``
(13.4) promises that no element is out of bounds along it; breaking it is undefined.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...enums import PaddingValue
from ...numerics import as_unsigned, from_words, numpy_dtype, unsigned_int
from ...numerics.convert import float_format
from ...numerics.formats import FloatFormat
from ...types import (FloatType, GatherScatterViewType, PartitionViewType, StridedViewType,
                      TensorViewType)
from ..memory import element_bits
from ..pointers import to_byte_address
from ..step import Step
from ..values import TensorView, TiledView, Token
from .common import group_types, named_operands, op_facts, single, step_slices
from .memory import checked_access, fill, size_of
from .registry import semantics

#: Each padding value's code in a float format (magnitude and sign), or None where the
#: format has no such value: no zero without subnormals (f8E8M0FNU's code 0 is 2**-127),
#: no -0 unsigned, no NaN in f4E2M1FN, no infinities but in IEEE-like formats.  Exact
#: values, never a conversion's: ftof's saturation would make f8E4M3FN's NaN 448.
PADDING: dict[PaddingValue, Any] = {
    PaddingValue.ZERO: lambda f: 0 if f.subnormals else None,
    PaddingValue.NEG_ZERO: lambda f: 1 << f.sign_shift if f.subnormals and f.signed else None,
    PaddingValue.NAN: lambda f: f.nan_code,
    PaddingValue.POS_INF: lambda f: f.inf_code,
    PaddingValue.NEG_INF: lambda f: None if f.inf_code is None or not f.signed
    else f.inf_code | 1 << f.sign_shift,
}


def padding_code(padding: PaddingValue, fmt: FloatFormat) -> int | None:
    """The storage word of `padding` in float format `fmt`, or None if it has none."""
    code = PADDING[padding](fmt)
    return None if code is None else code << fmt.container_shift


@semantics("make_tensor_view")
def make_tensor_view(step: Step, *operands: Any) -> TensorView:
    """A tensor view at `base`; each ``?`` of the type takes the next dynamic operand, read
    as an unsigned integer of its element type (spec: sizes and strides are unsigned and
    strictly positive; zero is undefined behaviour)."""
    t, base_at, shape_at, strides_at = op_facts(step, _tensor_view_facts)
    pointer = int(np.asarray(operands[base_at] if base_at is not None else None, np.int64)
                  .view(np.uint64))
    base = to_byte_address(pointer, t.element_type)  # 4-bit pointees: nibble address
    dynamic_shape = iter([unsigned_int(operands[i], e) for i, e in shape_at])
    dynamic_strides = iter([unsigned_int(operands[i], e) for i, e in strides_at])
    shape = tuple(next(dynamic_shape) if d is None else d for d in t.shape)
    strides = tuple(next(dynamic_strides) if s is None else s for s in t.strides)
    if step.checks:
        if any(d <= 0 for d in shape):
            raise step.undefined(f"makes a tensor view with a zero extent: shape "
                                 f"{list(shape)}", "tensor view sizes must be strictly "
                                 "positive (an empty array or slice makes none)")
        if any(s <= 0 for s in strides):
            raise step.undefined(f"makes a tensor view with a zero stride: strides "
                                 f"{list(strides)}", "tensor view strides must be strictly "
                                 "positive (a broadcast or expanded array has stride 0)")
        nibbles = element_bits(t.element_type) == 4
        if nibbles and not any(s == 1 and d % 2 == 0 for d, s in zip(shape, strides)):
            raise step.fail(f"makes a tensor view of {t.element_type} without a unit-stride "
                            f"dimension of even extent: shape {list(shape)}, strides "
                            f"{list(strides)}")
        if nibbles and pointer % 2:
            raise step.fail(f"makes a tensor view of {t.element_type} at the high nibble of "
                            f"byte {base:#x} (packed data starts at a byte, spec 5.2.1)")
        size = size_of(step, t.element_type)
        if base % size:
            raise step.fail(f"makes a tensor view at misaligned address {base:#x} "
                            f"(element size {size})")
    return TensorView(base, shape, strides, t.element_type)


def _tensor_view_facts(step: Step) -> tuple[TensorViewType, int | None,
                                            list[tuple[int, Any]], list[tuple[int, Any]]]:
    """What `make_tensor_view` reads from its op: the result type, the base operand's
    index (None: absent), and the index and element type of each dynamic shape and
    stride operand, in order."""
    groups = {name: (start, end) for name, start, end in step_slices(step)}
    declared = step.op.operands
    start, end = groups.get("base", (0, 0))

    def dynamic(name: str) -> list[tuple[int, Any]]:
        return [(i, declared[i].type.element_type) for i in range(*groups[name])]
    return (step.result_type(0), start if end > start else None, dynamic("dynamicShape"),
            dynamic("dynamicStrides"))


@semantics("make_partition_view", "make_strided_view", "make_gather_scatter_view")
def make_view(step: Step, tensor: TensorView) -> TiledView:
    """A tiled view of `tensor` as the result type describes it."""
    return TiledView(tensor, step.result_type(0))


@semantics("get_tensor_shape")
def get_tensor_shape(step: Step, view: TensorView) -> tuple[np.ndarray, ...] | np.ndarray:
    """The tensor view's extents, one scalar per dimension."""
    return _scalars(step, view.shape)


@semantics("get_index_space_shape")
def get_index_space_shape(step: Step, view: Any) -> tuple[np.ndarray, ...] | np.ndarray:
    """The extents of the view's index space, one scalar per dimension."""
    shape = () if isinstance(view, TensorView) else view.index_space_shape
    return _scalars(step, shape)


def _scalars(step: Step, values: tuple[int, ...]) -> Any:
    """One rank-0 tile per value, typed as the op's results."""
    out = tuple(np.array(v).astype(numpy_dtype(r.type.element_type))
                for v, r in zip(values, step.op.results))
    return out[0] if len(out) == 1 else out


def _unsigned(value: np.ndarray, t: Any) -> np.ndarray:
    """An index read as an unsigned integer, held in int64 (huge values saturate)."""
    a = np.asarray(value)
    width = t.element_type.width
    if width <= 32 and a.dtype.kind in "biu":     # below 2**32: its low bits, as they are
        return a.astype(np.int64) & ((1 << width) - 1)
    u = as_unsigned(a, t.element_type).astype(np.uint64)
    return np.minimum(u, np.uint64(2**62)).astype(np.int64)


def tile_coordinates(step: Step, view: Any, indices: list[np.ndarray], index_types: list[Any],
                     tile_shape: tuple[int, ...], batch: tuple[int, ...] = ()
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, list]:
    """Byte addresses of every element of the tile at `indices`, their nibbles (4-bit
    types, else None), the in-bounds mask, and the per-dimension out-of-bounds masks (for
    ``inbounds``).

    Indices may carry leading batch axes (one tile per batch element, as the batched
    engine gives them); so then do the results, whose leading axes are the indices' batch
    shape broadcast with `batch`."""
    tensor = view if isinstance(view, TensorView) else view.tensor
    vt = None if isinstance(view, TensorView) else view.type
    rank = len(tile_shape)
    idx = [_unsigned(v, t) for v, t in zip(indices, index_types)]
    lead = np.broadcast_shapes(batch, *(np.shape(i)[:np.ndim(i) - t.rank]
                                        for i, t in zip(idx, index_types)))
    full = tuple(lead) + tuple(tile_shape)
    space = () if vt is None else view.index_space_shape
    dim_map = getattr(vt, "dim_map", None) or tuple(range(rank))
    inside = np.ones(full, bool)
    outside_by_dim = []
    terms = []          # (in-bounds coordinates, stride) per dimension
    for k in range(rank):
        shape = [1] * rank
        shape[k] = tile_shape[k]
        lane = np.arange(tile_shape[k], dtype=np.int64).reshape(shape)
        d = dim_map[k]
        if isinstance(vt, GatherScatterViewType) and k == vt.sparse_dim:
            coord = np.broadcast_to(idx[k], lead + (tile_shape[k],)).reshape(lead + tuple(shape))
        else:
            i = np.broadcast_to(idx[k], lead).reshape(lead + (1,) * rank) if idx else \
                np.zeros((), np.int64)
            if idx and step.checks and np.any(i >= space[k]):
                bad = int(i.reshape(-1)[np.argmax(i.reshape(-1) >= space[k])])
                raise step.undefined(
                    f"index {bad} in dimension {k} is outside the index space {list(space)}",
                    "a tile index must lie in the view's index space; padding fills only "
                    "the elements of such a tile that lie past the tensor's edge, never a "
                    "tile wholly outside it")
            coord = i * START_STEP.get(type(vt), lambda vt, k, size: 1)(vt, k, tile_shape[k]) \
                + lane
        ok = coord < tensor.shape[d]
        outside_by_dim.append(~np.broadcast_to(ok, full))
        inside &= ok
        terms.append((np.where(ok, coord, 0), tensor.strides[d]))
    nibbles = element_bits(tensor.element_type) == 4
    size = 1 if nibbles else size_of(step, tensor.element_type)
    _check_reach(step, tensor, terms, size, nibbles)
    offset = np.zeros(full, np.int64)
    for coord, stride in terms:
        offset = offset + coord * stride
    if nibbles:
        return tensor.base + offset // 2, offset % 2, inside, outside_by_dim
    return tensor.base + offset * size, None, inside, outside_by_dim


def _check_reach(step: Step, tensor: TensorView, terms: list[tuple[np.ndarray, int]],
                 size: int, nibbles: bool) -> None:
    """The farthest element an access reaches must be addressable in 64 bits: a GPU's
    address arithmetic wraps past 2**64 (a huge stride lands anywhere, in another buffer
    too), so offsets that overflow are undefined behaviour, reported even with checks off
    (NumPy's int64 arithmetic would wrap the same way, silently).  Strides are positive,
    so the farthest element takes each dimension's largest in-bounds coordinate; the
    bound is taken in Python ints, where nothing wraps, and only for a view whose whole
    extent is not plainly addressable."""
    extent = sum((n - 1) * stride for n, stride in zip(tensor.shape, tensor.strides))
    if tensor.base + (extent // 2 if nibbles else extent * size) < 1 << 62:
        return                  # (the usual case: every element of the view is addressable)
    reach = sum(int(np.max(coord, initial=0)) * stride for coord, stride in terms)
    farthest = tensor.base + (reach // 2 if nibbles else reach * size)
    if farthest >= 1 << 63:
        raise step.undefined(
            f"reaches byte {farthest:#x} (base {tensor.base:#x}, shape "
            f"{list(tensor.shape)}, strides {list(tensor.strides)}): the view's address "
            "arithmetic overflows 64 bits",
            "every address a view computes must be representable; one that wraps past "
            "2**64 lands anywhere")


def view_base(view: Any) -> int:
    """The base (byte) address of a tensor view or of the tensor under a tiled view: the
    allocation its accesses must stay in."""
    return (view if isinstance(view, TensorView) else view.tensor).base


#: How far apart consecutive indices of a view's dimension k start, in elements (a tensor
#: view and a gather/scatter view's dense dimensions: 1).
START_STEP = {
    PartitionViewType: lambda vt, k, size: size,
    StridedViewType: lambda vt, k, size: vt.traversal_strides[k],
}


def view_tile(step: Step, view: Any, indices: list[np.ndarray], shape: Sequence[int],
              lead: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """What every access through a view starts with: the byte addresses (and nibbles) of
    the tile of `shape` at the op's `indices`, its in-bounds mask, and, with checks on,
    the op's ``inbounds`` dimensions checked."""
    addresses, nibbles, inside, outside = tile_coordinates(
        step, view, indices, group_types(step, "index"), shape, lead)
    if step.checks:
        _check_inbounds(step, outside)
    return addresses, nibbles, inside


def inbounds_flags(op: Any, rank: int) -> list[bool]:
    """Per dimension of a view access of `rank` dimensions: whether the op marks it
    ``inbounds`` (no element of the tile past the tensor's extent along it)."""
    attr = op.attributes.get("inbounds")
    flags = getattr(attr, "values", None) or getattr(attr, "elements", None) or ()
    marked = [bool(getattr(flag, "value", flag)) for flag in flags][:rank]
    return marked + [False] * (rank - len(marked))


def _check_inbounds(step: Step, outside_by_dim: list[np.ndarray]) -> None:
    """A dimension marked ``inbounds`` must have no out-of-bounds element."""
    for k, marked in enumerate(inbounds_flags(step.op, len(outside_by_dim))):
        if marked and outside_by_dim[k].any():
            raise step.fail(f"marks dimension {k} inbounds but the tile leaves the tensor "
                            "along it")


def padding_value(step: Step, view: Any, t: Any, inside: np.ndarray | None) -> np.ndarray | None:
    """The view's padding value as a scalar of element type `t`, or None.  A value `t`
    cannot hold (``pos_inf`` in f8E4M3FN, ``zero`` in f8E8M0FNU) is an error once an
    element needs it: the spec gives such an element no value, and tileir invents none."""
    padding = getattr(getattr(view, "type", None), "padding_value", None)
    if padding is None:
        return None
    if not isinstance(t, FloatType):        # (the verifier allows only zero)
        return np.zeros((), numpy_dtype(t))
    code = padding_code(padding, float_format(t))
    if code is not None:
        return from_words(np.array(code), t)
    if inside is None or bool(np.all(inside)):
        return None                         # (no element is padded)
    raise step.fail(f"pads an element past the tensor's edge with {padding.keyword}, which "
                    f"{t} cannot hold: the element has no value")


@semantics("load_view_tko")
def load_view_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Load the tile at the given index of the view."""
    groups = named_operands(step, operands)
    view, token = single(groups, "view"), single(groups, "token")
    result = step.result_type(0)
    addresses, nibbles, inside = view_tile(step, view, groups["index"], result.shape)
    t = result.element_type
    result_token = checked_access(step, addresses, t, inside, False, token, view_base(view))
    values = step.machine.memory.load(addresses, t, inside, nibbles)
    return fill(values, inside, padding_value(step, view, t, inside)), result_token


@semantics("store_view_tko")
def store_view_tko(step: Step, *operands: Any) -> Token:
    """Store the tile at the given index of the view (out-of-bounds elements skipped)."""
    groups = named_operands(step, operands)
    tile, view, token = single(groups, "tile"), single(groups, "view"), single(groups, "token")
    tile_type = step.op.operands[0].type
    lead = np.shape(tile)[:np.ndim(tile) - tile_type.rank]     # a batch of tiles
    addresses, nibbles, inside = view_tile(step, view, groups["index"], tile_type.shape, lead)
    t = tile_type.element_type
    result_token = checked_access(step, addresses, t, inside, True, token, view_base(view))
    step.machine.memory.store(addresses, tile, t, inside, nibbles)
    return result_token


__all__ = ["PADDING", "padding_value", "tile_coordinates", "view_base", "view_tile"]
