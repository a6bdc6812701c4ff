"""13.5's preview ops at run time: a `preview$call` runs code outside Tile IR (an extern
function's implementation, compiled by NVIDIA's tools for the GPU), which the abstract
machine has no model of; it stops with one clear error instead of computing anything."""

from __future__ import annotations

from typing import Any

from ..step import Step
from .registry import semantics


@semantics("preview$call")
def preview_call(step: Step, *operands: Any) -> Any:
    """Refuse: the callee's implementation is code outside Tile IR."""
    callee = step.op.attributes["callee"].format()
    raise step.fail(f"calls the extern function {callee}, whose implementation is code "
                    "outside Tile IR (--preview=simt): the interpreter cannot run it")
