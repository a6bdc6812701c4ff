"""Op records: the layout of one op in a function body, derived from its declaration.

The layout follows the reference's generated codec: opcode; result types (a count first
when the op has a variadic operand or result); a flags varint for optional fields;
attributes in declaration order; operands; regions.  Every field carries the release
that introduced it, and `Layout` decides per target version what is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..attributes import Attribute, DenseArrayAttr
from ..ops.base import OPTIONAL, VARIADIC, AttrDef, OpDef, ValueDef
from ..ops.registry import all_ops
from ..types import IntegerType
from ..versions import Version

#: Attributes a 13.4 file always writes, even when absent from the text: the value the
#: reference's parser fills in (``inbounds``: all false, one per index operand).
ALWAYS_WRITTEN = frozenset({"inbounds"})


@dataclass(frozen=True)
class FlagField:
    """One bit of an op's flags varint: an optional attribute or an optional operand."""

    kind: str            # "attr" or "operand"
    name: str
    since: Version
    bit: int


@dataclass(frozen=True)
class Layout:
    """How an op's record is laid out, from its declaration."""

    opdef: OpDef
    #: A result count comes first (the op has a variadic operand or result).
    counted: bool
    #: Operands are written group by group (AttrSizedOperandSegments).
    segmented: bool
    flags: tuple[FlagField, ...]
    #: The earliest release of any flag field: no flags varint is written before it.
    flags_since: Version | None
    #: The attributes a flag bit marks present (the others are always in the record).
    flagged_attrs: frozenset[str]

    def has_flags(self, version: Version) -> bool:
        return self.flags_since is not None and version >= self.flags_since


def _flag_attr(attr: AttrDef) -> bool:
    return (attr.optional or attr.is_unit) and attr.name not in ALWAYS_WRITTEN


_LAYOUTS: dict[str, Layout] = {}


def layout(opdef: OpDef) -> Layout:
    """The record layout of `opdef` (cached: declarations never change)."""
    found = _LAYOUTS.get(opdef.full_name)
    if found is None:  # (threads racing here all get the one `setdefault` keeps)
        found = _LAYOUTS.setdefault(opdef.full_name, _derive(opdef))
    return found


def _derive(opdef: OpDef) -> Layout:
    values: tuple[ValueDef, ...] = opdef.operands + opdef.results
    counted = any(v.arity == VARIADIC for v in values)
    segmented = "AttrSizedOperandSegments" in opdef.traits
    candidates = [("attr", a.name, a.since) for a in opdef.attrs if _flag_attr(a)]
    if segmented:
        candidates += [("operand", o.name, o.since) for o in opdef.operands
                       if o.arity == OPTIONAL]
    # Stable sort by release: within one release, attributes keep precedence.
    ordered = sorted(candidates, key=lambda c: c[2])
    flags = tuple(FlagField(kind, name, since, bit)
                  for bit, (kind, name, since) in enumerate(ordered))
    since = min((f.since for f in flags), default=None)
    flagged_attrs = frozenset(f.name for f in flags if f.kind == "attr")
    return Layout(opdef, counted, segmented, flags, since, flagged_attrs)


@lru_cache(maxsize=1)
def _by_opcode() -> dict[int, OpDef]:
    return {d.opcode: d for d in all_ops() if d.opcode is not None}


def opdef_for_opcode(opcode: int) -> OpDef | None:
    """The op an opcode names (None when no op has it)."""
    return _by_opcode().get(opcode)


def inbounds_default(op, groups: list | None = None) -> DenseArrayAttr:
    """All-false ``inbounds``, one per index operand (the 13.4 parser's default);
    `groups` are the op's operand groups where the caller has them."""
    index = groups[op.opdef.operand_index("index")] if groups is not None \
        else op.operand_group("index")
    return DenseArrayAttr(IntegerType(1), (0,) * len(index))


def written_attr(op, attr: AttrDef, groups: list | None = None) -> Attribute | None:
    """The value a record stores for a required attribute: the op's, else its default
    (`groups`: the op's operand groups, where the caller has them)."""
    value = op.attributes.get(attr.name)
    if value is None and attr.name == "inbounds":
        return inbounds_default(op, groups)
    return value if value is not None else attr.default


def is_default(attr: AttrDef, value: Attribute | None) -> bool:
    """Whether `value` says nothing beyond the attribute's default (so an older version
    that lacks the attribute loses nothing)."""
    if value is None or value == attr.default:
        return True
    if isinstance(value, DenseArrayAttr) and attr.name in ALWAYS_WRITTEN:
        return not any(value.values)
    return False


__all__ = ["ALWAYS_WRITTEN", "FlagField", "Layout", "inbounds_default", "is_default", "layout",
           "opdef_for_opcode", "written_attr"]
