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

from typing import Any, Sequence

import numpy as np

from ...diagnostics import ExecutionError
from ...ir import Operation, Value
from ...types import TileType
from ..machine import Access, Machine, _bits
from ..memory import Memory
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
        self.varying = plan.varying
        self.batch_depth = 1          # values may carry the block axis
        self.races = BlockRaces(memory, self.count) if checks else None

    def step(self, op: Operation) -> Step:
        return BatchStep(op, block_id=self.block_id, grid=self.grid, checks=self.checks,
                         machine=self)

    def _spread(self, value: Value, x: Any) -> Any:
        """`x` with the block axis (a uniform tile broadcast along it)."""
        if value in self.varying or not isinstance(value.type, TileType) or \
                not isinstance(x, np.ndarray):
            return x
        return np.broadcast_to(x, (self.count,) + x.shape)

    def execute(self, op: Operation) -> None:
        name = op.opdef.name if op.opdef is not None else op.name
        fn = BATCHED.get(name) or SEMANTICS.get(name)
        step = self.step(op)
        if fn is None:
            raise step.fail("has no semantics in the interpreter yet")
        operands = [self.env[v] for v in op.operands]
        lanes = self.batch_depth > 1     # inside a reduce/scan body: values are lanes
        if not lanes and any(v in self.varying for v in op.operands):
            operands = [self._spread(v, x) for v, x in zip(op.operands, operands)]
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
            self.env[r] = value

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
        covered = (flat[:, None] + np.arange(size)).reshape(-1)
        keys = _pairs(np.repeat(blocks, size), covered)
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
                if np.intersect1d(earlier.bytes, keys, assume_unique=True).size:
                    raise step.fail("races with an earlier access of its tile block")
        self.races.add(step, keys, write)
        self._record(Access(ident, step.op, keys, write, atomic))
        return token.with_access(ident)


#: (byte, tile block) pairs are keyed as ``byte << BLOCK_BITS | block``.
BLOCK_BITS = 24


def _pairs(blocks: np.ndarray, addresses: np.ndarray) -> np.ndarray:
    """One key per (byte, tile block) pair, unique and sorted by byte then block."""
    return np.unique((addresses.astype(np.int64) << BLOCK_BITS) | blocks.astype(np.int64))


class BlockRaces:
    """Which tile block wrote and which read every byte of every buffer, to find two tile
    blocks touching one byte, one of them writing, with nothing ordering them."""

    def __init__(self, memory: Memory, count: int) -> None:
        self.memory = memory
        self.state: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def add(self, step: Step, keys: np.ndarray, write: bool) -> None:
        """Report a conflict of this access (unique (byte, block) keys of every block) with
        the accesses of other blocks, then record it."""
        if not keys.size:
            return
        addresses = keys >> BLOCK_BITS
        blocks = keys & ((1 << BLOCK_BITS) - 1)
        same = addresses[1:] == addresses[:-1]          # the same byte, another block
        if write and np.any(same):
            raise step.fail("races with another tile block: both write one address")
        memory = self.memory
        index = np.searchsorted(memory._bases, addresses, side="right") - 1
        for i in np.unique(index[index >= 0]):
            rows = index == i
            base = int(memory._bases[i])
            offsets = addresses[rows] - base
            who = blocks[rows]
            if base not in self.state:
                size = memory.buffers[int(i)].size
                self.state[base] = (np.full(size, -1, np.int32), np.full(size, -1, np.int32),
                                    np.zeros(size, bool))
            writer, reader, shared = self.state[base]
            w = writer[offsets]
            other = (w >= 0) & (w != who)
            if write:
                r = reader[offsets]
                other |= ((r >= 0) & (r != who)) | shared[offsets]
            if other.any():
                raise step.fail("races with another tile block")
            if write:
                writer[offsets] = who
            else:
                r = reader[offsets]
                repeated = np.r_[False, offsets[1:] == offsets[:-1]] | \
                    np.r_[offsets[1:] == offsets[:-1], False]   # read by several blocks
                shared[offsets] |= ((r >= 0) & (r != who)) | repeated
                reader[offsets] = np.where(r < 0, who, r)


__all__ = ["BatchMachine", "BatchStep", "BlockRaces", "UndefinedBehaviour"]
