"""The declaration language for ops: one `OpDef` per op drives syntax, bytecode and checks.

An op declaration lists its operands, results and attributes (each with the release that
introduced it), its regions, traits, assembly format (MLIR's declarative format string, or
a named custom syntax), its bytecode opcode, and naming hooks for the printer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

from ..attributes import (UNIT, Attribute, BoolAttr, DenseArrayAttr, EnumAttr, IntegerAttr,
                          StringAttr, SymbolRefAttr, UnitAttr)
from ..enums import SpecEnum
from ..types import I32 as I32_TYPE, IntegerType, Type
from ..versions import V13_1, Version

# ---- type constraints --------------------------------------------------


@dataclass(frozen=True)
class TypeConstraint:
    """A set of types an operand or result accepts, with the reference's summary text.

    `buildable` is the one type the parser can infer when the syntax omits it (MLIR's
    buildable types: ``token``, a rank-0 ``i32`` tile).  `older` holds the wording of
    builds that predate a member type, newest first: ``(V13_4, text)`` is what a build
    older than 13.4 prints (it does not list fnv8E5M3FNU).
    """

    summary: str
    predicate: Callable[[Type], bool] = field(compare=False)
    buildable: Type | None = None
    older: tuple[tuple[Version, str], ...] = ()

    def accepts(self, t: Type) -> bool:
        return self.predicate(t)

    def summary_at(self, release: Version) -> str:
        """The summary a build of `release` prints (its own types only)."""
        for since, text in reversed(self.older):      # oldest first
            if release < since:
                return text
        return self.summary


ANY_TYPE = TypeConstraint("any type", lambda t: True)

# ---- fields --------------------------------------------------

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"
#: The `OpDef` fields its cached properties are derived from, with the property's name.
_DERIVED_FROM = {"operands": "shape", "results": "shape", "attrs": "shape",
                 "name": "full_name", "dialect": "full_name"}


@dataclass(frozen=True)
class ValueDef:
    """A declared operand or result: its name, type constraint, arity and release."""

    name: str
    constraint: TypeConstraint = ANY_TYPE
    arity: str = SINGLE
    since: Version = V13_1


OperandDef = ResultDef = ValueDef


@dataclass(frozen=True)
class AttrKind:
    """How an attribute of one kind converts from Python values."""

    name: str
    coerce: Callable[[Any], Attribute]


def _int_kind(bits: int) -> AttrKind:
    return AttrKind(f"i{bits}", lambda v: v if isinstance(v, Attribute)
                    else IntegerAttr(int(v), IntegerType(bits)))


def enum_kind(enum_type: type[SpecEnum]) -> AttrKind:
    def coerce(v: Any) -> Attribute:
        if isinstance(v, Attribute):
            return v
        if isinstance(v, str):
            v = enum_type.from_keyword(v)
        return EnumAttr(enum_type(v))
    kind = AttrKind(enum_type.__name__, coerce)
    object.__setattr__(kind, "enum_type", enum_type)
    return kind


def _passthrough(name: str) -> AttrKind:
    def coerce(v: Any) -> Attribute:
        if not isinstance(v, Attribute):
            raise TypeError(f"attribute of kind {name} needs an Attribute, got {v!r}")
        return v
    return AttrKind(name, coerce)


I64 = _int_kind(64)
I32 = _int_kind(32)
UNIT_KIND = AttrKind("unit", lambda v: v if isinstance(v, Attribute) else UNIT)
BOOL = AttrKind("bool", lambda v: v if isinstance(v, Attribute) else BoolAttr(bool(v)))
STR = AttrKind("str", lambda v: v if isinstance(v, Attribute) else StringAttr(str(v)))
SYMBOL_NAME = AttrKind("symbol_name", lambda v: v if isinstance(v, Attribute)
                       else StringAttr(str(v)))
SYMBOL_REF = AttrKind("symbol_ref", lambda v: v if isinstance(v, Attribute)
                      else SymbolRefAttr(str(v)))
DENSE_I32_ARRAY = AttrKind("dense_i32_array", lambda v: v if isinstance(v, Attribute)
                           else DenseArrayAttr(IntegerType(32), tuple(int(x) for x in v)))
DENSE_BOOL_ARRAY = AttrKind("dense_bool_array", lambda v: v if isinstance(v, Attribute)
                            else DenseArrayAttr(IntegerType(1), tuple(int(bool(x)) for x in v)))
ARRAY = _passthrough("array")
DENSE = _passthrough("dense")
TYPE = _passthrough("type")
OPT_HINTS = _passthrough("optimization_hints")
ASSUME_PREDICATE = _passthrough("assume_predicate")
DICT_ARRAY = _passthrough("dict_array")
#: 13.5 preview kinds: an untagged dictionary, the two expressions of a scratch request,
#: and a preview synchronization enum (a `tileir.preview.PreviewAttr`).
DICT = _passthrough("dict")
SCRATCH = _passthrough("scratch")
SYNCHRONIZATION = _passthrough("synchronization")


@dataclass(frozen=True)
class AttrConstraint:
    """What ODS checks of a present attribute, with its summary for
    ``attribute 'x' failed to satisfy constraint: <summary>``."""

    summary: str
    predicate: Callable[[Attribute], bool] = field(compare=False)

    def accepts(self, attr: Attribute) -> bool:
        return self.predicate(attr)


@dataclass(frozen=True)
class RegionConstraint:
    """ODS region constraint (``SizedRegion<1>``), for
    ``region #0 ('body') failed to verify constraint: <summary>``."""

    summary: str
    predicate: Callable[[Any], bool] = field(compare=False)

    def accepts(self, region: Any) -> bool:
        return self.predicate(region)


@dataclass(frozen=True)
class AttrDef:
    name: str
    kind: AttrKind
    default: Attribute | None = None
    optional: bool = False
    since: Version = V13_1
    constraint: AttrConstraint | None = None

    @property
    def is_unit(self) -> bool:
        return self.kind is UNIT_KIND


# ---- the op declaration --------------------------------------------------


@dataclass
class OpDef:
    """Everything about one op, declared once."""

    name: str                                  # short name: "addf", "testing$func"
    since: Version
    opcode: int | None
    group: str
    operands: tuple[OperandDef, ...] = ()
    results: tuple[ResultDef, ...] = ()
    attrs: tuple[AttrDef, ...] = ()
    region_names: tuple[str, ...] = ()
    #: Per region, its ODS constraint (None for ``AnyRegion``).
    region_constraints: tuple[RegionConstraint | None, ...] = ()
    #: The traits in declared order, each with its arguments (``AllTypesMatch(lhs,rhs)``):
    #: the verifier checks them in this order, as MLIR does.
    trait_list: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Declarative assembly format, or None when `custom` names hand-written syntax.
    format: str | None = None
    custom: str | None = None
    #: Groups of operand/result names that share one type (used to infer omitted types).
    same_type: tuple[tuple[str, ...], ...] = ()
    #: Printer hooks: result names and block argument names (OpAsmOpInterface).
    result_names: Callable[[Any], list[str | None]] | None = None
    block_arg_names: Callable[[Any, int], list[str]] | None = None
    #: Inside this op's regions, ops print without the ``cuda_tile.`` prefix.
    default_dialect: bool = False
    implicit_terminator: str | None = None
    dialect: str = "cuda_tile"
    summary: str = ""
    #: Older short names the parser still reads (13.3's ``pow`` for 13.4's ``fpowf``); an
    #: op parsed under one keeps it as its name, so it prints and is reported as written.
    aliases: tuple[str, ...] = ()
    parsed_format: Any = None                  # filled by the syntax layer on first use
    op_class: type | None = None

    @cached_property
    def traits(self) -> frozenset[str]:
        """The names of the op's traits (``"Terminator" in opdef.traits``)."""
        return frozenset(name for name, _ in self.trait_list)

    @property
    def regions(self) -> int:
        return len(self.region_names)

    def region_index(self, name: str) -> int | None:
        return self.region_names.index(name) if name in self.region_names else None

    @cached_property
    def full_name(self) -> str:
        """``dialect.name`` (kept until `name` or `dialect` is assigned)."""
        return f"{self.dialect}.{self.name}"

    def spells(self, full_name: str) -> bool:
        """Whether `full_name` (``cuda_tile.pow``) names this op, under its name or an alias."""
        return full_name == self.full_name or any(
            full_name == f"{self.dialect}.{a}" for a in self.aliases)

    # ---- field lookup --------------------------------------------------

    def operand_index(self, name: str) -> int:
        for i, operand in enumerate(self.operands):
            if operand.name == name:
                return i
        raise KeyError(f"'{self.name}' has no operand '{name}'")

    def result_index(self, name: str) -> int:
        for i, result in enumerate(self.results):
            if result.name == name:
                return i
        raise KeyError(f"'{self.name}' has no result '{name}'")

    def attr_def(self, name: str) -> AttrDef | None:
        """The declared attribute `name` (the first so named), or None."""
        return self.shape.attr_by_name.get(name)

    def attr_default(self, name: str) -> Attribute | None:
        attr = self.attr_def(name)
        return attr.default if attr is not None else None

    @property
    def needs_segments(self) -> bool:
        """Ops with several optional/variadic operands record group sizes
        (MLIR's AttrSizedOperandSegments)."""
        return len(self.shape.operand_variable) > 1

    def value_position(self, name: str) -> tuple[bool, int, bool] | None:
        """Where the operand or result group `name` is declared (operands first): whether
        it is an operand, its index, and whether every group of that list is single."""
        shape = self.shape
        index = shape.operand_index.get(name)
        if index is not None:
            return True, index, not shape.operand_variable
        index = shape.result_index.get(name)
        if index is not None:
            return False, index, not shape.result_variable
        return None

    def value_def(self, name: str) -> ValueDef | None:
        """The operand or result group declared `name` (operands first), or None."""
        where = self.value_position(name)
        if where is None:
            return None
        return (self.operands if where[0] else self.results)[where[1]]

    @cached_property
    def shape(self) -> "DeclShape":
        """Lookup tables derived from the declared operands, results and attributes, built
        once (the verifier, parser and printer ask per op); assigning one of those fields
        drops them (see `__setattr__`)."""
        return DeclShape(self.operands, self.results, self.attrs)

    @cached_property
    def derived(self) -> dict[str, Any]:
        """What other layers compile from this declaration, by their key (the verifier's
        plan of checks), built once; any field assigned empties it (see `__setattr__`)."""
        return {}

    def __setattr__(self, name: str, value: Any) -> None:
        """Set a field; a cached property derived from it (`shape`, `full_name`) is
        dropped, to be derived again, and so is everything in `derived`."""
        object.__setattr__(self, name, value)
        derived = _DERIVED_FROM.get(name)
        if derived is not None:
            self.__dict__.pop(derived, None)
        self.__dict__.pop("derived", None)

    # ---- splitting flat operand/result lists into declared groups ------------------------------

    def split_operands(self, op: Any) -> list[list[Any]]:
        """`op`'s operands grouped as declared (by its segment sizes where it needs them)."""
        variable = self.shape.operand_variable
        return _split(self.operands, op.operands, op.attributes.get("operandSegmentSizes"),
                      len(variable) > 1, variable)

    def split_results(self, op: Any) -> list[list[Any]]:
        """`op`'s results grouped as declared."""
        variable = self.shape.result_variable
        return _split(self.results, op.results, op.attributes.get("resultSegmentSizes"),
                      len(variable) > 1, variable)

    def value_group(self, op: Any, is_operand: bool, index: int) -> list[Any]:
        """Group `index` of `op`'s operands (or results) as `split_operands`
        (`split_results`) cuts it, without building the other groups."""
        shape = self.shape
        if is_operand:
            decls, values, variable = self.operands, op.operands, shape.operand_variable
            segments = op.attributes.get("operandSegmentSizes")
        else:
            decls, values, variable = self.results, op.results, shape.result_variable
            segments = op.attributes.get("resultSegmentSizes")
        sizes = _sizes(decls, len(values), segments, len(variable) > 1, variable)
        start = sum(sizes[:index])
        return list(values[start:start + sizes[index]])

    def segment_sizes(self, groups: Sequence[Sequence[Any]]) -> DenseArrayAttr:
        """The ``operandSegmentSizes`` of `groups`: one i32 size per group."""
        return DenseArrayAttr(I32_TYPE, tuple([len(g) for g in groups]))

    # ---- building --------------------------------------------------

    def build(self, operands: Sequence[Any], result_types: Sequence[Type],
              attributes: dict[str, Any], location: Any) -> Any:
        """An op of this kind from grouped operands and Python-valued attributes."""
        from ..ir import Operation, Region, Value
        if len(operands) > len(self.operands):
            raise ValueError(f"'{self.name}' takes {len(self.operands)} operand groups, "
                             f"got {len(operands)}")
        groups: list[list[Value]] = []
        for i, decl in enumerate(self.operands):
            given = operands[i] if i < len(operands) else None
            if given is None:
                group: list[Value] = []
            elif isinstance(given, Value):
                group = [given]
            else:
                group = list(given)
            if decl.arity == SINGLE and len(group) != 1:
                raise ValueError(f"'{self.name}' operand '{decl.name}' needs one value")
            if decl.arity == OPTIONAL and len(group) > 1:
                raise ValueError(f"'{self.name}' operand '{decl.name}' takes at most one value")
            groups.append(group)
        attrs: dict[str, Attribute] = {}
        for name, value in attributes.items():
            decl = self.attr_def(name)
            if decl is None:
                raise KeyError(f"'{self.name}' has no attribute '{name}'")
            if value is None or (value is False and decl.is_unit):
                continue
            attrs[name] = decl.kind.coerce(value)
        for decl in self.attrs:
            if decl.name not in attrs and decl.default is not None and not decl.optional:
                attrs[decl.name] = decl.default
        if self.needs_segments:
            attrs["operandSegmentSizes"] = self.segment_sizes(groups)
        cls = self.op_class or Operation
        op = cls.from_parts(self.full_name, [v for g in groups for v in g], result_types,
                            attrs, {}, location)
        for _ in range(self.regions):
            op.regions.append(Region(op))
        return op

    def infer_result_types(self, operands: Sequence[Any], attributes: dict[str, Any]
                           ) -> list[Type]:
        """Result types for the builder's sugar: from `same_type` groups only."""
        from ..ir import Value
        known: dict[str, Type] = {}
        for decl, given in zip(self.operands, operands):
            if isinstance(given, Value):
                known[decl.name] = given.type
        types = []
        for result in self.results:
            t = None
            for group in self.same_type:
                if result.name in group:
                    t = next((known[n] for n in group if n in known), None)
            if t is None and result.constraint.buildable is not None:
                t = result.constraint.buildable
            if t is None:
                raise ValueError(f"cannot infer the type of '{self.name}' result "
                                 f"'{result.name}'; pass result_types=")
            types.append(t)
        return types


def _position_by_name(decls: tuple) -> dict[str, int]:
    """Each declaration's index by its name (the first one so named)."""
    table: dict[str, int] = {}
    for i, decl in enumerate(decls):
        table.setdefault(decl.name, i)
    return table


def _variable_positions(decls: tuple) -> tuple[int, ...]:
    """The indices of the optional and variadic groups."""
    return tuple(i for i, d in enumerate(decls) if d.arity != SINGLE)


class DeclShape:
    """What `OpDef` derives from its declared fields, computed once per declaration."""

    __slots__ = ("operands", "results", "attrs", "operand_index", "result_index",
                 "operand_variable", "result_variable", "attr_by_name", "required_attrs")

    def __init__(self, operands: tuple, results: tuple, attrs: tuple) -> None:
        self.operands, self.results, self.attrs = operands, results, attrs
        self.operand_index = _position_by_name(operands)
        self.result_index = _position_by_name(results)
        self.operand_variable = _variable_positions(operands)
        self.result_variable = _variable_positions(results)
        self.attr_by_name = {decl.name: decl for decl in reversed(attrs)}
        #: Attributes that must be present: no default, not optional, not a unit flag.
        self.required_attrs = tuple(d.name for d in attrs if d.default is None and
                                    not d.optional and not d.is_unit)


def _split(decls: Sequence[Any], values: Sequence[Any], segments: Any,
           use_segments: bool, variable: Sequence[int] | None = None) -> list[list[Any]]:
    """`values` cut into one group per declaration (sizes by `_sizes`)."""
    if variable is None:
        variable = [i for i, d in enumerate(decls) if d.arity != SINGLE]
    if not variable and not use_segments:  # one value per group, the common case
        return [list(values[i:i + 1]) for i in range(len(decls))]
    groups, pos = [], 0
    for size in _sizes(decls, len(values), segments, use_segments, variable):
        groups.append(list(values[pos:pos + size]))
        pos += size
    return groups


def _sizes(decls: Sequence[Any], count: int, segments: Any, use_segments: bool,
           variable: Sequence[int]) -> list[int]:
    """The size of each declaration's group among `count` values: by `segments` where
    `use_segments` and they fit, else one value per single group and the rest to the
    variable ones (the positions `variable` lists)."""
    if use_segments and isinstance(segments, DenseArrayAttr) and \
            len(segments.values) == len(decls) and sum(segments.values) == count:
        return list(segments.values)
    sizes = [1] * len(decls)
    if not variable:
        return sizes
    spare = max(count - (len(decls) - len(variable)), 0)
    for i in variable:
        sizes[i] = 0
    if len(variable) == 1:
        sizes[variable[0]] = spare
    else:  # without segment sizes, fill optional groups first-come
        for i in variable:
            take = min(spare, 1 if decls[i].arity == OPTIONAL else spare)
            sizes[i] = take
            spare -= take
    return sizes


def unit_present(attrs: dict[str, Attribute], name: str) -> bool:
    return isinstance(attrs.get(name), UnitAttr)
