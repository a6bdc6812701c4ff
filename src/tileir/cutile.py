"""Run cuTile Python kernels on the interpreter: ``tileir.cutile.launch`` is a drop-in for
``cuda.tile.launch`` that needs no GPU.

The kernel is exported to bytecode by the installed ``cuda-tile`` package (its compiler front
end runs on any machine), read by tileir, and run on NumPy arrays (or anything exposing
DLPack on the CPU, such as torch CPU tensors) with the interpreter's undefined-behaviour
checks.  Arguments follow cuTile's calling convention: an array becomes its base pointer,
its shape and its strides (in elements); ``ct.Constant`` parameters are folded into the
kernel; a Python scalar takes the type cuTile gives a loose constant (int32, else int64,
else uint64; float32; bool).

``cuda-tile`` is an optional dependency (the ``oracles`` extra).
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .diagnostics import ExecutionError, error
from .ir import Module

#: The bytecode version kernels are exported at (the newest tileir reads).
EXPORT_VERSION = "13.4"
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _ct():
    try:
        import cuda.tile as ct
    except ImportError as exc:  # the optional dependency
        raise ExecutionError(error("tileir.cutile needs cuTile Python: pip install cuda-tile "
                                   f"(or tileir[oracles]) ({exc})")) from None
    return ct


def _dtype_table(ct) -> dict[str, Any]:
    """NumPy dtype name -> cuTile dtype."""
    names = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
             "uint64", "float16", "bfloat16", "float32", "float64", "float8_e4m3fn",
             "float8_e5m2")
    table = {("bool" if n == "bool_" else n): getattr(ct, n) for n in names if hasattr(ct, n)}
    return table


def _is_constant(annotation: Any) -> bool:
    """Whether a parameter annotation is ``ct.Constant[...]``."""
    if isinstance(annotation, str):   # unresolved: go by its spelling
        return "Constant[" in annotation
    if typing.get_origin(annotation) is typing.Annotated:
        return any(type(m).__name__ == "ConstantAnnotation" for m in annotation.__metadata__)
    return False


def _as_array(value: Any) -> np.ndarray | None:
    """`value` as a NumPy array sharing its memory (DLPack or the array protocol), or
    None for a scalar."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bool, int, float, np.generic)):
        return None
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError) as exc:
            raise ExecutionError(error(f"cannot read a {type(value).__name__} argument on the "
                                       f"CPU through DLPack: {exc}")) from None
    if hasattr(value, "__array_interface__"):
        return np.asarray(value)
    return None


def _scalar_dtype(value: Any) -> str:
    """The cuTile dtype name of a runtime scalar, as for a loose constant."""
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if _INT32[0] <= value <= _INT32[1]:
            return "int32"
        return "int64" if _INT64[0] <= value <= _INT64[1] else "uint64"
    if isinstance(value, float):
        return "float32"
    raise ExecutionError(error(f"cannot pass a {type(value).__name__} to a cuTile kernel"))


@dataclass
class Exported:
    """A kernel exported for one argument signature: the module and how to flatten."""

    module: Module
    symbol: str


def _buffer(array: np.ndarray, where: str) -> tuple[np.ndarray, tuple[int, ...]]:
    """A C-contiguous array starting at `array`'s first element and covering all of it
    (the array itself, or a window of the array it views), and its strides in elements."""
    itemsize = array.dtype.itemsize
    if any(s < 0 for s in array.strides) or any(s % itemsize for s in array.strides):
        raise ExecutionError(error(f"{where} has negative or unaligned strides "
                                   f"{array.strides}; cuTile arrays need non-negative strides"))
    strides = tuple(s // itemsize for s in array.strides)
    if array.flags.c_contiguous or array.size == 0:
        return np.ascontiguousarray(array), strides
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        raise ExecutionError(error(f"{where} is a view of a non-contiguous array; pass a view "
                                   "of a C-contiguous array"))
    flat = root.reshape(-1).view(np.uint8)
    start = array.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    extent = sum((n - 1) * s for n, s in zip(array.shape, array.strides)) + itemsize
    window = flat[start:start + extent].view(array.dtype)
    return window, strides


def flatten(function: Any, args: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """cuTile's signature constraints for `args` and the interpreter's arguments (arrays
    become base, shape, strides; constants disappear)."""
    ct = _ct()
    from cuda.tile.compilation import ArrayConstraint, ScalarConstraint
    dtypes = _dtype_table(ct)
    pyfunc = function._annotated_function.pyfunc
    params = list(inspect.signature(pyfunc).parameters.values())
    try:   # resolve string annotations (modules with `from __future__ import annotations`)
        hints = typing.get_type_hints(pyfunc, include_extras=True)
    except Exception:  # an annotation that does not resolve: keep the raw ones
        hints = {}
    if len(args) != len(params):
        raise ExecutionError(error(f"kernel '{pyfunc.__name__}' takes {len(params)} arguments, "
                                   f"got {len(args)}"))
    constraints: list[Any] = []
    flat: list[Any] = []
    for param, value in zip(params, args):
        where = f"argument '{param.name}' of '{pyfunc.__name__}'"
        if _is_constant(hints.get(param.name, param.annotation)):
            constraints.append(value)
            continue
        array = _as_array(value)
        if array is None:
            name = _scalar_dtype(value)
            if name not in dtypes:
                raise ExecutionError(error(f"{where}: cuTile has no {name} scalars"))
            constraints.append(ScalarConstraint(dtypes[name]))
            flat.append(value)
            continue
        name = "bool" if array.dtype == np.bool_ else array.dtype.name
        if name not in dtypes:
            raise ExecutionError(error(f"{where}: cuTile has no arrays of {array.dtype}"))
        buffer, strides = _buffer(array, where)
        extent = max([abs(n * s) for n, s in zip(array.shape, strides)] + [*array.shape, 0])
        index = ct.int32 if extent <= _INT32[1] else ct.int64
        constraints.append(ArrayConstraint(
            dtypes[name], array.ndim, index_dtype=index, stride_lower_bound_incl=0,
            alias_groups=(), may_alias_internally=False))
        flat.append(buffer)
        flat.extend(int(n) for n in array.shape)
        flat.extend(int(s) for s in strides)
    return constraints, flat


_CACHE: dict[tuple, Exported] = {}


def export(function: Any, constraints: Sequence[Any], version: str = EXPORT_VERSION
           ) -> Exported:
    """The kernel exported by cuTile for `constraints` and read by tileir (cached)."""
    import os
    import tempfile

    from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel

    from .bytecode import from_bytecode
    signature = KernelSignature(list(constraints),
                                calling_convention=CallingConvention.cutile_python_v2())
    signature = signature.with_mangled_symbol(function._annotated_function.pyfunc.__name__)
    key = (id(function), repr(signature), version)
    found = _CACHE.get(key)
    if found is not None:
        return found
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.tileirbc")
        export_kernel(function, [signature], path, output_format="tileir_bytecode",
                      bytecode_version=version)
        with open(path, "rb") as handle:
            module = from_bytecode(handle.read())
    exported = Exported(module, signature.symbol)
    _CACHE[key] = exported
    return exported


def launch(stream: Any, grid: int | Sequence[int], kernel: Any, kernel_args: Sequence[Any],
           *, schedule: str = "sequential", seed: int | None = None, checks: bool = True,
           max_ops: int | None = None, engine: str = "auto", workers: int | None = None
           ) -> Any:
    """Run a ``@ct.kernel`` on the interpreter, as ``cuda.tile.launch(stream, grid, kernel,
    args)`` would on a GPU; `stream` is accepted and ignored.  Writes land in the argument
    arrays; undefined behaviour raises `ExecutionError`.  Returns the interpreter's `Run`
    (which engine ran)."""
    from .interp import launch as run
    constraints, flat = flatten(kernel, kernel_args)
    exported = export(kernel, constraints)
    grid = (grid,) if isinstance(grid, int) else tuple(grid)
    return run(exported.module, exported.symbol, grid, flat, schedule=schedule, seed=seed,
               checks=checks, max_ops=max_ops, engine=engine, workers=workers)


__all__ = ["EXPORT_VERSION", "Exported", "export", "flatten", "launch"]
