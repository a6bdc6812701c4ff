"""Batched versions of the ops whose reference semantics read the tile block id or take
scalar view indices; every other op runs its reference semantics on arrays with a
leading block axis."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...numerics import from_integers
from ...types import I32, GatherScatterViewType, PartitionViewType, StridedViewType
from ..memory import element_bits
from ..semantics import SEMANTICS
from ..semantics.common import named_operands, single
from ..semantics.memory import checked_access, fill, size_of
from ..semantics.views import _check_inbounds, _padding, _unsigned
from ..step import Step
from ..values import TensorView, Token

BATCHED: dict[str, Callable[..., Any]] = {}


def batched(name: str):
    def register(fn):
        BATCHED[name] = fn
        return fn
    return register


def _varying(step: Step) -> bool:
    """Whether any operand of the op differs between tile blocks."""
    varying = step.machine.varying
    return any(v in varying for v in step.op.operands)


@batched("get_tile_block_id")
def get_tile_block_id(step: Step) -> tuple[np.ndarray, ...]:
    """Each tile block's (x, y, z) coordinates, along the block axis."""
    blocks = step.machine.blocks
    return tuple(from_integers(blocks[:, k].astype(np.int64), I32) for k in range(3))


def coordinates(step: Step, view: Any, indices: list[np.ndarray], index_types: list[Any],
                tile_shape: tuple[int, ...]
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, list]:
    """`views.tile_coordinates` for every tile block at once: indices carry the block
    axis, and so do the addresses, nibbles and masks returned."""
    count = step.machine.count
    tensor = view if isinstance(view, TensorView) else view.tensor
    vt = None if isinstance(view, TensorView) else view.type
    rank = len(tile_shape)
    full = (count,) + tuple(tile_shape)
    idx = [_unsigned(np.broadcast_to(v, (count,) + np.shape(v)[np.ndim(v) - t.rank:]), t)
           for v, t in zip(indices, index_types)]
    space = () if vt is None else view.index_space_shape
    dim_map = getattr(vt, "dim_map", None) or tuple(range(rank))
    offset = np.zeros(full, np.int64)
    inside = np.ones(full, bool)
    outside_by_dim = []
    for k in range(rank):
        shape = [count] + [1] * rank
        shape[k + 1] = tile_shape[k]
        lane = np.arange(tile_shape[k], dtype=np.int64).reshape(shape[1:])
        d = dim_map[k]
        if isinstance(vt, GatherScatterViewType) and k == vt.sparse_dim:
            coord = idx[k].reshape(shape)
        else:
            i = idx[k].reshape((count,) + (1,) * rank) if idx else np.zeros((count,) + (1,) * rank, np.int64)
            if idx and step.checks and np.any(i >= space[k]):
                raise step.fail(f"index in dimension {k} is outside the index space "
                                f"{list(space)}")
            if isinstance(vt, PartitionViewType):
                start = i * tile_shape[k]
            elif isinstance(vt, StridedViewType):
                start = i * vt.traversal_strides[k]
            else:
                start = i
            coord = start + lane
        ok = coord < tensor.shape[d]
        outside_by_dim.append(~np.broadcast_to(ok, full))
        inside &= ok
        offset = offset + np.where(ok, coord, 0) * tensor.strides[d]
    if element_bits(tensor.element_type) == 4:
        return tensor.base + offset // 2, offset % 2, inside, outside_by_dim
    size = size_of(step, tensor.element_type)
    return tensor.base + offset * size, None, inside, outside_by_dim


@batched("load_view_tko")
def load_view_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Load every tile block's tile (one gather for all of them)."""
    if not _varying(step):
        return SEMANTICS["load_view_tko"](step, *operands)
    groups = named_operands(step, operands)
    view, token = single(groups, "view"), single(groups, "token")
    result = step.result_type(0)
    index_types = [v.type for v in step.op.operand_group("index")]
    addresses, nibbles, inside, outside = coordinates(step, view, groups["index"],
                                                      index_types, result.shape)
    if step.checks:
        _check_inbounds(step, outside)
    t = result.element_type
    result_token = checked_access(step, addresses, t, inside, False, token)
    values = step.machine.memory.load(addresses, t, inside, nibbles)
    return fill(values, inside, _padding(view, t)), result_token


@batched("store_view_tko")
def store_view_tko(step: Step, *operands: Any) -> Token:
    """Store every tile block's tile (one scatter for all of them)."""
    if not _varying(step):
        return SEMANTICS["store_view_tko"](step, *operands)
    groups = named_operands(step, operands)
    tile, view, token = single(groups, "tile"), single(groups, "view"), single(groups, "token")
    tile_type = step.op.operands[0].type
    index_types = [v.type for v in step.op.operand_group("index")]
    addresses, nibbles, inside, outside = coordinates(step, view, groups["index"],
                                                      index_types, tile_type.shape)
    if step.checks:
        _check_inbounds(step, outside)
    t = tile_type.element_type
    result_token = checked_access(step, addresses, t, inside, True, token)
    tile = np.broadcast_to(tile, addresses.shape)
    step.machine.memory.store(addresses, tile, t, inside, nibbles)
    return result_token


__all__ = ["BATCHED", "coordinates"]
