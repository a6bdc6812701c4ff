"""Multimem accesses (13.5, declared with the views in `tileir.ops.views`).

A multicast object is one buffer replicated on every device of a multicast group; a
launch takes, for a ``ptr<E, <multicast>>`` parameter, a list of arrays, one replica each
(`Memory.map_multicast`).  The multimem ops reach every replica through the object's
address (its first replica's): ``multimem_store_view_tko`` writes the tile to each,
``multimem_load_reduce_view_tko`` reads each and reduces them elementwise, in replica
order, and ``multimem_reduce_view_tko`` combines the tile into each atomically.  Bounds,
alignment, ordering and race checks are those of the other view accesses, made on the
first replica (every replica has its shape); a masked-off element (past the tensor's
edge) is not accessed, and a load-reduce yields the view's padding there.

Reductions: integer ``add`` wraps, ``min``/``max`` compare signed and ``umin``/``umax``
unsigned; float ``add`` rounds each step to nearest even in the element type (as the
atomics' ``addf``), float ``min``/``max`` (f16, bf16) are IEEE minimumNumber and
maximumNumber, -0 below +0.  The spec leaves the order of a load-reduce's steps open;
tileir takes the replicas in order.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...enums import AtomicRMWMode, MultimemReductionKind
from ...numerics import from_float64
from ...types import FloatType
from ..step import Step
from ..values import Token
from .atomics import MODES, apply_atomically
from .common import named_operands, single
from .floating_point import _pick
from .memory import checked_access, fill
from .registry import semantics
from .views import padding_value, view_base, view_tile


def _float_pick(beats: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """minimumNumber / maximumNumber in the element type (NaN only when both are)."""
    def apply(a: np.ndarray, b: np.ndarray, t: Any) -> np.ndarray:
        wide = _pick(a.astype(np.float64), b.astype(np.float64), beats, False)
        return from_float64(wide, t)          # (exact: a value of `t`, or its NaN)
    return apply


#: Each reduction kind: (integer rule, float rule) over (accumulated, next) values.
REDUCTIONS: dict[MultimemReductionKind, tuple[Callable, Callable | None]] = {
    MultimemReductionKind.ADD: (MODES[AtomicRMWMode.ADD], MODES[AtomicRMWMode.ADDF]),
    MultimemReductionKind.MIN: (MODES[AtomicRMWMode.MIN], _float_pick(np.less)),
    MultimemReductionKind.MAX: (MODES[AtomicRMWMode.MAX], _float_pick(np.greater)),
    MultimemReductionKind.AND: (MODES[AtomicRMWMode.AND], None),
    MultimemReductionKind.OR: (MODES[AtomicRMWMode.OR], None),
    MultimemReductionKind.XOR: (MODES[AtomicRMWMode.XOR], None),
    MultimemReductionKind.UMIN: (MODES[AtomicRMWMode.UMIN], None),
    MultimemReductionKind.UMAX: (MODES[AtomicRMWMode.UMAX], None),
}


def _reduction(step: Step, t: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The op's reduction over values of element type `t` (the verifier keeps float
    reductions to those with a float rule)."""
    kind = step.op.enum("reduction") or MultimemReductionKind.ADD
    integer, floating = REDUCTIONS[kind]
    rule = floating if isinstance(t, FloatType) else integer
    if rule is None:
        raise step.fail(f"reduction {kind.keyword} takes integer elements, not {t}")
    return lambda a, b: rule(a, b, t)


def _access(step: Step, view: Any, indices: list[Any], shape: tuple[int, ...],
            lead: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Addresses of the tile at `indices` in the first replica, the in-bounds mask, and
    each replica's shift from the first."""
    addresses, _, inside = view_tile(step, view, indices, shape, lead)
    return addresses, inside, step.machine.memory.replica_shifts(view_base(view))


@semantics("multimem_store_view_tko")
def multimem_store_view_tko(step: Step, *operands: Any) -> Token:
    """Store the tile at the index of every replica of the view's multicast object."""
    groups = named_operands(step, operands)
    view, tile, token = single(groups, "view"), single(groups, "tile"), single(groups, "token")
    tile_type = step.op.operands[1].type
    lead = np.shape(tile)[:np.ndim(tile) - tile_type.rank]     # a batch of tiles
    addresses, inside, shifts = _access(step, view, groups["index"], tile_type.shape, lead)
    t = tile_type.element_type
    result_token = checked_access(step, addresses, t, inside, True, token, view_base(view))
    for shift in shifts:
        step.machine.memory.store(addresses + shift, tile, t, inside)
    return result_token


@semantics("multimem_load_reduce_view_tko")
def multimem_load_reduce_view_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """The tile at the index of every replica, reduced elementwise in replica order."""
    groups = named_operands(step, operands)
    view, token = single(groups, "view"), single(groups, "token")
    result = step.result_type(0)
    addresses, inside, shifts = _access(step, view, groups["index"], result.shape)
    t = result.element_type
    result_token = checked_access(step, addresses, t, inside, False, token, view_base(view))
    combine = _reduction(step, t)
    memory = step.machine.memory
    values = memory.load(addresses, t, inside)
    for shift in shifts[1:]:
        values = combine(values, memory.load(addresses + shift, t, inside))
    return fill(values, inside, padding_value(step, view, t, inside)), result_token


@semantics("multimem_reduce_view_tko")
def multimem_reduce_view_tko(step: Step, *operands: Any) -> Token:
    """Combine the tile atomically into the tile at the index of every replica."""
    groups = named_operands(step, operands)
    view, tile, token = single(groups, "view"), single(groups, "tile"), single(groups, "token")
    tile_type = step.op.operands[1].type
    addresses, inside, shifts = _access(step, view, groups["index"], tile_type.shape)
    t = tile_type.element_type
    combine = _reduction(step, t)
    result_token = checked_access(step, addresses, t, inside, True, token, view_base(view))
    for shift in shifts:
        apply_atomically(step, addresses + shift, inside, t, combine, (tile,))
    return result_token


__all__ = ["REDUCTIONS"]
