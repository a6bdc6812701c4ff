"""The checks behind the traits an op declaration names, with MLIR's messages.

Two tables, because MLIR runs them at two moments: `PREDICATES` are ODS ``PredOpTrait``s
(``AllTypesMatch<[...]>`` and kin), checked with the generated invariants right after the
operand and result types; `NATIVE` are C++ traits, checked after all the invariants.
A trait with arguments is written ``Name(a,b,c)`` in the declaration's ``traits=``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..types import TileType, Type
from .registry import Failure, error_at, note_at, op_error


def _values(op: Any, names: Sequence[str]) -> list[Any]:
    found = []
    for name in names:
        group = op.values_named(name)
        found.extend(group or [])
    return found


def _all_match(what: str, key: Callable[[Type], Any], article: str = ""
               ) -> Callable[[Any, Sequence[str]], None]:
    def check(op: Any, names: Sequence[str]) -> None:
        keys = [key(v.type) for v in _values(op, names)]
        if any(k != keys[0] for k in keys[1:]):
            raise op_error(op, f"failed to verify that all of {{{', '.join(names)}}} "
                               f"have {article}{what}")
    return check


def _shape(t: Type) -> Any:
    return t.shape if isinstance(t, TileType) else getattr(t, "shape", None)


def _rank(t: Type) -> Any:
    shape = _shape(t)
    return len(shape) if shape is not None else None


def element_type(t: Type) -> Type:
    """MLIR's getElementTypeOrSelf."""
    return t.element_type if isinstance(t, TileType) else t


PREDICATES: dict[str, Callable[[Any, Sequence[str]], None]] = {
    "AllTypesMatch": _all_match("same type", lambda t: t),
    "AllShapesMatch": _all_match("same shape", _shape),
    "AllRanksMatch": _all_match("same rank", _rank),
    "AllElementTypeMatch": _all_match("same element type", element_type, "the "),
}


def _same(what: str, key: Callable[[Type], Any], results: bool
          ) -> Callable[[Any, Sequence[str]], None]:
    scope = "all operands and results" if results else "all operands"

    def check(op: Any, names: Sequence[str]) -> None:
        values = list(op.operands) + (list(op.results) if results else [])
        keys = [key(v.type) for v in values]
        if any(k != keys[0] for k in keys[1:]):
            raise op_error(op, f"requires the same {what} for {scope}")
    return check


def _same_type_operands(op: Any, names: Sequence[str]) -> None:
    types = [v.type for v in op.operands]
    if any(t != types[0] for t in types[1:]):
        raise op_error(op, "requires all operands to have the same type")


NATIVE: dict[str, Callable[[Any, Sequence[str]], None]] = {
    "SameOperandsAndResultType": _same("type", lambda t: t, True),
    "SameOperandsAndResultShape": _same("shape", _shape, True),
    "SameOperandsShape": _same("shape", _shape, False),
    "SameOperandsAndResultElementType": _same("element type", element_type, True),
    "SameOperandsElementType": _same("element type", element_type, False),
    "SameTypeOperands": _same_type_operands,
}


def _parent_one_of(op: Any, names: Sequence[str]) -> None:
    parent = op.parent_op
    full = [f"cuda_tile.{n}" for n in names]
    if parent is None or parent.name not in full:
        if len(full) == 1:
            raise op_error(op, f"expects parent op '{full[0]}'")
        raise op_error(op, f"expects parent op to be one of '{', '.join(full)}'")


def _terminator(op: Any, names: Sequence[str]) -> None:
    block = op.parent
    if block is not None and block.operations[-1] is not op:
        raise op_error(op, "must be the last operation in the parent block")


NATIVE.update({"ParentOneOf": _parent_one_of, "HasParent": _parent_one_of,
               "Terminator": _terminator})


def _symbol_table(op: Any, names: Sequence[str]) -> None:
    """Symbols defined directly in the op's body are unique."""
    seen: dict[str, Any] = {}
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                name = child.attributes.get("sym_name")
                if name is None:
                    continue
                key = getattr(name, "value", name)
                if key in seen:
                    raise error_at(child, f"redefinition of symbol named '{key}'",
                                   [note_at(seen[key], "see existing symbol definition here")])
                seen[key] = child


#: Checked after the op's regions verified (MLIR's verifyRegionTrait).
REGION: dict[str, Callable[[Any, Sequence[str]], None]] = {"SymbolTable": _symbol_table}


def run(table: dict[str, Callable[[Any, Sequence[str]], None]], op: Any,
        traits: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    """Run the traits of `traits` (in declared order) that `table` knows."""
    for name, args in traits:
        check = table.get(name)
        if check is not None:
            check(op, args)


__all__ = ["NATIVE", "PREDICATES", "Failure", "element_type", "run"]
