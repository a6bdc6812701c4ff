"""tileir: NVIDIA's CUDA Tile IR in pure Python."""

from .diagnostics import (BytecodeError, ConversionError, Diagnostic, ExecutionError, Location,
                          ParseError, Severity, TileIRError, VerificationError)
from .syntax.type_parser import parse_type
from .versions import LATEST, SUPPORTED_VERSIONS, Version

__version__ = "0.1.0"

__all__ = [
    "BytecodeError", "ConversionError", "Diagnostic", "ExecutionError", "LATEST", "Location",
    "ParseError", "SUPPORTED_VERSIONS", "Severity", "TileIRError", "VerificationError", "Version",
    "parse_type",
]
