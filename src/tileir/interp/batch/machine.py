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

from typing import Any

import numpy as np

from ...diagnostics import ExecutionError
from ...ir import Operation, Value
from ...types import TileType
from ..machine import Access, Machine, _bits
from ..memory import Memory
from ..races import BlockRaces
from ..semantics import SEMANTICS
from ..step import Step
from ..values import FRESH_TOKEN, RegionExit, Token
from .analysis import Plan
from .ops import BATCHED


class UndefinedBehaviour(ExecutionError):
    """Undefined behaviour found by the batched engine (the launcher reruns the kernel one
    tile block at a time to report it exactly)."""


class BatchStep(Step):
    """A `Step` whose failures are `UndefinedBehaviour` (rerun for the exact diagnostic)."""

    def fail(self, message: str) -> ExecutionError:
        exc = super().fail(message)
        return UndefinedBehaviour(exc.diagnostics)


class BatchMachine(Machine):
    """Runs every tile block of `blocks` (an (n, 3) array, schedule order) together."""

    def __init__(self, memory: Memory, blocks: np.ndarray, plan: Plan, *,
                 grid: tuple[int, int, int], checks: bool = True,
                 globals: dict[str, int] | None = None) -> None:
        super().__init__(memory, block_id=tuple(int(b) for b in blocks[0]), grid=grid,
                         checks=checks, globals=globals)
        self.blocks = blocks
        self.count = len(blocks)
        #: Whether `blocks` is the whole grid in grid order (x fastest, then y, then z).
        self.grid_order = self.count == grid[0] * grid[1] * grid[2] and bool(np.all(
            blocks[:, 0] + grid[0] * (blocks[:, 1] + grid[1] * blocks[:, 2])
            == np.arange(self.count)))
        self.varying = plan.varying
        self.batch_depth = 1          # values may carry the block axis
        self.grain = plan.grain
        self.races = BlockRaces(memory, plan.grain) if checks else None

    def step(self, op: Operation) -> Step:
        return BatchStep(op, block_id=self.block_id, grid=self.grid, checks=self.checks,
                         machine=self)

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

    def run_region(self, region, args=(), batched: bool = False):
        if not batched and self.batch_depth == 1:
            args = [self._spread(a, x) if a in self.varying else x
                    for a, x in zip(region.block.arguments, args)]
        return super().run_region(region, args, batched)

    def execute(self, op: Operation) -> None:
        name = op.opdef.name if op.opdef is not None else op.name
        fn = BATCHED.get(name) or SEMANTICS.get(name)
        step = self.step(op)
        if fn is None:
            raise step.fail("has no semantics in the interpreter yet")
        operands = [self.env[v] for v in op.operands]
        lanes = self.batch_depth > 1     # inside a reduce/scan body: values are lanes
        if not lanes and any(v in self.varying for v in op.operands):
            operands = [x if v in self.varying else self._spread(v, x)
                        for v, x in zip(op.operands, operands)]
        try:
            result = fn(step, *operands)
        except (ExecutionError, RegionExit):
            raise
        except Exception as exc:
            raise step.fail(f"internal error: {type(exc).__name__}: {exc}") from exc
        results = op.results
        if not results:
            return
        values = result if len(results) > 1 else (result,)
        for r, value in zip(results, values):
            if isinstance(value, np.generic):
                value = np.asarray(value)
            self._bind(r, value)

    # ---- races --------------------------------------------------------------------

    def access(self, step: Step, addresses: np.ndarray, size: int, mask: np.ndarray | None,
               write: bool, token: Token | None, atomic: bool = False) -> Token:
        """Log an access of every tile block (addresses carry the block axis, or are the
        same for all); report races within a tile block and between tile blocks."""
        token = token if token is not None else FRESH_TOKEN
        if not self.checks:
            return token
        addresses = np.asarray(addresses, np.int64)
        if not any(v in self.varying for v in step.op.operands):   # the same in all blocks
            addresses = np.broadcast_to(addresses, (self.count,) + addresses.shape)
        active = np.ones(addresses.shape, bool) if mask is None else \
            np.broadcast_to(np.asarray(mask, bool), addresses.shape)
        blocks, starts = np.nonzero(active.reshape(self.count, -1))
        flat = addresses.reshape(self.count, -1)[blocks, starts]
        grains = max(size // self.grain, 1)       # every access covers whole grains
        if grains == 1:
            covered = flat // self.grain
        else:
            covered = (flat[:, None] // self.grain + np.arange(grains)).reshape(-1)
            blocks = np.repeat(blocks, grains)
        keys = _pairs(blocks, covered)
        ident = len(self.accesses)
        n = ident
        if n and keys.size:
            kinds = self._kinds[:n]
            candidates = np.ones(n, bool) if write else kinds[:, 0].copy()
            if atomic:
                candidates &= ~kinds[:, 1]
            candidates &= ~_bits(token.after, n)
            for i in np.flatnonzero(candidates):
                earlier = self.accesses[int(i)]
                if _meet(earlier.bytes, keys):
                    raise step.fail("races with an earlier access of its tile block")
        conflict = self.races.add(keys >> BLOCK_BITS, keys & ((1 << BLOCK_BITS) - 1), write)
        if conflict is not None:
            raise step.fail("races with another tile block")
        self._record(Access(ident, step.op, keys, write, atomic))
        return token.with_access(ident)


def _meet(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two sorted arrays of unique keys share one."""
    if not a.size or not b.size or a[-1] < b[0] or b[-1] < a[0]:
        return False
    small, large = (a, b) if a.size <= b.size else (b, a)
    where = np.searchsorted(large, small)
    where[where == large.size] = large.size - 1
    return bool(np.any(large[where] == small))


#: (grain, tile block) pairs are keyed as ``grain << BLOCK_BITS | block``.
BLOCK_BITS = 24


def _pairs(blocks: np.ndarray, addresses: np.ndarray) -> np.ndarray:
    """One key per (grain, tile block) pair, unique and sorted by grain then block (sorting,
    which is several times faster than NumPy's hash-based unique on large arrays)."""
    keys = (addresses.astype(np.int64) << BLOCK_BITS) | blocks.astype(np.int64)
    if keys.size > 1:
        step = keys[1:] > keys[:-1]
        if not step.all():          # views in grid order usually give sorted keys already
            keys = np.sort(keys)
            step = keys[1:] != keys[:-1]
        keys = keys[np.r_[True, step]]
    return keys


__all__ = ["BatchMachine", "BatchStep", "UndefinedBehaviour"]
