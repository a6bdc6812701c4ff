"""The element type encoding table: NumPy, DLPack, PyTorch and CUDA C spellings."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

from tileir import numerics
from tileir.numerics import DLDataTypeCode as C
from tileir.types import ELEMENT_INFO, PointerType, element_type

# element: (NumPy dtype, DLPack (code, bits, lanes), PyTorch names, CUDA C signed/unsigned)
TABLE = {
    "i1": (np.bool_, (C.kDLBool, 8, 1), ("torch.bool",), ("bool", "bool")),
    "i4": (ml_dtypes.int4, (C.kDLInt, 4, 1), (), (None, None)),
    "i8": (np.int8, (C.kDLInt, 8, 1), ("torch.int8", "torch.uint8"),
           ("signed char", "unsigned char")),
    "i16": (np.int16, (C.kDLInt, 16, 1), ("torch.int16", "torch.uint16"),
            ("short", "unsigned short")),
    "i32": (np.int32, (C.kDLInt, 32, 1), ("torch.int32", "torch.uint32"), ("int", "unsigned int")),
    "i64": (np.int64, (C.kDLInt, 64, 1), ("torch.int64", "torch.uint64"),
            ("long long", "unsigned long long")),
    "f16": (np.float16, (C.kDLFloat, 16, 1), ("torch.float16",), ("half", "half")),
    "bf16": (ml_dtypes.bfloat16, (C.kDLBfloat, 16, 1), ("torch.bfloat16",),
             ("nv_bfloat16", "nv_bfloat16")),
    "f32": (np.float32, (C.kDLFloat, 32, 1), ("torch.float32",), ("float", "float")),
    "tf32": (np.float32, (C.kDLFloat, 32, 1), ("torch.float32",), ("float", "float")),
    "f64": (np.float64, (C.kDLFloat, 64, 1), ("torch.float64",), ("double", "double")),
    "f8E4M3FN": (ml_dtypes.float8_e4m3fn, (C.kDLFloat8_e4m3fn, 8, 1), ("torch.float8_e4m3fn",),
                 ("__nv_fp8_e4m3", "__nv_fp8_e4m3")),
    "f8E5M2": (ml_dtypes.float8_e5m2, (C.kDLFloat8_e5m2, 8, 1), ("torch.float8_e5m2",),
               ("__nv_fp8_e5m2", "__nv_fp8_e5m2")),
    "f8E8M0FNU": (ml_dtypes.float8_e8m0fnu, (C.kDLFloat8_e8m0fnu, 8, 1),
                  ("torch.float8_e8m0fnu",), ("__nv_fp8_e8m0", "__nv_fp8_e8m0")),
    "f4E2M1FN": (ml_dtypes.float4_e2m1fn, (C.kDLFloat4_e2m1fn, 4, 1), ("torch.float4_e2m1fn_x2",),
                 ("__nv_fp4_e2m1", "__nv_fp4_e2m1")),
    "fnv8E5M3FNU": (np.uint8, None, (), (None, None)),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_encoding_row(name, tally):
    t = element_type(name)
    dtype, dlpack, torch_names, cuda = TABLE[name]
    assert numerics.numpy_dtype(t) == np.dtype(dtype)
    assert numerics.dlpack_type(t) == (None if dlpack is None else tuple(int(v) for v in dlpack))
    assert numerics.torch_dtype_names(t) == torch_names
    assert (numerics.cuda_c_name(t), numerics.cuda_c_name(t, signed=False)) == cuda
    tally("element encodings checked", 1)


def test_the_table_covers_every_element_type():
    assert sorted(str(t) for t in ELEMENT_INFO) == sorted(TABLE)


def test_spec_table_codes_are_accepted():
    # The spec lists kDLInt and kDLUInt for every signless integer type.
    for name in ["i8", "i16", "i32", "i64"]:
        bits = int(name[1:])
        t = element_type(name)
        assert numerics.accepts_dlpack(t, C.kDLInt, bits)
        assert numerics.accepts_dlpack(t, C.kDLUInt, bits)
        assert not numerics.accepts_dlpack(t, C.kDLFloat, bits)
    assert numerics.accepts_dlpack(element_type("i1"), C.kDLUInt, 8)
    assert not numerics.accepts_dlpack(element_type("f8E5M3FNU"), C.kDLUInt, 8)


def test_pointers():
    p = PointerType(element_type("f32"))
    assert numerics.numpy_dtype(p) == np.dtype(np.int64)
    assert numerics.dlpack_type(p) == (int(C.kDLUInt), 64, 1)
    assert numerics.cuda_c_name(p) == "float*"


def test_dtype_to_element_type():
    assert numerics.element_type_of_dtype(np.float32) == element_type("f32")
    assert numerics.element_type_of_dtype(np.uint16) == element_type("i16")
    assert numerics.element_type_of_dtype(ml_dtypes.float8_e5m2) == element_type("f8E5M2")
    assert numerics.element_type_of_dtype(np.uint8) == element_type("i8")
    assert numerics.element_type_of_dtype(np.bool_) == element_type("i1")
    assert numerics.element_type_of_dtype(ml_dtypes.int4) == element_type("i4")
    assert numerics.element_type_of_dtype(np.complex64) is None


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="torch is not installed (pip install tileir[torch])")
def test_torch_names_exist_in_torch():
    import torch
    for name, (_, _, torch_names, _) in TABLE.items():
        for full in torch_names:
            dtype = getattr(torch, full.removeprefix("torch."))
            assert isinstance(dtype, torch.dtype), full
