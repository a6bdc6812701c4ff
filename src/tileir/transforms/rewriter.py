"""Rewriting IR in place: a `Rewriter` that keeps every value's users up to date, and the
greedy pattern driver (MLIR's ``applyPatternsGreedily``) the passes share.

The IR (`tileir.ir`) keeps no use lists; a `Rewriter` builds them once for the op it
works under and updates them on every change it makes, so patterns find a value's users
in constant time.  Patterns must change the IR only through the rewriter, which tells the
driver what it did (MLIR's rewriter listener): `on_change` for an op inserted or changed
in place, `on_erase` for an op about to go.

A pattern is a function ``pattern(op, rewriter) -> bool`` registered for op names in a
`Patterns` set; it returns whether it changed anything.  A fold is an op's own hook (MLIR's
``hasFolder``), registered once in `FOLDS` with `fold` and tried by every greedy run before
the patterns: ``fold(op, rewriter)`` returns None (no fold), ``[]`` (the op was changed in
place) or one existing value per result to replace the op with.  The folds and
canonicalization patterns of the cuda_tile ops live in `tileir.transforms.canonical`.

`apply_greedily` follows MLIR's driver step by step, since the order it visits ops in
decides where constants end up: each sweep seeds a worklist (post-order, popped from the
back, so the last op first; or pre-order, popped first to last, with ``top_down``), hoists
every constant to the front of the entry block of its nearest isolated-from-above op and
drops duplicates (MLIR's ``OperationFolder``), then pops ops: a trivially dead op is erased,
else its fold is tried, else its patterns.  Whatever a change touches is queued again: new
and changed ops with their ancestors, the users of replaced values, and the defining ops of
an erased op's operands that are left with at most one user.  After the worklist empties,
dead ops are swept from every region (MLIR's region simplification), and sweeps repeat
until one changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..attributes import UNKNOWN_LOC, Attribute
from ..ir import Block, Operation, Region, Value

#: ``pattern(op, rewriter) -> bool``: whether it rewrote `op`.
Pattern = Callable[[Operation, "Rewriter"], bool]
#: ``fold(op, rewriter) -> None | [] | [value or attribute per result]`` (see the module
#: docstring).
Fold = Callable[[Operation, "Rewriter"], "list[Value | Attribute] | None"]


def traits_of(op: Operation) -> frozenset[str]:
    """The declared traits of `op` (none for an unregistered op)."""
    return op.opdef.traits if op.opdef is not None else frozenset()


def might_be_isolated(op: Operation) -> bool:
    """Whether `op`'s regions may not see values from outside it: IsolatedFromAbove, or
    unregistered (MLIR's ``mightHaveTrait``)."""
    return op.opdef is None or "IsolatedFromAbove" in op.opdef.traits


class Rewriter:
    """Changes the IR under `root`, keeping each value's users (`users`) current, and
    tells the driver (`on_change`, `on_erase`) which ops it inserted, changed or erased."""

    def __init__(self, root: Operation) -> None:
        self.root = root
        #: value -> {user op: how many of its operands are the value}, in the order the
        #: uses were made.
        self.uses: dict[Value, dict[Operation, int]] = defaultdict(dict)
        for op in root.walk():
            if op is not root:
                self._add_uses(op)
        #: Called with each op inserted (new or moved) or changed in place.
        self.on_change: Callable[[Operation], None] | None = None
        #: Called with each op about to be erased (its own uses already dropped).
        self.on_erase: Callable[[Operation], None] | None = None

    # ---- reading ----------------------------------------------------

    def users(self, value: Value) -> list[Operation]:
        """The ops that use `value` (each once), oldest use first."""
        found = self.uses.get(value)
        return list(found) if found else []

    def use_count(self, value: Value) -> int:
        """How many operands (of all ops) are `value`."""
        found = self.uses.get(value)
        return sum(found.values()) if found else 0

    def has_uses(self, value: Value) -> bool:
        """Whether any op uses `value`."""
        return bool(self.uses.get(value))

    def has_one_use(self, value: Value) -> bool:
        """Whether exactly one operand (of all ops) is `value` (MLIR's ``hasOneUse``)."""
        return self.use_count(value) == 1

    # ---- bookkeeping ------------------------------------------------

    def _add_uses(self, op: Operation) -> None:
        """Record the uses `op`'s operands make."""
        for value in op.operands:
            users = self.uses[value]
            users[op] = users.get(op, 0) + 1

    def _drop_uses(self, op: Operation) -> None:
        """Forget the uses `op`'s operands make."""
        for value in op.operands:
            users = self.uses.get(value)
            if users is not None and op in users:
                users[op] -= 1
                if not users[op]:
                    del users[op]

    def _changed(self, op: Operation) -> None:
        """Tell the driver `op` was inserted or changed."""
        if self.on_change is not None:
            self.on_change(op)

    def modified(self, op: Operation) -> None:
        """Say that `op` was changed in place (an attribute), so the driver looks again."""
        self._changed(op)

    # ---- inserting --------------------------------------------------

    def _place(self, block: Block, index: int, op: Operation) -> Operation:
        """Put `op` at `index` of `block`, record its uses (and those of the ops nested in
        it) and tell the driver about `op` (MLIR notifies the inserted op only)."""
        block.operations.insert(index, op)
        op.parent = block
        for nested in op.walk():
            self._drop_uses(nested)     # (a moved op's uses are recorded already)
            self._add_uses(nested)
        self._changed(op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        """Put `op` (new, or detached) just before `anchor`."""
        block = anchor.parent
        assert block is not None
        return self._place(block, block.operations.index(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        """Put `op` (new, or detached) just after `anchor`."""
        block = anchor.parent
        assert block is not None
        return self._place(block, block.operations.index(anchor) + 1, op)

    def insert_at(self, block: Block, index: int, op: Operation) -> Operation:
        """Put `op` at position `index` of `block` (``len(block.operations)``: at its end)."""
        return self._place(block, index, op)

    def create(self, anchor: Operation | Block, name: str, operands: Sequence[Any] = (),
               result_types: Sequence[Any] = (), attributes: dict[str, Any] | None = None,
               location: Any = None, after: bool = False, blocks: bool = True
               ) -> Operation:
        """A new op `name` (see `tileir.ir.Builder.create`: one entry of `operands` per
        declared operand group) placed before (or `after`) `anchor`, or at the end of
        `anchor` when it is a block, at `anchor`'s location unless given.  Its regions get
        one empty block each, or none without `blocks` (MLIR's builders of region ops)."""
        from ..ops import registry
        opdef = registry.lookup(name)
        if opdef is None:
            raise KeyError(f"unknown operation '{name}'")
        where = anchor if isinstance(anchor, Operation) else None
        if location is None:
            location = where.location if where is not None else UNKNOWN_LOC
        op = opdef.build(operands, result_types, attributes or {}, location)
        if blocks:
            for region in op.regions:
                region.add_block()
        if isinstance(anchor, Block):
            return self.insert_at(anchor, len(anchor.operations), op)
        return self.insert_after(anchor, op) if after else self.insert_before(anchor, op)

    def clone_without_regions(self, op: Operation) -> Operation:
        """A copy of `op` (operands, result types, attributes, location) with empty regions,
        placed just before it (MLIR's ``cloneWithoutRegions``)."""
        return self.insert_before(op, op.clone(regions=False))

    # ---- changing ---------------------------------------------------

    def set_operand(self, op: Operation, index: int, value: Value) -> None:
        """Make operand `index` of `op` be `value`."""
        self._drop_uses(op)
        op.operands[index] = value
        self._add_uses(op)
        self._changed(op)

    def set_operands(self, op: Operation, values: Sequence[Value]) -> None:
        """Make `values` the operands of `op` (a terminator's, say)."""
        self._drop_uses(op)
        op.operands = list(values)
        self._add_uses(op)
        self._changed(op)

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Make every use of `old` a use of `new` (each user is told, newest use first,
        as MLIR walks a use list)."""
        if old is not new:
            self.replace_uses_where(old, new, lambda user: True)

    def replace_uses_where(self, old: Value, new: Value,
                           where: Callable[[Operation], bool]) -> None:
        """Make the uses of `old` by the ops `where` accepts uses of `new` (each user
        told, newest use first)."""
        for user in reversed(self.users(old)):
            if where(user):
                self._drop_uses(user)
                user.operands = [new if v is old else v for v in user.operands]
                self._add_uses(user)
                self._changed(user)

    def replace_op(self, op: Operation, values: Sequence[Value | None]) -> None:
        """Replace each result of `op` by the value in its place (None for a result
        without uses), then erase `op`."""
        assert len(values) == len(op.results), (op.name, len(values), len(op.results))
        for result, value in zip(op.results, values):
            if value is None:
                assert not self.has_uses(result), (op.name, "a used result replaced by None")
            else:
                self.replace_all_uses(result, value)
        self.erase_op(op)

    def erase_op(self, op: Operation) -> None:
        """Remove `op` and everything nested in it, users before definitions (the ops of
        each block last to first, nested ops before their parent), telling the driver of
        each; `op`'s results must be unused."""
        for region in reversed(op.regions):
            for block in list(region.blocks):
                for nested in reversed(list(block.operations)):
                    self.erase_op(nested)
            region.blocks.clear()
        self._drop_uses(op)
        if self.on_erase is not None:
            self.on_erase(op)
        for result in op.results:
            self.uses.pop(result, None)
        block = op.parent
        if block is not None:
            block.operations.remove(op)
        op.parent = None

    def erase_from(self, op: Operation) -> None:
        """Erase `op` and every op after it in its block (what follows a terminator that
        leaves the block is unreachable), the last first."""
        block = op.parent
        assert block is not None
        ops = block.operations
        for doomed in reversed(ops[ops.index(op):]):
            self.erase_op(doomed)

    def move_before(self, op: Operation, anchor: Operation) -> None:
        """Move `op` (with its regions) to just before `anchor`."""
        block = op.parent
        if block is not None:
            block.operations.remove(op)
        self.insert_before(anchor, op)

    # ---- blocks and regions -----------------------------------------

    def inline_block_before(self, block: Block, anchor: Operation | None,
                            arguments: Sequence[Value] = (), into: Block | None = None
                            ) -> None:
        """Move every op of `block` to just before `anchor` (or to the end of `into`), its
        arguments replaced by `arguments`, and remove the emptied block from its region
        (MLIR's ``inlineBlockBefore``); each moved op is told to the driver."""
        for argument, value in zip(block.arguments, arguments, strict=True):
            self.replace_all_uses(argument, value)
        target = into if anchor is None else anchor.parent
        assert target is not None
        at = len(target.operations) if anchor is None else target.operations.index(anchor)
        ops = list(block.operations)
        block.operations.clear()
        for offset, op in enumerate(ops):
            target.operations.insert(at + offset, op)
            op.parent = target
            self._changed(op)
        if block.parent is not None:
            block.parent.blocks.remove(block)
            block.parent = None

    def merge_blocks(self, source: Block, dest: Block, arguments: Sequence[Value] = ()
                     ) -> None:
        """Move every op of `source` to the end of `dest` and remove `source` (MLIR's
        ``mergeBlocks``)."""
        self.inline_block_before(source, None, arguments, into=dest)

    def move_region_body(self, source: Region, dest: Region, at: int = 0) -> None:
        """Move every block of `source` into `dest` at position `at` (MLIR's
        ``inlineRegionBefore``; the ops are not told to the driver)."""
        blocks = list(source.blocks)
        source.blocks.clear()
        for offset, block in enumerate(blocks):
            dest.blocks.insert(at + offset, block)
            block.parent = dest

    def add_block(self, region: Region) -> Block:
        """A new empty block at the end of `region` (MLIR's ``createBlock``)."""
        return region.add_block()


# ---- what an op may do, for dead-code removal -------------------------------------------


def is_pure(op: Operation) -> bool:
    """Whether `op` has no memory effect (Pure / NoMemoryEffect, or RecursiveMemoryEffects
    with every nested op pure)."""
    traits = traits_of(op)
    if "Pure" in traits or "NoMemoryEffect" in traits or "ConstantLike" in traits:
        return True
    if "RecursiveMemoryEffects" in traits:
        return all(is_pure(nested) for region in op.regions for block in region.blocks
                   for nested in block.operations)
    return False


def is_trivially_dead(op: Operation, rewriter: Rewriter) -> bool:
    """Whether `op` can go: no result used, no effect, not a terminator nor a symbol."""
    traits = traits_of(op)
    if "Terminator" in traits or "ReturnLike" in traits or "Symbol" in traits:
        return False
    return all(not rewriter.has_uses(r) for r in op.results) and is_pure(op)


# ---- folds and patterns -----------------------------------------------------------------

#: Each op's fold hook, by full op name (see the module docstring).
FOLDS: dict[str, Fold] = {}


def fold(*names: str) -> Callable[[Fold], Fold]:
    """Register the decorated function as the fold of each op in `names` (full names)."""
    def register(hook: Fold) -> Fold:
        """File `hook` and return it unchanged."""
        for name in names:
            if name in FOLDS:
                raise ValueError(f"fold of '{name}' defined twice")
            FOLDS[name] = hook
        return hook
    return register


def load_folds() -> dict[str, Fold]:
    """`FOLDS`, with the modules declaring them imported."""
    from . import canonical  # noqa: F401  (registration happens on import)
    return FOLDS


def constant_value(op: Operation | None) -> Attribute | None:
    """The value of a constant op (``ConstantLike``, folding to an attribute: MLIR's
    ``m_Constant``), else None."""
    if op is None or "ConstantLike" not in traits_of(op):
        return None
    hook = load_folds().get(op.name)
    found = hook(op, None) if hook is not None else None   # (constant folds need none)
    return found[0] if found and isinstance(found[0], Attribute) else None


class Patterns:
    """Patterns by op name (full names: ``cuda_tile.addf``), in the order they are tried;
    patterns registered for None apply to every op, after the op's own."""

    def __init__(self) -> None:
        self.by_name: dict[str | None, list[Pattern]] = defaultdict(list)

    def add(self, names: str | Iterable[str] | None, pattern: Pattern) -> Pattern:
        """Register `pattern` for `names` (None: every op)."""
        for name in [names] if names is None or isinstance(names, str) else names:
            self.by_name[name].append(pattern)
        return pattern

    def pattern(self, *names: str) -> Callable[[Pattern], Pattern]:
        """Decorator form of `add`."""
        def register(pattern: Pattern) -> Pattern:
            """Register `pattern` and return it unchanged."""
            return self.add(names, pattern)
        return register

    def extend(self, other: "Patterns") -> "Patterns":
        """Add every pattern of `other` after this set's own."""
        for name, patterns in other.by_name.items():
            self.by_name[name].extend(patterns)
        return self

    def for_op(self, op: Operation) -> list[Pattern]:
        """The patterns to try on `op`."""
        return self.by_name.get(op.name, []) + self.by_name.get(None, [])


# ---- the greedy driver ------------------------------------------------------------------

#: The most sweeps the driver makes before it gives up (MLIR: maxIterations = 10).
MAX_ITERATIONS = 10


@dataclass(frozen=True)
class GreedyConfig:
    """How `apply_greedily` runs (MLIR's ``GreedyRewriteConfig``)."""

    top_down: bool = False
    max_iterations: int = MAX_ITERATIONS
    #: The most pattern applications per sweep (-1: no limit).
    max_rewrites: int = -1
    fold: bool = True
    cse_constants: bool = True
    simplify_regions: bool = True
    remove_dead: bool = True


class _Worklist:
    """MLIR's LIFO worklist with set semantics and removal in place."""

    def __init__(self) -> None:
        self.items: list[Operation | None] = []
        self.where: dict[Operation, int] = {}

    def push(self, op: Operation) -> None:
        """Queue `op` at the back unless it is queued already."""
        if op not in self.where:
            self.where[op] = len(self.items)
            self.items.append(op)

    def pop(self) -> Operation | None:
        """The op at the back (None when empty)."""
        while self.items:
            op = self.items.pop()
            if op is not None:
                del self.where[op]
                return op
        return None

    def remove(self, op: Operation) -> None:
        """Unqueue `op`."""
        at = self.where.pop(op, None)
        if at is not None:
            self.items[at] = None

    def reverse(self) -> None:
        """Reverse the queue (after a pre-order seeding: first op popped first)."""
        self.items.reverse()
        self.where = {op: i for i, op in enumerate(self.items) if op is not None}


def _isolated(op: Operation) -> bool:
    """Whether constants inside `op` stay inside it: it might be isolated from above, or
    it is at top level."""
    return might_be_isolated(op) or op.parent is None


def _insertion_region(block: Block) -> Region:
    """Where a constant in `block` is hoisted to: the region of the nearest enclosing op
    isolated from above (MLIR's ``OperationFolder::getInsertionRegion``)."""
    while True:
        region = block.parent
        assert region is not None and region.parent is not None
        if _isolated(region.parent):
            return region
        parent_block = region.parent.parent
        assert parent_block is not None
        block = parent_block


class _ConstantFolder:
    """Constants uniqued per insertion region and kept at the front of its entry block
    (MLIR's ``OperationFolder::insertKnownConstant``), for one sweep.  Scopes are keyed by
    the region itself (an identity-hashed object kept alive here), never by its `id`,
    which a freed region could pass on to a new one."""

    def __init__(self, rewriter: Rewriter) -> None:
        self.rewriter = rewriter
        self.scopes: dict[Region, dict[tuple[Attribute, Any], Operation]] = defaultdict(dict)
        self.owned: dict[Operation, tuple[Region, tuple[Attribute, Any]]] = {}

    @staticmethod
    def _move_to_front(op: Operation, block: Block) -> None:
        """Put `op` first in `block` (no notification, as MLIR's ``moveBefore``)."""
        if op.parent is not None:
            op.parent.operations.remove(op)
        block.operations.insert(0, op)
        op.parent = block
        op.location = UNKNOWN_LOC

    def insert_known(self, op: Operation, value: Attribute) -> bool:
        """Take constant `op` into the folder: False when it duplicated a known constant
        and was replaced by it (and erased), True when it is kept (hoisted if needed)."""
        block = op.parent
        assert block is not None
        if op in self.owned:
            if block.operations[0] is not op and \
                    block.operations[block.operations.index(op) - 1] not in self.owned:
                self._move_to_front(op, block)
            return True
        region = _insertion_region(block)
        key = (value, op.results[0].type)
        known = self.scopes[region].get(key)
        if known is not None:
            self.rewriter.replace_op(op, known.results)
            known.location = UNKNOWN_LOC
            return False
        entry = region.blocks[0]
        if block is not entry or (entry.operations[0] is not op and
                                  entry.operations[entry.operations.index(op) - 1]
                                  not in self.owned):
            self._move_to_front(op, entry)
        self.scopes[region][key] = op
        self.owned[op] = (region, key)
        return True

    def forget(self, op: Operation) -> None:
        """Drop `op` from the folder (it is being erased)."""
        found = self.owned.pop(op, None)
        if found is not None:
            region, key = found
            if self.scopes[region].get(key) is op:
                del self.scopes[region][key]


class _Driver:
    """The greedy driver on one region (MLIR's ``RegionPatternRewriteDriver``)."""

    def __init__(self, region: Region, patterns: Patterns, config: GreedyConfig,
                 rewriter: Rewriter) -> None:
        self.scope = region
        self.patterns = patterns
        self.config = config
        self.rewriter = rewriter
        self.worklist = _Worklist()
        self.folder: _ConstantFolder | None = None
        self.folds = load_folds() if config.fold else {}

    # ---- notifications ----------------------------------------------

    def add(self, op: Operation) -> None:
        """Queue `op` and its ancestors up to the scope (none if it is outside)."""
        chain: list[Operation] = []
        current: Operation | None = op
        while current is not None:
            chain.append(current)
            block = current.parent
            region = block.parent if block is not None else None
            if region is self.scope:
                for queued in chain:
                    self.worklist.push(queued)
                return
            if region is None:
                return
            current = region.parent

    def erased(self, op: Operation) -> None:
        """`op` is going: unqueue it, forget it as a constant, and queue the defining ops
        of its operands left with at most one user."""
        for value in op.operands:
            owner = getattr(value, "owner", None)
            if isinstance(owner, Operation) and len(self.rewriter.users(value)) <= 1:
                self.add(owner)
        self.worklist.remove(op)
        if self.folder is not None:
            self.folder.forget(op)

    # ---- one sweep --------------------------------------------------

    def _seed(self) -> None:
        """Fill the worklist for a sweep, hoisting and uniquing constants on the way."""
        config, folder = self.config, self.folder
        assert folder is not None

        def keep(op: Operation) -> bool:
            """False for a constant replaced by a known one."""
            if not config.cse_constants:
                return True
            value = constant_value(op)
            return value is None or folder.insert_known(op, value)

        if config.top_down:
            for op in _walk(self.scope, post_order=False, keep=keep):
                self.add(op)
            self.worklist.reverse()
        else:
            for op in _walk(self.scope, post_order=True, keep=keep):
                self.add(op)

    def _fold(self, op: Operation) -> bool:
        """Try `op`'s fold; whether it folded (in place, or replaced by existing values)."""
        hook = self.folds.get(op.name)
        if hook is None or "ConstantLike" in traits_of(op):
            return False
        found = hook(op, self.rewriter)
        if found is None:
            return False
        if not found:
            self.add(op)                # (changed in place)
            return True
        if not all(isinstance(v, Value) for v in found):
            return False                # (the dialect materializes no constants)
        self.rewriter.replace_op(op, list(found))
        return True

    def _process(self) -> bool:
        """Pop ops until the worklist is empty; whether anything changed."""
        config, rewriter = self.config, self.rewriter
        changed = False
        rewrites = 0
        while config.max_rewrites < 0 or rewrites < config.max_rewrites:
            op = self.worklist.pop()
            if op is None:
                break
            if op.parent is None:
                continue
            if config.remove_dead and is_trivially_dead(op, rewriter):
                rewriter.erase_op(op)
                changed = True
                continue
            if config.fold and self._fold(op):
                changed = True
                continue
            for pattern in self.patterns.for_op(op):
                if pattern(op, rewriter):
                    changed = True
                    rewrites += 1
                    break
        return changed

    def run(self) -> tuple[bool, bool]:
        """Sweep until nothing changes or the iteration limit: (changed, converged)."""
        rewriter = self.rewriter
        rewriter.on_change = self.add
        rewriter.on_erase = self.erased
        changed_any = False
        again = True
        iteration = 0
        while again:
            iteration += 1
            if iteration > self.config.max_iterations >= 0:
                break
            self.worklist = _Worklist()
            self.folder = _ConstantFolder(rewriter)
            self._seed()
            again = self._process()
            if self.config.simplify_regions and self.config.remove_dead:
                again |= erase_dead_ops(rewriter, [self.scope])
            changed_any |= again
        return changed_any, not again


def _walk(region: Region, post_order: bool, keep: Callable[[Operation], bool]
          ) -> Iterator[Operation]:
    """The ops nested in `region`, in pre- or post-order, each asked `keep` first (in
    post-order after its nested ops); an op it rejects is skipped with what it holds.
    Each block's ops are read as a snapshot, so ops moved or erased on the way are not
    visited twice."""
    for block in list(region.blocks):
        for op in list(block.operations):
            if op.parent is not block:
                continue
            if post_order:
                for nested_region in op.regions:
                    yield from _walk(nested_region, post_order, keep)
                if keep(op):
                    yield op
            elif keep(op):
                yield op
                for nested_region in op.regions:
                    yield from _walk(nested_region, post_order, keep)


def erase_dead_ops(rewriter: Rewriter, regions: Sequence[Region]) -> bool:
    """Erase every op of `regions` (and nested) whose results are unused and that has no
    effect, the last op of each block first (MLIR's region DCE); whether any went."""
    erased = False
    for region in regions:
        for block in list(region.blocks):
            for op in reversed(list(block.operations)):
                if op.parent is not block:
                    continue
                if is_trivially_dead(op, rewriter):
                    rewriter.erase_op(op)
                    erased = True
                elif op.regions:
                    erased |= erase_dead_ops(rewriter, op.regions)
    return erased


def run_greedily(root: Operation, patterns: Patterns, config: GreedyConfig,
                 prepare: Callable[[Rewriter], None] | None = None) -> tuple[bool, bool]:
    """`apply_greedily` with its configuration given whole: (whether anything changed,
    whether every region converged within the iteration limit)."""
    rewriter = Rewriter(root)
    if prepare is not None:
        prepare(rewriter)
    changed, converged = False, True
    try:
        for region in root.regions:
            region_changed, region_converged = _Driver(region, patterns, config,
                                                       rewriter).run()
            changed |= region_changed
            converged &= region_converged
    finally:
        rewriter.on_change = rewriter.on_erase = None
    return changed, converged


def apply_greedily(root: Operation, patterns: Patterns, *,
                   prepare: Callable[[Rewriter], None] | None = None, **config: Any) -> bool:
    """Apply `patterns` (and the ops' folds) to every op nested in `root`'s regions until
    none matches, each region on its own (MLIR's greedy driver, see the module docstring;
    `root` is not rewritten itself); whether anything changed.  `prepare` runs once with
    the rewriter before the first sweep; the keywords are `GreedyConfig`'s fields."""
    return run_greedily(root, patterns, GreedyConfig(**config), prepare)[0]


__all__ = ["FOLDS", "Fold", "GreedyConfig", "MAX_ITERATIONS", "Pattern", "Patterns",
           "Rewriter", "apply_greedily", "constant_value", "erase_dead_ops",
           "fold", "is_pure", "is_trivially_dead", "load_folds", "might_be_isolated",
           "run_greedily", "traits_of"]
