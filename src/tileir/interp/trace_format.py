"""A `Trace` as a table for the terminal: one row per recorded value; and how values are
spelled there (`element_texts`, `extremes`), which ``tileir run`` prints its buffers with
too."""

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
    limit = getattr(trace, "stopped_at", None)
    if limit is None:
        return ""
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


def element_texts(values: np.ndarray, e: Type | None) -> list[str]:
    """Each element of `values` (of element type `e`), in row-major order, spelled as a
    number: floats as the shortest text reading back as the same value of their own type
    where NumPy has one (f16, f32, f64), else exactly (ml_dtypes' types and raw codes:
    ``0.10009765625`` for bf16's nearest to 0.1); i1 as true and false, pointers in hex,
    integers in decimal (as held: an i8 given as uint8 shows its uint8 values)."""
    flat = values.reshape(-1)
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


def extremes(values: np.ndarray, e: Type | None) -> tuple[str, str, int]:
    """The least and the greatest element of `values` (of element type `e`), spelled as
    `element_texts` spells them, NaNs left out (both "nan" when every element is one),
    and how many elements are NaN."""
    flat = values.reshape(-1)
    if isinstance(e, FloatType):
        wide = to_float64(flat, e)
        numbers = np.flatnonzero(~np.isnan(wide))
        nans = flat.size - numbers.size
        if not numbers.size:
            return "nan", "nan", nans
        kept = wide[numbers]
        low, high = int(numbers[np.argmin(kept)]), int(numbers[np.argmax(kept)])
    else:
        ordered = flat if flat.dtype.kind in "biu" else flat.astype(np.int64)
        low, high, nans = int(np.argmin(ordered)), int(np.argmax(ordered)), 0
    words = element_texts(flat[[low, high]], e)
    return words[0], words[1], nans


def _element_type(t: Type) -> Type | None:
    """The element type of a tile type (None for any other type)."""
    return t.element_type if isinstance(t, TileType) else None


def _contents(value: Any, t: Type) -> str:
    """A short description of a recorded value."""
    if isinstance(value, np.ndarray):
        e = _element_type(t)
        if value.ndim == 0:
            return element_texts(value, e)[0]
        if value.size <= WHOLE:
            return "[" + ", ".join(element_texts(value, e)) + "]"
        head = element_texts(value.reshape(-1)[:HEAD], e)
        low, high, _ = extremes(value, e)
        return f"min {low} max {high}  [{', '.join(head)}, ...]"
    if isinstance(value, TensorView):
        return f"shape {list(value.shape)} strides {list(value.strides)} at {value.base:#x}"
    if isinstance(value, TiledView):
        return f"index space {list(value.index_space_shape)} of tensor " \
               f"{list(value.tensor.shape)}"
    if isinstance(value, Token):
        return "token"
    return type(value).__name__


def _whole(value: np.ndarray, t: Type) -> str:
    """Every element of a tile, in its shape (rows of the last axis)."""
    words = np.array(element_texts(value, _element_type(t)), dtype=object).reshape(value.shape)
    width = max(len(w) for w in words.reshape(-1))
    rows = words.reshape(-1, value.shape[-1])
    return "\n".join(" ".join(w.rjust(width) for w in row) for row in rows)


__all__ = ["element_texts", "extremes", "format_trace"]
