"""One tile block of the abstract machine: a register file, program order, region control.

`Machine` runs a function body for one tile block.  Its register file (`env`) maps each
SSA `Value` to its run-time value (NumPy array, view, token).  Each op is executed by
calling its semantics function (``SEMANTICS[op.opdef.name]``, found once per kernel with
everything else the machine reads from an op: `plan.KernelPlan`) with a `Step` and the
operands' values, or its scalar path (`semantics.scalar`) when it has one that answers;
the results are bound in the register file.

Structured ops (``if``, ``for``, ``loop``, ``reduce``, ``scan``) are semantics functions
too: they call `Machine.run_region`, which binds the region's block arguments, runs its
ops and returns ``(kind, values)`` from its terminator (``yield``, ``continue``, ``break``,
``return``; "end" when it has none).  A structured op that receives a kind it does not
handle (a ``break`` from inside an ``if``) raises `RegionExit`, so it reaches the
enclosing ``loop``, and a ``return`` reaches the function.  (A terminator's semantics
function raises `RegionExit` too; the machine hands its operands back directly instead.)

Memory accesses go through `Machine.access`, which keeps the tile block's access log and
implements the memory model's race check (see `values.Token`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Sequence, TextIO

import numpy as np

from ..diagnostics import ExecutionError
from ..ir import Operation, Region, Value
from ..numerics import numpy_dtype
from ..types import TileType
from ..ir import location_of
from .memory import Memory
from . import plan as plans
from .plan import BlockPlan, KernelPlan, OpPlan, plan_of
from .step import Step
from .values import FRESH_TOKEN, RegionExit, Token


class Steps(dict):
    """The `Step` of each op of a block run by one machine, keyed by the op's `OpPlan`
    and made when first asked for (an op its scalar path runs never needs one)."""

    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, p: OpPlan) -> Step:
        step = self[p] = self.make(p.op, p)
        return step


@dataclass
class Access:
    """One memory operation of a tile block, for the race check: its bytes (the batched
    engine: its `batch.footprints.Footprint`) and kind."""

    id: int
    op: Operation
    bytes: Any
    write: bool
    atomic: bool


#: Up to this many logged accesses `Machine._unordered` filters them in Python, not NumPy.
_FEW_ACCESSES = 32


def _bits(mask: int, n: int) -> np.ndarray:
    """Bits 0 to n-1 of `mask` as a bool array (a token's access ids, vectorized)."""
    raw = (mask & ((1 << n) - 1)).to_bytes((n + 7) // 8, "little")
    return np.unpackbits(np.frombuffer(raw, np.uint8), count=n, bitorder="little").astype(bool)


class Machine:
    """Runs one tile block of a kernel over a shared `Memory`."""

    def __init__(self, memory: Memory | None = None, *, block_id: tuple[int, int, int] = (0, 0, 0),
                 grid: tuple[int, int, int] = (1, 1, 1), checks: bool = True,
                 globals: dict[str, int] | None = None, stdout: TextIO | None = None,
                 max_ops: int | None = None, kernel_plan: KernelPlan | None = None) -> None:
        self.memory = memory if memory is not None else Memory()
        self.block_id = tuple(block_id)
        self.grid = tuple(grid)
        self.checks = checks
        self.globals = dict(globals or {})
        self.stdout = stdout
        self.env: dict[Value, Any] = {}
        self.accesses: list[Access] = []
        self._spans: list[tuple[int, int, bool, bool]] = []   # (lo, hi, write, atomic)
        # The same as arrays, filled from `_spans` only once the log is long enough for
        # `_unordered` to filter with NumPy: bytes [lo, hi), and (write, atomic).
        self._ranges = np.zeros((0, 2), np.int64)
        self._kinds = np.zeros((0, 2), bool)
        self._arrayed = 0               # how many accesses the arrays hold
        self.batch_depth = 0
        self.max_ops = max_ops
        self.ops_run = 0
        self._allocas: list[list[int] | None] = []   # per running block: its allocas
        #: The plan of the function being run (`tileir.interp.plan`); `launch` passes
        #: one plan to every tile block's machine, else `run_function` reads it.
        self.kernel_plan = kernel_plan
        self._steps: dict[BlockPlan, Steps] = {}   # each planned block's ops' steps

    # ---- running code -------------------------------------------------------------

    def run_function(self, function: Operation, args: Sequence[Any]) -> list[Any]:
        """Run an entry's (or testing function's) body on `args`; the returned values."""
        if self.kernel_plan is None or self.kernel_plan.kernel is not function:
            self.kernel_plan = plan_of(function)
        kind, values = self.run_region(function.regions[0], args)
        return values

    def run_region(self, region: Region, args: Sequence[Any] = (), batched: bool = False
                   ) -> tuple[str, list[Any]]:
        """Bind `args` to the region's block arguments and run it to its terminator.

        `batched`: the arguments carry leading batch axes (lanes of a reduce or scan), so
        results inside may too.
        """
        if batched:
            self.batch_depth += 1
            try:
                return self.run_region(region, args)
            finally:
                self.batch_depth -= 1
        block = region.block
        kernel = self.kernel_plan
        plan = kernel.blocks.get(block) if kernel is not None else None
        if plan is None:        # (no plan, or a block outside it: read now, not kept)
            plan = BlockPlan(block, plans.SCALAR_PATHS)
        if args or plan.arguments:
            self._bind_arguments(plan, args)
        steps = self._steps.get(plan)
        if steps is None:
            steps = self._steps_of(plan)
        self._allocas.append(None)       # (a list once the block maps an alloca)
        try:
            # The ops in order; a terminator's operands are handed back here, not raised
            # (`RegionExit` carries them only out of a nested region, e.g. a ``break``
            # inside an ``if``, or when a terminator runs through `execute`).
            execute = self._execute
            env = self.env
            for p in plan.ops:
                if p.terminator:
                    return p.name, self._operands(p, steps[p])
                execute(p, steps)
                if p.dead:              # (values nothing reads again: freed now)
                    for value in p.dead:
                        env.pop(value, None)
            return "end", []
        except RegionExit as exit:
            return exit.kind, exit.values
        finally:  # an alloca lives until its block ends (spec: alloca)
            allocas = self._allocas.pop()
            if allocas:
                for base in allocas:
                    self.memory.unmap(base)

    def _bind_arguments(self, plan: BlockPlan, args: Sequence[Any]) -> None:
        """Bind a block's arguments to `args` (as many)."""
        env = self.env
        for argument, value in zip(plan.arguments, args, strict=True):
            env[argument] = value

    def _steps_of(self, plan: BlockPlan) -> Steps:
        """The `Steps` of a block's ops, kept for the machine's life for a block of its
        kernel's plan."""
        steps = Steps(self.step)
        if self.kernel_plan is not None and self.kernel_plan.blocks.get(plan.block) is plan:
            self._steps[plan] = steps
        return steps

    def scoped_allocation(self, base: int) -> None:
        """Have the buffer at `base` unmapped when the innermost running block ends."""
        if self._allocas:
            if self._allocas[-1] is None:
                self._allocas[-1] = []
            self._allocas[-1].append(base)

    def step(self, op: Operation, plan: OpPlan | None = None) -> Step:
        """The `Step` an op's semantics function gets in this tile block (`plan`: the
        op's plan, when it runs from one).  Its fields are passed by position, in the
        order `Step` declares them (a launch makes a step for every op of its kernel)."""
        return Step(op, self.block_id, self.grid, self.checks, self, plan)

    def execute(self, op: Operation) -> None:
        """Run one op: its semantics on its operands' values, results bound."""
        p = OpPlan(op, plans.SCALAR_PATHS)
        steps = Steps(self.step)
        if p.terminator:
            raise RegionExit(p.name, self._operands(p, steps[p]))
        self._execute(p, steps)

    def _operands(self, p: OpPlan, step: Step) -> list[Any]:
        """Count the op against `max_ops` and check it has semantics (as every op run);
        its operands' values."""
        self.ops_run += 1
        if self.max_ops is not None and self.ops_run > self.max_ops:
            raise self._past_limit(step)
        if p.fn is None:
            raise step.fail("has no semantics in the interpreter yet")
        env = self.env
        try:
            return [env[v] for v in p.operands]
        except KeyError:
            raise step.fail("uses a value that was never computed") from None

    def _past_limit(self, step: Step) -> ExecutionError:
        """The error of an op run past `max_ops`."""
        return step.fail(f"is past the limit of {self.max_ops} operations per tile block "
                         "(a block waiting on another never finishes when blocks run one at "
                         "a time)")

    def _execute(self, p: OpPlan, steps: Steps) -> None:
        """Run the op `p` plans (see `execute`): its scalar path when it has one that
        answers, else its semantics function (with its step from `steps`)."""
        # (`_operands`, inlined: this is the interpreter's innermost loop)
        self.ops_run += 1
        if self.max_ops is not None and self.ops_run > self.max_ops:
            raise self._past_limit(steps[p])
        fn = p.fn
        if fn is None:
            raise steps[p].fail("has no semantics in the interpreter yet")
        try:
            operands = list(map(self.env.__getitem__, p.operands))
        except KeyError:
            raise steps[p].fail("uses a value that was never computed") from None
        scalar = p.scalar
        if scalar is not None:
            try:
                result = scalar(*operands)
            except Exception as exc:    # (a bug: a diagnostic, as below)
                raise steps[p].fail(f"internal error: {type(exc).__name__}: {exc}") from exc
            if result is not None:      # one result, of its type's dtype and shape
                self.env[p.results[0]] = result
                return
        step = steps[p]
        try:
            result = fn(step, *operands)
        except (ExecutionError, RegionExit):
            raise
        except Exception as exc:  # a bug or an unforeseen input: a diagnostic, not a crash
            raise step.fail(f"internal error: {type(exc).__name__}: {exc}") from exc
        results = p.results
        if not results:
            return
        if len(results) == 1:
            values = (result,)
        else:
            values = result
            if len(values) != len(results):
                raise step.fail(f"semantics returned {len(values)} values for "
                                f"{len(results)} results (interpreter bug)")
        env = self.env
        checks = self.checks
        for r, value, expected in zip(results, values, p.expected):
            if isinstance(value, np.generic):  # NumPy turns 0-d results into scalars
                value = np.asarray(value)
            if checks and not (expected is not None and type(value) is np.ndarray
                               and value.dtype == expected[0]
                               and value.shape == expected[1]):
                self._check_value(step, r.type, value, self.batch_depth > 0)
            env[r] = value

    @staticmethod
    def _check_value(step: Step, t: Any, value: Any, batched: bool) -> None:
        """A tile result must be an array of the tile's dtype and shape, possibly with
        leading batch axes (a region run vectorized by reduce/scan); this catches bugs in
        semantics functions before they spread."""
        if not isinstance(t, TileType):
            return
        rank = len(t.shape)
        if not isinstance(value, np.ndarray) or value.dtype != numpy_dtype(t.element_type) \
                or value.ndim < rank or value.shape[value.ndim - rank:] != t.shape \
                or (not batched and value.ndim != rank):
            got = (f"{value.dtype}{list(value.shape)}" if isinstance(value, np.ndarray)
                   else type(value).__name__)
            raise step.fail(f"semantics returned {got} for {t} (interpreter bug)")

    # ---- memory and the race check ------------------------------------------------

    def access(self, step: Step, addresses: np.ndarray, size: int, mask: np.ndarray | None,
               write: bool, token: Token | None, atomic: bool = False) -> Token:
        """Record a memory operation ordered after `token`; its result token.

        With checks on, a data race is reported: an earlier access of this tile block to
        an overlapping byte, one of the two a write, not both atomic, that `token` does
        not order before this one (spec: memory model; token-ordered operations are
        unordered unless a token chain orders them).  With checks off nothing is logged
        and `token` itself is returned.
        """
        token = token if token is not None else FRESH_TOKEN
        if not self.checks:  # nothing to check: log nothing, and tokens stay empty
            return token
        ident = len(self.accesses)
        active = np.asarray(addresses, np.int64)
        if mask is not None:
            active = active[np.broadcast_to(np.asarray(mask, bool), active.shape)]
        covered = np.unique((active.reshape(-1, 1) + np.arange(size)).reshape(-1))
        lo, hi = (int(covered[0]), int(covered[-1]) + 1) if covered.size else (0, 0)
        if covered.size:
            for i in self._unordered(lo, hi, write, atomic, token):
                earlier = self.accesses[int(i)]
                common = np.intersect1d(earlier.bytes, covered, assume_unique=True)
                if common.size:
                    where = location_of(earlier.op)
                    place = f" at {where}" if where is not None and str(where) else ""
                    raise step.fail(
                        f"races with '{earlier.op.name}'{place} on address {int(common[0]):#x}: "
                        "neither is ordered before the other by a token chain and "
                        "one of them writes")
        self._record(Access(ident, step.op, covered, write, atomic), lo, hi)
        return token.with_access(ident)

    def _unordered(self, lo: int, hi: int, write: bool, atomic: bool, token: Token
                   ) -> np.ndarray | list[int]:
        """The earlier accesses of the log that may race with an access of bytes [lo, hi):
        overlapping byte ranges, a write on either side, not both atomic, and not ordered
        before it by `token` (a cheap filter: the caller compares the bytes)."""
        n = len(self.accesses)
        if not n:
            return np.zeros(0, np.int64)
        if n <= _FEW_ACCESSES:          # the same filter on Python ints: cheaper for a few
            after = token.after
            return [i for i, (first, end, earlier_write, earlier_atomic)
                    in enumerate(self._spans)
                    if first < hi and lo < end and (write or earlier_write)
                    and not (atomic and earlier_atomic) and not (after >> i) & 1]
        ranges, kinds = self._arrays(n)
        candidates = (ranges[:, 0] < hi) & (lo < ranges[:, 1])
        if not write:
            candidates &= kinds[:, 0]
        if atomic:
            candidates &= ~kinds[:, 1]
        if candidates.any():
            candidates &= ~_bits(token.after, n)
        return np.flatnonzero(candidates)

    def _arrays(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The first `n` accesses' byte ranges and kinds as arrays, brought up to date
        from `_spans` (grown by doubling)."""
        if n > len(self._ranges):
            self._ranges = np.resize(self._ranges, (2 * n, 2))
            self._kinds = np.resize(self._kinds, (2 * n, 2))
        if self._arrayed < n:
            fresh = self._spans[self._arrayed:n]
            self._ranges[self._arrayed:n] = [(lo, hi) for lo, hi, _, _ in fresh]
            self._kinds[self._arrayed:n] = [(w, a) for _, _, w, a in fresh]
            self._arrayed = n
        return self._ranges[:n], self._kinds[:n]

    def _record(self, access: Access, lo: int, hi: int) -> None:
        """Append `access`, which covers bytes [lo, hi) (its span, for `_unordered`)."""
        self._spans.append((int(lo), int(hi), bool(access.write), bool(access.atomic)))
        self.accesses.append(access)

    def output(self) -> TextIO:
        """Where ``print_tko`` writes (stdout unless the launch gave a stream)."""
        return self.stdout if self.stdout is not None else sys.stdout


__all__ = ["Access", "Machine", "RegionExit"]
