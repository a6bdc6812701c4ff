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
from typing import Any, Callable, Iterable

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
                 "scalar", "_slices", "batch")

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
        #: What the batched engine reads from the block under its analysis (set by it).
        self.batch: Any = None


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
    """Everything a `KernelPlan` is read from, as one tuple of the IR's own objects (held,
    so none can be freed and its id reused while the plan lives) and attribute values:
    equal fingerprints mean the plan read now would be the same plan."""
    parts: list[Any] = []
    _op_parts(kernel, parts.append, SEMANTICS.get)
    return tuple(parts)


def _op_parts(op: Operation, add: Callable[[Any], None],
              semantics_of: Callable[[str], Any]) -> None:
    """Add `op`'s parts, then its regions', to the fingerprint (`semantics_of`:
    ``SEMANTICS.get``)."""
    add(_own_parts(op, semantics_of))
    for region in op.regions:
        add((region, len(region.blocks)))
        for block in region.blocks:
            arguments = block.arguments
            operations = block.operations
            add((block, tuple(arguments), tuple([a.type for a in arguments]),
                 len(operations)))
            for child in operations:
                if child.regions:
                    _op_parts(child, add, semantics_of)
                else:           # (the common case, without a call per nesting level)
                    add(_own_parts(child, semantics_of))


def _own_parts(op: Operation, semantics_of: Callable[[str], Any]) -> tuple:
    """`op`'s own parts (not its regions'): the op, its declaration, name and semantics
    function, operands, results and their types, attributes and number of regions."""
    results = op.results
    opdef = op.opdef
    name = op.name
    return (op, opdef, name, semantics_of(opdef.name if opdef is not None else name),
            tuple(op.operands), tuple(results), tuple([r.type for r in results]),
            tuple(op.attributes.items()), len(op.regions))


def plan_of(kernel: Operation) -> KernelPlan:
    """The plan of `kernel`: the one stored on it when its fingerprint (and the
    `SCALAR_PATHS` setting) still match, else a new one, stored in its place."""
    current = fingerprint(kernel)
    plan = kernel.__dict__.get(_ATTRIBUTE)
    if plan is None or plan.scalar_paths != SCALAR_PATHS or plan.fingerprint != current:
        plan = KernelPlan(kernel, current, SCALAR_PATHS)
        kernel.__dict__[_ATTRIBUTE] = plan   # (two threads may both read one: either is right)
    return plan


__all__ = ["BlockPlan", "KernelPlan", "OpPlan", "SCALAR_PATHS", "fingerprint", "plan_of"]
