"""Batched versions of the ops whose reference semantics read the tile block id or take
scalar view indices; every other op runs its reference semantics on arrays with a
leading block axis."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...numerics import from_integers, numpy_dtype
from ...types import I1, I32, GatherScatterViewType, PartitionViewType, StridedViewType
from ..memory import element_bits
from ..semantics import SEMANTICS
from ..semantics.common import named_operands, single
from ..semantics.memory import checked_access, fill, size_of
from ..semantics.views import _check_inbounds, _padding, _unsigned
from ..step import Step
from ..values import FRESH_TOKEN, TensorView, TiledView, Token

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
            i = idx[k].reshape((count,) + (1,) * rank) if idx else \
                np.zeros((count,) + (1,) * rank, np.int64)
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


def _affine(values: np.ndarray, grid: tuple[int, int, int]) -> tuple[int, ...] | None:
    """(c0, cx, cy, cz) when every tile block's value is c0 + cx*x + cy*y + cz*z (blocks in
    grid order), else None."""
    flat = np.asarray(values, np.int64).reshape(-1)
    if flat.size != grid[0] * grid[1] * grid[2]:
        return None
    cube = flat.reshape(grid[2], grid[1], grid[0])
    c0 = int(cube[0, 0, 0])
    cx = int(cube[0, 0, 1]) - c0 if grid[0] > 1 else 0
    cy = int(cube[0, 1, 0]) - c0 if grid[1] > 1 else 0
    cz = int(cube[1, 0, 0]) - c0 if grid[2] > 1 else 0
    z, y, x = np.ogrid[:grid[2], :grid[1], :grid[0]]
    if not np.array_equal(cube, c0 + cx * x + cy * y + cz * z):
        return None
    return c0, cx, cy, cz


def window(step: Step, view: Any, indices: list[np.ndarray], index_types: list[Any],
           tile_shape: tuple[int, ...]) -> np.ndarray | None:
    """Every tile block's tile as one strided window onto the buffer (writable), when the
    view is a partition view of whole tiles indexed affinely by the tile block id, the
    tiles all lie inside the tensor, and no check needs the addresses; else None."""
    machine = step.machine
    if step.checks or not isinstance(view, TiledView) or \
            not isinstance(view.type, PartitionViewType) or not machine.grid_order:
        return None
    tensor = view.tensor
    if element_bits(tensor.element_type) < 8:
        return None
    grid = machine.grid
    rank = len(tile_shape)
    dim_map = view.type.dim_map or tuple(range(rank))
    size = size_of(step, tensor.element_type)
    offset = 0
    block_strides = [0, 0, 0]
    space = view.index_space_shape
    for k, (value, t) in enumerate(zip(indices, index_types)):
        coefficients = _affine(np.broadcast_to(_unsigned(value, t), (machine.count,)), grid)
        if coefficients is None:
            return None
        c0, *per_axis = coefficients
        first, last = c0, c0 + sum(c * (g - 1) for c, g in zip(per_axis, grid) if c > 0)
        lowest = c0 + sum(c * (g - 1) for c, g in zip(per_axis, grid) if c < 0)
        d = dim_map[k]
        if lowest < 0 or last >= space[k] or (last + 1) * tile_shape[k] > tensor.shape[d]:
            return None         # a partial tile or an index past the space: the slow path
        step_bytes = tile_shape[k] * tensor.strides[d] * size
        offset += first * step_bytes
        for axis, c in enumerate(per_axis):
            block_strides[axis] += c * step_bytes
    lane_strides = [tensor.strides[dim_map[k]] * size for k in range(rank)]
    shape = (grid[2], grid[1], grid[0]) + tuple(tile_shape)
    strides = (block_strides[2], block_strides[1], block_strides[0]) + tuple(lane_strides)
    start = tensor.base + offset
    reach = [(n - 1) * s for n, s in zip(shape, strides)]
    lo = start + sum(r for r in reach if r < 0)
    hi = start + sum(r for r in reach if r > 0) + size
    memory = machine.memory
    i = int(np.searchsorted(memory._bases, lo, side="right")) - 1
    if i < 0 or hi > memory._ends[i] or (start - int(memory._bases[i])) % size:
        return None
    data = memory.buffers[i].data
    dtype = numpy_dtype(tensor.element_type)
    typed = data[:data.size - data.size % size].view(np.uint8 if dtype == np.bool_ else dtype)
    first = (start - int(memory._bases[i])) // size
    return np.lib.stride_tricks.as_strided(typed[first:], shape, strides, writeable=True)


@batched("load_view_tko")
def load_view_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Load every tile block's tile (one gather for all of them, or one window)."""
    if not _varying(step):
        return SEMANTICS["load_view_tko"](step, *operands)
    groups = named_operands(step, operands)
    view, token = single(groups, "view"), single(groups, "token")
    result = step.result_type(0)
    index_types = [v.type for v in step.op.operand_group("index")]
    whole = window(step, view, groups["index"], index_types, result.shape)
    if whole is not None:
        values = whole.reshape((step.machine.count,) + tuple(result.shape))
        if result.element_type == I1:
            values = values != 0
        return np.array(values), token if token is not None else FRESH_TOKEN
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
    whole = window(step, view, groups["index"], index_types, tile_type.shape)
    if whole is not None:
        whole[...] = np.broadcast_to(tile, (step.machine.count,) + tuple(tile_type.shape)
                                     ).reshape(whole.shape)
        return token if token is not None else FRESH_TOKEN
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
