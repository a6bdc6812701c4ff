"""The checks behind the traits an op declaration names, with MLIR's messages.

MLIR verifies an op's traits at three moments, hence three tables run by the engine:

- `STRUCTURAL`: the native traits ODS marks structural (``Terminator``, ``ParentOneOf``,
  ``SingleBlock``, ``NoRegionArguments``), checked
  right after the operand/result/region counts and before the generated invariants;
- `PREDICATES`: ODS ``PredOpTrait``s (``AllTypesMatch<[...]>``, ``TypesMatchWith`` and
  kin), checked inside the generated invariants after the operand and result type
  constraints (and before the region constraints);
- `NATIVE`: the other C++ traits (``SameOperandsAndResultShape`` ...), checked after all
  the invariants.

A trait with arguments is written ``Name(a,b,c)`` in the declaration's ``traits=``.
`REGION` holds the traits checked after the op's regions verified (``SymbolTable``,
``SingleBlockImplicitTerminator``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..attributes import StringAttr
from ..ops.base import VARIADIC
from ..types import I1, FunctionType, PointerType, TileType, Type
from .registry import Failure, error_at, note_at, op_error

Check = Callable[[Any, Sequence[str]], None]

#: What ``$name.getType()`` gives for an optional operand that is absent.
_ABSENT = object()


def element_type(t: Type) -> Type:
    """MLIR's getElementTypeOrSelf."""
    return t.element_type if isinstance(t, TileType) else t


def _shape(t: Type) -> Any:
    """A shaped type's shape (None for others)."""
    return t.shape if isinstance(t, TileType) else getattr(t, "shape", None)


def _rank(t: Type) -> Any:
    """A shaped type's rank (None for others)."""
    shape = _shape(t)
    return len(shape) if shape is not None else None


# ---- ODS predicate traits --------------------------------------------------


def _type_of(op: Any, name: str) -> Any:
    """ODS's ``$name.getType()``: a value's type, a variadic group's types, a typed
    attribute's type; `_ABSENT` for an absent optional operand."""
    shape = op.opdef.shape
    index = shape.operand_index.get(name)
    if index is not None:
        if not shape.operand_variable:
            # Single groups only: group i is value i (as `Operation.values_named` cuts them).
            operands = op.operands
            return operands[index].type if index < len(operands) else _ABSENT
    elif not shape.result_variable:
        index = shape.result_index.get(name)
        if index is not None:
            results = op.results
            return results[index].type if index < len(results) else _ABSENT
    decl = op.opdef.value_def(name)
    if decl is None:
        attr = op.attributes.get(name)
        return getattr(attr, "type", _ABSENT) if attr is not None else _ABSENT
    group = op.values_named(name) or []
    if decl.arity == VARIADIC:
        return tuple(v.type for v in group)
    return group[0].type if group else _ABSENT


def _lift(key: Callable[[Type], Any]) -> Callable[[Any], Any]:
    """Apply `key` to a type, or to each type of a variadic group's types."""
    return lambda t: tuple(key(x) for x in t) if isinstance(t, tuple) else key(t)


def _all_match(what: str, key: Callable[[Type], Any]) -> Check:
    """MLIR's ``AllMatchSameOperatorTrait``: "failed to verify that all of {..} have <what>"."""
    lifted = _lift(key)

    def check(op: Any, names: Sequence[str]) -> None:
        first: Any = _ABSENT
        for name in names:
            t = _type_of(op, name)
            if t is _ABSENT:
                continue
            if first is _ABSENT:
                first = lifted(t)
            elif lifted(t) != first:
                raise op_error(op, f"failed to verify that all of {{{', '.join(names)}}} "
                                   f"have {what}")

    def check_single(op: Any, argument: tuple) -> None:
        """`check` where every name is a single operand or result: `places` says where
        each value sits (an absent one counts as `_type_of`'s absent)."""
        places, names = argument
        first: Any = _ABSENT
        for is_operand, index in places:
            values = op.operands if is_operand else op.results
            if index >= len(values):
                continue
            found = key(values[index].type)
            if first is _ABSENT:
                first = found
            elif found is not first and found != first:  # (`is`: shared type objects)
                raise op_error(op, f"failed to verify that all of {{{', '.join(names)}}} "
                                   f"have {what}")

    def compile_(opdef: Any, names: Sequence[str]) -> tuple[Callable, Any] | None:
        """`check_single` and where each name's value sits, when every name is an operand
        or result of a declaration without optional or variadic groups (None otherwise)."""
        places = []
        for name in names:
            where = opdef.value_position(name)
            if where is None or not where[2]:
                return None
            places.append(where[:2])
        return check_single, (tuple(places), tuple(names))

    check.compile = compile_  # type: ignore[attr-defined]
    return check


@dataclass(frozen=True)
class TypeRelation:
    """A ``TypesMatchWith`` transform/comparator pair, with its summary template
    (``{from_}`` and ``{to}`` name the two compared values)."""

    summary: str
    holds: Callable[[Type, Type], bool]


def _i1_same_shape(source: Type, result: Type) -> bool:
    """getI1SameShape(source) == result."""
    return isinstance(source, TileType) and result == TileType(source.shape, I1)


def _pointers_to(tile: Type, pointers: Type) -> bool:
    """verifyLoadStoreType: `pointers` is a tile of pointers to `tile`'s elements, same shape."""
    return (isinstance(tile, TileType) and isinstance(pointers, TileType)
            and isinstance(pointers.element_type, PointerType)
            and pointers.shape == tile.shape
            and pointers.element_type.pointee == tile.element_type)


def _same_tile_shape(a: Type, b: Type) -> bool:
    """verifyLoadStoreMask: two tiles of one shape."""
    return isinstance(a, TileType) and isinstance(b, TileType) and a.shape == b.shape


def _same_tile(a: Type, b: Type) -> bool:
    """verifyLoadPadding: two tiles of one shape and element type."""
    return _same_tile_shape(a, b) and a.element_type == b.element_type


#: The relations ``TypesMatchWith(from,to,relation)`` names, as the reference declares them.
TYPE_RELATIONS: dict[str, TypeRelation] = {
    "i1_same_shape": TypeRelation(
        "Result type has i1 element type and same shape as operands", _i1_same_shape),
    "pointer_of": TypeRelation(
        "`{to}` type is expected a pointer type of `{from_}` type", _pointers_to),
    "same_shape": TypeRelation(
        "shape of '{to}' must match the shape of '{from_}'", _same_tile_shape),
    "same_tile": TypeRelation(
        "type of '{to}' must match the type of '{from_}'", _same_tile),
}


def _types_match_with(op: Any, args: Sequence[str]) -> None:
    """ODS ``TypesMatchWith`` / ``OptionalTypesMatchWith``: relation(from, to) holds;
    an absent optional side makes it hold."""
    from_, to, name = args
    relation = TYPE_RELATIONS[name]
    a, b = _type_of(op, from_), _type_of(op, to)
    if a is _ABSENT or b is _ABSENT:
        return
    if not relation.holds(a, b):
        raise op_error(op, "failed to verify that "
                           + relation.summary.format(from_=from_, to=to))


PREDICATES: dict[str, Check] = {
    "AllTypesMatch": _all_match("same type", lambda t: t),
    "AllShapesMatch": _all_match("same shape", _shape),
    "AllRanksMatch": _all_match("same rank", _rank),
    # cuda_tile's AllElementTypeMatch<"all of {..} have the same element type", [..]>.
    "AllElementTypeMatch": _all_match("the same element type", element_type),
    "TypesMatchWith": _types_match_with,
    "OptionalTypesMatchWith": _types_match_with,
}

# ---- native traits --------------------------------------------------


def _at_least_one(op: Any, what: str, values: Sequence[Any]) -> None:
    """MLIR's verifyAtLeastNOperands/Results(op, 1)."""
    if not values:
        raise op_error(op, f"expected 1 or more {what}s, but found 0")


def _same(what: str, key: Callable[[Type], Any], results: bool) -> Check:
    """SameOperands[AndResult]{Shape,ElementType,Type}: at least one operand (and result),
    all agreeing on `key`."""
    scope = "all operands and results" if results else "all operands"

    def check(op: Any, names: Sequence[str]) -> None:
        _at_least_one(op, "operand", op.operands)
        if results:
            _at_least_one(op, "result", op.results)
        values = list(op.operands) + (list(op.results) if results else [])
        keys = [key(v.type) for v in values]
        if any(k != keys[0] for k in keys[1:]):
            raise op_error(op, f"requires the same {what} for {scope}")
    return check


def _attribute_count(op: Any, name: str, what: str, expected: int) -> None:
    """function_interface_impl: an ``arg_attrs``/``res_attrs`` array has one dictionary per
    argument (result)."""
    attrs = op.attributes.get(name)
    count = len(getattr(attrs, "elements", ()))
    if attrs is not None and count != expected:
        raise op_error(op, f"expects {what} attribute array to have the same number of "
                           f"elements as the number of function {what}s, got {count}, but "
                           f"expected {expected}")


def _function_interface(op: Any, names: Sequence[str]) -> None:
    """FunctionOpInterface's verifier: argument and result attribute arrays sized to the
    signature; a body's entry block takes the signature's argument types."""
    signature = op.attributes.get("function_type")
    signature = getattr(signature, "value", None)
    if not isinstance(signature, FunctionType):
        return
    _attribute_count(op, "arg_attrs", "argument", len(signature.inputs))
    _attribute_count(op, "res_attrs", "result", len(signature.results))
    for name, what in (("arg_attrs", "arguments"), ("res_attrs", "results")):
        for entry in getattr(op.attributes.get(name), "elements", ()):
            if any("." not in key for key, _ in getattr(entry, "entries", ())):
                raise op_error(op, f"{what} may only have dialect attributes")
    if not op.regions or not op.regions[0].blocks:
        return  # an external function: no body to check
    arguments = op.regions[0].blocks[0].arguments
    if len(arguments) != len(signature.inputs):
        raise op_error(op, f"entry block must have {len(signature.inputs)} arguments to match "
                           "function signature")
    for index, (argument, expected) in enumerate(zip(arguments, signature.inputs)):
        if argument.type != expected:
            raise op_error(op, f"type of entry block argument #{index}({argument.type}) must "
                               "match the type of the corresponding argument in function "
                               f"signature({expected})")


NATIVE: dict[str, Check] = {
    "FunctionOpInterface": _function_interface,
    "SameOperandsAndResultShape": _same("shape", _shape, True),
    "SameOperandsShape": _same("shape", _shape, False),
    "SameOperandsAndResultElementType": _same("element type", element_type, True),
}

# ---- structural traits --------------------------------------------------


def _full(name: str) -> str:
    """``for`` -> ``cuda_tile.for``."""
    return name if "." in name else f"cuda_tile.{name}"


def _parent_one_of(op: Any, names: Sequence[str]) -> None:
    """HasParent / ParentOneOf: the op sits directly in one of the named ops."""
    parent = op.parent_op
    full = [_full(n) for n in names]
    if parent is None or parent.name not in full:
        if len(full) == 1:
            raise op_error(op, f"expects parent op '{full[0]}'")
        raise op_error(op, f"expects parent op to be one of '{', '.join(full)}'")


def _terminator(op: Any, names: Sequence[str]) -> None:
    """IsTerminator: the op ends its block (a top-level op ends the implicit module's)."""
    block = op.parent
    if block is not None and block.operations[-1] is not op:
        raise op_error(op, "must be the last operation in the parent block")


def _single_block(op: Any, names: Sequence[str]) -> None:
    """SingleBlock: each region has at most one block, non-empty unless NoTerminator."""
    for index, region in enumerate(op.regions):
        if not region.blocks:
            continue
        if len(region.blocks) != 1:
            raise op_error(op, f"expects region #{index} to have 0 or 1 blocks")
        if "NoTerminator" not in op.opdef.traits and not region.blocks[0].operations:
            raise op_error(op, "expects a non-empty block")


def _implicit_terminator(op: Any, names: Sequence[str]) -> None:
    """SingleBlockImplicitTerminator, checked after the body verified (MLIR's
    verifyRegionTrait): SingleBlock, and each block ends with one of `names` (the first is
    the one the parser inserts); the note points at the op, as MLIR's attachNote()."""
    _single_block(op, names)
    allowed = [_full(n) for n in names]
    for region in op.regions:
        if not region.blocks:
            continue
        last = region.blocks[0].operations[-1]
        if last.name not in allowed:
            raise op_error(op, f"expects regions to end with '{allowed[0]}', found "
                               f"'{last.name}'",
                           [note_at(op, "in custom textual format, the absence of "
                                        f"terminator implies '{allowed[0]}'")])


def _no_region_arguments(op: Any, names: Sequence[str]) -> None:
    """NoRegionArguments: no region's entry block takes arguments."""
    for index, region in enumerate(op.regions):
        if region.blocks and region.blocks[0].arguments:
            if len(op.regions) > 1:
                raise op_error(op, f"region #{index} should have no arguments")
            raise op_error(op, "region should have no arguments")


STRUCTURAL: dict[str, Check] = {
    "ParentOneOf": _parent_one_of, "Terminator": _terminator,
    "SingleBlock": _single_block, "NoRegionArguments": _no_region_arguments,
}

# ---- region traits --------------------------------------------------


def _symbol_table(op: Any, names: Sequence[str]) -> None:
    """MLIR's verifySymbolTable: one region of one block, whose ops' string ``sym_name``s
    (inherent or not) are unique."""
    if len(op.regions) != 1:
        raise op_error(op, "Operations with a 'SymbolTable' must have exactly one region")
    if len(op.regions[0].blocks) != 1:
        raise op_error(op, "Operations with a 'SymbolTable' must have exactly one block")
    seen: dict[str, Any] = {}
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                name = child.attributes.get("sym_name", child.discardable.get("sym_name"))
                if not isinstance(name, StringAttr):
                    continue
                key = name.value
                if key in seen:
                    raise error_at(child, f"redefinition of symbol named '{key}'",
                                   [note_at(seen[key], "see existing symbol definition here")])
                seen[key] = child


#: Checked after the op's regions verified (MLIR's verifyRegionTrait).
REGION: dict[str, Check] = {"SymbolTable": _symbol_table,
                            "SingleBlockImplicitTerminator": _implicit_terminator}


def compiled(table: dict[str, Check], name: str, args: tuple[str, ...],
             opdef: Any) -> tuple[Callable[[Any, Any], None], Any]:
    """The check of trait `name` (with `args`) for ops of `opdef`, and its argument: a form
    specialised to the declaration where the check offers one (``check.compile``), else
    the check itself with the trait's arguments."""
    check = table[name]
    compile_ = getattr(check, "compile", None)
    specialised = compile_(opdef, args) if compile_ is not None else None
    return specialised if specialised is not None else (check, args)


__all__ = ["NATIVE", "PREDICATES", "REGION", "STRUCTURAL", "TYPE_RELATIONS", "Failure",
           "compiled", "element_type"]
