"""Facts and helpers several op groups share: where an element first goes wrong, and which
readings an overflow flag promises."""

from __future__ import annotations

import numpy as np

from ...enums import IntegerOverflow

#: Which readings of the value (signed: True, unsigned: False) each overflow flag promises
#: do not wrap: the result is undefined when a promised reading wraps.
OVERFLOW_PROMISES: dict[IntegerOverflow, tuple[bool, ...]] = {
    IntegerOverflow.NONE: (),
    IntegerOverflow.NO_SIGNED_WRAP: (True,),
    IntegerOverflow.NO_UNSIGNED_WRAP: (False,),
    IntegerOverflow.NO_WRAP: (True, False),
}


def first_index(mask: np.ndarray) -> list[int]:
    """The row-major index of the first true element of `mask` (for messages)."""
    return [int(i) for i in np.unravel_index(int(np.argmax(mask)), np.shape(mask))]


__all__ = ["OVERFLOW_PROMISES", "first_index"]
