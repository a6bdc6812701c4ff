"""A `Trace` as a table for the terminal: one row per recorded value."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..numerics import to_float64
from ..types import FloatType, IntegerType, PointerType, TileType, Type
from .values import TensorView, TiledView, Token

#: A tile shows whole up to this many elements; a larger one its first `HEAD` elements.
WHOLE = 8
HEAD = 4
#: Types longer than this are cut (with "...") in the table: view types get long.
TYPE_WIDTH = 40
#: The columns of the table, in order.
COLUMNS = ("#", "location", "iter", "op", "value", "type", "contents")


def format_trace(trace: Any, full: bool, basename: bool) -> str:
    """The table `Trace.format` returns (see there)."""
    rows: list[tuple[str, ...]] = []
    details: dict[int, list[str]] = {}      # row -> lines printed below it (`full`)
    block = None
    for event in trace:
        if event.block != block:
            block = event.block
            rows.append(("block", str(block)))
        for i, (name, t, value) in enumerate(zip(event.names, event.types, event.values)):
            shown_name = name if event.variable is None or i else f"{name} ({event.variable})"
            rows.append((str(event.index) if i == 0 else "",
                         _location(event.location, basename) if i == 0 else "",
                         ".".join(str(n) for n in event.iteration) if i == 0 else "",
                         (event.op if event.kind == "result" else f"{event.op} (args)")
                         if i == 0 else "",
                         shown_name, _type(t), _contents(value, t)))
            if full and isinstance(value, np.ndarray) and value.size > WHOLE:
                details[len(rows) - 1] = _whole(value, t).splitlines()
    if not rows:
        return "(no events)" + _truncated(trace)
    widths = [max(len(c) for c in column) for column in
              zip(COLUMNS, *(r for r in rows if len(r) == len(COLUMNS)))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip()]
    for n, row in enumerate(rows):
        if len(row) != len(COLUMNS):
            lines.append(f"tile block {row[1]}:")
            continue
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        lines.extend("      " + line for line in details.get(n, []))
    return "\n".join(lines) + _truncated(trace)


def _truncated(trace: Any) -> str:
    """The line saying that recording stopped early, if it did."""
    if not getattr(trace, "truncated", False):
        return ""
    from . import trace as tracing
    limit = tracing.MAX_TRACE_BYTES
    size = f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit} bytes"
    return (f"\n(recording stopped here: the trace's values reached {size}; narrow it "
            "with block=, op= or line=)")


def _location(point: Any, basename: bool) -> str:
    """``file:line:col`` (the file's base name when `basename`), or ``-``."""
    if point is None:
        return "-"
    file = point.file or "<unknown>"
    return f"{os.path.basename(file) if basename else file}:{point.line}:{point.column}"


def _type(t: Type) -> str:
    """A type as the kernel's text spells it, without the dialect prefix (cut short past
    `TYPE_WIDTH` characters)."""
    fmt = getattr(t, "format", None)
    text = fmt(False) if fmt is not None else str(t)
    return text if len(text) <= TYPE_WIDTH else text[:TYPE_WIDTH - 3] + "..."


#: Float dtypes whose NumPy scalars print the shortest text that reads back as the same
#: value of their own type (``0.1`` for f32's nearest value to 0.1); other float types
#: (ml_dtypes: bf16, fp8, fp4, tf32) print their exact value.
_SHORTEST = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _elements(value: np.ndarray, t: Type) -> list[str]:
    """Each element of a tile, spelled as a number: floats as the shortest text of their
    own type where NumPy has one, else exactly."""
    e = t.element_type if isinstance(t, TileType) else None
    flat = value.reshape(-1)
    if isinstance(e, FloatType):
        if flat.dtype in _SHORTEST:
            return [str(x) for x in flat]
        return [repr(float(x)) for x in to_float64(flat, e)]
    if flat.dtype == np.bool_:
        return ["true" if x else "false" for x in flat]
    if isinstance(e, PointerType):
        return [f"{int(x):#x}" for x in flat]
    if isinstance(e, IntegerType) or flat.dtype.kind in "iu":
        return [str(int(x)) for x in flat]
    return [str(x) for x in flat]


def _contents(value: Any, t: Type) -> str:
    """A short description of a recorded value."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return _elements(value, t)[0]
        if value.size <= WHOLE:
            return "[" + ", ".join(_elements(value, t)) + "]"
        head = _elements(value.reshape(-1)[:HEAD], t)
        low, high = _range(value, t)
        return f"min {low} max {high}  [{', '.join(head)}, ...]"
    if isinstance(value, TensorView):
        return f"shape {list(value.shape)} strides {list(value.strides)} at {value.base:#x}"
    if isinstance(value, TiledView):
        return f"index space {list(value.index_space_shape)} of tensor " \
               f"{list(value.tensor.shape)}"
    if isinstance(value, Token):
        return "token"
    return type(value).__name__


def _range(value: np.ndarray, t: Type) -> tuple[str, str]:
    """The least and greatest element (NaNs ignored, unless all are NaN)."""
    e = t.element_type if isinstance(t, TileType) else None
    if isinstance(e, FloatType):
        flat = value.reshape(-1)
        wide = to_float64(flat, e)
        keep = ~np.isnan(wide)
        if not keep.any():
            return "nan", "nan"
        low, high = int(np.argmin(np.where(keep, wide, np.inf))), \
            int(np.argmax(np.where(keep, wide, -np.inf)))
        words = _elements(flat[[low, high]], t)
        return words[0], words[1]
    flat = value.reshape(-1)
    if flat.dtype == np.bool_:
        return ("true" if flat.all() else "false"), ("true" if flat.any() else "false")
    return str(int(flat.min())), str(int(flat.max()))


def _whole(value: np.ndarray, t: Type) -> str:
    """Every element of a tile, in its shape (rows of the last axis)."""
    words = np.array(_elements(value, t), dtype=object).reshape(value.shape)
    width = max(len(w) for w in words.reshape(-1))
    rows = words.reshape(-1, value.shape[-1])
    return "\n".join(" ".join(w.rjust(width) for w in row) for row in rows)


__all__ = ["format_trace"]
