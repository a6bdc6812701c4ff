"""The custom directives of op formats (``custom<Signedness>``...): each a print/parse pair.

Print functions take the printer, the op and the directive's arguments; parse functions
take the op parser, the op being parsed (`OpState`) and the same arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..attributes import (ASSUME_PREDICATES, ArrayAttr, Attribute, BoolAttr, DenseArrayAttr,
                          DenseElementsAttr, EnumAttr, IntegerAttr, OptimizationHintsAttr,
                          StringAttr, SymbolRefAttr, quote_string, symbol_spelling)
from ..enums import (ComparisonOrdering, ComparisonPredicate, RoundingMode, Signedness,
                     SymbolVisibility)
from ..ops.base import AttrDef
from .format import TypeOf, Var

if TYPE_CHECKING:
    from ..ir import Operation
    from .parser import OpParser, OpState
    from .printer import Printer


# ---- attributes in op syntax --------------------------------------------------


def print_attr_short(value: Attribute | None, decl: AttrDef) -> str:
    """An attribute as ``$attr`` prints it in a declarative format."""
    if value is None:
        return ""
    kind = decl.kind.name
    if isinstance(value, EnumAttr):
        if hasattr(decl.kind, "enum_type") and kind in ("MemoryOrderingSemantics",
                                                         "MemoryScope", "AtomicRMWMode"):
            return value.value.keyword
        return value.format_stripped()
    if isinstance(value, IntegerAttr):
        return str(value.value)
    if isinstance(value, StringAttr):
        if kind == "symbol_name":
            return "@" + symbol_spelling(value.value)
        return quote_string(value.value)
    if isinstance(value, SymbolRefAttr):
        return value.format()
    if isinstance(value, DenseArrayAttr):
        return value.format_short()
    if isinstance(value, OptimizationHintsAttr):
        return value.format_stripped()
    if isinstance(value, BoolAttr):
        return value.format()
    return value.format()


# ---- types --------------------------------------------------


def _print_types(printer: "Printer", op: "Operation", arg: TypeOf) -> str:
    from .printer import types_of
    return ", ".join(t.format(qualified=False) for t in types_of(op, arg.name))


def _parse_types(parser: "OpParser", state: "OpState", arg: TypeOf) -> None:
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
        offset = parser.token.offset
        if not parser.token.is_keyword():
            raise parser.error_at(offset, message)
        try:
            value = enum_type.from_keyword(parser.advance().spelling)
        except KeyError:
            raise parser.error_at(offset, message) from None
        state.attributes[arg.name] = EnumAttr(value)
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
    def print_(printer: "Printer", op: "Operation", arg: Var) -> str:
        value = op.attr(arg.name)
        if value is None or value.value == default:
            return ""
        return f"rounding<{value.value.keyword}>"

    def parse(parser: "OpParser", state: "OpState", arg: Var) -> None:
        if not parser.consume_keyword("rounding"):
            state.attributes[arg.name] = EnumAttr(default)
            return
        parser.expect_punct("<")
        keyword = parser.parse_keyword()
        parser.expect_punct(">")
        listed = ", ".join(f"'{m}'" for m in allowed)
        try:
            mode = RoundingMode.from_keyword(keyword)
        except KeyError:
            suffix = f", got: '{keyword}'" if strict else ""
            raise parser.error_here(
                f"expected rounding mode to be one of: {listed}{suffix}") from None
        if strict and keyword not in allowed:
            raise parser.error_here(
                f"expected rounding mode to be one of: {listed}, got: '{keyword}'")
        state.attributes[arg.name] = EnumAttr(mode)
    return print_, parse


_NE, _FULL = RoundingMode.NEAREST_EVEN, RoundingMode.FULL
_IEEE = _rounding_directive(_NE, ("nearest_even", "zero", "negative_inf", "positive_inf"), True)
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
            state.attributes[arg.name] = EnumAttr(SymbolVisibility.from_keyword(keyword))
            return
    state.attributes[arg.name] = EnumAttr(SymbolVisibility.PUBLIC)


# ---- dense constants --------------------------------------------------


def _print_dense(printer: "Printer", op: "Operation", value: Var, result: TypeOf | None = None
                 ) -> str:
    attr = op.attributes.get(value.name)
    assert isinstance(attr, DenseElementsAttr)
    return (f"<{attr.type.element_type.format(qualified=False)}: {attr.literal()}> : "
            f"{attr.type.format(qualified=False)}")


def _parse_dense(parser: "OpParser", state: "OpState", value: Var,
                 result: TypeOf | None = None) -> None:
    attr = parser.parse_dense_typed_elements()
    state.attributes[value.name] = attr
    if result is not None:
        state.types[result.name] = [attr.type]


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
    from .printer import REGION_NAMES
    region = op.regions[REGION_NAMES["if"].index(arg.name)]
    terminator = region.block.terminator if region.blocks else None
    show = terminator is not None and (bool(terminator.operands) or
                                       terminator.name != "cuda_tile.yield")
    return printer.region(region, print_entry_args=False, print_terminators=show)


def _parse_if_region(parser: "OpParser", state: "OpState", arg: Var) -> None:
    state.regions[arg.name] = parser.parse_region_for(state, [], terminator="yield")


def _print_argument_region(printer: "Printer", op: "Operation", arg: Var) -> str:
    region = op.regions[0]
    args = ", ".join(f"{printer.value(a)}: {a.type.format(qualified=False)}"
                     for a in region.block.arguments)
    newline = "\n" + " " * printer.indent
    return newline + f"({args}) " + printer.region(region, print_entry_args=False)


def _parse_argument_region(parser: "OpParser", state: "OpState", arg: Var) -> None:
    arguments = parser.parse_argument_list()
    state.regions[arg.name] = parser.parse_region_for(state, arguments, terminator=None)


PrintFn = Callable[..., str]
ParseFn = Callable[..., None]

PRINT: dict[str, PrintFn] = {
    "CudaTileType": _print_types,
    "Signedness": _SIGNEDNESS[0], "ComparisonPredicate": _PREDICATE[0],
    "ComparisonOrdering": _ORDERING[0],
    "IEEERoundingMode": _IEEE[0], "DivFOpRoundingMode": _DIVF[0],
    "SqrtOpRoundingMode": _SQRT[0], "TanHOpRoundingMode": _APPROX_FULL[0],
    "ExpOpRoundingMode": _APPROX_FULL[0], "IntegerRoundingMode": _INTEGER[0],
    "SymbolVisibility": _print_visibility,
    "DenseTypedElementsAttr": _print_dense, "DenseTypedElementsAttrNoResult": _print_dense,
    "AssumePredicate": _print_assume, "IfOpRegion": _print_if_region,
    "ArgumentRegion": _print_argument_region,
}
PARSE: dict[str, ParseFn] = {
    "CudaTileType": _parse_types,
    "Signedness": _SIGNEDNESS[1], "ComparisonPredicate": _PREDICATE[1],
    "ComparisonOrdering": _ORDERING[1],
    "IEEERoundingMode": _IEEE[1], "DivFOpRoundingMode": _DIVF[1],
    "SqrtOpRoundingMode": _SQRT[1], "TanHOpRoundingMode": _APPROX_FULL[1],
    "ExpOpRoundingMode": _APPROX_FULL[1], "IntegerRoundingMode": _INTEGER[1],
    "SymbolVisibility": _parse_visibility,
    "DenseTypedElementsAttr": _parse_dense, "DenseTypedElementsAttrNoResult": _parse_dense,
    "AssumePredicate": _parse_assume, "IfOpRegion": _parse_if_region,
    "ArgumentRegion": _parse_argument_region,
}

__all__ = ["PARSE", "PRINT", "print_attr_short", "ArrayAttr", "Any"]
