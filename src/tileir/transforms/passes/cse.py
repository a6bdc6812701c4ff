"""``cse``: MLIR's common-subexpression elimination on Tile IR.

Ops without memory effects (`is_pure`: Pure, NoMemoryEffect, or an op with regions whose
every nested op is pure) that repeat an op visible from them, with the same name,
operands, attributes (inherent, a declared default counting as given, and discardable)
and result types, and, for ops with regions, regions of the same structure (ops
equivalent one for one, values inside mapped), are replaced by the first one.  As in
MLIR, an op sees the ops before it in its block and in the blocks enclosing it, up to the
nearest isolated-from-above op (``entry``, a testing function, a module); an op's regions
are simplified before the op itself; an op whose results are unused when it is reached
and that has no effect is erased (MLIR's CSE does the same); terminators stay; and when
the op kept has an unknown location it takes the one of the op it replaces.

Ops with memory effects are left alone (MLIR merges reads with no write in between; Tile
IR's loads are ordered by tokens and are not merged here).
"""

from __future__ import annotations

from typing import Any

from ...attributes import UnknownLoc
from ...ir import Operation, Region, Value
from ..registry import register
from ..rewriter import Rewriter, is_pure, is_trivially_dead, might_be_isolated, traits_of


def attributes_key(op: Operation) -> tuple[Any, ...]:
    """What an op's attributes say, for comparison: the inherent ones (a declared default
    filled in where absent) and the discardable ones, each sorted by name.  Attributes
    are frozen and hashable (`tileir.attributes`), and compare by value (floats by their
    bits), so they are their own keys: never their text, which may round."""
    inherent = dict(op.attributes)
    if op.opdef is not None:
        for decl in op.opdef.attrs:
            if decl.name not in inherent and decl.default is not None:
                inherent[decl.name] = decl.default
    return (tuple(sorted(inherent.items(), key=lambda item: item[0])),
            tuple(sorted(op.discardable.items(), key=lambda item: item[0])))


def op_key(op: Operation) -> tuple[Any, ...]:
    """The hash key of `op`: name, operands (by identity), attributes, result types and
    region count (MLIR's hash leaves the regions' contents to the equality test)."""
    return (op.name, tuple(op.operands), attributes_key(op),
            tuple(r.type for r in op.results), len(op.regions))


def _same_shell(a: Operation, b: Operation) -> bool:
    """Whether `a` and `b` agree on everything but operands and regions' contents."""
    return (a.name == b.name and len(a.operands) == len(b.operands)
            and len(a.results) == len(b.results) and len(a.regions) == len(b.regions)
            and all(x.type == y.type for x, y in zip(a.results, b.results))
            and attributes_key(a) == attributes_key(b))


def regions_equivalent(a: Operation, b: Operation, mapping: dict[Value, Value]) -> bool:
    """Whether the regions of `a` and `b` hold equivalent ops, block for block (values
    defined inside `a`'s regions mapped, through `mapping`, to their twins in `b`'s)."""
    for ra, rb in zip(a.regions, b.regions):
        if len(ra.blocks) != len(rb.blocks):
            return False
        for ba, bb in zip(ra.blocks, rb.blocks):
            if len(ba.arguments) != len(bb.arguments) or \
                    len(ba.operations) != len(bb.operations):
                return False
            for x, y in zip(ba.arguments, bb.arguments):
                if x.type != y.type:
                    return False
                mapping[x] = y
            for oa, ob in zip(ba.operations, bb.operations):
                if not _same_shell(oa, ob) or any(
                        mapping.get(x, x) is not y for x, y in zip(oa.operands, ob.operands)):
                    return False
                mapping.update(zip(oa.results, ob.results))
                if not regions_equivalent(oa, ob, mapping):
                    return False
    return True


class _Driver:
    """One run of CSE under a root op: the known ops by key, scope by scope."""

    def __init__(self, root: Operation) -> None:
        self.rewriter = Rewriter(root)
        self.scopes: list[dict[tuple[Any, ...], list[Operation]]] = []
        self.to_erase: list[Operation] = []

    def lookup(self, op: Operation, key: tuple[Any, ...]) -> Operation | None:
        """The visible op `op` repeats, if any (innermost scope first)."""
        for scope in reversed(self.scopes):
            for known in scope.get(key, ()):
                if not op.regions or regions_equivalent(known, op, {}):
                    return known
        return None

    def region(self, region: Region, fresh: bool) -> None:
        """Simplify `region` in a new scope (on an empty stack when `fresh`)."""
        saved = self.scopes
        if fresh:
            self.scopes = []
        self.scopes.append({})
        for block in region.blocks:
            for op in list(block.operations):
                self.operation(op)
        self.scopes.pop()
        self.scopes = saved

    def operation(self, op: Operation) -> None:
        """Simplify `op`'s regions, then `op`."""
        fresh = might_be_isolated(op)
        for region in op.regions:
            self.region(region, fresh)
        if op.opdef is None or "Terminator" in traits_of(op):
            return
        if is_trivially_dead(op, self.rewriter):
            self.to_erase.append(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions) or not is_pure(op):
            return
        key = op_key(op)
        known = self.lookup(op, key)
        if known is None:
            self.scopes[-1].setdefault(key, []).append(op)
            return
        for old, new in zip(op.results, known.results):
            self.rewriter.replace_all_uses(old, new)
        if isinstance(known.location, UnknownLoc) and not isinstance(op.location, UnknownLoc):
            known.location = op.location
        self.to_erase.append(op)

    def run(self, root: Operation) -> None:
        """Simplify every region of `root`, then erase what was found dead or repeated."""
        for region in root.regions:
            self.region(region, True)
        for op in self.to_erase:
            if op.parent is not None:
                self.rewriter.erase_op(op)


@register("cse", "any", "Eliminate common sub-expressions")
def cse(op: Operation, options: dict[str, Any]) -> None:
    """Replace each pure op that repeats a visible one by it (see the module text)."""
    _Driver(op).run(op)


__all__ = ["attributes_key", "cse", "op_key", "regions_equivalent"]
