"""Printer name hooks (MLIR's OpAsmOpInterface): the ``%cst_1_i32``, ``%tview`` names."""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

from ..attributes import DenseElementsAttr
from ..types import I1, FloatType, IntegerType


def fixed(*names: str | None) -> Callable[[Any], list[str | None]]:
    """The same names for every op of a kind (``tview``, ``blockId_x``...)."""
    return lambda op: list(names)


def first(name: str) -> Callable[[Any], list[str | None]]:
    """A name for result 0 only (``for``, ``reduce``), when there are results."""
    return lambda op: [name] if op.results else []


def constant_name(op: Any) -> list[str | None]:
    """``true``/``false``/``cst_i1``; ``cst_<v>_<type>`` for a one-valued integral constant."""
    value = op.attributes.get("value")
    if not isinstance(value, DenseElementsAttr):
        return [None]
    element = value.type.element_type
    values = value.values
    if element is I1 or element == I1:
        elements = value.elements()
        if all(elements):
            return ["true"]
        if not any(elements):
            return ["false"]
        return ["cst_i1"]
    name = "cst"
    if len(values) == 1:
        if isinstance(element, IntegerType):
            name += f"_{values[0]}"
        elif isinstance(element, FloatType):
            suffix = _float_integral_suffix(values[0], element)
            if suffix is not None:
                name += "_" + suffix
    return [f"{name}_{element.format()}"]


@functools.lru_cache(maxsize=4096)
def _float_integral_suffix(bits: int, t: FloatType) -> str | None:
    """``NaN``, or the value when it converts exactly to an unsigned 64-bit integer
    (APFloat's rule: negative zero does not).  Remembered per (bits, type): kernels
    repeat the same constants, and the answer is pure."""
    from ..syntax.floats import float_value
    value = float_value(bits, t)
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")) or value != int(value) or value < 0:
        return None
    if value == 0 and math.copysign(1.0, value) < 0:
        return None
    return str(int(value)) if value < 2 ** 64 else None


def assume_name(op: Any) -> list[str | None]:
    """``assume_`` + the producer's name when the producer has a naming hook."""
    value = op.operands[0] if op.operands else None
    producer = getattr(value, "owner", None)
    opdef = getattr(producer, "opdef", None)
    if opdef is None or not hasattr(producer, "results") or "AsmNames" not in opdef.traits:
        return ["assume"]
    names = opdef.result_names(producer) if opdef.result_names else []
    index = value.index
    hint = names[index] if index < len(names) and names[index] else ""
    return ["assume_" + hint]


def for_block_args(op: Any, region: int) -> list[str]:
    count = len(op.regions[region].block.arguments)
    return ["loopIdx"] + [f"iterArg{i}" for i in range(count - 1)]


def reduce_block_args(op: Any, region: int) -> list[str]:
    count = len(op.regions[region].block.arguments)
    names = []
    for i in range(count):
        base = "reduce_lhs" if i % 2 == 0 else "reduce_rhs"
        names.append(base + (str(i // 2) if count > 2 else ""))
    return names
