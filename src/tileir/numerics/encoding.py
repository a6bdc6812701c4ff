"""How element types are held in NumPy, exchanged via DLPack and PyTorch, and spelled in CUDA C.

This is the spec's "Element Type Encoding" table (chapter Semantics, Data Layout),
with its evident row shifts corrected (the published table puts ``torch.bool``
on the i8 row and calls e4m3 "E3M4") and extended to the types added after it
(f8E8M0FNU, f4E2M1FN, i4, f8E5M3FNU).  Signless integers list the signed
spelling first; tileir holds them in the signed NumPy dtype and reinterprets
them as unsigned where an op asks for it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ..types import (BF16, F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F16, F32, F64,
                     I1, I4, I8, I16, I32, I64, TF32, PointerType, Type)


class DLDataTypeCode(enum.IntEnum):
    """DLPack's ``DLDataTypeCode`` (dlpack.h, v1.1 and later)."""

    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLOpaqueHandle = 3
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6
    kDLFloat8_e3m4 = 7
    kDLFloat8_e4m3 = 8
    kDLFloat8_e4m3b11fnuz = 9
    kDLFloat8_e4m3fn = 10
    kDLFloat8_e4m3fnuz = 11
    kDLFloat8_e5m2 = 12
    kDLFloat8_e5m2fnuz = 13
    kDLFloat8_e8m0fnu = 14
    kDLFloat6_e2m3fn = 15
    kDLFloat6_e3m2fn = 16
    kDLFloat4_e2m1fn = 17


@dataclass(frozen=True)
class ElementEncoding:
    """One row of the encoding table.

    `numpy_dtype` is the dtype tileir holds tile values in (one element per
    array item: i1 as bool, 4-bit types one per byte); `numpy_dtypes` lists every
    dtype a buffer of this type may arrive as.  `dlpack` is (codes, bits, lanes) or
    None when DLPack has no code for the type; `torch` names ``torch`` dtypes without
    importing torch.  `cuda_c` is (signed or only spelling, unsigned spelling or None).
    """

    numpy_dtype: np.dtype
    numpy_dtypes: tuple[np.dtype, ...]
    dlpack: tuple[tuple[DLDataTypeCode, ...], int, int] | None
    torch: tuple[str, ...]
    cuda_c: tuple[str | None, str | None]


_C = DLDataTypeCode
_INT = (_C.kDLInt, _C.kDLUInt)


def _np(*names) -> tuple[np.dtype, ...]:
    return tuple(np.dtype(n) for n in names)


# Rows are in order of preference for `element_type_of_dtype`: a uint8 buffer is i8
# data before it is i1 or raw f8E5M3FNU codes, and float32 is f32 before tf32.
ENCODINGS: dict[Type, ElementEncoding] = {
    I8: ElementEncoding(np.dtype(np.int8), _np(np.int8, np.uint8), (_INT, 8, 1),
                        ("torch.int8", "torch.uint8"), ("signed char", "unsigned char")),
    I16: ElementEncoding(np.dtype(np.int16), _np(np.int16, np.uint16), (_INT, 16, 1),
                         ("torch.int16", "torch.uint16"), ("short", "unsigned short")),
    I32: ElementEncoding(np.dtype(np.int32), _np(np.int32, np.uint32), (_INT, 32, 1),
                         ("torch.int32", "torch.uint32"), ("int", "unsigned int")),
    I64: ElementEncoding(np.dtype(np.int64), _np(np.int64, np.uint64), (_INT, 64, 1),
                         ("torch.int64", "torch.uint64"), ("long long", "unsigned long long")),
    I1: ElementEncoding(np.dtype(np.bool_), _np(np.bool_, np.uint8, np.int8),
                        ((_C.kDLBool, _C.kDLUInt, _C.kDLInt), 8, 1), ("torch.bool",),
                        ("bool", None)),
    I4: ElementEncoding(np.dtype(ml_dtypes.int4), _np(ml_dtypes.int4, ml_dtypes.uint4),
                        (_INT, 4, 1), (), (None, None)),
    F16: ElementEncoding(np.dtype(np.float16), _np(np.float16), ((_C.kDLFloat,), 16, 1),
                         ("torch.float16",), ("half", None)),
    BF16: ElementEncoding(np.dtype(ml_dtypes.bfloat16), _np(ml_dtypes.bfloat16),
                          ((_C.kDLBfloat,), 16, 1), ("torch.bfloat16",), ("nv_bfloat16", None)),
    F32: ElementEncoding(np.dtype(np.float32), _np(np.float32), ((_C.kDLFloat,), 32, 1),
                         ("torch.float32",), ("float", None)),
    # tf32 is stored as a 4-byte f32 whose low 13 mantissa bits are not part of the value.
    TF32: ElementEncoding(np.dtype(np.float32), _np(np.float32), ((_C.kDLFloat,), 32, 1),
                          ("torch.float32",), ("float", None)),
    F64: ElementEncoding(np.dtype(np.float64), _np(np.float64), ((_C.kDLFloat,), 64, 1),
                         ("torch.float64",), ("double", None)),
    F8E4M3FN: ElementEncoding(np.dtype(ml_dtypes.float8_e4m3fn), _np(ml_dtypes.float8_e4m3fn),
                              ((_C.kDLFloat8_e4m3fn,), 8, 1), ("torch.float8_e4m3fn",),
                              ("__nv_fp8_e4m3", None)),
    F8E5M2: ElementEncoding(np.dtype(ml_dtypes.float8_e5m2), _np(ml_dtypes.float8_e5m2),
                            ((_C.kDLFloat8_e5m2,), 8, 1), ("torch.float8_e5m2",),
                            ("__nv_fp8_e5m2", None)),
    F8E8M0FNU: ElementEncoding(np.dtype(ml_dtypes.float8_e8m0fnu),
                               _np(ml_dtypes.float8_e8m0fnu), ((_C.kDLFloat8_e8m0fnu,), 8, 1),
                               ("torch.float8_e8m0fnu",), ("__nv_fp8_e8m0", None)),
    # Memory holds two f4E2M1FN values per byte (low nibble first); torch's only
    # spelling is the packed pair type.
    F4E2M1FN: ElementEncoding(np.dtype(ml_dtypes.float4_e2m1fn), _np(ml_dtypes.float4_e2m1fn),
                              ((_C.kDLFloat4_e2m1fn,), 4, 1), ("torch.float4_e2m1fn_x2",),
                              ("__nv_fp4_e2m1", None)),
    # No NumPy, DLPack, PyTorch or CUDA C type exists yet: values are held as raw bytes.
    F8E5M3FNU: ElementEncoding(np.dtype(np.uint8), _np(np.uint8), None, (), (None, None)),
}

#: Pointer tiles hold 64-bit virtual addresses.
POINTER_DTYPE = np.dtype(np.int64)


def numpy_dtype(t: Type) -> np.dtype:
    """The NumPy dtype tileir holds values of element type `t` in."""
    if isinstance(t, PointerType):
        return POINTER_DTYPE
    return _encoding(t).numpy_dtype


def dlpack_type(t: Type) -> tuple[int, int, int] | None:
    """DLPack (type code, bits, lanes) of element type `t`, or None when DLPack has none.

    Signless integers report ``kDLInt``; the table lists every accepted code.
    """
    if isinstance(t, PointerType):
        return (int(_C.kDLUInt), 64, 1)
    entry = _encoding(t).dlpack
    if entry is None:
        return None
    codes, bits, lanes = entry
    return (int(codes[0]), bits, lanes)


def accepts_dlpack(t: Type, code: int, bits: int, lanes: int = 1) -> bool:
    """True when a DLPack tensor of (code, bits, lanes) can hold values of type `t`."""
    entry = _encoding(t).dlpack
    return entry is not None and code in entry[0] and bits == entry[1] and lanes == entry[2]


def torch_dtype_names(t: Type) -> tuple[str, ...]:
    """Names of the PyTorch dtypes that hold `t` (empty when there is none)."""
    return _encoding(t).torch


def cuda_c_name(t: Type, signed: bool = True) -> str | None:
    """The CUDA C spelling of `t` (``float``, ``half``, ``unsigned int``, ``float*``)."""
    if isinstance(t, PointerType):
        inner = cuda_c_name(t.pointee, signed)
        return None if inner is None else inner + "*"
    signed_name, unsigned_name = _encoding(t).cuda_c
    return signed_name if signed or unsigned_name is None else unsigned_name


def element_type_of_dtype(dtype: np.dtype) -> Type | None:
    """The element type a buffer of `dtype` holds (f32 for float32, i16 for uint16), or None."""
    dtype = np.dtype(dtype)
    return next((t for t, enc in ENCODINGS.items() if dtype in enc.numpy_dtypes), None)


def _encoding(t: Type) -> ElementEncoding:
    try:
        return ENCODINGS[t]
    except KeyError:
        raise KeyError(f"{t} is not a Tile IR element type") from None
