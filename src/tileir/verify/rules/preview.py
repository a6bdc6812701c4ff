"""Verifiers of 13.5's preview ops (`tileir.ops.preview`), with tileirdisasm 13.5's
diagnostics (found by probing it: NVIDIA publishes neither the ops nor their rules)."""

from __future__ import annotations

from typing import Any

from ... import preview as P
from ...attributes import ArrayAttr, DictAttr
from ...types import TileType
from ..registry import Context, op_error, verifier
from .core import function_type, lookup_symbol, nearest_symbol_table

ACCESS = "cuda_tile.preview$access"


def _access(op: Any, index: int) -> str | None:
    """The access kind (`in`, `out`, `inout`) argument `index` of a function-like op has."""
    dicts = op.attributes.get("arg_attrs")
    entries = dicts.elements if isinstance(dicts, ArrayAttr) else ()
    entry = entries[index] if index < len(entries) else None
    value = entry.get(ACCESS) if isinstance(entry, DictAttr) else None
    return value["value"] if isinstance(value, P.PreviewAttr) and \
        value.mnemonic == "access" else None


def _params(op: Any) -> list[P.PreviewAttr]:
    params = op.attributes.get("const_params")
    return list(params.elements) if isinstance(params, ArrayAttr) else []


def _check_params(op: Any, wildcard: bool) -> set[str]:
    """The declared constant parameter names (duplicates and misplaced ``?`` refused)."""
    names: set[str] = set()
    for i, param in enumerate(_params(op)):
        if not isinstance(param, P.PreviewAttr) or param.mnemonic != "const_param":
            raise op_error(op, "attribute 'const_params' failed to satisfy constraint: array "
                               "of Compile-time constant parameter declaration values")
        name = param["name"]
        if name == "?":
            if not wildcard:
                raise op_error(op, f"const_params[{i}]: '?' wildcard is only valid in "
                                   "extern_impl const_params")
            continue
        if name in names:
            raise op_error(op, f"duplicate constant parameter name: '{name}'")
        names.add(name)
    return names


def _symbols(t: Any) -> list[str]:
    """The symbolic variables a type refers to (a tile of `sym_t`)."""
    element = t.element_type if isinstance(t, TileType) else t
    if isinstance(element, P.PreviewType) and element.mnemonic == "sym_t":
        return [element.values[0]["name"]]
    return []


@verifier("preview$func")
def check_preview_func(op: Any, ctx: Context) -> None:
    """An extern function: tile arguments (no fragments), each with an access kind, whose
    symbolic element types are declared constant parameters; out/inout arguments bound to
    results of their type."""
    signature = function_type(op)
    if signature is None:
        return
    declared = _check_params(op, wildcard=False)
    for i, t in enumerate(signature.inputs):
        if isinstance(t, P.PreviewType) and t.mnemonic == "fragment":
            raise op_error(op, f"input type {i} must not be a cuda_tile.preview$fragment; "
                               "fragments are only valid in preview$extern_impl signatures, "
                               f"got '{t.format()}'")
        if not isinstance(t, TileType):
            raise op_error(op, f"input type {i} must be a cuda_tile.tile, got '{t.format()}'")
    for t in (*signature.inputs, *signature.results):
        for name in _symbols(t):
            if name not in declared:
                raise op_error(op, f"input type references undeclared symbolic variable "
                                   f"'{name}'")
    bound = 0
    for i, t in enumerate(signature.inputs):
        access = _access(op, i)
        if access is None:
            raise op_error(op, f"extern function argument {i} must have a '{ACCESS}' arg attr")
        if access == "in":
            continue
        if bound >= len(signature.results):
            raise op_error(op, "number of bound inouts exceeded the number of results")
        if signature.results[bound] != t:
            raise op_error(op, f"extern function argument {i} must match result {bound}")
        bound += 1


def _preview_func(op: Any, attr: str, what: str) -> Any:
    """The preview$func `attr` names in the enclosing module; None when no symbol has the
    name (tileirdisasm 13.5 accepts that); refused when the symbol is something else."""
    table = nearest_symbol_table(op)
    ref = op.attributes.get(attr)
    target = lookup_symbol(table, ref.name) if table is not None and ref is not None else None
    if target is not None and target.name != "cuda_tile.preview$func":
        raise op_error(op, f"'{ref.name}' does not reference a valid {what}")
    return target


@verifier("preview$call")
def check_preview_call(op: Any, ctx: Context) -> None:
    """A call of an extern preview$func: matching counts and types, concrete results, one
    statically known constant argument per constant parameter."""
    callee = _preview_func(op, "callee", "preview$func")
    if callee is None:
        return
    signature = function_type(callee)
    if signature is None:
        return
    if len(op.results) != len(signature.results):
        raise op_error(op, f"result count ({len(op.results)}) must match extern preview$func "
                           f"result count ({len(signature.results)})")
    if len(op.operands) != len(signature.inputs):
        raise op_error(op, f"input count ({len(op.operands)}) must match extern preview$func "
                           f"input count ({len(signature.inputs)})")
    for i, result in enumerate(op.results):
        if _symbols(result.type) or not isinstance(result.type, TileType):
            raise op_error(op, f"result {i} must be a concrete 'cuda_tile.tile' at call sites, "
                               f"got '{result.type.format()}'")
    generic = {i for i, t in enumerate(signature.inputs) if _symbols(t)}
    for i, (value, t) in enumerate(zip(op.operands, signature.inputs)):
        if i not in generic and value.type != t:
            raise op_error(op, f"operand type mismatch at index {i}")
    for i, (result, t) in enumerate(zip(op.results, signature.results)):
        if not _symbols(t) and result.type != t:
            raise op_error(op, f"result type mismatch at index {i}")
    args = op.attributes.get("const_args")
    args = list(args.elements) if isinstance(args, ArrayAttr) else []
    params = _params(callee)
    if len(args) != len(params):
        raise op_error(op, f"constant argument count ({len(args)}) must match extern function "
                           f"constant parameter count ({len(params)})")
    for i, (arg, param) in enumerate(zip(args, params)):
        message = P.const_arg_error(arg, param["type"])
        if message is not None:
            raise op_error(op, f"constant argument #{i} for constant parameter "
                               f"'{param['name']}' {message}")


@verifier("preview$extern_impl")
def check_extern_impl(op: Any, ctx: Context) -> None:
    """An implementation of an extern preview$func: fragment arguments matching its
    arguments' access kinds, no results, no config, constant parameters and arguments
    that mirror the function's."""
    signature = function_type(op)
    if signature is None:
        return
    if not signature.inputs or not all(isinstance(t, P.PreviewType) and t.mnemonic ==
                                       "fragment" for t in signature.inputs):
        raise op_error(op, "function_type must have at least one input and all inputs must "
                           "be fragment types")
    if "config" in op.attributes:
        raise op_error(op, "extern_impl must not carry 'config'")
    if signature.results:
        raise op_error(op, "extern_impl must not declare results; outputs are represented as "
                           "'out' or 'inout' fragment args, got "
                           f"{len(signature.results)} result(s)")
    for i in range(len(signature.inputs)):
        if _access(op, i) is None:
            raise op_error(op, f"extern_impl argument {i} must carry a '{ACCESS}' arg attr")
    _check_params(op, wildcard=True)
    func = _preview_func(op, "implements", "extern preview$func")
    if func is None:
        return
    func_signature = function_type(func)
    if func_signature is not None and len(func_signature.inputs) != len(signature.inputs):
        raise op_error(op, f"input count ({len(signature.inputs)}) must match extern function "
                           f"input count ({len(func_signature.inputs)})")
    for i in range(len(signature.inputs)):
        mine, theirs = _access(op, i), _access(func, i)
        if theirs is not None and mine != theirs:
            raise op_error(op, f"simt-path impl argument {i} access ({mine}) must match extern "
                               f"function argument access ({theirs})")
    args = op.attributes.get("const_args")
    args = list(args.elements) if isinstance(args, ArrayAttr) else []
    func_params, impl_params = _params(func), _params(op)
    if len(args) != len(func_params):
        raise op_error(op, f"constant argument count ({len(args)}) must match extern function "
                           f"constant parameter count ({len(func_params)})")
    if len(impl_params) != len(func_params):
        raise op_error(op, f"impl const_param count ({len(impl_params)}) must match the "
                           f"implemented function's const_param count ({len(func_params)})")
    for i, (mine, theirs) in enumerate(zip(impl_params, func_params)):
        if mine["name"] != "?" and mine["name"] != theirs["name"]:
            raise op_error(op, f"const_params[{i}] name '{mine['name']}' must match implemented "
                               f"function const_param name '{theirs['name']}'")
    for i, (arg, param) in enumerate(zip(args, impl_params)):
        if not (arg.mnemonic == "expr_var" and arg["name"] == param["name"]):
            raise op_error(op, f"const_args[{i}] must be an identity reference to impl param "
                               f"'{param['name']}' (non-identity const_args are not supported)")
