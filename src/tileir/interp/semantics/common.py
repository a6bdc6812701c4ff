"""Facts and helpers several op groups share: where an element first goes wrong, which
readings an overflow flag promises, and operands by their declared names."""

from __future__ import annotations

from typing import Any, Callable, Sequence

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


def operand_slices(op: Any) -> tuple[tuple[str, int, int], ...]:
    """(name, start, end) of each declared operand group of `op`: its operands
    ``start:end`` (optional groups may be empty)."""
    out = []
    i = 0
    for declared, group in zip(op.opdef.operands, op.operand_groups()):
        out.append((declared.name, i, i + len(group)))
        i += len(group)
    return tuple(out)


def step_slices(step: Step) -> tuple[tuple[str, int, int], ...]:
    """`operand_slices` of the step's op: kept in the op's plan when the machine runs
    one (`tileir.interp.plan`), else found now."""
    plan = step.plan
    return plan.slices if plan is not None else operand_slices(step.op)


def group_types(step: Step, name: str) -> list[Any]:
    """The declared types of the step's op's operand group `name`."""
    for declared, start, end in step_slices(step):
        if declared == name:
            return [v.type for v in step.op.operands[start:end]]
    raise KeyError(name)


def op_facts(step: Step, derive: Callable[[Step], Any]) -> Any:
    """``derive(step)``: facts a semantics function reads from the op alone (its types and
    attributes, never operand values), derived once and kept in the op's plan (a plan is
    read again whenever its kernel changes: `tileir.interp.plan`), else derived now."""
    plan = step.plan
    if plan is None:
        return derive(step)
    facts = plan.facts
    found = facts.get(derive)
    if found is None:
        found = facts[derive] = derive(step)
    return found


def named_operands(step: Step, operands: Sequence[Any]) -> dict[str, list[Any]]:
    """The operand values grouped by the declaration's operand names (optional ones may be
    empty lists)."""
    return {name: list(operands[start:end]) for name, start, end in step_slices(step)}


def single(groups: dict[str, list[Any]], name: str) -> Any:
    """The value of optional operand `name`, or None when absent."""
    values = groups.get(name) or []
    return values[0] if values else None


__all__ = ["OVERFLOW_PROMISES", "element_array", "first_index", "group_types", "named_operands",
           "op_facts", "operand_slices", "single", "step_slices"]
