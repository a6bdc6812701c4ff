"""``tileir.cutile.launch``: ``ct.launch`` on the interpreter, with ``ct.launch``'s own
argument checks (the same exception types and messages) before any tile block runs."""

from __future__ import annotations

import os

import operator
from dataclasses import replace
from typing import Any, Callable, Sequence

from ..diagnostics import ExecutionError
from ..interp.launch import ENGINES
from .arguments import read_arguments
from .exporting import export_specs
from .switch import arch

#: cuTile refuses grid extents past 2**24 - 1 (a limit of its compiler's block ids).
MAX_GRID_EXTENT = (1 << 24) - 1


def parse_grid(grid: Any) -> tuple[int, int, int]:
    """`grid` checked as ``ct.launch`` checks it: a tuple of at most three non-negative
    integers below 2**24, padded with ones."""
    if not isinstance(grid, tuple):
        raise TypeError("Grid must be a tuple")
    if len(grid) > 3:
        raise ValueError(f"Grid dimensions must be at most 3, got length {len(grid)}")
    dims = []
    for i, extent in enumerate(grid):
        if isinstance(extent, float):
            raise TypeError("'float' object cannot be interpreted as an integer")
        value = operator.index(extent)
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value > MAX_GRID_EXTENT:
            raise ValueError(f"Grid[{i}] exceeds 24-bit limit: max={MAX_GRID_EXTENT}, "
                             f"got={value}. Use multiple kernel launches for larger workloads.")
        dims.append(value)
    return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]


def launch(stream: Any, grid: tuple[int, ...], kernel: Any, kernel_args: Sequence[Any],
           *, schedule: str = "sequential", seed: int | None = None, checks: bool = True,
           max_ops: int | None = None, engine: str | None = None, workers: int | None = None,
           on_error: str = "restore", on_run: Callable[[], None] | None = None,
           on_compile_error: Callable[[], None] | None = None, trace: Any = None) -> Any:
    """Run a ``@ct.kernel`` on the interpreter, as ``cuda.tile.launch(stream, grid, kernel,
    kernel_args)`` would on a GPU of the architecture ``TILEIR_CUTILE_ARCH`` names (default
    sm_100: cuTile refuses what that GPU cannot run); `stream` is accepted and ignored.
    Writes land in the argument arrays; undefined behaviour raises `tileir.ExecutionError`
    (and a failed launch leaves the arrays as they were, unless ``on_error="keep"``).
    A grid with a zero extent runs no tile block.  Returns the interpreter's `Run` (which
    engine ran), or None when no tile block ran.  `on_compile_error` is called when cuTile
    refuses the kernel, `on_run` just before the interpreter runs it (for counting).

    `trace` records values as `tileir.interp.launch` does (``Run.trace``; on failure the
    error's ``trace``), with events at the kernel's Python lines and, where a statement
    assigns the value, named after its variable.

    `engine` None: the one ``TILEIR_CUTILE_ENGINE`` names (``auto``, ``blocks``,
    ``batched``, ``compiled``; default ``auto``), so a cuTile suite can run on any."""
    from ..interp import launch as run
    if engine is None:
        engine = os.environ.get(ENGINE_ENV) or "auto"
        if engine not in ENGINES:
            raise ValueError(f"{ENGINE_ENV}={engine!r} names no engine; use one of "
                             f"{', '.join(ENGINES)}")
    dims = parse_grid(grid)
    if not isinstance(kernel_args, (tuple, list)):
        raise TypeError(f"kernel arguments must be a tuple, got {type(kernel_args).__name__}")
    specs, flat = read_arguments(kernel, kernel_args)
    major, minor = arch()
    try:
        exported = export_specs(kernel, specs, gpu_code=f"sm_{major}{minor}")
    except Exception:
        if on_compile_error is not None:
            on_compile_error()
        raise
    if 0 in dims:
        return None
    if on_run is not None:
        on_run()
    if trace is None or trace is False:
        return run(exported.module, exported.symbol, dims, flat, schedule=schedule,
                   seed=seed, checks=checks, max_ops=max_ops, engine=engine,
                   workers=workers, on_error=on_error)
    from .tracing import name_variables
    try:
        result = run(exported.module, exported.symbol, dims, flat, schedule=schedule,
                     seed=seed, checks=checks, max_ops=max_ops, engine=engine,
                     workers=workers, on_error=on_error, trace=trace)
    except ExecutionError as exc:
        exc.trace = name_variables(exc.trace)
        raise
    return replace(result, trace=name_variables(result.trace))


#: The environment variable naming the engine cuTile launches run on (default: auto).
ENGINE_ENV = "TILEIR_CUTILE_ENGINE"

__all__ = ["ENGINE_ENV", "MAX_GRID_EXTENT", "launch", "parse_grid"]
