"""One Python class per op declaration (``AddF``, ``LoadViewTko``), with named accessors."""

from __future__ import annotations

from typing import Iterable

from ..ir import Operation
from .base import SINGLE, OpDef


def class_name(op_name: str) -> str:
    """``load_view_tko`` -> ``LoadViewTko``; ``testing$func`` -> ``TestingFunc``."""
    return "".join(part[:1].upper() + part[1:] for part in op_name.replace("$", "_").split("_"))


def _operand_property(index: int, single: bool) -> property:
    def get(self: Operation):
        group = self.operand_groups()[index]
        if single:
            return group[0] if group else None
        return group
    return property(get)


def _result_property(index: int, single: bool) -> property:
    def get(self: Operation):
        group = self.opdef.split_results(self)[index]  # type: ignore[union-attr]
        if single:
            return group[0] if group else None
        return group
    return property(get)


def _attr_property(name: str) -> property:
    return property(lambda self: self.attr(name))


#: Field names that would hide the Operation's own attributes keep only group accessors.
_RESERVED = {"name", "operands", "results", "attributes", "discardable", "regions",
             "location", "parent", "opdef", "result"}


def _add(namespace: dict[str, object], name: str, value: property) -> None:
    if name not in _RESERVED and not hasattr(Operation, name):
        namespace.setdefault(name, value)


def make_op_classes(defs: Iterable[OpDef]) -> None:
    """Create and attach the class of each declaration (once)."""
    from ..ir import Module
    for definition in defs:
        if definition.op_class is not None:
            continue
        if definition.full_name == "cuda_tile.module":
            definition.op_class = Module
            Module.opdef = definition
            continue
        namespace: dict[str, object] = {"opdef": definition,
                                        "__doc__": definition.summary or definition.name}
        for i, operand in enumerate(definition.operands):
            _add(namespace, operand.name, _operand_property(i, operand.arity != "variadic"))
        for i, result in enumerate(definition.results):
            _add(namespace, result.name, _result_property(i, result.arity == SINGLE))
        for attr in definition.attrs:
            _add(namespace, attr.name, _attr_property(attr.name))
        definition.op_class = type(class_name(definition.name), (Operation,), namespace)
