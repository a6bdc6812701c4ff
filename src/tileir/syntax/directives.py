"""The custom directives of op formats (``custom<Signedness>``...): each a print/parse pair.

Print functions take the printer, the op and the directive's arguments; parse functions
take the op parser, the op being parsed (`OpState`) and the same arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..attributes import (ASSUME_PREDICATES, SPECIALIZED_ENUMS, Attribute, BoolAttr,
                          DenseArrayAttr, DenseElementsAttr, IntegerAttr,
                          StringAttr, SymbolRefAttr, identifier_or_string, quote_string)
from ..types import IntegerType
from ..enums import (ComparisonOrdering, ComparisonPredicate, RoundingMode, Signedness,
                     SymbolVisibility)
from ..ops.base import AttrDef
from .base import enum_attr, enum_case
from .format import TypeOf, Var

if TYPE_CHECKING:
    from ..ir import Operation
    from .parser import OpParser, OpState
    from .printer import Printer


# ---- attributes in op syntax --------------------------------------------------


AttrPrint = Callable[[Any], str]
AttrParse = Callable[["OpParser"], Attribute]


def _parse_bool(parser: "OpParser") -> Attribute:
    if parser.consume_keyword("true"):
        return BoolAttr(True)
    parser.expect_keyword("false")
    return BoolAttr(False)


def _parse_kind(parser: "OpParser", kind: type) -> Attribute:
    """Any attribute, which must be a `kind` (MLIR AsmParser::parseAttribute<AttrType>)."""
    offset = parser.token.offset
    value = parser.parse_attribute()
    if not isinstance(value, kind):
        raise parser.asm_error(offset, "invalid kind of attribute specified")
    return value


#: How ``$attr`` prints and parses in a declarative format, by attribute kind.
_ATTR_SYNTAX: dict[str, tuple[AttrPrint, AttrParse]] = {
    "i64": (lambda v: str(v.value), lambda p: IntegerAttr(p.parse_integer(64), IntegerType(64))),
    "i32": (lambda v: str(v.value), lambda p: IntegerAttr(p.parse_integer(32), IntegerType(32))),
    "str": (lambda v: quote_string(v.value), lambda p: _parse_kind(p, StringAttr)),
    "symbol_name": (lambda v: "@" + identifier_or_string(v.value),
                    lambda p: StringAttr(p.parse_symbol_name())),
    "symbol_ref": (lambda v: v.format(), lambda p: SymbolRefAttr(p.parse_symbol_name())),
    "dense_i32_array": (lambda v: v.format_short(), lambda p: DenseArrayAttr(
        IntegerType(32), tuple(p.parse_comma_list(lambda: p.parse_integer(32), "square")))),
    "optimization_hints": (lambda v: v.format_stripped(),
                           lambda p: p.parse_optimization_hints()),
    "bool": (lambda v: v.format(), _parse_bool),
}
_GENERIC_SYNTAX: tuple[AttrPrint, AttrParse] = (lambda v: v.format(),
                                                 lambda p: p.parse_attribute())


#: The most entries a per-object cache below holds (it starts over when full).
_CACHE_LIMIT = 4096
#: `attr_syntax` per declaration (by id, with the declaration kept alive).
_ATTR_SYNTAX_OF: dict[int, tuple[AttrDef, tuple[AttrPrint, AttrParse]]] = {}


def attr_syntax(decl: AttrDef) -> tuple[AttrPrint, AttrParse]:
    """The print and parse functions of ``$attr`` for an attribute declaration (made once
    per declaration: parsers and printers ask per op)."""
    known = _ATTR_SYNTAX_OF.get(id(decl))
    if known is None or known[0] is not decl:
        if len(_ATTR_SYNTAX_OF) >= _CACHE_LIMIT:
            _ATTR_SYNTAX_OF.clear()
        known = _ATTR_SYNTAX_OF[id(decl)] = (decl, _make_attr_syntax(decl))
    return known[1]


def _make_attr_syntax(decl: AttrDef) -> tuple[AttrPrint, AttrParse]:
    """The print and parse functions of ``$attr`` for an attribute declaration.

    Enums print as a bare keyword when "specialized" (``weak``, ``add``), otherwise
    stripped of their mnemonic (``overflow<no_wrap>`` prints ``<no_wrap>`` after the
    keyword the format spells).
    """
    enum_type = getattr(decl.kind, "enum_type", None)
    if enum_type in SPECIALIZED_ENUMS:
        return (lambda v: v.value.keyword,
                lambda p: p.parse_specialized_enum(enum_type, decl.name))
    if enum_type is not None:
        def parse_stripped(p: "OpParser") -> Attribute:
            p.expect_punct("<")
            value = p.parse_enum_parameter(enum_type)
            p.expect_punct(">")
            return value
        return (lambda v: v.format_stripped(), parse_stripped)
    return _ATTR_SYNTAX.get(decl.kind.name, _GENERIC_SYNTAX)


# ---- types --------------------------------------------------


#: Printed types by (id, qualified), with the type kept alive; types are immutable, and
#: kernels print the same few (the parser shares one object per spelling) over and over.
_TYPE_TEXT: dict[tuple[int, bool], tuple[Any, str]] = {}


def type_text(t: Any, qualified: bool = True) -> str:
    """``t.format(qualified)``, remembered per type object."""
    key = (id(t), qualified)
    known = _TYPE_TEXT.get(key)
    if known is None or known[0] is not t:
        if len(_TYPE_TEXT) >= _CACHE_LIMIT:
            _TYPE_TEXT.clear()
        known = _TYPE_TEXT[key] = (t, t.format(qualified))
    return known[1]


def _print_types(printer: "Printer", op: "Operation", arg: TypeOf) -> str:
    """``type($x)``: the group's types, comma-separated (most groups have one)."""
    types = printer.types_of(op, arg.name)
    if len(types) == 1:
        return type_text(types[0], False)
    return ", ".join([type_text(t, False) for t in types])


def _parse_types(parser: "OpParser", state: "OpState", arg: TypeOf) -> None:
    """``type($x)``: one type, or a comma-separated list for a variadic group."""
    types = [parser.parse_cuda_tile_type()]
    if state.is_variadic(arg.name):
        while parser.consume_punct(","):
            types.append(parser.parse_cuda_tile_type())
    state.types[arg.name] = types


# ---- enum keywords --------------------------------------------------


def _keyword_directive(enum_type: type, message: str):
    def print_(printer: "Printer", op: "Operation", arg: Var) -> str:
        return op.attr(arg.name).value.keyword

    def parse(parser: "OpParser", state: "OpState", arg: Var) -> None:
        state.attributes[arg.name] = parser.parse_enum_keyword(enum_type, message)
    parse.reads = ("enum keyword", enum_type)  # type: ignore[attr-defined]  (see `fast`)
    return print_, parse


_SIGNEDNESS = _keyword_directive(Signedness,
                                 "expected signedness to be one of: {'signed', 'unsigned'}")
_PREDICATE = _keyword_directive(
    ComparisonPredicate, "expected 'comparison_predicate' to be one of: {'equal', 'not_equal', "
    "'less_than', 'less_than_or_equal', 'greater_than', 'greater_than_or_equal'}")
_ORDERING = _keyword_directive(
    ComparisonOrdering, "expected 'comparison_ordering' to be one of: {'ordered', 'unordered'}")


def _rounding_directive(default: RoundingMode, allowed: tuple[str, ...], strict: bool):
    """``rounding<mode>``, printed only when not `default`."""
    listed = ", ".join(f"'{m}'" for m in allowed)
    def print_(printer: "Printer", op: "Operation", arg: Var) -> str:
        value = op.attr(arg.name)
        if value is None or value.value == default:
            return ""
        return f"rounding<{value.value.keyword}>"

    def parse(parser: "OpParser", state: "OpState", arg: Var) -> None:
        if not parser.consume_keyword("rounding"):
            state.attributes[arg.name] = enum_attr(default)
            return
        parser.expect_punct("<")
        keyword = parser.parse_keyword()
        parser.expect_punct(">")
        offset = parser.token.offset
        try:
            mode = enum_case(RoundingMode, keyword)
        except KeyError:
            suffix = f", got: '{keyword}'" if strict else ""
            raise parser.asm_error(
                offset, f"expected rounding mode to be one of: {listed}{suffix}") from None
        if strict and keyword not in allowed:
            raise parser.asm_error(
                offset, f"expected rounding mode to be one of: {listed}, got: '{keyword}'")
        state.attributes[arg.name] = enum_attr(mode)
    parse.reads = ("rounding", default, allowed, strict)  # type: ignore[attr-defined]
    return print_, parse


_NE, _FULL = RoundingMode.NEAREST_EVEN, RoundingMode.FULL
_IEEE = _rounding_directive(_NE, ("nearest_even", "zero", "negative_inf", "positive_inf"), True)
# ftof takes the IEEE modes and, since 13.4, nearest_away (which the verifier allows
# only for some conversions).
_FTOF = _rounding_directive(_NE, ("nearest_even", "zero", "negative_inf", "positive_inf",
                                  "nearest_away"), True)
_DIVF = _rounding_directive(_NE, ("nearest_even", "zero", "negative_inf", "positive_inf",
                                  "approx", "full"), False)
_SQRT = _rounding_directive(_NE, ("nearest_even", "zero", "negative_inf", "positive_inf",
                                  "approx"), False)
_APPROX_FULL = _rounding_directive(_FULL, ("approx", "full"), False)
_INTEGER = _rounding_directive(RoundingMode.NEAREST_INT_TO_ZERO, ("nearest_int_to_zero",), True)


def _print_visibility(printer: "Printer", op: "Operation", arg: Var) -> str:
    value = op.attr(arg.name)
    if value is not None and value.value != SymbolVisibility.PUBLIC:
        return value.value.keyword + " "
    return ""


def _parse_visibility(parser: "OpParser", state: "OpState", arg: Var) -> None:
    for keyword in ("public", "private"):
        if parser.consume_keyword(keyword):
            state.attributes[arg.name] = enum_attr(enum_case(SymbolVisibility, keyword))
            return
    state.attributes[arg.name] = enum_attr(SymbolVisibility.PUBLIC)


# ---- dense constants --------------------------------------------------


def _print_dense(printer: "Printer", op: "Operation", value: Var, result: TypeOf | None = None
                 ) -> str:
    attr = op.attributes.get(value.name)
    assert isinstance(attr, DenseElementsAttr)
    return (f"<{type_text(attr.type.element_type, False)}: {attr.literal()}> : "
            f"{type_text(attr.type, False)}")


def _parse_dense(parser: "OpParser", state: "OpState", value: Var,
                 result: TypeOf | None = None) -> None:
    attr = parser.parse_dense_typed_elements()
    state.attributes[value.name] = attr
    if result is not None:
        state.types[result.name] = [attr.type]


_parse_dense.reads = ("dense",)  # type: ignore[attr-defined]  (see `fast`)


# ---- assume predicates --------------------------------------------------


def _print_assume(printer: "Printer", op: "Operation", arg: Var) -> str:
    value = op.attributes.get(arg.name)
    if isinstance(value, ASSUME_PREDICATES):
        return value.format_stripped()
    return value.format() if value is not None else ""


def _parse_assume(parser: "OpParser", state: "OpState", arg: Var) -> None:
    state.attributes[arg.name] = parser.parse_assume_predicate()


# ---- regions --------------------------------------------------


def _print_if_region(printer: "Printer", op: "Operation", arg: Var) -> str:
    return printer.control_flow_region(op, op.opdef.region_index(arg.name))


def _parse_if_region(parser: "OpParser", state: "OpState", arg: Var) -> None:
    state.regions[arg.name] = parser.parse_region_for(state, [], terminator="yield")


def _print_argument_region(printer: "Printer", op: "Operation", arg: Var) -> str:
    region = op.regions[0]
    args = ", ".join(f"{printer.value(a)}: {type_text(a.type, False)}"
                     for a in region.block.arguments)
    newline = "\n" + " " * printer.indent
    return newline + f"({args}) " + printer.region(region, print_entry_args=False)


def _parse_argument_region(parser: "OpParser", state: "OpState", arg: Var) -> None:
    arguments = parser.parse_argument_list()
    state.regions[arg.name] = parser.parse_region_for(state, arguments, terminator=None)


#: Each custom directive: its (print, parse) pair.
DIRECTIVES: dict[str, tuple[Callable[..., str], Callable[..., None]]] = {
    "CudaTileType": (_print_types, _parse_types),
    "Signedness": _SIGNEDNESS, "ComparisonPredicate": _PREDICATE,
    "ComparisonOrdering": _ORDERING,
    "IEEERoundingMode": _IEEE, "FToFRoundingMode": _FTOF, "DivFOpRoundingMode": _DIVF,
    "SqrtOpRoundingMode": _SQRT,
    "TanHOpRoundingMode": _APPROX_FULL, "ExpOpRoundingMode": _APPROX_FULL,
    "IntegerRoundingMode": _INTEGER,
    "SymbolVisibility": (_print_visibility, _parse_visibility),
    "DenseTypedElementsAttr": (_print_dense, _parse_dense),
    "DenseTypedElementsAttrNoResult": (_print_dense, _parse_dense),
    "AssumePredicate": (_print_assume, _parse_assume),
    "IfOpRegion": (_print_if_region, _parse_if_region),
    "ArgumentRegion": (_print_argument_region, _parse_argument_region),
}

__all__ = ["DIRECTIVES", "attr_syntax"]
