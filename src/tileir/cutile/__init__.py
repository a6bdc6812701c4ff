"""Run cuTile Python kernels on the interpreter, with no GPU.

``tileir.cutile.launch(stream, grid, kernel, args)`` is a drop-in for ``cuda.tile.launch``:
the kernel is exported to bytecode by the installed ``cuda-tile`` package (its compiler
front end runs on any machine), read by tileir, and run on NumPy arrays or torch CPU
tensors with the interpreter's undefined-behaviour checks.

``tileir.cutile.cpu_mode()`` (a context manager; also ``enable()``/``disable()``, the
pytest plugin ``-p tileir.cutile.pytest_plugin`` and the environment variable
``TILEIR_CUTILE=cpu``) makes a cuTile project's code run unchanged on the CPU: see
`tileir.cutile.switch` for exactly what it changes.

``cuda-tile`` is an optional dependency (the ``oracles`` extra).
"""

from .arguments import Strided, flatten, read_arguments, read_array
from .exporting import EXPORT_VERSION, Exported, export, export_specs
from .launching import MAX_GRID_EXTENT, launch, parse_grid
from .switch import GpuOnlyError, cpu_mode, disable, enable, enabled

__all__ = ["EXPORT_VERSION", "Exported", "GpuOnlyError", "MAX_GRID_EXTENT", "Strided",
           "cpu_mode", "disable", "enable", "enabled", "export", "export_specs", "flatten",
           "launch", "parse_grid", "read_arguments", "read_array"]
