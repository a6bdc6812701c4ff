"""Semantics of the bitwise ops (spec group "Bitwise"): and, or, xor of the N-bit patterns.

The patterns are the tiles' own bits (i1 tiles are bool arrays, iN tiles two's-complement
NumPy integers), so NumPy's bitwise ufuncs on the arrays as they are give the spec's result
for every width; nothing is undefined.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from ...numerics import numpy_dtype
from ...types import IntegerType, TileType
from ..step import Step
from .registry import semantics
from .scalar import scalar_of

# op -> (the function on arrays, the same on Python ints for the scalar path)
_BITWISE: dict[str, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray],
                          Callable[[int, int], int]]] = {
    "andi": (np.bitwise_and, operator.and_),
    "ori": (np.bitwise_or, operator.or_),
    "xori": (np.bitwise_xor, operator.xor),
}


@semantics(*_BITWISE)
def bitwise(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``andi`` / ``ori`` / ``xori``: the bitwise function of the two patterns, elementwise."""
    combine = _BITWISE[step.op.opdef.name][0]
    dtype = np.asarray(lhs).dtype
    return np.asarray(combine(np.asarray(lhs), np.asarray(rhs)), dtype=dtype)


@scalar_of(bitwise)
def _bitwise_scalar(op: Any) -> Callable[..., Any] | None:
    """The scalar path (`scalar`) on rank-0 tiles of i1, i8, i16, i32 or i64: the function
    on the values as Python ints (signed readings: Python's ints are two's complement of
    unbounded width, so the result is the pattern's own, read signed; i1 holds 0 or 1)."""
    t = op.results[0].type if len(op.results) == 1 else None
    if not (isinstance(t, TileType) and t.rank == 0 and isinstance(t.element_type, IntegerType)
            and t.element_type.width in (1, 8, 16, 32, 64)
            and all(v.type == t for v in op.operands)):
        return None
    combine = _BITWISE[op.opdef.name][1]
    dtype = numpy_dtype(t.element_type)

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
        """The result, or None (an operand with lanes or a block axis)."""
        if lhs.shape or rhs.shape:
            return None
        return np.array(combine(int(lhs), int(rhs)), dtype)
    return run
