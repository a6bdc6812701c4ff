"""Compile once, launch many times: ``kernel = tileir.compile(path_or_module)``, then
``kernel(grid, *args)``.

`compile` reads the module (a `Module`, Tile IR text or bytecode, or a file path),
verifies it, finds the entry and plans it (`plan.KernelPlan`, and the batched engine's
analysis); each call then only checks and maps its arguments and runs the tile blocks.
The plan is the one `launch` keeps on the entry: it is checked against the entry's
fingerprint on every call, so a module edited after `compile` is planned again, never run
from a stale plan; an entry replaced in the module (a pass that rebuilds it) is found
again by its name, never run as it was.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence, TextIO

from ..ir import Module, Operation
from .launch import Run, _module_of, batch_analysis, checked_options, entry_of, launch_entry
from .plan import plan_of
from .trace import TraceSpec


class Kernel:
    """One entry of a module, ready to launch: ``kernel(grid, *args, checks=True, ...)``
    takes `launch`'s keyword options and returns its `Run`."""

    def __init__(self, module: Module | str | bytes | os.PathLike, name: str | None = None
                 ) -> None:
        self.module = _module_of(module)
        if not isinstance(module, (str, bytes, bytearray, os.PathLike)):
            self.module.verify()        # (text, bytecode and files are verified as read)
        self.entry: Operation = entry_of(self.module, name)
        self.name: str = self.entry.symbol
        batch_analysis(plan_of(self.entry))     # (the batched engine's, made now)

    @property
    def parameters(self) -> list[Any]:
        """The entry's parameter types, in order."""
        return list(plan_of(self.entry).params)

    def __call__(self, grid: int | Sequence[int], *args: Any, schedule: str = "sequential",
                 seed: int | None = None, checks: bool = True, stdout: TextIO | None = None,
                 max_ops: int | None = None, engine: str = "auto",
                 workers: int | None = None, on_error: str = "restore",
                 progress: Callable[[int, int], None] | None = None,
                 trace: bool | str | TraceSpec | None = None) -> Run:
        """Run the kernel on every tile block of `grid` with `args` (see `launch`)."""
        spec = checked_options(schedule, seed, checks, max_ops, engine, workers, on_error,
                               args, trace, progress)
        if not any(e is self.entry for e in self.module.entries):
            self.entry = entry_of(self.module, self.name)     # (replaced since compile)
        return launch_entry(self.module, self.entry, grid, args, schedule=schedule,
                            seed=seed, checks=checks, stdout=stdout, max_ops=max_ops,
                            engine=engine, workers=workers, on_error=on_error,
                            progress=progress, spec=spec)

    def __repr__(self) -> str:
        params = ", ".join(t.format(False) if hasattr(t, "format") else str(t)
                           for t in self.parameters)
        return f"<tileir.Kernel @{self.name}({params})>"


def compile(module: Module | str | bytes | os.PathLike, name: str | None = None) -> Kernel:
    """Entry `name` (None: the module's only entry) of `module` (a `Module`, Tile IR text
    or bytecode, or the path of a file holding either), read, verified and planned once:
    call the result as ``kernel(grid, *args)`` to launch it."""
    return Kernel(module, name)


__all__ = ["Kernel", "compile"]
