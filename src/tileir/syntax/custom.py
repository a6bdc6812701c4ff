"""Hand-written syntax of the ops whose format is not declarative (entry, for, loop, views...).

Each op kind has a print function and a parse function next to each other; they mirror the
reference's custom printers, spaces included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..attributes import (ArrayAttr, DenseArrayAttr, DictAttr, EnumAttr, StringAttr, TypeAttr,
                          identifier_or_string)
from ..diagnostics import ParseError
from ..enums import AtomicRMWMode, MemoryOrderingSemantics, MemoryScope
from ..types import TOKEN, FunctionType, IntegerType, TensorViewType, TiledView, quoted
from . import preview
from .base import enum_attr, enum_case, enum_keywords
from .directives import type_text
from .lexer import PERCENT_IDENTIFIER

if TYPE_CHECKING:
    from ..ir import Operation, Value
    from .parser import OpParser, OpState
    from .printer import Printer


def _t(t) -> str:
    return type_text(t, False)


# ---- entry and testing$func -----------------------------------------------------------------


def print_function(p: "Printer", op: "Operation") -> str:
    fn = op.attributes["function_type"].value  # type: ignore[union-attr]
    body = op.regions[0]
    args = ", ".join(f"{p.value(a)}: {_t(a.type)}" for a in body.block.arguments)
    text = f" @{identifier_or_string(op.attributes['sym_name'].value)}({args})"  # type: ignore
    if fn.results:
        text += " -> " + (_t(fn.results[0]) if len(fn.results) == 1 else
                          "(" + ", ".join(_t(t) for t in fn.results) + ")")
    hints = op.attributes.get("optimization_hints")
    if hints is not None and hints.entries:  # type: ignore[attr-defined]
        text += " optimization_hints=" + hints.format_stripped()  # type: ignore[attr-defined]
    text += " " + p.region(body, print_entry_args=False, print_terminators=True)
    return text + p.attr_dict(op, {"sym_name", "function_type", "arg_attrs", "res_attrs",
                                   "optimization_hints"})


def parse_function(parser: "OpParser", state: "OpState") -> None:
    state.attributes["sym_name"] = StringAttr(parser.parse_symbol_name())
    arguments = parser.parse_argument_list(allow_types_only=False)
    results = []
    if parser.consume_punct("->"):
        if parser.consume_punct("("):
            if not parser.consume_punct(")"):
                results.append(parser.parse_cuda_tile_type())
                while parser.consume_punct(","):
                    results.append(parser.parse_cuda_tile_type())
                parser.expect_punct(")")
        else:
            results.append(parser.parse_cuda_tile_type())
    state.attributes["function_type"] = TypeAttr(
        FunctionType(tuple(t for _, t, _ in arguments), tuple(results)))
    state.attributes["arg_attrs"] = ArrayAttr(tuple(DictAttr(()) for _ in arguments))
    if parser.consume_keyword("optimization_hints"):
        parser.expect_punct("=")
        state.attributes["optimization_hints"] = parser.parse_optimization_hints()
    state.regions["body"] = parser.parse_region_for(state, arguments, terminator="return",
                                                    isolated=True)
    parser.parse_optional_attr_dict(state.discardable)


# ---- for and loop --------------------------------------------------


def _iter_values(p: "Printer", args: list, inits: list) -> str:
    return "iter_values(" + ", ".join(f"{p.value(a)} = {p.value(v)}"
                                      for a, v in zip(args, inits)) + ")"


def print_for(p: "Printer", op: "Operation") -> str:
    block = op.regions[0].block
    lower, upper, step, *inits = op.operands
    text = " unsigned" if op.has_flag("unsignedCmp") else ""
    text += (f" {p.value(block.arguments[0])} in ({p.value(lower)} to {p.value(upper)}, "
             f"step {p.value(step)}) : {_t(block.arguments[0].type)} ")
    if inits:
        text += _iter_values(p, block.arguments[1:], inits)
        text += " -> (" + ", ".join(_t(v.type) for v in inits) + ") "
    return text + p.control_flow_region(op, 0) + p.attr_dict(op, {"unsignedCmp"})


def parse_for(parser: "OpParser", state: "OpState") -> None:
    from ..attributes import UNIT
    if parser.consume_keyword("unsigned"):
        state.attributes["unsignedCmp"] = UNIT
    induction = parser.parse_ssa_def()
    parser.expect_keyword("in")
    parser.expect_punct("(")
    lower = parser.parse_ssa_use()
    parser.expect_keyword("to")
    upper = parser.parse_ssa_use()
    parser.expect_punct(",")
    parser.expect_keyword("step")
    step = parser.parse_ssa_use()
    parser.expect_punct(")")
    parser.expect_punct(":")
    iv_type = parser.parse_cuda_tile_type()
    arguments = [(induction[0], iv_type, induction[1])]
    inits: list = []
    result_types = []
    if parser.consume_keyword("iter_values"):
        pairs = parser.parse_assignment_list()
        parser.expect_punct("->")
        parser.expect_punct("(")
        result_types = [parser.parse_cuda_tile_type()]
        while parser.consume_punct(","):
            result_types.append(parser.parse_cuda_tile_type())
        parser.expect_punct(")")
        if len(pairs) != len(result_types):
            raise parser.asm_error(state.name_offset, "mismatch in number of loop-carried "
                                   "values and defined values")
        for (name, offset, init), t in zip(pairs, result_types):
            arguments.append((name, t, offset))
            inits.append(init)
    state.regions["region"] = parser.parse_region_for(state, arguments, terminator="continue")
    parser.parse_optional_attr_dict(state.discardable)
    _set_operands(parser, state, [([lower], [iv_type]), ([upper], [iv_type]),
                                  ([step], [iv_type]), (inits, result_types)])
    state.result_types = result_types


def print_loop(p: "Printer", op: "Operation") -> str:
    block = op.regions[0].block
    inits = op.operands
    text = " "
    if inits:
        text += _iter_values(p, block.arguments, inits) + " "
    if inits or op.results:
        text += ": "
    if inits:
        text += ", ".join(_t(v.type) for v in inits) + " "
        if op.results:
            text += "-> "
    if op.results:
        text += ", ".join(_t(r.type) for r in op.results) + " "
    return text + p.control_flow_region(op, 0) + p.attr_dict(op, set())


def parse_loop(parser: "OpParser", state: "OpState") -> None:
    arguments: list = []
    inits: list = []
    iter_types: list = []
    result_types: list = []
    if parser.consume_keyword("iter_values"):
        pairs = parser.parse_assignment_list()
        parser.expect_punct(":")
        iter_types = parser.parse_cuda_tile_type_list()
        if len(pairs) != len(iter_types):
            raise parser.asm_error(parser.token.offset,
                                   "found different number of iter_values and types")
        if parser.consume_punct("->"):
            result_types = parser.parse_cuda_tile_type_list()
        for (name, offset, init), t in zip(pairs, iter_types):
            arguments.append((name, t, offset))
            inits.append(init)
    elif parser.consume_punct(":"):
        result_types = parser.parse_cuda_tile_type_list()
    state.regions["region"] = parser.parse_region_for(state, arguments, terminator="continue")
    parser.parse_optional_attr_dict(state.discardable)
    _set_operands(parser, state, [(inits, iter_types)])
    state.result_types = result_types


# ---- views --------------------------------------------------


def print_make_tensor_view(p: "Printer", op: "Operation") -> str:
    base, shape_values, stride_values = op.operand_groups()
    view = op.results[0].type

    def mixed(static, dynamic: list) -> str:
        it = iter(dynamic)
        return ", ".join(p.value(next(it)) if d is None else str(d) for d in static)

    text = (f" {p.value(base[0])}, shape = [{mixed(view.shape, shape_values)}], "
            f"strides = [{mixed(view.strides, stride_values)}]")
    text += p.attr_dict(op, set()) + " : "
    dynamic = shape_values + stride_values
    # 13.4: a base pointer with a ptr_attr has its type printed first.
    types = [base[0].type] if _has_ptr_attr(base[0].type) else []
    types += [dynamic[0].type] if dynamic else []
    if types:
        text += ", ".join(_t(t) for t in types) + " -> "
    return text + _t(view)


def _has_ptr_attr(t: Any) -> bool:
    """Whether `t` is a tile of pointers carrying a ptr_attr (13.4)."""
    pointer = getattr(t, "element_type", None)
    return getattr(pointer, "ptr_attr", None) is not None


def _declared_dims(parser: "OpParser") -> tuple[list, int]:
    """``[32, %d]`` after ``shape =`` / ``strides =``: (value or use, offset) pairs and the
    offset of ``[``."""
    offset = parser.token.offset
    return parser.parse_mixed_list(), offset


def _check_declared(parser: "OpParser", declared: list, expected: tuple, offset: int,
                    name: str) -> None:
    """The shape or strides written on make_tensor_view must agree with its type."""
    if len(declared) != len(expected):
        raise parser.asm_error(offset, f"expected {name} declaration to contain "
                               f"{len(expected)} elements due to tensor_view type, but "
                               f"{len(declared)} were provided")

    def spell(value) -> str:
        return "dynamic" if value is None else str(value)
    for i, ((item, at), want) in enumerate(zip(declared, expected)):
        got = item if isinstance(item, int) else None
        if got != want:
            raise parser.asm_error(at, f"input {name} dimension {i} does not match "
                                   f"tensor_view type (expected {spell(want)}, got {spell(got)})")


def parse_make_tensor_view(parser: "OpParser", state: "OpState") -> None:
    from ..types import PointerType, TileType
    base = parser.parse_ssa_use()
    parser.expect_punct(",")
    parser.expect_keyword("shape")
    parser.expect_punct("=")
    shape, shape_offset = _declared_dims(parser)
    parser.expect_punct(",")
    parser.expect_keyword("strides")
    parser.expect_punct("=")
    strides, strides_offset = _declared_dims(parser)
    parser.parse_optional_attr_dict(state.discardable)
    parser.expect_punct(":")
    dyn_shape = [u for u, _ in shape if not isinstance(u, int)]
    dyn_strides = [u for u, _ in strides if not isinstance(u, int)]
    index_type = None
    first = parser.parse_cuda_tile_type()
    base_type = None
    dynamic = bool(dyn_shape or dyn_strides)
    # 13.4 prints the base's type first when its pointer has a ptr_attr: `base, index ->`
    # with dynamic operands, `base ->` without.
    if parser.token.is_punct("," if dynamic else "->"):
        base_type = first
        if dynamic:
            parser.expect_punct(",")
            first = parser.parse_cuda_tile_type()
    if dynamic:
        index_type = first
    if dynamic or base_type is not None:
        parser.expect_punct("->")
        view = parser.parse_cuda_tile_type()
    else:
        view = first
    if not isinstance(view, TensorViewType):
        raise parser.asm_error(parser.token.offset,
                               f"expected 'tensor_view' type, but got {quoted(view)}")
    if base_type is None:  # the printed form of a base without ptr_attr
        base_type = TileType((), PointerType(view.element_type))
    base_value = parser.resolve(base, base_type)
    _check_declared(parser, shape, view.shape, shape_offset, "shape")
    _check_declared(parser, strides, view.strides, strides_offset, "stride")
    groups = [[base_value], [parser.resolve(u, index_type) for u in dyn_shape],
              [parser.resolve(u, index_type) for u in dyn_strides]]
    _set_groups(state, groups)
    state.result_types = [view]


def print_make_view(p: "Printer", op: "Operation") -> str:
    return (f" {p.value(op.operands[0])}" + p.attr_dict(op, set()) + " : " +
            _t(op.results[0].type))


def parse_make_view(parser: "OpParser", state: "OpState") -> None:
    """``make_partition_view %tv : partition_view<...>`` (and strided, gather_scatter)."""
    source = parser.parse_ssa_use()
    parser.parse_optional_attr_dict(state.discardable)
    parser.expect_punct(":")
    offset = parser.token.offset
    view = parser.parse_cuda_tile_type()
    kind = state.opdef.name[len("make_"):]
    if getattr(view, "mnemonic", None) != kind:
        raise parser.asm_error(offset, f"expected '{kind}' type, but got {quoted(view)}")
    _set_groups(state, [[parser.resolve(source, view.tensor_view)]])
    state.result_types = [view]


def print_get_shape(p: "Printer", op: "Operation") -> str:
    result = _t(op.results[0].type) if op.results else ""
    return f" {p.value(op.operands[0])} : {_t(op.operands[0].type)} -> {result}"


def parse_get_shape(parser: "OpParser", state: "OpState") -> None:
    """``get_tensor_shape %tv : T -> R``: one result of type R per dimension."""
    source = parser.parse_ssa_use()
    parser.expect_punct(":")
    offset = parser.token.offset
    source_type = parser.parse_cuda_tile_type()
    parser.expect_punct("->")
    result_type = parser.parse_cuda_tile_type()
    if state.opdef.name == "get_tensor_shape":
        if not isinstance(source_type, TensorViewType):
            raise parser.asm_error(offset, f"expected tensor_view, got {quoted(source_type)}")
        rank = source_type.rank
    else:
        if not isinstance(source_type, TiledView):
            raise parser.asm_error(offset, f"expected tile view, got {quoted(source_type)}")
        rank = source_type.index_rank
    _set_groups(state, [[parser.resolve(source, source_type)]])
    state.result_types = [result_type] * rank


def _set_groups(state: "OpState", groups: list) -> None:
    """Record resolved operand groups (in declaration order) and their sizes."""
    state.resolved_operands = [v for group in groups for v in group]
    if state.opdef.needs_segments:
        state.attributes["operandSegmentSizes"] = state.opdef.segment_sizes(groups)


def _set_operands(parser: "OpParser", state: "OpState", groups: list) -> None:
    """Resolve each declared operand group's uses against its types (one type stands for
    all uses of a group) and record the group sizes."""
    resolved = []
    for uses, types in groups:
        types = types * len(uses) if len(types) == 1 else types
        resolved.append([parser.resolve(u, t) for u, t in zip(uses, types)])
    _set_groups(state, resolved)


# ---- view loads, stores and reductions ----------------------------------------------------------


def _memory(op: "Operation") -> str:
    text = " " + op.attr("memory_ordering_semantics").value.keyword
    scope = op.attributes.get("memory_scope")
    if scope is not None:
        text += " " + scope.value.keyword  # type: ignore[attr-defined]
    return text


def _parse_memory(parser: "OpParser", state: "OpState") -> None:
    """``weak`` / ``relaxed device``: memory ordering, then an optional scope keyword."""
    order = parser.parse_enum_keyword(
        MemoryOrderingSemantics, "invalid memory_ordering_semantics attribute specification. "
        "Got \"{keyword}\" but expect one of: weak, relaxed, acquire, release, acq_rel")
    state.attributes["memory_ordering_semantics"] = order
    if parser.token.is_keyword():
        if order.value is MemoryOrderingSemantics.WEAK:
            raise parser.asm_error(parser.token.offset, "operation specifies weak memory "
                                   "ordering semantics, but then provides "
                                   f"\"{parser.token.spelling}\" scope, expected no memory "
                                   "scope.")
        state.attributes["memory_scope"] = parser.parse_enum_keyword(
            MemoryScope, "invalid memory_scope attribute specification. Got \"{keyword}\" "
            "but expect one of: tl_blk, device, sys")


def _keyword_case(parser: "OpParser", enum_type: type, message: str) -> EnumAttr:
    """A keyword naming a case of `enum_type`, else `message` (``{keyword}`` stands for it)."""
    offset = parser.token.offset
    keyword = parser.parse_keyword()
    if keyword not in enum_keywords(enum_type):
        raise parser.asm_error(offset, message.replace("{keyword}", keyword))
    return enum_attr(enum_case(enum_type, keyword))


def _index_types(p: "Printer", indices: list) -> str:
    if not indices:
        return ""
    types = [v.type for v in indices]
    if all(t == types[0] for t in types):
        return ", " + _t(types[0])
    return "".join(", " + _t(t) for t in types)


def _optionals(p: "Printer", op: "Operation", token: list, elided: set[str]) -> str:
    """`` token = %t optimization_hints = <...> inbounds = [...]`` and the attribute dict."""
    text = ""
    if token:
        text += " token = " + p.value(token[0])
    hints = op.attributes.get("optimization_hints")
    if hints is not None:
        text += " optimization_hints = " + hints.format_stripped()  # type: ignore[attr-defined]
    inbounds = op.attributes.get("inbounds")
    if isinstance(inbounds, DenseArrayAttr) and any(inbounds.values):
        text += " inbounds = " + inbounds.format_short()
    return text + p.attr_dict(op, elided, with_keyword=True)


#: Inherent attributes the view accesses print in their own syntax.  An all-false
#: ``inbounds`` (13.4) is not printed; a missing one means all false.
_VIEW_ELIDED = {"memory_ordering_semantics", "memory_scope", "optimization_hints",
                "operandSegmentSizes", "mode", "inbounds"}


def print_load_view(p: "Printer", op: "Operation") -> str:
    view, index, token = op.operand_groups()
    text = _memory(op) + f" {p.value(view[0])}[{p.values(index)}]"
    text += _optionals(p, op, token, _VIEW_ELIDED)
    text += " : " + _t(view[0].type) + _index_types(p, index)
    return text + f" -> {_t(op.results[0].type)}, {_t(op.results[1].type)}"


def print_store_view(p: "Printer", op: "Operation") -> str:
    tile, view, index, token = op.operand_groups()
    text = _memory(op) + f" {p.value(tile[0])}, {p.value(view[0])}[{p.values(index)}]"
    text += _optionals(p, op, token, _VIEW_ELIDED)
    text += f" : {_t(tile[0].type)}, {_t(view[0].type)}" + _index_types(p, index)
    return text + f" -> {_t(op.results[0].type)}"


def print_atomic_red_view(p: "Printer", op: "Operation") -> str:
    view, index, value, token = op.operand_groups()
    text = _memory(op) + f" {p.value(view[0])}[{p.values(index)}], "
    text += op.attr("mode").value.keyword + ", " + p.value(value[0])
    if token:
        text += " token = " + p.value(token[0])
    text += _inbounds(op, "")     # 13.5
    text += p.attr_dict(op, _VIEW_ELIDED, with_keyword=True)
    text += f" : {_t(value[0].type)}, {_t(view[0].type)}" + _index_types(p, index)
    return text + f" -> {_t(op.results[0].type)}"


def _inbounds(op: "Operation", absent: str) -> str:
    """`` inbounds = [...]`` when any index is in bounds, else `absent`."""
    inbounds = op.attributes.get("inbounds")
    if isinstance(inbounds, DenseArrayAttr) and any(inbounds.values):
        return " inbounds = " + inbounds.format_short()
    return absent


def _parse_view_tail(parser: "OpParser", state: "OpState", with_hints: bool,
                     with_inbounds: bool | None = None) -> list:
    """``[token = %t] [optimization_hints = <...>] [inbounds = [b, ...]] [attributes {...}]``
    (hints for loads and stores only; inbounds where `with_inbounds`, by default with the
    hints)."""
    token = []
    if parser.consume_keyword("token"):
        parser.expect_punct("=")
        token = [parser.parse_ssa_use()]
    if with_hints and parser.consume_keyword("optimization_hints"):
        parser.expect_punct("=")
        state.attributes["optimization_hints"] = parser.parse_optimization_hints()
    if (with_hints if with_inbounds is None else with_inbounds) and \
            parser.consume_keyword("inbounds"):
        parser.expect_punct("=")
        state.attributes["inbounds"] = DenseArrayAttr(
            IntegerType(1), tuple(parser.parse_comma_list(lambda: _bool(parser), "square")))
    if parser.consume_keyword("attributes"):
        parser.parse_attr_dict_body(state.discardable)
    return token


# 13.5's multimem accesses: `view[index]` (load-reduce) or `view, tile[index]`, then an
# optional token and inbounds (an empty slot still spaced, as MLIR prints an empty custom
# directive), the attribute dictionary (the reduction, when not add) and the types: one for
# every index, and the token's where there is one.


def _multimem_tail(p: "Printer", op: "Operation", token: list) -> str:
    text = " token = " + p.value(token[0]) if token else ""
    return text + _inbounds(op, " ") + p.attr_dict(op, _VIEW_ELIDED, with_keyword=True)


def _multimem_types(view: list, tile: list, index: list, token: list) -> str:
    types = [view[0].type] + [t[0].type for t in (tile, index, token) if t]
    return " : " + ", ".join(_t(t) for t in types)


def print_multimem_load_reduce(p: "Printer", op: "Operation") -> str:
    view, index, token = op.operand_groups()
    text = _memory(op) + f" {p.value(view[0])}[{p.values(index)}]"
    text += _multimem_tail(p, op, token) + _multimem_types(view, [], index, token)
    return text + f" -> {_t(op.results[0].type)}, {_t(op.results[1].type)}"


def print_multimem_update(p: "Printer", op: "Operation") -> str:
    """multimem_reduce_view_tko and multimem_store_view_tko."""
    view, tile, index, token = op.operand_groups()
    text = _memory(op) + f" {p.value(view[0])}, {p.value(tile[0])}[{p.values(index)}]"
    text += _multimem_tail(p, op, token) + _multimem_types(view, tile, index, token)
    return text + f" -> {_t(op.results[0].type)}"


def _parse_multimem_types(parser: "OpParser", with_tile: bool, indices: list, token: list
                          ) -> tuple[Any, Any, list, int | None]:
    """``: view[, tile][, index][, token] ->``: the view, tile and index types (one type
    for every index) with the index type's offset."""
    parser.expect_punct(":")
    view_type = parser.parse_cuda_tile_type()
    tile_type = None
    if with_tile:
        parser.expect_punct(",")
        tile_type = parser.parse_cuda_tile_type()
    index_types: list = []
    offset = None
    if indices:
        parser.expect_punct(",")
        offset = parser.token.offset
        index_types = [parser.parse_cuda_tile_type()] * len(indices)
    if token:
        parser.expect_punct(",")
        parser.parse_cuda_tile_type()
    parser.expect_punct("->")
    return view_type, tile_type, index_types, offset


def parse_multimem_load_reduce(parser: "OpParser", state: "OpState") -> None:
    _parse_memory(parser, state)
    view = parser.parse_ssa_use()
    indices = _indices(parser)
    token = _parse_view_tail(parser, state, False, True)
    view_type, _, index_types, offset = _parse_multimem_types(parser, False, indices, token)
    tile_type = parser.parse_cuda_tile_type()
    parser.expect_punct(",")
    token_type = parser.parse_cuda_tile_type()
    load_view_values(parser, state, view, indices, token, view_type, index_types, offset,
                     tile_type, token_type)


def _parse_order_and_scope(parser: "OpParser", state: "OpState") -> None:
    """``relaxed sys``: an ordering and a scope, both required (a reduce's scope is not
    optional, so any ordering may take one; its verifier judges the pair)."""
    state.attributes["memory_ordering_semantics"] = parser.parse_enum_keyword(
        MemoryOrderingSemantics, "invalid memory_ordering_semantics attribute specification. "
        "Got \"{keyword}\" but expect one of: weak, relaxed, acquire, release, acq_rel")
    state.attributes["memory_scope"] = parser.parse_enum_keyword(
        MemoryScope, "invalid memory_scope attribute specification. Got \"{keyword}\" but "
        "expect one of: tl_blk, device, sys")


def parse_multimem_update(parser: "OpParser", state: "OpState") -> None:
    """multimem_reduce_view_tko and multimem_store_view_tko."""
    if state.opdef.name == "multimem_reduce_view_tko":
        _parse_order_and_scope(parser, state)
    else:
        _parse_memory(parser, state)
    view = parser.parse_ssa_use()
    parser.expect_punct(",")
    tile = parser.parse_ssa_use()
    indices = _indices(parser)
    token = _parse_view_tail(parser, state, False, True)
    view_type, tile_type, index_types, offset = _parse_multimem_types(parser, True, indices,
                                                                      token)
    token_type = parser.parse_cuda_tile_type()
    view_value = parser.resolve(view, view_type)
    tile_value = parser.resolve(tile, tile_type)
    index_values = _resolve_indices(parser, indices, index_types, offset)
    _set_groups(state, [[view_value], [tile_value], index_values,
                        [parser.resolve(u, TOKEN) for u in token]])
    state.result_types = [token_type]


def _bool(parser: "OpParser") -> int:
    """``true`` or ``false`` (an element of ``inbounds = [...]``), as 1 or 0."""
    for value, keyword in enumerate(("false", "true")):
        if parser.consume_keyword(keyword):
            return value
    raise parser.asm_error(parser.token.offset, "expected 'true' or 'false'")


def _parse_index_types(parser: "OpParser", count: int) -> tuple[list, int | None]:
    """``, T`` (one type for every index) or ``, T1, T2``; with the offset of the first."""
    if not parser.consume_punct(","):
        return [], None
    offset = parser.token.offset
    try:
        first = parser.parse_cuda_tile_type()
    except ParseError as exc:
        raise ParseError(exc.diagnostics + parser.asm_error(
            offset, "expected index type after comma").diagnostics) from None
    if not parser.consume_punct(","):
        return [first] * count, offset
    types = [first, parser.parse_cuda_tile_type()]
    while parser.consume_punct(","):
        types.append(parser.parse_cuda_tile_type())
    return types, offset


def _resolve_indices(parser: "OpParser", indices: list, types: list, offset: int | None
                     ) -> list:
    """The index operands, once their types are known to be there, one per index."""
    if indices and not types:
        raise parser.asm_error(parser.token.offset,
                               "index types must be specified when indices are present")
    if types and len(types) != len(indices):
        raise parser.asm_error(offset, f"expected {len(indices)} index types, got "
                               f"{len(types)}")
    return [parser.resolve(u, t) for u, t in zip(indices, types)]


def _indices(parser: "OpParser") -> list:
    parser.expect_punct("[")
    indices = []
    if parser.token.kind is PERCENT_IDENTIFIER:
        indices.append(parser.parse_ssa_use())
        while parser.consume_punct(","):
            indices.append(parser.parse_ssa_use())
    parser.expect_punct("]")
    return indices


def parse_load_view(parser: "OpParser", state: "OpState") -> None:
    _parse_memory(parser, state)
    view = parser.parse_ssa_use()
    indices = _indices(parser)
    token = _parse_view_tail(parser, state, True)
    parser.expect_punct(":")
    view_type = parser.parse_cuda_tile_type()
    index_types, offset = _parse_index_types(parser, len(indices))
    parser.expect_punct("->")
    tile_type = parser.parse_cuda_tile_type()
    parser.expect_punct(",")
    token_type = parser.parse_cuda_tile_type()
    load_view_values(parser, state, view, indices, token, view_type, index_types, offset,
                     tile_type, token_type)


def load_view_values(parser: "OpParser", state: "OpState", view: Any, indices: list,
                     token: list, view_type: Any, index_types: list, offset: int | None,
                     tile_type: Any, token_type: Any) -> None:
    """A view load's operands resolved and its result types set, once its text is read
    (token by token here, or by `fast.custom_reader`)."""
    view_value = parser.resolve(view, view_type)
    index_values = _resolve_indices(parser, indices, index_types, offset)
    _set_groups(state, [[view_value], index_values,
                        [parser.resolve(u, TOKEN) for u in token]])
    state.result_types = [tile_type, token_type]


def parse_store_view(parser: "OpParser", state: "OpState") -> None:
    _parse_memory(parser, state)
    tile = parser.parse_ssa_use()
    parser.expect_punct(",")
    view = parser.parse_ssa_use()
    indices = _indices(parser)
    token = _parse_view_tail(parser, state, True)
    parser.expect_punct(":")
    tile_type = parser.parse_cuda_tile_type()
    parser.expect_punct(",")
    view_type = parser.parse_cuda_tile_type()
    index_types, offset = _parse_index_types(parser, len(indices))
    parser.expect_punct("->")
    token_type = parser.parse_cuda_tile_type()
    store_view_values(parser, state, tile, view, indices, token, tile_type, view_type,
                      index_types, offset, token_type)


def store_view_values(parser: "OpParser", state: "OpState", tile: Any, view: Any,
                      indices: list, token: list, tile_type: Any, view_type: Any,
                      index_types: list, offset: int | None, token_type: Any) -> None:
    """A view store's operands resolved and its result type set, once its text is read
    (token by token here, or by `fast.custom_reader`)."""
    tile_value = parser.resolve(tile, tile_type)
    view_value = parser.resolve(view, view_type)
    index_values = _resolve_indices(parser, indices, index_types, offset)
    _set_groups(state, [[tile_value], [view_value], index_values,
                        [parser.resolve(u, TOKEN) for u in token]])
    state.result_types = [token_type]


def parse_atomic_red_view(parser: "OpParser", state: "OpState") -> None:
    """AtomicRedViewTkoOp's own syntax: its keywords are checked by its own messages, the
    orderings and scopes it does not support are left to its verifier."""
    state.attributes["memory_ordering_semantics"] = _keyword_case(
        parser, MemoryOrderingSemantics, "invalid memory_ordering_semantics: '{keyword}'; "
        "expected one of: weak, relaxed, acquire, release, acq_rel")
    if parser.token.is_keyword():
        state.attributes["memory_scope"] = _keyword_case(
            parser, MemoryScope, "invalid memory_scope: '{keyword}'; expected one of: tl_blk, "
            "device, sys")
    view = parser.parse_ssa_use()
    indices = _indices(parser)
    mode_offset = parser.token.offset
    parser.expect_punct(",")
    mode = parser.parse_keyword()
    parser.expect_punct(",")
    value = parser.parse_ssa_use()
    if mode not in enum_keywords(AtomicRMWMode):
        raise parser.asm_error(mode_offset, f"unknown atomic RMW mode: '{mode}'; expected one "
                               "of: and, or, xor, add, addf, max, min, umax, umin")
    state.attributes["mode"] = enum_attr(enum_case(AtomicRMWMode, mode))
    token = _parse_view_tail(parser, state, False, True)
    parser.expect_punct(":")
    offset: int | None = parser.token.offset
    value_type = parser.parse_cuda_tile_type()
    parser.expect_punct(",")
    view_type = parser.parse_cuda_tile_type()
    index_types, index_offset = _parse_index_types(parser, len(indices))
    offset = index_offset if index_offset is not None else offset
    parser.expect_punct("->")
    token_type = parser.parse_cuda_tile_type()
    view_value = parser.resolve(view, view_type)
    index_values = _resolve_indices(parser, indices, index_types, offset)
    _set_groups(state, [[view_value], index_values, [parser.resolve(value, value_type)],
                        [parser.resolve(u, TOKEN) for u in token]])
    state.result_types = [token_type]


PRINTERS: dict[str, Callable[["Printer", "Operation"], str]] = {
    "function": print_function, "for": print_for, "loop": print_loop,
    "make_tensor_view": print_make_tensor_view, "make_view": print_make_view,
    "get_shape": print_get_shape, "load_view": print_load_view,
    "store_view": print_store_view, "atomic_red_view": print_atomic_red_view,
    "multimem_load_reduce": print_multimem_load_reduce,
    "multimem_reduce": print_multimem_update, "multimem_store": print_multimem_update,
    **preview.PRINTERS,
}
PARSERS: dict[str, Callable[["OpParser", "OpState"], None]] = {
    "function": parse_function, "for": parse_for, "loop": parse_loop,
    "make_tensor_view": parse_make_tensor_view, "make_view": parse_make_view,
    "get_shape": parse_get_shape, "load_view": parse_load_view,
    "store_view": parse_store_view, "atomic_red_view": parse_atomic_red_view,
    "multimem_load_reduce": parse_multimem_load_reduce,
    "multimem_reduce": parse_multimem_update, "multimem_store": parse_multimem_update,
    **preview.PARSERS,
}

__all__ = ["PARSERS", "PRINTERS", "Value"]
