"""Prechecks: a kernel's checks run over every tile block before any block writes, so a
launch that passes them needs no journal for the buffers it only writes.

A launch's journal copies every buffer the kernel writes before the run, to put it back
when a check fails midway; for a kernel that streams its output (vector add) that copy
costs as much as the kernel.  Where every check of a kernel depends only on its
arguments and the tile block's id, never on data read from memory, the checks can run
first: ``check_span`` is the kernel lowered once more, *dry*, keeping only the ops the
checks read (the slice) and, of each view access, its address checks.  It writes nothing.
Where it passes for every block, ``run_span`` cannot fail (the same checks of the same
values), and the runner lets it write without a journal.

The dry lowering is trusted only where it provably writes the same checks: the kernel is
one straight-line block (no ``if``, ``for`` or ``loop``, no settle calls, no pointer tiles or atomics), no
check reads loaded data, and every op wrote as many checks in the dry lowering as in the
whole one (an op left out: none).  A load's or store's checks read only its view and
indices; any other op's, all its operands."""

from __future__ import annotations

from typing import Any

from ...ir import Operation
from ..semantics.registry import short_name
from .lower import Lowered, _Lowering

#: View accesses: the operand groups their checks read (not the stored tile, not tokens).
_ADDRESS_GROUPS = {"load_view_tko": ("view", "index"), "store_view_tko": ("view", "index")}
#: Region ops that steer control flow (a reduce's or scan's body is only its combiner).
_CONTROL = frozenset({"if", "for", "loop"})
#: Ops that read or write memory other than through a view's checked tile: a kernel with
#: one has no precheck (their data may reach a check, or they write read data).
_DECLINED = frozenset({"load_ptr_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko",
                       "atomic_red_view_tko", "print_tko"})


def check_slice(kernel: Operation, counts: dict[Operation, int]
                ) -> frozenset[Operation] | str:
    """The ops of `kernel` its checks read (`counts`: the checks each op's whole lowering
    wrote), or why the kernel has no precheck."""
    blocks = kernel.regions[0].blocks if kernel.regions else []
    if len(blocks) != 1:
        return "the kernel has more than one block"
    body = list(blocks[0])
    for op in body:
        if short_name(op) in _CONTROL:
            return f"the kernel has control flow ('{op.name}')"
        if short_name(op) in _DECLINED:
            return f"the kernel has '{op.name}'"
    needed: set[Any] = set()
    kept: set[Operation] = set()
    for op in reversed(body):
        data = [r for r in op.results if r in needed]
        if not counts.get(op, 0) and not data:
            continue
        groups = _ADDRESS_GROUPS.get(short_name(op))
        if groups is not None and data:
            return f"a check reads the data '{op.name}' loads"
        kept.update(op.walk())      # (a reduce's or scan's body with it)
        if groups is None:          # (and what its body reads from outside it)
            needed.update(v for inner in op.walk() for v in inner.operands)
        else:
            needed.update(v for g in groups for v in op.operand_group(g))
    return frozenset(kept)


def add_precheck(whole: _Lowering, lowered: Lowered) -> Lowered:
    """`lowered` (the kernel `whole` lowered) with ``check_span`` added to its module
    where the kernel has one (the loaded code then has the function: `cache.Compiled`),
    else as it is."""
    if lowered.settles or lowered.pointers or any(a.atomic for a in lowered.accesses):
        return lowered
    kept = check_slice(whole.kernel, whole.check_counts)
    if isinstance(kept, str):
        return lowered
    dry = _Lowering(whole.kernel, kept, whole.e.counter)
    try:
        dry.run()
    except Exception:           # (a slice the dry lowering cannot lower: no precheck,
        return lowered          # the launch journals; never a kernel left uncompiled)
    for op in whole.kernel.regions[0].blocks[0]:
        if whole.check_counts.get(op, 0) != dry.check_counts.get(op, 0):
            return lowered      # (a check the dry lowering does not write: none at all)
    extra = [g for g in dry.e.globals if g not in whole.e.globals]
    lowered.ir = "\n".join([*whole.e.globals, *extra]) + whole.definition + dry.definition
    lowered.scratch_bytes = max(lowered.scratch_bytes, dry.scratch)
    return lowered


__all__ = ["add_precheck", "check_slice"]
