"""The textual syntax of Tile IR: lexing and parsing in MLIR's exact conventions."""

from .type_parser import TypeParser, parse_type

__all__ = ["TypeParser", "parse_type"]
