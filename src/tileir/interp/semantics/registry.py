"""How an op's meaning is written: a function over NumPy arrays, filed under the op's name.

``@semantics("addf")`` files ``fn(step, *operands) -> result | tuple of results``.  Operands
and results are run-time values: a tile is a NumPy array of its element type's dtype
(`tileir.numerics.numpy_dtype`; rank 0 is a 0-d array), a pointer tile an int64 array of
virtual addresses, a view or a token an object of `tileir.interp`.  Functions are written
over whole arrays (no per-element Python loops), so that a later engine can add a leading
grid axis and run every tile block at once.
"""

from __future__ import annotations

from typing import Any, Callable

Semantics = Callable[..., Any]

SEMANTICS: dict[str, Semantics] = {}


def short_name(op: Any) -> str:
    """The name an op's semantics are filed under: its declaration's short name
    (``"addf"``), or the op's full name when it has no declaration."""
    return op.opdef.name if op.opdef is not None else op.name


def semantics(*names: str) -> Callable[[Semantics], Semantics]:
    """File `fn` as the meaning of each op in `names` (short names, e.g. ``"addf"``)."""
    def register(fn: Semantics) -> Semantics:
        """File `fn` and return it unchanged."""
        for name in names:
            if name in SEMANTICS:
                raise ValueError(f"semantics of '{name}' defined twice")
            SEMANTICS[name] = fn
        return fn
    return register
