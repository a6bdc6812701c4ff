"""Symbols for passes: finding one by a nested reference, and renaming one together with
its uses and the debug info that names it (NVIDIA's ``updateSymbolName``).

A symbol is an op with a ``sym_name`` (a module, an ``entry``, a ``global``, a testing
function); a symbol table is an op whose symbols are named inside it (``cuda_tile.module``,
and the ``builtin.module`` MLIR's tools wrap top-level ops in).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from ..attributes import (Attribute, DILocAttr, DISubprogramAttr, StringAttr,
                          SymbolRefAttr)
from ..diagnostics import note
from ..ir import Operation, location_of
from .registry import failure


def is_symbol_table(op: Operation) -> bool:
    """Whether `op` holds a symbol table (MLIR's ``SymbolTable`` trait)."""
    if op.name == "builtin.module":
        return True
    return op.opdef is not None and "SymbolTable" in op.opdef.traits


def nearest_symbol_table(op: Operation) -> Operation | None:
    """The closest op around `op` that holds a symbol table (None for a top-level op)."""
    parent = op.parent_op
    while parent is not None and not is_symbol_table(parent):
        parent = parent.parent_op
    return parent


def symbol_in(table: Operation, name: str) -> Operation | None:
    """The symbol named `name` directly inside `table` (the first, as MLIR keeps it)."""
    for region in table.regions:
        for block in region.blocks:
            for op in block.operations:
                if op.symbol == name:
                    return op
    return None


def lookup_symbol_in(table: Operation, ref: SymbolRefAttr) -> Operation | None:
    """The symbol `ref` names from `table` (``@outer::@inner``: `inner` inside symbol table
    `outer` inside `table`), MLIR's ``lookupSymbolIn``; None when there is none."""
    op: Operation | None = table
    for name in (ref.name, *ref.nested):
        if op is None or not is_symbol_table(op):
            return None
        op = symbol_in(op, name)
    return op


def parse_nested_symbol(text: str) -> SymbolRefAttr:
    """``outer::middle::inner`` as the reference ``@outer::@middle::@inner``."""
    names = text.split("::")
    return SymbolRefAttr(names[0], tuple(names[1:]))


def is_ancestor(op: Operation, other: Operation) -> bool:
    """Whether `op` is `other` or holds it (MLIR's ``isAncestor``)."""
    current: Operation | None = other
    while current is not None:
        if current is op:
            return True
        current = current.parent_op
    return False


# ---- replacing attributes --------------------------------------------------------------


def replace_elements(value: Any, replace: Callable[[Attribute], Attribute | None],
                     cache: dict[int, Any] | None = None) -> Any:
    """`value` (an attribute, a location, or a tuple of them) with every attribute inside
    it, itself included, that `replace` maps to another put in its place: MLIR's
    ``AttrTypeReplacer`` over attributes and locations (types are left alone).

    `replace` returns the attribute to use, or None to keep it and look inside.  Nothing
    is copied that holds nothing replaced; `cache` (by object) spares shared parts, such
    as a subprogram that every location of a function holds, a second walk."""
    if cache is None:
        cache = {}
    key = id(value)
    if key in cache:
        return cache[key][1]
    if isinstance(value, tuple):
        items = tuple(replace_elements(item, replace, cache) for item in value)
        result = value if all(a is b for a, b in zip(items, value)) else items
    elif isinstance(value, Attribute):
        result = replace(value)
        if result is None:
            result = value
            if dataclasses.is_dataclass(value):
                changes = {}
                for field in dataclasses.fields(value):
                    if not field.init:
                        continue
                    old = getattr(value, field.name)
                    if isinstance(old, (Attribute, tuple)):
                        new = replace_elements(old, replace, cache)
                        if new is not old:
                            changes[field.name] = new
                if changes:
                    result = dataclasses.replace(value, **changes)
    else:
        result = value
    cache[key] = (value, result)   # `value` kept alive so its id is not reused
    return result


def replace_in_op(root: Operation, replace: Callable[[Attribute], Attribute | None],
                  *, descend: Callable[[Operation], bool] = lambda op: True,
                  include_root: bool = True) -> None:
    """Apply `replace` (see `replace_elements`) to the attributes and the locations (of
    the ops and their block arguments) of `root` and every op in it; `descend(op)` False
    leaves the ops inside `op` alone."""
    cache: dict[int, Any] = {}

    def visit(op: Operation) -> None:
        for table in (op.attributes, op.discardable):
            for name, attr in table.items():
                new = replace_elements(attr, replace, cache)
                if new is not attr:
                    table[name] = new
        op.location = replace_elements(op.location, replace, cache)

    def walk(op: Operation, visit_self: bool) -> None:
        if visit_self:
            visit(op)
            if not descend(op):
                return
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    arg.location = replace_elements(arg.location, replace, cache)
                for child in block.operations:
                    walk(child, True)

    walk(root, include_root)


# ---- renaming --------------------------------------------------------------------------


def replace_symbol_uses(symbol: Operation, new_name: str, table: Operation) -> None:
    """Make every reference to `symbol` inside `table` (its symbol table) name `new_name`:
    MLIR's ``replaceAllSymbolUses``, which does not look inside nested symbol tables (their
    own attributes are looked at, not their contents)."""
    old_name = symbol.symbol

    def replace(attr: Attribute) -> Attribute | None:
        if isinstance(attr, SymbolRefAttr) and attr.name == old_name:
            return SymbolRefAttr(new_name, attr.nested)
        return None

    replace_in_op(table, replace, descend=lambda op: not is_symbol_table(op),
                  include_root=False)


def rename_symbol(symbol: Operation, new_name: str, scope: Operation | None = None, *,
                  update_uses: bool = False) -> None:
    """Rename `symbol` to `new_name`, with the linkage name of the subprogram its
    ``di_loc`` scope names (NVIDIA's ``updateSymbolName``).

    Every use of that subprogram inside `scope` (attributes and locations of every op in
    it: lexical blocks and ``di_loc``s included) is replaced by the renamed one; `scope`
    must hold `symbol` (or be it) unless `symbol` is top-level; it defaults to the
    outermost op around `symbol`.  With `update_uses`, every reference to the symbol in
    its symbol table is renamed too.  Raises `PassFailure` with the reference's
    diagnostics when `scope` does not hold `symbol`, or when `update_uses` would make two
    symbols of one name.
    """
    if scope is None:
        scope = symbol
        while scope.parent_op is not None:
            scope = scope.parent_op
    if symbol.parent_op is not None and not is_ancestor(scope, symbol):
        raise failure("attempted to update symbol names in a scope that did not enclose "
                      "the symbol itself", symbol,
                      [note("scope defined here", location_of(scope))])
    old_name = symbol.symbol
    if update_uses and new_name != old_name:
        table = nearest_symbol_table(symbol)
        if table is not None:
            existing = symbol_in(table, new_name)
            if existing is not None and existing is not symbol:
                raise failure(f"redefinition of symbol named '{new_name}'", symbol,
                              [note("see existing symbol definition here",
                                    location_of(existing))])
            replace_symbol_uses(symbol, new_name, table)
    symbol.attributes["sym_name"] = StringAttr(new_name)

    loc = symbol.location
    subprogram = loc.scope if isinstance(loc, DILocAttr) else None
    if not isinstance(subprogram, DISubprogramAttr):
        return
    renamed = dataclasses.replace(subprogram, linkage_name=new_name)

    def replace(attr: Attribute) -> Attribute | None:
        if isinstance(attr, DISubprogramAttr) and attr == subprogram:
            return renamed
        return None

    replace_in_op(scope, replace)


__all__ = ["is_ancestor", "is_symbol_table", "lookup_symbol_in", "nearest_symbol_table",
           "parse_nested_symbol", "rename_symbol", "replace_elements", "replace_in_op",
           "replace_symbol_uses", "symbol_in"]
