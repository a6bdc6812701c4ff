"""``synthesize-debug-info-scopes``: give each function of a ``cuda_tile.module`` a
``di_subprogram`` scope, so that a module whose frontend wrote only file locations still
yields line tables.

As NVIDIA's pass does: the module's location names the compile unit's file (``"<unknown>"
in ""`` when it has no file location); each function (``entry`` or testing function) whose
location holds no ``di_loc`` yet gets a subprogram named after its symbol (name and linkage
name), in its own file at its line (line 1 when it has none), and every op inside it,
the function included, gets the location ``di_loc<its file location in the subprogram>``
(its file location found through names, call sites (the caller) and fused locations; the
function's own when it has none).  Functions that already have a scope are left alone.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...attributes import (CallSiteLoc, DICompileUnitAttr, DIFileAttr, DILocAttr,
                           DISubprogramAttr, FileLineColLoc, FusedLoc, Location, NameLoc)
from ...ir import Operation
from ..registry import FUNCTION_OPS, register


def file_location(loc: Location | None) -> FileLineColLoc | None:
    """The file location `loc` stands for: itself, a name's child, a call site's caller, or
    the first file location directly inside a fused location; None otherwise (unknown
    locations, and ``di_loc``s)."""
    while True:
        if isinstance(loc, FileLineColLoc):
            return loc
        if isinstance(loc, NameLoc):
            loc = loc.child
        elif isinstance(loc, CallSiteLoc):
            loc = loc.caller
        elif isinstance(loc, FusedLoc):
            return next((sub for sub in loc.locations if isinstance(sub, FileLineColLoc)),
                        None)
        else:
            return None


def split_path(path: str) -> tuple[str, str]:
    """(file name, directory) of `path`, as LLVM's ``sys::path::filename`` and
    ``parent_path`` split it: ``"/tmp/a.py"`` gives ``("a.py", "/tmp")``, ``"a.py"`` gives
    ``("a.py", "")``."""
    if path and path.strip("/") == "":
        return "/", ""
    head, tail = posixpath.split(path)
    if not tail:
        tail = "."
    if head and head.strip("/"):
        head = head.rstrip("/")
    return tail, head


def file_for(loc: FileLineColLoc) -> DIFileAttr:
    """The ``di_file`` of a file location."""
    name, directory = split_path(loc.file)
    return DIFileAttr(name, directory)


def compile_unit_for(loc: Location) -> DICompileUnitAttr:
    """The compile unit of a module at `loc`: its file, or ``"<unknown>" in ""``."""
    found = file_location(loc)
    return DICompileUnitAttr(file_for(found) if found is not None
                             else DIFileAttr("<unknown>", ""))


def has_scope(loc: Location) -> bool:
    """Whether `loc` holds a ``di_loc`` anywhere inside it (MLIR's findInstanceOf)."""
    if isinstance(loc, DILocAttr):
        return True
    return any(has_scope(child) for child in loc.children())


def synthesize_function_scope(func: Operation, compile_unit: DICompileUnitAttr) -> None:
    """Attach a new subprogram to `func` and every op in it (nothing when `func` already
    has a scope)."""
    if has_scope(func.location):
        return
    fallback = file_location(func.location)
    if fallback is not None:
        file, line = file_for(fallback), fallback.line
    else:
        file, line = compile_unit.file, 1
        fallback = FileLineColLoc(file.name, 1, 1)
    name = func.symbol
    subprogram = DISubprogramAttr(file, line, name, name, compile_unit, line)
    for op in func.walk():
        op.location = DILocAttr(file_location(op.location) or fallback, subprogram)


@register("synthesize-debug-info-scopes", "cuda_tile.module",
          "Synthesize debug info scope information for a module")
def synthesize_debug_info_scopes(module: Operation, options: dict[str, Any]) -> None:
    """Give every function of `module` a subprogram (see the module docstring)."""
    compile_unit = compile_unit_for(module.location)
    for region in module.regions:
        for block in region.blocks:
            for op in block.operations:
                if op.name in FUNCTION_OPS:
                    synthesize_function_scope(op, compile_unit)
