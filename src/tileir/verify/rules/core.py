"""Verifiers of the core ops (`tileir.ops.core`): module and entry structure, globals,
shape ops, reduce and scan (debug-info scopes and hints have their own modules).

Each check follows the reference's hand-written verifier of the op (CudaTile.cpp,
Attributes.cpp) and reproduces its diagnostics.
"""

from __future__ import annotations

from typing import Any, Callable

from ...attributes import ArrayAttr, BoolAttr, DenseArrayAttr, IntegerAttr, SymbolRefAttr
from ...types import (F4E2M1FN, FloatType, IntegerType, PointerType, TileType, Type,
                      mlir_bit_width, quoted)
from ..debug_info import (di_loc, format_attr, verify_function_body_debug_info,
                          verify_function_debug_info)
from ..hints import verify_optimization_hints
from ..registry import Context, op_error, verifier
from ..text import shape_text, type_list

# ---- shared helpers --------------------------------------------------


def int_value(attr: Any) -> int:
    """The integer held by an integer attribute (or a plain int)."""
    return attr.value if isinstance(attr, (IntegerAttr, BoolAttr)) else int(attr)


FUNCTION_OPS = ("cuda_tile.entry", "cuda_tile.testing$func")


def _check_item_parent(op: Any) -> None:
    """A module item (``entry``, ``global``) sits directly in a ``cuda_tile.module``, and a
    ``cuda_tile.module`` in no ``cuda_tile`` op: nested in a body, neither NVIDIA's
    bytecode nor its compiler can carry them (a kernel body holds operations, not items)."""
    parent = op.parent_op
    if op.name == "cuda_tile.module":
        if parent is not None and parent.name.startswith("cuda_tile."):
            raise op_error(op, "expects parent op 'builtin.module' or none (a module "
                               "cannot be nested in a cuda_tile op)")
    elif parent is None or parent.name != "cuda_tile.module":
        raise op_error(op, "expects parent op 'cuda_tile.module'")


@verifier("module")
def check_module(op: Any, ctx: Context) -> None:
    """Rule 5: module-level ops other than functions (globals) carry no debug scope.  With
    spec warnings: the spec's well-formed module (6.2.5) has at least one item, a rule the
    reference does not enforce (its own tests hold empty modules)."""
    _check_item_parent(op)
    if ctx.options.spec_warnings and not any(b.operations for r in op.regions
                                             for b in r.blocks):
        ctx.warn(op, "module has no items; a well-formed module has at least one "
                     "(spec 6.2.5)")
    for block in (b for r in op.regions for b in r.blocks):
        for child in block.operations:
            if child.name in FUNCTION_OPS:
                continue
            found = di_loc(child.location)
            if found is not None:
                raise op_error(child, f"invalid operation debug info scope: "
                                      f"{format_attr(found)}. Global variables must not "
                                      "have scope.")


# ---- entry, global, get_global --------------------------------------------------


def function_type(op: Any) -> Any:
    """The ``function_type`` of a function-like op."""
    attr = op.attributes.get("function_type")
    return getattr(attr, "value", attr)


@verifier("entry")
def check_entry(op: Any, ctx: Context) -> None:
    """EntryOp::verify: no results, scalar tile arguments, debug info, hints (and its
    place: directly in a module)."""
    _check_item_parent(op)
    signature = function_type(op)
    if signature is None:
        return
    if signature.results:
        raise op_error(op, "entry op must not return values")
    for t in signature.inputs:
        if isinstance(t, TileType) and t.rank != 0:
            raise op_error(op, "entry op must have scalar types (rank 0 !cuda_tile.tile)")
    verify_function_debug_info(op)
    verify_optimization_hints(op, ctx)


@verifier("entry", stage="regions")
def check_entry_body(op: Any, ctx: Context) -> None:
    """EntryOp::verifyRegions: the debug scopes of the ops inside."""
    verify_function_body_debug_info(op)


@verifier("global")
def check_global(op: Any, ctx: Context) -> None:
    """GlobalOp::verify: the initial value is a rank-1 tile (and its place: directly in a
    module)."""
    _check_item_parent(op)
    value = op.attributes.get("value")
    value_type = getattr(value, "type", None)
    if isinstance(value_type, TileType) and value_type.rank != 1:
        raise op_error(op, "type must have rank 1")


def nearest_symbol_table(op: Any) -> Any:
    """The closest enclosing op that holds a symbol table (a module)."""
    parent = op.parent_op
    while parent is not None and not (parent.opdef is not None
                                      and "SymbolTable" in parent.opdef.traits):
        parent = parent.parent_op
    return parent


def lookup_symbol(table: Any, name: str) -> Any:
    """The op named `name` directly inside the symbol table op `table`."""
    for region in table.regions:
        for block in region.blocks:
            for child in block.operations:
                if child.symbol == name:
                    return child
    return None


def verify_get_global(op: Any) -> None:
    """GetGlobalOp::verifySymbolUses: names a global whose element type is the pointee."""
    ref = op.attributes.get("name")
    name = ref.name if isinstance(ref, SymbolRefAttr) else str(getattr(ref, "value", ref))
    table = nearest_symbol_table(op)
    target = lookup_symbol(table, name) if table is not None else None
    if target is None or target.name != "cuda_tile.global":
        raise op_error(op, f"'{name}' does not reference a valid global")
    global_element = target.attributes["value"].type.element_type
    result = op.results[0].type
    pointer = result.element_type if isinstance(result, TileType) else None
    if isinstance(pointer, PointerType) and pointer.pointee != global_element:
        raise op_error(op, f"pointee type of result type {quoted(pointer)} does not match "
                           f"type {quoted(global_element)} of the global @{name}")


#: Ops whose symbol references the symbol table verifies (SymbolUserOpInterface).
SYMBOL_USERS: dict[str, Callable[[Any], None]] = {"cuda_tile.get_global": verify_get_global}


@verifier("module", stage="regions")
def check_symbol_uses(op: Any, ctx: Context) -> None:
    """SymbolTable verification: each nested symbol user resolves its references."""
    for nested in op.walk(post_order=True):
        check = SYMBOL_USERS.get(nested.name)
        if check is not None:
            check(nested)


# ---- shape ops --------------------------------------------------


@verifier("broadcast")
def check_broadcast(op: Any, ctx: Context) -> None:
    """BroadcastOp::verify: each source dim equals the result dim or is 1."""
    source, result = op.operands[0].type, op.results[0].type
    for src, dst in zip(source.shape, result.shape):
        if src != dst and src != 1:
            raise op_error(op, "expects the shape of source tile to be compatible with that "
                               f"of the result tile, but got: {shape_text(source.shape)} and "
                               f"{shape_text(result.shape)}")


@verifier("cat")
def check_cat(op: Any, ctx: Context) -> None:
    """CatOp::verify: dim in range, result dim the sum, other dims equal."""
    dim = int_value(op.attr("dim"))
    lhs, rhs = op.operands[0].type.shape, op.operands[1].type.shape
    result = op.results[0].type.shape
    rank = len(lhs)
    if dim < 0 or dim >= rank:
        raise op_error(op, f"expect dim to be [0, {rank}), but got: {dim}")
    if lhs[dim] + rhs[dim] != result[dim]:
        raise op_error(op, f"invalid concat at position {dim}, expected: "
                           f"{lhs[dim] + rhs[dim]} but got: {result[dim]}")
    for index in range(rank):
        if index == dim:
            continue
        if lhs[index] != rhs[index]:
            raise op_error(op, "expect lhs and rhs shapes to match at non-concat position "
                               f"{index}, expected: {lhs[index]} but got: {rhs[index]}")
        if lhs[index] != result[index]:
            raise op_error(op, "expect lhs and result shapes to match at non-concat "
                               f"position {index}, expected: {lhs[index]} but got: "
                               f"{result[index]}")


def constant_splat(value: Any) -> int | None:
    """The splat integer a ``constant`` op defines for `value`, if it does."""
    owner = getattr(value, "owner", None)
    if getattr(owner, "name", None) != "cuda_tile.constant":
        return None
    dense = owner.attributes.get("value")
    element = getattr(getattr(dense, "type", None), "element_type", None)
    if not isinstance(element, IntegerType) or not dense.is_splat:
        return None
    return dense.values[0]


def _check_subtile_grid(op: Any, whole: tuple[str, TileType], part: tuple[str, TileType],
                        indices: list[Any]) -> None:
    """What extract and insert share: the subtile (`part`) has the element type and rank of
    the tile it tiles (`whole`), divides it evenly, and one index names it per dimension.
    Messages always say "source and result"; the names in the pair are the op's roles."""
    (whole_name, whole_type), (part_name, part_type) = whole, part
    if whole_type.element_type != part_type.element_type:
        raise op_error(op, "source and result element type do not match")
    if whole_type.rank != part_type.rank:
        raise op_error(op, "source and result must have the same rank")
    for i, (big, small) in enumerate(zip(whole_type.shape, part_type.shape)):
        if big % small != 0:
            raise op_error(op, f"{whole_name} dimension {i} size ({big}) must be evenly "
                               f"divisible by {part_name} dimension {i} size ({small})")
    if len(indices) != whole_type.rank:
        raise op_error(op, f"expected {whole_type.rank} indices, but got {len(indices)}")


@verifier("extract")
def check_extract(op: Any, ctx: Context) -> None:
    """ExtractOp::verify: element types, ranks, divisibility, indices (and index warnings)."""
    source, result = op.operands[0].type, op.results[0].type
    indices = op.operand_group("indices")
    _check_subtile_grid(op, ("source", source), ("result", result), indices)
    for i, index in enumerate(indices):
        index_type = index.type
        if not isinstance(index_type, TileType):
            raise op_error(op, f"index {i} must be a Tile type")
        if index_type.rank != 0:
            raise op_error(op, f"index {i} must be a scalar tile, got rank {index_type.rank}")
        if index_type.element_type != IntegerType(32):
            raise op_error(op, f"index {i} must have i32 element type")
        value = constant_splat(index)
        if value is None:
            continue
        limit = source.shape[i] // result.shape[i] - 1
        if value < 0:
            ctx.warn(op, f"extract index {i} has negative value {value}, which may cause "
                         "undefined behavior")
        if value > limit:
            ctx.warn(op, f"extract index {i} value {value} may be out of bounds (max valid "
                         f"index: {limit})")


@verifier("insert")
def check_insert(op: Any, ctx: Context) -> None:
    """InsertOp::verify (13.4): the subtile fits the destination's grid; one index per
    destination dimension.  The rank and index-count messages are NVIDIA's 13.4 tools'; the
    element-type and divisibility ones follow extract's wording (not observed)."""
    source = op.operand_group("source")[0].type
    result = op.results[0].type
    _check_subtile_grid(op, ("result", result), ("source", source),
                        op.operand_group("indices"))


@verifier("iota")
def check_iota(op: Any, ctx: Context) -> None:
    """IotaOp::verify: a 1-d result whose length fits the element type's range."""
    result = op.results[0].type
    if result.rank != 1:
        raise op_error(op, "expects result type to be 1-d tile")
    width = mlir_bit_width(result.element_type)
    if width < 64 and result.shape[0] > 1 << width:
        raise op_error(op, f"the number of elements {result.shape[0]} exceeds the maximum "
                           f"value of element type {quoted(result.element_type)}")


def _tile_bits(t: TileType) -> int:
    """A tile's size in bits, i1 counting one bit and tf32 32 bits."""
    element = t.element_type
    if element == IntegerType(1):
        width = 1
    elif element == FloatType("tf32"):
        width = 32
    else:
        width = mlir_bit_width(element)
    return width * t.num_elements


@verifier("pack", "unpack")
def check_pack_unpack(op: Any, ctx: Context) -> None:
    """verifyPackUnpackTypes: rank-1, different element widths, equal byte sizes."""
    source, result = op.operands[0].type, op.results[0].type
    if source.rank != 1:
        raise op_error(op, "expects source and result to be rank-1 tiles")
    if mlir_bit_width(source.element_type) == mlir_bit_width(result.element_type):
        raise op_error(op, "expects source and result to have different element type widths")
    source_bits, result_bits = _tile_bits(source), _tile_bits(result)
    if source_bits % 8:
        raise op_error(op, "expects source tile to be byte-aligned")
    if result_bits % 8:
        raise op_error(op, "expects result tile to be byte-aligned")
    if source_bits != result_bits:
        raise op_error(op, "expects source and result to have the same size in bytes, but "
                           f"got source tile size {source_bits // 8} bytes and result tile "
                           f"size {result_bits // 8} bytes")


@verifier("permute")
def check_permute(op: Any, ctx: Context) -> None:
    """PermuteOp::verify: rank >= 2, a true permutation, the result shape permuted."""
    source, result = op.operands[0].type, op.results[0].type
    attr = op.attr("permutation")
    permutation = list(attr.values) if isinstance(attr, DenseArrayAttr) else list(attr or ())
    rank = source.rank
    if rank < 2:
        raise op_error(op, f"expects at least rank 2, but got: {rank}")
    if len(permutation) != rank:
        raise op_error(op, f"expect permutation size ({len(permutation)}) to equal the rank "
                           f"of the source ({rank})")
    if len(set(permutation)) != len(permutation):
        raise op_error(op, "expect permutation elements to be unique")
    for index, target in enumerate(permutation):
        if target < 0 or target >= rank:
            raise op_error(op, f"permutation element at index {index} ({target}) is out of "
                               f"bound [0, {rank})")
    for index, target in enumerate(permutation):
        if result.shape[index] != source.shape[target]:
            raise op_error(op, f"result shape invalid at index {index}, expected: "
                               f"{source.shape[target]}, but got: {result.shape[index]}")


@verifier("reshape")
def check_reshape(op: Any, ctx: Context) -> None:
    """ReshapeOp::verify: source and result hold as many elements."""
    if op.operands[0].type.num_elements != op.results[0].type.num_elements:
        raise op_error(op, "expected source tile and result tile to have the same number of "
                           "elements")


@verifier("select")
def check_select(op: Any, ctx: Context) -> None:
    """SelectOp::verify: no f4E2M1FN tiles."""
    if op.results[0].type.element_type == F4E2M1FN:
        raise op_error(op, "cannot operate on sub-byte type F4E2M1FN")


# ---- reduce and scan --------------------------------------------------

_HALF_FLOATS = {FloatType("bf16"), FloatType("f16")}


def _identity_type(attr: Any) -> Type | None:
    """The type of an identity attribute (``0.0 : f32``)."""
    return getattr(attr, "type", None)


@verifier("reduce", "scan")
def check_aggregate(op: Any, ctx: Context) -> None:
    """verifyAggregateOp: counts, identities, dim bound; scan results equal its operands."""
    operands, results = op.operands, op.results
    if not operands:
        raise op_error(op, "expect at least 1 operand")
    if len(operands) != len(results):
        raise op_error(op, "expect same number of operands and results")
    identities = op.attributes.get("identities")
    if isinstance(identities, ArrayAttr):
        if len(identities.elements) != len(operands):
            raise op_error(op, "expect identities to match the number of operands but got: "
                               f"{len(operands)} operands and {len(identities.elements)} "
                               "identities")
        for index, (value, identity) in enumerate(zip(operands, identities.elements)):
            if not isinstance(value.type, TileType):
                raise op_error(op, f"expected TileType for operand at index {index} but got: "
                                   f"{quoted(value.type)}")
            element, given = value.type.element_type, _identity_type(identity)
            if {element, given} <= _HALF_FLOATS:
                continue
            if element != given:
                raise op_error(op, f"expect same type for operand at index: {index} and "
                                   f"identity at index: {index} but got: {quoted(element)} "
                                   f"and {quoted(given) if given is not None else ''}")
    first = operands[0].type
    if not isinstance(first, TileType):
        raise op_error(op, f"expected TileType for first operand but got: {quoted(first)}")
    dim = int_value(op.attr("dim"))
    if dim < 0 or dim >= first.rank:
        raise op_error(op, f"dimension ({dim}) is out of bound [0, {first.rank})")
    if op.opdef.name == "scan":
        for index, (value, result) in enumerate(zip(operands, results)):
            if value.type != result.type:
                raise op_error(op, f"expect same type for operand at index: {index} and "
                                   f"result at index: {index}")


def _inferred_types(op: Any) -> list[Type] | None:
    """InferTypeOpAdaptor: reduce drops `dim` from each operand's shape; scan keeps it."""
    if not op.operands:
        return None
    if op.opdef.name == "scan":
        return [v.type for v in op.operands]
    dim = int_value(op.attr("dim"))
    return [TileType(tuple(d for i, d in enumerate(v.type.shape) if i != dim),
                     v.type.element_type) for v in op.operands]


@verifier("reduce", "scan", stage="regions")
def check_inferred_types(op: Any, ctx: Context) -> None:
    """InferTypeOpInterface's region verifier: declared result types equal the inferred."""
    inferred = _inferred_types(op)
    if inferred is not None:
        declared = [r.type for r in op.results]
        if inferred == declared:
            return
        ctx.op_error(op, f"inferred type(s) {type_list(inferred)} are incompatible with "
                         f"return type(s) of operation {type_list(declared)}")
    raise op_error(op, "failed to infer returned types")


def _block_argument_rules(op: Any, arg_types: list[Type], count: int) -> None:
    """The combiner's arguments: rank-0 tiles, pairwise equal, matching the operands."""
    for index, t in enumerate(arg_types):
        if not (isinstance(t, TileType) and t.rank == 0):
            raise op_error(op, f"expect 0-rank tile type at index: {index} but got: "
                               f"{quoted(t)}")
    for index in range(0, len(arg_types) - 1, 2):
        current, previous = arg_types[index].element_type, arg_types[index + 1].element_type
        if current != previous:
            raise op_error(op, f"expect same element type for block argument at index: "
                               f"{index} and {index + 1} but got: {quoted(current)} and "
                               f"{quoted(previous)}")
    for index in range(count):
        operand = op.operands[index].type.element_type
        argument = arg_types[2 * index].element_type
        if operand != argument:
            raise op_error(op, f"expect same type for operand at index: {index} and block "
                               f"argument at index: {2 * index} but got: {quoted(operand)} "
                               f"and {quoted(argument)}")


def _terminator_rules(op: Any, terminator: Any, count: int) -> None:
    """The combiner yields one rank-0 value per operand, of the operand's element type."""
    yielded = [v.type for v in terminator.operands] if terminator is not None else []
    if len(yielded) != count:
        raise op_error(op, f"expect number of terminators operands ({len(yielded)}) to match "
                           f"number of operands ({count})")
    for index in range(count):
        operand, term = op.operands[index].type, yielded[index]
        if not isinstance(term, TileType):
            raise op_error(op, "expected TileType for operand and terminator types but got: "
                               f"{quoted(operand)} and {quoted(term)}")
        if operand.element_type != term.element_type:
            raise op_error(op, f"expect same type for operand at index: {index} and "
                               f"terminator argument at index: {index} but got: "
                               f"{quoted(operand.element_type)} and "
                               f"{quoted(term.element_type)}")


def _is_pure(op: Any) -> bool:
    """MLIR's isPure for our ops: declared Pure (unregistered ops are not)."""
    return op.opdef is not None and "Pure" in op.opdef.traits


@verifier("reduce", "scan", stage="regions")
def check_aggregate_region(op: Any, ctx: Context) -> None:
    """verifyAggregateOpRegions: the combiner's arguments, terminator and purity."""
    count = len(op.operands)
    block = op.regions[0].blocks[0]
    if not block.operations:
        raise op_error(op, "expect non-empty block")
    arg_types = [a.type for a in block.arguments]
    if len(arg_types) != 2 * count:
        raise op_error(op, f"expect {2 * count} block arguments but got: {len(arg_types)}")
    _block_argument_rules(op, arg_types, count)
    _terminator_rules(op, block.operations[-1], count)
    for inner in block.operations[:-1]:
        if not _is_pure(inner):
            raise op_error(inner, f"only pure operations are allowed inside '{op.name}'")


__all__ = ["function_type"]
