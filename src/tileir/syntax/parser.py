"""Parsing Tile IR text into IR: top-level forms, ops in custom and generic syntax,
attributes, locations and aliases.

The parser accepts what cuda-tile-opt accepts: ``cuda_tile.module`` with ops in short or
prefixed form, the builtin ``module { ... }`` wrapper, MLIR's generic op form,
unregistered ops (with `allow_unregistered`), ``#alias = ...`` definitions and ``loc(...)``
locations; plus tileirdisasm's output (``entry`` ops at top level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..attributes import (UNIT, UNKNOWN_LOC, ArrayAttr, Attribute, BoolAttr, BoundedAttr,
                          CallSiteLoc, DenseArrayAttr, DenseElementsAttr, DictAttr,
                          DICompileUnitAttr, DIFileAttr, DILexicalBlockAttr, DILocAttr,
                          DI_SUBPROGRAM_FLAGS, DISubprogramAttr, DivByAttr, EnumAttr,
                          FileLineColLoc, FloatAttr,
                          FusedLoc, IntegerAttr, Location, NameLoc, OpaqueAttr,
                          OptimizationHintsAttr, SameElementsAttr, SPECIALIZED_ENUMS, StringAttr,
                          SymbolRefAttr, TypeAttr, NestingError, file_line_col)
from ..recursion import deep_recursion
from ..diagnostics import ParseError, error, note
from ..ir import Block, Module, Operation, Region, Value, gc_paused
from ..ops import registry
from ..ops.base import VARIADIC, OpDef
from ..types import F8E5M3FNU, FloatType, FunctionType, IntegerType, TileType, Type, quoted
from .base import enum_attr, enum_case, enum_keywords
from .compiled import compile_parse_plan, run_parse_plan
from . import fast
from .custom import PARSERS
from .dense_hex import from_hex
from .floats import float_bits_from_hex, parse_float_literal
from .format import Literal, Optional_, Var, format_of
from .lexer import (AT_IDENTIFIER, BARE_IDENTIFIER, CARET_IDENTIFIER, EOF, EXCLAMATION_IDENTIFIER,
                    FLOAT, HASH_IDENTIFIER, INTEGER, PERCENT_IDENTIFIER, PUNCT, STRING, Token,
                    unescape_string)
from .type_parser import TypeParser

#: Items tileirdisasm prints at top level without their module.
TOP_LEVEL_ITEMS = ("entry", "global", "testing$func", "preview$func", "preview$extern_impl")
#: The element types a typed dense literal may have, as the reference lists them.
_DENSE_ELEMENTS = ("i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or "
                   "f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN")
#: Element types added after 13.3 that a dense literal also takes; the message above
#: keeps the reference's 13.3 words, which its tests match.
_LATER_DENSE_ELEMENTS = (F8E5M3FNU,)
#: The spellings `_DENSE_ELEMENTS` lists (looked up per constant).
_DENSE_ELEMENT_SPELLINGS = frozenset(_DENSE_ELEMENTS.split(" or "))
#: Ops nest; this bound keeps hostile input from exhausting Python's stack.
MAX_OP_NESTING = 200
#: How deep attributes may nest (arrays, dictionaries): as deep as bytecode holds them.
MAX_ATTRIBUTE_NESTING = 64


def dense_integer_bits(value: int, width: int) -> int | None:
    """How an int64 literal `value` is stored as an element of `width` bits (signed, as
    the reference prints it; i1 as 0 or 1); None when it is outside the union of the
    signed and unsigned ranges of `width` bits."""
    low, high = (-1, 1) if width == 1 else (-(1 << (width - 1)), (1 << width) - 1)
    if width < 64 and not low <= value <= high:
        return None
    if width == 1:
        return int(value != 0)
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


class Use(NamedTuple):
    """An SSA use before resolution: ``%name`` or ``%name#index`` at `offset` (a named
    tuple: the parser makes one per operand, and a tuple is built faster)."""

    name: str
    index: int
    offset: int


@dataclass
class OpState:
    """What the parser has gathered about one op so far (MLIR's OperationState)."""

    opdef: OpDef
    name_offset: int
    uses: dict[str, list[Use]] = field(default_factory=dict)
    #: Where each operand group's uses begin (where a count mismatch is reported).
    operand_offsets: dict[str, int] = field(default_factory=dict)
    types: dict[str, list[Type]] = field(default_factory=dict)
    attributes: dict[str, Attribute] = field(default_factory=dict)
    discardable: dict[str, Attribute] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    resolved_operands: list[Value] | None = None
    result_types: list[Type] | None = None
    #: The op's name as written: its full name, or an alias's (``cuda_tile.pow``).
    name: str = ""

    def is_variadic(self, name: str) -> bool:
        """Whether the operand or result group `name` (operands first) is variadic."""
        decl = self.opdef.value_def(name)  # type: ignore[union-attr]
        return decl is not None and decl.arity == VARIADIC


class _Scope:
    """SSA names visible in one region; `isolated` stops lookups at entries.

    Like MLIR's parser, each name maps to one entry per result number: the value and the
    offset of its definition (or, for a forward reference, of its first use)."""

    def __init__(self, isolated: bool) -> None:
        self.values: dict[str, list[tuple[Value, int]]] = {}
        self.isolated = isolated
        #: name -> result number -> (placeholder, offset of its first use)
        self.forward: dict[str, dict[int, tuple[Value, int]]] = {}


class _Forward(Value):
    """A placeholder for a value used before its definition."""

    __slots__ = ("name",)

    def __init__(self, type: Type, name: str) -> None:
        super().__init__(type)
        self.name = name


@dataclass(frozen=True)
class _DeferredLoc(Location):
    """A location alias used before its definition; resolved after the whole text."""

    name: str
    offset: int

    def body(self, ref) -> str:
        return "#" + self.name


class OpParser(TypeParser):
    """Parses a whole document (one ``-split-input-file`` chunk)."""

    def __init__(self, text: str, filename: str | None = None, first_line: int = 1,
                 allow_unregistered: bool = False) -> None:
        super().__init__(text, filename, first_line)
        self.allow_unregistered = allow_unregistered
        self.attr_aliases: dict[str, Attribute] = {}
        self.scopes: list[_Scope] = []
        self.op_depth = 0
        self.attribute_depth = 0
        self.users: dict[int, list[tuple[Operation, int]]] = {}
        #: Offsets of uses whose name was never defined (reported at the end).
        self.undeclared: list[int] = []
        #: Per (spelling, default dialect) of a custom op found before: its definition,
        #: its name as written, and the prefix of its AsmParser errors.
        self.op_names: dict[tuple[str, str], tuple[OpDef, str, str]] = {}
        #: Whether a forward reference (`_Forward`) or a location alias used before its
        #: definition (`_DeferredLoc`) was ever made: until then, there is nothing to
        #: patch after an op or after the whole text.
        self.made_forward = False
        self.made_deferred_loc = False
        #: The SSA names the text gave its values, a table per closed scope (read by
        #: `source_names`, only when asked: a trace names values as the source does).
        self.closed_scopes: list[dict[str, list[tuple[Value, int]]]] = []

    # ---- top level --------------------------------------------------

    def parse_top_level(self) -> list[Operation]:
        """Alias definitions and top-level ops until the end of the text."""
        ops: list[Operation] = []
        self.scopes.append(_Scope(isolated=True))
        while not self.at_end():
            token = self.token
            if token.kind is HASH_IDENTIFIER and self._next_is_equal():
                self._alias_definition(self.attr_aliases)
            elif token.kind is EXCLAMATION_IDENTIFIER and self._next_is_equal():
                self._type_alias_definition()
            else:
                ops.append(self.parse_operation(default_dialect=""))
        self._close_scope()
        self._check_undeclared()
        if not self.made_deferred_loc:
            return ops
        for op in ops:
            for nested in op.walk():
                nested.location = self._resolve_loc(nested.location)
                for region in nested.regions:
                    for block in region.blocks:
                        for arg in block.arguments:
                            arg.location = self._resolve_loc(arg.location)
        return ops

    def _resolve_loc(self, loc: Location, seen: set[str] | None = None) -> Location:
        """Replace deferred location aliases, here and inside di_loc locations (an alias
        may name another; one that comes back to itself is an error)."""
        seen = set() if seen is None else seen
        while isinstance(loc, _DeferredLoc):
            if loc.name in seen:
                raise self.error_at(loc.offset, f"location alias '{loc.name}' refers to "
                                    "itself")
            seen.add(loc.name)
            value = self.attr_aliases.get(loc.name)
            if not isinstance(value, Location):
                raise self.error_at(loc.offset, f"undefined symbol alias id '{loc.name}'")
            loc = value
        if isinstance(loc, DILocAttr) and isinstance(loc.location, _DeferredLoc):
            inner = self._resolve_loc(loc.location, seen)
            if not isinstance(inner, FileLineColLoc):     # (a di_loc holds a file:line:col)
                raise self.error_at(loc.location.offset, "invalid kind of attribute specified")
            return DILocAttr(inner, loc.scope)
        return loc

    def _next_is_equal(self) -> bool:
        save = self.token
        self.advance()
        result = self.token.is_punct("=")
        self.rewind(save.offset)
        return result

    def _alias_definition(self, table: dict) -> None:
        at = self.token.offset
        name = self.advance().spelling[1:]
        if name in table:           # (MLIR's words: an alias is defined once)
            raise self.error_at(at, f"redefinition of attribute alias id '{name}'")
        self.expect_punct("=")
        if self.token.is_keyword("loc"):
            table[name] = self.parse_location_spec()
        else:
            table[name] = self.parse_attribute()

    def _type_alias_definition(self) -> None:
        at = self.token.offset
        name = self.advance().spelling[1:]
        if name in self.type_aliases:
            raise self.error_at(at, f"redefinition of type alias id '{name}'")
        self.expect_punct("=")
        self.type_aliases[name] = self.parse_type()

    # ---- operations --------------------------------------------------

    def parse_operation(self, default_dialect: str) -> Operation:
        self.op_depth += 1
        if self.op_depth > MAX_OP_NESTING:
            self.fail(f"operations nest more than {MAX_OP_NESTING} deep")
        try:
            return self._operation(default_dialect)
        finally:
            self.op_depth -= 1

    def _operation(self, default_dialect: str) -> Operation:
        if fast.ENABLED:
            read = self._read_whole(default_dialect)
            if read is not None:
                return self._bind_results(*read)
        results: list[tuple[str, int, int]] = []   # name, count, offset
        if self.token.kind is PERCENT_IDENTIFIER:
            while True:
                token = self.token
                if token.kind is not PERCENT_IDENTIFIER:
                    raise self.wrong_token("expected valid ssa identifier")
                self.advance()
                count = 1
                if self.consume_punct(":"):
                    if self.token.kind is not INTEGER:
                        raise self.wrong_token("expected integer number of results")
                    count = self.literal_value(self.token.offset, self.token.spelling)
                    if count < 1:
                        self.fail("expected named operation to have at least 1 result")
                    self.advance()
                results.append((token.spelling[1:], count, token.offset))
                if not self.consume_punct(","):
                    break
            self.expect_punct("=", " after SSA name")
        name_token = self.token
        if name_token.kind is STRING:
            op = self._generic_operation()
        elif name_token.kind is BARE_IDENTIFIER:
            op = self._custom_operation(default_dialect)
        else:
            raise self.wrong_token("expected operation name in quotes")
        return self._bind_results(op, results)

    def _bind_results(self, op: Operation, results: list[tuple[str, int, int]]
                      ) -> Operation:
        """After an op: its trailing location, then its results bound to the names
        written before it (`results`: name, count, offset)."""
        token = self.token
        if token.kind is BARE_IDENTIFIER and token.spelling == "loc":
            op.location = self.parse_location_spec()
        if not results:
            return op
        expected = results[0][1] if len(results) == 1 else sum(c for _, c, _ in results)
        if not op.results:
            raise self.error_at(results[0][2], "cannot name an operation with no results")
        if expected != len(op.results):
            raise self.error_at(results[0][2], f"operation defines {len(op.results)} results "
                                f"but was provided {expected} to bind")
        pos = 0
        for name, count, offset in results:
            self._define(name, op.results[pos:pos + count], offset)
            pos += count
        return op

    def _read_whole(self, default_dialect: str
                    ) -> tuple[Operation, list[tuple[str, int, int]]] | None:
        """The op here read by its format's whole-op reader (see `fast`), with its result
        names; None, with nothing consumed, where there is no reader or it declines."""
        token = self.token
        text = self.source.text
        if token.kind is PERCENT_IDENTIFIER:
            head = fast.HEAD_WITH_RESULTS(text, token.offset)
            if head is None:
                return None
            spelled = head.group(1)
            results = [(spelled[1:], 1, token.offset)] if "," not in spelled else \
                [(m.group()[1:], 1, m.start())
                 for m in fast.SSA_NAMES(text, token.offset, head.end(1))]
            name_offset = head.start(2)
            spelling = head.group(2)
        elif token.kind is BARE_IDENTIFIER:
            head = fast.HEAD_NAME(text, token.offset)
            results = []
            name_offset = token.offset
            spelling = head.group()  # type: ignore[union-attr]
        else:
            return None
        known = self.op_names.get((spelling, default_dialect))
        if known is None:
            return None
        opdef, name, prefix = known
        custom = opdef.custom is not None
        reader = fast.custom_reader(opdef.custom) if custom else fast.reader_for(opdef)
        if reader is None:
            return None
        state = OpState(opdef, name_offset, name=name)
        values = plan = None
        if custom:
            read = reader(self, state, head.end())  # type: ignore[operator, union-attr]
            if read is None:
                return None
            end, values = read
        else:
            end = self._read_segments(state, reader, head.end())  # type: ignore[arg-type, union-attr]
            if end is None:
                return None
            plan = reader.types  # type: ignore[union-attr]
        # Committed: the parser stands after the op, as after reading it token by token.
        self.prev_end = end
        self.rewind(end)
        saved, self.asm_prefix = self.asm_prefix, prefix
        try:
            if plan is not None:
                return self._build_planned(state, plan, name_offset), results
            if values is not None:
                values()
            return self._finish(state, name_offset), results
        finally:
            self.asm_prefix = saved

    def _read_segments(self, state: OpState, reader: "fast.Reader", pos: int) -> int | None:
        """A declarative op's text from `pos` read by its reader's stretches and memo
        types into `state`; where the op ends, or None to decline."""
        text = self.source.text
        for pattern, actions, type_of in reader.segments:
            match = pattern.match(text, pos)
            if match is None:
                return None
            for action in actions:
                if not action(match, state):
                    return None
            pos = match.end()
            if type_of is not None:
                found = self._memo_type(pos)
                if found is None:
                    return None
                state.types[type_of] = [found[0]]
                pos = found[1]
        return pos

    def _build_planned(self, state: OpState, plan: "fast.TypePlan", name_offset: int
                       ) -> Operation:
        """`_finish` for an op a reader with a type plan read: operands resolved by the
        plan, then the op built (such an op has no regions, segment sizes or attribute
        dictionary to handle: see `fast._type_plan`)."""
        self._resolve_planned(state, plan)
        opdef = state.opdef
        op = (opdef.op_class or Operation)._adopting(
            state.name or opdef.full_name, state.resolved_operands,  # type: ignore[arg-type]
            state.result_types, state.attributes,  # type: ignore[arg-type]
            state.discardable, self._loc_at(name_offset))
        self._record_uses(op)
        return op

    def _resolve_planned(self, state: OpState, plan: "fast.TypePlan") -> None:
        """`state`'s operands resolved and result types set where `plan` says their types
        come from: what `_resolve_groups` and `_result_types` find, in the same order,
        without searching per op."""
        types, uses = state.types, state.uses
        operands = []
        for name, (kind, source) in plan.operands:
            operands.append(self.resolve(uses[name][0],
                                         types[source][0] if kind == "given" else source))
        result_types = []
        for source in plan.results:
            if source is not None:
                kind, what = source
                result_types.append(types[what][0] if kind == "given" else
                                    operands[what].type if kind == "value" else what)
        state.resolved_operands = operands
        state.result_types = result_types

    def _memo_type(self, pos: int) -> tuple[Type, int] | None:
        """The outermost type the type memo holds for the text at `pos` (as `_recall`
        finds it), with where it ends; None when it holds none."""
        first = fast.BARE_RE(self.source.text, pos)
        return None if first is None else \
            self._memo_lookup(self._short_memo, first.group(), pos)

    def _trailing_location(self, default: Location) -> Location:
        if self.token.is_keyword("loc"):
            return self.parse_location_spec()
        return default

    def _lookup_def(self, name: str) -> OpDef | None:
        return registry.lookup(name)

    # -- custom form --

    def _custom_operation(self, default_dialect: str) -> Operation:
        token = self.advance()
        known = self.op_names.get((token.spelling, default_dialect))
        if known is None:
            found = self._custom_name(token, default_dialect)
            if isinstance(found, Operation):
                return found
            known = self.op_names[(token.spelling, default_dialect)] = found
        opdef, name, prefix = known
        state = OpState(opdef, token.offset, name=name)
        # `asm_context`, spelled out: this runs once per op.
        saved, self.asm_prefix = self.asm_prefix, prefix
        try:
            if opdef.custom is not None:
                PARSERS[opdef.custom](self, state)
            else:
                run_parse_plan(self, state, self._parse_plan(opdef))
            return self._finish(state, token.offset)
        finally:
            self.asm_prefix = saved

    def _custom_name(self, token: Token,
                     default_dialect: str) -> tuple[OpDef, str, str] | Operation:
        """What the custom op spelled `token` is: its definition, its name as written and
        the prefix of its AsmParser errors (or, for ``module``, the builtin module parsed);
        errors for unknown ops."""
        spelling = token.spelling
        if "." in spelling:
            opdef = self._lookup_def(spelling)
            if opdef is None or not opdef.spells(spelling):
                dialect = spelling.split(".")[0]
                if dialect in ("cuda_tile", "builtin"):
                    raise self.error_at(token.offset, f"custom op '{spelling}' is unknown")
                raise self.error_at(token.offset, f"Dialect `{dialect}' not found for custom "
                                    f"op '{spelling}' ")
        elif default_dialect:
            opdef = self._lookup_def(f"{default_dialect}.{spelling}")
        elif spelling == "module":
            return self._builtin_module(token.offset)
        else:
            # tileirdisasm prints entries and globals at top level, without a module.
            opdef = self._lookup_def(f"cuda_tile.{spelling}") \
                if spelling in TOP_LEVEL_ITEMS else None
        if opdef is None:
            tried = default_dialect or "builtin"
            raise self.error_at(token.offset, f"custom op '{spelling}' is unknown (tried "
                                f"'{tried}.{spelling}' as well)")
        written = spelling if "." in spelling else f"{opdef.dialect}.{spelling}"
        name = written if opdef.spells(written) else opdef.full_name
        return opdef, name, f"custom op '{name}' "

    def _builtin_module(self, offset: int) -> Operation:
        """MLIR's ``module [@name] [attributes {...}] { ... }``."""
        attributes: dict[str, Attribute] = {}
        if self.token.kind is AT_IDENTIFIER:
            attributes["sym_name"] = StringAttr(self.parse_symbol_name())
        if self.consume_keyword("attributes"):
            self.parse_attr_dict_body(attributes)
        region = self.parse_region_body([], isolated=True, default_dialect="",
                                        labels_allowed=False)
        op = Operation("builtin.module", attributes=attributes,
                       location=self._loc_at(offset))
        region.parent = op
        op.regions.append(region)
        return op

    @staticmethod
    def _parse_plan(opdef: OpDef) -> list:
        """`opdef`'s declarative format compiled into a parse plan (once per format: see
        `compiled`)."""
        elements = format_of(opdef)
        # Kept with the declaration (see `OpDef.derived`: a changed field drops it).
        plan = opdef.derived.get("parse plan")
        if plan is None:
            plan = opdef.derived["parse plan"] = compile_parse_plan(elements, opdef)
        return plan

    def _mark_unit(self, state: OpState, group: Optional_) -> None:
        decl = state.opdef.attr_def(group.anchor)
        if decl is not None and decl.is_unit:
            state.attributes[group.anchor] = UNIT

    def _group_present(self, state: OpState, first: Any) -> bool:
        token = self.token
        if isinstance(first, Literal):
            text = first.text
            return token.is_keyword(text) if text[0].isalpha() else token.is_punct(text)
        if isinstance(first, Var):
            decl = state.opdef.attr_def(first.name)
            if decl is not None:
                enum_type = getattr(decl.kind, "enum_type", None)
                return enum_type is not None and token.is_keyword() and \
                    token.spelling in enum_keywords(enum_type)
            return token.kind is PERCENT_IDENTIFIER
        return False

    def _region_var(self, state: OpState, name: str) -> None:
        """A region ``$name`` of a declarative format."""
        opdef = state.opdef
        terminator = opdef.implicit_terminator
        state.regions[name] = self.parse_region_for(
            state, [], terminator=None if opdef.name == "module" else terminator,
            isolated="IsolatedFromAbove" in opdef.traits,
            ensure_block="SingleBlock" in opdef.traits)

    def parse_enum_keyword(self, enum_type: type, message: str) -> EnumAttr:
        """A bare enum keyword (``weak``, ``signed``) read by a cuda_tile custom parser:
        parseKeyword, then `message` (``{keyword}`` stands for what was found) when the
        keyword names no case.  A missing keyword gives both of MLIR's errors."""
        offset = self.token.offset
        if not self.token.is_keyword():
            text = message.replace("{keyword}", "")
            raise ParseError([self.asm_error(offset, "expected valid keyword").diagnostics[0],
                              self.asm_error(offset, text).diagnostics[0]])
        keyword = self.token.spelling
        try:
            value = enum_case(enum_type, keyword)
        except KeyError:
            raise self.asm_error(offset, message.replace("{keyword}", keyword)) from None
        self.advance()
        return enum_attr(value)

    def parse_enum_parameter(self, enum_type: type) -> EnumAttr:
        """The keyword inside ``<...>`` of an enum attribute (``overflow<no_wrap>``), with
        the two errors of the parser ODS generates for an enum parameter."""
        cls = enum_type.__name__
        offset = self.token.offset
        if self.token.is_keyword() and self.token.spelling in enum_keywords(enum_type):
            return enum_attr(enum_case(enum_type, self.advance().spelling))
        if self.token.is_keyword():
            self.advance()
            first = self.asm_error(offset, f"expected ::mlir::cuda_tile::{cls} to be one of: "
                                   + ", ".join(enum_type.keywords()))
        else:
            first = self.asm_error(offset, "expected valid keyword")
        second = self.asm_error(self.token.offset, f"failed to parse CudaTile_{cls}Attr "
                                f"parameter 'value' which is to be a `::mlir::cuda_tile::{cls}`")
        raise ParseError(first.diagnostics + second.diagnostics)

    def parse_specialized_enum(self, enum_type: type, name: str) -> EnumAttr:
        """An enum attribute ``$name`` spelled as a bare keyword in a declarative op format
        (the parser ODS generates: a listed keyword, or a string naming a case)."""
        offset = self.token.offset
        token = self.token
        if token.is_keyword() and token.spelling in enum_keywords(enum_type):
            self.advance()
            return enum_attr(enum_case(enum_type, token.spelling))
        if token.kind is not STRING:
            raise self.asm_error(offset, "expected string or keyword containing one of the "
                                 f"following enum values for attribute '{name}' "
                                 f"[{', '.join(enum_type.keywords())}]")
        self.advance()
        text = unescape_string(token.spelling)
        try:
            return enum_attr(enum_case(enum_type, text))
        except KeyError:
            raise self.asm_error(offset, f'invalid {name} attribute specification: "{text}"') \
                from None

    # -- finishing an op: resolve operand types --

    def _finish(self, state: OpState, name_offset: int) -> Operation:
        """The op `state` describes: operands resolved, result types given or inferred,
        inherent attributes written in its attribute dictionary moved to their place."""
        opdef = state.opdef
        if state.resolved_operands is None:
            groups = self._resolve_groups(state)
            operands = [v for g in groups for v in g]
            if opdef.needs_segments:
                state.attributes["operandSegmentSizes"] = opdef.segment_sizes(groups)
            if state.result_types is None:
                state.result_types = self._result_types(state, groups)
        else:
            operands = state.resolved_operands
        assert state.result_types is not None, f"'{opdef.name}' syntax gave no result types"
        if state.discardable:
            for name in list(state.discardable):
                if opdef.attr_def(name) is not None:
                    state.attributes[name] = self._normalize(opdef, name,
                                                             state.discardable.pop(name))
        # The state's list and dictionaries are this op's alone: the op keeps them.
        op = (opdef.op_class or Operation)._adopting(
            state.name or opdef.full_name, operands, state.result_types, state.attributes,
            state.discardable, self._loc_at(name_offset))
        self._attach_regions(op, state)
        self._record_uses(op)
        return op

    def _attach_regions(self, op: Operation, state: OpState) -> None:
        for name in state.opdef.region_names:
            region = state.regions.get(name) or Region()
            region.parent = op
            op.regions.append(region)

    def _resolve_groups(self, state: OpState) -> list[list[Value]]:
        """Each declared operand group's values: its uses resolved with the types the
        syntax gave (or inferred from a group of the same type)."""
        known = state.types
        groups = []
        for operand in state.opdef.operands:
            uses = state.uses.get(operand.name, [])
            types = known.get(operand.name)
            if types is None:
                types = self._inferred(state, operand.name, len(uses), known)
                if len(types) == 1:
                    types = types * len(uses)
            if len(types) != len(uses):
                offset = state.operand_offsets.get(operand.name, state.name_offset)
                raise self.asm_error(offset, "number of operands and types do not match: got "
                                     f"{len(uses)} operands and {len(types)} types")
            if len(uses) == 1:
                groups.append([self.resolve(uses[0], types[0])])
            else:
                groups.append([self.resolve(u, t) for u, t in zip(uses, types)])
        return groups

    def _inferred(self, state: OpState, name: str, count: int,
                  known: dict[str, list[Type]]) -> list[Type]:
        for group in state.opdef.same_type:
            if name in group:
                for other in group:
                    if other in known and known[other]:
                        return [known[other][0]] * max(count, 1)
        decl = state.opdef.value_def(name)
        if decl is not None and decl.constraint.buildable is not None:
            return [decl.constraint.buildable] * max(count, 1)
        if count == 0:
            return []
        raise self.error_at(state.name_offset,
                            f"cannot infer the type of operand '{name}' of "
                            f"'{state.opdef.name}'")

    def _result_types(self, state: OpState, groups: list[list[Value]]) -> list[Type]:
        """Result types: given by the syntax, or inferred from the declaration (and the
        types of the operand `groups`, with the syntax's types over them)."""
        types: list[Type] = []
        known: dict[str, list[Type]] | None = None
        for result in state.opdef.results:
            given = state.types.get(result.name)
            if given is not None:
                types.extend(given)
            elif result.arity != VARIADIC:
                if known is None:
                    known = {o.name: [v.type for v in g]
                             for o, g in zip(state.opdef.operands, groups)}
                    known.update(state.types)
                types.extend(self._inferred(state, result.name, 1, known)[:1])
        return types

    def _normalize(self, opdef: OpDef, name: str, value: Attribute) -> Attribute:
        """The enums the reference stores as plain ``N : i32`` integers (memory ordering,
        scope, atomic mode) become enum values; any other integer stays one, for the
        verifier to reject as MLIR does."""
        decl = opdef.attr_def(name)
        enum_type = getattr(decl.kind, "enum_type", None) if decl else None
        if enum_type in SPECIALIZED_ENUMS and isinstance(value, IntegerAttr) and \
                value.type == IntegerType(32):
            try:
                return enum_attr(enum_type(value.value))
            except ValueError:
                return value
        return value

    # ---- the generic form --------------------------------------------------

    def _generic_operation(self) -> Operation:
        token = self.advance()
        name = unescape_string(token.spelling)
        opdef = self._lookup_def(name)
        if opdef is not None and not opdef.spells(name):
            opdef = None
        if opdef is None and not self.allow_unregistered and name != "builtin.module":
            dialect = name.split(".")[0] if "." in name else ""
            if dialect == "cuda_tile":
                raise self.error_at(token.offset, f"unregistered operation '{name}' found in "
                                    f"dialect ('{dialect}') that does not allow unknown "
                                    "operations")
            raise self.error_at(token.offset, "operation being parsed with an unregistered "
                                "dialect. If this is intended, please use "
                                "-allow-unregistered-dialect with the MLIR tool used")
        self.expect_punct("(", " to start operand list")
        uses: list[Use] = []
        if self.token.kind is PERCENT_IDENTIFIER:
            uses = self.parse_comma_list(self.parse_ssa_use)
        self.expect_punct(")", " to end operand list")
        properties: dict[str, Attribute] = {}
        if self.consume_punct("<"):
            self.parse_attr_dict_body(properties)
            self.expect_punct(">", " to close properties")
        regions: list[Region] = []
        if self.consume_punct("("):
            isolated = name == "builtin.module" or (
                opdef is not None and "IsolatedFromAbove" in opdef.traits)
            regions.append(self._generic_region(isolated))
            while self.consume_punct(","):
                regions.append(self._generic_region(isolated))
            self.expect_punct(")", " to end region list")
        attrs: dict[str, Attribute] = {}
        self.parse_optional_attr_dict(attrs)
        self.expect_punct(":", " followed by operation type")
        type_offset = self.token.offset
        fn = self.parse_type()
        if not isinstance(fn, FunctionType):
            raise self.error_at(type_offset, "expected function type")
        if len(fn.inputs) != len(uses):
            plural = "" if len(uses) == 1 else "s"
            raise self.error_at(type_offset, f"expected {len(uses)} operand type{plural} but "
                                f"had {len(fn.inputs)}")
        operands = [self.resolve(u, t) for u, t in zip(uses, fn.inputs)]
        inherent: dict[str, Attribute] = {}
        discardable: dict[str, Attribute] = {}
        for key, value in {**properties, **attrs}.items():
            if opdef is not None and (opdef.attr_def(key) is not None or
                                      key in ("operandSegmentSizes", "resultSegmentSizes")):
                inherent[key] = self._normalize(opdef, key, value)
            elif opdef is None:
                inherent[key] = value
            else:
                discardable[key] = value
        if opdef is None:
            op = Operation(name, operands, fn.results, inherent, discardable=discardable,
                           location=self._loc_at(token.offset))
        else:
            op = (opdef.op_class or Operation).from_parts(
                name, operands, fn.results, inherent, discardable, self._loc_at(token.offset))
        for region in regions:  # as written: the verifier reports a wrong count
            region.parent = op
            op.regions.append(region)
        self._record_uses(op)
        return op

    def _generic_region(self, isolated: bool) -> Region:
        return self.parse_region_body([], isolated=isolated, default_dialect="",
                                      labels_allowed=True)

    # ---- regions and blocks --------------------------------------------------

    def parse_region_for(self, state: OpState, arguments: list, terminator: str | None,
                         isolated: bool = False, ensure_block: bool = False) -> Region:
        """An op's region; with `terminator` (MLIR ensureTerminator) or `ensure_block`, an
        empty ``{}`` still gets its one block."""
        dialect = "cuda_tile" if state.opdef.default_dialect else ""
        region = self.parse_region_body(arguments, isolated=isolated, default_dialect=dialect,
                                        labels_allowed=False)
        if (terminator is not None or ensure_block) and not region.blocks:
            region.add_block()
        if terminator is not None:
            block = region.block
            last = block.terminator
            if last is None or last.opdef is None or "Terminator" not in last.opdef.traits:
                opdef = registry.lookup(terminator)
                assert opdef is not None and opdef.op_class is not None
                block.append(opdef.op_class(opdef.full_name, location=self._loc_at(
                    state.name_offset)))
        return region

    def parse_region_body(self, arguments: list, isolated: bool, default_dialect: str,
                          labels_allowed: bool) -> Region:
        """``{ ... }``: MLIR's own region parser, so errors there carry no op prefix."""
        with self.asm_context(""):
            return self._region_body(arguments, isolated, default_dialect, labels_allowed)

    def _region_body(self, arguments: list, isolated: bool, default_dialect: str,
                     labels_allowed: bool) -> Region:
        self.expect_punct("{", " to begin a region")
        region = Region()
        if not arguments and self.consume_punct("}"):
            return region
        self.scopes.append(_Scope(isolated))
        block = region.add_block()
        for name, t, offset in arguments:
            self._define(name, [block.add_argument(t)], offset)
        if labels_allowed and self.token.kind is CARET_IDENTIFIER:
            first = True
            while self.token.kind is CARET_IDENTIFIER:
                if not first:
                    block = region.add_block()
                first = False
                self.advance()
                if self.consume_punct("("):
                    if not self.consume_punct(")"):
                        while True:
                            token = self.token
                            if token.kind is not PERCENT_IDENTIFIER:
                                raise self.wrong_token("expected SSA operand")
                            self.advance()
                            self.expect_punct(":")
                            t = self.parse_cuda_tile_type()
                            loc = self._trailing_location(UNKNOWN_LOC)
                            self._define(token.spelling[1:], [block.add_argument(t, loc)],
                                         token.offset)
                            if not self.consume_punct(","):
                                break
                        self.expect_punct(")")
                self.expect_punct(":")
                self._block_ops(block, default_dialect)
        else:
            self._block_ops(block, default_dialect)
        self.expect_punct("}")
        self._close_scope()
        return region

    def _block_ops(self, block: Block, default_dialect: str) -> None:
        """Ops until the block's end: ``}`` or the next block's label."""
        while True:
            token = self.token
            if (token.kind is PUNCT and token.spelling == "}") or token.kind is CARET_IDENTIFIER:
                return
            block.append(self.parse_operation(default_dialect))

    def parse_argument_list(self, allow_types_only: bool = False) -> list:
        """``(%a: T, %b: T)`` as (name, type, offset) triples."""
        arguments = []

        def argument() -> None:
            token = self.token
            if token.kind is not PERCENT_IDENTIFIER:
                raise self.wrong_token("expected SSA identifier")
            self.advance()
            self.expect_punct(":")
            t = self.parse_cuda_tile_type()
            if self.token.is_punct("{"):
                self.parse_optional_attr_dict({})
            self._trailing_location(UNKNOWN_LOC)
            arguments.append((token.spelling[1:], t, token.offset))
        self.parse_comma_list(argument, "paren")
        return arguments

    # ---- SSA values ------------------------------------------------------------------------

    def parse_ssa_def(self) -> tuple[str, int]:
        token = self.token
        if token.kind is not PERCENT_IDENTIFIER:
            raise self.wrong_token("expected SSA operand")
        self.advance()
        return token.spelling[1:], token.offset

    def parse_ssa_use(self) -> Use:
        token = self.token
        if token.kind is not PERCENT_IDENTIFIER:
            raise self.wrong_token("expected SSA operand")
        self.advance()
        index = 0
        if self.token.kind is HASH_IDENTIFIER and self.token.offset == token.end:
            suffix = self.advance().spelling[1:]
            # (MLIR reads it as a 64-bit number and refuses what is negative as an int)
            if not suffix.isdigit() or len(suffix) > 10 or int(suffix) >= 1 << 31:
                raise self.error_at(token.end, "invalid SSA value result number")
            index = int(suffix)
        return Use(token.spelling[1:], index, token.offset)

    def parse_assignment_list(self) -> list[tuple[str, int, Use]]:
        """``(%arg = %init, ...)`` (MLIR AsmParser::parseAssignmentList)."""
        pairs = []

        def pair() -> None:
            name, offset = self.parse_ssa_def()
            self.expect_punct("=")
            pairs.append((name, offset, self.parse_ssa_use()))
        if not self.consume_punct("("):
            raise self.asm_error(self.token.offset, "expected '('")
        if self.consume_punct(")"):
            return pairs
        self.parse_comma_list(pair)
        if not self.consume_punct(")"):
            raise self.wrong_token("expected ',' or ')'")
        return pairs

    def parse_mixed_list(self) -> list[tuple[Any, int]]:
        """``[%d, 32]``: SSA uses and integers, each with its offset."""
        def item() -> tuple[Any, int]:
            offset = self.token.offset
            if self.token.kind is PERCENT_IDENTIFIER:
                return self.parse_ssa_use(), offset
            value = self.parse_optional_integer()
            if value is None:
                raise self.asm_error(offset, "expected either integer or SSA value")
            return value, offset
        return self.parse_comma_list(item, "square")

    def _visible_scopes(self) -> list[_Scope]:
        """The scopes a name resolves in, innermost first, up to the isolated one."""
        visible = []
        for scope in reversed(self.scopes):
            visible.append(scope)
            if scope.isolated:
                break
        return visible

    def _define(self, name: str, values: list[Value], offset: int) -> None:
        """Bind `%name` (MLIR addDefinition): forward references to it are replaced."""
        scope = None
        for scope in reversed(self.scopes):  # `_visible_scopes`, without building the list
            if name in scope.values:
                _, previous = scope.values[name][0]
                raise ParseError(error(f"redefinition of SSA value '%{name}'",
                                       self.source.location(offset),
                                       [note("previously defined here",
                                             self.source.location(previous))]))
            if scope.isolated:
                break
        forward = scope.forward.pop(name, None) if scope.forward else None
        for index, entry in sorted((forward or {}).items()):
            if index < len(values):
                self._replace(name, index, entry, values[index], offset)
        self.scopes[-1].values[name] = [(values[0], offset)] if len(values) == 1 else \
            [(value, offset) for value in values]

    def _replace(self, name: str, index: int, entry: tuple[Value, int], value: Value,
                 offset: int) -> None:
        """Point the uses of a forward reference at its definition, if the types agree."""
        placeholder, first_use = entry
        if placeholder.type != value.type:
            raise ParseError(error(
                f"definition of SSA value '%{name}#{index}' has type {quoted(value.type)}",
                self.source.location(offset),
                [note(f"previously used here with type {quoted(placeholder.type)}",
                      self.source.location(first_use))]))
        for op, position in self.users.pop(id(placeholder), []):
            op.operands[position] = value

    def _record_uses(self, op: Operation) -> None:
        """Remember which operands of `op` are forward references, to patch them when
        their definition comes."""
        if not self.made_forward:
            return
        for i, value in enumerate(op.operands):
            if isinstance(value, _Forward):
                self.users.setdefault(id(value), []).append((op, i))

    def _lookup_entries(self, name: str) -> list | dict | None:
        """The definitions (a list, by result number) or forward references (a dict, by
        result number) of `%name` visible here, or None."""
        scope = None
        for scope in reversed(self.scopes):  # `_visible_scopes`, without building the list
            if name in scope.values:
                return scope.values[name]
            if scope.isolated:
                break
        return scope.forward.get(name)

    def resolve(self, use: Use, expected: Type | None) -> Value:
        """The value `use` names, checked against the type the syntax gives it
        (MLIR resolveSSAUse: a mismatch points at the definition or first use)."""
        entries = self._lookup_entries(use.name)
        if isinstance(entries, dict):
            found = entries.get(use.index)
        else:
            found = entries[use.index] if entries and use.index < len(entries) else None
        if found is not None:
            value, previous = found
            # (`is` first: the type memo gives equal spellings one shared type object.)
            if expected is not None and value.type is not expected and value.type != expected:
                raise ParseError(error(
                    f"use of value '%{use.name}' expects different type than prior uses: "
                    f"{quoted(expected)} vs {quoted(value.type)}",
                    self.source.location(use.offset),
                    [note("prior use here", self.source.location(previous))]))
            return value
        if isinstance(entries, list) and entries:
            raise self.error_at(use.offset, "reference to invalid result number")
        if expected is None:
            raise self.error_at(use.offset, "use of undeclared SSA value name")
        forward = self._visible_scopes()[-1].forward.setdefault(use.name, {})
        placeholder = _Forward(expected, use.name)
        self.made_forward = True
        forward[use.index] = (placeholder, use.offset)
        return placeholder

    def _close_scope(self) -> None:
        """Leave a region; the forward references an isolated one leaves unresolved are
        reported once the whole text is parsed (MLIR's finalize), unless a parse error
        comes first."""
        scope = self.scopes.pop()
        self.closed_scopes.append(scope.values)
        self.undeclared.extend(entry[1] for entries in scope.forward.values()
                               for entry in entries.values())

    def _check_undeclared(self) -> None:
        """Every use of a name never defined, in source order."""
        if self.undeclared:
            raise ParseError([self.error_at(offset, "use of undeclared SSA value name")
                              .diagnostics[0] for offset in sorted(self.undeclared)])

    # ---- attributes --------------------------------------------------

    def parse_optional_attr_dict(self, into: dict[str, Attribute]) -> None:
        if self.token.is_punct("{"):
            self.parse_attr_dict_body(into)

    def parse_attr_dict_body(self, into: dict[str, Attribute]) -> None:
        def entry() -> None:
            token = self.token
            if token.kind is STRING:
                name = unescape_string(token.spelling)
            elif token.kind is BARE_IDENTIFIER:
                name = token.spelling
            else:
                raise self.wrong_token("expected attribute name")
            self.advance()
            if name in into:
                raise self.error_at(token.offset, f"duplicate key '{name}' in dictionary "
                                    "attribute")
            if self.consume_punct("="):
                into[name] = self.parse_attribute()
            else:
                into[name] = UNIT
        self.parse_comma_list(entry, "brace")

    def parse_attribute(self) -> Attribute:
        """An attribute, nested in others at most `MAX_ATTRIBUTE_NESTING` deep (as deep as
        bytecode may hold them)."""
        self.attribute_depth += 1
        try:
            if self.attribute_depth > MAX_ATTRIBUTE_NESTING:
                self.fail(f"attributes nest more than {MAX_ATTRIBUTE_NESTING} deep")
            return self._attribute()
        finally:
            self.attribute_depth -= 1

    def _attribute(self) -> Attribute:
        token = self.token
        if token.kind is HASH_IDENTIFIER:
            return self._hash_attribute()
        if token.kind is STRING:
            self.advance()
            return StringAttr(unescape_string(token.spelling))
        if token.kind is AT_IDENTIFIER:
            root = self.parse_symbol_name()
            nested = []
            while self.consume_punct("::"):
                nested.append(self.parse_symbol_name())
            return SymbolRefAttr(root, tuple(nested))
        if token.is_punct("["):
            return ArrayAttr(tuple(self.parse_comma_list(self.parse_attribute, "square")))
        if token.is_punct("{"):
            entries: dict[str, Attribute] = {}
            self.parse_attr_dict_body(entries)
            return DictAttr.of(entries)
        if token.is_keyword("true") or token.is_keyword("false"):
            self.advance()
            return BoolAttr(token.spelling == "true")
        if token.is_keyword("unit"):
            self.advance()
            return UNIT
        if token.is_keyword("dense"):
            return self._dense_attribute()
        if token.is_keyword("array"):
            return self._dense_array()
        if token.kind in (INTEGER, FLOAT) or token.is_punct("-"):
            return self._number_attribute()
        if token.is_keyword("loc"):
            return self.parse_location_spec()
        t = self.parse_optional_type()
        if t is not None:
            return TypeAttr(t)
        raise self.wrong_token("expected attribute value")

    def _number_attribute(self) -> Attribute:
        start = self.token.offset
        negative = self.consume_punct("-")
        token = self.token
        if token.kind is not INTEGER and token.kind is not FLOAT:
            raise self.wrong_token("expected constant integer or floating point value")
        self.advance()
        t: Type = FloatType("f64") if token.kind is FLOAT else IntegerType(64)
        if self.consume_punct(":"):
            t = self.parse_type()
        text = ("-" if negative else "") + token.spelling
        if isinstance(t, FloatType):
            try:
                return FloatAttr(parse_float_literal(text, t), t)
            except ValueError as exc:
                raise self.float_literal_error(token.offset, exc) from None
        if token.kind is FLOAT:
            raise self.error_at(start, "floating point value not valid for specified type")
        value = self.literal_value(token.offset, token.spelling)
        value = -value if negative else value
        if t == IntegerType(1):     # MLIR's BoolAttr is an i1 IntegerAttr; -1 is i1's true
            if value not in (-1, 0, 1):
                raise self.error_at(start, "integer constant out of range for attribute")
            return BoolAttr(bool(value))
        return IntegerAttr(value, t)

    def _dense_array(self) -> Attribute:
        self.advance()
        self.expect_punct("<")
        t = self.parse_type()
        values: list[int] = []
        if self.consume_punct(":"):
            values.append(self._dense_array_element(t))
            while self.consume_punct(","):
                values.append(self._dense_array_element(t))
        self.expect_punct(">")
        if not isinstance(t, IntegerType):
            raise self.error_here("expected integer element type of dense array")
        return DenseArrayAttr(t, tuple(values))

    def _dense_array_element(self, t: Type) -> int:
        """One element of ``array<T: ...>``: an integer, or true/false when T is i1."""
        if t == IntegerType(1):
            for value, keyword in enumerate(("false", "true")):
                if self.consume_keyword(keyword):
                    return value
        return self.parse_integer(getattr(t, "width", 64))

    def _dense_attribute(self) -> Attribute:
        """``dense<literal> : type``: the type comes last, so read it first, then rewind."""
        self.advance()
        self.expect_punct("<")
        start = self.token.offset
        self._skip_literal()
        self.advance()
        self.expect_punct(":")
        t = self.parse_cuda_tile_type()
        if not isinstance(t, TileType):
            raise self.error_here("expected tile type for dense elements")
        end = self.prev_end
        self.rewind(start)
        if self.token.kind is STRING:
            attr = self._dense_hex(self.token, t)
            self.rewind(end)
            return attr
        values: list[int] = []
        shape = self._literal(t.element_type, values)
        self.rewind(end)
        return self._dense_value(t, shape, values, start)

    def _skip_literal(self) -> None:
        depth = 0
        while True:
            tok = self.token
            if tok.kind is EOF:
                raise self.wrong_token("expected '>'")
            if tok.is_punct("["):
                depth += 1
            elif tok.is_punct("]"):
                depth -= 1
            elif tok.is_punct(">") and depth <= 0:
                return
            self.advance()

    def _dense_value(self, t: TileType, shape: list[int], values: list[int],
                     type_offset: int, custom: bool = False) -> DenseElementsAttr:
        """The attribute, once the literal's shape agrees with the type's; `custom` when the
        op's own parser reads it (its errors then carry the op prefix)."""
        report = self.asm_error if custom else self.error_at
        expected = list(t.shape)
        if shape and shape != expected:
            raise report(type_offset, "inferred shape of elements literal "
                         f"([{', '.join(map(str, shape))}]) does not match type "
                         f"([{', '.join(map(str, expected))}])")
        if not values:
            raise report(type_offset, "dense attribute cannot be empty")
        if len(values) > 1 and all(v == values[0] for v in values):
            values = values[:1]
        return DenseElementsAttr(t, tuple(values))

    def _hash_attribute(self) -> Attribute:
        token = self.advance()
        name = token.spelling[1:]
        if name == "cuda_tile" and self.token.is_punct("<"):
            self.advance()
            from .preview import parse_preview_attr
            with self.asm_context(""):
                return parse_preview_attr(self, token.offset)
        if "." not in name:
            if name not in self.attr_aliases:
                raise self.error_at(token.offset, f"undefined symbol alias id '{name}'")
            return self.attr_aliases[name]
        dialect, _, mnemonic = name.partition(".")
        if dialect != "cuda_tile":
            body = self.balanced_angle("unbalanced '<'") if self.token.is_punct("<") else ""
            return OpaqueAttr(token.spelling + body)
        with self.asm_context(""):
            return self._cuda_tile_attribute(mnemonic, token.offset)

    def _cuda_tile_attribute(self, mnemonic: str, offset: int) -> Attribute:
        from ..attributes import ENUM_MNEMONICS
        for enum_type, enum_mnemonic in ENUM_MNEMONICS.items():
            if mnemonic == enum_mnemonic:
                self.expect_punct("<")
                value = self.parse_enum_parameter(enum_type)
                self.expect_punct(">")
                return value
        if mnemonic in ("div_by", "same_elements", "bounded"):
            return self._assume_body(mnemonic)
        if mnemonic == "optimization_hints":
            return self.parse_optimization_hints()
        parsers = {"di_file": self._di_file, "di_compile_unit": self._di_compile_unit,
                   "di_subprogram": self._di_subprogram,
                   "di_lexical_block": self._di_lexical_block, "di_loc": self._di_loc}
        if mnemonic in parsers:
            return parsers[mnemonic]()
        raise self.error_at(offset, f"unknown attribute `{mnemonic}` in dialect `cuda_tile`")

    # -- cuda_tile attribute bodies --

    def parse_optimization_hints(self) -> OptimizationHintsAttr:
        """``<sm_100 = {num_cta_in_cga = 2}, ...>``: each entry's value a dictionary."""
        entries: list[tuple[str, Attribute]] = []

        def entry() -> None:
            key = self.parse_keyword_or_string()
            self.expect_punct("=")
            value = self.parse_attribute()
            if any(key == k for k, _ in entries):
                raise self.asm_error(self.token.offset,
                                     f"duplicate optimization_hints key `{key}`")
            if not isinstance(value, DictAttr):
                raise self.asm_error(self.token.offset, "expected dictionary attribute for "
                                     f"optimization_hints entry `{key}` got value="
                                     f"{value.format()}")
            entries.append((key, value))
        self.expect_punct("<")
        if not self.consume_punct(">"):
            entry()
            while self.consume_punct(","):
                entry()
            self.expect_punct(">")
        # (a DictionaryAttr in the reference: kept sorted by key, as bytecode reads it back)
        return OptimizationHintsAttr(tuple(sorted(entries, key=lambda e: e[0])))

    def parse_assume_predicate(self) -> Attribute:
        """``div_by<16>`` or a full ``#cuda_tile.div_by<16>`` (any other attribute is an
        error), as custom<AssumePredicate> reads it."""
        offset = self.token.offset
        if self._starts_attribute():
            attr = self.parse_attribute()
            if not isinstance(attr, (DivByAttr, SameElementsAttr, BoundedAttr)):
                raise self.asm_error(offset, "expected assume predicate attribute")
            return attr
        if not self.token.is_keyword():
            raise ParseError(self.asm_error(offset, "expected valid keyword").diagnostics +
                             self.asm_error(offset, "expected attribute name").diagnostics)
        name = self.advance().spelling
        if name not in ("div_by", "same_elements", "bounded"):
            raise self.asm_error(offset, f"unknown assume predicate attribute: {name} "
                                 "(expected 'div_by', 'same_elements', or 'bounded')")
        return self._assume_body(name)

    def _starts_attribute(self) -> bool:
        """Whether an attribute starts here (MLIR parseOptionalAttribute: its leading tokens,
        or a type)."""
        token = self.token
        if token.kind in (AT_IDENTIFIER, FLOAT, INTEGER, HASH_IDENTIFIER,
                          STRING, EXCLAMATION_IDENTIFIER):
            return True
        if any(token.is_punct(p) for p in ("{", "[", "-", "(")):
            return True
        keywords = ("affine_map", "affine_set", "dense", "dense_resource", "false", "loc",
                    "sparse", "true", "unit")
        if token.is_keyword() and token.spelling in keywords:
            return True
        if token.is_keyword():
            save, prev_end = token.offset, self.prev_end
            try:
                starts_type = self._builtin_type() is not None
            except ParseError:
                starts_type = True
            self.rewind(save)
            self.prev_end = prev_end
            return starts_type
        return False

    def _assume_body(self, name: str) -> Attribute:
        self.expect_punct("<")
        if name == "div_by":
            divisor = self.parse_integer(64, signed=False)
            every = along = None
            if self.consume_punct(","):
                self.expect_keyword("every")
                every = self.parse_integer()
                self.expect_keyword("along")
                along = self.parse_integer()
            self.expect_punct(">")
            return DivByAttr(divisor, every, along)
        if name == "same_elements":
            values = self.parse_comma_list(self.parse_integer, "square")
            self.expect_punct(">")
            return SameElementsAttr(tuple(values))

        def bound() -> int | None:
            if self.consume_punct("?"):
                return None
            return self.parse_integer()
        lower = bound()
        self.expect_punct(",")
        upper = bound()
        self.expect_punct(">")
        return BoundedAttr(lower, upper)

    def _keyword_params(self, spec: dict[str, Any], optional: tuple[str, ...] = ()
                        ) -> dict[str, Any]:
        """MLIR's ``struct(params)``: ``<key = value, ...>`` in any order.  With no optional
        parameter there are exactly as many entries as parameters; otherwise any number, then
        every required one must have been seen (the generated parser's messages).  A kind is
        "int", "str", or the attribute classes the value must be one of."""
        values: dict[str, Any] = {}
        self.expect_punct("<")

        def param() -> None:
            if self.token.kind is not BARE_IDENTIFIER:  # MLIR reports both messages
                first = self.asm_error(self.token.offset, "expected valid keyword")
                second = self.asm_error(self.token.offset, "expected a parameter name in struct")
                raise ParseError(first.diagnostics + second.diagnostics)
            key = self.advance().spelling
            self.expect_punct("=")
            kind = spec.get(key)
            if kind is None or key in values:
                raise self.asm_error(self.token.offset,
                                     f"duplicate or unknown struct parameter name: {key}")
            if kind == "int":
                values[key] = self.parse_integer()
            elif kind == "subprogram_flags":
                values[key] = self._subprogram_flags()
            elif kind == "str":
                values[key] = self.parse_string()
            else:
                at = self.token.offset
                value = values[key] = self.parse_attribute()
                if not isinstance(value, kind):     # (MLIR's FieldParser of a typed one)
                    raise self.error_at(at, "invalid kind of attribute specified")

        if not optional:
            for index in range(len(spec)):
                param()
                if index != len(spec) - 1:
                    self.expect_punct(",")
        else:
            param()
            while self.consume_punct(","):
                param()
            for key in spec:
                if key not in values and key not in optional:
                    raise self.asm_error(self.token.offset,
                                         f"struct is missing required parameter: {key}")
        self.expect_punct(">")
        return values

    def _di_file(self) -> DIFileAttr:
        self.expect_punct("<")
        name = self.parse_string()
        self.expect_keyword("in")
        directory = self.parse_string()
        self.expect_punct(">")
        return DIFileAttr(name, directory)

    def _di_compile_unit(self) -> DICompileUnitAttr:
        values = self._keyword_params({"file": (DIFileAttr,)})
        return DICompileUnitAttr(values["file"])

    def _di_subprogram(self) -> DISubprogramAttr:
        v = self._keyword_params({"file": (DIFileAttr,), "line": "int", "name": "str",
                                  "linkageName": "str", "compileUnit": (DICompileUnitAttr,),
                                  "scopeLine": "int", "flags": "subprogram_flags"},
                                 optional=("scopeLine", "flags"))
        return DISubprogramAttr(v["file"], v["line"], v["name"], v.get("linkageName", ""),
                                v["compileUnit"], v.get("scopeLine", 0), v.get("flags", 0))

    def _subprogram_flags(self) -> int:
        """``declaration`` (13.5's subprogram flags, joined by ``|``) as their bits."""
        flags = 0
        while True:
            at = self.token.offset
            keyword = self.parse_keyword()
            bit = DI_SUBPROGRAM_FLAGS.get(keyword)
            if bit is None:
                raise self.error_at(at, f"unknown di_subprogram flag '{keyword}', expected "
                                    f"one of: {', '.join(DI_SUBPROGRAM_FLAGS)}")
            flags |= bit
            if not self.consume_punct("|"):
                return flags

    def _di_lexical_block(self) -> DILexicalBlockAttr:
        start = self.token.offset
        v = self._keyword_params({"scope": (DISubprogramAttr, DILexicalBlockAttr),
                                  "file": (DIFileAttr,), "line": "int", "column": "int"},
                                 optional=("column",))
        try:
            return DILexicalBlockAttr(v["scope"], v["file"], v.get("line", 0),
                                      v.get("column", 0))
        except NestingError as exc:
            raise self.error_at(start, str(exc)) from None

    def _di_loc(self) -> DILocAttr:
        start = self.token.offset
        self.expect_punct("<")
        location_at = self.token.offset
        location = self._location_or_alias()
        if not isinstance(location, (FileLineColLoc, _DeferredLoc)):   # (FileLineColLoc in
            raise self.error_at(location_at, "invalid kind of attribute specified")  # the ODS)
        self.expect_keyword("in")
        scope_at = self.token.offset
        scope = self.parse_attribute()
        if not isinstance(scope, (DISubprogramAttr, DILexicalBlockAttr)):
            raise self.error_at(scope_at, "expected a debug-info scope for di_loc "
                                "(#cuda_tile.di_subprogram or #cuda_tile.di_lexical_block)")
        self.expect_punct(">")
        try:
            return DILocAttr(location, scope)  # type: ignore[arg-type]
        except NestingError as exc:
            raise self.error_at(start, str(exc)) from None

    # -- strings and symbols --

    def parse_keyword_or_string(self) -> str:
        """A bare identifier or a string literal (MLIR AsmParser::parseKeywordOrString)."""
        if self.token.is_keyword():
            return self.advance().spelling
        if self.token.kind is STRING:
            return unescape_string(self.advance().spelling)
        raise self.asm_error(self.token.offset, "expected valid keyword or string")

    def parse_string(self) -> str:
        """A string literal (MLIR AsmParser::parseString)."""
        if self.token.kind is not STRING:
            raise self.asm_error(self.token.offset, "expected string")
        return unescape_string(self.advance().spelling)

    def parse_symbol_name(self) -> str:
        """``@name`` or ``@"name"`` (MLIR AsmParser::parseSymbolName)."""
        token = self.token
        if token.kind is not AT_IDENTIFIER:
            raise self.asm_error(token.offset, "expected valid '@'-identifier for symbol name")
        self.advance()
        text = token.spelling[1:]
        return unescape_string(text) if text.startswith('"') else text

    def parse_cuda_tile_type_list(self) -> list[Type]:
        types = [self.parse_cuda_tile_type()]
        while self.consume_punct(","):
            types.append(self.parse_cuda_tile_type())
        return types

    # ---- dense constants --------------------------------------------------

    def parse_dense_typed_elements(self) -> DenseElementsAttr:
        """``<f32: [1.0, 2.0]> : tile<2xf32>`` (custom<DenseTypedElementsAttr>)."""
        self.expect_punct("<")
        element = self._dense_element_type()
        self.expect_punct(":")
        values: list[int] = []
        hex_token = self.advance() if self.token.kind is STRING else None
        shape = self._literal(element, values) if hex_token is None else []
        self.expect_punct(">")
        self.expect_punct(":")
        type_offset = self.token.offset
        t = self.parse_cuda_tile_type()
        if not isinstance(t, TileType):
            raise self.asm_error(type_offset, f"result #0 must be tile of {_DENSE_ELEMENTS} "
                                 f"values, but got {quoted(t)}")
        if t.element_type is not element and t.element_type != element:
            raise self.asm_error(type_offset, "mismatch between the element type: "
                                 f"{quoted(element)} and the tile element type "
                                 f"{quoted(t.element_type)}")
        if hex_token is not None:
            return self._dense_hex(hex_token, t)
        return self._dense_value(t, shape, values, type_offset, custom=True)

    def _dense_hex(self, token: Token, t: TileType) -> DenseElementsAttr:
        """Elements given as MLIR prints large ones: ``"0x..."``, the raw buffer in hex."""
        found = from_hex(unescape_string(token.spelling), t.element_type, t.num_elements)
        if isinstance(found, str):
            raise self.error_at(token.offset, found)
        return DenseElementsAttr(t, found)

    def _dense_element_type(self) -> Type:
        """The element type before the literal; a bad one is reported twice over, as the
        reference does (its own error, then the list of valid element types)."""
        def invalid(found: str) -> ParseError:
            return self.asm_error(self.token.offset, "expect element type to be one of "
                                  f"{_DENSE_ELEMENTS} values, but got '{found}'")
        try:
            element = self.parse_cuda_tile_type()
        except ParseError as exc:
            raise ParseError(exc.diagnostics + invalid("<<NULL TYPE>>").diagnostics) from None
        if (str(element) not in _DENSE_ELEMENT_SPELLINGS
                and element not in _LATER_DENSE_ELEMENTS):
            raise invalid(str(element))
        return element

    def _literal(self, element: Type, values: list[int], depth: int = 0) -> list[int]:
        """A (nested) list literal's elements, appended to `values`; its shape.  It nests
        at most as deep as attributes may."""
        if depth > MAX_ATTRIBUTE_NESTING:
            self.fail(f"tensor literal nests more than {MAX_ATTRIBUTE_NESTING} deep")
        if self.consume_punct("["):
            count = 0
            inner: list[int] | None = None
            while True:
                shape = self._literal(element, values, depth + 1)
                if inner is None:
                    inner = shape
                elif shape != inner:
                    raise self.error_here("tensor literal is invalid; ranks are not "
                                          "consistent between elements")
                count += 1
                if not self.consume_punct(","):
                    break
            self.expect_punct("]")
            return [count] + (inner or [])
        values.append(self._scalar(element))
        return []

    def _scalar(self, element: Type) -> int:
        """One element of a typed dense literal, as the element's bit pattern."""
        if isinstance(element, IntegerType):
            return self._dense_integer(element.width)
        if isinstance(element, FloatType):
            return self._dense_float(element)
        offset = self.token.offset
        raise self.error_at(offset, f"unsupported element type {element}")

    def _dense_integer(self, width: int) -> int:
        """An integer element: an int64 literal within the union of the signed and
        unsigned ranges of `width` bits (true/false only for i1)."""
        offset = self.token.offset
        token = self.token
        if (token.is_keyword("true") or token.is_keyword("false")) and width != 1:
            raise self.asm_error(offset, "expected integer value")
        twice = self.asm_error(offset, "expected integer value").diagnostics
        try:
            value = self.parse_optional_integer(64, signed=True)
        except ParseError as exc:
            raise ParseError(exc.diagnostics + twice) from None
        if value is None:
            raise ParseError(twice + twice)
        bits = dense_integer_bits(value, width)
        if bits is None:
            raise self.asm_error(offset, "integer constant out of range for type")
        return bits

    def _dense_float(self, element: FloatType) -> int:
        """A float element (MLIR parseFloat: errors point at the literal, after any minus)."""
        negative = self.consume_punct("-")
        token = self.token
        if token.kind is INTEGER and token.spelling[1:2] == "x":
            if negative:
                raise self.error_at(token.offset, "hexadecimal float literal should not have "
                                    "a leading minus")
            self.advance()
            try:
                return float_bits_from_hex(int(token.spelling, 16), element)
            except ValueError as exc:
                raise self.error_at(token.offset, getattr(exc, "message", str(exc))) from None
        if token.kind is not INTEGER and token.kind is not FLOAT:
            raise self.error_at(token.offset, "expected floating point literal")
        self.advance()
        try:
            return parse_float_literal(("-" if negative else "") + token.spelling, element)
        except ValueError as exc:
            raise self.float_literal_error(token.offset, exc) from None

    def float_literal_error(self, offset: int, exc: ValueError) -> ParseError:
        """The diagnostic of a float literal `parse_float_literal` refused at `offset`, with
        its note (a decimal integer where a float is expected: add a trailing dot)."""
        where = self.source.location(offset)
        hint = getattr(exc, "note", None)
        return ParseError(error(getattr(exc, "message", str(exc)), where,
                                [note(hint, where)] if hint else []))

    # ---- locations --------------------------------------------------

    def parse_location_spec(self) -> Location:
        """``loc(...)``."""
        self.expect_keyword("loc")
        self.expect_punct("(")
        loc = self._location_or_alias()
        self.expect_punct(")")
        return loc

    def _location_or_alias(self) -> Location:
        token = self.token
        if token.kind is HASH_IDENTIFIER and "." not in token.spelling and \
                token.spelling[1:] not in self.attr_aliases:
            # Location aliases may be defined after their use (printed at the end).
            self.advance()
            self.made_deferred_loc = True
            return _DeferredLoc(token.spelling[1:], token.offset)
        if token.kind is HASH_IDENTIFIER:
            attr = self.parse_attribute()
            if not isinstance(attr, Location):
                raise self.error_at(token.offset, "expected location attribute")
            return attr
        if token.is_keyword("loc"):
            return self.parse_location_spec()
        return self._location()

    def _location(self) -> Location:
        token = self.token
        try:
            return self._location_at(token)
        except NestingError as exc:
            raise self.error_at(token.offset, str(exc)) from None

    def _location_at(self, token: Token) -> Location:
        """`_location`, whose first token is `token`."""
        if token.is_keyword("unknown"):
            self.advance()
            return UNKNOWN_LOC
        if token.is_keyword("callsite"):
            self.advance()
            self.expect_punct("(")
            callee = self._location_or_alias()
            self.expect_keyword("at")
            caller = self._location_or_alias()
            self.expect_punct(")")
            return CallSiteLoc(callee, caller)
        if token.is_keyword("fused"):
            self.advance()
            metadata = None
            if self.consume_punct("<"):
                metadata = self.parse_attribute()
                self.expect_punct(">")
            locs = self.parse_comma_list(self._location_or_alias, "square")
            return FusedLoc(tuple(locs), metadata)
        if token.kind is STRING:
            text = unescape_string(self.advance().spelling)
            if self.consume_punct(":"):
                line = self.parse_integer()
                self.expect_punct(":")
                column = self.parse_integer()
                return FileLineColLoc(text, line, column)
            child = None
            if self.consume_punct("("):
                child = self._location_or_alias()
                self.expect_punct(")")
            return NameLoc(text, child)
        raise self.wrong_token("expected location instance")

    def _loc_at(self, offset: int) -> Location:
        """The location of the text at `offset` (``"-"`` for a text with no file name)."""
        line, column = self.source.line_column(offset)
        return file_line_col(self.source.filename or "-", line, column)


# ---- public functions --------------------------------------------------


class SourceNames:
    """The names a text gave its SSA values (``%sum`` is "sum"; result 1 of ``%r:2`` is
    "r#1"), looked up by value: inverted from the parser's scopes on first use."""

    def __init__(self, scopes: list[dict[str, list[tuple[Value, int]]]]) -> None:
        self._scopes: list[dict[str, list[tuple[Value, int]]]] | None = scopes
        self._names: dict[Value, str] = {}

    def get(self, value: Value) -> str | None:
        """The name `value` has in the source, or None."""
        if self._scopes is not None:
            for scope in self._scopes:
                for name, entries in scope.items():
                    if len(entries) == 1:
                        self._names[entries[0][0]] = name
                    else:
                        for i, (v, _) in enumerate(entries):
                            self._names[v] = f"{name}#{i}"
            self._scopes = None
        return self._names.get(value)


def _parse_top_level(text: str, filename: str | None, first_line: int,
                     allow_unregistered: bool) -> tuple[list[Operation], SourceNames]:
    """The top-level ops of `text` and the names it gave their values."""
    parser = OpParser(text, filename, first_line, allow_unregistered)
    with deep_recursion(), gc_paused():
        ops = parser.parse_top_level()
    names = SourceNames(parser.closed_scopes)
    for op in ops:
        if isinstance(op, Module):
            op.source_names = names
    return ops, names


def parse_document(text: str, filename: str | None = None, *, first_line: int = 1,
                   allow_unregistered: bool = False) -> list[Operation]:
    """Every top-level op of `text` (without wrapping them in a module)."""
    return _parse_top_level(text, filename, first_line, allow_unregistered)[0]


def parse(text: str, filename: str | None = None, *,
          allow_unregistered: bool = False) -> Module:
    """The ``cuda_tile.module`` in `text`.

    Accepts a module (optionally inside a builtin ``module { }``) or tileirdisasm's output,
    whose ``entry`` and ``global`` ops stand at top level.
    """
    ops, names = _parse_top_level(text, filename, 1, allow_unregistered)
    if len(ops) == 1 and ops[0].name == "builtin.module":
        ops = ops[0].regions[0].block.operations if ops[0].regions[0].blocks else []
    modules = [op for op in ops if isinstance(op, Module)]
    if len(modules) == 1 and len(ops) == 1:
        return modules[0]
    items = [op for op in ops if op.name in ["cuda_tile." + n for n in TOP_LEVEL_ITEMS]]
    if modules or len(items) != len(ops):
        raise ParseError(error("expected one cuda_tile.module (or top-level entry and global "
                               f"ops), found {len(ops)} top-level operations",
                               None))
    module = Module()
    module.spelling = "bare"
    module.source_names = names
    for op in items:
        module.body.append(op)
    return module


__all__ = ["OpParser", "OpState", "SourceNames", "Use", "parse", "parse_document", "Block"]
