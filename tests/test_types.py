"""The type system: element facts, structural equality, printing, verification, index spaces."""

from __future__ import annotations

import pytest

from tileir import VerificationError
from tileir.enums import PaddingValue
from tileir.types import (BF16, ELEMENT_INFO, F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU,
                          F16, F32, F64, I1, I4, I8, I16, I32, I64, TF32, TOKEN, BuiltinType,
                          FloatType, FunctionType, GatherScatterViewType, IntegerType,
                          PartitionViewType, PointerType, StridedViewType, TensorViewType,
                          TileType, element_type)
from tileir.versions import Version

# ---------------------------------------------------------------------------------------
# Element types: (bit size, storage bits, introduced in), from the spec and Types.td
# ---------------------------------------------------------------------------------------

ELEMENTS = {
    "i1": (1, 8, "13.1"), "i4": (4, 4, "13.3"), "i8": (8, 8, "13.1"), "i16": (16, 16, "13.1"),
    "i32": (32, 32, "13.1"), "i64": (64, 64, "13.1"), "f16": (16, 16, "13.1"),
    "bf16": (16, 16, "13.1"), "f32": (32, 32, "13.1"), "tf32": (32, 32, "13.1"),
    "f64": (64, 64, "13.1"), "f8E4M3FN": (8, 8, "13.1"), "f8E5M2": (8, 8, "13.1"),
    "f8E8M0FNU": (8, 8, "13.2"), "f4E2M1FN": (4, 4, "13.3"), "fnv8E5M3FNU": (8, 8, "13.4"),
}


def test_every_element_type_is_known_with_its_facts(tally):
    assert sorted(t.format() for t in ELEMENT_INFO) == sorted(ELEMENTS)
    for name, (bits, storage, since) in ELEMENTS.items():
        t = element_type(name)
        assert str(t) == name
        assert (t.info.bit_width, t.info.storage_bits) == (bits, storage)
        assert t.info.since == Version.parse(since)
    tally("element types described", len(ELEMENTS))


def test_element_type_lookup_rejects_unknown_names():
    with pytest.raises(KeyError):
        element_type("f80")
    assert IntegerType(28).info is None and FloatType("f80").info is None


# ---------------------------------------------------------------------------------------
# Values: immutable, hashable, structurally equal
# ---------------------------------------------------------------------------------------

def test_types_are_structural_values():
    a = TileType((8, 4), F32)
    b = TileType([8, 4], FloatType("f32"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.shape = (4,)  # type: ignore[misc]
    assert TileType((8, 4), F16) != a and TileType((4, 8), F32) != a


def test_dynamic_and_static_views_are_distinct_types():
    # Spec 5.5: a type with `?` covers the static ones, yet they are distinct types.
    dynamic = TensorViewType(F32, (None, 16), (16, 1))
    static = TensorViewType(F32, (64, 16), (16, 1))
    assert dynamic != static and hash(dynamic) != hash(static)
    assert not dynamic.is_static and static.is_static


def test_omitted_dim_map_is_the_identity():
    tv = TensorViewType(F32, (16, 16), (16, 1))
    assert PartitionViewType((2, 2), tv) == PartitionViewType((2, 2), tv, (0, 1))
    assert PartitionViewType((2, 2), tv).dim_map == (0, 1)
    assert PartitionViewType((2, 2), tv, (1, 0)) != PartitionViewType((2, 2), tv)


# ---------------------------------------------------------------------------------------
# Printing: the reference's spelling (types.mlir CHECK lines, reference notes section 2)
# ---------------------------------------------------------------------------------------

TV16 = TensorViewType(F32, (16,), (1,))
TV2D = TensorViewType(F32, (16, 16), (16, 1))

PRINTED = [
    (PointerType(I1), "!cuda_tile.ptr<i1>", "ptr<i1>"),
    (TileType((2,), F32), "!cuda_tile.tile<2xf32>", "tile<2xf32>"),
    (TileType((), F32), "!cuda_tile.tile<f32>", "tile<f32>"),
    (TileType((4,), PointerType(I8)), "!cuda_tile.tile<4xptr<i8>>", "tile<4xptr<i8>>"),
    (TensorViewType(F32, (), ()), "!cuda_tile.tensor_view<f32>", "tensor_view<f32>"),
    (TensorViewType(F32, (None, 2), (1, None)), "!cuda_tile.tensor_view<?x2xf32, strides=[1,?]>",
     "tensor_view<?x2xf32, strides=[1,?]>"),
    (PartitionViewType((2,), TV16, None, PaddingValue.NEG_ZERO),
     "!cuda_tile.partition_view<tile=(2), padding_value = neg_zero, tensor_view<16xf32, "
     "strides=[1]>>",
     "partition_view<tile=(2), padding_value = neg_zero, tensor_view<16xf32, strides=[1]>>"),
    (PartitionViewType((2, 2), TV2D, (1, 0)),
     "!cuda_tile.partition_view<tile=(2x2), tensor_view<16x16xf32, strides=[16,1]>, "
     "dim_map=[1, 0]>",
     "partition_view<tile=(2x2), tensor_view<16x16xf32, strides=[16,1]>, dim_map=[1, 0]>"),
    (StridedViewType((4, 2), (4, 3), TV2D, (1, 0), PaddingValue.NAN),
     "!cuda_tile.strided_view<tile=(4x2), traversal_strides=[4,3], padding_value = nan, "
     "tensor_view<16x16xf32, strides=[16,1]>, dim_map=[1, 0]>",
     "strided_view<tile=(4x2), traversal_strides=[4,3], padding_value = nan, "
     "tensor_view<16x16xf32, strides=[16,1]>, dim_map=[1, 0]>"),
    (GatherScatterViewType((4, 4), TV2D, 1, PaddingValue.ZERO),
     "!cuda_tile.gather_scatter_view<tile=(4x4), padding_value = zero, "
     "tensor_view<16x16xf32, strides=[16,1]>, sparse_dim=1>",
     "gather_scatter_view<tile=(4x4), padding_value = zero, tensor_view<16x16xf32, "
     "strides=[16,1]>, sparse_dim=1>"),
    (TOKEN, "!cuda_tile.token", "token"),
    (FunctionType((TileType((), F32), TOKEN), ()),
     "(!cuda_tile.tile<f32>, !cuda_tile.token) -> ()", None),
    (FunctionType((), (TileType((), I32),)), "() -> !cuda_tile.tile<i32>", None),
    (BuiltinType("index"), "index", "index"),
]


@pytest.mark.parametrize("t, qualified, short", PRINTED, ids=[p[1] for p in PRINTED])
def test_printing(t, qualified, short):
    assert str(t) == qualified
    if short is not None:
        assert t.format(qualified=False) == short
    t.verify()


# ---------------------------------------------------------------------------------------
# Verification: each rule with the reference verifier's exact message
# ---------------------------------------------------------------------------------------

# The reference's 13.3 lists (its tests match them), with 13.4's fnv8E5M3FNU appended.
NUMBER = ("f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN "
          "or i1 or i8 or i16 or i32 or i64 or fnv8E5M3FNU")
TILE_ELEMENT = ("f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or "
                "f4E2M1FN or i1 or i8 or i16 or i32 or i64 or Pointer type or i4 or fnv8E5M3FNU")


def tv(shape, strides, element=F32):
    return TensorViewType(element, shape, strides)


INVALID = [
    (PointerType(TileType((2, 2), F32)), f"failed to verify 'pointeeType': {NUMBER}"),
    (PointerType(I4), f"failed to verify 'pointeeType': {NUMBER}"),
    (PointerType(PointerType(F32)), f"failed to verify 'pointeeType': {NUMBER}"),
    (TileType((8, 4), IntegerType(28)),
     f"failed to verify 'elementType': {TILE_ELEMENT}"),
    (TileType((1, 0, 2), F32), "all dimensions must be positive constants, got 1, 0, 2"),
    (TileType((3, 5, 9), F32), "all dimensions must be powers of two, got 3, 5, 9"),
    (TileType((1024, 1024, 1024), F32), "tile would exceed the maximum of 16777216 elements"),
    (TileType((), F4E2M1FN), "F4E2M1FN tiles must have an even number of elements"),
    (TileType((1, 1), F4E2M1FN), "F4E2M1FN tiles must have an even number of elements"),
    (TensorViewType(PointerType(F32), (32,), (1,)), f"failed to verify 'elementType': {NUMBER}"),
    (TensorViewType(I4, (32,), (1,)), f"failed to verify 'elementType': {NUMBER}"),
    (tv((None,), (4, 1)),
     "expected shape and stride to be of same rank but got shape of rank 1 and stride of rank 2"),
    (tv((0,), (1,)), "dimensions must have strictly positive constant sizes but got [0]"),
    (tv((None, -3), (1, 1)),
     "dimensions must have strictly positive constant sizes but got [?, -3]"),
    (tv((4, 4), (0, None)),
     "dimensions must have strictly positive constant strides but got [0, ?]"),
    (PartitionViewType((), tv((), ())), "0-dimension tile shape is not supported"),
    (PartitionViewType((1, 1), tv((8, 8, 64), (512, 64, 1))),
     "expected tensor_view rank and tile rank to match, got tensor_view of rank 3 and tiles of "
     "rank 2"),
    (PartitionViewType((1024, 1024), tv((4096, 4096), (4096, 1)), (0,)),
     "expected dim_map to map exactly all 2 dimensions of the tile, got 1 mappings"),
    (PartitionViewType((0, 4), TV2D),
     "tile shape dimensions must have positive length but got [0, 4]"),
    (PartitionViewType((5, 1024), tv((4096, 4096), (4096, 1))),
     "tile shape dimensions must have power of two length but got [5, 1024]"),
    (PartitionViewType((2, 2), TV2D, (-1, 1)), "target dimension must not be negative, got -1"),
    (PartitionViewType((2, 2), TV2D, (2, 1)),
     "target dimension is outside of tensor view dimensions, expected strictly less than 2, got 2"),
    (PartitionViewType((2, 2), TV2D, (0, 0)),
     "target dimension 0 mapped at least twice (for tile dimensions 0 and 1)"),
    (PartitionViewType((4096, 8192), tv((1 << 20, 1 << 20), (1 << 20, 1))),
     "tile would exceed the maximum of 16777216 elements"),
    (PartitionViewType((1, 1), tv((16, 16), (16, 1), F4E2M1FN)),
     "F4E2M1FN tiles must have an even number of elements"),
    (PartitionViewType((2,), tv((16,), (1,), I32), None, PaddingValue.NAN),
     "padding_value nan can only be used with floating point element types, got 'i32'"),
    (StridedViewType((1024, 1024), (1,), tv((4096, 4096), (4096, 1))),
     "expected 2 traversal strides, got 1"),
    (StridedViewType((1024, 1024), (1, 0), tv((4096, 4096), (4096, 1))),
     "traversal strides must be strictly positive but got [1, 0]"),
    (StridedViewType((2, 2), (1, 1), TV2D, (0, 0)),
     "target dimension 0 mapped at least twice (for tile dimensions 0 and 1)"),
    (GatherScatterViewType((4, 4), TV2D, 2),
     "gather dimension is outside of tensor view dimensions, expected strictly less than 2, got 2"),
    (GatherScatterViewType((3, 4), TV2D, 0),
     "tile shape dimensions must have power of two length but got [3, 4]"),
    (GatherScatterViewType((4,), TV2D, 0),
     "expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles of "
     "rank 1"),
    (GatherScatterViewType((4, 4), tv((16, 16), (16, 1), I8), 0, PaddingValue.POS_INF),
     "padding_value pos_inf can only be used with floating point element types, got 'i8'"),
    # Inner types are verified first, as the parser builds them inside out.
    (PartitionViewType((3,), tv((0,), (1,))),
     "dimensions must have strictly positive constant sizes but got [0]"),
]


@pytest.mark.parametrize("t, message", INVALID, ids=[m for _, m in INVALID])
def test_verification_messages(t, message, tally):
    assert t.first_error() == message
    assert not t.is_valid()
    with pytest.raises(VerificationError) as info:
        t.verify()
    assert info.value.message == message
    tally("type rules checked", 1)


def test_zero_padding_is_allowed_for_integers():
    PartitionViewType((2,), tv((16,), (1,), I32), None, PaddingValue.ZERO).verify()


SUB_BYTE_RULE = ("tensor_view of sub-byte element type f4E2M1FN needs a dimension with unit "
                 "stride and an extent that is a multiple of 2, got shape [{}] and strides [{}]")


@pytest.mark.parametrize("shape, strides, ok", [
    ((2,), (1,), True),
    ((32, 32), (1, 32), True),
    ((1, 32), (32, 1), True),
    ((None,), (1,), True),        # a dynamic extent may be even at run time
    ((3,), (None,), False),
    ((8,), (None,), True),        # a dynamic stride may be 1 at run time
    ((3,), (1,), False),
    ((4, 4), (8, 2), False),      # no unit-stride dimension
    ((3, 4), (1, 3), False),      # the unit-stride dimension has an odd extent
])
def test_sub_byte_tensor_view_layout(shape, strides, ok):
    # Spec 5.2.1 / tensor_view: 4-bit elements need a unit-stride dimension of even extent.
    t = TensorViewType(F4E2M1FN, shape, strides)
    if ok:
        t.verify()
    else:
        def spelled(vals):
            return ", ".join("?" if v is None else str(v) for v in vals)
        assert t.first_error() == SUB_BYTE_RULE.format(spelled(shape), spelled(strides))


def test_every_valid_element_is_accepted_where_the_spec_allows():
    for t in ELEMENT_INFO:
        TileType((2,), t).verify()
        if t != I4:
            PointerType(t).verify()
            TensorViewType(t, (2,), (1,)).verify()
    TileType((2,), PointerType(F64)).verify()


# ---------------------------------------------------------------------------------------
# Index spaces (spec 5.6, worked examples of the seeds)
# ---------------------------------------------------------------------------------------

T64x16 = tv((64, 16), (16, 1))


@pytest.mark.parametrize("view, expected", [
    # "tensor view of shape (64, 256) and a partition view of tile shape (128, 128)": (1, 2)
    (PartitionViewType((128, 128), tv((64, 256), (256, 1))), (1, 2)),
    (PartitionViewType((2,), TV16), (8,)),                                  # !pv_1d
    (PartitionViewType((4, 2), T64x16), (16, 8)),                           # !pv_2d
    (PartitionViewType((4, 2), T64x16, (1, 0)), (4, 32)),                   # !pv_2d_transposed
    (PartitionViewType((1, 4), tv((8, 2), (2, 1)), None, PaddingValue.NAN), (8, 1)),
    (StridedViewType((2,), (2,), TV16), (8,)),                              # !sv_1d_tra2
    (StridedViewType((2,), (3,), TV16), (6,)),                              # !sv_1d_tra3
    (StridedViewType((2,), (1,), tv((8,), (1,))), (8,)),                    # !sv_1d_tra1
    (StridedViewType((4, 2), (4, 3), T64x16), (16, 6)),                     # !sv_2d
    (StridedViewType((4, 2), (4, 3), T64x16, (1, 0)), (4, 22)),             # !sv_2d_transposed
    (GatherScatterViewType((4,), tv((8,), (1,)), 0), (8,)),                 # !gsv_1d
    (GatherScatterViewType((4, 4), tv((8, 8), (8, 1)), 0), (8, 8)),         # !gsv_2d
    (GatherScatterViewType((8, 16), tv((128, 256), (256, 1)), 0), (128, 256)),
    (PartitionViewType((128, 4), tv((8192, 128), (128, 1))), (64, 32)),     # 13.1 spec example
])
def test_index_space_shape(view, expected, tally):
    view.verify()
    assert view.index_space_shape() == expected
    tally("index spaces checked", 1)


def test_index_space_of_dynamic_views():
    view = PartitionViewType((4, 2), tv((None, 16), (16, 1)), (1, 0))
    assert view.index_space_shape() == (4, None)
    assert view.index_space_shape((100, 16)) == (4, 50)
    strided = StridedViewType((4, 2), (4, 3), tv((None, None), (None, 1)))
    assert strided.index_space_shape((10, 10)) == (3, 4)
    with pytest.raises(ValueError):
        view.index_space_shape((100,))


def test_view_tile_type_and_index_rank():
    view = PartitionViewType((4, 2), T64x16, (1, 0))
    assert view.tile_type == TileType((4, 2), F32)
    assert view.index_rank == 2
    assert GatherScatterViewType((4, 4), TV2D, 1).tile_type == TileType((4, 4), F32)


def test_constants_cover_spec_element_names():
    assert [str(t) for t in (I1, I4, I8, I16, I32, I64, F16, BF16, F32, TF32, F64, F8E4M3FN,
                             F8E5M2, F8E8M0FNU, F4E2M1FN, F8E5M3FNU)] == [
        "i1", "i4", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "tf32", "f64",
        "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN", "fnv8E5M3FNU"]


# ---------------------------------------------------------------------------------------
# Index operands of loads and stores through a view (reference verifyIndices)
# ---------------------------------------------------------------------------------------

SCALAR_I32, SCALAR_I64 = TileType((), I32), TileType((), I64)


@pytest.mark.parametrize("view", [PartitionViewType((2, 2), TV2D),
                                  StridedViewType((2, 2), (1, 1), TV2D)])
def test_tiled_view_indices(view):
    assert view.indices_error([]) is None
    assert view.indices_error([SCALAR_I32, SCALAR_I32]) is None
    assert view.indices_error([SCALAR_I32, SCALAR_I64]) == (
        "expected index type 1 to be the same as other index types ('!cuda_tile.tile<i32>'), "
        "got '!cuda_tile.tile<i64>'")
    assert view.indices_error([TileType((1,), I32), SCALAR_I32]) == (
        "expected index type to be a scalar tile, got '!cuda_tile.tile<1xi32>'")
    assert view.indices_error([TOKEN]) == (
        "expected index type to be a tile type, got '!cuda_tile.token'")


def test_gather_scatter_view_indices():
    view = GatherScatterViewType((4, 8), tv((16, 16), (16, 1)), 0)
    gather = TileType((4,), I32)
    assert view.indices_error([gather, SCALAR_I32]) is None
    assert view.indices_error([gather]) is None
    assert GatherScatterViewType((4, 8), tv((16, 16), (16, 1)), 1).indices_error([gather]) == (
        "gather/scatter dimension 1 is out of range for index count 1")
    assert view.indices_error([TOKEN, SCALAR_I32]) == (
        "expected index at sparse_dim position 0 to be a tile type for GatherScatterView")
    assert view.indices_error([SCALAR_I32, SCALAR_I32]) == (
        "expected index at sparse_dim position 0 to be a 1D tensor for GatherScatterView, "
        "got rank 0")
    assert view.indices_error([TileType((8,), I32), SCALAR_I32]) == (
        "expected gather/scatter index size (8) to match tile shape at gather/scatter "
        "dimension 0 (4)")
    assert view.indices_error([gather, TileType((2,), I32)]) == (
        "expected index 1 to be a scalar tile for GatherScatterView")
    view3 = GatherScatterViewType((2, 4, 8), tv((8, 8, 8), (64, 8, 1)), 1)
    assert view3.indices_error([SCALAR_I32, gather, SCALAR_I64]) == (
        "expected scalar index 2 to have the same type as other scalar indices "
        "('!cuda_tile.tile<i32>'), got '!cuda_tile.tile<i64>'")
