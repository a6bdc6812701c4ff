"""All tile blocks of a launch at once: `BatchMachine` runs the kernel body one time, each
varying value an array with a leading axis over the tile blocks (in schedule order), each
uniform value held once.

Most ops' semantics already take leading axes (reduce and scan run their bodies on lanes
that way), so they run unchanged; when an op mixes varying and uniform tile operands, the
uniform ones are broadcast along the block axis first.  The ops that read the tile block
id or index memory through views have batched versions (`batch.ops`).

With checks on, the same undefined behaviour is detected as one tile block at a time
would: out-of-bounds and misaligned accesses, index-space and arithmetic checks (the
semantics functions check whole arrays), races inside a tile block between accesses no
token chain orders, and races between tile blocks (`BlockRaces`).  Detecting is enough:
the launcher then reruns the kernel one tile block at a time from a copy of the memory
taken before, so the diagnostic is exactly the reference engine's.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...diagnostics import ExecutionError, error
from ...ir import Operation, Value, location_of
from ...types import TileType
from ..machine import Access, Machine, Steps
from ..memory import Memory
from ..plan import BlockPlan, KernelPlan, OpPlan
from ..step import Step
from ..values import FRESH_TOKEN, RegionExit, Token
from .analysis import Plan
from .footprints import (BLOCK_BITS, BlockFootprints, Footprint, Keys, Uniform,
                         overlap_within_blocks, pair_keys)
from .ops import BATCHED


#: Ops whose operands are not spread along the block axis (see `BatchMachine.execute`).
CONTROL_FLOW = frozenset({"for", "if", "loop"})


class UndefinedBehaviour(ExecutionError):
    """Undefined behaviour found by the batched engine (the launcher reruns the kernel one
    tile block at a time to report it exactly)."""


class Stopped(UndefinedBehaviour):
    """Raised in a span when another span running beside it has failed."""


class InternalError(UndefinedBehaviour):
    """A bug of the batched engine (the launcher reruns the kernel one tile block at a
    time, and says so)."""


class BatchStep(Step):
    """A `Step` whose failures are `UndefinedBehaviour` (rerun for the exact diagnostic)."""

    def fail(self, message: str) -> ExecutionError:
        exc = super().fail(message)
        return UndefinedBehaviour(exc.diagnostics)


#: Up to this many tile blocks `Span.blocks` counts them out in Python, not NumPy.
_FEW_BLOCKS = 16


@dataclass(frozen=True)
class Span:
    """A box of tile blocks, contiguous in grid order (x fastest, then y, then z): its
    first block's coordinates, its extents and that block's number in the grid."""

    origin: tuple[int, int, int]
    shape: tuple[int, int, int]
    first: int

    @property
    def count(self) -> int:
        """How many tile blocks the span holds."""
        return self.shape[0] * self.shape[1] * self.shape[2]

    def blocks(self) -> np.ndarray:
        """The (count, 3) block coordinates, in grid order."""
        gx, gy, _ = self.shape
        if self.count <= _FEW_BLOCKS:   # (Python's ints beat NumPy's calls for a few)
            x0, y0, z0 = self.origin
            return np.array([(x0 + n % gx, y0 + n // gx % gy, z0 + n // (gx * gy))
                             for n in range(self.count)], np.int64).reshape(self.count, 3)
        number = np.arange(self.count, dtype=np.int64)   # each block's, in the span
        out = np.empty((self.count, 3), np.int64)
        out[:, 0] = number % gx
        out[:, 1] = number // gx % gy
        out[:, 2] = number // (gx * gy)
        out += np.array(self.origin, np.int64)
        return out


#: Spans of up to this many tile blocks share their block id tiles between launches
#: (`_span_block_ids`: read-only arrays, fixed by the span alone).
_SHARED_IDS = 4096


def _block_id_columns(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The x, y and z columns of (count, 3) block coordinates as read-only i32 tiles."""
    columns = np.array(blocks.T, np.int32, order="C")   # (a row per axis)
    columns.flags.writeable = False
    return columns[0], columns[1], columns[2]


@functools.lru_cache(maxsize=64)
def _span_block_ids(span: "Span") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`BatchMachine.block_ids` of a small span, kept: a kernel launched again and again
    on one grid asks for the same ones (read-only, so no launch can change another's)."""
    return _block_id_columns(span.blocks())


def spans(grid: tuple[int, int, int], limit: int) -> list[Span]:
    """The grid cut into spans of at most `limit` tile blocks where whole planes, rows or
    runs of a row allow (a span never holds less than one row run of `limit` blocks)."""
    gx, gy, gz = grid
    out: list[Span] = []
    if gx * gy * gz <= limit:
        return [Span((0, 0, 0), grid, 0)]
    if gx * gy <= limit:
        k = limit // (gx * gy)
        for z in range(0, gz, k):
            out.append(Span((0, 0, z), (gx, gy, min(k, gz - z)), z * gx * gy))
        return out
    if gx <= limit:
        k = limit // gx
        for z in range(gz):
            for y in range(0, gy, k):
                out.append(Span((0, y, z), (gx, min(k, gy - y), 1), (z * gy + y) * gx))
        return out
    for z in range(gz):
        for y in range(gy):
            for x in range(0, gx, limit):
                out.append(Span((x, y, z), (min(limit, gx - x), 1, 1), (z * gy + y) * gx + x))
    return out


class BatchMachine(Machine):
    """Runs every tile block of a `Span` of the grid together (in grid order)."""

    def __init__(self, memory: Memory, span: Span, plan: Plan, *,
                 grid: tuple[int, int, int], checks: bool = True,
                 globals: dict[str, int] | None = None,
                 races: BlockFootprints | None = None,
                 stop: threading.Event | None = None,
                 kernel_plan: KernelPlan | None = None) -> None:
        super().__init__(memory, block_id=span.origin, grid=grid, checks=checks,
                         globals=globals, kernel_plan=kernel_plan)
        self.span = span
        self.count = span.count
        self.varying = plan.varying
        self.analysis = plan
        self.batch_depth = 1          # values may carry the block axis
        self.grain = plan.grain
        #: Whether a load has returned a view of memory (see `unshare`).
        self.views = False
        #: Set when another span running beside this one fails: stop at the next op.
        self.stop = stop
        self.thread = threading.get_ident()
        #: Races between tile blocks, shared by the spans of one launch (with checks off,
        #: when given: two blocks meeting make the order of blocks decide the result).
        self.races = (races if races is not None else BlockFootprints(memory, plan.grain)) \
            if checks else races

    @functools.cached_property
    def blocks(self) -> np.ndarray:
        """The (count, 3) coordinates of the span's tile blocks, in grid order (made when
        first asked for: only ``get_tile_block_id`` reads them)."""
        return self.span.blocks()

    @functools.cached_property
    def block_ids(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The x, y and z columns of `blocks` as i32 tiles (read-only: every
        ``get_tile_block_id`` of the span gets these arrays)."""
        if self.span.count <= _SHARED_IDS:
            return _span_block_ids(self.span)
        return _block_id_columns(self.blocks)

    def run_function(self, function: Operation, args) -> list[Any]:
        """Run the kernel body for the span's blocks (see `Machine.run_function`), copying
        the values that view memory before memory under them is written."""
        self.thread = threading.get_ident()
        self.memory.before_write.append(self.unshare)
        try:
            return super().run_function(function, args)
        finally:
            self.memory.before_write.remove(self.unshare)

    def unshare(self, data: np.ndarray) -> None:
        """Give every value that may view `data`'s memory its own copy: `data` is about
        to be written, and loads through windows return views of memory."""
        if not self.views or threading.get_ident() != self.thread:
            return          # (another span's write: its memory is not ours, or it races)
        env = self.env
        for value, x in env.items():
            if isinstance(x, np.ndarray) and x.base is not None and \
                    np.may_share_memory(x, data):
                env[value] = np.array(x)

    def step(self, op: Operation, plan: OpPlan | None = None) -> Step:
        """A `BatchStep` (see `Machine.step`)."""
        return BatchStep(op, self.block_id, self.grid, self.checks, self, plan)

    def _spread(self, value: Value, x: Any) -> Any:
        """`x` with the block axis (a uniform tile broadcast along it)."""
        if not isinstance(value.type, TileType) or not isinstance(x, np.ndarray) or \
                x.ndim > value.type.rank:
            return x
        return np.broadcast_to(x, (self.count,) + x.shape)

    def _bind(self, value: Value, x: Any) -> None:
        """Bind `x` to `value`, giving it the block axis when `value` varies (a loop value
        varying from its second iteration starts uniform; an `if` may yield a uniform
        value where its other branch yields a varying one)."""
        if value in self.varying and self.batch_depth == 1:
            x = self._spread(value, x)
        self.env[value] = x

    def _bind_arguments(self, plan: BlockPlan, args) -> None:
        """Bind a block's arguments, giving the varying ones the block axis."""
        if self.batch_depth == 1:
            found = plan.batch
            if found is None or found[0] is not self.analysis:
                varying = self.varying
                found = plan.batch = (self.analysis,
                                      any(a in varying for a in plan.arguments))
            if found[1]:
                varying = self.varying
                args = [self._spread(a, x) if a in varying else x
                        for a, x in zip(plan.arguments, args, strict=True)]
        super()._bind_arguments(plan, args)

    def _execute(self, p: OpPlan, steps: Steps) -> None:
        if self.stop is not None and self.stop.is_set():
            raise Stopped("stopped: a span running beside this one failed")
        found = p.batch
        if found is None or found[0] is not self.analysis:
            found = p.batch = self._read(p)
        _, spreads, fn, scalar = found
        if fn is None:
            raise steps[p].fail("has no semantics in the interpreter yet")
        operands = list(map(self.env.__getitem__, p.operands))
        top = self.batch_depth == 1     # (inside a reduce/scan body: lanes, never spread)
        if spreads and top:
            varying = self.varying
            operands = [x if v in varying else self._spread(v, x)
                        for v, x in zip(p.operands, operands)]
        try:
            if scalar is not None:      # (it declines values with the block axis)
                result = scalar(*operands)
                if result is not None:
                    r = p.results[0]
                    self.env[r] = self._spread(r, result) if top and r in self.varying \
                        else result
                    return
            result = fn(steps[p], *operands)
        except (ExecutionError, RegionExit):
            raise
        except Exception as exc:
            raise InternalError(error(f"'{p.op.name}' op internal error: "
                                      f"{type(exc).__name__}: {exc}", location_of(p.op))) from exc
        results = p.results
        if not results:
            return
        values = result if len(results) > 1 else (result,)
        for r, value in zip(results, values):
            if isinstance(value, np.generic):
                value = np.asarray(value)
            self._bind(r, value)

    def _read(self, p: OpPlan) -> tuple[Plan, bool, Any, Any]:
        """What this engine reads from an op under the analysis: (the analysis, whether
        uniform tile operands are spread along the block axis (a varying operand, and no
        control flow: its varying values reach its regions through `_bind_arguments`),
        the function run (a batched version of `batch.ops`, else the semantics), and the
        scalar path (none for a batched version))."""
        varying = self.varying
        spreads = p.name not in CONTROL_FLOW and any(v in varying for v in p.operands)
        batched = BATCHED.get(p.name)
        return (self.analysis, spreads, batched or p.fn,
                p.scalar if batched is None else None)

    # ---- races --------------------------------------------------------------------

    def access(self, step: Step, addresses: np.ndarray, size: int, mask: np.ndarray | None,
               write: bool, token: Token | None, atomic: bool = False) -> Token:
        """Log an access of every tile block given address by address (addresses carry
        the block axis, or are the same for all); see `log`."""
        token = token if token is not None else FRESH_TOKEN
        if self.races is None:
            return token
        addresses = np.asarray(addresses, np.int64)
        dense = self.memory.dense
        if not any(v in self.varying for v in step.op.operands):   # the same in all blocks
            if mask is not None:
                addresses = addresses[np.broadcast_to(np.asarray(mask, bool), addresses.shape)]
            grains = pair_keys(np.zeros(addresses.size, np.int64), dense(addresses.reshape(-1)),
                               self.grain, size) >> BLOCK_BITS
            return self.log(step, Uniform(grains, self.count, self.span.first, self.grain),
                            write, token, atomic)
        active = np.ones(addresses.shape, bool) if mask is None else \
            np.broadcast_to(np.asarray(mask, bool), addresses.shape)
        blocks, starts = np.nonzero(active.reshape(self.count, -1))
        flat = dense(addresses.reshape(self.count, -1)[blocks, starts])
        keys = pair_keys(blocks + self.span.first, flat, self.grain, size)
        lo = int(keys[0] >> BLOCK_BITS) * self.grain if keys.size else 0
        hi = (int(keys[-1] >> BLOCK_BITS) + 1) * self.grain if keys.size else 0
        return self.log(step, Keys(keys, lo, hi), write, token, atomic)

    def log(self, step: Step, footprint: Footprint, write: bool, token: Token | None,
            atomic: bool = False) -> Token:
        """Log an access of every tile block, ordered after `token`; its result token.
        Reports (as `UndefinedBehaviour`) a race inside a tile block with an earlier
        access no token orders before this one (checks on), and a race between tile
        blocks (with checks off too, when the launch records them)."""
        token = token if token is not None else FRESH_TOKEN
        if self.checks and not footprint.empty:
            for i in self._unordered(footprint.lo, footprint.hi, write, atomic, token):
                if overlap_within_blocks(self.accesses[int(i)].bytes, footprint, self.grain):
                    raise step.fail("races with an earlier access of its tile block")
        if self.races.add(footprint, write) is not None:
            raise step.fail("races with another tile block")
        if not self.checks:         # (nothing within a block is checked: tokens stay empty)
            return token
        ident = len(self.accesses)
        self._record(Access(ident, step.op, footprint, write, atomic), footprint.lo,
                     footprint.hi)
        return token.with_access(ident)


__all__ = ["BatchMachine", "BatchStep", "InternalError", "Span", "Stopped",
           "UndefinedBehaviour", "spans"]
