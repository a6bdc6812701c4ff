"""Atomics (spec group "Atomics"): read-modify-write, compare-and-swap, view reductions.

Each (pointer, operand) lane is one atomic transaction.  Lanes of one op that hit the
same address are applied in row-major lane order (the spec leaves the order open; every
order gives the same memory for the commutative modes, and the returned old values are
those of one valid order).  The work is vectorized by *rounds*: each round applies, for
every distinct address, the first lane not yet applied.

Integer ``add`` wraps; ``addf`` rounds to nearest even in the element type (NumPy adds
f32 and f64 correctly rounded; f16 and bf16 go through f32, whose precision makes the
double rounding harmless).  ``compare-and-swap`` on floats compares bit patterns, as
the spec says.  A masked-off lane of ``compare-and-swap`` returns its ``cmp`` value (the
spec says so); a masked-off lane of ``atomic_rmw`` returns 0 (implementation-defined).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...enums import AtomicRMWMode
from ...numerics import as_unsigned
from ...types import FloatType
from ..step import Step
from ..values import Token
from .common import group_types, named_operands, single
from .memory import checked_access
from .registry import semantics
from .views import view_base, view_tile


def _unsigned_pick(pick: Callable) -> Callable:
    """A signed-storage max/min that compares as unsigned integers."""
    def apply(old: np.ndarray, arg: np.ndarray, t: Any) -> np.ndarray:
        """`pick` under the unsigned reading of both operands."""
        keep = pick(as_unsigned(old, t), as_unsigned(arg, t)) == as_unsigned(old, t)
        return np.where(keep, old, arg)
    return apply


def _add(old: np.ndarray, arg: np.ndarray, t: Any) -> np.ndarray:
    """Wrapping integer or rounded float addition in the element type."""
    with np.errstate(all="ignore"):
        if isinstance(t, FloatType) and old.dtype.itemsize < 4:
            return (old.astype(np.float32) + arg.astype(np.float32)).astype(old.dtype)
        return (old + arg).astype(old.dtype)


#: The new memory value for each mode, from the old value and the operand.
MODES: dict[AtomicRMWMode, Callable[[np.ndarray, np.ndarray, Any], np.ndarray]] = {
    AtomicRMWMode.AND: lambda old, arg, t: old & arg,
    AtomicRMWMode.OR: lambda old, arg, t: old | arg,
    AtomicRMWMode.XOR: lambda old, arg, t: old ^ arg,
    AtomicRMWMode.ADD: _add,
    AtomicRMWMode.ADDF: _add,
    AtomicRMWMode.MAX: lambda old, arg, t: np.maximum(old, arg),
    AtomicRMWMode.MIN: lambda old, arg, t: np.minimum(old, arg),
    AtomicRMWMode.UMAX: _unsigned_pick(np.maximum),
    AtomicRMWMode.UMIN: _unsigned_pick(np.minimum),
    AtomicRMWMode.XCHG: lambda old, arg, t: arg,
}


def apply_atomically(step: Step, addresses: np.ndarray, mask: np.ndarray | None, t: Any,
                     update: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     operands: tuple[np.ndarray, ...]) -> np.ndarray:
    """Apply ``new = update(old, lane)`` lane by lane (in rounds); the old values."""
    memory = step.machine.memory
    flat = np.asarray(addresses, np.int64).reshape(-1)
    active = np.ones(flat.shape, bool) if mask is None else \
        np.broadcast_to(np.asarray(mask, bool), addresses.shape).reshape(-1).copy()
    lanes = [np.broadcast_to(o, addresses.shape).reshape(-1) for o in operands]
    old = np.zeros(flat.shape, lanes[0].dtype if lanes else np.int64)
    pending = np.flatnonzero(active)
    while pending.size:
        _, first = np.unique(flat[pending], return_index=True)
        now = pending[first]
        current = memory.load(flat[now], t)
        old[now] = current
        memory.store(flat[now], update(current, *[lane[now] for lane in lanes]), t)
        pending = np.setdiff1d(pending, now, assume_unique=True)
    return old.reshape(np.shape(addresses))


@semantics("atomic_rmw_tko")
def atomic_rmw_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Atomically combine `arg` into memory at each pointer; the previous values."""
    groups = named_operands(step, operands)
    pointers, arg = single(groups, "pointers"), single(groups, "arg")
    mask, token = single(groups, "mask"), single(groups, "token")
    t = step.result_type(0).element_type
    mode = MODES[step.op.enum("mode")]
    result_token = checked_access(step, pointers, t, mask, True, token)
    old = apply_atomically(step, pointers, mask, t, lambda o, a: mode(o, a, t), (arg,))
    return old, result_token


@semantics("atomic_cas_tko")
def atomic_cas_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Atomically replace memory equal (bit for bit) to `cmp` with `val`; the old values."""
    groups = named_operands(step, operands)
    pointers, cmp, val = single(groups, "pointers"), single(groups, "cmp"), single(groups, "val")
    mask, token = single(groups, "mask"), single(groups, "token")
    t = step.result_type(0).element_type
    bits = f"u{np.dtype(cmp.dtype).itemsize}"

    def swap(old: np.ndarray, expected: np.ndarray, new: np.ndarray) -> np.ndarray:
        """`new` where memory holds `expected` exactly, else the old value."""
        return np.where(old.view(bits) == expected.view(bits), new, old)
    result_token = checked_access(step, pointers, t, mask, True, token)
    old = apply_atomically(step, pointers, mask, t, swap, (cmp, val))
    if mask is not None:  # spec: the value returned for a masked element i is cmp[i]
        old = np.where(np.broadcast_to(np.asarray(mask, bool), old.shape), old,
                       np.broadcast_to(cmp, old.shape))
    return old, result_token


@semantics("atomic_red_view_tko")
def atomic_red_view_tko(step: Step, *operands: Any) -> Token:
    """Atomically combine the value tile into the view's tile at the index (out-of-bounds
    elements skipped, unless ``inbounds`` (13.5) says there are none); nothing is returned
    but the token."""
    groups = named_operands(step, operands)
    view, value, token = single(groups, "view"), single(groups, "value"), single(groups, "token")
    value_type = group_types(step, "value")[0]
    addresses, _, inside = view_tile(step, view, groups["index"], value_type.shape)
    t = value_type.element_type
    mode = MODES[step.op.enum("mode")]
    result_token = checked_access(step, addresses, t, inside, True, token, view_base(view))
    apply_atomically(step, addresses, inside, t, lambda o, a: mode(o, a, t), (value,))
    return result_token
