"""tileir: NVIDIA's CUDA Tile IR in pure Python."""

from .diagnostics import (BytecodeError, ConversionError, Diagnostic, ExecutionError, Location,
                          ParseError, Severity, TileIRError, VerificationError)
from .ir import Block, Builder, Module, Operation, Region, Value
from .api import from_bytecode, load, parse
from .syntax.parser import parse_document
from .syntax.type_parser import parse_type
from .versions import LATEST, SUPPORTED_VERSIONS, Version

__version__ = "0.1.0"

__all__ = [
    "Block", "Builder", "BytecodeError", "ConversionError", "Diagnostic", "ExecutionError",
    "LATEST", "Location", "Module", "Operation", "ParseError", "Region", "SUPPORTED_VERSIONS",
    "Severity", "TileIRError", "Value", "VerificationError", "Version", "from_bytecode", "load",
    "parse",
    "parse_document", "parse_type",
]
