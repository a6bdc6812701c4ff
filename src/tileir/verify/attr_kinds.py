"""The ODS constraint of every attribute kind the op tables leave unconstrained: what MLIR's
generated verifier checks of a present attribute before any hand-written verifier runs
(``attribute 'x' failed to satisfy constraint: <summary>``).

Summaries are MLIR's: the builtin ones from CommonAttrConstraints.td, enum attributes'
from the enum's description in the reference AttrDefs.td (an I32 enum without one gets
ODS's ``allowed 32-bit signless integer cases: ...``), attribute definitions without a
summary the empty one, and attribute interfaces ``<Interface> instance``.
"""

from __future__ import annotations

from typing import Callable

from ..attributes import (ASSUME_PREDICATES, ArrayAttr, Attribute, DenseElementsAttr,
                          DictAttr, EnumAttr, OptimizationHintsAttr, StringAttr,
                          SymbolRefAttr, TypeAttr, UnitAttr)
from ..preview import PreviewAttr
from ..enums import (AtomicRMWMode, ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
                     MemoryOrderingSemantics, MemoryScope, MultimemReductionKind, PaddingValue,
                     RoundingMode, Signedness, SymbolVisibility)
from ..ops.base import AttrConstraint, AttrDef
from ..types import FunctionType

#: Each enum's ODS summary (its I32EnumAttr description).
ENUM_SUMMARIES: dict[type, str] = {
    Signedness: "signedness",
    IntegerOverflow: "integer overflow",
    RoundingMode: "rounding mode",
    ComparisonOrdering: "comparison_ordering",
    ComparisonPredicate: "cmp_predicate",
    MemoryScope: "memory scope",
    MemoryOrderingSemantics: "memory ordering semantics",
    AtomicRMWMode: "allowed 32-bit signless integer cases: "
                   + ", ".join(str(int(m)) for m in AtomicRMWMode),
    SymbolVisibility: "symbol visibility",
    PaddingValue: "load padding value for out of bound access",
    # 13.5 (NVIDIA's 13.5 tools' words).
    MultimemReductionKind: "reduction operator for multimem load-reduce and multimem atomic "
                           "reduce",
}


def _is(cls: type | tuple[type, ...]) -> Callable[[Attribute], bool]:
    """The predicate "is an instance of `cls`"."""
    return lambda attr: isinstance(attr, cls)


def _dict_array(attr: Attribute) -> bool:
    """ODS ``DictArrayAttr``: an array whose every element is a dictionary."""
    return isinstance(attr, ArrayAttr) and all(isinstance(e, DictAttr) for e in attr.elements)


def _function_type(attr: Attribute) -> bool:
    """ODS ``TypeAttrOf<FunctionType>``."""
    return isinstance(attr, TypeAttr) and isinstance(attr.value, FunctionType)


#: Per attribute kind (``AttrKind.name``) without a constraint in the op tables, its ODS one.
KIND_CONSTRAINTS: dict[str, AttrConstraint] = {
    "unit": AttrConstraint("unit attribute", _is(UnitAttr)),
    "symbol_name": AttrConstraint("string attribute", _is(StringAttr)),
    "symbol_ref": AttrConstraint("flat symbol reference attribute", _is(SymbolRefAttr)),
    "dense": AttrConstraint("An Attribute containing a dense multi-dimensional array of values",
                            _is(DenseElementsAttr)),
    "type": AttrConstraint("any type attribute", _is(TypeAttr)),
    "optimization_hints": AttrConstraint("", _is(OptimizationHintsAttr)),
    "assume_predicate": AttrConstraint("AssumePredicateAttrInterface instance",
                                       _is(ASSUME_PREDICATES)),
    "dict_array": AttrConstraint("Array of dictionary attributes", _dict_array),
    "dict": AttrConstraint("dictionary of named attribute values", _is(DictAttr)),
    "scratch": AttrConstraint("scratch request", lambda a: _preview(a, "scratch_request")),
    "synchronization": AttrConstraint("synchronization scope",
                                      lambda a: _preview(a, "synchronization")),
}


def _preview(attr: Attribute, mnemonic: str) -> bool:
    """Whether `attr` is the 13.5 preview attribute `mnemonic`."""
    return isinstance(attr, PreviewAttr) and attr.mnemonic == mnemonic


#: Per (attribute kind, attribute name), a constraint narrower than the kind's.
NAMED_CONSTRAINTS: dict[tuple[str, str], AttrConstraint] = {
    ("type", "function_type"): AttrConstraint("type attribute of function type",
                                              _function_type),
}


def _enum_constraint(enum_type: type) -> AttrConstraint:
    """An enum attribute of `enum_type` (a valid case: the parser keeps others as integers)."""
    return AttrConstraint(ENUM_SUMMARIES[enum_type],
                          lambda a: isinstance(a, EnumAttr) and type(a.value) is enum_type)


#: Per enum type, the constraint of its attribute.
ENUM_CONSTRAINTS: dict[type, AttrConstraint] = {
    enum_type: _enum_constraint(enum_type) for enum_type in ENUM_SUMMARIES}


def constraint_of(decl: AttrDef) -> AttrConstraint | None:
    """The ODS constraint a present attribute declared by `decl` must meet."""
    if decl.constraint is not None:
        return decl.constraint
    enum_type = getattr(decl.kind, "enum_type", None)
    if enum_type is not None:
        return ENUM_CONSTRAINTS.get(enum_type)
    named = NAMED_CONSTRAINTS.get((decl.kind.name, decl.name))
    return named if named is not None else KIND_CONSTRAINTS.get(decl.kind.name)
