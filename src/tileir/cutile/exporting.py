"""A cuTile kernel exported to Tile IR bytecode by cuTile itself, read by tileir, cached.

The cache is kept on each kernel object, keyed by the full signature (every constraint,
constant values with their types), the bytecode version, the architecture and the
kernel's compiler options.  It lives and dies with the kernel, as cuTile's own JIT cache
does: a kernel freed and another created at the same address start empty (an ``id()`` key
would not), and no module is shared between two kernels (a module one caller edited can
never run for another kernel).
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from typing import Any, Sequence

from ..ir import Module

#: The bytecode version kernels are exported at (the newest cuTile writes as a release).
EXPORT_VERSION = "13.4"
#: The attribute each kernel object keeps its exports in.
_ATTRIBUTE = "_tileir_exports"
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Exported:
    """A kernel exported for one argument signature: the module and its entry's name."""

    module: Module
    symbol: str


def _signature(kernel: Any, constraints: Sequence[Any]) -> Any:
    """cuTile's signature for `constraints`, named as cuTile's mangling names it (or, when
    a string constant defeats the mangler, by the kernel's own name: one entry per module,
    so the name need not be unique)."""
    from cuda.tile.compilation import CallingConvention, KernelSignature
    name = kernel._annotated_function.pyfunc.__name__
    convention = CallingConvention.cutile_python_v2()
    if any(isinstance(getattr(c, "value", None), str) for c in constraints):
        return KernelSignature(list(constraints), calling_convention=convention, symbol=name)
    return KernelSignature(list(constraints), calling_convention=convention) \
        .with_mangled_symbol(name)


def _read(data: bytes) -> Module:
    """The module in `data`, read and verified."""
    from ..bytecode import from_bytecode
    return from_bytecode(data)


def _cache(kernel: Any) -> dict[Any, Exported]:
    """The exports cached on `kernel` (made on first use)."""
    cache = kernel.__dict__.get(_ATTRIBUTE)
    if cache is None:
        with _LOCK:
            cache = kernel.__dict__.setdefault(_ATTRIBUTE, {})
    return cache


def export(kernel: Any, constraints: Sequence[Any], version: str = EXPORT_VERSION
           ) -> Exported:
    """The kernel exported by cuTile for `constraints` and read by tileir (cached on the
    kernel).  cuTile's own errors (``TileTypeError`` and the like) propagate unchanged."""
    signature = _signature(kernel, constraints)
    key = (repr(signature), version, repr(getattr(kernel, "_compiler_options", None)))
    cache = _cache(kernel)
    found = cache.get(key)
    return found if found is not None else _export(kernel, signature, version, key, cache)


def export_specs(kernel: Any, specs: tuple[Any, ...], version: str = EXPORT_VERSION,
                 gpu_code: str | None = None) -> Exported:
    """`export` for the hashable specs of `tileir.cutile.arguments.read_arguments`: a
    cache hit builds no constraint or signature (the cost of a launch of a cached kernel).
    `gpu_code` (e.g. ``sm_90``) makes cuTile check the kernel's features against that
    architecture, raising its ``TileUnsupportedFeatureError`` as a launch there would."""
    key = ("specs", specs, version, gpu_code,
           repr(getattr(kernel, "_compiler_options", None)))
    cache = _cache(kernel)
    found = cache.get(key)
    if found is not None:
        return found
    import cuda.tile as ct
    signature = _signature(kernel, [spec.build(ct) for spec in specs])
    return _export(kernel, signature, version, key, cache, gpu_code)


def _export(kernel: Any, signature: Any, version: str, key: Any,
            cache: dict[Any, Exported], gpu_code: str | None = None) -> Exported:
    """Export `kernel` for `signature`, read it, and cache it under `key`."""
    from cuda.tile.compilation import export_kernel
    buffer = io.BytesIO()
    export_kernel(kernel, [signature], buffer, output_format="tileir_bytecode",
                  bytecode_version=version, gpu_code=gpu_code)
    exported = Exported(_read(buffer.getvalue()), signature.symbol)
    with _LOCK:
        return cache.setdefault(key, exported)


__all__ = ["EXPORT_VERSION", "Exported", "export", "export_specs"]
