"""Which values of a kernel differ between tile blocks, and whether the kernel can run all
its tile blocks at once.

A value is *varying* when it depends on the tile block id; every other value (kernel
arguments, constants, loop counters of uniform loops) is the same in every tile block.
The batched engine keeps a varying value as one array with a leading axis over the tile
blocks and a uniform value once.  It needs control flow to be uniform (every tile block
takes the same branch and runs the same iterations), and no op whose effect depends on the
order of tile blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...ir import Operation, Value
from ...types import TileType
from ..races import grain_of, orders_blocks
from ..semantics.registry import short_name

#: Ops the batched engine does not run, with the reason (the reference engine runs them).
UNBATCHED = {
    "print_tko": "printing follows the order of tile blocks",
    "alloca": "alloca gives each tile block its own memory",
    **{name: "multimem accesses run one tile block at a time" for name in
       ("multimem_load_reduce_view_tko", "multimem_reduce_view_tko",
        "multimem_store_view_tko")},
}
#: Ops whose varying operands the batched engine cannot take (they build views, which
#: hold one base address and one shape).
UNIFORM_OPERANDS = {"make_tensor_view", "make_partition_view", "make_strided_view",
                    "make_gather_scatter_view"}
#: Ops whose results vary even when their operands do not.
SOURCES = {"get_tile_block_id"}


@dataclass
class Plan:
    """The outcome of the analysis: the varying values, or why batching is impossible; the
    grain of memory: the largest size every memory access is a whole multiple of (the race
    checks track grains instead of bytes); and the elements of the kernel's largest tile,
    in bytes as float64 (sizes the spans of blocks run together).  A plan is kept with the
    kernel's `tileir.interp.plan.KernelPlan`, so it serves every launch of the kernel."""

    varying: set[Value] = field(default_factory=set)
    reason: str | None = None
    grain: int = 1
    tile_bytes: int = 8


class _Unbatchable(Exception):
    pass


def analyse(kernel: Operation) -> Plan:
    """The kernel's varying values, or the reason it cannot be batched."""
    plan = Plan()
    try:
        _region_ops(kernel.regions[0].block.operations, plan.varying)
    except _Unbatchable as exc:
        return Plan(set(), str(exc))
    plan.grain = grain_of(kernel)
    plan.tile_bytes = 8 * max([math.prod(v.type.shape) for op in kernel.walk()
                               for v in op.results if isinstance(v.type, TileType)] + [1])
    return plan


def _region_ops(ops, varying: set[Value]) -> None:
    for op in ops:
        _op(op, varying)


def _any(values, varying: set[Value]) -> bool:
    return any(v in varying for v in values)


def _op(op: Operation, varying: set[Value]) -> None:
    name = short_name(op)
    why = UNBATCHED.get(name) or orders_blocks(op)
    if why is not None:
        raise _Unbatchable(f"'{op.name}': {why}")
    inputs_vary = _any(op.operands, varying)
    if name in UNIFORM_OPERANDS and inputs_vary:
        raise _Unbatchable(f"'{op.name}' takes values that differ between tile blocks")
    handler = _STRUCTURED.get(name)
    if handler is not None:
        handler(op, varying)
        return
    for region in op.regions:   # reduce and scan bodies: lanes, whatever they hold
        for block in region.blocks:
            _region_ops(block.operations, varying)
    if inputs_vary or name in SOURCES:
        varying.update(op.results)


def _terminators(region, kinds: tuple[str, ...]):
    """Every terminator of `kinds` that ends an iteration of `region` (nested ifs
    included, loops and reduces not)."""
    for block in region.blocks:
        for op in block.operations:
            name = short_name(op)
            if name in kinds:
                yield op
            elif name == "if":
                for inner in op.regions:
                    yield from _terminators(inner, kinds)


def _fixpoint(op: Operation, args: list[Value], carried: list[Value], varying: set[Value],
              kinds: tuple[str, ...]) -> None:
    """Iterate a loop body until the set of varying carried values stops growing."""
    region = op.regions[0]
    while True:
        before = len(varying)
        for arg, init in zip(args, carried):
            if init in varying:
                varying.add(arg)
        for block in region.blocks:
            _region_ops(block.operations, varying)
        for term in _terminators(region, kinds):
            for arg, value in zip(args, term.operands):
                if value in varying:
                    varying.add(arg)
        if len(varying) == before:
            return


def _for(op: Operation, varying: set[Value]) -> None:
    lower, upper, step, *init = op.operands
    if _any((lower, upper, step), varying):
        raise _Unbatchable("'cuda_tile.for' bounds differ between tile blocks")
    block = op.regions[0].block
    _fixpoint(op, block.arguments[1:], init, varying, ("continue",))
    ends = list(_terminators(op.regions[0], ("continue", "break")))
    _results(op, ends, varying, init)


def _loop(op: Operation, varying: set[Value]) -> None:
    block = op.regions[0].block
    _fixpoint(op, block.arguments, list(op.operands), varying, ("continue",))
    _results(op, list(_terminators(op.regions[0], ("break",))), varying, [])


def _if(op: Operation, varying: set[Value]) -> None:
    if op.operands[0] in varying:
        raise _Unbatchable("an 'if' condition differs between tile blocks")
    for region in op.regions:
        for block in region.blocks:
            _region_ops(block.operations, varying)
    ends = [t for region in op.regions for t in _terminators(region, ("yield",))]
    _results(op, ends, varying, [])


def _results(op: Operation, ends, varying: set[Value], init) -> None:
    for i, result in enumerate(op.results):
        if any(i < len(t.operands) and t.operands[i] in varying for t in ends) or \
                (i < len(init) and init[i] in varying):
            varying.add(result)


_STRUCTURED = {"for": _for, "loop": _loop, "if": _if}

__all__ = ["Plan", "UNBATCHED", "analyse"]
