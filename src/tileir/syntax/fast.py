"""Whole-op readers: a declarative op format compiled into regular expressions that read a
well-formed op in its usual spelling in a few matches, instead of token by token.

Why: the token-by-token parser costs about 2 us per token in Python, and an op is a dozen
tokens.  A reader matches the text between an op's types with one compiled pattern per
stretch (the types themselves are found in the parser's type memo) and fills the same
`OpState` the parse plan would.  The parser then finishes the op as usual, or, where the
format fixes where every operand's and result's type comes from (a `TypePlan`, worked out
here once per format), resolves the operands by that plan.  View loads and stores, whose
syntax is hand-written, have hand-written readers (`custom_reader`) that end in the same
resolution code as their token-by-token parsers.

How it stays exact: a reader only ever *accepts* or *declines*.  It declines (returns None,
having changed nothing) at anything it is not sure of: a comment, an attribute dictionary,
a type the memo does not hold, an enum keyword that names no case, a format element it has
no pattern for.  The parser then reads the op again from its first token the usual way,
which gives every diagnostic.  Where it accepts, each token is matched by the lexer's own
pattern for its kind in an atomic group, at a place where the lexer would produce that
kind, and guarded against the longer tokens the lexer would prefer (``::`` over ``:``,
an identifier going on), so the tokens are the lexer's; an optional group is entered
exactly when its first keyword is next, as the plan's presence test decides.

`describe` gives a reader's patterns and steps as text (to read what was compiled).
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, NamedTuple

from ..attributes import SPECIALIZED_ENUMS, UNIT
from ..ops.base import SINGLE, VARIADIC
from . import directives
from .base import enum_attr, enum_keywords
from .format import AttrDict, Custom, Literal, Optional_, TypeOf, Var
from .lexer import (BARE_IDENTIFIER, FLOAT, INTEGER, PERCENT_IDENTIFIER, _ID_CHARS, _PUNCTS,
                    _TOKEN_RES)

#: Set False to read every op token by token (the fast path's tests compare both).
ENABLED = True

#: The lexer's pattern of each kind of token.
_RULES = {kind: pattern.pattern for kind, pattern in _TOKEN_RES}
#: A bare identifier, as the lexer reads it (atomic: no shorter reading is tried).
BARE = f"(?>{_RULES[BARE_IDENTIFIER]})"
#: Not followed by a character that would continue an identifier.
_NOT_ID = f"(?!{_ID_CHARS})"
#: An SSA name (``%x``, ``%0``), as the lexer reads it.
SSA = f"(?>{_RULES[PERCENT_IDENTIFIER]})"
#: What may start a bare identifier (a type in short form starts with one).
BARE_RE = re.compile(BARE).match
#: An op's results and ``=``, then its name; or its name alone.
HEAD_WITH_RESULTS = re.compile(rf"({SSA}(?:\s*,\s*{SSA})*)\s*=\s*({BARE})").match
HEAD_NAME = re.compile(BARE).match
SSA_NAMES = re.compile(SSA).finditer

#: Every punctuation token with the longer ones the lexer reads first where it stands.
_LONGER = {p: [q[len(p):] for q in (*_PUNCTS, "{-#") if len(q) > len(p) and q.startswith(p)]
           for p in _PUNCTS}

Action = Callable[[Any, Any], bool]


class Segment(NamedTuple):
    """One stretch of an op: a pattern matched where the op's text goes on, the actions
    that store what it captured (each False to decline), and the group whose type the
    memo then gives (None after the op's last stretch)."""

    pattern: re.Pattern
    actions: tuple[Action, ...]
    type_of: str | None


class _Builder:
    """Collects the pattern pieces, capture groups and actions of one reader."""

    def __init__(self, opdef: Any) -> None:
        self.opdef = opdef
        self.groups = 0
        self.pieces: list[str] = []
        self.actions: list[Action] = []
        self.segments: list[Segment] = []
        #: Operands read outside optional groups (always present when the op is read).
        self.operands: list[str] = []
        #: How deep in optional groups the element being compiled stands.
        self.depth = 0

    def group(self) -> int:
        """The number of the next capture group."""
        self.groups += 1
        return self.groups

    def end_segment(self, type_of: str | None) -> None:
        """Close the current stretch (before a type, or at the op's end)."""
        text = "".join(self.pieces) + (r"\s*" if type_of is not None else "")
        self.segments.append(Segment(re.compile(text), tuple(self.actions), type_of))
        self.pieces, self.actions, self.groups = [], [], 0


class Unsupported(Exception):
    """A format element no reader pattern covers (the op is then read token by token)."""


class Reader(NamedTuple):
    """A declarative op's reader: its stretches, and where the types of its operands and
    results come from (None where the parser's general resolution must decide)."""

    segments: tuple[Segment, ...]
    types: "TypePlan | None"


class TypePlan(NamedTuple):
    """Where each operand's and result's type comes from, worked out once per format as
    `OpParser._resolve_groups` and `_result_types` find them per op: ``("given", name)``,
    the type the text gave group `name`; ``("value", i)``, the type of resolved operand
    `i`; ``("fixed", type)``, a buildable type; None, a variadic result with none."""

    operands: tuple[tuple[str, tuple], ...]
    results: tuple[tuple | None, ...]


def compile_reader(elements: list, opdef: Any) -> Reader | None:
    """The reader of a declarative format (`elements`) of `opdef`; None when an element
    has no pattern here."""
    builder = _Builder(opdef)
    try:
        for element in elements:
            _element(builder, element)
    except Unsupported:
        return None
    builder.end_segment(None)
    typed = [s.type_of for s in builder.segments if s.type_of is not None
             and not s.type_of.startswith(" ")]
    return Reader(tuple(builder.segments), _type_plan(opdef, builder.operands, typed))


def _inferred_source(opdef: Any, name: str, known: list[str]) -> tuple | None:
    """Where `OpParser._inferred` finds group `name`'s type when the groups `known`
    have types: a same-type partner, else the declared buildable type (None: an error)."""
    for group in opdef.same_type:
        if name in group:
            for other in group:
                if other in known:
                    return ("given", other)
    decl = opdef.value_def(name)
    if decl is not None and decl.constraint.buildable is not None:
        return ("fixed", decl.constraint.buildable)
    return None


def _type_plan(opdef: Any, operands: list[str], typed: list[str]) -> TypePlan | None:
    """`TypePlan` of an op without regions whose operands are all single and all read
    outside optional groups, with the types of the groups `typed` given; None otherwise,
    or where the resolution reports an error (the general code then reports it).  (Its
    reader declines an attribute dictionary, so such an op has nothing else to finish.)"""
    names = [o.name for o in opdef.operands]
    if opdef.needs_segments or opdef.region_names or \
            any(o.arity != SINGLE for o in opdef.operands) or sorted(operands) != sorted(names):
        return None
    operand_plan = []
    for operand in opdef.operands:
        source = ("given", operand.name) if operand.name in typed else \
            _inferred_source(opdef, operand.name, typed)
        if source is None:
            return None
        operand_plan.append((operand.name, source))
    known = names + [t for t in typed if t not in names]
    result_plan: list[tuple | None] = []
    for result in opdef.results:
        if result.name in typed:
            result_plan.append(("given", result.name))
        elif result.arity == VARIADIC:
            result_plan.append(None)
        else:
            source = _inferred_source(opdef, result.name, known)
            if source is None:
                return None
            if source[0] == "given" and source[1] not in typed:
                source = ("value", names.index(source[1]))
            result_plan.append(source)
    return TypePlan(tuple(operand_plan), tuple(result_plan))


def _keyword_pattern(text: str) -> str:
    """A keyword literal, not continued by an identifier character."""
    return re.escape(text) + _NOT_ID


def _element(b: _Builder, element: Any) -> None:
    """Append `element`'s pattern and actions to `b` (or raise `Unsupported`)."""
    if isinstance(element, Literal):
        _literal(b, element.text)
    elif isinstance(element, Var):
        _var(b, element.name)
    elif isinstance(element, TypeOf):
        _type_of(b, element.name)
    elif isinstance(element, Custom):
        _custom(b, element)
    elif isinstance(element, AttrDict):
        # No dictionary here: one present is read token by token.
        b.pieces.append(r"(?!\s*attributes" + _NOT_ID + ")" if element.with_keyword
                        else r"(?!\s*\{)")
    elif isinstance(element, Optional_):
        _optional(b, element)
    else:
        raise Unsupported(element)


def _literal(b: _Builder, text: str) -> None:
    """A keyword or punctuation literal (MLIR's whitespace literals match nothing)."""
    if text in ("", " "):
        return
    if text[0].isalpha() or text[0] == "_":
        if not re.fullmatch(BARE, text):
            raise Unsupported(text)
        b.pieces.append(r"\s*" + _keyword_pattern(text))
        return
    if text not in _LONGER:
        raise Unsupported(text)
    guard = "".join(f"(?!{re.escape(rest)})" for rest in _LONGER[text])
    b.pieces.append(r"\s*" + re.escape(text) + guard)


def _var(b: _Builder, name: str) -> None:
    """``$name``: a specialized enum attribute or a single operand."""
    opdef = b.opdef
    decl = opdef.attr_def(name)
    if decl is not None:
        # As `directives.attr_syntax` decides: a specialized enum is a bare keyword, any
        # other enum its keyword in ``<...>``; other attributes are read token by token.
        enum_type = getattr(decl.kind, "enum_type", None)
        if enum_type is None:
            raise Unsupported(name)
        if enum_type not in SPECIALIZED_ENUMS:
            b.pieces.append(r"\s*<")
        _enum_keyword(b, name, enum_type)
        if enum_type not in SPECIALIZED_ENUMS:
            b.pieces.append(r"\s*>")
        return
    index = opdef.shape.operand_index.get(name)
    if index is None or opdef.operands[index].arity != SINGLE:
        raise Unsupported(name)  # a region, or an optional or variadic group
    _single_operand(b, name)
    if not b.depth:
        b.operands.append(name)


def _single_operand(b: _Builder, name: str) -> None:
    """One SSA use (not followed by a ``#N`` result number, which the parser reads)."""
    group = b.group()
    b.pieces.append(rf"\s*({SSA})(?!#)")
    from .parser import Use

    def operand(m: Any, state: Any) -> bool:
        offset = m.start(group)
        state.operand_offsets[name] = offset
        state.uses[name] = [Use(m.group(group)[1:], 0, offset)]
        return True
    operand.__doc__ = f"operand ${name}: group {group}"
    b.actions.append(operand)


def _enum_keyword(b: _Builder, name: str, enum_type: type) -> None:
    """A keyword naming a case of `enum_type` (declined when it names none)."""
    group = b.group()
    b.pieces.append(rf"\s*({BARE})")
    cases = enum_keywords(enum_type)

    def keyword(m: Any, state: Any) -> bool:
        case = cases.get(m.group(group))
        if case is None:
            return False
        state.attributes[name] = enum_attr(case)
        return True
    keyword.__doc__ = f"{enum_type.__name__} ${name}: group {group}"
    b.actions.append(keyword)


def _type_of(b: _Builder, name: str) -> None:
    """``type($name)``: the stretch ends here; the type memo gives the type."""
    decl = b.opdef.value_def(name)
    if decl is not None and decl.arity == VARIADIC:
        raise Unsupported(name)
    b.end_segment(name)


def _custom(b: _Builder, element: Custom) -> None:
    """A custom directive whose parse function says what it reads (see `directives`)."""
    parse = directives.DIRECTIVES[element.name][1]
    reads = getattr(parse, "reads", None)
    if element.name == "CudaTileType" and isinstance(element.args[0], TypeOf):
        _type_of(b, element.args[0].name)
    elif reads is not None and reads[0] == "enum keyword":
        _enum_keyword(b, element.args[0].name, reads[1])
    elif reads is not None and reads[0] == "rounding":
        _rounding(b, element.args[0].name, *reads[1:])
    elif reads is not None and reads[0] == "dense":
        result = element.args[1] if len(element.args) > 1 else None
        _dense(b, element.args[0].name, result.name if result is not None else None)
    else:
        raise Unsupported(element.name)


def _rounding(b: _Builder, name: str, default: Any, allowed: tuple[str, ...],
              strict: bool) -> None:
    """``rounding<mode>`` when the keyword ``rounding`` is next, else nothing (the
    default mode); declined where the directive reports an error."""
    from ..enums import RoundingMode
    group = b.group()
    keyword = r"\s*" + _keyword_pattern("rounding")
    b.pieces.append(rf"(?:(?={keyword}){keyword}\s*<\s*({BARE})\s*>|(?!{keyword}))")
    cases = enum_keywords(RoundingMode)
    absent = enum_attr(default)

    def rounding(m: Any, state: Any) -> bool:
        spelled = m.group(group)
        if spelled is None:
            state.attributes[name] = absent
            return True
        mode = cases.get(spelled)
        if mode is None or (strict and spelled not in allowed):
            return False
        state.attributes[name] = enum_attr(mode)
        return True
    rounding.__doc__ = f"rounding ${name}: group {group}"
    b.actions.append(rounding)


#: A float literal, then an integer one, as the lexer reads them (floats first).
NUMBER = f"((?>{_RULES[FLOAT]})|(?>{_RULES[INTEGER]}))"
#: Where a dense constant keeps its element type, value and result type in `OpState.types`
#: until the attribute is built (keys no declaration can have).
_ELEMENT, _VALUE, _RESULT = " element", " value", " result"


def _dense(b: _Builder, name: str, result: str | None) -> None:
    """``<f32: 1.5> : tile<4xf32>``: one scalar literal (a list, a hexadecimal float or a
    boolean is read token by token), the element type and the result type from the memo,
    each rule of the token-by-token reader checked (declined where it would report)."""
    from .parser import _DENSE_ELEMENT_SPELLINGS, _LATER_DENSE_ELEMENTS
    from .floats import parse_float_literal
    from ..attributes import DenseElementsAttr
    from ..types import FloatType, IntegerType, TileType
    b.pieces.append(r"\s*<")
    b.end_segment(_ELEMENT)
    minus, number = b.group(), b.group()
    b.pieces.append(r"\s*:(?!:)\s*(?:(-)(?!>)\s*)?" + NUMBER + r"\s*>\s*:(?!:)")
    result_key = result if result is not None else _RESULT

    def value(m: Any, state: Any) -> bool:
        element = state.types[_ELEMENT][0]
        if str(element) not in _DENSE_ELEMENT_SPELLINGS and \
                element not in _LATER_DENSE_ELEMENTS:
            return False
        negative = m.start(minus) >= 0
        spelled = m.group(number)
        if isinstance(element, FloatType):
            if "." not in spelled:
                return False
            try:
                bits = parse_float_literal(("-" if negative else "") + spelled, element)
            except ValueError:
                return False
        elif isinstance(element, IntegerType) and "." not in spelled:
            bits = _dense_integer(spelled, negative, element.width)
            if bits is None:
                return False
        else:
            return False
        state.types[_VALUE] = [bits]
        return True
    value.__doc__ = f"dense literal of ${name}: groups {minus}, {number}"
    b.actions.append(value)
    b.end_segment(result_key)

    def attribute(m: Any, state: Any) -> bool:
        types = state.types
        element = types.pop(_ELEMENT)[0]
        bits = types.pop(_VALUE)[0]
        t = (types[result_key] if result is not None else types.pop(_RESULT))[0]
        if not isinstance(t, TileType) or (t.element_type is not element and
                                           t.element_type != element):
            return False
        state.attributes[name] = DenseElementsAttr(t, (bits,))
        return True
    attribute.__doc__ = f"dense attribute ${name} of the types read"
    b.actions.append(attribute)


def _dense_integer(spelled: str, negative: bool, width: int) -> int | None:
    """An integer element's stored value, as the token-by-token reader makes it; None where
    it reports an error (out of the 64-bit or the element's range)."""
    from .base import literal_int
    from .parser import dense_integer_bits
    value = literal_int(spelled)
    if value is None:
        return None
    value = -value if negative else value
    if not -(1 << 63) <= value <= (1 << 63) - 1:
        return None
    return dense_integer_bits(value, width)


def _optional(b: _Builder, group: Optional_) -> None:
    """An optional group whose first element is a keyword: entered exactly when that
    keyword is next (as the plan's presence test), its unit anchor then set."""
    first = group.elements[0]
    if not isinstance(first, Literal) or not first.text[:1].isalpha():
        raise Unsupported(group)
    opdef = b.opdef
    anchor = opdef.attr_def(group.anchor)
    unit = anchor is not None and anchor.is_unit
    children = [e for e in group.elements if not (isinstance(e, Var) and unit and
                                                  e.name == group.anchor)]
    marker = b.group()
    outer_pieces, outer_actions, outer_segments = b.pieces, b.actions, len(b.segments)
    b.pieces, b.actions = [], []
    b.depth += 1
    for child in children:
        _element(b, child)
    b.depth -= 1
    if len(b.segments) != outer_segments:
        raise Unsupported(group)  # a type inside the group
    inner, inner_actions = "".join(b.pieces), tuple(b.actions)
    b.pieces, b.actions = outer_pieces, outer_actions
    keyword = r"\s*" + _keyword_pattern(first.text)
    b.pieces.append(rf"(?:(?={keyword})(){inner}|(?!{keyword}))")
    anchor_name = group.anchor

    def present(m: Any, state: Any) -> bool:
        if m.start(marker) < 0:
            return True
        for action in inner_actions:
            if not action(m, state):
                return False
        if unit:
            state.attributes[anchor_name] = UNIT
        return True
    present.__doc__ = f"group `{first.text}`: group {marker}"
    b.actions.append(present)


def reader_for(opdef: Any) -> Reader | None:
    """`opdef`'s reader, compiled once per format and kept with the declaration (None when
    its syntax has none)."""
    if opdef.parsed_format is None:
        return None
    # Kept with the declaration (see `OpDef.derived`: a changed field drops it).
    derived = opdef.derived
    if "fast reader" not in derived:
        derived["fast reader"] = compile_reader(opdef.parsed_format, opdef)
    return derived["fast reader"]


# ---- hand-written syntax: view loads and stores ----------------------------------------------
#: ``weak`` or ``relaxed device``: an ordering keyword, then maybe a scope keyword.
_MEMORY = rf"\s*({BARE})(?:\s*({BARE}))?"
#: ``[%i, %j]``: the indices' text (one group).
_INDICES = rf"\s*\[((?:\s*{SSA}(?!#)(?:\s*,\s*{SSA}(?!#))*)?)\s*\]"
#: ``token = %t`` when the keyword ``token`` is next; no hints, inbounds or dictionary.
_VIEW_TAIL = (rf"(?:(?=\s*token{_NOT_ID})\s*token{_NOT_ID}\s*=\s*({SSA})(?!#)"
              rf"|(?!\s*token{_NOT_ID}))"
              rf"(?!\s*(?:optimization_hints|inbounds|attributes){_NOT_ID})\s*:(?!:)\s*")
LOAD_HEAD = re.compile(_MEMORY + rf"\s*({SSA})(?!#)" + _INDICES + _VIEW_TAIL).match
STORE_HEAD = re.compile(_MEMORY + rf"\s*({SSA})(?!#)\s*,\s*({SSA})(?!#)" + _INDICES +
                        _VIEW_TAIL).match
COMMA = re.compile(r"\s*,\s*").match
ARROW = re.compile(r"\s*->\s*").match

CustomReader = Callable[[Any, Any, int], "tuple[int, Callable[[], None]] | None"]
#: The hand-written readers by custom syntax name, made on first use (None until then).
_CUSTOM_READERS: dict[str, CustomReader] | None = None
#: Held while the first thread to ask makes them; the table is published whole.
_CUSTOM_READERS_LOCK = threading.Lock()


def custom_reader(custom: str) -> CustomReader | None:
    """The reader of the hand-written syntax `custom` (made on first use), or None.

    A reader takes the parser, the `OpState` and the offset after the op's name; it fills
    in what the text spells (enum attributes) and returns where the op ends with a
    function that resolves the operands as the token-by-token parser does, to be called
    once the parser stands after the op; or None to decline."""
    global _CUSTOM_READERS
    readers = _CUSTOM_READERS
    if readers is None:
        with _CUSTOM_READERS_LOCK:
            readers = _CUSTOM_READERS
            if readers is None:
                readers = _CUSTOM_READERS = _view_readers()
    return readers.get(custom)


def _view_readers() -> dict[str, CustomReader]:
    """The readers of ``load_view_tko`` and ``store_view_tko`` (see `custom_reader`)."""
    from ..enums import MemoryOrderingSemantics, MemoryScope
    from .custom import load_view_values, store_view_values
    from .parser import Use
    orders, scopes = enum_keywords(MemoryOrderingSemantics), enum_keywords(MemoryScope)
    weak = MemoryOrderingSemantics.WEAK

    def memory(m: Any, state: Any) -> bool:
        """The ordering and scope keywords (groups 1, 2), as `custom._parse_memory`."""
        order = orders.get(m.group(1))
        if order is None:
            return False
        state.attributes["memory_ordering_semantics"] = enum_attr(order)
        scope = m.group(2)
        if scope is not None:
            if order is weak or scope not in scopes:
                return False
            state.attributes["memory_scope"] = enum_attr(scopes[scope])
        return True

    def use(m: Any, group: int) -> Any:
        return Use(m.group(group)[1:], 0, m.start(group))

    def uses(text: str, m: Any, group: int) -> list:
        return [Use(u.group()[1:], 0, u.start())
                for u in SSA_NAMES(text, m.start(group), m.end(group))]

    def index_types(p: Any, view_type: tuple | None, count: int
                    ) -> tuple[list, int | None, int] | None:
        """``, T ->`` or ``->`` after the view type (T: the type of every index): the
        index types, where T starts, and where the text after the arrow starts; None to
        decline (no view type either)."""
        if view_type is None:
            return None
        text = p.source.text
        types: list = []
        offset, pos = None, view_type[1]
        comma = COMMA(text, pos)
        if comma is not None:
            found = p._memo_type(comma.end())
            if found is None or COMMA(text, found[1]) is not None:
                return None
            types, offset, pos = [found[0]] * count, comma.end(), found[1]
        arrow = ARROW(text, pos)
        if arrow is None:
            return None
        return types, offset, arrow.end()

    def load(p: Any, state: Any, pos: int) -> tuple[int, Callable[[], None]] | None:
        """``weak %v[%i] token = %t : V, I -> T, token``."""
        text = p.source.text
        m = LOAD_HEAD(text, pos)
        if m is None or not memory(m, state):
            return None
        view, indices = use(m, 3), uses(text, m, 4)
        token = [use(m, 5)] if m.start(5) >= 0 else []
        view_type = p._memo_type(m.end())
        found = index_types(p, view_type, len(indices))
        if found is None:
            return None
        types, offset, pos = found
        tile_type = p._memo_type(pos)
        comma = COMMA(text, tile_type[1]) if tile_type is not None else None
        token_type = p._memo_type(comma.end()) if comma is not None else None
        if token_type is None:
            return None
        return token_type[1], lambda: load_view_values(
            p, state, view, indices, token, view_type[0], types, offset, tile_type[0],
            token_type[0])

    def store(p: Any, state: Any, pos: int) -> tuple[int, Callable[[], None]] | None:
        """``weak %x, %v[%i] token = %t : T, V, I -> token``."""
        text = p.source.text
        m = STORE_HEAD(text, pos)
        if m is None or not memory(m, state):
            return None
        tile, view, indices = use(m, 3), use(m, 4), uses(text, m, 5)
        token = [use(m, 6)] if m.start(6) >= 0 else []
        tile_type = p._memo_type(m.end())
        comma = COMMA(text, tile_type[1]) if tile_type is not None else None
        view_type = p._memo_type(comma.end()) if comma is not None else None
        found = index_types(p, view_type, len(indices))
        if found is None:
            return None
        types, offset, pos = found
        token_type = p._memo_type(pos)
        if token_type is None:
            return None
        return token_type[1], lambda: store_view_values(
            p, state, tile, view, indices, token, tile_type[0], view_type[0], types, offset,
            token_type[0])

    return {"load_view": load, "store_view": store}


def describe(opdef: Any) -> str:
    """`opdef`'s reader as text: each stretch's pattern, its actions and its type."""
    if opdef.custom is not None:
        reader = custom_reader(opdef.custom)
        if reader is None:
            return f"{opdef.full_name}: no reader"
        return f"{opdef.full_name}: {reader.__doc__}"
    reader = reader_for(opdef)
    if reader is None:
        return f"{opdef.full_name}: no reader"
    lines = [f"{opdef.full_name}:"]
    for segment in reader.segments:
        lines.append(f"  match {segment.pattern.pattern}")
        lines += [f"    then {action.__doc__}" for action in segment.actions]
        if segment.type_of is not None:
            lines.append(f"  type of ${segment.type_of} from the memo")
    if reader.types is not None:
        lines += [f"  operand ${name}: type {source}" for name, source in reader.types.operands]
        lines += [f"  result #{i}: type {source}" for i, source in enumerate(reader.types.results)]
    return "\n".join(lines)


__all__ = ["ENABLED", "Reader", "Segment", "TypePlan", "compile_reader", "custom_reader",
           "describe", "reader_for"]
