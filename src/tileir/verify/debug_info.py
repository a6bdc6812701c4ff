"""The debug-info scope rules of functions and their ops (the reference's
DebugInfoVerifier in CudaTile.cpp): a function's scope is a subprogram named like it, its
ops are scoped in it, and globals carry no scope."""

from __future__ import annotations

from typing import Any

from ..attributes import (CallSiteLoc, DILexicalBlockAttr, DILocAttr, DISubprogramAttr,
                          FusedLoc, NameLoc, quote_string)
from .registry import error_at, op_error


def di_loc(loc: Any) -> DILocAttr | None:
    """The di_loc a location carries, looking through name, callsite and fused wrappers."""
    if isinstance(loc, DILocAttr):
        return loc
    if isinstance(loc, CallSiteLoc):
        return di_loc(loc.caller)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations:
            found = di_loc(inner)
            if found is not None:
                return found
        return None
    if isinstance(loc, NameLoc):
        return di_loc(loc.child)
    return None


def subprogram_of(scope: Any) -> DISubprogramAttr | None:
    """The subprogram a local scope (subprogram or lexical block chain) belongs to."""
    if isinstance(scope, DISubprogramAttr):
        return scope
    if isinstance(scope, DILexicalBlockAttr):
        return subprogram_of(scope.scope)
    return None


def format_attr(attr: Any) -> str:
    """An attribute or location as a diagnostic prints it (in full, without aliases)."""
    return attr.format()


def verify_function_debug_info(func: Any) -> None:
    """Rules 6, 1, 2: a function's own location and its scope."""
    loc = func.location
    if isinstance(loc, CallSiteLoc):
        raise op_error(func, f"invalid function debug info location: {format_attr(loc)}. "
                             "Function location must not be a CallSiteLoc.")
    found = di_loc(loc)
    if found is None:
        return
    subprogram = found.scope
    if not isinstance(subprogram, DISubprogramAttr):
        raise op_error(func, f"invalid function debug info scope: {format_attr(subprogram)}"
                             ". Function location must have cuda_tile.di_subprogram debug "
                             "info scope.")
    name = func.symbol
    if subprogram.linkage_name != name:
        raise op_error(func, f"invalid function debug info scope: {format_attr(subprogram)}"
                             f". Function name \"{name}\" does not match subprogram scope "
                             f"linkage name {quote_string(subprogram.linkage_name)}.")


def verify_function_body_debug_info(func: Any) -> None:
    """Rules 3, 4: every op of a function has no scope, or one inside the function's."""
    found = di_loc(func.location)
    function_scope = subprogram_of(found.scope) if found is not None else None
    for op in func.walk(post_order=True):
        inner = di_loc(op.location)
        scope = subprogram_of(inner.scope) if inner is not None else None
        if scope is None:
            continue
        if function_scope is None:
            raise op_error(op, f"invalid operation debug info scope: {format_attr(scope)}. "
                               "Operation has debug info scope, but function debug info "
                               "scope is undefined.")
        if scope != function_scope:
            raise error_at(op, f"invalid operation debug info scope: {format_attr(scope)}. "
                               "Operation debug info scope does not match function debug "
                               f"info scope: {format_attr(function_scope)}.")


