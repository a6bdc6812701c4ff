"""Scalar paths: a faster way to run an op whose operands are all rank-0 tiles.

A loop on scalars runs each op's semantics function on 0-d arrays, where NumPy's cost per
call (a dozen ufuncs for an ``addi`` with its overflow checks) is all there is.  A scalar
path computes the same result on Python integers.  It is filed against the semantics
function it speeds up (`scalar_of`), next to it and built from the same tables, and is
used only while that very function is the op's semantics (`scalar_path`), so replacing a
semantics function drops its scalar path too.

A scalar path is made per op (``make(op)``, from its types and attributes, once per plan:
`tileir.interp.plan`) and returns a function of the operand values that either gives the
result, bit for bit the semantics function's, or returns None to decline.  It declines
whenever an operand is not a 0-d array (lanes of a reduce body, the batched engine's block
axis) and wherever the semantics function might report undefined behaviour (an overflow a
flag rules out, a division by zero): the semantics function then runs and decides, so
every diagnostic comes from it.  A path serves ops with one result, and its answer is a
fresh array of that result's dtype and shape, which the machine binds without checking it
again.  Tests compare every scalar path with its semantics function bit for bit
(tests/interp/test_scalar_paths.py).
"""

from __future__ import annotations

from typing import Any, Callable

from .registry import Semantics

#: A scalar path's maker: the op -> a function of its operand values giving the result or
#: None (decline), or None when the path does not apply to this op at all.
Maker = Callable[[Any], Callable[..., Any] | None]

#: Semantics function -> the maker of its scalar path.
SCALAR: dict[Semantics, Maker] = {}


def scalar_of(general: Semantics) -> Callable[[Maker], Maker]:
    """File a maker as the scalar path of semantics function `general` (the object filed
    in `SEMANTICS`)."""
    def register(make: Maker) -> Maker:
        """File `make` and return it unchanged."""
        if general in SCALAR:
            raise ValueError(f"scalar path of {general.__name__} defined twice")
        SCALAR[general] = make
        return make
    return register


def scalar_path(general: Semantics | None, op: Any) -> Callable[..., Any] | None:
    """The scalar path of `op`, whose semantics function is `general`, or None."""
    make = SCALAR.get(general) if general is not None else None
    return make(op) if make is not None else None


__all__ = ["SCALAR", "scalar_of", "scalar_path"]
