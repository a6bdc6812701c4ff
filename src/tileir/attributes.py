"""Attribute values: the constants, enums, hints and debug info that ops carry.

Every attribute is a frozen, hashable value.  `format()` gives the MLIR generic spelling
(``#cuda_tile.rounding<zero>``, ``2 : i64``, ``dense<1> : !cuda_tile.tile<4xi32>``); the
op syntax prints the shorter forms through the directives in ``syntax/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

from .diagnostics import Location as SourcePoint
from .enums import (AtomicRMWMode, ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
                    MemoryOrderingSemantics, MemoryScope, MultimemReductionKind, PaddingValue,
                    RoundingMode, Signedness, SpecEnum, SymbolVisibility)
from .types import FloatType, IntegerType, TileType, Type


class Attribute:
    """Base of all attribute values."""

    def format(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.format()


def quote_string(value: str) -> str:
    """MLIR's escaping of a string literal: printable ASCII kept, the rest as ``\\XX``."""
    out = []
    for byte in value.encode("utf-8"):
        ch = chr(byte)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class UnitAttr(Attribute):
    """A flag: present or absent."""

    def format(self) -> str:
        return "unit"


UNIT = UnitAttr()


@dataclass(frozen=True)
class BoolAttr(Attribute):
    """``true`` or ``false``: MLIR's BoolAttr, an i1 integer (typed, as a reduction's
    identity must be)."""

    value: bool

    @property
    def type(self) -> Type:
        """Always i1."""
        return IntegerType(1)

    def format(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True)
class IntegerAttr(Attribute):
    """An integer with its type (``i64`` unless said otherwise)."""

    value: int
    type: Type = IntegerType(64)

    def format(self) -> str:
        if self.type == IntegerType(1):
            return "true" if self.value else "false"
        return f"{self.value} : {self.type.format()}"


@dataclass(frozen=True)
class FloatAttr(Attribute):
    """A float, stored as its bit pattern in `type`."""

    bits: int
    type: FloatType

    def format(self) -> str:
        from .syntax.floats import format_float
        return f"{format_float(self.bits, self.type)} : {self.type.format()}"


@dataclass(frozen=True)
class StringAttr(Attribute):
    value: str

    def format(self) -> str:
        return quote_string(self.value)


@dataclass(frozen=True)
class SymbolRefAttr(Attribute):
    """``@name``: a reference to a symbol (a global or a function); ``@outer::@inner``
    names a symbol nested in another symbol table (MLIR's nested references)."""

    name: str
    nested: tuple[str, ...] = ()

    def format(self) -> str:
        return "::".join("@" + identifier_or_string(n) for n in (self.name, *self.nested))


def identifier_or_string(name: str) -> str:
    """A symbol or attribute name as MLIR prints it: bare when an identifier, else quoted."""
    if name.isascii() and (name[:1].isalpha() or name[:1] == "_") and all(
            c.isalnum() or c in "_$." for c in name):
        return name
    return quote_string(name)


@dataclass(frozen=True)
class TypeAttr(Attribute):
    value: Type

    def format(self) -> str:
        return self.value.format()


@dataclass(frozen=True)
class ArrayAttr(Attribute):
    """``[a, b]``: its elements print as MLIR prints them in an array, where an i64
    integer's and an f64 float's type is left out (the types a bare literal reads as)."""

    elements: tuple[Attribute, ...]

    def format(self) -> str:
        return "[" + ", ".join(_in_array(e) for e in self.elements) + "]"


def _in_array(element: Attribute) -> str:
    """An array element's text: `format`, less the type an untyped literal reads as."""
    if isinstance(element, IntegerAttr) and element.type == IntegerType(64):
        return str(element.value)
    if isinstance(element, FloatAttr) and element.type == FloatType("f64"):
        from .syntax.floats import format_float
        return format_float(element.bits, element.type)
    return element.format()


@dataclass(frozen=True)
class DenseArrayAttr(Attribute):
    """``array<i32: 1, 0>``: a dense array of integers (``array<i1: true, false>`` for i1)."""

    element_type: IntegerType
    values: tuple[int, ...]

    def _elements(self) -> str:
        """The values joined by commas; i1 values as MLIR prints them, true and false."""
        if self.element_type.width == 1:
            return ", ".join("true" if v else "false" for v in self.values)
        return ", ".join(str(v) for v in self.values)

    def format(self) -> str:
        body = self._elements()
        return f"array<{self.element_type.format()}" + (f": {body}>" if self.values else ">")

    def format_short(self) -> str:
        """The ``[1, 0]`` form the op syntax uses (``[true, false]`` for i1)."""
        return "[" + self._elements() + "]"


@dataclass(frozen=True)
class DictAttr(Attribute):
    """An attribute dictionary, kept sorted by name as MLIR does."""

    entries: tuple[tuple[str, Attribute], ...]

    @staticmethod
    def of(items: dict[str, Attribute] | Sequence[tuple[str, Attribute]]) -> "DictAttr":
        pairs = items.items() if isinstance(items, dict) else items
        return DictAttr(tuple(sorted(pairs, key=lambda kv: kv[0])))

    def get(self, name: str) -> Attribute | None:
        for key, value in self.entries:
            if key == name:
                return value
        return None

    def __iter__(self) -> Iterator[tuple[str, Attribute]]:
        return iter(self.entries)

    def format(self) -> str:
        return "{" + ", ".join(format_named(k, v) for k, v in self.entries) + "}"


def format_named(name: str, value: Attribute) -> str:
    """``name = value``, or just ``name`` for a unit attribute."""
    if isinstance(value, UnitAttr):
        return identifier_or_string(name)
    return f"{identifier_or_string(name)} = {value.format()}"


# ---- dense elements --------------------------------------------------


@dataclass(frozen=True)
class DenseElementsAttr(Attribute):
    """The value of a ``constant`` or ``global``: a tile type and its elements.

    Integers are stored as Python ints (signed), floats as bit patterns; a splat keeps one
    element.
    """

    type: TileType
    values: tuple[int, ...]

    def __post_init__(self) -> None:
        """Elements all equal are kept as a splat, as MLIR keeps them (whether text or
        bytecode spelled them one by one), so a module reads back as it printed."""
        values = self.values
        if len(values) > 1 and values.count(values[0]) == len(values):
            object.__setattr__(self, "values", (values[0],))

    @property
    def is_splat(self) -> bool:
        return len(self.values) == 1

    @property
    def element_type(self) -> Type:
        return self.type.element_type

    def elements(self) -> tuple[int, ...]:
        """Every element in row-major order (a splat repeated)."""
        if self.is_splat:
            return self.values * self.type.num_elements
        return self.values

    def literal(self) -> str:
        """The element literal: one value for a splat, else nested lists, or the raw
        buffer in hex past 100 elements (as MLIR prints them)."""
        element = self.type.element_type
        from .syntax.dense_hex import prints_in_hex, to_hex
        if prints_in_hex(self.type.num_elements, self.is_splat):
            return to_hex(self.values, element)
        if isinstance(element, FloatType):
            from .syntax.floats import format_float

            def text(v: int) -> str:
                return format_float(v, element)
        elif element == IntegerType(1):
            def text(v: int) -> str:
                return "true" if v else "false"
        else:
            text = str
        if self.is_splat:
            return text(self.values[0])
        return _nested(self.values, self.type.shape, text)

    def format(self) -> str:
        return f"dense<{self.literal()}> : {self.type.format()}"


def _nested(values: Sequence[int], shape: Sequence[int], text) -> str:
    if not shape:
        return text(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(text(v) for v in values) + "]"
    step = len(values) // shape[0]
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:], text)
                           for i in range(shape[0])) + "]"


# ---- enums --------------------------------------------------

#: Enums with a dialect attribute mnemonic print generically as ``#cuda_tile.<m><kw>``;
#: the "specialized" ones (memory ordering, scope, RMW mode) as a plain ``N : i32``.
ENUM_MNEMONICS: dict[type, str] = {
    Signedness: "signedness", IntegerOverflow: "overflow", RoundingMode: "rounding",
    ComparisonOrdering: "comparison_ordering", ComparisonPredicate: "comparison_predicate",
    PaddingValue: "padding_value", SymbolVisibility: "symbol_visibility",
    MultimemReductionKind: "multimem_reduction_kind",
}
SPECIALIZED_ENUMS = (MemoryOrderingSemantics, MemoryScope, AtomicRMWMode)


@dataclass(frozen=True)
class EnumAttr(Attribute):
    value: SpecEnum

    def format(self) -> str:
        mnemonic = ENUM_MNEMONICS.get(type(self.value))
        if mnemonic is None:
            return f"{int(self.value)} : i32"
        return f"#cuda_tile.{mnemonic}<{self.value.keyword}>"

    def format_stripped(self) -> str:
        """``<zero>``: the form after a keyword in op syntax (``rounding<zero>``)."""
        return f"<{self.value.keyword}>"


# ---- cuda_tile attributes ------------------------------------------------------------------


@dataclass(frozen=True)
class OptimizationHintsAttr(Attribute):
    """Per-architecture hint dictionaries: ``<sm_100 = {num_cta_in_cga = 2}>``."""

    entries: tuple[tuple[str, Attribute], ...]

    def format_stripped(self) -> str:
        return "<" + ", ".join(f"{identifier_or_string(k)} = {_hint_values(v)}"
                               for k, v in self.entries) + ">"

    def format(self) -> str:
        return "#cuda_tile.optimization_hints" + self.format_stripped()


def _hint_values(value: Attribute) -> str:
    """A hint dictionary, its integers printed without their type as the reference does."""
    if not isinstance(value, DictAttr):
        return value.format()
    items = []
    for key, item in value.entries:
        text = str(item.value) if isinstance(item, IntegerAttr) and \
            item.type != IntegerType(1) else item.format()
        items.append(f"{identifier_or_string(key)} = {text}")
    return "{" + ", ".join(items) + "}"


@dataclass(frozen=True)
class DivByAttr(Attribute):
    """``div_by<N[, every E along A]>``: the value is divisible by N (assume predicate)."""

    divisor: int
    every: int | None = None
    along: int | None = None

    def format_stripped(self) -> str:
        extra = f", every {self.every} along {self.along}" if self.every is not None else ""
        return f"div_by<{self.divisor}{extra}>"

    def format(self) -> str:
        return "#cuda_tile." + self.format_stripped()


@dataclass(frozen=True)
class SameElementsAttr(Attribute):
    """``same_elements<[1, 4, 2]>``: groups of equal elements per dimension."""

    values: tuple[int, ...]

    def format_stripped(self) -> str:
        return "same_elements<[" + ", ".join(str(v) for v in self.values) + "]>"

    def format(self) -> str:
        return "#cuda_tile." + self.format_stripped()


@dataclass(frozen=True)
class BoundedAttr(Attribute):
    """``bounded<lb, ub>`` with ``?`` for an absent bound."""

    lower: int | None
    upper: int | None

    def format_stripped(self) -> str:
        def bound(v: int | None) -> str:
            return "?" if v is None else str(v)
        return f"bounded<{bound(self.lower)}, {bound(self.upper)}>"

    def format(self) -> str:
        return "#cuda_tile." + self.format_stripped()


ASSUME_PREDICATES = (DivByAttr, SameElementsAttr, BoundedAttr)


# ---- debug info --------------------------------------------------


#: How deep locations and debug scopes may nest (callsite chains, lexical blocks): as deep
#: as bytecode attributes may (`tileir.bytecode.attrs.MAX_DEPTH`).  Every walk of them may
#: recurse, and hashing one re-hashes all it holds, so the bound is kept at construction.
MAX_NESTING = 64


class NestingError(ValueError):
    """A location or debug scope nested deeper than `MAX_NESTING`."""


def nesting(attr: object) -> int:
    """How many levels `attr` spans (1 for one that holds no nested location or scope)."""
    return getattr(attr, "__dict__", {}).get("_nesting", 1)


def _nest(attr: object, *children: object) -> None:
    """Record `attr`'s nesting over its `children` (None ignored); `NestingError` past
    `MAX_NESTING`."""
    depth = 1 + max((nesting(c) for c in children if c is not None), default=0)
    if depth > MAX_NESTING:
        raise NestingError(f"locations and debug scopes nest more than {MAX_NESTING} deep")
    attr.__dict__["_nesting"] = depth


class DIAttr(Attribute):
    """Debug-info attributes; the printer gives them ``#di_*`` aliases.

    `alias_prefix` is both the attribute's mnemonic and its alias name; `body(ref)` prints
    the parameters with `ref` spelling nested attributes (inline, or by alias).
    """

    alias_prefix = "di"

    def body(self, ref) -> str:
        raise NotImplementedError

    def format(self, ref=None) -> str:
        return f"#cuda_tile.{self.alias_prefix}" + self.body(ref or _inline)


@dataclass(frozen=True)
class DIFileAttr(DIAttr):
    name: str
    directory: str
    alias_prefix = "di_file"

    def body(self, ref) -> str:
        return f"<{quote_string(self.name)} in {quote_string(self.directory)}>"



@dataclass(frozen=True)
class DICompileUnitAttr(DIAttr):
    file: DIFileAttr
    alias_prefix = "di_compile_unit"

    def body(self, ref) -> str:
        return f"<file = {ref(self.file)}>"



@dataclass(frozen=True)
class DISubprogramAttr(DIAttr):
    file: DIFileAttr
    line: int
    name: str
    linkage_name: str
    compile_unit: DICompileUnitAttr
    scope_line: int
    #: 13.5's subprogram flags (`DI_SUBPROGRAM_FLAGS`): bit 0 is ``declaration``.
    flags: int = 0
    alias_prefix = "di_subprogram"

    def body(self, ref) -> str:
        flags = f", flags = {di_subprogram_flags_text(self.flags)}" if self.flags else ""
        # (an OptionalParameter: the reference prints it only when it is not 0)
        scope_line = f", scopeLine = {self.scope_line}" if self.scope_line else ""
        return (f"<file = {ref(self.file)}, line = {self.line}, name = {quote_string(self.name)}, "
                f"linkageName = {quote_string(self.linkage_name)}, "
                f"compileUnit = {ref(self.compile_unit)}{scope_line}{flags}>")


#: The flags of a ``di_subprogram`` (13.5), by keyword: the bit each sets.
DI_SUBPROGRAM_FLAGS = {"declaration": 1}


def di_subprogram_flags_text(flags: int) -> str:
    """``declaration``: the keywords of the set bits, joined by `` | ``."""
    return " | ".join(k for k, bit in DI_SUBPROGRAM_FLAGS.items() if flags & bit)



@dataclass(frozen=True)
class DILexicalBlockAttr(DIAttr):
    scope: "DISubprogramAttr | DILexicalBlockAttr"
    file: DIFileAttr
    line: int
    column: int
    alias_prefix = "di_lexical_block"

    def __post_init__(self) -> None:
        _nest(self, self.scope)

    def body(self, ref) -> str:
        return (f"<scope = {ref(self.scope)}, file = {ref(self.file)}, line = {self.line}, "
                f"column = {self.column}>")



def _inline(attr: Attribute) -> str:
    return attr.format()


@dataclass(frozen=True)
class OpaqueAttr(Attribute):
    """An attribute of another dialect, kept by its spelling."""

    spelling: str

    def format(self) -> str:
        return self.spelling


# ---- locations --------------------------------------------------


class Location(Attribute):
    """Where an op came from: printed as ``loc(...)`` with ``--mlir-print-debuginfo``."""

    def body(self, ref) -> str:
        raise NotImplementedError

    def format(self, ref=None) -> str:
        return f"loc({self.body(ref or _loc_inline)})"

    def file_location(self) -> "SourcePoint | None":
        """The first file:line:col inside this location (MLIR's findInstanceOf), the
        place a diagnostic about it is reported; None when there is none."""
        for child in self.children():
            found = child.file_location()
            if found is not None:
                return found
        return None

    def children(self) -> tuple["Location", ...]:
        return ()


def _loc_inline(loc: "Location") -> str:
    return loc.body(_loc_inline)


@dataclass(frozen=True)
class UnknownLoc(Location):
    def body(self, ref) -> str:
        return "unknown"


UNKNOWN_LOC = UnknownLoc()


@dataclass(frozen=True)
class FileLineColLoc(Location):
    file: str
    line: int
    column: int

    def body(self, ref) -> str:
        return f"{quote_string(self.file)}:{self.line}:{self.column}"

    def file_location(self) -> SourcePoint:
        return SourcePoint(self.file, self.line, self.column)


def file_line_col(file: str, line: int, column: int) -> FileLineColLoc:
    """``FileLineColLoc(file, line, column)``, its fields set straight into the instance
    (the frozen dataclass's ``__init__`` sets each through ``object.__setattr__``; the
    parser makes one per op)."""
    loc = object.__new__(FileLineColLoc)
    fields = loc.__dict__
    fields["file"] = file
    fields["line"] = line
    fields["column"] = column
    return loc


@dataclass(frozen=True)
class NameLoc(Location):
    name: str
    child: Location | None = None

    def __post_init__(self) -> None:
        _nest(self, self.child)

    def body(self, ref) -> str:
        inner = f"({ref(self.child)})" if self.child is not None and \
            not isinstance(self.child, UnknownLoc) else ""
        return quote_string(self.name) + inner

    def children(self) -> tuple[Location, ...]:
        return (self.child,) if self.child is not None else ()


@dataclass(frozen=True)
class CallSiteLoc(Location):
    callee: Location
    caller: Location

    def __post_init__(self) -> None:
        _nest(self, self.callee, self.caller)

    def body(self, ref) -> str:
        return f"callsite({ref(self.callee)} at {ref(self.caller)})"

    def children(self) -> tuple[Location, ...]:
        return (self.callee, self.caller)


@dataclass(frozen=True)
class FusedLoc(Location):
    locations: tuple[Location, ...]
    metadata: Attribute | None = None

    def __post_init__(self) -> None:
        _nest(self, *self.locations)

    def body(self, ref) -> str:
        meta = f"<{self.metadata.format()}>" if self.metadata is not None else ""
        return "fused" + meta + "[" + ", ".join(ref(loc) for loc in self.locations) + "]"

    def children(self) -> tuple[Location, ...]:
        return self.locations


@dataclass(frozen=True)
class DILocAttr(Location):
    """``#cuda_tile.di_loc<loc("f.py":1:2) in #scope>``: a source location with a scope."""

    location: Location
    scope: "DISubprogramAttr | DILexicalBlockAttr"

    def __post_init__(self) -> None:
        _nest(self, self.location, self.scope)

    def di_body(self, loc_ref, attr_ref) -> str:
        return f"#cuda_tile.di_loc<{loc_ref(self.location)} in {attr_ref(self.scope)}>"

    def body(self, ref) -> str:
        return self.di_body(lambda loc: loc.format(), _inline)

    def children(self) -> tuple[Location, ...]:
        return (self.location,)
