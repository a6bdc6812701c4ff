"""Lowering of the two-operand math ops `fpowi` and `atan2` (f32), a mixin of
`lower._Lowering`.

Both are, in the reference (`interp/semantics/floating_point.py`), NumPy's float64
function (``power``, ``arctan2``) rounded once to f32.  The compiled code calls the C
library's float64 function of the same meaning (``pow``, ``atan2``) and rounds it where
every f64 near it rounds alike, else settles the element by the reference's semantics:
`_Lowering._rounded_f64`, shared with exp, log, sin, ... (docs/compiled-engine.md)."""

from __future__ import annotations

from typing import Any

from ...ir import Operation

#: The ops this mixin lowers (elementwise: they fuse, and may sit in a reduce body).
MATH_OPS = frozenset({"fpowi", "atan2"})


class MathLowering:
    """fpowi and atan2 on f32, rounded from the C library's f64 value or settled."""

    def _fpowi(self: Any, op: Operation) -> Any:
        """source ** n, n a signed integer (i1's 1 reads -1) as f64, as the reference
        computes it: C pow's special cases (pow(x, 0) is 1, even for a NaN x; a zero
        base with a negative n is an infinity), rounded or settled (`_rounded_f64`)."""
        return self._libm(op)

    def _atan2(self: Any, op: Operation) -> Any:
        """C's atan2(x, y): the angle of (y, x), its quadrant from both signs (signed
        zeros included), rounded or settled (`_rounded_f64`)."""
        return self._libm(op)


__all__ = ["MATH_OPS", "MathLowering"]
