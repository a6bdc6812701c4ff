"""Type constraints of op operands and results, as the reference's ODS declares them.

Each constraint carries the summary MLIR prints in ``operand #0 must be <summary>``.
Tile constraints follow ODS's ``ShapedContainerType``: ``<what> of <element summaries>
values``, where `<what>` is ``tile``, a rank list (``0D tile``) or an op-specific name
(``mmaf operand tile type``).  A summary names each member type a build knows:
13.4 and later builds list fnv8E5M3FNU after f4E2M1FN (tileirdisasm 13.5), a 13.3 build
(NVIDIA's open reference and its test suite) does not; `TypeConstraint.summary_at` picks
the wording of the build tileir stands in for.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from ..attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, IntegerAttr,
                          StringAttr)
from ..types import (BF16, ELEMENT_INFO, F16, F32, F64, TF32, F8E4M3FN, F8E5M2, F4E2M1FN,
                     F8E5M3FNU, F8E8M0FNU, FLOAT_TYPES, I1, I4, I8, I16, I32, I64, TOKEN,
                     GatherScatterViewType, PartitionViewType, PointerType, StridedViewType,
                     IntegerType, TensorViewType, TileType, TiledView, TokenType, Type)
from ..versions import LATEST, V13_1, V13_3, Version
from .base import ANY_TYPE, AttrConstraint, RegionConstraint, TypeConstraint

# ---- element type lists (ODS's AnyTypeOf lists, in their order) ---------------------------

_LATER_FLOATS = tuple(t for t in FLOAT_TYPES if ELEMENT_INFO[t].since > V13_3)

#: CudaTile_AnyInt.
ANY_INT = (I1, I8, I16, I32, I64)
#: CudaTile_AnyFloat (note: tf32 before f64).
ANY_FLOAT = (F16, BF16, F32, TF32, F64, F8E4M3FN, F8E5M2, F8E8M0FNU, F4E2M1FN) + _LATER_FLOATS
#: CudaTile_NumberType: the floats, then the integers.
NUMBER = ANY_FLOAT + ANY_INT
#: CudaTile_BaseFloatTileType's elements.
BASE_FLOATS = (F16, BF16, F32, F64)
#: CudaTile_FloatTileType's elements (note: f64 before tf32).
TILE_FLOATS = (F16, BF16, F32, F64, TF32, F8E4M3FN, F8E5M2, F8E8M0FNU, F4E2M1FN) + _LATER_FLOATS
#: CudaTile_NumberTileType's elements: the integers, then the floats.
TILE_NUMBERS = ANY_INT + TILE_FLOATS
MMA_FLOATS = (F16, BF16, F32, F64, TF32, F8E4M3FN, F8E5M2)


def _since(element: Type | str) -> Version:
    """The release that introduced an element type (pointers: the first)."""
    info = ELEMENT_INFO.get(element) if not isinstance(element, str) else None
    return info.since if info is not None else V13_1


def _element_summary(elements: Sequence[Type | str], release: Version = LATEST) -> str:
    """ODS's AnyTypeOf summary: the summaries of the members a `release` build knows,
    joined with `` or ``."""
    return " or ".join(e if isinstance(e, str) else e.format() for e in elements
                       if _since(e) <= release)


def _summaries(elements: Sequence[Type | str], text: Callable[[str], str]
               ) -> tuple[str, tuple[tuple[Version, str], ...]]:
    """A constraint's summary (`text` of the element summary) and the wording of each
    older build that lacks some member, newest first (`TypeConstraint.older`)."""
    newest = text(_element_summary(elements))
    older = []
    for since in sorted({_since(e) for e in elements if not isinstance(e, str)}, reverse=True):
        wording = text(_element_summary(elements, Version(since.major, since.minor - 1)))
        if since > V13_1 and wording != (older[-1][1] if older else newest):
            older.append((since, wording))
    return newest, tuple(older)


#: Stands for any pointer type in an element list (ODS's CudaTile_PointerType).
POINTER = "Pointer type"


def _is_pointer(t: Type) -> bool:
    """A pointer type (ODS CudaTile_PointerType)."""
    return isinstance(t, PointerType)


def _element_test(elements: Iterable[Type | str]) -> Callable[[Type], bool]:
    """Membership in an element list; the string ``"Pointer type"`` stands for any pointer."""
    concrete = tuple(e for e in elements if not isinstance(e, str))
    pointers = POINTER in tuple(elements)
    # Parsed element types are the shared objects of `tileir.types`: found by identity
    # (kept alive by `concrete`, so their ids stay theirs) before any field comparison.
    identities = frozenset(map(id, concrete))
    return lambda t: id(t) in identities or t in concrete or (pointers and _is_pointer(t))


def tile_of(elements: Sequence[Type | str], what: str = "tile",
            ranks: Sequence[int] | None = None, buildable: Type | None = None
            ) -> TypeConstraint:
    """ODS ``CudaTile_TileOf`` (and ``RankedTileOf`` when `ranks` is given)."""
    elements = tuple(elements)
    accepts_element = _element_test(elements)
    if ranks is not None:
        what = "/".join(f"{r}D" for r in ranks) + " " + what
    allowed_ranks = tuple(ranks) if ranks is not None else None

    def predicate(t: Type) -> bool:
        return (isinstance(t, TileType) and accepts_element(t.element_type)
                and (allowed_ranks is None or t.rank in allowed_ranks))
    summary, older = _summaries(elements, lambda listed: f"{what} of {listed} values")
    return TypeConstraint(summary, predicate, buildable, older)


def scalar_of(elements: Sequence[Type | str], buildable: Type | None = None) -> TypeConstraint:
    """ODS ``CudaTile_ScalarTileOf``: a rank-0 tile."""
    return tile_of(elements, ranks=(0,), buildable=buildable)


def _kind(cls: type, summary: str, buildable: Type | None = None) -> TypeConstraint:
    """A TypeDef (or type interface) used as a constraint: its own summary."""
    return TypeConstraint(summary, lambda t: isinstance(t, cls), buildable)


def _is_cuda_tile_type(t: Type) -> bool:
    """A type of the cuda_tile dialect (tile, pointer, token, views)."""
    return isinstance(t, (TileType, PointerType, TokenType, TensorViewType, TiledView))


BASE_FLOAT_TILE = tile_of(BASE_FLOATS)
FLOAT_TILE = tile_of(TILE_FLOATS)
INT_TILE = tile_of(ANY_INT)
INT4_TILE = tile_of(ANY_INT + (I4,))                      # ExtIOp/TruncIOp_IntegerType
NUMBER_TILE = tile_of(TILE_NUMBERS)
NUMBER4_TILE = tile_of(TILE_NUMBERS + (I4,))              # Pack/UnpackOp_UnpackedType
I1_TILE = tile_of((I1,))
I8_TILE = tile_of((I8,))
I64_TILE = tile_of((I64,))                                # IntTileInt64Type
PTR_TILE = tile_of((POINTER,))                            # PointerTileType
#: CudaTile_TileType used directly: its TypeDef summary.
ANY_TILE = _kind(TileType, "Tile type")
MMAF_INPUT = tile_of(MMA_FLOATS, "mmaf operand tile type")
MMAF_ACC = tile_of((F16, F32, F64), "mmaf acc/result tile type")
MMAI_INPUT = tile_of((I8,), "mmai operand tile type")
MMAI_ACC = tile_of((I32,), "mmai acc tile type")
MMAI_RESULT = tile_of((I32,), "mmai result tile type")
SCALED_INPUT = tile_of((F8E4M3FN, F8E5M2, F4E2M1FN), "mmaf_scaled operand tile type")
SCALE = tile_of((F8E4M3FN, F8E8M0FNU, F8E5M3FNU), "mmaf_scaled scale tile type")
SCALED_RESULT = tile_of((F32,), "mmaf_scaled result tile type")

SCALAR_INT = scalar_of(ANY_INT)
SCALAR_I1 = scalar_of((I1,), buildable=TileType((), I1))
SCALAR_I32 = scalar_of((I32,), buildable=TileType((), I32))
SCALAR_PTR = scalar_of((POINTER,))

TOKEN_C = _kind(TokenType, "cuda tile token type", TOKEN)
TENSOR_VIEW = _kind(TensorViewType, "tensor view type")
PARTITION_VIEW = _kind(PartitionViewType, "partition view type")
STRIDED_VIEW = _kind(StridedViewType, "strided view type")
GATHER_SCATTER_VIEW = _kind(GatherScatterViewType, "gather/scatter view type")
TILE_VIEW = _kind(TiledView, "TileView instance")
#: CudaTile_AnyType: a number type or any cuda_tile type (the latter's summary is empty,
#: hence the trailing " or ").
_ANY_SUMMARY, _ANY_OLDER = _summaries(NUMBER, lambda listed: listed + " or ")
CUDA_TILE_ANY = TypeConstraint(_ANY_SUMMARY, lambda t: t in NUMBER or _is_cuda_tile_type(t),
                               older=_ANY_OLDER)
ANY = ANY_TYPE

#: Shorthand codes used by the op tables.
CODES: dict[str, TypeConstraint] = {
    "fB": BASE_FLOAT_TILE, "f": FLOAT_TILE, "iN": INT_TILE, "i4N": INT4_TILE,
    "num": NUMBER_TILE, "num4": NUMBER4_TILE, "i1": I1_TILE, "i8": I8_TILE, "i64": I64_TILE,
    "ptr": PTR_TILE, "tile": ANY_TILE,
    "mmaf_in": MMAF_INPUT, "mmaf_acc": MMAF_ACC, "mmai_in": MMAI_INPUT, "mmai_acc": MMAI_ACC,
    "mmai_res": MMAI_RESULT, "scaled_in": SCALED_INPUT, "scale": SCALE,
    "scaled_res": SCALED_RESULT,
    "s_i": SCALAR_INT, "s_i1": SCALAR_I1, "s_i32": SCALAR_I32, "s_ptr": SCALAR_PTR,
    "token": TOKEN_C, "tv": TENSOR_VIEW, "pv": PARTITION_VIEW, "sv": STRIDED_VIEW,
    "gsv": GATHER_SCATTER_VIEW, "view": TILE_VIEW, "ct_any": CUDA_TILE_ANY, "any": ANY,
    "fpowi_exp": tile_of((I1, I8, I16, I32)),
}


# ---- attribute constraints --------------------------------------------------


def _signless(bits: int) -> Callable[[Attribute], bool]:
    """ODS ``I<bits>Attr``: an integer attribute of the signless `bits`-wide type."""
    return lambda a: isinstance(a, IntegerAttr) and a.type == IntegerType(bits)


def _int_attr(bits: int, confinement: str = "",
              holds: Callable[[int], bool] = lambda v: True) -> AttrConstraint:
    """``I<bits>Attr``, optionally ``ConfinedAttr``-ed (its summary appended)."""
    base = _signless(bits)
    summary = f"{bits}-bit signless integer attribute" + (f" {confinement}" if confinement else "")
    return AttrConstraint(summary, lambda a: base(a) and holds(a.value))


def _min_value(n: int) -> AttrConstraint:
    """``ConfinedAttr<I64Attr, [IntMinValue<n>]>``."""
    return _int_attr(64, f"whose minimum value is {n}", lambda v: v >= n)


#: Constraint per attribute code of the op tables (codes without one are unchecked).
ATTR_CONSTRAINTS: dict[str, AttrConstraint] = {
    "i64": _int_attr(64),
    "i32": _int_attr(32),
    "i32nn": _int_attr(32, "whose value is non-negative", lambda v: v >= 0),
    "i64min0": _min_value(0),
    "str": AttrConstraint("string attribute", lambda a: isinstance(a, StringAttr)),
    "bool": AttrConstraint("bool attribute", lambda a: isinstance(a, BoolAttr)),
    "i32arr": AttrConstraint("i32 dense array attribute",
                             lambda a: isinstance(a, DenseArrayAttr)
                             and a.element_type == IntegerType(32)),
    "boolarr": AttrConstraint("i1 dense array attribute",
                              lambda a: isinstance(a, DenseArrayAttr)
                              and a.element_type == IntegerType(1)),
    "array": AttrConstraint("array attribute", lambda a: isinstance(a, ArrayAttr)),
}

# ---- region constraints --------------------------------------------------


def _block_count(region: object) -> int:
    """How many blocks a region holds."""
    return len(getattr(region, "blocks", ()))


#: ``SizedRegion<1>`` and ``MaxSizedRegion<1>``, by the op tables' region codes.
REGION_CODES: dict[str, RegionConstraint] = {
    "sized": RegionConstraint("region with 1 blocks", lambda r: _block_count(r) == 1),
    "max": RegionConstraint("region with at most 1 blocks", lambda r: _block_count(r) <= 1),
    "none": RegionConstraint("region with 0 blocks", lambda r: _block_count(r) == 0),
}
