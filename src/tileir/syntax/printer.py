"""Printing IR as text, exactly as cuda-tile-opt and tileirdisasm print it.

SSA names follow MLIR's AsmPrinter: nested regions are numbered after their parent region,
sibling regions restart from the same counter, names from op hooks (``%cst_1_i32``,
``%tview``) are made unique with ``_N`` suffixes.  With debug info, locations and debug-info
attributes get aliases ordered as MLIR orders them (by nesting depth, then alias name, then
first use) and printed after the top-level op.
"""

from __future__ import annotations

import functools
from typing import Sequence

from ..attributes import (DIAttr, DICompileUnitAttr,
                          DILexicalBlockAttr, DILocAttr, DISubprogramAttr,
                          Location, format_named)
from ..recursion import deep_recursion
from ..ir import Block, Module, Operation, Region, Value, gc_paused
from ..types import FunctionType, Type
from . import directives
from .custom import PRINTERS
from .directives import type_text
from .compiled import (ATTRIBUTE, CUSTOM, ELEMENT, GROUP, OILIST, OPERANDS, TEXT, VAR,
                       compile_print_plan)
from .format import Custom, OIList, Optional_, TypeOf, Var, format_of

INDENT = 2


# ---- SSA names ------------------------------------------------------------------------------


class SSANames:
    """MLIR's SSANameState for one top-level op."""

    def __init__(self, top: Operation, generic: bool) -> None:
        self.generic = generic
        self.names: dict[Value, str] = {}
        #: How each value's uses are spelled, once asked (the names are final by then).
        self.spelled: dict[Value, str] = {}
        self.groups: dict[Operation, list[int]] = {}
        self.next_value = 0
        self.next_arg = 0
        self.next_conflict = 0
        stack: list[tuple[Region, int, int, int, frozenset[str]]] = [
            (r, 0, 0, 0, frozenset()) for r in top.regions]
        stack.reverse()
        # Regions are numbered in MLIR's order: a stack, the parent region first.
        work = list(stack)
        while work:
            region, self.next_value, self.next_arg, self.next_conflict, used = work.pop()
            self.used = set(used)
            self._number_region(region)
            scope = frozenset(self.used)
            for block in region.blocks:
                for op in block.operations:
                    for nested in op.regions:
                        work.append((nested, self.next_value, self.next_arg,
                                     self.next_conflict, scope))

    def _unique(self, name: str) -> str:
        if name not in self.used:
            self.used.add(name)
            return name
        while True:
            probe = f"{name}_{self.next_conflict}"
            self.next_conflict += 1
            if probe not in self.used:
                self.used.add(probe)
                return probe

    def _set(self, value: Value, name: str | None) -> None:
        if not name:
            self.names[value] = str(self.next_value)
            self.next_value += 1
        else:
            self.names[value] = self._unique(_sanitize(name))

    def _number_region(self, region: Region) -> None:
        parent = region.parent
        if not self.generic and parent is not None and parent.opdef is not None and \
                parent.opdef.block_arg_names is not None and region.blocks:
            index = parent.regions.index(region)
            for arg, name in zip(region.blocks[0].arguments,
                                 parent.opdef.block_arg_names(parent, index)):
                self._set(arg, name)
        for i, block in enumerate(region.blocks):
            for arg in block.arguments:
                if arg in self.names:
                    continue
                if i == 0:
                    self.names[arg] = self._unique(f"arg{self.next_arg}")
                    self.next_arg += 1
                else:
                    self._set(arg, None)
            for op in block.operations:
                self._number_op(op)

    def _number_op(self, op: Operation) -> None:
        groups = [0]
        if not self.generic and op.opdef is not None and op.opdef.result_names is not None:
            for i, name in enumerate(op.opdef.result_names(op)):
                if i < len(op.results) and name is not None:
                    self._set(op.results[i], name)
                    if i:
                        groups.append(i)
        if not op.results:
            return
        first = op.results[0]
        if first not in self.names:
            self.names[first] = str(self.next_value)
            self.next_value += 1
        if len(groups) > 1:
            self.groups[op] = sorted(groups)

    def result_groups(self, op: Operation) -> list[tuple[int, int]]:
        """(start, size) of each printed result group."""
        starts = self.groups.get(op)
        if starts is None:  # one group: the common case
            return [(0, len(op.results))]
        bounds = starts + [len(op.results)]
        return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(len(starts))]

    def use(self, value: Value) -> str:
        """How a use of `value` is spelled (see `_spell`), remembered per value."""
        spelled = self.spelled.get(value)
        if spelled is None:
            spelled = self.spelled[value] = self._spell(value)
        return spelled

    def _spell(self, value: Value) -> str:
        """How a use of `value` is spelled: ``%name``, ``%3``, or ``%3#1`` inside a group of
        several results (``%3#0`` for the group's first, as MLIR spells it)."""
        owner = getattr(value, "owner", None)
        if isinstance(owner, Operation) and len(owner.results) > 1:
            for start, size in self.result_groups(owner):
                if start <= value.index < start + size:
                    base = self.names.get(owner.results[start], "<<UNKNOWN>>")
                    if size == 1:
                        return "%" + base
                    return f"%{base}#{value.index - start}"
        name = self.names.get(value)
        if name is not None:
            return "%" + name
        return "%<<UNKNOWN SSA VALUE>>"


@functools.lru_cache(maxsize=4096)
def _sanitize(name: str) -> str:
    """`name` made a valid SSA suffix (remembered: ops repeat the same hook names)."""
    out = []
    for ch in name:
        if ch.isalnum() or ch in "$._-":
            out.append(ch)
        elif ch == " ":
            out.append("_")
        else:
            out.append(f"{ord(ch):X}")
    text = "".join(out)
    if text[:1].isdigit():
        text = "_" + text
    return text


# ---- aliases --------------------------------------------------


class Aliases:
    """Collects locations and debug-info attributes in print order, then names them."""

    def __init__(self) -> None:
        self.order: list[object] = []
        self.depth: dict[object, int] = {}
        self.names: dict[object, str] = {}

    def visit(self, item: object) -> int:
        """Collect `item` and what it holds (in print order: `item` first, then its
        children depth first); its nesting depth."""
        if item in self.depth:
            return self.depth[item]
        self.order.append(item)
        self.depth[item] = 0
        depth = 0
        for child in _alias_children(item):
            depth = max(depth, self.visit(child) + 1)
        self.depth[item] = depth
        return depth

    def finish(self) -> None:
        ranked = sorted(range(len(self.order)),
                        key=lambda i: (self.depth[self.order[i]], _alias_name(self.order[i]), i))
        counts: dict[str, int] = {}
        for i in ranked:
            item = self.order[i]
            base = _alias_name(item)
            n = counts.get(base, 0)
            counts[base] = n + 1
            self.names[item] = "#" + base + (str(n) if n else "")

    def definitions(self) -> list[str]:
        ranked = sorted(range(len(self.order)),
                        key=lambda i: (self.depth[self.order[i]], _alias_name(self.order[i]), i))
        return [f"{self.names[it]} = {self.definition(it)}"
                for it in (self.order[i] for i in ranked)]

    def ref(self, item: object) -> str:
        return self.names[item]

    def definition(self, item: object) -> str:
        if isinstance(item, DILocAttr):
            return item.di_body(self.ref, self.ref)
        if isinstance(item, Location):
            return item.format(self.ref)
        return item.format(self.ref)  # type: ignore[attr-defined]


def _alias_name(item: object) -> str:
    if isinstance(item, Location):
        return "loc"
    return getattr(item, "alias_prefix", "attr")


def _alias_children(item: object) -> list[object]:
    if isinstance(item, DILocAttr):
        return [item.location, item.scope]
    if isinstance(item, DICompileUnitAttr):
        return [item.file]
    if isinstance(item, DISubprogramAttr):
        return [item.file, item.compile_unit]
    if isinstance(item, DILexicalBlockAttr):
        return [item.scope, item.file]
    children = []
    for name in ("child", "callee", "caller"):
        value = getattr(item, name, None)
        if isinstance(value, (Location, DIAttr)):
            children.append(value)
    children.extend(getattr(item, "locations", ()))
    return children


# ---- the printer --------------------------------------------------


class Printer:
    """Prints one top-level op (and everything in it)."""

    def __init__(self, *, generic: bool = False, debuginfo: bool = False) -> None:
        self.generic = generic
        self.debuginfo = debuginfo
        self.indent = 0
        self.names: SSANames | None = None
        self.aliases: Aliases | None = None
        self.collecting = False

    # -- entry points --

    def print_top(self, ops: Sequence[Operation], default_dialect: str = "") -> str:
        """Top-level ops, then the alias definitions of their locations.

        With debug info the ops are printed twice: the first pass only collects the
        locations in print order, so aliases can be numbered as MLIR numbers them.
        """
        with deep_recursion(), gc_paused():
            return self._print_top(ops, default_dialect)

    def _print_top(self, ops: Sequence[Operation], default_dialect: str) -> str:
        if self.debuginfo:
            self.aliases = Aliases()
            self.collecting = True
            for op in ops:
                self._top_op(op, default_dialect)
            self.aliases.finish()
            self.collecting = False
        text = "\n".join(self._top_op(op, default_dialect) for op in ops) + "\n"
        if self.aliases is not None and self.aliases.order:
            text += "\n".join(self.aliases.definitions()) + "\n"
        return text

    def _top_op(self, op: Operation, default_dialect: str) -> str:
        self.names = SSANames(op, self.generic)
        return self.op_text(op, default_dialect)

    # -- pieces the directives use --

    def value(self, value: Value) -> str:
        assert self.names is not None
        return self.names.use(value)

    def values(self, values: Sequence[Value]) -> str:
        """Uses of `values`, comma-separated (most groups have one)."""
        assert self.names is not None
        use = self.names.use
        if len(values) == 1:
            return use(values[0])
        return ", ".join([use(v) for v in values])

    def location(self, loc: Location) -> str:
        if not self.debuginfo:
            return ""
        if self.collecting:
            assert self.aliases is not None
            self.aliases.visit(loc)
            return ""
        assert self.aliases is not None
        return f" loc({self.aliases.ref(loc)})"

    # -- ops --

    def op_text(self, op: Operation, default_dialect: str) -> str:
        """One op at the current indentation, regions included (may span lines)."""
        loc_text = self.location(op.location) if self.debuginfo else ""
        prefix = self._results(op)
        opdef = op.opdef
        if op.name == "builtin.module" and not self.generic:
            body = "module" + self.attr_dict(op, set(), with_keyword=True) + " " + \
                self.region(op.regions[0], print_entry_args=False)
        elif self.generic or opdef is None:
            body = self._generic(op)
        else:
            name = op.name
            if default_dialect and name.startswith(default_dialect + "."):
                name = name[len(default_dialect) + 1:]
            try:
                body = name + self._custom(op)
            except (RuntimeError, IndexError, KeyError, AttributeError, TypeError,
                    ValueError, AssertionError):
                # Like MLIR, an op too malformed for its custom syntax prints generically.
                body = self._generic(op)
        return prefix + body + loc_text

    def _results(self, op: Operation) -> str:
        if not op.results:
            return ""
        assert self.names is not None
        if len(op.results) == 1 and op not in self.names.groups:  # the common case
            return "%" + self.names.names[op.results[0]] + " = "
        parts = []
        for start, size in self.names.result_groups(op):
            text = "%" + self.names.names[op.results[start]]
            if size > 1:
                text += f":{size}"
            parts.append(text)
        return ", ".join(parts) + " = "

    def _custom(self, op: Operation) -> str:
        opdef = op.opdef
        assert opdef is not None
        if opdef.custom is not None:
            return PRINTERS[opdef.custom](self, op)
        return self.declarative(op, format_of(opdef))

    def declarative(self, op: Operation, elements: list) -> str:
        """`op` printed by its declarative format, through the format's print plan (compiled
        once per format: see `compiled`)."""
        out: list[str] = []
        # Kept with the declaration (see `OpDef.derived`: a changed field drops it), by
        # format, with the format kept alive.
        cached = op.opdef.derived.get("print plan")
        if cached is None or cached[0] is not elements:
            cached = op.opdef.derived["print plan"] = (
                elements, _used_names(elements), compile_print_plan(elements, op.opdef))
        self._run_plan(op, cached[2], out, cached[1])
        return "".join(out)

    def _run_plan(self, op: Operation, plan: list, out: list[str], used: set[str]) -> None:
        """Append to `out` what `plan`'s steps print for `op` (the spaces are in the plan)."""
        for step in plan:
            kind = step[0]
            if kind == TEXT:
                out.append(step[1])
                continue
            if kind in _SPACED:
                if step[1]:
                    out.append(step[1])
                out.append(_SPACED[kind](self, op, step[2]))
            elif kind == GROUP:
                # An absent group still runs, into a list thrown away (see `compiled`).
                self._run_plan(op, step[2], out if _present(op, step[1]) else [], used)
            elif kind == OILIST:
                out.extend(text for var, text in step[1] if _present(op, var))
            else:
                out.append(self.attr_dict(op, used, step[1]))

    def _element(self, op: Operation, element: object) -> str:
        if isinstance(element, Var):
            return self._var(op, element.name)
        if isinstance(element, Custom):
            return directives.DIRECTIVES[element.name][0](self, op, *element.args)
        if isinstance(element, TypeOf):
            return ", ".join(type_text(t) for t in types_of(op, element.name))
        raise TypeError(element)

    def _operands(self, op: Operation, argument: tuple[int, bool]) -> str:
        """An ``OPERANDS`` step: operand group `index` (`_var` for an operand group)."""
        index, all_single = argument
        # With single groups only, group i is the i-th operand (as `_split` cuts them).
        return self.values(op.operands[index:index + 1] if all_single
                           else op.operand_groups()[index])

    def _attribute(self, op: Operation, argument: tuple) -> str:
        """An ``ATTRIBUTE`` step: the attribute by its syntax, nothing when unset (`_var`
        for an attribute)."""
        name, print_ = argument
        value = op.attr(name)
        return "" if value is None else print_(value)

    def _custom_directive(self, op: Operation, argument: tuple) -> str:
        """A ``CUSTOM`` step: the directive's print function with its arguments."""
        print_, args = argument
        return print_(self, op, *args)

    def _var(self, op: Operation, name: str) -> str:
        opdef = op.opdef
        assert opdef is not None
        attr = opdef.attr_def(name)
        if attr is not None:
            value = op.attr(name)
            return "" if value is None else directives.attr_syntax(attr)[0](value)
        where = opdef.value_position(name)
        if where is not None and where[0]:
            return self._operands(op, where[1:])
        region = opdef.region_index(name)
        if region is not None:
            return self.region(op.regions[region], print_entry_args=True,
                               print_terminators=True)
        raise KeyError(name)

    # -- attribute dictionaries --

    def attr_dict(self, op: Operation, elided: set[str], with_keyword: bool = False) -> str:
        items = []
        opdef = op.opdef
        for name, value in sorted({**op.attributes, **op.discardable}.items()):
            if name in elided or name in ("operandSegmentSizes", "resultSegmentSizes"):
                continue
            if opdef is not None and name in op.attributes:
                decl = opdef.attr_def(name)
                if decl is not None and decl.default is not None and value == decl.default:
                    continue
            items.append(format_named(name, value))
        if not items:
            return ""
        keyword = " attributes" if with_keyword else ""
        return keyword + " {" + ", ".join(items) + "}"

    # -- regions --

    def region(self, region: Region, print_entry_args: bool = True,
               print_terminators: bool = True, print_empty_block: bool = False) -> str:
        lines = ["{"]
        if region.blocks:
            parent = region.parent
            dialect = "cuda_tile" if parent is not None and parent.opdef is not None and \
                parent.opdef.default_dialect and not self.generic else ""
            for i, block in enumerate(region.blocks):
                header = i > 0 or (print_empty_block and not block.operations) or \
                    (print_entry_args and bool(block.arguments))
                if header:
                    lines.append(" " * self.indent + self._block_header(block, i))
                self.indent += INDENT
                ops = block.operations
                if not print_terminators and ops and _is_terminator(ops[-1]):
                    ops = ops[:-1]
                for op in ops:
                    lines.append(" " * self.indent + self.op_text(op, dialect))
                self.indent -= INDENT
        lines.append(" " * self.indent + "}")
        return "\n".join(lines)

    def control_flow_region(self, op: Operation, index: int) -> str:
        """A body whose implicit terminator (``yield``/``continue`` without operands) is
        left out, as the reference prints if/for/loop bodies."""
        region = op.regions[index]
        terminator = region.block.terminator if region.blocks else None
        implicit = op.opdef.implicit_terminator if op.opdef else None
        show = terminator is not None and (
            bool(terminator.operands) or terminator.name != f"cuda_tile.{implicit}")
        return self.region(region, print_entry_args=False, print_terminators=show)

    def _block_header(self, block: Block, index: int) -> str:
        args = ""
        if block.arguments:
            args = "(" + ", ".join(
                f"{self.value(a)}: {self.type(a.type)}{self.location(a.location)}"
                for a in block.arguments) + ")"
        return f"^bb{index}{args}:"

    @staticmethod
    def types_of(op: Operation, name: str) -> list[Type]:
        """`types_of`, for the directives (which cannot import this module at load)."""
        return types_of(op, name)

    def type(self, t: Type) -> str:
        """How `t` prints (qualified)."""
        return type_text(t)

    # -- generic form --

    def _generic(self, op: Operation) -> str:
        text = '"' + op.name + '"(' + self.values(op.operands) + ")"
        props = {k: v for k, v in op.attributes.items()} if op.opdef is not None else {}
        attrs = dict(op.discardable) if op.opdef is not None else \
            {**op.attributes, **op.discardable}
        if props:
            text += " <{" + ", ".join(format_named(k, v) for k, v in sorted(props.items())) + "}>"
        if op.regions:
            text += " (" + ", ".join(self.region(r, print_entry_args=True,
                                                  print_terminators=True)
                                     for r in op.regions) + ")"
        if attrs:
            text += " {" + ", ".join(format_named(k, v) for k, v in sorted(attrs.items())) + "}"
        fn = FunctionType(tuple(v.type for v in op.operands), tuple(r.type for r in op.results))
        return text + " : " + _function_type_text(fn)


def _function_type_text(fn: FunctionType) -> str:
    inputs = "(" + ", ".join(type_text(t) for t in fn.inputs) + ")"
    if len(fn.results) == 1 and not isinstance(fn.results[0], FunctionType):
        return f"{inputs} -> {type_text(fn.results[0])}"
    return f"{inputs} -> (" + ", ".join(type_text(t) for t in fn.results) + ")"


#: How each step that prints after a space prints (see `compiled`).
_SPACED = {VAR: Printer._var, ELEMENT: Printer._element, ATTRIBUTE: Printer._attribute,
           OPERANDS: Printer._operands, CUSTOM: Printer._custom_directive}


def _is_terminator(op: Operation) -> bool:
    return op.opdef is not None and "Terminator" in op.opdef.traits


def _used_names(elements: list) -> set[str]:
    used: set[str] = set()
    for element in elements:
        if isinstance(element, Var):
            used.add(element.name)
        elif isinstance(element, Custom):
            used |= _used_names(element.args)
        elif isinstance(element, Optional_):
            used |= _used_names(element.elements)
        elif isinstance(element, OIList):
            used |= {var for _, var in element.clauses}
    return used


def _present(op: Operation, name: str) -> bool:
    """Whether an optional group's anchor is present (MLIR's rule for each kind: an
    attribute set to a non-default value, a non-empty value group, a region with a block)."""
    opdef = op.opdef
    assert opdef is not None
    decl = opdef.attr_def(name)
    if decl is not None:
        value = op.attributes.get(name)
        return value is not None and value != decl.default
    values = op.values_named(name)
    if values is not None:
        return bool(values)
    region = opdef.region_index(name)
    if region is not None:
        return bool(op.regions[region].blocks)
    raise KeyError(name)


def types_of(op: Operation, name: str) -> list[Type]:
    """The types of a named operand or result group (or of a typed attribute)."""
    where = op.opdef.value_position(name) if op.opdef is not None else None
    if where is not None and where[2]:
        # Single groups only: group i is value i (as `Operation.values_named` cuts them).
        values = op.operands if where[0] else op.results
        index = where[1]
        return [values[index].type] if index < len(values) else []
    values = op.values_named(name)
    if values is not None:
        return [v.type for v in values]
    value = op.attributes.get(name)
    if value is not None and hasattr(value, "type"):
        return [value.type]
    raise KeyError(name)


# ---- public functions --------------------------------------------------


def print_module(module: Module, *, generic: bool = False, debuginfo: bool = False) -> str:
    """A module as text: ``cuda_tile.module @name {...}``, or its items at top level when it
    was read from tileirdisasm's output (``module.spelling == "bare"``)."""
    printer = Printer(generic=generic, debuginfo=debuginfo)
    if module.spelling == "bare" and not generic:
        return printer.print_top(module.items, default_dialect="cuda_tile")
    return printer.print_top([module])

__all__ = ["Printer", "SSANames", "print_module"]
