"""``canonicalize``: MLIR's canonicalizer on Tile IR: every op's folds and canonicalization
patterns (`tileir.transforms.canonical`) applied by the greedy driver, top-down by default,
with dead code removed and constants hoisted and uniqued (MLIR's Canonicalizer pass and
its options)."""

from __future__ import annotations

from typing import Any

from ...ir import Operation
from ..canonical import canonicalization_patterns
from ..registry import PassOption, failure, register
from ..rewriter import MAX_ITERATIONS, GreedyConfig, run_greedily

#: MLIR's ``region-simplify`` levels (tileir's regions have one block each, so "normal"
#: and "aggressive", which also merges identical blocks, do the same).
REGION_SIMPLIFY = ("disabled", "normal", "aggressive")

OPTIONS = (
    PassOption("top-down", bool, True, "seed the worklist in general top-down order"),
    PassOption("region-simplify", str, "normal",
               "region simplification: disabled, normal or aggressive",
               choices=REGION_SIMPLIFY),
    PassOption("max-iterations", int, MAX_ITERATIONS,
               "the most sweeps of the greedy driver (-1: no limit)"),
    PassOption("max-num-rewrites", int, -1, "the most rewrites per sweep (-1: no limit)"),
    PassOption("test-convergence", bool, False, "fail when the patterns do not converge"),
)


@register("canonicalize", "any", "canonicalize operations", OPTIONS)
def canonicalize(op: Operation, options: dict[str, Any]) -> None:
    """Apply every fold and canonicalization pattern to the ops nested in `op`."""
    config = GreedyConfig(top_down=options["top-down"],
                          max_iterations=options["max-iterations"],
                          max_rewrites=options["max-num-rewrites"],
                          simplify_regions=options["region-simplify"] != "disabled")
    _, converged = run_greedily(op, canonicalization_patterns(), config)
    if options["test-convergence"] and not converged:
        raise failure("canonicalization did not converge", op)
