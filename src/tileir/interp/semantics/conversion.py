"""Semantics of the conversion ops (spec group "Conversion"): exact to the bit.

Every conversion is built on `tileir.numerics`, which rounds the exact source value once
(spec 5.1.3): ``ftof`` and ``itof`` round with the op's rounding mode, the narrow float
formats saturate, ``ftoi`` rounds to an integer and (13.4 ``saturating``) clamps to the
target's range.  Undefined behaviour reported when checks are on: ``ftoi`` without
``saturating`` on NaN, Inf or an out-of-range value, and ``trunci`` losing bits under
``no_signed_wrap`` / ``no_unsigned_wrap``.  Pointers are int64 arrays of virtual addresses,
so the pointer casts relabel the same 64 bits, except that a pointer to a 4-bit pointee holds
a nibble address (`tileir.interp.pointers`): converted from and to byte addresses.
"""

from __future__ import annotations

import numpy as np

from ...enums import IntegerOverflow, RoundingMode
from ...numerics import from_bits, to_bits
from ...numerics import (convert_float, extend_int, float_to_int,
                         float_to_int_undefined, int_to_float,
                         truncate_int, truncation_loses_value)
from ..pointers import from_byte_address, is_nibble_pointee, to_byte_address
from ..step import Step
from .common import OVERFLOW_PROMISES, first_index
from .registry import semantics



def _rounding(step: Step, default: RoundingMode) -> RoundingMode:
    """The op's ``rounding_mode`` (its declared default when absent)."""
    mode = step.op.enum("rounding_mode")
    return default if mode is None else mode



# ---- bits, unchanged ----------------------------------------------------------------



@semantics("bitcast")
def bitcast(step: Step, source: np.ndarray) -> np.ndarray:
    """``bitcast``: the same bits read as another element type of the same width."""
    bits = to_bits(source, step.element_type(0))
    return from_bits(bits, step.element_type())


@semantics("int_to_ptr")
def int_to_ptr(step: Step, source: np.ndarray) -> np.ndarray:
    """``int_to_ptr``: the i64 value, read unsigned, is the byte address (int64 bits
    unchanged); a pointer to a 4-bit pointee addresses the low nibble of that byte."""
    pointee = step.result_type(0).element_type.pointee
    return np.array(from_byte_address(np.asarray(source, dtype=np.int64), pointee),
                    dtype=np.int64)


@semantics("ptr_to_int")
def ptr_to_int(step: Step, source: np.ndarray) -> np.ndarray:
    """``ptr_to_int``: the byte address as i64 (to be read unsigned); a pointer to a 4-bit
    pointee gives the address of the byte holding its element (the nibble is dropped)."""
    pointee = step.op.operands[0].type.element_type.pointee
    return np.array(to_byte_address(np.asarray(source, dtype=np.int64), pointee),
                    dtype=np.int64)


@semantics("ptr_to_ptr")
def ptr_to_ptr(step: Step, source: np.ndarray) -> np.ndarray:
    """``ptr_to_ptr``: the same byte addresses with another pointee type (converted between
    nibble and byte addresses when exactly one pointee is 4-bit)."""
    before = step.op.operands[0].type.element_type.pointee
    after = step.result_type(0).element_type.pointee
    pointer = np.asarray(source, dtype=np.int64)
    if is_nibble_pointee(before) == is_nibble_pointee(after):
        return pointer.copy()  # same granularity: a 4-bit to 4-bit cast keeps the nibble
    return np.array(from_byte_address(to_byte_address(pointer, before), after), np.int64)


# ---- numeric conversions ---------------------------------------------------------------


@semantics("ftof")
def ftof(step: Step, source: np.ndarray) -> np.ndarray:
    """``ftof``: one exact rounding into the target format (narrow formats saturate)."""
    return convert_float(source, step.element_type(0), step.element_type(),
                         _rounding(step, RoundingMode.NEAREST_EVEN))


@semantics("itof")
def itof(step: Step, source: np.ndarray) -> np.ndarray:
    """``itof``: the integer (read with the op's signedness) rounded once into the target."""
    return int_to_float(source, step.element_type(0), step.element_type(), step.signed(),
                        _rounding(step, RoundingMode.NEAREST_EVEN))


@semantics("ftoi")
def ftoi(step: Step, source: np.ndarray) -> np.ndarray:
    """``ftoi``: round to an integer and clamp to the target (NaN gives 0); without
    ``saturating``, NaN, Inf or a rounded value out of range is undefined behaviour."""
    args = (source, step.element_type(0), step.element_type(), step.signed(),
            _rounding(step, RoundingMode.NEAREST_INT_TO_ZERO))
    if step.checks and not step.op.has_flag("saturating"):
        bad = float_to_int_undefined(*args)
        if np.any(bad):
            where = first_index(bad)
            value = np.asarray(source)[tuple(where)]
            kind = "signed" if step.signed() else "unsigned"
            raise step.undefined(
                f"converts {float(value)!r} at element {where}, which is NaN, infinite or "
                f"out of the {kind} range of {step.element_type()}, without 'saturating'",
                "ftoi without 'saturating' needs every rounded value inside the target's "
                "range (for i1, only 0 and 1: cuTile lowers astype(float, bool) to such an "
                "ftoi)" if step.element_type().width == 1 else
                "ftoi without 'saturating' needs every rounded value inside the target's "
                "range")
    return float_to_int(*args)


@semantics("exti")
def exti(step: Step, source: np.ndarray) -> np.ndarray:
    """``exti``: sign extension (signed) or zero extension (unsigned)."""
    return extend_int(source, step.element_type(0), step.element_type(), step.signed())


@semantics("trunci")
def trunci(step: Step, source: np.ndarray) -> np.ndarray:
    """``trunci``: keep the low bits; under ``nsw`` / ``nuw`` losing a value is undefined."""
    source_type, target = step.element_type(0), step.element_type()
    if step.checks:
        flag = step.op.enum("overflow") or IntegerOverflow.NONE
        for signed in OVERFLOW_PROMISES[flag]:
            lost = truncation_loses_value(source, source_type, target, signed)  # type: ignore[arg-type]
            if np.any(lost):
                where = first_index(lost)
                value = np.asarray(source)[tuple(where)]
                kind = "signed" if signed else "unsigned"
                raise step.fail(f"truncates {int(value)} at element {where} to {target}, "
                                f"losing its {kind} value under overflow<{flag}> "
                                "(undefined behaviour)")
    return truncate_int(source, source_type, target)  # type: ignore[arg-type]
