"""Passes over Tile IR: NVIDIA's optimizer passes and MLIR's generic ones, run from a
textual pipeline (``"canonicalize,cse"`` or ``"builtin.module(cuda_tile.module(...))"``).

``tileir.transforms.run(module, "canonicalize,cse")`` rewrites `module` in place: each
pass runs on the ops its pipeline anchors it to, the verifier runs after each pass, and
with ``check_semantics=True`` each pass is also checked by running the kernels before and
after it (see `check.py`).  The layer sits above the IR and the verifier
(ARCHITECTURE.md): a pass is another view of the op declarations.
"""

from __future__ import annotations

from typing import Any

from ..ir import Operation
from .pipeline import Checks, InvalidAfterPass, PipelineError, parse_pipeline, run_pipeline
from .registry import PASSES, PassDef, PassFailure, PassOption, load_passes, register


def run(op: Operation, pipeline: str, *, verify_each: bool = True,
        check_semantics: bool = False, **check_options: Any) -> Operation:
    """Run `pipeline` on `op` (a module, or any op the pipeline anchors on), in place;
    `op` is returned.  Raises `PassFailure` (a `TileIRError`) when a pass fails, the
    pipeline is wrong, the verifier rejects a pass's output, or, with `check_semantics`, a
    pass changes what a kernel computes."""
    checks = Checks(verify_each=verify_each)
    if check_semantics:
        from .check import semantics_checks
        checks = semantics_checks(op, checks, **check_options)
    run_pipeline(op, pipeline, checks)
    return op


__all__ = ["Checks", "InvalidAfterPass", "PASSES", "PassDef", "PassFailure", "PassOption",
           "PipelineError", "load_passes", "parse_pipeline", "register", "run", "run_pipeline"]
