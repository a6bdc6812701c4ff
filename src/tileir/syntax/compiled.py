"""Declarative formats compiled once into print and parse plans, so that printing an op runs
no spacing logic and parsing one interprets no format elements.

Printing
--------

MLIR's generated printer threads an "emit a space" state through a format's elements.  That
state never depends on the op being printed: an optional group advances it the same way
whether the group is present or not (mlir-tblgen generates it so), and ``oilist`` clauses and
attribute dictionaries advance it the same way whatever they print.  So every space a format
can print is known from the format alone, and `compile_print_plan` decides them all once per
format, by running `Spacing` over the elements exactly as `Printer` used to do per op.

A plan is a list of steps, each a tuple whose first item says what it is:

- ``(TEXT, text)``: fixed text (literals, with the spaces before them and before the next
  element merged in);
- ``(VAR, space, name)``: a variable ``$name``, printed by the printer after `space`
  (``" "`` or ``""``); what it names is decided here where the declaration says:
  ``(ATTRIBUTE, space, (name, print))`` for an attribute printed by `print`, and
  ``(OPERANDS, space, (index, all_single))`` for operand group `index` (`all_single` when
  every operand group of the op is single, so group i is operand i);
- ``(ELEMENT, space, element)``: a ``type(...)`` directive, likewise; a custom directive is
  ``(CUSTOM, space, (print, args))``, with its print function;
- ``(ATTR_DICT, with_keyword)``: the op's attribute dictionary;
- ``(OILIST, ((var, text), ...))``: each clause's keyword (with its space) when present;
- ``(GROUP, anchor, plan)``: an optional group; its plan's output is kept only when the
  anchor is present (it is still run when absent: directives may record aliases, and a
  malformed op must fail the same way).
"""

from __future__ import annotations

from typing import Any, Callable

from ..attributes import UNIT
from ..ops.base import OPTIONAL, SINGLE
from . import directives
from .format import AttrDict, Custom, Literal, OIList, Optional_, Spacing, TypeOf, Var
from .lexer import PERCENT_IDENTIFIER

TEXT, VAR, ELEMENT, ATTR_DICT, OILIST, GROUP, ATTRIBUTE, OPERANDS, CUSTOM = range(9)
#: The steps that print something after a space.
_SPACED = (VAR, ELEMENT, ATTRIBUTE, OPERANDS, CUSTOM)

Plan = list[tuple]


def compile_print_plan(elements: list, opdef: Any) -> Plan:
    """The print plan of a declarative format (`elements`) of the op `opdef` defines."""
    plan: Plan = []
    _compile(elements, opdef, Spacing(), plan)
    return _merge_text(plan)


def _compile(elements: list, opdef: Any, state: Spacing, plan: Plan) -> None:
    """Append the steps of `elements` to `plan`, advancing `state` as the printer would."""
    for element in elements:
        if isinstance(element, Literal):
            if element.text in ("", " "):
                if state.whitespace(element.text):
                    plan.append((TEXT, " "))
                continue
            space = " " if state.before_literal(element.text) else ""
            plan.append((TEXT, space + element.text))
        elif isinstance(element, Optional_):
            plan.append((GROUP, element.anchor,
                         _group_plan(element, opdef, state)))
        elif isinstance(element, OIList):
            clauses = tuple((var, (" " if state.before_literal(keyword) else "") + keyword)
                            for keyword, var in element.clauses)
            plan.append((OILIST, clauses))
        elif isinstance(element, AttrDict):
            plan.append((ATTR_DICT, element.with_keyword))
            state.after_attr_dict()
        else:
            space = " " if state.before_element() else ""
            if isinstance(element, Var):
                plan.append(_var_print_step(element.name, opdef, space))
            elif isinstance(element, Custom):
                plan.append((CUSTOM, space, (directives.DIRECTIVES[element.name][0],
                                             tuple(element.args))))
            else:
                plan.append((ELEMENT, space, element))


def _var_print_step(name: str, opdef: Any, space: str) -> tuple:
    """The step printing ``$name``: an attribute or an operand group where `opdef` declares
    one (the printer's `_var` order: attributes first), else the printer decides."""
    if opdef is None:
        return (VAR, space, name)
    decl = opdef.attr_def(name)
    if decl is not None:
        return (ATTRIBUTE, space, (name, directives.attr_syntax(decl)[0]))
    where = opdef.value_position(name)
    if where is not None and where[0]:
        return (OPERANDS, space, (where[1], where[2]))
    return (VAR, space, name)


def _group_plan(group: Optional_, opdef: Any, state: Spacing) -> Plan:
    """The plan of an optional group's children (a unit-attribute anchor is not printed:
    the group's presence spells it)."""
    anchor = opdef.attr_def(group.anchor) if opdef is not None else None
    elided = group.anchor if anchor is not None and anchor.is_unit else None
    children = [e for e in group.elements if not (isinstance(e, Var) and e.name == elided)]
    plan: Plan = []
    _compile(children, opdef, state, plan)
    return _merge_text(plan)


def _merge_text(plan: Plan) -> Plan:
    """`plan` with consecutive TEXT steps joined, and each VAR's or ELEMENT's space folded
    into the TEXT step before it when there is one."""
    merged: Plan = []
    for step in plan:
        if merged and merged[-1][0] == TEXT:
            if step[0] == TEXT:
                merged[-1] = (TEXT, merged[-1][1] + step[1])
                continue
            if step[0] in _SPACED and step[1]:
                merged[-1] = (TEXT, merged[-1][1] + step[1])
                step = (step[0], "", step[2])
        merged.append(step)
    return merged


# ---- parsing --------------------------------------------------------------------------------
# A parse plan is a list of (step, argument) pairs: `run_parse_plan` calls
# ``step(parser, state, argument)`` for each.  What the parser used to decide per op and
# element (which kind of element, whether a ``$name`` is an attribute, an operand group of
# some arity or a region, which directive parses it) is decided here once per format; the
# steps then do exactly what the parser did, in the same order, with the same errors.

ParseStep = tuple[Callable[[Any, Any, Any], None], Any]


def compile_parse_plan(elements: list, opdef: Any) -> list[ParseStep]:
    """The parse plan of a declarative format (`elements`) of the op `opdef` defines."""
    plan: list[ParseStep] = []
    for element in elements:
        step = _parse_step(element, opdef)
        if step is not None:
            plan.append(step)
    return plan


def run_parse_plan(parser: Any, state: Any, plan: list[ParseStep]) -> None:
    """Parse an op's custom form by `plan` into `state`."""
    for step, argument in plan:
        step(parser, state, argument)


def _parse_step(element: Any, opdef: Any) -> ParseStep | None:
    """The step that parses `element` (None for MLIR's whitespace literals)."""
    if isinstance(element, Literal):
        text = element.text
        if text in ("", " "):
            return None
        if text[0].isalpha() or text[0] == "_":
            return _keyword, text
        return _punct, text
    if isinstance(element, Var):
        return _var_step(element.name, opdef)
    if isinstance(element, Custom):
        return _custom, (directives.DIRECTIVES[element.name][1], tuple(element.args))
    if isinstance(element, TypeOf):
        return _custom, (directives.DIRECTIVES["CudaTileType"][1], (element,))
    if isinstance(element, AttrDict):
        return (_attr_dict_with_keyword if element.with_keyword else _attr_dict), None
    if isinstance(element, Optional_):
        children = [child for child in element.elements
                    if not (isinstance(child, Var) and _is_unit(opdef, child.name))]
        return _group, (element, compile_parse_plan(children, opdef))
    if isinstance(element, OIList):
        return _oilist, tuple(element.clauses)
    raise TypeError(element)


def _is_unit(opdef: Any, name: str) -> bool:
    """Whether `name` is a unit attribute of `opdef` (its group's presence spells it)."""
    decl = opdef.attr_def(name)
    return decl is not None and decl.is_unit


def _var_step(name: str, opdef: Any) -> ParseStep:
    """``$name``: an attribute (parsed by its syntax), an operand group (by its arity), or
    else a region, looked up in that order."""
    decl = opdef.attr_def(name)
    if decl is not None:
        return _attribute, (name, directives.attr_syntax(decl)[1])
    for operand in opdef.operands:
        if operand.name == name:
            if operand.arity == SINGLE:
                return _single_operand, name
            if operand.arity == OPTIONAL:
                return _optional_operand, name
            return _variadic_operands, name
    return _region, name


def _keyword(parser: Any, state: Any, text: str) -> None:
    """A keyword literal."""
    parser.expect_keyword(text)


def _punct(parser: Any, state: Any, text: str) -> None:
    """A punctuation literal."""
    parser.expect_punct(text)


def _custom(parser: Any, state: Any, argument: tuple) -> None:
    """A custom directive (or ``type($x)``): its parse function with its arguments."""
    parse, args = argument
    parse(parser, state, *args)


def _attr_dict(parser: Any, state: Any, _: None) -> None:
    """``attr-dict``: an optional ``{...}``."""
    parser.parse_optional_attr_dict(state.discardable)


def _attr_dict_with_keyword(parser: Any, state: Any, _: None) -> None:
    """``attr-dict-with-keyword``: an optional ``attributes {...}``."""
    if parser.consume_keyword("attributes"):
        parser.parse_attr_dict_body(state.discardable)


def _group(parser: Any, state: Any, argument: tuple) -> None:
    """An optional group: its children when its first element is next, then its unit
    anchor set."""
    group, plan = argument
    if parser._group_present(state, group.elements[0]):
        run_parse_plan(parser, state, plan)
        parser._mark_unit(state, group)


def _oilist(parser: Any, state: Any, clauses: tuple) -> None:
    """``oilist(...)``: keyword clauses in any order, each at most once."""
    seen: set[str] = set()
    while True:
        for keyword, var in clauses:
            if keyword not in seen and parser.consume_keyword(keyword):
                seen.add(keyword)
                state.attributes[var] = UNIT
                break
        else:
            break


def _attribute(parser: Any, state: Any, argument: tuple) -> None:
    """An attribute ``$name``, by its declaration's syntax."""
    name, parse = argument
    state.attributes[name] = parse(parser)


def _single_operand(parser: Any, state: Any, name: str) -> None:
    """A single operand ``$name``."""
    state.operand_offsets[name] = parser.token.offset
    state.uses[name] = [parser.parse_ssa_use()]


def _optional_operand(parser: Any, state: Any, name: str) -> None:
    """An optional operand ``$name``: one SSA use if one is next."""
    state.operand_offsets[name] = parser.token.offset
    state.uses[name] = [parser.parse_ssa_use()] \
        if parser.token.kind is PERCENT_IDENTIFIER else []


def _variadic_operands(parser: Any, state: Any, name: str) -> None:
    """A variadic operand group ``$name``: comma-separated SSA uses, possibly none."""
    state.operand_offsets[name] = parser.token.offset
    uses = []
    if parser.token.kind is PERCENT_IDENTIFIER:
        uses.append(parser.parse_ssa_use())
        while parser.consume_punct(","):
            uses.append(parser.parse_ssa_use())
    state.uses[name] = uses


def _region(parser: Any, state: Any, name: str) -> None:
    """A region ``$name``."""
    parser._region_var(state, name)


__all__ = ["ATTRIBUTE", "ATTR_DICT", "CUSTOM", "ELEMENT", "GROUP", "OILIST", "OPERANDS", "TEXT",
           "VAR", "compile_parse_plan", "compile_print_plan", "run_parse_plan"]
