"""Batched versions of the ops whose reference semantics read the tile block id or take
scalar view indices; every other op runs its reference semantics on arrays with a
leading block axis."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...numerics import numpy_dtype
from ...types import I1, PartitionViewType
from ..memory import element_bits
from ..semantics import SEMANTICS
from ..semantics.common import group_types, named_operands, op_facts, single
from ..semantics.memory import size_of
from ..semantics.views import _unsigned
from ..step import Step
from ..values import FRESH_TOKEN, TiledView, Token
from .footprints import Box

BATCHED: dict[str, Callable[..., Any]] = {}

#: Up to this many tile blocks `_affine` reads their values as Python ints.
_FEW = 64

#: Loads of at most this many bytes (over the span's blocks) copy their tiles out of
#: memory; larger ones return views of it (copied only when memory under them is written).
COPY_BYTES = 1 << 15


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
    """Each tile block's (x, y, z) coordinates, along the block axis (as i32 tiles: every
    grid extent is below 2**31, so every coordinate is an i32 value as it stands)."""
    return step.machine.block_ids


def _affine(values: np.ndarray, grid: tuple[int, int, int]) -> tuple[int, ...] | None:
    """(c0, cx, cy, cz) when every tile block's value is c0 + cx*x + cy*y + cz*z, for the
    blocks of a box of extents `grid` in grid order (x, y, z counted from the box's first
    block), else None."""
    flat = np.asarray(values, np.int64).reshape(-1)
    gx, gy, gz = grid
    if flat.size != gx * gy * gz:
        return None
    if flat.size <= _FEW:       # a few blocks: Python's ints beat NumPy's calls
        return _affine_listed(flat.tolist(), grid)
    cube = flat.reshape(gz, gy, gx)
    c0 = int(cube[0, 0, 0])
    cx = int(cube[0, 0, 1]) - c0 if gx > 1 else 0
    cy = int(cube[0, 1, 0]) - c0 if gy > 1 else 0
    cz = int(cube[1, 0, 0]) - c0 if gz > 1 else 0
    x = np.arange(gx, dtype=np.int64)
    y = np.arange(gy, dtype=np.int64).reshape(-1, 1)
    z = np.arange(gz, dtype=np.int64).reshape(-1, 1, 1)
    if not np.array_equal(cube, c0 + cx * x + cy * y + cz * z):
        return None
    return c0, cx, cy, cz


def _affine_listed(listed: list[int], grid: tuple[int, int, int]) -> tuple[int, ...] | None:
    """`_affine` of the values as a list of Python ints (as many as the box's blocks)."""
    gx, gy, gz = grid
    c0 = listed[0]
    cx = listed[1] - c0 if gx > 1 else 0
    cy = listed[gx] - c0 if gy > 1 else 0
    cz = listed[gx * gy] - c0 if gz > 1 else 0
    values = iter(listed)
    for z in range(gz):
        for y in range(gy):
            for x in range(gx):
                if next(values) != c0 + cx * x + cy * y + cz * z:
                    return None
    return c0, cx, cy, cz


def _affine_index(value: np.ndarray, t: Any, grid: tuple[int, int, int], count: int
                  ) -> tuple[int, ...] | None:
    """`_affine` of an index operand (of tile type `t`, one value or one per block of the
    span) read as an unsigned integer, as `semantics.views` reads indices."""
    a = np.asarray(value)
    width = t.element_type.width
    if a.dtype.kind in "biu" and (a.size == 1 or a.size == count <= _FEW):
        low = (1 << width) - 1          # (its low bits: the unsigned reading)
        listed = [v & low for v in a.reshape(-1).tolist()]
        if len(listed) == 1:            # the same in every block
            return listed[0], 0, 0, 0
        return _affine_listed(listed, grid)
    index = _unsigned(a, t)
    if index.shape != (count,):
        index = np.broadcast_to(index, (count,))
    return _affine(index, grid)


def _element_facts(step: Step) -> tuple[Any, int | None, np.dtype | None, tuple[int, ...]]:
    """What `window` reads from a view op: the view operand's declared type (None when it
    is no partition view), its element size in bytes (None for elements under a byte,
    which no window reaches), the dtype a window holds them in (bytes for i1), and its
    dim map (empty: the identity)."""
    view_type = next((v.type for v in step.op.operands
                      if isinstance(v.type, PartitionViewType)), None)
    if view_type is None:
        return None, None, None, ()
    element = view_type.tensor_view.element_type
    if element_bits(element) < 8:
        return view_type, None, None, ()
    dtype = numpy_dtype(element)
    return view_type, size_of(step, element), \
        np.dtype(np.uint8) if dtype == np.bool_ else dtype, tuple(view_type.dim_map or ())


def window(step: Step, view: Any, indices: list[np.ndarray], index_types: list[Any],
           tile_shape: tuple[int, ...]) -> tuple[np.ndarray, Box | None] | None:
    """Every tile block's tile as one strided window onto the buffer (writable), and its
    footprint in dense numbers (None when nothing is logged), when the view is
    a partition view of whole tiles indexed affinely by the tile block id and the tiles
    all lie inside the tensor and inside one mapped buffer at aligned addresses (so no
    check of the reference path can fail); else None."""
    machine = step.machine
    if not isinstance(view, TiledView) or \
            not isinstance(view.type, PartitionViewType):
        return None
    tensor = view.tensor
    declared, size, dtype, dim_map = op_facts(step, _element_facts)
    if size is None or (view.type is not declared and view.type != declared):
        return None
    grid = machine.span.shape
    rank = len(tile_shape)
    dim_map = dim_map or tuple(range(rank))
    offset = 0
    block_strides = [0, 0, 0]
    for k, (value, t) in enumerate(zip(indices, index_types)):
        coefficients = _affine_index(value, t, grid, machine.count)
        if coefficients is None:
            return None
        c0, *per_axis = coefficients
        first, last = c0, c0 + sum(c * (g - 1) for c, g in zip(per_axis, grid) if c > 0)
        lowest = c0 + sum(c * (g - 1) for c, g in zip(per_axis, grid) if c < 0)
        d = dim_map[k]
        if lowest < 0 or (last + 1) * tile_shape[k] > tensor.shape[d]:
            return None         # a partial tile or an index past the space: the slow path
        step_bytes = tile_shape[k] * tensor.strides[d] * size
        offset += first * step_bytes
        for axis, c in enumerate(per_axis):
            block_strides[axis] += c * step_bytes
    lane_strides = [tensor.strides[dim_map[k]] * size for k in range(rank)]
    shape = (grid[2], grid[1], grid[0]) + tuple(tile_shape)
    strides = (block_strides[2], block_strides[1], block_strides[0]) + tuple(lane_strides)
    box = Box(tensor.base + offset, shape, strides, size, machine.span.first)
    buffer = machine.memory.buffer_at(box.lo)
    if buffer is None or box.hi > buffer.base + buffer.size or box.start % size or \
            (box.start - buffer.base) % size or \
            not buffer.base <= tensor.base < buffer.base + buffer.size:
        return None         # (outside the allocation of the view's base: the slow path)
    data = buffer.data
    typed = data[:data.size - data.size % size].view(dtype)
    first = (box.start - buffer.base) // size
    if typed.flags.writeable:   # (the constructor is several times cheaper than as_strided)
        whole = np.ndarray(shape, typed.dtype, typed, first * size, strides)
    else:
        whole = np.lib.stride_tricks.as_strided(typed[first:], shape, strides, writeable=True)
    if machine.races is None:
        return whole, None                                  # (nothing is logged)
    shift = machine.memory.dense_number(buffer.base) - buffer.base
    return whole, box.moved(shift)      # (footprints: dense numbers)


@batched("load_view_tko")
def load_view_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Every tile block's tile through one window when `window` applies, else the
    reference semantics (which take indices with the block axis)."""
    groups = named_operands(step, operands)
    result = step.result_type(0)
    found = _window(step, groups, result.shape)
    if found is None:
        return SEMANTICS["load_view_tko"](step, *operands)
    whole, box = found
    token = _log(step, groups, box, False)
    values = whole.reshape((step.machine.count,) + tuple(result.shape))
    if result.element_type == I1:
        return values != 0, token
    if values.nbytes <= COPY_BYTES:     # small: a copy costs less than `unshare`'s scans
        return np.array(values), token
    # A read-only view of memory, not a copy: a later write copies the values that view
    # it first (`BatchMachine.unshare`).
    values = values.view()
    values.flags.writeable = False
    step.machine.views = True
    return values, token


@batched("store_view_tko")
def store_view_tko(step: Step, *operands: Any) -> Token:
    """Every tile block's tile through one window when `window` applies, else the
    reference semantics."""
    groups = named_operands(step, operands)
    shape = tuple(step.op.operands[0].type.shape)
    found = _window(step, groups, shape)
    if found is None:
        return SEMANTICS["store_view_tko"](step, *operands)
    whole, box = found
    token = _log(step, groups, box, True)
    tile = single(groups, "tile")
    step.machine.memory.writing(whole)
    whole[...] = np.broadcast_to(tile, (step.machine.count,) + shape).reshape(whole.shape)
    return token


def _window(step: Step, groups: dict[str, list[Any]], tile_shape: tuple[int, ...]
            ) -> tuple[np.ndarray, Box | None] | None:
    """`window` for a view access whose operands vary between tile blocks."""
    if not _varying(step):
        return None
    index_types = group_types(step, "index")
    return window(step, single(groups, "view"), groups["index"], index_types, tile_shape)


def _log(step: Step, groups: dict[str, list[Any]], box: Box | None, write: bool) -> Token:
    """The access's result token: logged for the race checks when they are kept (checks
    on, or between blocks with checks off), else its input token."""
    token = single(groups, "token")
    if step.machine.races is not None:
        return step.machine.log(step, box, write, token)
    return token if token is not None else FRESH_TOKEN


__all__ = ["BATCHED", "window"]
