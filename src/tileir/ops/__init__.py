"""The Tile IR dialect: one declaration per op, grouped by the spec's op groups."""

from . import registry
from .base import AttrDef, OpDef, OperandDef, ResultDef, TypeConstraint
from .registry import all_ops, lookup

__all__ = ["AttrDef", "OpDef", "OperandDef", "ResultDef", "TypeConstraint", "all_ops",
           "lookup", "registry"]
