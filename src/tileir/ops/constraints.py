"""Type constraints of op operands and results, with the reference's summary wording."""

from __future__ import annotations

from ..types import (BF16, F16, F32, F64, FLOAT_TYPES, I1, I4, I8, I16, I32, I64, INTEGER_TYPES,
                     NUMBER_TYPES, TOKEN, TF32, F8E4M3FN, F8E5M2, F4E2M1FN, F8E8M0FNU,
                     GatherScatterViewType, PartitionViewType, PointerType, StridedViewType,
                     TensorViewType, TileType, TiledView, TokenType, Type)
from .base import ANY_TYPE, TypeConstraint


def _names(types) -> str:
    return " or ".join(t.format() for t in types)


def tile_of(elements, what: str | None = None) -> TypeConstraint:
    elements = tuple(elements)
    summary = f"tile of {what or _names(elements)} values"
    return TypeConstraint(summary, lambda t: isinstance(t, TileType) and t.element_type in elements)


def scalar_of(elements, what: str | None = None,
              buildable: Type | None = None) -> TypeConstraint:
    elements = tuple(elements)
    summary = f"0D tile of {what or _names(elements)} values"
    return TypeConstraint(summary, lambda t: isinstance(t, TileType) and t.rank == 0
                          and t.element_type in elements, buildable)


def _is_ptr_tile(t: Type) -> bool:
    return isinstance(t, TileType) and isinstance(t.element_type, PointerType)


def _kind(cls: type, summary: str) -> TypeConstraint:
    return TypeConstraint(summary, lambda t: isinstance(t, cls))


BASE_FLOATS = (F16, BF16, F32, F64)
MMA_FLOATS = (F16, BF16, F32, F64, TF32, F8E4M3FN, F8E5M2)

BASE_FLOAT_TILE = tile_of(BASE_FLOATS)
FLOAT_TILE = tile_of(FLOAT_TYPES)
INT_TILE = tile_of(INTEGER_TYPES)
INT4_TILE = tile_of(INTEGER_TYPES + (I4,))
NUMBER_TILE = tile_of(NUMBER_TYPES)
NUMBER4_TILE = tile_of(NUMBER_TYPES + (I4,))
I1_TILE = tile_of((I1,))
I8_TILE = tile_of((I8,))
I32_TILE = tile_of((I32,))
I64_TILE = tile_of((I64,))
PTR_TILE = TypeConstraint("tile of Pointer type values", _is_ptr_tile)
ANY_TILE = TypeConstraint("tile of any type values", lambda t: isinstance(t, TileType))
MMA_INPUT = tile_of(MMA_FLOATS)
MMA_ACC = tile_of((F16, F32, F64))
SCALED_INPUT = tile_of((F8E4M3FN, F8E5M2, F4E2M1FN))
SCALE = tile_of((F8E4M3FN, F8E8M0FNU))
F32_TILE = tile_of((F32,))

SCALAR_INT = scalar_of(INTEGER_TYPES)
SCALAR_I1 = scalar_of((I1,), buildable=TileType((), I1))
SCALAR_I32 = scalar_of((I32,), buildable=TileType((), I32))
SCALAR_PTR = TypeConstraint("0D tile of Pointer type values",
                            lambda t: _is_ptr_tile(t) and t.rank == 0)

TOKEN_C = TypeConstraint("cuda tile token type", lambda t: isinstance(t, TokenType), TOKEN)
TENSOR_VIEW = _kind(TensorViewType, "cuda tile tensor view type")
PARTITION_VIEW = _kind(PartitionViewType, "cuda tile partition view type")
STRIDED_VIEW = _kind(StridedViewType, "cuda tile strided view type")
GATHER_SCATTER_VIEW = _kind(GatherScatterViewType, "cuda tile gather scatter view type")
TILE_VIEW = _kind(TiledView, "TileView instance")
ANY = ANY_TYPE

#: Shorthand codes used by the op tables.
CODES: dict[str, TypeConstraint] = {
    "fB": BASE_FLOAT_TILE, "f": FLOAT_TILE, "iN": INT_TILE, "i4N": INT4_TILE,
    "num": NUMBER_TILE, "num4": NUMBER4_TILE, "i1": I1_TILE, "i8": I8_TILE, "i32": I32_TILE,
    "i64": I64_TILE, "f32": F32_TILE, "ptr": PTR_TILE, "tile": ANY_TILE, "mma_in": MMA_INPUT,
    "mma_acc": MMA_ACC, "scaled_in": SCALED_INPUT, "scale": SCALE, "s_i": SCALAR_INT,
    "s_i1": SCALAR_I1, "s_i32": SCALAR_I32, "s_ptr": SCALAR_PTR, "token": TOKEN_C,
    "tv": TENSOR_VIEW, "pv": PARTITION_VIEW, "sv": STRIDED_VIEW, "gsv": GATHER_SCATTER_VIEW,
    "view": TILE_VIEW, "any": ANY,
    "fpowi_exp": tile_of((I1, I8, I16, I32)),
}
