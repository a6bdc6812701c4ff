"""Naming a cuTile kernel's traced values after its Python variables.

cuTile's debug information places each op at the Python expression it came from
(``x = ct.load(...)`` puts the load at the start of ``ct.load``) but carries no variable
names.  The kernel's source does: an op located exactly at the value of an assignment
gets the assignment's target names (``x``; ``q, r`` for a tuple).
"""

from __future__ import annotations

import ast
import hashlib
from typing import Any

import numpy as np

from ..interp.trace import Trace, TraceEvent, with_variables

#: The names of the assignments of each Python source read, keyed by its bytes' digest
#: (never by path and time: a file rewritten within the clock's resolution would get the
#: old file's names), by where their value starts (line, 0-based column).
_SOURCES: dict[bytes, dict[tuple[int, int], str]] = {}
#: Python files larger than this are not read for names.
MAX_SOURCE_BYTES = 4 << 20


def assignments(path: str) -> dict[tuple[int, int], str]:
    """Where each assignment's value starts in the Python file at `path`, and the names
    it assigns (empty when the file cannot be read or parsed)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except (OSError, ValueError):
        return {}
    if len(data) > MAX_SOURCE_BYTES:
        return {}
    key = hashlib.sha256(data).digest()
    found = _SOURCES.get(key)
    if found is not None:
        return found
    found = {}
    try:
        tree = ast.parse(data, path)
    except (SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        targets = _targets(node)
        if targets is not None and getattr(node, "value", None) is not None:
            found[(node.value.lineno, node.value.col_offset)] = targets
    _SOURCES[key] = found
    return found


def _targets(node: ast.AST) -> str | None:
    """The names an assignment statement binds, spelled as written (None: not an
    assignment of plain names)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        target = node.target
    else:
        return None
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name)
                                                        for e in target.elts):
        return ", ".join(e.id for e in target.elts)      # type: ignore[attr-defined]
    return None


def python_variable(event: TraceEvent) -> str | None:
    """The variable the Python statement at `event`'s location assigns, if any."""
    point = event.location
    if point is None or not point.file or not point.file.endswith(".py"):
        return None
    return assignments(point.file).get((point.line, point.column))


def name_variables(trace: Any) -> Any:
    """`trace` (a `Trace`, or None) with events named after the Python variables: of the
    events one statement's expression produced in a row (same tile block, location and
    iteration), the last that yields a tile is the value assigned."""
    if not isinstance(trace, Trace):
        return trace
    events = trace.events
    assigned = {event.index for i, event in enumerate(events)
                if event.kind == "result" and isinstance(event.value, np.ndarray)
                and not _tile_follows(events, i)}
    return with_variables(trace, lambda e: python_variable(e) if e.index in assigned
                          else None)


def _tile_follows(events: list[TraceEvent], i: int) -> bool:
    """Whether a later event of the same run of one statement's ops as event `i` (same
    tile block, location and iteration, one after another) yields a tile."""
    for later in events[i + 1:]:
        if (later.block, later.location, later.iteration) != \
                (events[i].block, events[i].location, events[i].iteration):
            return False
        if later.kind == "result" and isinstance(later.value, np.ndarray):
            return True
    return False


__all__ = ["assignments", "name_variables", "python_variable"]
