"""The reductions: each makes smaller candidate modules out of a module, one per key.

A reduction is a pair of functions in `REDUCTIONS`: ``keys(module)`` lists, sorted, the
candidates it can make of `module` (small picklable tuples), and ``apply(module, key)``
turns `module` (a fresh copy, see `clone`) into candidate `key` in place, returning False
when the key does not apply.  Ops are named by their index in `body_ops` (pre-order), so a
key means the same op in every copy of one module.  A candidate may well be invalid: the
driver (`tileir.reducer.core`) discards what does not verify before the test runs.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from ..attributes import ArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr, TypeAttr
from ..ir import Block, BlockArgument, Builder, Module, Operation, OpResult, Value
from ..ops import registry
from ..types import (F32, I1, I32, TOKEN, FloatType, FunctionType, IntegerType,
                     PartitionViewType, StridedViewType, TensorViewType, TileType,
                     Type)

Key = tuple
#: Element types a candidate never needs to simplify (the others count as unusual).
PLAIN_ELEMENTS = frozenset({I1, I32, F32})


# ---- copying and measuring ------------------------------------------------------------


def clone(module: Module) -> Module:
    """A deep copy of `module` (`Operation.clone`)."""
    return module.clone()  # type: ignore[return-value]


def body_ops(module: Module) -> list[Operation]:
    """Every op inside `module`, in pre-order (items, then what they hold)."""
    walk = module.walk()
    next(walk)
    return list(walk)


def count_ops(module: Module) -> int:
    """The number of ops of `module`, as ``tileir check`` counts them: the module, its
    items and every op they hold, terminators included."""
    return sum(1 for _ in module.walk())


def _types_of(module: Module) -> Iterator[Type]:
    """The type of every result and block argument inside `module`."""
    for op in module.walk():
        for result in op.results:
            yield result.type
        for region in op.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    yield argument.type


def measure(module: Module, text: str) -> tuple[int, int, int, int]:
    """The size a reduction must lower: (ops, characters of text, elements of every tile
    and tensor view value (static extents), unusual things: values of an element type
    other than i1, i32 and f32, and constants other than zero)."""
    elements = unusual = 0
    for t in _types_of(module):
        if isinstance(t, TileType):
            elements += t.num_elements
            unusual += t.element_type not in PLAIN_ELEMENTS
        elif isinstance(t, TensorViewType):
            elements += math.prod(n for n in t.shape if n is not None)
    for op in module.walk():
        value = op.attributes.get("value") if op.name == "cuda_tile.constant" else None
        if isinstance(value, DenseElementsAttr) and any(value.values):
            unusual += 1
    return count_ops(module), len(text), elements, unusual


# ---- the IR surgery the reductions share ---------------------------------------------


def _traits(op: Operation) -> frozenset[str]:
    """The declared traits of `op` (none for an unregistered op)."""
    return op.opdef.traits if op.opdef is not None else frozenset()


def _is_item(op: Operation) -> bool:
    """Whether `op` is a module item (entry, global, function)."""
    return isinstance(op.parent_op, Module)


def _deletable(module: Module) -> list[Operation]:
    """The ops a reduction may delete: every op in an item's body but terminators."""
    return [op for op in body_ops(module)
            if not _is_item(op) and "Terminator" not in _traits(op)]


def _uses(root: Operation) -> dict[Value, list[Operation]]:
    """The users of every value used inside `root`, in walk order."""
    users: dict[Value, list[Operation]] = {}
    for op in root.walk():
        for value in op.operands:
            users.setdefault(value, []).append(op)
    return users


def _replace_uses(root: Operation, mapping: dict[Value, Value]) -> None:
    """Every use inside `root` of a key of `mapping` made a use of its value."""
    if not mapping:
        return
    for op in root.walk():
        if any(v in mapping for v in op.operands):
            op.operands = [mapping.get(v, v) for v in op.operands]


def _visible(op: Operation) -> list[Value]:
    """The values `op` may use, nearest first: results of the ops before it in its block
    and its enclosing blocks, and their block arguments (up to its item)."""
    found: list[Value] = []
    at: Operation | None = op
    while at is not None and at.parent is not None and not isinstance(at, Module):
        block = at.parent
        for earlier in reversed(block.operations[:block.operations.index(at)]):
            found.extend(reversed(earlier.results))
        found.extend(reversed(block.arguments))
        at = block.parent_op
        if at is None or _is_item(at):
            break
    return found


def _zero(t: Type) -> Operation | None:
    """A new op making a zero (or false, or a fresh token) of type `t`; None when there is
    no such op."""
    if t == TOKEN:
        return Builder(None).create("make_token", [], [TOKEN])
    if isinstance(t, TileType) and isinstance(t.element_type, (FloatType, IntegerType)):
        return Builder(None).create("constant", [], [t],
                                    {"value": DenseElementsAttr(t, (0,))})
    return None


def _insert_before(anchor: Operation, op: Operation) -> Operation:
    """Place `op` just before `anchor` in its block."""
    block = anchor.parent
    assert block is not None
    block.operations.insert(block.operations.index(anchor), op)
    op.parent = block
    return op


def _substitute(value: Value, before: Operation, avoid: set[Operation]) -> Value | None:
    """A value of `value`'s type visible just before `before` and defined outside
    `avoid` (the nearest), else a new zero made just before `before`; None when neither
    exists."""
    for candidate in _visible(before):
        if candidate is not value and candidate.type == value.type and not (
                isinstance(candidate, OpResult) and candidate.owner in avoid):
            return candidate
    made = _zero(value.type)
    return None if made is None else _insert_before(before, made).results[0]


def _erase(ops: Iterable[Operation], module: Module, substitute: bool = True) -> bool:
    """Delete `ops` (and what they hold), each use elsewhere of one of their results made
    a use of a substitute (`_substitute`); False when some use has none."""
    doomed: set[Operation] = set()
    for op in ops:
        doomed.update(op.walk())
    outermost = [op for op in ops if not any(a in doomed for a in _ancestors(op))]
    users = _uses(module)
    mapping: dict[Value, Value] = {}
    for op in outermost:
        for result in op.results:
            if not any(u not in doomed for u in users.get(result, ())):
                continue
            if not substitute:
                return False
            new = _substitute(result, op, doomed)
            if new is None:
                return False
            mapping[result] = new
    for op in outermost:
        op.parent.operations.remove(op)  # type: ignore[union-attr]
    _replace_uses(module, mapping)
    return True


def _ancestors(op: Operation) -> Iterator[Operation]:
    """The ops enclosing `op`, innermost first."""
    at = op.parent_op
    while at is not None:
        yield at
        at = at.parent_op


def _rebuild(op: Operation, operands: list[Value], keep: list[int],
             module: Module) -> Operation:
    """`op` replaced by a copy with `operands` and only the results at `keep` (its
    regions moved over); uses of the kept results follow them."""
    new = type(op).from_parts(op.name, operands, [op.results[i].type for i in keep],
                              dict(op.attributes), dict(op.discardable), op.location)
    new.regions = op.regions
    for region in new.regions:
        region.parent = new
    block = op.parent
    assert block is not None
    block.operations[block.operations.index(op)] = new
    new.parent = block
    _replace_uses(module, {op.results[i]: new.results[j] for j, i in enumerate(keep)})
    return new


def _drop_argument(block: Block, index: int) -> None:
    """Remove block argument `index` (its uses must be gone), renumbering the rest."""
    del block.arguments[index]
    for i, argument in enumerate(block.arguments):
        argument.index = i


def _terminators_of(op: Operation, name: str) -> list[Operation]:
    """The `name` terminators (``continue``, ``break``) that belong to loop `op`: in its
    body, or nested in ``if``s there (not in inner loops)."""
    found = []
    stack = [b for r in op.regions for b in r.blocks]
    while stack:
        block = stack.pop()
        for inner in block.operations:
            if inner.name == "cuda_tile." + name:
                found.append(inner)
            elif inner.name == "cuda_tile.if":
                stack.extend(b for r in inner.regions for b in r.blocks)
    return found


def _inline(op: Operation, block: Block, arguments: list[Value], module: Module) -> bool:
    """Replace `op` by the ops of `block` (its arguments standing for `arguments`), its
    results by the operands of the block's terminator."""
    body = list(block.operations)
    terminator = body[-1] if body and "Terminator" in _traits(body[-1]) else None
    results = list(terminator.operands) if terminator is not None else []
    if len(results) != len(op.results) or any(
            r.type != v.type for r, v in zip(op.results, results)):
        return False
    mapping: dict[Value, Value] = dict(zip(block.arguments, arguments))
    for inner in body[:-1] if terminator is not None else body:
        _insert_before(op, inner)
    results = [mapping.get(v, v) for v in results]
    op.parent.operations.remove(op)  # type: ignore[union-attr]
    mapping.update(zip(op.results, results))
    _replace_uses(module, mapping)
    return True


# ---- the reductions -----------------------------------------------------------------


def _items_keys(module: Module) -> list[Key]:
    """Each module item."""
    return [(i,) for i in range(len(module.items))]


def _items_apply(module: Module, key: Key) -> bool:
    """Delete module item `key[0]` (an entry, global or function)."""
    (i,) = key
    if i >= len(module.items):
        return False
    del module.items[i]
    return True


def _chunk_sizes(n: int) -> list[int]:
    """Chunk sizes for `n` ops, largest first: powers of two from about n/2 down to 1."""
    size = 1
    while size * 4 <= n:
        size *= 2
    sizes = []
    while size >= 1:
        sizes.append(size)
        size //= 2
    return sizes


def _chunks_keys(module: Module) -> list[Key]:
    """(-size, start) of each chunk of deletable ops, the biggest chunks first."""
    n = len(_deletable(module))
    return [(-size, start) for size in _chunk_sizes(n) for start in range(0, n, size)]


def _chunks_apply(module: Module, key: Key) -> bool:
    """Delete a chunk of ops (the ops they hold too), each use left of their results
    given the nearest visible value of its type or a new zero."""
    size, start = -key[0], key[1]
    chunk = _deletable(module)[start:start + size]
    return bool(chunk) and _erase(chunk, module)


def _unwrap_keys(module: Module) -> list[Key]:
    """Each branch of each ``if``, each ``for`` and ``loop``."""
    keys = []
    for i, op in enumerate(body_ops(module)):
        if op.name == "cuda_tile.if":
            keys += [(i, 0), (i, 1)]
        elif op.name in ("cuda_tile.for", "cuda_tile.loop"):
            keys.append((i, 0))
    return keys


def _unwrap_apply(module: Module, key: Key) -> bool:
    """Inline one branch of an ``if``, or a ``for``'s or ``loop``'s body once (with its
    first iteration's values)."""
    i, branch = key
    ops = body_ops(module)
    if i >= len(ops):
        return False
    op = ops[i]
    if op.name == "cuda_tile.if":
        if branch >= len(op.regions) or not op.regions[branch].blocks:
            return not op.results and _erase([op], module, substitute=False)
        return _inline(op, op.regions[branch].blocks[0], [], module)
    if op.name == "cuda_tile.for":
        lower, _, _, *initial = op.operands
        return _inline(op, op.regions[0].blocks[0], [lower, *initial], module)
    if op.name == "cuda_tile.loop":
        return _inline(op, op.regions[0].blocks[0], list(op.operands), module)
    return False


def _carried_keys(module: Module) -> list[Key]:
    """Each carried value (0) of a loop, each result (1) of a ``loop`` or ``if``."""
    keys = []
    for i, op in enumerate(body_ops(module)):
        if op.name == "cuda_tile.for":
            keys += [(i, 0, k) for k in range(len(op.operands) - 3)]
        elif op.name == "cuda_tile.loop":
            keys += [(i, 0, k) for k in range(len(op.operands))]
            keys += [(i, 1, k) for k in range(len(op.results))]
        elif op.name == "cuda_tile.if":
            keys += [(i, 1, k) for k in range(len(op.results))]
    return keys


def _carried_apply(module: Module, key: Key) -> bool:
    """Drop one loop-carried value of a ``for`` or ``loop`` (its uses given the initial
    value), or one result of a ``loop`` or ``if``."""
    i, what, k = key
    ops = body_ops(module)
    if i >= len(ops):
        return False
    op = ops[i]
    if what == 0:
        return _drop_carried(op, k, module)
    return _drop_result(op, k, module)


def _drop_carried(op: Operation, k: int, module: Module) -> bool:
    """Drop carried value `k` of ``for`` or ``loop`` `op`."""
    first = 3 if op.name == "cuda_tile.for" else 0
    if first + k >= len(op.operands):
        return False
    block = op.regions[0].blocks[0]
    initial = op.operands[first + k]
    argument = block.arguments[k + (1 if first else 0)]
    _replace_uses(op, {argument: initial})
    _drop_argument(block, argument.index)
    for terminator in _terminators_of(op, "continue"):
        if k >= len(terminator.operands):
            return False
        del terminator.operands[k]
    operands = op.operands[:first + k] + op.operands[first + k + 1:]
    if op.name == "cuda_tile.for":        # (a for's results are its carried values)
        _replace_uses(module, {op.results[k]: initial})
        keep = [j for j in range(len(op.results)) if j != k]
    else:
        keep = list(range(len(op.results)))
    _rebuild(op, operands, keep, module)
    return True


def _drop_result(op: Operation, k: int, module: Module) -> bool:
    """Drop result `k` of ``loop`` or ``if`` `op` (from its breaks or yields)."""
    if k >= len(op.results):
        return False
    result = op.results[k]
    if _uses(module).get(result):
        new = _substitute(result, op, set(op.walk()))
        if new is None:
            return False
        _replace_uses(module, {result: new})
    terminators = _terminators_of(op, "break") if op.name == "cuda_tile.loop" else \
        [b.operations[-1] for r in op.regions for b in r.blocks if b.operations]
    for terminator in terminators:
        if k >= len(terminator.operands):
            return False
        del terminator.operands[k]
    _rebuild(op, list(op.operands), [j for j in range(len(op.results)) if j != k], module)
    return True


#: The kinds of value a result may be replaced by (`_values_keys`' third field).
OPERAND, ARGUMENT, ZERO, EARLIER = 0, 1, 2, 3
#: How many block arguments, or results of other ops, a result is tried with.
REPLACEMENTS = 3


def _dependents(result: Value, users: dict[Value, list[Operation]]) -> set[Value]:
    """The values computed from `result`: the results of its users, of the ops holding
    them, and so on."""
    found: set[Value] = set()
    stack = [result]
    while stack:
        for user in users.get(stack.pop(), ()):
            for op in (user, *_ancestors(user)):
                fresh = [r for r in op.results if r not in found]
                found.update(fresh)
                stack.extend(fresh)
    return found


def _earlier(op: Operation, result: Value, users: dict[Value, list[Operation]]
             ) -> list[Value]:
    """Results of other ops, of `result`'s type, visible at every use of `result` and not
    computed from it (nearest the first use first): what may stand for `result`."""
    uses = users.get(result, [])
    if not uses:
        return []
    common = set(_visible(uses[0]))
    for user in uses[1:]:
        common &= set(_visible(user))
    avoid = _dependents(result, users)
    return [v for v in _visible(uses[0])
            if v in common and isinstance(v, OpResult) and v.owner is not op
            and v.type == result.type and v not in avoid
            and v not in op.operands][:REPLACEMENTS]


def _values_keys(module: Module) -> list[Key]:
    """Each used result of each op, with each value that may stand for it."""
    keys = []
    users = _uses(module)
    for i, op in enumerate(body_ops(module)):
        if _is_item(op) or "Terminator" in _traits(op):
            continue
        for j, result in enumerate(op.results):
            if not users.get(result):
                continue
            keys += [(i, j, OPERAND, k) for k, v in enumerate(op.operands)
                     if v.type == result.type and v not in op.operands[:k]]
            arguments = [v for v in _visible(op) if isinstance(v, BlockArgument)
                         and v.type == result.type]
            keys += [(i, j, ARGUMENT, m) for m in range(min(REPLACEMENTS, len(arguments)))]
            if _zero(result.type) is not None and not _is_zero(op):
                keys.append((i, j, ZERO, 0))
            keys += [(i, j, EARLIER, m)
                     for m in range(len(_earlier(op, result, users)))]
    return keys


def _is_zero(op: Operation) -> bool:
    """Whether `op` already makes a zero (a constant of zeros, or a new token)."""
    value = op.attributes.get("value")
    return op.name == "cuda_tile.make_token" or (
        op.name == "cuda_tile.constant" and isinstance(value, DenseElementsAttr)
        and not any(value.values))


def _values_apply(module: Module, key: Key) -> bool:
    """Replace one result of an op by one of its operands, a block argument, a new zero or
    another op's result; then delete the op when none of its results is used."""
    i, j, kind, k = key
    ops = body_ops(module)
    if i >= len(ops) or j >= len(ops[i].results):
        return False
    op = ops[i]
    result = op.results[j]
    if kind == OPERAND:
        new: Value | None = op.operands[k] if k < len(op.operands) else None
    elif kind == ARGUMENT:
        arguments = [v for v in _visible(op) if isinstance(v, BlockArgument)
                     and v.type == result.type]
        new = arguments[k] if k < len(arguments) else None
    elif kind == EARLIER:
        others = _earlier(op, result, _uses(module))
        new = others[k] if k < len(others) else None
    else:
        made = _zero(result.type)
        new = None if made is None else _insert_before(op, made).results[0]
    if new is None or new.type != result.type:
        return False
    _replace_uses(module, {result: new})
    users = _uses(module)
    if not any(users.get(r) for r in op.results):
        op.parent.operations.remove(op)  # type: ignore[union-attr]
    return True


def _arguments_keys(module: Module) -> list[Key]:
    """Each entry argument, to drop (-1) or merge into an earlier one of its type."""
    keys = []
    for i, item in enumerate(module.items):
        if item.name != "cuda_tile.entry" or not item.regions[0].blocks:
            continue
        arguments = item.regions[0].blocks[0].arguments
        for k, argument in enumerate(arguments):
            keys.append((i, k, -1))
            keys += [(i, k, m) for m in range(k) if arguments[m].type == argument.type]
    return keys


def _arguments_apply(module: Module, key: Key) -> bool:
    """Remove an entry's argument: an unused one (-1), or one whose uses an earlier
    argument of the same type takes over."""
    i, k, m = key
    if i >= len(module.items):
        return False
    entry = module.items[i]
    block = entry.regions[0].blocks[0]
    if k >= len(block.arguments):
        return False
    argument = block.arguments[k]
    if m >= 0:
        _replace_uses(entry, {argument: block.arguments[m]})
    elif _uses(entry).get(argument):
        return False
    _drop_argument(block, k)
    function = entry.attributes["function_type"].value
    entry.attributes["function_type"] = TypeAttr(FunctionType(
        tuple(a.type for a in block.arguments), function.results))
    attrs = entry.attributes.get("arg_attrs")
    if isinstance(attrs, ArrayAttr) and k < len(attrs.elements):
        entry.attributes["arg_attrs"] = ArrayAttr(attrs.elements[:k] + attrs.elements[k + 1:])
    return True


def _constants_keys(module: Module) -> list[Key]:
    """Each constant or global that is not all zeros: to zeros (0), to its first element (1)."""
    keys = []
    for i, op in enumerate(body_ops(module)):
        value = op.attributes.get("value")
        if op.name in ("cuda_tile.constant", "cuda_tile.global") and \
                isinstance(value, DenseElementsAttr) and any(value.values):
            keys.append((i, 0))
            if not value.is_splat and value.values[0]:
                keys.append((i, 1))
    return keys


def _constants_apply(module: Module, key: Key) -> bool:
    """Make a constant's (or global's) value all zeros, or all its first element."""
    i, kind = key
    ops = body_ops(module)
    value = ops[i].attributes.get("value") if i < len(ops) else None
    if not isinstance(value, DenseElementsAttr):
        return False
    ops[i].attributes["value"] = DenseElementsAttr(value.type,
                                                   (0,) if kind == 0 else value.values[:1])
    return True


def _attributes_keys(module: Module) -> list[Key]:
    """Each attribute not at its default (0), each discardable one (1)."""
    keys = []
    for i, op in enumerate(body_ops(module)):
        for name in sorted(op.attributes):
            if _attribute_reset(op, name) is not None:
                keys.append((i, 0, name))
        keys += [(i, 1, name) for name in sorted(op.discardable)]
    return keys


def _attribute_reset(op: Operation, name: str) -> tuple[Any] | None:
    """What attribute `name` of `op` resets to: (None,) to drop it (a unit flag or an
    optional attribute), (default,) for its declared default; None when it is already
    as simple as it gets."""
    declared = op.opdef.attr_def(name) if op.opdef is not None else None
    if declared is None or name in ("sym_name", "function_type"):
        return None
    if declared.is_unit or declared.optional:
        value = op.attributes[name]
        empty = isinstance(value, ArrayAttr) and not value.elements
        return None if empty else (None,)
    if declared.default is not None and op.attributes[name] != declared.default:
        return (declared.default,)
    return None


def _attributes_apply(module: Module, key: Key) -> bool:
    """Reset an inherent attribute to its default (or drop a unit flag or an optional
    attribute), or drop a discardable one."""
    i, kind, name = key
    ops = body_ops(module)
    if i >= len(ops):
        return False
    op = ops[i]
    if kind == 1:
        return op.discardable.pop(name, None) is not None
    if name not in op.attributes:
        return False
    reset = _attribute_reset(op, name)
    if reset is None:
        return False
    if reset[0] is None:
        del op.attributes[name]
    else:
        op.attributes[name] = reset[0]
    return True


# ---- type rewrites (shapes, element types, views) ------------------------------------


def _map_type(t: Any, leaf: Callable[[Type], Type]) -> Any:
    """`t` with `leaf` applied to it and to every type nested in it, innermost first."""
    if isinstance(t, tuple):
        return tuple(_map_type(x, leaf) for x in t)
    if not isinstance(t, Type) or not dataclasses.is_dataclass(t):
        return t
    changes = {}
    for f in dataclasses.fields(t):
        old = getattr(t, f.name)
        new = _map_type(old, leaf)
        if new is not old and new != old:
            changes[f.name] = new
    return leaf(dataclasses.replace(t, **changes) if changes else t)


def _retyped_values(value: DenseElementsAttr, t: TileType) -> tuple[int, ...] | None:
    """The elements of `value` as elements of tile type `t` (a shape change keeps the
    first one, splat; an element change converts the numbers); None when they cannot
    be."""
    values = value.values if value.type.shape == t.shape else value.values[:1]
    return _converted(values, value.type.element_type, t.element_type)


def _converted(values: tuple[int, ...], old: Type, new: Type) -> tuple[int, ...] | None:
    """Elements stored as `old` (ints, or float bit patterns) as elements of `new`; None
    when they cannot be."""
    if old == new or not any(values):
        return values
    import numpy as np
    from .. import numerics
    try:
        if isinstance(old, FloatType):
            numbers = numerics.to_float64(numerics.from_words(np.asarray(values), old), old)
        else:
            numbers = np.asarray(values, np.float64)
        if isinstance(new, FloatType):
            return tuple(int(w) for w in numerics.to_words(
                numerics.from_float64(numbers, new), new))
        if not np.isfinite(numbers).all():
            return None
        width = new.width  # type: ignore[attr-defined]
        return tuple((int(x) + (1 << (width - 1))) % (1 << width) - (1 << (width - 1))
                     for x in numbers)
    except Exception:       # (a number the new type cannot encode)
        return None


def _retype(module: Module, leaf: Callable[[Type], Type]) -> bool:
    """Apply `leaf` to every type in `module` (values, function types, constants and
    reduce identities); False when nothing changed or a constant cannot follow."""
    changed = False
    for op in module.walk():
        for value in [*op.results, *(a for r in op.regions for b in r.blocks
                                     for a in b.arguments)]:
            new = _map_type(value.type, leaf)
            if new != value.type:
                value.type, changed = new, True
        for name, attr in list(op.attributes.items()):
            if isinstance(attr, TypeAttr):
                new = _map_type(attr.value, leaf)
                if new != attr.value:
                    op.attributes[name], changed = TypeAttr(new), True
            elif isinstance(attr, DenseElementsAttr):
                t = _map_type(attr.type, leaf)
                if t != attr.type:
                    values = _retyped_values(attr, t)
                    if values is None:
                        return False
                    op.attributes[name], changed = DenseElementsAttr(t, values), True
            elif name == "identities" and isinstance(attr, ArrayAttr):
                op.attributes[name] = ArrayAttr(tuple(_retyped_identity(a, leaf)
                                                      for a in attr.elements))
    return changed


def _retyped_identity(attr: Any, leaf: Callable[[Type], Type]) -> Any:
    """A reduce or scan identity with its element type mapped by `leaf` (kept as it is
    when it cannot be converted: the candidate then fails to verify)."""
    if not isinstance(attr, (FloatAttr, IntegerAttr)):
        return attr
    t = _map_type(attr.type, leaf)
    word = attr.bits if isinstance(attr, FloatAttr) else attr.value
    converted = _converted((word,), attr.type, t) if t != attr.type else None
    if converted is None:
        return attr
    if isinstance(t, FloatType):
        return FloatAttr(converted[0], t)
    return IntegerAttr(converted[0], t)


def _all_types(module: Module) -> Iterator[Type]:
    """Every type in `module`, nested ones included."""
    seen: set[Type] = set()
    stack = list(_types_of(module))
    while stack:
        t = stack.pop()
        if t in seen or not isinstance(t, Type):
            continue
        seen.add(t)
        if dataclasses.is_dataclass(t):
            for f in dataclasses.fields(t):
                value = getattr(t, f.name)
                stack.extend(value if isinstance(value, tuple) else [value])
    yield from sorted(seen, key=str)


def _shape_of(t: Type) -> tuple[int, ...] | None:
    """The tile shape of a tile or tiled view type, else None."""
    if isinstance(t, TileType):
        return t.shape
    return getattr(t, "tile_shape", None)


def _shapes_keys(module: Module) -> list[Key]:
    """Each tile shape with each dimension that can halve."""
    shapes = {_shape_of(t) for t in _all_types(module)} - {None}
    return sorted((shape, d) for shape in shapes  # type: ignore[union-attr]
                  for d in range(len(shape)) if shape[d] > 1)  # type: ignore[arg-type]


def _shapes_apply(module: Module, key: Key) -> bool:
    """Halve one dimension of one tile shape, everywhere it occurs (tiles and views'
    tiles; a constant of that shape keeps its first element, splat)."""
    shape, d = key
    smaller = shape[:d] + (shape[d] // 2,) + shape[d + 1:]

    def leaf(t: Type) -> Type:
        """`t` with the shape halved, when it has it."""
        if isinstance(t, TileType) and t.shape == shape:
            return TileType(smaller, t.element_type)
        if _shape_of(t) == shape:
            return dataclasses.replace(t, tile_shape=smaller)  # type: ignore[type-var]
        return t
    return _retype(module, leaf)


def _dims_keys(module: Module) -> list[Key]:
    """Each unit dimension of each tile shape of rank 2 or more."""
    shapes = {_shape_of(t) for t in _all_types(module)} - {None}
    return sorted((shape, d) for shape in shapes  # type: ignore[union-attr]
                  if len(shape) > 1  # type: ignore[arg-type]
                  for d in range(len(shape)) if shape[d] == 1)  # type: ignore[index]


def _dims_apply(module: Module, key: Key) -> bool:
    """Drop one unit dimension of one tile shape everywhere: from its tiles, from the
    partition views with that tile and their tensor views, and from the indices of the
    accesses through those views."""
    shape, d = key

    def drop(items: tuple) -> tuple:
        return items[:d] + items[d + 1:]
    views = {t for t in _all_types(module)
             if isinstance(t, PartitionViewType) and t.tile_shape == shape}
    if any(v.dim_map != tuple(range(len(shape))) or v.tensor_view.shape[d] is None
           or v.tensor_view.strides[d] is None for v in views):
        return False                # (a dimension moved, or given by an operand)
    tensors = {v.tensor_view for v in views}
    for op in body_ops(module):
        view = op.values_named("view")
        if not view or view[0].type not in views or op.values_named("index") is None:
            continue
        opdef = op.opdef
        assert opdef is not None
        groups = op.operand_groups()
        at = opdef.operand_index("index")
        groups[at] = list(drop(tuple(groups[at])))
        op.operands = [v for group in groups for v in group]
        if "operandSegmentSizes" in op.attributes:
            op.attributes["operandSegmentSizes"] = opdef.segment_sizes(groups)
        inbounds = op.attributes.get("inbounds")
        if inbounds is not None:
            op.attributes["inbounds"] = dataclasses.replace(inbounds,
                                                            values=drop(inbounds.values))

    def leaf(t: Type) -> Type:
        """`t` without dimension `d`, when it is one of the types that lose it."""
        if isinstance(t, TileType) and t.shape == shape:
            return TileType(drop(shape), t.element_type)
        if isinstance(t, TensorViewType) and t in tensors:
            return dataclasses.replace(t, shape=drop(t.shape), strides=drop(t.strides))
        if isinstance(t, PartitionViewType) and t.tile_shape == shape:
            return dataclasses.replace(t, tile_shape=drop(shape), dim_map=None)
        return t
    return _retype(module, leaf)


def _extents_keys(module: Module) -> list[Key]:
    """Each tensor view type with each static extent that can halve."""
    return sorted((str(t), d) for t in _all_types(module) if isinstance(t, TensorViewType)
                  for d, n in enumerate(t.shape) if n is not None and n > 1)


def _extents_apply(module: Module, key: Key) -> bool:
    """Halve one static extent of one tensor view type everywhere (its strides kept)."""
    spelling, d = key
    found = [t for t in _all_types(module) if str(t) == spelling]
    if not found:
        return False
    old = found[0]
    assert isinstance(old, TensorViewType)
    new = dataclasses.replace(old, shape=old.shape[:d] + (old.shape[d] // 2,)
                              + old.shape[d + 1:])
    return _retype(module, lambda t: new if t == old else t)


#: What each element type is simplified to.
SIMPLER_FLOAT, SIMPLER_INTEGER = F32, I32


def _elements_keys(module: Module) -> list[Key]:
    """Each element type other than i1, i32 and f32."""
    found = {t for t in _all_types(module) if isinstance(t, (FloatType, IntegerType))}
    return sorted((str(t),) for t in found - PLAIN_ELEMENTS)


def _elements_apply(module: Module, key: Key) -> bool:
    """Make one element type f32 (a float) or i32 (an integer) everywhere."""
    (name,) = key
    found = [t for t in _all_types(module) if isinstance(t, (FloatType, IntegerType))
             and str(t) == name]
    if not found:
        return False
    old = found[0]
    new = SIMPLER_FLOAT if isinstance(old, FloatType) else SIMPLER_INTEGER
    return _retype(module, lambda t: new if t == old else t)


def _views_keys(module: Module) -> list[Key]:
    """Each view type with a padding value (0), a dim_map (1), or strided (2)."""
    keys = []
    for t in _all_types(module):
        if getattr(t, "padding_value", None) is not None:
            keys.append((str(t), 0))
        dim_map = getattr(t, "dim_map", None)
        if dim_map is not None and tuple(dim_map) != tuple(range(len(dim_map))):
            keys.append((str(t), 1))
        if isinstance(t, StridedViewType):
            keys.append((str(t), 2))
    return sorted(keys)


def _views_apply(module: Module, key: Key) -> bool:
    """Simplify one view type everywhere: drop its padding value, make its dim_map the
    identity, or make a strided view a partition view (and its make_strided_view a
    make_partition_view)."""
    spelling, kind = key
    found = [t for t in _all_types(module) if str(t) == spelling]
    if not found:
        return False
    old = found[0]
    if kind == 0:
        new: Type = dataclasses.replace(old, padding_value=None)  # type: ignore[type-var]
    elif kind == 1:
        new = dataclasses.replace(old, dim_map=None)  # type: ignore[type-var]
    else:
        assert isinstance(old, StridedViewType)
        new = PartitionViewType(old.tile_shape, old.tensor_view, old.dim_map,
                                old.padding_value)
        opdef = registry.lookup("make_partition_view")
        replaced = False
        for op in body_ops(module):
            if op.name == "cuda_tile.make_strided_view" and op.results[0].type == old:
                made = (opdef.op_class or Operation).from_parts(
                    opdef.full_name, list(op.operands), [new], {}, dict(op.discardable),
                    op.location)
                block = op.parent
                block.operations[block.operations.index(op)] = made  # type: ignore[union-attr]
                made.parent = block
                _replace_uses(module, {op.results[0]: made.results[0]})
                replaced = True
        return _retype(module, lambda t: new if t == old else t) or replaced
    return _retype(module, lambda t: new if t == old else t)


#: The passes `passes` tries, each on every function of the module: merging equal values
#: (constants above all) and folding what the patterns fold.
REDUCING_PASSES = ("cse", "canonicalize")


def _passes_keys(module: Module) -> list[Key]:
    """One key per pass of `REDUCING_PASSES`."""
    return [(name,) for name in REDUCING_PASSES]


def _passes_apply(module: Module, key: Key) -> bool:
    """Run cse or canonicalize on every function: equal values merged, what folds folded."""
    from ..diagnostics import TileIRError
    from ..transforms import run        # (a tool above the passes it borrows)
    before = module.format()
    pipeline = f"cuda_tile.entry({key[0]}),cuda_tile.testing$func({key[0]})"
    try:
        run(module, pipeline, verify_each=False)
    except TileIRError:
        return False
    return module.format() != before


@dataclass(frozen=True)
class Reduction:
    """One way of making candidates: its keys for a module, and making one of them."""

    keys: Callable[[Module], list[Key]]
    apply: Callable[[Module, Key], bool]

    @property
    def summary(self) -> str:
        """What it does: the first line of its `apply`'s docstring."""
        return (self.apply.__doc__ or "").strip().splitlines()[0]


#: The reductions, in the order the driver tries them: big cuts first.
REDUCTIONS: dict[str, Reduction] = {
    "items": Reduction(_items_keys, _items_apply),
    "chunks": Reduction(_chunks_keys, _chunks_apply),
    "unwrap": Reduction(_unwrap_keys, _unwrap_apply),
    "carried": Reduction(_carried_keys, _carried_apply),
    "values": Reduction(_values_keys, _values_apply),
    "arguments": Reduction(_arguments_keys, _arguments_apply),
    "constants": Reduction(_constants_keys, _constants_apply),
    "attributes": Reduction(_attributes_keys, _attributes_apply),
    "views": Reduction(_views_keys, _views_apply),
    "shapes": Reduction(_shapes_keys, _shapes_apply),
    "dims": Reduction(_dims_keys, _dims_apply),
    "extents": Reduction(_extents_keys, _extents_apply),
    "elements": Reduction(_elements_keys, _elements_apply),
    "passes": Reduction(_passes_keys, _passes_apply),
}


def candidates(module: Module, name: str) -> Iterator[tuple[Key, Module]]:
    """Every candidate reduction `name` makes of `module`, with its key (each on a fresh
    copy; keys that do not apply are left out)."""
    reduction = REDUCTIONS[name]
    for key in reduction.keys(module):
        copy = clone(module)
        if reduction.apply(copy, key):
            yield key, copy


__all__ = ["Key", "REDUCTIONS", "Reduction", "body_ops", "candidates", "clone",
           "count_ops", "measure"]
