"""What the engines read from a kernel's IR, read once per kernel instead of at every op.

Running an op means finding its semantics function, its operand and result values, the
dtype and shape its results must have, and whether it ends its region.  None of that
changes from one execution of the op to the next, so a `KernelPlan` reads it once for
every block of the kernel (a `BlockPlan` per block, an `OpPlan` per op), together with the
facts `launch` needs about the whole kernel (its parameter types, whether it asserts,
whether anything in it orders tile blocks, its memory grain, and the batched engine's
analysis, filled in by the launcher when first needed).

The plan is stored on the kernel op itself (`plan_of`), so it lives exactly as long as
the kernel and can never be found by another one.  The IR is mutable (ops, operands,
attributes and types can all be replaced in place), so every lookup first takes the
kernel's `fingerprint`: every object and attribute value the plan was read from, in walk
order, plus the semantics function registered for each op.  A plan whose fingerprint
differs from the kernel's current one is thrown away and read again, so a changed kernel
(or a semantics function replaced in `SEMANTICS`, as tests do) is never run from a stale
plan.  Taking the fingerprint costs about a microsecond per op; the launcher takes it
once per launch, never per tile block.

An `OpPlan` may carry a *scalar path* (`semantics.scalar`): a faster way to run the op
when every operand is a rank-0 tile, which answers only where its result is certain to be
the semantics function's (else it declines, and the semantics function runs).  Setting
`SCALAR_PATHS` to False makes plans without them (the benchmarks' baseline; tests).
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

import numpy as np

from ..ir import Block, Operation
from ..numerics import numpy_dtype
from ..types import TileType
from .races import grain_of, orders_blocks
from .semantics import SEMANTICS, short_name
from .semantics.common import operand_slices
from .semantics.control_flow import terminate
from .semantics.scalar import scalar_path

#: Whether plans use the scalar paths of `semantics.scalar` (False: every op runs its
#: semantics function; the benchmarks time both in one run).
SCALAR_PATHS = True

#: Where `plan_of` keeps a kernel's plan: an attribute of the kernel op.
_ATTRIBUTE = "_tileir_kernel_plan"


class OpPlan:
    """One op, read for running: `fn` is its semantics function (None: it has none),
    `operands` and `results` its values, `expected` the (dtype, shape) each tile result
    must have (None for other results), `terminator` whether it ends its region (a
    ``yield``, ``continue``, ``break`` or ``return``, whose operands the machine hands
    back without raising), and `scalar` its scalar path (or None)."""

    __slots__ = ("op", "name", "fn", "operands", "results", "expected", "terminator",
                 "scalar", "_slices", "batch", "facts", "dead")

    def __init__(self, op: Operation, scalar_paths: bool) -> None:
        self.op = op
        self.name = short_name(op)
        self.fn = SEMANTICS.get(self.name)
        self.operands = tuple(op.operands)
        self.results = tuple(op.results)
        self.expected = tuple(_expected(r.type) for r in op.results)
        self.terminator = self.fn is terminate
        self._slices: tuple[tuple[str, int, int], ...] | None = None
        #: What the batched engine reads from the op under its analysis (set by it when
        #: first asked: `BatchMachine._execute`).
        self.batch: Any = None
        #: What semantics functions derive from the op alone (`semantics.common.op_facts`).
        self.facts: dict[Any, Any] = {}
        #: The values of its block that nothing reads after this op (set by `BlockPlan`):
        #: the machine drops them once it has run, so a long chain of big tiles does not
        #: keep every one alive until the launch ends.
        self.dead: tuple[Any, ...] = ()
        self.scalar = None
        if scalar_paths and self.fn is not None:
            try:
                self.scalar = scalar_path(self.fn, op)
            except Exception:   # (an attribute it cannot read: the semantics report it)
                self.scalar = None


    @property
    def slices(self) -> tuple[tuple[str, int, int], ...]:
        """The op's declared operand groups (`semantics.common.operand_slices`), found
        when first asked for."""
        if self._slices is None:
            self._slices = operand_slices(self.op)
        return self._slices


def _expected(t: Any) -> tuple[np.dtype, tuple[int, ...]] | None:
    """The dtype and shape of a tile of type `t` (None when `t` is no tile type or its
    element type has no dtype: the machine's check then reports it as it always did)."""
    if not isinstance(t, TileType):
        return None
    try:
        return numpy_dtype(t.element_type), tuple(t.shape)
    except Exception:      # an element type values cannot be held in: checked at run time
        return None


class BlockPlan:
    """One block: its arguments and its ops' plans, in order."""

    __slots__ = ("block", "arguments", "ops", "batch")

    def __init__(self, block: Block, scalar_paths: bool) -> None:
        self.block = block
        self.arguments = tuple(block.arguments)
        self.ops = tuple(OpPlan(op, scalar_paths) for op in block.operations)
        for p, dead in zip(self.ops, _last_uses(block)):
            p.dead = dead
        #: What the batched engine reads from the block under its analysis (set by it).
        self.batch: Any = None


def _last_uses(block: Block) -> list[tuple[Any, ...]]:
    """For each op of `block`, the values defined in the block (its arguments and its ops'
    results) whose last use is that op, counting a use inside the op's regions as the op's
    own (a loop body runs many times; what it reads from outside lives until the loop
    ends); results nothing uses die where they are made."""
    ops = block.operations
    defined = set(block.arguments)
    for op in ops:
        defined.update(op.results)
    last: dict[Any, int] = {}
    for i, op in enumerate(ops):
        for used in _operands_within(op):
            if used in defined:
                last[used] = i
    dead: list[list[Any]] = [[] for _ in ops]
    for value, i in last.items():
        dead[i].append(value)
    for i, op in enumerate(ops):
        dead[i].extend(r for r in op.results if r not in last)
    return [tuple(d) for d in dead]


def _operands_within(op: Operation) -> Iterable[Any]:
    """The operands of `op` and of every op nested in its regions."""
    for nested in op.walk():
        yield from nested.operands


class KernelPlan:
    """A kernel (an ``entry`` or a testing function) read once for running: a `BlockPlan`
    for every block in it, and what the launcher asks of the whole kernel."""

    def __init__(self, kernel: Operation, fingerprint: tuple, scalar_paths: bool) -> None:
        self.kernel = kernel
        self.fingerprint = fingerprint
        self.scalar_paths = scalar_paths
        self.blocks: dict[Block, BlockPlan] = {
            block: BlockPlan(block, scalar_paths) for block in _blocks(kernel)}
        ops = list(kernel.walk())
        #: Whether the kernel holds an ``assert`` (a failed one stops the batched run).
        self.asserts = any(op.name == "cuda_tile.assert" for op in ops)
        #: Whether an op may order tile blocks (no race check between blocks then).
        self.orders_blocks = any(orders_blocks(op) is not None for op in ops)
        function_type = kernel.attr("function_type")
        #: The parameter types (entries and functions), or None.
        self.params = function_type.value.inputs if function_type is not None else None
        #: The batched engine's analysis (`batch.analyse`), filled in by the launcher.
        self.batch: Any = None

    @functools.cached_property
    def grain(self) -> int:
        """The kernel's memory grain (`races.grain_of`), found when first asked for (by a
        launch with race checks)."""
        return grain_of(self.kernel)


def _blocks(kernel: Operation) -> Iterable[Block]:
    """Every block nested in `kernel`."""
    for op in kernel.walk():
        for region in op.regions:
            yield from region.blocks


def fingerprint(kernel: Operation) -> tuple:
    """Everything a `KernelPlan` is read from, holding the IR's own objects (so none can
    be freed and its id reused while the plan lives) and copies of their lists and
    attribute values: three tuples, of every op (`kernel` first, then in walk order), of
    every region and of every block.  `matches` tells whether a kernel is still what its
    fingerprint was taken from."""
    ops: list[tuple] = []
    regions: list[tuple] = []
    blocks: list[tuple] = []
    semantics_of = SEMANTICS.get
    for op in kernel.walk():
        opdef = op.opdef
        name = op.name
        results = list(op.results)
        ops.append((op, opdef, name, semantics_of(opdef.name if opdef is not None else name),
                    list(op.operands), results, [r.type for r in results],
                    dict(op.attributes), list(op.regions)))
        for region in op.regions:
            regions.append((region, list(region.blocks)))
            for block in region.blocks:
                arguments = list(block.arguments)
                blocks.append((block, arguments, [a.type for a in arguments],
                               list(block.operations)))
    return tuple(ops), tuple(regions), tuple(blocks)


def matches(kernel: Operation, taken: tuple) -> bool:
    """Whether `kernel` is still what the fingerprint `taken` was read from: the same
    ops (each with the same declaration, name, registered semantics function, operands,
    results, result types, attributes, and regions), regions (the same
    blocks) and blocks (the same arguments, argument types and ops).

    Checked part by part, stopping at the first difference, without walking the kernel:
    when every region, block and op list is the one recorded, starting from `kernel`'s
    own, the kernel holds exactly the recorded objects in the recorded order."""
    ops, regions, blocks = taken
    if not ops or ops[0][0] is not kernel:
        return False
    semantics_of = SEMANTICS.get
    for op, opdef, name, semantics, operands, results, types, items, op_regions in ops:
        now = op.opdef
        if (now is not opdef and now != opdef) or op.name != name \
                or op.operands != operands or op.results != results \
                or op.regions != op_regions or op.attributes != items \
                or semantics_of(opdef.name if opdef is not None else name) is not semantics:
            return False
        for r, t in zip(results, types):
            now = r.type
            if now is not t and now != t:
                return False
    for region, region_blocks in regions:
        if region.blocks != region_blocks:
            return False
    for block, arguments, types, operations in blocks:
        if block.arguments != arguments or block.operations != operations:
            return False
        for a, t in zip(arguments, types):
            now = a.type
            if now is not t and now != t:
                return False
    return True


def plan_of(kernel: Operation) -> KernelPlan:
    """The plan of `kernel`: the one stored on it when it still `matches` its fingerprint
    (and the `SCALAR_PATHS` setting is the same), else a new one, stored in its place."""
    plan = kernel.__dict__.get(_ATTRIBUTE)
    if plan is None or plan.scalar_paths != SCALAR_PATHS or \
            not matches(kernel, plan.fingerprint):
        plan = KernelPlan(kernel, fingerprint(kernel), SCALAR_PATHS)
        kernel.__dict__[_ATTRIBUTE] = plan   # (two threads may both read one: either is right)
    return plan


__all__ = ["BlockPlan", "KernelPlan", "OpPlan", "SCALAR_PATHS", "fingerprint", "matches",
           "plan_of"]
