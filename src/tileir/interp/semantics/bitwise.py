"""Semantics of the bitwise ops (spec group "Bitwise"): and, or, xor of the N-bit patterns.

The patterns are the tiles' own bits (i1 tiles are bool arrays, iN tiles two's-complement
NumPy integers), so NumPy's bitwise ufuncs on the arrays as they are give the spec's result
for every width; nothing is undefined.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..step import Step
from .registry import semantics

_BITWISE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "andi": np.bitwise_and,
    "ori": np.bitwise_or,
    "xori": np.bitwise_xor,
}


@semantics(*_BITWISE)
def bitwise(step: Step, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``andi`` / ``ori`` / ``xori``: the bitwise function of the two patterns, elementwise."""
    combine = _BITWISE[step.op.opdef.name]
    dtype = np.asarray(lhs).dtype
    return np.asarray(combine(np.asarray(lhs), np.asarray(rhs)), dtype=dtype)
