"""Semantics of the core ops (spec groups "Core" and "Misc" without memory or regions):
constants, shape changes, subtiles, ``pack`` / ``unpack``, grid queries, pointer offsets
and ``get_global`` (``assume`` is in misc.py, reduce and scan in regions.py).

Tiles are row-major NumPy arrays.  Any leading axes an array has beyond its tile's rank
are batch axes (a later engine runs all tile blocks at once): functions find them as
``value.ndim - rank`` and count tile dimensions from the end.  Undefined behaviour
reported when checks are on: an ``extract`` / ``insert`` index naming no subtile, an
``offset`` that wraps and an ``iota`` longer than its element type counts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ...attributes import DenseElementsAttr
from ...numerics import (as_signed, as_unsigned, from_integers, int_range, pack,
                         unpack)
from ...types import I1, I32, TileType
from ..memory import REGION_BITS
from ..step import Step
from .common import element_array, first_index
from .registry import semantics
from .scalar import scalar_of


def _tile(step: Step, operand: int) -> TileType:
    """The declared tile type of operand `operand`."""
    return step.op.operands[operand].type


def _batch(value: np.ndarray, tile: TileType) -> int:
    """How many leading batch axes `value` has beyond the rank of `tile`."""
    return np.ndim(value) - tile.rank



# ---- constants and grid queries ---------------------------------------------------


@lru_cache(maxsize=256)
def dense_values(attr: DenseElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a (read-only, cached) array of its element
    type, shaped as its tile type; a splat fills the tile."""
    values = element_array(attr.values, attr.element_type)
    tile = np.broadcast_to(values, (attr.type.num_elements,)).reshape(attr.type.shape).copy()
    tile.flags.writeable = False
    return tile


@semantics("constant")
def constant(step: Step) -> np.ndarray:
    """``constant``: the tile its dense value attribute spells (a splat fills the tile)."""
    return dense_values(step.op.attr("value")).copy()


@scalar_of(constant)
def _constant_scalar(op: Any) -> Callable[[], np.ndarray]:
    """``constant`` without operands, so always on its path (`scalar`): the attribute is
    decoded once per plan instead of looked up at every run; each run gets its own copy."""
    values = dense_values(op.attr("value"))

    def run() -> np.ndarray:
        """A fresh copy of the constant's tile."""
        return values.copy()
    return run


def _i32_scalars(values: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Rank-0 i32 tiles holding `values`."""
    return tuple(from_integers(np.array(v, dtype=np.int64), I32) for v in values)


@semantics("get_tile_block_id")
def get_tile_block_id(step: Step) -> tuple[np.ndarray, ...]:
    """``get_tile_block_id``: the running tile block's (x, y, z) coordinates."""
    return _i32_scalars(tuple(step.block_id))


@semantics("get_num_tile_blocks")
def get_num_tile_blocks(step: Step) -> tuple[np.ndarray, ...]:
    """``get_num_tile_blocks``: the grid's extent in x, y and z."""
    return _i32_scalars(tuple(step.grid))


@semantics("iota")
def iota(step: Step) -> np.ndarray:
    """``iota``: 0, 1, ..., n - 1 (unsigned values); a length its type cannot count is UB."""
    result = step.result_type(0)
    n = result.shape[0]
    _, most = int_range(result.element_type, signed=False)
    if step.checks and n - 1 > most:
        raise step.fail(f"produces values up to {n - 1}, more than {result.element_type} "
                        f"holds unsigned ({most}; undefined behaviour)")
    return from_integers(np.arange(n, dtype=np.int64), result.element_type)


# ---- shape changes ----------------------------------------------------------------


@semantics("broadcast")
def broadcast(step: Step, source: np.ndarray) -> np.ndarray:
    """``broadcast``: every size-1 dimension repeated to the result's extent."""
    nb = _batch(source, _tile(step, 0))
    shape = np.shape(source)[:nb] + tuple(step.result_type(0).shape)
    return np.broadcast_to(source, shape).copy()


@semantics("reshape")
def reshape(step: Step, source: np.ndarray) -> np.ndarray:
    """``reshape``: the same elements in row-major order, in the result's shape."""
    nb = _batch(source, _tile(step, 0))
    return np.reshape(source, np.shape(source)[:nb] + tuple(step.result_type(0).shape)).copy()


@semantics("permute")
def permute(step: Step, source: np.ndarray) -> np.ndarray:
    """``permute``: result dimension i is source dimension ``permutation[i]``."""
    nb = _batch(source, _tile(step, 0))
    order = [int(p) for p in step.op.attr("permutation").values]
    return np.ascontiguousarray(np.transpose(source, list(range(nb)) + [nb + p for p in order]))


@semantics("cat")
def cat(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``cat``: `lhs` then `rhs` along dimension ``dim``."""
    dim = int(step.op.enum("dim"))
    return np.concatenate((lhs, rhs), axis=dim - _tile(step, 0).rank)


@semantics("select")
def select(step: Step, cond: np.ndarray, if_true: np.ndarray,
           if_false: np.ndarray) -> np.ndarray:
    """``select``: `if_true` where `cond` is 1, `if_false` where it is 0."""
    return np.where(np.asarray(cond, dtype=bool), if_true, if_false)


@scalar_of(select)
def _select_scalar(op: Any) -> Callable[..., np.ndarray | None] | None:
    """``select`` of rank-0 tiles (any element type: nothing is computed) on its path
    (`scalar`): a copy of the chosen value, bit for bit."""
    t = op.results[0].type if len(op.results) == 1 else None
    if not (isinstance(t, TileType) and t.rank == 0 and len(op.operands) == 3
            and op.operands[0].type == TileType((), I1)
            and op.operands[1].type == t and op.operands[2].type == t):
        return None

    def run(cond: np.ndarray, if_true: np.ndarray, if_false: np.ndarray
            ) -> np.ndarray | None:
        """The result, or None (an operand with lanes or a block axis)."""
        if cond.shape or if_true.shape or if_false.shape:
            return None
        return np.array(if_true if cond else if_false)
    return run


# ---- subtiles ----------------------------------------------------------------------


def _subtile_index(step: Step, whole: tuple[int, ...], part: tuple[int, ...], nb: int,
                   batch: tuple[int, ...], indices: tuple[np.ndarray, ...]) -> tuple:
    """NumPy index of subtile number `indices` (read unsigned) of shape `part` in a tile
    of shape `whole`, for values with `nb` batch axes of extents `batch`.

    An index naming no subtile is undefined behaviour; with checks off it wraps around.
    """
    rank = len(part)
    where: list[np.ndarray] = [
        np.arange(extent).reshape((extent,) + (1,) * (nb - 1 - k + rank))
        for k, extent in enumerate(batch)]
    for d, (index, size, extent) in enumerate(zip(indices, part, whole)):
        number = as_unsigned(index, I32).astype(np.int64)
        count = extent // size
        if step.checks and np.any(number >= count):
            bad = int(np.max(number))
            raise step.fail(f"index {bad} in dimension {d} names no subtile: there are "
                            f"{count} subtiles of size {size} (undefined behaviour)")
        first = (number % count) * size
        first = np.reshape(first, np.shape(first) + (1,) * rank)
        where.append(first + np.arange(size).reshape((size,) + (1,) * (rank - 1 - d)))
    return tuple(where)


@semantics("extract")
def extract(step: Step, source: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    """``extract``: subtile number `indices` (not element offsets) of the result's shape."""
    tile = _tile(step, 0)
    nb = _batch(source, tile)
    part = tuple(step.result_type(0).shape)
    if not part:
        return np.array(source, copy=True)
    index = _subtile_index(step, tuple(tile.shape), part, nb, np.shape(source)[:nb], indices)
    return np.asarray(source)[index]


@semantics("insert")
def insert(step: Step, source: np.ndarray, destination: np.ndarray,
           *indices: np.ndarray) -> np.ndarray:
    """``insert``: `destination` with subtile number `indices` replaced by `source`."""
    tile = _tile(step, 1)
    nb = _batch(destination, tile)
    result = np.array(destination, copy=True)
    part = tuple(_tile(step, 0).shape)
    if not part:
        return np.array(np.broadcast_to(source, result.shape), copy=True)
    index = _subtile_index(step, tuple(tile.shape), part, nb, result.shape[:nb], indices)
    result[index] = source
    return result


# ---- whole-tile byte reinterpretation -----------------------------------------------


@semantics("pack")
def pack_tile(step: Step, source: np.ndarray) -> np.ndarray:
    """``pack``: a rank-1 tile reinterpreted as its bytes, little-endian (sub-byte types:
    the lower index in the lower bits, spec 5.2.2); a leading batch axis packs each row."""
    a = np.asarray(source)
    packed = pack(a.reshape(-1), _tile(step, 0).element_type)
    return packed.reshape(a.shape[:-1] + (-1,))


@semantics("unpack")
def unpack_tile(step: Step, source: np.ndarray) -> np.ndarray:
    """``unpack``: a rank-1 byte tile reinterpreted as elements of the result type (the
    inverse of ``pack``); a leading batch axis unpacks each row."""
    a = np.asarray(source)
    values = unpack(a.reshape(-1), step.result_type(0).element_type)
    return values.reshape(a.shape[:-1] + (-1,))


# ---- pointers ------------------------------------------------------------------------

_INT64_MAX = (1 << 63) - 1


@semantics("offset")
def offset(step: Step, ptr: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``offset``: ``ptr + offset * size`` with the pointee's storage size in bytes (the
    offset read signed, the address unsigned); a product that wraps (signed) or a sum that
    wraps (unsigned) is undefined behaviour.  A pointer to a 4-bit pointee holds a nibble
    address (`tileir.interp.pointers`), so there the size is 1 nibble: an odd offset
    reaches the other nibble of a byte (spec 5.2.1: base pointer plus iota offsets)."""
    pointee = step.result_type(0).element_type.pointee
    bits = pointee.info.storage_bits
    n = as_signed(count, _tile(step, 1).element_type)
    size = max(bits // 8, 1)  # 4-bit pointees: one nibble per element
    unit = "nibbles" if bits == 4 else "bytes"
    product = n * size
    wraps = (n > _INT64_MAX // size) | (n < -(_INT64_MAX // size) - 1)
    if step.checks and np.any(wraps):
        raise step.fail(f"offset {int(np.asarray(n)[tuple(first_index(wraps))])} times {size} "
                        f"{unit} overflows a signed 64-bit integer (undefined behaviour)")
    base = np.asarray(ptr, dtype=np.int64).view(np.uint64)
    moved = base + np.asarray(product, dtype=np.int64).view(np.uint64)
    if step.checks:
        wraps = ((product > 0) & (moved < base)) | ((product < 0) & (moved > base))
        if np.any(wraps):
            at = tuple(first_index(wraps))
            raise step.fail(f"address {int(np.broadcast_to(base, wraps.shape)[at]):#x} "
                            f"advanced by {int(np.broadcast_to(product, wraps.shape)[at])} "
                            f"{unit} wraps around (undefined behaviour)")
        _check_region(step, base, moved, product, unit, REGION_BITS + (bits == 4))
    return np.asarray(moved).view(np.int64)  # 0-d stays an array, not a NumPy scalar


def _check_region(step: Step, base: np.ndarray, moved: np.ndarray, product: np.ndarray,
                  unit: str, shift: int) -> None:
    """A pointer keeps the allocation it came from: its region (`tileir.interp.memory`),
    the address's bits from `shift` up.  Moving it into another allocation's region would
    make it that allocation's pointer, so tileir refuses (not undefined behaviour: a limit
    of the model, met only by moves of 2 TiB or more)."""
    memory = getattr(step.machine, "memory", None)
    if memory is None:
        return              # (an op run on its own, outside a launch: no allocations)
    before, after = base >> np.uint64(shift), moved >> np.uint64(shift)
    crossed = (before != after) & (after >= 1) & (after < memory.regions)
    if not np.any(crossed):
        return
    at = tuple(first_index(crossed))
    start = int(np.broadcast_to(base, crossed.shape)[at])
    names = [memory.name_of_region(int(np.broadcast_to(r, crossed.shape)[at]))
             for r in (before, after)]
    raise step.fail(
        f"moves pointer {start:#x} (in the region of {names[0]}) by "
        f"{int(np.broadcast_to(product, crossed.shape)[at])} {unit} into the region of "
        f"{names[1]}: tileir gives each allocation a region of 2**{REGION_BITS} bytes and "
        "follows no pointer from one allocation's region into another's")


# ---- globals --------------------------------------------------------------------------


@semantics("get_global")
def get_global(step: Step) -> np.ndarray:
    """The address at which the launch mapped the named global."""
    name = step.op.attr("name").name
    address = step.machine.globals.get(name)
    if address is None:
        raise step.fail(f"refers to global @{name}, which the launch did not map")
    return np.array(address, np.int64)
