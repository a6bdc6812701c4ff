"""The op registry and the compact declaration helper `op()` the group files use."""

from __future__ import annotations

import re
import threading
from typing import Any, Callable

from ..attributes import EnumAttr, IntegerAttr
from ..enums import (AtomicRMWMode, ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
                     MemoryOrderingSemantics, MemoryScope, MultimemReductionKind, RoundingMode,
                     Signedness, SymbolVisibility)
from ..types import IntegerType
from ..versions import Version
from . import base
from .base import OPTIONAL, SINGLE, VARIADIC, AttrDef, OpDef, OperandDef, ResultDef
from .constraints import ATTR_CONSTRAINTS, CODES, REGION_CODES

_OPS: dict[str, OpDef] = {}
#: Held by the thread declaring the op groups (`_load`): another thread asking meanwhile
#: waits for the registry to be whole.  (`op` files without it: an op group imported
#: directly by another thread must not wait for the loader, which waits for that import.)
_LOCK = threading.RLock()

ATTR_KINDS: dict[str, base.AttrKind] = {
    "rounding": base.enum_kind(RoundingMode), "overflow": base.enum_kind(IntegerOverflow),
    "signedness": base.enum_kind(Signedness), "cmp_pred": base.enum_kind(ComparisonPredicate),
    "cmp_order": base.enum_kind(ComparisonOrdering),
    "mem_order": base.enum_kind(MemoryOrderingSemantics),
    "mem_scope": base.enum_kind(MemoryScope), "rmw_mode": base.enum_kind(AtomicRMWMode),
    "visibility": base.enum_kind(SymbolVisibility),
    "mm_reduction": base.enum_kind(MultimemReductionKind),
    "unit": base.UNIT_KIND, "str": base.STR, "i64": base.I64, "i32": base.I32,
    "i32nn": base.I32, "i64min0": base.I64,
    "bool": base.BOOL, "sym": base.SYMBOL_NAME, "symref": base.SYMBOL_REF,
    "i32arr": base.DENSE_I32_ARRAY, "boolarr": base.DENSE_BOOL_ARRAY, "array": base.ARRAY,
    "dense": base.DENSE,
    "type": base.TYPE, "hints": base.OPT_HINTS, "assume": base.ASSUME_PREDICATE,
    "dicts": base.DICT_ARRAY, "dict": base.DICT, "scratch": base.SCRATCH,
    "sync": base.SYNCHRONIZATION,
}


#: ``Name`` or ``Name(arg,arg)`` in a ``traits=`` string.
_TRAIT = re.compile(r"(\w+)(?:\(([^)]*)\))?")


def _regions(spec: str) -> tuple[tuple[str, ...], tuple[base.RegionConstraint | None, ...]]:
    """``body:sized elseRegion:max``: region names and their ODS constraints."""
    names, constraints = [], []
    for field in spec.split():
        name, _, code = field.partition(":")
        names.append(name)
        constraints.append(REGION_CODES[code] if code else None)
    return tuple(names), tuple(constraints)


def _same_type(trait_list: tuple[tuple[str, tuple[str, ...]], ...],
               operands: list[OperandDef], results: list[ResultDef], same: str
               ) -> tuple[tuple[str, ...], ...]:
    """The groups of operands and results that share one type, from which the parser infers
    the types a format omits: what the ``AllTypesMatch`` traits say, plus any `same` groups
    (``a,b;c,d``) no trait states."""
    values = [d.name for d in operands] + [d.name for d in results]
    groups: list[tuple[str, ...]] = []
    for name, args in trait_list:
        if name == "AllTypesMatch":
            groups.append(tuple(a for a in args if a in values))
    groups += [tuple(g.split(",")) for g in same.split(";") if g]
    return tuple(g for g in groups if len(g) > 1)


def _implicit_terminator(trait_list: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    """The terminator the custom syntax leaves out: the first one that
    ``SingleBlockImplicitTerminator(...)`` names."""
    for name, args in trait_list:
        if name == "SingleBlockImplicitTerminator" and args:
            return args[0]
    return None


def _version(text: str) -> Version:
    major, minor = text.split(".")
    return Version(int(major), int(minor))


def _field(spec: str, default_since: Version) -> tuple[str, str, str, Version, str | None]:
    """``name:code[?|*][=default][@version]`` split into its parts."""
    since = default_since
    if "@" in spec:
        spec, version = spec.split("@")
        since = _version(version)
    default = None
    if "=" in spec:
        spec, default = spec.split("=", 1)
    name, code = spec.split(":")
    arity = SINGLE
    if code.endswith("?"):
        code, arity = code[:-1], OPTIONAL
    elif code.endswith("*"):
        code, arity = code[:-1], VARIADIC
    return name, code, arity, since, default


def _default(kind: base.AttrKind, text: str):
    enum_type = getattr(kind, "enum_type", None)
    if enum_type is not None:
        return EnumAttr(enum_type.from_keyword(text))
    bits = {"i64": 64, "i32": 32}[kind.name]
    return IntegerAttr(int(text), IntegerType(bits))


def op(name: str, since: str, opcode: int | None, group: str, *, operands: str = "",
       results: str = "", attrs: str = "", regions: str = "", traits: str = "",
       format: str | None = None, custom: str | None = None, same: str = "",
       names: Callable[[Any], list[str | None]] | None = None,
       arg_names: Callable[[Any, int], list[str]] | None = None,
       default_dialect: bool = False,
       summary: str = "", dialect: str = "cuda_tile", aliases: str = "") -> OpDef:
    """Declare and register one op."""
    version = _version(since)
    operand_defs = []
    for spec in operands.split():
        n, code, arity, v, _ = _field(spec, version)
        operand_defs.append(OperandDef(n, CODES[code], arity, v))
    result_defs = []
    for spec in results.split():
        n, code, arity, v, _ = _field(spec, version)
        result_defs.append(ResultDef(n, CODES[code], arity, v))
    trait_list = tuple((m.group(1), tuple(a for a in (m.group(2) or "").split(",") if a))
                       for m in _TRAIT.finditer(traits))
    attr_defs = []
    for spec in attrs.split():
        n, code, arity, v, default = _field(spec, version)
        kind = ATTR_KINDS[code]
        attr_defs.append(AttrDef(n, kind, _default(kind, default) if default else None,
                                 arity == OPTIONAL, v, ATTR_CONSTRAINTS.get(code)))
    region_names, region_constraints = _regions(regions)
    definition = OpDef(
        name=name, since=version, opcode=opcode, group=group, operands=tuple(operand_defs),
        results=tuple(result_defs), attrs=tuple(attr_defs), region_names=region_names,
        region_constraints=region_constraints,
        trait_list=trait_list,
        format=format, custom=custom,
        same_type=_same_type(trait_list, operand_defs, result_defs, same),
        result_names=names, block_arg_names=arg_names, default_dialect=default_dialect,
        implicit_terminator=_implicit_terminator(trait_list), summary=summary,
        dialect=dialect,
        aliases=tuple(aliases.split()))
    for spelled in (name,) + definition.aliases:
        _OPS[f"{dialect}.{spelled}"] = definition
        _OPS.setdefault(spelled, definition)
    return definition


def lookup(name: str) -> OpDef | None:
    """The declaration of ``addf`` / ``cuda_tile.addf``, or None."""
    _load()
    return _OPS.get(name)


def all_ops() -> list[OpDef]:
    """Every registered op (each once), in name order."""
    _load()
    unique = {d.full_name: d for d in list(_OPS.values())}   # (a copy: `op` may file more)
    return [unique[k] for k in sorted(unique)]


#: Every op group is declared and every op has its class (set last, under `_LOCK`).
_loaded = False
#: The thread holding `_LOCK` in `_load` is declaring the op groups.
_loading = False


def _load() -> None:
    """Declare every op group, once.  Safe from several threads at once: `_loaded` is set
    only when the registry is whole, so a thread that finds it unset waits for the lock
    and then finds the work done; the loading thread itself, asking again while it loads,
    gets the registry as filled so far."""
    global _loaded, _loading
    if _loaded:
        return
    with _LOCK:
        if _loaded or _loading:
            return
        _loading = True
        try:
            from . import (atomics, bitwise, control_flow, conversion, core,  # noqa: F401
                           floating_point, integer, memory, misc, preview, testing,
                           views)
            from .classes import make_op_classes
            make_op_classes(list(_OPS.values()))
            _loaded = True
        finally:
            _loading = False
