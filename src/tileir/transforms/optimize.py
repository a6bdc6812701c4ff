"""NVIDIA's optimization levels -O0 to -O3 as pass pipelines (cuda-tile-optimize's default
pipeline, ``buildDefaultCudaTilePipeline`` in the reference's
``lib/Dialect/CudaTile/Optimizer/CudaTileOptimizer.cpp``).

The reference nests its passes under each op of the ``cuda_tile.module`` (``nestAny``:
in effect its functions, ``entry`` and testing functions) and adds, in order:

- ``fuse-fma``, when FMA fusion is asked for (off by default, at any level, -O0 included);
- at -O1 and above: ``canonicalize``, ``cse``;
- at -O2 and above: ``loop-invariant-code-motion``;
- at -O3 (the tool's default level): ``loop-split{split-threshold=1}`` and ``canonicalize``
  again.

``optimize(module, level=3)`` runs that pipeline on a module in place; ``cuda-tile-opt -O3``
(and ``--fuse-fma-opt``) does the same from the command line.
"""

from __future__ import annotations

from typing import Any

from ..ir import Operation
from .registry import FUNCTION_OPS, load_passes

#: The levels, from none to all.
LEVELS = (0, 1, 2, 3)

#: cuda-tile-optimize's default level (``--opt-level``, ``-O``).
DEFAULT_LEVEL = 3

#: The reference's default ``loopSplitThreshold``.
DEFAULT_SPLIT_THRESHOLD = 1


def passes_for(level: int, fuse_fma: bool = False,
               split_threshold: int = DEFAULT_SPLIT_THRESHOLD) -> list[str]:
    """The passes of level `level`, in order, each as a pipeline spells it (with its
    options in braces)."""
    if level not in LEVELS:
        raise ValueError(f"optimization level must be one of 0, 1, 2, 3, got {level!r}")
    passes = ["fuse-fma"] if fuse_fma else []
    if level >= 1:
        passes += ["canonicalize", "cse"]
    if level >= 2:
        passes.append("loop-invariant-code-motion")
    if level >= 3:
        passes += [f"loop-split{{split-threshold={split_threshold}}}", "canonicalize"]
    return passes


def pipeline_for(level: int, fuse_fma: bool = False,
                 split_threshold: int = DEFAULT_SPLIT_THRESHOLD) -> str:
    """The pipeline text of level `level`, anchored on ``cuda_tile.module``: the passes run
    on each function in it (``-O0`` without `fuse_fma` runs nothing)."""
    body = ", ".join(passes_for(level, fuse_fma, split_threshold))
    return "cuda_tile.module(" + ", ".join(f"{op}({body})" for op in sorted(FUNCTION_OPS)) \
        + ")"


def missing_passes(level: int, fuse_fma: bool = False) -> list[str]:
    """The passes of level `level` that are not registered (yet)."""
    registered = load_passes()
    names = [text.partition("{")[0] for text in passes_for(level, fuse_fma)]
    return [name for name in dict.fromkeys(names) if name not in registered]


def optimize(module: Operation, level: int = DEFAULT_LEVEL, fuse_fma: bool = False,
             check_semantics: bool = False, **check_options: Any) -> Operation:
    """Run level `level`'s pipeline on `module` in place (a ``cuda_tile.module``, or the
    ``builtin.module`` around one) and return it; with `check_semantics` each pass is
    checked by running the kernels before and after it (`tileir.transforms.run`).  Raises
    `PassFailure` when a pass fails or is not registered."""
    from . import run
    return run(module, anchored_pipeline(module, level, fuse_fma),
               check_semantics=check_semantics, **check_options)


def anchored_pipeline(top: Operation, level: int, fuse_fma: bool = False) -> str:
    """Level `level`'s pipeline as text to run on `top`: a ``cuda_tile.module``, or the
    ``builtin.module`` MLIR's tools wrap one in (then nested in it)."""
    pipeline = pipeline_for(level, fuse_fma)
    return f"builtin.module({pipeline})" if top.name == "builtin.module" else pipeline


__all__ = ["DEFAULT_LEVEL", "LEVELS", "anchored_pipeline", "missing_passes", "optimize",
           "passes_for", "pipeline_for"]
