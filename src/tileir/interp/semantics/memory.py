"""Memory (spec group "Memory"): pointer loads and stores, tokens, alloca, fences.

Every access is checked by `Memory.check` (unmapped, out of bounds, misaligned: undefined
behaviour) and logged by `Machine.access` (the token race check).  Masked-off lanes do
not access memory at all.  A masked-off (or out-of-bounds padded) lane of a load yields
the padding operand when given; otherwise its value is unspecified, and is 0 here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...enums import MemoryOrderingSemantics
from ...ir import location_of
from ..memory import MemoryFault, element_size
from ..pointers import from_byte_address, is_nibble_pointee, split, unpaired_lanes
from ..step import Step
from ..values import FRESH_TOKEN, Token
from .common import first_index, named_operands, single
from .registry import semantics


def is_atomic(step: Step) -> bool:
    """Whether the access is a strong (non-weak) one: strong accesses do not race with each
    other (memory model: only conflicting accesses, one of them weak, race)."""
    order = step.op.enum("memory_ordering_semantics")
    return order is not None and order != MemoryOrderingSemantics.WEAK


def size_of(step: Step, element_type: Any) -> int:
    """Bytes per element, reported as an execution error for unaddressable types."""
    try:
        return element_size(element_type)
    except MemoryFault as fault:
        raise step.fail(str(fault)) from None


def checked_access(step: Step, addresses: np.ndarray, element_type: Any,
                   mask: np.ndarray | None, write: bool, token: Token | None,
                   home: int | None = None) -> Token:
    """Check an access (when checks are on) and log it; the result token.  `home`: the
    base address of the view the access goes through (it must stay in that allocation)."""
    size = size_of(step, element_type)
    if step.checks:
        problem = step.machine.memory.check(addresses, size, mask, home)
        if problem:
            raise step.undefined(problem, "every access must lie inside one mapped buffer "
                                 "(an argument, a global or a live alloca), the one its "
                                 "view's base pointer points into, aligned to its element "
                                 "size")
    return step.machine.access(step, addresses, size, mask, write, token, is_atomic(step))


def fill(values: np.ndarray, keep: np.ndarray | None, padding: np.ndarray | None) -> np.ndarray:
    """`values` where `keep` holds, else the padding (0 when there is none)."""
    if keep is None:
        return values
    other = np.zeros((), values.dtype) if padding is None else padding
    return np.where(keep, values, other).astype(values.dtype, copy=False)


def nibble_access(step: Step, pointers: np.ndarray, element_type: Any,
                  mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Byte addresses and nibbles of a pointer access (nibbles None unless 4-bit); with
    checks on, lanes breaking spec 5.2.1's contiguous pairs are undefined behaviour."""
    addresses, nibbles = split(pointers, element_type)
    if nibbles is not None and step.checks:
        bad = unpaired_lanes(pointers, step.op.operands[0].type.rank, mask)
        if bad is not None:
            at = first_index(bad)
            p = int(np.asarray(pointers, np.int64)[tuple(at)])
            raise step.fail(
                f"accesses {element_type} at lane {list(at)} (byte {p >> 1:#x}, "
                f"{'high' if p & 1 else 'low'} nibble) outside a contiguous pair: lanes "
                "2k and 2k+1 (row-major) must address the low and high nibble of one byte "
                "(spec 5.2.1)")
    return addresses, nibbles


@semantics("load_ptr_tko")
def load_ptr_tko(step: Step, *operands: Any) -> tuple[np.ndarray, Token]:
    """Load the element at every (unmasked) pointer of the tile."""
    groups = named_operands(step, operands)
    source, mask = single(groups, "source"), single(groups, "mask")
    padding, token = single(groups, "paddingValue"), single(groups, "token")
    t = step.result_type(0).element_type
    addresses, nibbles = nibble_access(step, source, t, mask)
    result_token = checked_access(step, addresses, t, mask, False, token)
    values = step.machine.memory.load(addresses, t, mask, nibbles)
    return fill(values, mask, padding), result_token


@semantics("store_ptr_tko")
def store_ptr_tko(step: Step, *operands: Any) -> Token:
    """Store the value tile at every (unmasked) pointer of the tile."""
    groups = named_operands(step, operands)
    destination, value = single(groups, "destination"), single(groups, "value")
    mask, token = single(groups, "mask"), single(groups, "token")
    t = step.op.operands[1].type.element_type
    addresses, nibbles = nibble_access(step, destination, t, mask)
    result_token = checked_access(step, addresses, t, mask, True, token)
    step.machine.memory.store(addresses, value, t, mask, nibbles)
    return result_token


@semantics("make_token")
def make_token(step: Step) -> Token:
    """A fresh token: ordered after nothing."""
    return FRESH_TOKEN


@semantics("join_tokens")
def join_tokens(step: Step, *tokens: Token) -> Token:
    """A token ordered after everything each input token is ordered after."""
    mask = 0
    for t in tokens:
        mask |= t.after
    return Token(mask)


@semantics("memory_fence_alias_tko")
def memory_fence_alias_tko(step: Step, token: Token) -> Token:
    """Orders accesses through different aliases; one address space here, so the token
    passes through."""
    return token


@semantics("alloca")
def alloca(step: Step) -> np.ndarray:
    """A fresh zero-filled buffer of `num_elem` elements, mapped until the block holding
    the alloca ends (spec: its lifetime), then unmapped so a later use faults."""
    t = step.result_type(0).element_type.pointee
    count = int(step.op.attr("num_elem").value)
    alignment = int(step.op.attr("alignment").value)
    where = location_of(step.op)
    name = f"alloca at {where}" if where is not None and str(where) else "alloca"
    nbytes = -(-count // 2) if is_nibble_pointee(t) else count * size_of(step, t)
    try:
        base = step.machine.memory.allocate(nbytes, max(alignment, 1), name)
    except MemoryFault as fault:
        raise step.fail(str(fault)) from None
    step.machine.scoped_allocation(base)
    return np.array(from_byte_address(base, t), np.int64)


__all__ = ["checked_access", "fill"]
