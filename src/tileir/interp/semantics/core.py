"""Semantics of the core ops (spec groups "Core" and "Misc" without memory or regions):
constants, shape changes, subtiles, ``pack`` / ``unpack``, grid queries, pointer offsets
and ``assume``.

Tiles are row-major NumPy arrays.  Any leading axes an array has beyond its tile's rank
are batch axes (a later engine runs all tile blocks at once): functions find them as
``value.ndim - rank`` and count tile dimensions from the end.  Undefined behaviour
reported when checks are on: an ``extract`` / ``insert`` index naming no subtile, an
``offset`` that wraps, an ``iota`` longer than its element type counts, and an ``assume``
whose predicate does not hold.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ...attributes import BoundedAttr, DenseElementsAttr, DivByAttr, SameElementsAttr
from ...numerics import (as_signed, as_unsigned, from_integers, from_words, int_range, pack,
                         unpack)
from ...types import I32, FloatType, PointerType, TileType, Type
from ..pointers import is_nibble_pointee
from ..step import Step
from .common import first_index
from .registry import semantics


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
    element = attr.element_type
    if isinstance(element, FloatType):
        values = from_words(np.array(attr.values, dtype=np.uint64), element)
    else:
        low = [v & ((1 << 64) - 1) for v in attr.values]  # Python ints of any sign
        values = from_integers(np.array(low, dtype=np.uint64), element)  # type: ignore[arg-type]
    tile = np.broadcast_to(values, (attr.type.num_elements,)).reshape(attr.type.shape).copy()
    tile.flags.writeable = False
    return tile


@semantics("constant")
def constant(step: Step) -> np.ndarray:
    """``constant``: the tile its dense value attribute spells (a splat fills the tile)."""
    return dense_values(step.op.attr("value")).copy()


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
    return np.asarray(moved).view(np.int64)  # 0-d stays an array, not a NumPy scalar


# ---- assume --------------------------------------------------------------------------


def _increments(value: np.ndarray, axis: int, every: int, step_size: int,
                signed: bool) -> np.ndarray:
    """Where an element inside a group of `every` along `axis` is not its predecessor plus
    `step_size` (exactly, no wrap-around), for ``div_by<.., every E along A>``."""
    prev = np.take(value, np.arange(np.shape(value)[axis] - 1), axis=axis)
    curr = np.take(value, np.arange(1, np.shape(value)[axis]), axis=axis)
    position = np.arange(1, np.shape(value)[axis]) % every
    inner = (position != 0).reshape((-1,) + (1,) * (-axis - 1))
    if signed:
        exact = (curr - prev == step_size) & (curr > prev)
    else:
        exact = (curr - prev == np.uint64(step_size)) & (curr > prev)
    return inner & ~exact


def _reading(step: Step, value: np.ndarray, element: Type) -> tuple[np.ndarray, bool]:
    """Integers read signed (int64), pointers as unsigned addresses (uint64)."""
    if isinstance(element, PointerType):
        return np.asarray(value, dtype=np.int64).view(np.uint64), False
    return as_signed(value, element), True


def _check_div_by(step: Step, value: Any, predicate: DivByAttr, t: Type) -> str | None:
    """Why `value` breaks ``div_by``, or None."""
    if not isinstance(t, TileType):
        base = getattr(value, "base", None)
        if isinstance(base, (int, np.integer)) and int(base) % predicate.divisor:
            return f"the view's base address {int(base):#x} is not divisible by " \
                   f"{predicate.divisor}"
        return None
    read, signed = _reading(step, value, t.element_type)
    low = as_unsigned(value, t.element_type) if signed else read
    # A 4-bit pointee's pointer is a nibble address: divisible by d means the low nibble
    # of a byte whose address is divisible by d (so the nibble address by 2 d).
    nibbles = isinstance(t.element_type, PointerType) and is_nibble_pointee(
        t.element_type.pointee)
    divisible = low % np.uint64(predicate.divisor * (2 if nibbles else 1)) == 0
    if predicate.every is None or t.rank == 0:
        if not np.all(divisible):
            at = first_index(~divisible)
            return f"element {at} is {read[tuple(at)]}, not divisible by {predicate.divisor}"
        return None
    axis = predicate.along - t.rank
    extent = t.shape[predicate.along]
    starts = np.take(divisible, np.arange(0, extent, predicate.every), axis=axis)
    if not np.all(starts):
        return f"a group start along dimension {predicate.along} is not divisible by " \
               f"{predicate.divisor}"
    size = t.element_type.pointee.info.storage_bits // 8 \
        if isinstance(t.element_type, PointerType) else 1  # 4-bit pointees: 1 nibble
    if np.any(_increments(read, axis, predicate.every, max(size, 1), signed)):
        return f"elements inside a group of {predicate.every} along dimension " \
               f"{predicate.along} do not increase by {max(size, 1)}"
    return None


def _check_same_elements(step: Step, value: Any, predicate: SameElementsAttr,
                         t: Type) -> str | None:
    """Why `value` breaks ``same_elements``, or None."""
    a = np.asarray(value)
    for d, group in enumerate(predicate.values):
        axis = d - t.rank
        extent = t.shape[d]
        if group <= 1 or extent <= 1:
            continue
        prev = np.take(a, np.arange(extent - 1), axis=axis)
        curr = np.take(a, np.arange(1, extent), axis=axis)
        inner = (np.arange(1, extent) % group != 0).reshape((-1,) + (1,) * (-axis - 1))
        if np.any(inner & (curr != prev)):
            return f"a group of {group} along dimension {d} holds different elements"
    return None


def _check_bounded(step: Step, value: Any, predicate: BoundedAttr, t: Type) -> str | None:
    """Why `value` breaks ``bounded`` (signed reading), or None."""
    read = as_signed(value, t.element_type)
    outside = np.zeros(np.shape(read), dtype=bool)
    if predicate.lower is not None:
        outside |= read < predicate.lower
    if predicate.upper is not None:
        outside |= read > predicate.upper
    if np.any(outside):
        at = first_index(outside)
        return f"element {at} is {read[tuple(at)]}, outside [" \
               f"{'?' if predicate.lower is None else predicate.lower}, " \
               f"{'?' if predicate.upper is None else predicate.upper}]"
    return None


_ASSUME_CHECKS: dict[type, Callable[..., str | None]] = {
    DivByAttr: _check_div_by,
    SameElementsAttr: _check_same_elements,
    BoundedAttr: _check_bounded,
}


@semantics("assume")
def assume(step: Step, value: Any) -> Any:
    """``assume``: the value itself; a predicate that does not hold is undefined behaviour,
    reported when checks are on."""
    if step.checks:
        predicate = step.op.attr("predicate")
        check = _ASSUME_CHECKS.get(type(predicate))
        why = check(step, value, predicate, _tile(step, 0)) if check else None
        if why:
            raise step.fail(f"assumed predicate {predicate.format_stripped()} does not "
                            f"hold: {why} (undefined behaviour)")
    return value
