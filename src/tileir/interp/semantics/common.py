"""Facts and helpers several op groups share: where an element first goes wrong, which
readings an overflow flag promises, and operands by their declared names."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...enums import IntegerOverflow
from ...numerics import from_bits
from ...types import Type
from ..step import Step

#: Which readings of the value (signed: True, unsigned: False) each overflow flag promises
#: do not wrap: the result is undefined when a promised reading wraps.
OVERFLOW_PROMISES: dict[IntegerOverflow, tuple[bool, ...]] = {
    IntegerOverflow.NONE: (),
    IntegerOverflow.NO_SIGNED_WRAP: (True,),
    IntegerOverflow.NO_UNSIGNED_WRAP: (False,),
    IntegerOverflow.NO_WRAP: (True, False),
}


def element_array(raw: Sequence[int], t: Type) -> np.ndarray:
    """Values as attributes hold them (a float's bit pattern, an integer of any sign) as an
    array of element type `t`."""
    return from_bits(np.array([v & ((1 << 64) - 1) for v in raw], dtype=np.uint64), t)


def first_index(mask: np.ndarray) -> list[int]:
    """The row-major index of the first true element of `mask` (for messages)."""
    return [int(i) for i in np.unravel_index(int(np.argmax(mask)), np.shape(mask))]


def named_operands(step: Step, operands: Sequence[Any]) -> dict[str, list[Any]]:
    """The operand values grouped by the declaration's operand names (optional ones may be
    empty lists)."""
    out: dict[str, list[Any]] = {}
    i = 0
    for declared, group in zip(step.op.opdef.operands, step.op.operand_groups()):
        out[declared.name] = list(operands[i:i + len(group)])
        i += len(group)
    return out


def single(groups: dict[str, list[Any]], name: str) -> Any:
    """The value of optional operand `name`, or None when absent."""
    values = groups.get(name) or []
    return values[0] if values else None


__all__ = ["OVERFLOW_PROMISES", "element_array", "first_index", "named_operands", "single"]
