"""The in-memory IR: values, operations, blocks, regions, modules, and a builder.

This is MLIR's structure in small: an `Operation` has operands (values), results,
attributes, regions and a location; a `Region` holds `Block`s; a `Block` holds block
arguments and a list of operations.  Registered ops get a Python class per declaration
(see `tileir.ops`), whose properties name the operands, results and attributes.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from .attributes import (UNIT, UNKNOWN_LOC, ArrayAttr, Attribute, DenseArrayAttr, DictAttr,
                         Location, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from .diagnostics import Location as SourcePoint
from .types import FunctionType, IntegerType, Type

if TYPE_CHECKING:
    from .ops.base import OpDef


#: The collector's switch is the process's: the bodies running now are counted, the first
#: pauses it and the last puts back what the first found (one thread's end must not turn
#: it back on under another, nor leave it off for good).
_GC_LOCK = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body with Python's cyclic garbage collector paused (restored when the last
    body running, in any thread, ends).

    Parsing, reading and printing a module make hundreds of thousands of small objects,
    all kept; each automatic collection would walk the whole growing IR again, which
    took a third of a parse.  Nothing is lost: cycles left behind are found by the next
    collection after the body."""
    global _gc_pauses, _gc_was_enabled
    with _GC_LOCK:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def location_of(thing: Any) -> SourcePoint | None:
    """Where a diagnostic about an op, block argument or location attribute points: the
    first file:line:col inside its location (None when it has none)."""
    loc = getattr(thing, "location", thing)
    find = getattr(loc, "file_location", None)
    return find() if find is not None else None


class Value:
    """An SSA value: the result of an op or an argument of a block."""

    __slots__ = ("type",)

    def __init__(self, type: Type) -> None:
        self.type = type


class OpResult(Value):
    __slots__ = ("owner", "index")

    def __init__(self, type: Type, owner: "Operation", index: int) -> None:
        self.type = type  # `Value.__init__`, inlined: the parser makes one per result
        self.owner = owner
        self.index = index

    def __repr__(self) -> str:
        return f"<result #{self.index} of {self.owner.name}: {self.type}>"


class BlockArgument(Value):
    __slots__ = ("owner", "index", "location")

    def __init__(self, type: Type, owner: "Block", index: int,
                 location: Location = UNKNOWN_LOC) -> None:
        super().__init__(type)
        self.owner = owner
        self.index = index
        self.location = location

    def __repr__(self) -> str:
        return f"<block argument #{self.index}: {self.type}>"


class Block:
    """A list of operations with typed arguments."""

    def __init__(self, arg_types: Iterable[Type] = (), parent: "Region | None" = None) -> None:
        self.arguments: list[BlockArgument] = []
        self.operations: list[Operation] = []
        self.parent = parent
        for t in arg_types:
            self.add_argument(t)

    def add_argument(self, type: Type, location: Location = UNKNOWN_LOC) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.arguments), location)
        self.arguments.append(arg)
        return arg

    def append(self, op: "Operation") -> "Operation":
        op.parent = self
        self.operations.append(op)
        return op

    @property
    def terminator(self) -> "Operation | None":
        return self.operations[-1] if self.operations else None

    @property
    def parent_op(self) -> "Operation | None":
        return self.parent.parent if self.parent is not None else None

    def __iter__(self) -> Iterator["Operation"]:
        return iter(self.operations)


class Region:
    """A list of blocks owned by an op (Tile IR regions have one block)."""

    def __init__(self, parent: "Operation | None" = None) -> None:
        self.blocks: list[Block] = []
        self.parent = parent

    def add_block(self, block: Block | None = None) -> Block:
        block = block if block is not None else Block()
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def block(self) -> Block:
        """The single block of a Tile IR region (created on demand)."""
        if not self.blocks:
            self.add_block()
        return self.blocks[0]

    @property
    def is_empty(self) -> bool:
        return not self.blocks or (len(self.blocks) == 1 and not self.blocks[0].operations
                                   and not self.blocks[0].arguments)


class Operation:
    """One operation.  `attributes` are the inherent ones (MLIR properties); `discardable`
    are the others (``{cuda_tile.loop_split = 2}``)."""

    opdef: "OpDef | None" = None

    def __init__(self, name: str, operands: Sequence[Value] = (),
                 result_types: Sequence[Type] = (),
                 attributes: dict[str, Attribute] | None = None,
                 regions: int = 0, location: Location = UNKNOWN_LOC,
                 discardable: dict[str, Attribute] | None = None) -> None:
        self.name = name
        self.operands: list[Value] = list(operands)
        self.results: list[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: dict[str, Attribute] = dict(attributes or {})
        self.discardable: dict[str, Attribute] = dict(discardable or {})
        self.regions: list[Region] = [Region(self) for _ in range(regions)] if regions else []
        self.location = location
        self.parent: Block | None = None

    @classmethod
    def from_parts(cls, name: str, operands: Sequence[Value], result_types: Sequence[Type],
                   attributes: dict[str, Attribute], discardable: dict[str, Attribute],
                   location: Location) -> "Operation":
        """An op of this class from its parts, without regions (the caller adds them).

        Parsers, readers and `OpDef.build` create every declared op this way, whatever
        convenience constructor the class offers (such as `Module("kernels")`).
        """
        op = cls.__new__(cls)
        Operation.__init__(op, name, operands, result_types, attributes, 0, location,
                           discardable)
        return op

    @classmethod
    def _adopting(cls, name: str, operands: list[Value], result_types: Sequence[Type],
                  attributes: dict[str, Attribute], discardable: dict[str, Attribute],
                  location: Location) -> "Operation":
        """`from_parts`, keeping the given (fresh, unshared) operand list and dictionaries
        instead of copying them: the parser builds them for this op alone, one op per
        line of text."""
        op = cls.__new__(cls)
        op.name = name
        op.operands = operands
        op.results = [OpResult(t, op, i) for i, t in enumerate(result_types)]
        op.attributes = attributes
        op.discardable = discardable
        op.regions = []
        op.location = location
        op.parent = None
        return op

    # ---- structure --------------------------------------------------

    @property
    def result(self) -> OpResult:
        """The only result (an error for ops with none or several)."""
        if len(self.results) != 1:
            raise ValueError(f"'{self.name}' has {len(self.results)} results")
        return self.results[0]

    @property
    def parent_op(self) -> "Operation | None":
        return self.parent.parent_op if self.parent is not None else None

    def walk(self, post_order: bool = False) -> Iterator["Operation"]:
        """This op and every op nested in it, in pre-order (or children first, MLIR's
        default walk order, with `post_order`).  Lazy, like a recursive generator (an
        op's regions are read when the walk reaches them), but with one stack instead of
        a generator per nesting level that every op passes through."""
        return _walk_post(self) if post_order else _walk_pre(self)

    def encloses(self, value: Value) -> bool:
        """Whether `value` is defined inside this op's regions (a nested op's result or a
        nested block's argument); the op's own results are outside."""
        owner = getattr(value, "owner", None)
        at = owner.parent_op if isinstance(owner, (Operation, Block)) else None
        while at is not None:
            if at is self:
                return True
            at = at.parent_op
        return False

    def clone(self, mapping: "dict[Value, Value] | None" = None,
              regions: bool = True) -> "Operation":
        """A detached copy of this op (and, with `regions`, of everything nested in it;
        without, regions empty: MLIR's ``cloneWithoutRegions``).  Operands are looked up
        in `mapping` (values not in it are kept); `mapping` learns the copy's results and
        block arguments.  Attributes and types are immutable and shared."""
        mapping = {} if mapping is None else mapping
        new = type(self).from_parts(self.name, [mapping.get(v, v) for v in self.operands],
                                    [r.type for r in self.results], dict(self.attributes),
                                    dict(self.discardable), self.location)
        for result, copied in zip(self.results, new.results):
            mapping[result] = copied
        for region in self.regions:
            region_copy = Region(new)
            new.regions.append(region_copy)
            if not regions:
                continue
            for block in region.blocks:
                block_copy = region_copy.add_block(Block())
                for argument in block.arguments:
                    mapping[argument] = block_copy.add_argument(argument.type,
                                                                argument.location)
                for nested in block.operations:
                    block_copy.append(nested.clone(mapping))
        if isinstance(self, Module):
            new.spelling = self.spelling
        return new

    # ---- declared fields --------------------------------------------------

    def operand_groups(self) -> list[list[Value]]:
        """Operands split by the declaration's operand list (optional and variadic groups)."""
        if self.opdef is None:
            return [list(self.operands)]
        return self.opdef.split_operands(self)

    def operand_group(self, name: str) -> list[Value]:
        assert self.opdef is not None
        return self.operand_groups()[self.opdef.operand_index(name)]

    def result_group(self, name: str) -> list[OpResult]:
        assert self.opdef is not None
        return self.opdef.split_results(self)[self.opdef.result_index(name)]

    def values_named(self, name: str) -> list[Value] | None:
        """The operand or result group declared as `name`; None if there is none."""
        opdef = self.opdef
        if opdef is None:
            return None
        where = opdef.value_position(name)
        if where is None:
            return None
        is_operand, index, all_single = where
        if all_single:
            # With single groups only, group i is value i (as `_split` cuts them).
            values = self.operands if is_operand else self.results
            return list(values[index:index + 1])
        return opdef.value_group(self, is_operand, index)

    def attr(self, name: str) -> Any:
        """The value of an inherent attribute, its declared default when absent."""
        attr = self.attributes.get(name)
        if attr is not None:
            return attr
        if self.opdef is not None:
            return self.opdef.attr_default(name)
        return None

    @property
    def symbol(self) -> str:
        """The name this op defines in its symbol table (its ``sym_name``), "" if none."""
        name = self.attributes.get("sym_name")
        return name.value if isinstance(name, StringAttr) else ""

    def enum(self, name: str) -> Any:
        """The member of enum attribute `name` (its declared default when absent), or None."""
        return getattr(self.attr(name), "value", None)

    def has_flag(self, name: str) -> bool:
        return isinstance(self.attributes.get(name), UnitAttr)

    def verify(self) -> None:
        """Raise `VerificationError` carrying every diagnostic (with its notes) when this op
        or anything nested in it breaks a rule of the spec or the reference verifier."""
        from .verify import check  # the verifier is a layer above the IR it checks
        check(self)

    def __repr__(self) -> str:
        return f"<{self.name} with {len(self.operands)} operands, {len(self.results)} results>"


def _children(op: Operation) -> Iterator[Operation]:
    """The ops directly inside `op`'s regions, read as the iteration goes."""
    for region in op.regions:
        for block in region.blocks:
            yield from block.operations


def _walk_pre(root: Operation) -> Iterator[Operation]:
    """`Operation.walk` in pre-order: an op, then the ops nested in it."""
    yield root
    stack = [_children(root)]
    while stack:
        for op in stack[-1]:
            yield op
            if op.regions:
                stack.append(_children(op))
                break
        else:
            stack.pop()


def _walk_post(root: Operation) -> Iterator[Operation]:
    """`Operation.walk` in post-order: the ops nested in an op, then the op."""
    stack = [(root, _children(root))]
    while stack:
        op, children = stack[-1]
        for child in children:
            if child.regions:
                stack.append((child, _children(child)))
                break
            yield child
        else:
            stack.pop()
            yield op


# ---- modules --------------------------------------------------


class Module(Operation):
    """``cuda_tile.module @name { ... }``: the unit of compilation.

    Holds ``entry`` kernels, ``global`` buffers and (testing) functions, looked up by
    symbol name.
    """

    #: How the text spelled the module: "module" (``cuda_tile.module``) or "bare" (items at
    #: top level, as tileirdisasm prints them).
    spelling = "module"
    #: The names its text gave its values (`tileir.syntax.parser.SourceNames`; None for a
    #: module read from bytecode or built): traces name values with them.
    source_names: Any = None

    def __init__(self, name: str = "kernels", location: Location = UNKNOWN_LOC,
                 producer: str | None = None) -> None:
        super().__init__("cuda_tile.module", attributes={"sym_name": StringAttr(name)},
                         regions=1, location=location)
        if producer is not None:
            self.attributes["producer"] = StringAttr(producer)
        self.regions[0].add_block()
        from .ops import registry
        registry.lookup("cuda_tile.module")   # loads the dialect, which sets Module.opdef

    @property
    def sym_name(self) -> str:
        return self.attributes["sym_name"].value  # type: ignore[attr-defined]

    @property
    def body(self) -> Block:
        return self.regions[0].block

    @property
    def items(self) -> list[Operation]:
        return self.body.operations

    def _items_named(self, short: str) -> list[Operation]:
        return [op for op in self.items if op.name == "cuda_tile." + short]

    @property
    def entries(self) -> list[Operation]:
        return self._items_named("entry")

    @property
    def globals(self) -> list[Operation]:
        return self._items_named("global")

    @property
    def functions(self) -> list[Operation]:
        return self._items_named("testing$func")

    def symbol_table(self) -> dict[str, Operation]:
        """Symbol name to item (the first definition wins; the verifier reports duplicates)."""
        table: dict[str, Operation] = {}
        for op in self.items:
            name = op.attributes.get("sym_name")
            if isinstance(name, StringAttr):
                table.setdefault(name.value, op)
        return table

    def lookup(self, name: str) -> Operation | None:
        return self.symbol_table().get(name)

    def to_bytecode(self, version: str | None = None, *, keep_layout: bool = True) -> bytes:
        """This module as bytecode of `version` (default: the newest); see
        `tileir.bytecode.to_bytecode`."""
        from .bytecode import to_bytecode
        return to_bytecode(self, version, keep_layout=keep_layout)

    def format(self, *, generic: bool = False, debuginfo: bool = False) -> str:
        """The module as text, exactly as NVIDIA's tools print it."""
        from .syntax.printer import print_module
        return print_module(self, generic=generic, debuginfo=debuginfo)

    def __str__(self) -> str:
        return self.format()


# ---- builder --------------------------------------------------


class Builder:
    """Creates ops by name with their operands, attributes and result types.

    >>> m = Module()
    >>> b = Builder.at_end(m.body)
    >>> k = b.entry("kernel", [])

    `create` looks the op up in the registry, fills in declared defaults for unset
    attributes where the reference's parser would, and builds the regions' blocks.
    """

    def __init__(self, block: Block | None = None, location: Location = UNKNOWN_LOC) -> None:
        self.block = block
        self.location = location

    @classmethod
    def at_end(cls, block: Block) -> "Builder":
        return cls(block)

    def insert(self, op: Operation) -> Operation:
        if self.block is None:
            raise ValueError("the builder has no insertion block")
        return self.block.append(op)

    def create(self, name: str, operands: Sequence[Value | Sequence[Value] | None] = (),
               result_types: Sequence[Type] = (), attributes: dict[str, Any] | None = None,
               regions: Sequence[Sequence[Type]] = (), location: Location | None = None
               ) -> Operation:
        """Build op `name` (``addf`` or ``cuda_tile.addf``).

        `operands` has one entry per declared operand: a value, a list of values for a
        variadic operand, or None for an absent optional one.  `attributes` values may be
        attribute objects or plain Python values (enums, ints, bools, strings) which are
        converted by the declaration.  `regions` gives the block argument types of each
        region.
        """
        from .ops import registry
        opdef = registry.lookup(name)
        if opdef is None:
            raise KeyError(f"unknown operation '{name}'")
        op = opdef.build(operands, result_types, attributes or {},
                         location if location is not None else self.location)
        for i, arg_types in enumerate(regions):
            op.regions[i].add_block(Block(arg_types))
        for region in op.regions:
            if not region.blocks:
                region.add_block()
        if self.block is not None:
            self.insert(op)
        return op

    def entry(self, name: str, arg_types: Sequence[Type],
              hints: Attribute | None = None) -> Operation:
        """An ``entry`` kernel with its body block (arguments typed `arg_types`)."""
        attrs: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": TypeAttr(FunctionType(tuple(arg_types), ())),
        }
        if hints is not None:
            attrs["optimization_hints"] = hints
        return self.create("entry", attributes=attrs, regions=[arg_types])

    def __getattr__(self, short: str):
        """``b.addf(x, y, rounding_mode=...)``: sugar for `create` with inferred results."""
        from .ops import registry
        opdef = registry.lookup(short)
        if opdef is None:
            raise AttributeError(short)

        def make(*operands, result_types: Sequence[Type] | None = None, **attributes):
            types = result_types if result_types is not None else \
                opdef.infer_result_types(operands, attributes)
            op = self.create(short, operands, types, attributes)
            return op.results[0] if len(op.results) == 1 else op
        return make


__all__ = [
    "ArrayAttr", "Block", "BlockArgument", "Builder", "DenseArrayAttr", "DictAttr", "Module",
    "OpResult", "Operation", "Region", "SymbolRefAttr", "UNIT", "Value", "IntegerType",
]
