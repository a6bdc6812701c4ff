"""Rewriting IR in place: a `Rewriter` that keeps every value's users up to date, and the
greedy pattern driver (MLIR's ``applyPatternsGreedily``) the passes share.

The IR (`tileir.ir`) keeps no use lists; a `Rewriter` builds them once for the op it
works under and updates them on every change it makes, so patterns find a value's users
in constant time.  Patterns must change the IR only through the rewriter.

A pattern is a function ``pattern(op, rewriter) -> bool`` registered for op names; it
returns whether it changed anything.  A fold is the same, registered in `FOLDS`: the
driver tries folds before patterns.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Iterable, Sequence

from ..ir import Block, Operation, Value

#: ``pattern(op, rewriter) -> bool``: whether it rewrote `op`.
Pattern = Callable[[Operation, "Rewriter"], bool]


class Rewriter:
    """Changes the IR under `root`, keeping each value's users (`users`) current, and
    tells the driver (`on_change`) which ops may now match a pattern again."""

    def __init__(self, root: Operation) -> None:
        self.root = root
        #: value -> {user op: how many of its operands are the value}
        self.uses: dict[Value, dict[Operation, int]] = defaultdict(dict)
        for op in root.walk():
            if op is not root:
                self._add_uses(op)
        self.on_change: Callable[[Operation], None] | None = None
        self.on_erase: Callable[[Operation], None] | None = None

    # ---- reading ----------------------------------------------------

    def users(self, value: Value) -> list[Operation]:
        """The ops that use `value` (each once)."""
        found = self.uses.get(value)
        return list(found) if found else []

    def use_count(self, value: Value) -> int:
        """How many operands (of all ops) are `value`."""
        found = self.uses.get(value)
        return sum(found.values()) if found else 0

    def has_uses(self, value: Value) -> bool:
        """Whether any op uses `value`."""
        return bool(self.uses.get(value))

    # ---- changing ---------------------------------------------------

    def _add_uses(self, op: Operation) -> None:
        for value in op.operands:
            users = self.uses[value]
            users[op] = users.get(op, 0) + 1

    def _drop_uses(self, op: Operation) -> None:
        for value in op.operands:
            users = self.uses.get(value)
            if users is not None and op in users:
                users[op] -= 1
                if not users[op]:
                    del users[op]

    def _changed(self, op: Operation) -> None:
        if self.on_change is not None:
            self.on_change(op)

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        """Put `op` (new, or detached) just before `anchor`."""
        block = anchor.parent
        assert block is not None
        block.operations.insert(block.operations.index(anchor), op)
        op.parent = block
        self._track(op)
        return op

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        """Put `op` (new, or detached) just after `anchor`."""
        block = anchor.parent
        assert block is not None
        block.operations.insert(block.operations.index(anchor) + 1, op)
        op.parent = block
        self._track(op)
        return op

    def insert_at(self, block: Block, index: int, op: Operation) -> Operation:
        """Put `op` at position `index` of `block`."""
        block.operations.insert(index, op)
        op.parent = block
        self._track(op)
        return op

    def _track(self, op: Operation) -> None:
        """Record the uses of `op` and of everything nested in it, and offer them to the
        driver."""
        for nested in op.walk():
            self._drop_uses(nested)     # (a moved op's uses are recorded already)
            self._add_uses(nested)
            self._changed(nested)

    def create(self, anchor: Operation, name: str, operands: Sequence[Any] = (),
               result_types: Sequence[Any] = (), attributes: dict[str, Any] | None = None,
               location: Any = None, after: bool = False) -> Operation:
        """A new op `name` (see `tileir.ir.Builder.create`) placed before (or `after`)
        `anchor`, at `anchor`'s location unless given."""
        from ..ir import Builder
        op = Builder(None, anchor.location if location is None else location).create(
            name, operands, result_types, attributes)
        return self.insert_after(anchor, op) if after else self.insert_before(anchor, op)

    def set_operand(self, op: Operation, index: int, value: Value) -> None:
        """Make operand `index` of `op` be `value`."""
        self._drop_uses(op)
        op.operands[index] = value
        self._add_uses(op)
        self._changed(op)

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Make every use of `old` a use of `new`."""
        if old is new:
            return
        for user in self.users(old):
            self._drop_uses(user)
            user.operands = [new if v is old else v for v in user.operands]
            self._add_uses(user)
            self._changed(user)

    def replace_op(self, op: Operation, values: Sequence[Value]) -> None:
        """Replace each result of `op` by the value in its place, then erase `op`."""
        assert len(values) == len(op.results), (op.name, len(values), len(op.results))
        for result, value in zip(op.results, values):
            self.replace_all_uses(result, value)
        self.erase_op(op)

    def erase_op(self, op: Operation) -> None:
        """Remove `op` (its results must be unused) and everything nested in it; the ops
        that defined its operands are offered to the driver (they may be dead now)."""
        for nested in op.walk(post_order=True):
            for value in nested.operands:
                owner = getattr(value, "owner", None)
                if isinstance(owner, Operation):
                    self._changed(owner)
            self._drop_uses(nested)
            if self.on_erase is not None:
                self.on_erase(nested)
        block = op.parent
        if block is not None:
            block.operations.remove(op)
        op.parent = None

    def move_before(self, op: Operation, anchor: Operation) -> None:
        """Move `op` (with its regions) to just before `anchor`."""
        block = op.parent
        if block is not None:
            block.operations.remove(op)
        self.insert_before(anchor, op)

    def inline_block_before(self, block: Block, anchor: Operation,
                            arguments: Sequence[Value] = ()) -> None:
        """Move every op of `block` to just before `anchor`, its arguments replaced by
        `arguments` (MLIR's ``inlineBlockBefore``); the block is left empty."""
        for argument, value in zip(block.arguments, arguments, strict=True):
            self.replace_all_uses(argument, value)
        target = anchor.parent
        assert target is not None
        at = target.operations.index(anchor)
        ops = list(block.operations)
        block.operations.clear()
        target.operations[at:at] = ops
        for op in ops:
            op.parent = target
            self._changed(op)

    def modified(self, op: Operation) -> None:
        """Say that `op` was changed in place (an attribute), so the driver looks again."""
        self._changed(op)


# ---- what an op may do, for dead-code removal -------------------------------------------


def is_pure(op: Operation) -> bool:
    """Whether `op` has no memory effect (Pure / NoMemoryEffect, or RecursiveMemoryEffects
    with every nested op pure)."""
    traits = op.opdef.traits if op.opdef is not None else frozenset()
    if "Pure" in traits or "NoMemoryEffect" in traits or "ConstantLike" in traits:
        return True
    if "RecursiveMemoryEffects" in traits:
        return all(is_pure(nested) for region in op.regions for block in region.blocks
                   for nested in block.operations)
    return False


def is_trivially_dead(op: Operation, rewriter: Rewriter) -> bool:
    """Whether `op` can go: no result used, no effect, not a terminator."""
    traits = op.opdef.traits if op.opdef is not None else frozenset()
    if "Terminator" in traits or "ReturnLike" in traits:
        return False
    return all(not rewriter.has_uses(r) for r in op.results) and is_pure(op)


# ---- the greedy driver ------------------------------------------------------------------


class Patterns:
    """Patterns and folds by op name (full names: ``cuda_tile.addf``), in the order they are
    tried; patterns registered for None apply to every op."""

    def __init__(self) -> None:
        self.by_name: dict[str | None, list[Pattern]] = defaultdict(list)

    def add(self, names: str | Iterable[str] | None, pattern: Pattern) -> Pattern:
        """Register `pattern` for `names` (None: every op)."""
        for name in [names] if names is None or isinstance(names, str) else names:
            self.by_name[name].append(pattern)
        return pattern

    def extend(self, other: "Patterns") -> "Patterns":
        """Add every pattern of `other` after this set's own."""
        for name, patterns in other.by_name.items():
            self.by_name[name].extend(patterns)
        return self

    def for_op(self, op: Operation) -> list[Pattern]:
        """The patterns to try on `op`."""
        return self.by_name.get(op.name, []) + self.by_name.get(None, [])


#: The most times the driver starts over before it gives up (MLIR: maxIterations = 10).
MAX_ITERATIONS = 10


def apply_greedily(root: Operation, patterns: Patterns, *, remove_dead: bool = True,
                   max_iterations: int = MAX_ITERATIONS,
                   prepare: Callable[[Rewriter], None] | None = None) -> bool:
    """Apply `patterns` to every op nested in `root` until none matches (MLIR's greedy
    driver: ops visited in post-order, trivially dead ops erased, every op a change may
    affect visited again); whether anything changed.  `prepare` runs once with the
    rewriter before the first sweep (e.g. to gather constants)."""
    rewriter = Rewriter(root)
    if prepare is not None:
        prepare(rewriter)
    changed_any = False
    for _ in range(max_iterations):
        worklist: list[Operation] = []
        queued: set[int] = set()
        erased: set[int] = set()

        def push(op: Operation) -> None:
            if id(op) not in queued and op is not root:
                queued.add(id(op))
                worklist.append(op)

        def dropped(op: Operation) -> None:
            erased.add(id(op))
        rewriter.on_change = push
        rewriter.on_erase = dropped
        for op in root.walk(post_order=True):
            push(op)
        worklist.reverse()      # (popped from the back: post-order first)
        changed = False
        while worklist:
            op = worklist.pop()
            queued.discard(id(op))
            if id(op) in erased or op.parent is None:
                continue
            if remove_dead and is_trivially_dead(op, rewriter):
                rewriter.erase_op(op)
                changed = True
                continue
            for pattern in patterns.for_op(op):
                if pattern(op, rewriter):
                    changed = True
                    break
        changed_any |= changed
        if not changed:
            break
    return changed_any


__all__ = ["MAX_ITERATIONS", "Pattern", "Patterns", "Rewriter", "apply_greedily", "is_pure",
           "is_trivially_dead"]
