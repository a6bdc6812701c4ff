"""The folds and canonicalization patterns of the cuda_tile ops, one module per op group
(mirroring `tileir.ops`), as NVIDIA's reference declares them: folds of ``constant``,
``select``, ``assume`` and ``if``; canonicalization patterns of ``addf``, ``select`` and
``if``.  Importing the package registers the folds (`tileir.transforms.rewriter.FOLDS`);
`canonicalization_patterns` gathers the patterns (MLIR's ``getCanonicalizationPatterns``).
"""

from __future__ import annotations

from ..rewriter import Patterns
from . import control_flow, core, floating_point, misc

#: The op-group modules, each with its `PATTERNS`.
GROUPS = (core, floating_point, misc, control_flow)


def canonicalization_patterns(*names: str) -> Patterns:
    """The canonicalization patterns of the ops named (full names), or of every op."""
    patterns = Patterns()
    for group in GROUPS:
        for name, found in group.PATTERNS.by_name.items():
            if not names or name in names:
                for pattern in found:
                    patterns.add(name, pattern)
    return patterns


__all__ = ["GROUPS", "canonicalization_patterns"]
