"""tileir: NVIDIA's CUDA Tile IR in pure Python."""

from .diagnostics import (BytecodeError, ConversionError, Diagnostic, ExecutionError,
                          LaunchError, Location, ParseError, Severity, TileIRError,
                          VerificationError)
from .ir import Block, Builder, Module, Operation, Region, Value
from .api import from_bytecode, load, parse
from .syntax.parser import parse_document
from .syntax.type_parser import parse_type
from .versions import LATEST, SUPPORTED_VERSIONS, Version

__version__ = "0.1.0"

#: Names resolved on first use, so that ``import tileir`` stays light: the interpreter and
#: cuTile support (which imports cuda-tile, and torch when present) load only when asked.
_LAZY = {
    "launch": ("tileir.interp.launch", "launch"),
    "compile": ("tileir.interp.kernel", "compile"),
    "Kernel": ("tileir.interp.kernel", "Kernel"),
    "Trace": ("tileir.interp.trace", "Trace"),
    "cutile": ("tileir.cutile", None),
    "reduce": ("tileir.reducer", "reduce"),
}


def __getattr__(name: str):
    """The lazily imported names of `_LAZY` (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'tileir' has no attribute {name!r}")
    import importlib
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "Block", "Builder", "BytecodeError", "ConversionError", "Diagnostic", "ExecutionError",
    "Kernel", "LATEST", "LaunchError", "Location", "Module", "Operation", "ParseError",
    "Region", "SUPPORTED_VERSIONS", "Severity", "TileIRError", "Trace", "Value",
    "VerificationError", "Version", "compile", "cutile", "from_bytecode", "launch", "load",
    "parse", "parse_document", "parse_type", "reduce",
]
