"""The Tile IR type system (spec chapter "Type System", 13.4).

Every type is an immutable, hashable value with structural equality: two types are
equal exactly when they are spelled the same (spec 5.5), so a view with a dynamic
``?`` extent differs from the same view with a static one.  ``str(t)`` gives the
qualified spelling NVIDIA's tools print standalone (``!cuda_tile.tile<8x4xf32>``);
``t.format(qualified=False)`` gives the short form used inside ``cuda_tile`` ops
(``tile<8x4xf32>``).  Nested dialect types always print in the short form.

Constructors do not check the spec's rules, so that the parser and the builder can
report a violation with a location; ``t.verify()`` does, raising
`VerificationError` with the reference verifier's message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Iterable, Sequence

from .diagnostics import VerificationError
from .enums import PaddingValue, PointerAttribute
from .versions import V13_1, V13_2, V13_3, V13_4, Version

#: Spelling of a dynamic extent or stride in a tensor_view.
DYNAMIC = None
#: Largest number of elements a tile may hold (reference Types.h, maxTileNumElements).
MAX_TILE_ELEMENTS = 1 << 24

DIALECT = "cuda_tile"


class Type:
    """Base of every type; subclasses are frozen dataclasses."""

    __slots__ = ()
    #: Whether the type stands for a not-yet-resolved element type (13.5 preview `sym_t`).
    parametric_element = False

    def format(self, qualified: bool = True) -> str:
        """The textual spelling; `qualified` adds the ``!cuda_tile.`` prefix to dialect types."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.format(qualified=True)

    def children(self) -> tuple["Type", ...]:
        """Types nested directly inside this one (verified before this one)."""
        return ()

    def own_error(self) -> str | None:
        """The first of this type's own rules it breaks, assuming its children are valid."""
        return None

    def verify(self) -> None:
        """Raise `VerificationError` with the first rule this type (or a nested one) breaks."""
        message = self.first_error()
        if message is not None:
            raise VerificationError(message)

    def first_error(self) -> str | None:
        """The message of the first broken rule, innermost type first, or None when valid."""
        for child in self.children():
            message = child.first_error()
            if message is not None:
                return message
        return self.own_error()

    def is_valid(self) -> bool:
        """True when `verify` would not raise."""
        return self.first_error() is None


def quoted(t: Type) -> str:
    """A type as MLIR diagnostics show it: qualified, in single quotes."""
    return f"'{t}'"


# --------------------------------------------------------------------------------------
# Element types
# --------------------------------------------------------------------------------------

def mlir_bit_width(t: "Type") -> int | None:
    """MLIR's getIntOrFloatBitWidth, which the reference's verifiers use (tf32 counts 19
    bits there, not the spec's 32); None for a type that is neither integer nor float."""
    if isinstance(t, IntegerType):
        return t.width
    if isinstance(t, FloatType):
        return MLIR_FLOAT_WIDTHS[t.name]
    return None


@dataclass(frozen=True)
class ElementInfo:
    """What the spec says of a Tile IR element type.

    `bit_width` is the spec's size; `storage_bits` what one element occupies in
    memory (i1 takes a byte, f4E2M1FN packs two to a byte, tf32 takes 4 bytes).
    """

    bit_width: int
    storage_bits: int
    since: Version


@dataclass(frozen=True)
class IntegerType(Type):
    """A signless integer ``iN``; only i1, i4, i8, i16, i32 and i64 are Tile IR element types."""

    width: int

    def format(self, qualified: bool = True) -> str:
        return f"i{self.width}"

    @property
    def bit_width(self) -> int:
        return self.width

    @property
    def info(self) -> ElementInfo | None:
        """The spec's facts, or None when this is not a Tile IR element type."""
        return ELEMENT_INFO.get(self)


# Bit widths of MLIR's builtin float types, by spelling.  Only some are Tile IR types;
# the others still parse so the verifier can name them in its message.
MLIR_FLOAT_WIDTHS: dict[str, int] = {
    "f16": 16, "bf16": 16, "f32": 32, "tf32": 19, "f64": 64, "f80": 80, "f128": 128,
    "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8,
    "f8E4M3B11FNUZ": 8, "f8E3M4": 8, "f8E8M0FNU": 8, "fnv8E5M3FNU": 8,
    "f6E2M3FN": 6, "f6E3M2FN": 6, "f4E2M1FN": 4,
}
#: Older spellings still read, mapped to the spelling NVIDIA's 13.4 tools print
#: (the unsigned e5m3 type is ``fnv8E5M3FNU`` in 13.4 text).
FLOAT_SPELLING_ALIASES: dict[str, str] = {"f8E5M3FNU": "fnv8E5M3FNU"}


@dataclass(frozen=True)
class FloatType(Type):
    """A floating-point element type, named as MLIR spells it (``f32``, ``f8E4M3FN``)."""

    name: str

    def format(self, qualified: bool = True) -> str:
        return self.name

    @property
    def bit_width(self) -> int:
        info = ELEMENT_INFO.get(self)
        return info.bit_width if info else MLIR_FLOAT_WIDTHS[self.name]

    @property
    def info(self) -> ElementInfo | None:
        """The spec's facts, or None when this is not a Tile IR element type."""
        return ELEMENT_INFO.get(self)


@dataclass(frozen=True)
class BuiltinType(Type):
    """An MLIR builtin type Tile IR has no use for (``index``, ``si32``, ``tensor<4xf32>``).

    It is kept by its spelling so that text using it round-trips and the verifier
    can reject it by name.
    """

    spelling: str

    def format(self, qualified: bool = True) -> str:
        return self.spelling


I1, I4, I8, I16, I32, I64 = (IntegerType(w) for w in (1, 4, 8, 16, 32, 64))
F16, BF16, F32, TF32, F64 = (FloatType(n) for n in ("f16", "bf16", "f32", "tf32", "f64"))
F8E4M3FN = FloatType("f8E4M3FN")
F8E5M2 = FloatType("f8E5M2")
F8E8M0FNU = FloatType("f8E8M0FNU")
F4E2M1FN = FloatType("f4E2M1FN")
F8E5M3FNU = FloatType("fnv8E5M3FNU")

#: Every Tile IR element type with its size, storage size and introducing release,
#: in the order the spec lists them.
ELEMENT_INFO: dict[Type, ElementInfo] = {
    F16: ElementInfo(16, 16, V13_1),
    BF16: ElementInfo(16, 16, V13_1),
    F32: ElementInfo(32, 32, V13_1),
    TF32: ElementInfo(32, 32, V13_1),
    F64: ElementInfo(64, 64, V13_1),
    F8E4M3FN: ElementInfo(8, 8, V13_1),
    F8E5M2: ElementInfo(8, 8, V13_1),
    F8E8M0FNU: ElementInfo(8, 8, V13_2),
    F4E2M1FN: ElementInfo(4, 4, V13_3),
    F8E5M3FNU: ElementInfo(8, 8, V13_4),
    I1: ElementInfo(1, 8, V13_1),
    I8: ElementInfo(8, 8, V13_1),
    I16: ElementInfo(16, 16, V13_1),
    I32: ElementInfo(32, 32, V13_1),
    I64: ElementInfo(64, 64, V13_1),
    I4: ElementInfo(4, 4, V13_3),
}

FLOAT_TYPES: tuple[FloatType, ...] = tuple(t for t in ELEMENT_INFO if isinstance(t, FloatType))
#: Integer types usable everywhere (i4 only lives in tiles: exti, trunci, pack, unpack).
INTEGER_TYPES: tuple[IntegerType, ...] = (I1, I8, I16, I32, I64)
#: Types a pointer may point to and a tensor_view may hold (the reference's NumberType).
NUMBER_TYPES: tuple[Type, ...] = FLOAT_TYPES + INTEGER_TYPES
ELEMENT_TYPES: tuple[Type, ...] = tuple(ELEMENT_INFO)


def element_type(name: str) -> Type:
    """The Tile IR element type spelled `name` (``"f32"``, ``"i4"``, an older spelling
    too); KeyError otherwise."""
    name = FLOAT_SPELLING_ALIASES.get(name, name)
    for t in ELEMENT_INFO:
        if t.format() == name:
            return t
    raise KeyError(f"{name!r} is not a Tile IR element type")


def _summary(types: Iterable[Type]) -> str:
    return " or ".join(t.format() for t in types)


# The reference's constraint summaries, as its "failed to verify" messages print them.
# Its 13.3 wording is kept (NVIDIA's own tests match it); element types added later
# are appended at the end so the message still names every accepted type.
_LATER: tuple[Type, ...] = tuple(t for t in NUMBER_TYPES if ELEMENT_INFO[t].since > V13_3)
_LATER_SUFFIX = "".join(f" or {t}" for t in _LATER)
_REFERENCE_NUMBERS = _summary(t for t in NUMBER_TYPES if t not in _LATER)
NUMBER_TYPE_SUMMARY = _REFERENCE_NUMBERS + _LATER_SUFFIX
TILE_ELEMENT_SUMMARY = _REFERENCE_NUMBERS + " or Pointer type or i4" + _LATER_SUFFIX


def _constraint_error(param: str, summary: str) -> str:
    return f"failed to verify '{param}': {summary}"


# --------------------------------------------------------------------------------------
# Dialect types
# --------------------------------------------------------------------------------------

def _qualify(mnemonic: str, body: str, qualified: bool) -> str:
    return f"!{DIALECT}.{mnemonic}{body}" if qualified else f"{mnemonic}{body}"


def _nested(t: Type) -> str:
    """A type nested in a dialect type: dialect types short, builtin types as usual."""
    return t.format(qualified=False)


def _shape_prefix(shape: Sequence[int | None]) -> str:
    """``8x16x`` for a shape, ``?`` for dynamic extents, empty for rank 0."""
    return "".join(("?" if d is None else str(d)) + "x" for d in shape)


def _comma_list(values: Iterable[int | None]) -> str:
    return ", ".join("?" if v is None else str(v) for v in values)


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _tuple(values: Iterable) -> tuple:
    return tuple(values)


def ptr_attr_text(kind: PointerAttribute) -> str:
    """The full attribute form of a ``ptr_attr`` (13.4): ``#cuda_tile.ptr_attr<none>``."""
    return f"#{DIALECT}.ptr_attr<{kind.keyword}>"


@dataclass(frozen=True)
class PointerType(Type):
    """``ptr<E>``: a location in global memory holding an element of type E.

    13.4 adds an optional `ptr_attr`, printed short: ``ptr<f32, <none>>``.
    """

    pointee: Type
    ptr_attr: PointerAttribute | None = None
    mnemonic = "ptr"
    since = V13_1

    def format(self, qualified: bool = True) -> str:
        attr = "" if self.ptr_attr is None else f", <{self.ptr_attr.keyword}>"
        return _qualify("ptr", f"<{_nested(self.pointee)}{attr}>", qualified)

    def children(self) -> tuple[Type, ...]:
        return (self.pointee,)

    def own_error(self) -> str | None:
        if self.pointee not in NUMBER_TYPES:
            return _constraint_error("pointeeType", NUMBER_TYPE_SUMMARY)
        return None


def tile_size_error(shape: Sequence[int]) -> str | None:
    """The reference's shared tile-size rule: positive, power-of-two dims, at most 2^24 elements."""
    count = 1
    for dim in shape:
        if dim <= 0:
            return f"all dimensions must be positive constants, got {_comma_list(shape)}"
        if not _is_pow2(dim):
            return f"all dimensions must be powers of two, got {_comma_list(shape)}"
        if count > MAX_TILE_ELEMENTS // dim:
            return f"tile would exceed the maximum of {MAX_TILE_ELEMENTS} elements"
        count *= dim
    return None


def _tile_error(shape: Sequence[int], element: Type) -> str | None:
    """TileType's own rules on a shape and element (shared by the view types)."""
    if element == F4E2M1FN and all(d % 2 != 0 for d in shape):
        return "F4E2M1FN tiles must have an even number of elements"
    return tile_size_error(shape)


@dataclass(frozen=True)
class TileType(Type):
    """``tile<MxNxE>``: a value with a static power-of-two shape (rank 0 is a scalar)."""

    shape: tuple[int, ...]
    element_type: Type
    mnemonic = "tile"
    since = V13_1

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", _tuple(self.shape))

    def format(self, qualified: bool = True) -> str:
        return _qualify("tile", f"<{_shape_prefix(self.shape)}{_nested(self.element_type)}>",
                        qualified)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        return prod(self.shape)

    def children(self) -> tuple[Type, ...]:
        return (self.element_type,)

    def own_error(self) -> str | None:
        e = self.element_type
        if not (e in ELEMENT_INFO or isinstance(e, PointerType) or e.parametric_element):
            return _constraint_error("elementType", TILE_ELEMENT_SUMMARY)
        return _tile_error(self.shape, e)


@dataclass(frozen=True)
class TensorViewType(Type):
    """``tensor_view<?x32xf32, strides=[32,1]>``: a strided tensor in global memory.

    Extents and strides are ints, or `DYNAMIC` (None) for ``?``.  13.4 adds an optional
    `ptr_attr`, printed last in full: ``, #cuda_tile.ptr_attr<none>``.
    """

    element_type: Type
    shape: tuple[int | None, ...]
    strides: tuple[int | None, ...]
    ptr_attr: PointerAttribute | None = None
    mnemonic = "tensor_view"
    since = V13_1

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", _tuple(self.shape))
        object.__setattr__(self, "strides", _tuple(self.strides))

    def format(self, qualified: bool = True) -> str:
        body = _shape_prefix(self.shape) + _nested(self.element_type)
        if self.shape:
            body += ", strides=[" + ",".join("?" if s is None else str(s)
                                            for s in self.strides) + "]"
        if self.ptr_attr is not None:
            body += ", " + ptr_attr_text(self.ptr_attr)
        return _qualify("tensor_view", f"<{body}>", qualified)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        """True when no extent and no stride is ``?``."""
        return None not in self.shape and None not in self.strides

    def children(self) -> tuple[Type, ...]:
        return (self.element_type,)

    def own_error(self) -> str | None:
        if self.element_type not in NUMBER_TYPES:
            return _constraint_error("elementType", NUMBER_TYPE_SUMMARY)
        if len(self.shape) != len(self.strides):
            return ("expected shape and stride to be of same rank but got shape of rank "
                    f"{len(self.shape)} and stride of rank {len(self.strides)}")
        if any(d is not None and d <= 0 for d in self.shape):
            return ("dimensions must have strictly positive constant sizes but got "
                    f"[{_comma_list(self.shape)}]")
        if any(s is not None and s <= 0 for s in self.strides):
            return ("dimensions must have strictly positive constant strides but got "
                    f"[{_comma_list(self.strides)}]")
        return sub_byte_layout_error(self.element_type, self.shape, self.strides)


def sub_byte_layout_error(element: Type, shape: Sequence[int | None],
                          strides: Sequence[int | None]) -> str | None:
    """Spec 5.2: a view of 4-bit elements needs a unit-stride dimension of even extent.

    A dynamic stride or extent might satisfy the rule at run time, so only a layout
    that can never satisfy it is rejected here; the run-time values are checked when
    the view is made.
    """
    info = ELEMENT_INFO.get(element)
    if info is None or info.storage_bits >= 8 or not shape:
        return None
    per_byte = 8 // info.storage_bits
    for extent, stride in zip(shape, strides):
        if stride in (1, None) and (extent is None or extent % per_byte == 0):
            return None
    return (f"tensor_view of sub-byte element type {element} needs a dimension with unit "
            f"stride and an extent that is a multiple of {per_byte}, got shape "
            f"[{_comma_list(shape)}] and strides [{_comma_list(strides)}]")


def _tile_shape_text(tile_shape: Sequence[int]) -> str:
    return "tile=(" + "x".join(str(d) for d in tile_shape) + ")"


def _padding_text(padding: PaddingValue | None) -> str:
    return f"padding_value = {padding.keyword}, " if padding is not None else ""


def _dim_map_text(dim_map: Sequence[int]) -> str:
    if list(dim_map) == list(range(len(dim_map))):
        return ""
    return f", dim_map=[{_comma_list(dim_map)}]"


def _padding_error(padding: PaddingValue | None, element: Type) -> str | None:
    if padding not in (None, PaddingValue.ZERO) and not isinstance(element, FloatType):
        return (f"padding_value {padding.keyword} can only be used with floating point "
                f"element types, got {quoted(element)}")
    return None


def _view_tile_error(tile_shape: Sequence[int], tensor_view: TensorViewType) -> str | None:
    """Rules every tiled view shares: non-empty power-of-two tile of the view's rank."""
    if not tile_shape:
        return "0-dimension tile shape is not supported"
    if len(tile_shape) != tensor_view.rank:
        return ("expected tensor_view rank and tile rank to match, got tensor_view of rank "
                f"{tensor_view.rank} and tiles of rank {len(tile_shape)}")
    return None


def _tile_dims_error(tile_shape: Sequence[int]) -> str | None:
    if any(d <= 0 for d in tile_shape):
        return ("tile shape dimensions must have positive length but got "
                f"[{_comma_list(tile_shape)}]")
    if any(not _is_pow2(d) for d in tile_shape):
        return ("tile shape dimensions must have power of two length but got "
                f"[{_comma_list(tile_shape)}]")
    return None


def _dim_map_error(dim_map: Sequence[int], rank: int) -> str | None:
    used: dict[int, int] = {}
    for tile_dim, target in enumerate(dim_map):
        if target < 0:
            return f"target dimension must not be negative, got {target}"
        if target >= rank:
            return ("target dimension is outside of tensor view dimensions, expected "
                    f"strictly less than {rank}, got {target}")
        if target in used:
            return (f"target dimension {target} mapped at least twice (for tile dimensions "
                    f"{used[target]} and {tile_dim})")
        used[target] = tile_dim
    return None


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


class TiledView(Type):
    """What partition, strided and gather/scatter views share: a tile shape over a tensor_view."""

    __slots__ = ()
    tile_shape: tuple[int, ...]
    tensor_view: TensorViewType
    padding_value: PaddingValue | None

    @property
    def element_type(self) -> Type:
        return self.tensor_view.element_type

    @property
    def tile_type(self) -> TileType:
        """The type of the tile one load produces (reference getViewTileType)."""
        return TileType(self.tile_shape, self.element_type)

    @property
    def index_rank(self) -> int:
        """How many indices a load or store takes."""
        return len(self.tile_shape)

    def children(self) -> tuple[Type, ...]:
        return (self.tensor_view,)

    def _extents(self, tensor_shape: Sequence[int] | None) -> tuple[int | None, ...]:
        shape = tuple(self.tensor_view.shape if tensor_shape is None else tensor_shape)
        if len(shape) != self.tensor_view.rank:
            raise ValueError(f"expected {self.tensor_view.rank} extents, got {len(shape)}")
        return shape

    def index_space_shape(self, tensor_shape: Sequence[int] | None = None
                          ) -> tuple[int | None, ...]:
        """The shape of the space of valid indices (None where it depends on a ``?``).

        `tensor_shape` supplies run-time extents for a view with dynamic ones.
        """
        raise NotImplementedError

    def indices_error(self, index_types: Sequence[Type]) -> str | None:
        """The reference's rule for the index operands of a load or store through this view.

        Every index is a rank-0 tile, all of one type.  (That it is an integer tile, and
        how many there are, are checked by the ops.)
        """
        for t in index_types:
            if not isinstance(t, TileType):
                return f"expected index type to be a tile type, got {quoted(t)}"
            if t.rank != 0:
                return f"expected index type to be a scalar tile, got {quoted(t)}"
        for i, t in enumerate(index_types):
            if t != index_types[0]:
                return (f"expected index type {i} to be the same as other index types "
                        f"({quoted(index_types[0])}), got {quoted(t)}")
        return None


@dataclass(frozen=True)
class PartitionViewType(TiledView):
    """``partition_view<tile=(4x2), tensor_view<...>>``: a grid of non-overlapping tiles.

    `dim_map[i]` is the tensor_view dimension that tile dimension i runs along;
    it defaults to the identity.
    """

    tile_shape: tuple[int, ...]
    tensor_view: TensorViewType
    dim_map: tuple[int, ...] | None = None
    padding_value: PaddingValue | None = None
    mnemonic = "partition_view"
    since = V13_1

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile_shape", _tuple(self.tile_shape))
        dim_map = range(len(self.tile_shape)) if self.dim_map is None else self.dim_map
        object.__setattr__(self, "dim_map", _tuple(dim_map))

    def format(self, qualified: bool = True) -> str:
        body = (_tile_shape_text(self.tile_shape) + ", " + _padding_text(self.padding_value)
                + _nested(self.tensor_view) + _dim_map_text(self.dim_map))
        return _qualify("partition_view", f"<{body}>", qualified)

    def own_error(self) -> str | None:
        return _partition_like_error(self)

    def index_space_shape(self, tensor_shape: Sequence[int] | None = None
                          ) -> tuple[int | None, ...]:
        """``N_i = ceildiv(S[dim_map[i]], T_i)``: every tile with an element in bounds."""
        extents = self._extents(tensor_shape)
        return tuple(None if extents[d] is None else _ceildiv(extents[d], t)
                     for t, d in zip(self.tile_shape, self.dim_map))


def _partition_like_error(view: "PartitionViewType | StridedViewType") -> str | None:
    error = _view_tile_error(view.tile_shape, view.tensor_view)
    if error:
        return error
    if len(view.dim_map) != len(view.tile_shape):
        return (f"expected dim_map to map exactly all {len(view.tile_shape)} dimensions of "
                f"the tile, got {len(view.dim_map)} mappings")
    return (_tile_dims_error(view.tile_shape)
            or _dim_map_error(view.dim_map, view.tensor_view.rank)
            or _tile_error(view.tile_shape, view.element_type)
            or _padding_error(view.padding_value, view.element_type))


@dataclass(frozen=True)
class StridedViewType(TiledView):
    """``strided_view<tile=(2), traversal_strides=[3], tensor_view<...>>`` (13.3).

    Tiles start every `traversal_strides[i]` elements, so they may leave gaps or overlap.
    """

    tile_shape: tuple[int, ...]
    traversal_strides: tuple[int, ...]
    tensor_view: TensorViewType
    dim_map: tuple[int, ...] | None = None
    padding_value: PaddingValue | None = None
    mnemonic = "strided_view"
    since = V13_3

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile_shape", _tuple(self.tile_shape))
        object.__setattr__(self, "traversal_strides", _tuple(self.traversal_strides))
        dim_map = range(len(self.tile_shape)) if self.dim_map is None else self.dim_map
        object.__setattr__(self, "dim_map", _tuple(dim_map))

    def format(self, qualified: bool = True) -> str:
        body = (_tile_shape_text(self.tile_shape) + ", traversal_strides=["
                + ",".join(str(s) for s in self.traversal_strides) + "], "
                + _padding_text(self.padding_value) + _nested(self.tensor_view)
                + _dim_map_text(self.dim_map))
        return _qualify("strided_view", f"<{body}>", qualified)

    def own_error(self) -> str | None:
        error = _partition_like_error(self)
        if error:
            return error
        if len(self.traversal_strides) != len(self.tile_shape):
            return (f"expected {len(self.tile_shape)} traversal strides, got "
                    f"{len(self.traversal_strides)}")
        if any(s <= 0 for s in self.traversal_strides):
            return ("traversal strides must be strictly positive but got "
                    f"[{_comma_list(self.traversal_strides)}]")
        return None

    def index_space_shape(self, tensor_shape: Sequence[int] | None = None
                          ) -> tuple[int | None, ...]:
        """``N_i = ceildiv(S[dim_map[i]], traversal_strides[i])``: every tile starting in bounds."""
        extents = self._extents(tensor_shape)
        return tuple(None if extents[d] is None else _ceildiv(extents[d], s)
                     for s, d in zip(self.traversal_strides, self.dim_map))


@dataclass(frozen=True)
class GatherScatterViewType(TiledView):
    """``gather_scatter_view<tile=(4x4), tensor_view<...>, sparse_dim=0>`` (13.3).

    The index along `sparse_dim` is a 1-D tile of element indices; the others are scalars.
    """

    tile_shape: tuple[int, ...]
    tensor_view: TensorViewType
    sparse_dim: int
    padding_value: PaddingValue | None = None
    mnemonic = "gather_scatter_view"
    since = V13_3

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile_shape", _tuple(self.tile_shape))

    def format(self, qualified: bool = True) -> str:
        body = (_tile_shape_text(self.tile_shape) + ", " + _padding_text(self.padding_value)
                + _nested(self.tensor_view) + f", sparse_dim={self.sparse_dim}")
        return _qualify("gather_scatter_view", f"<{body}>", qualified)

    def own_error(self) -> str | None:
        error = _view_tile_error(self.tile_shape, self.tensor_view) or _tile_dims_error(
            self.tile_shape)
        if error:
            return error
        if not 0 <= self.sparse_dim < self.tensor_view.rank:
            return ("gather dimension is outside of tensor view dimensions, expected "
                    f"strictly less than {self.tensor_view.rank}, got {self.sparse_dim}")
        return (_tile_error(self.tile_shape, self.element_type)
                or _padding_error(self.padding_value, self.element_type))

    def index_space_shape(self, tensor_shape: Sequence[int] | None = None
                          ) -> tuple[int | None, ...]:
        """The tensor_view's own shape: every index names one element position."""
        return self._extents(tensor_shape)

    def indices_error(self, index_types: Sequence[Type]) -> str | None:
        """The index at `sparse_dim` is a 1-D tile of the tile's length there; the others
        are scalar tiles of one type (the reference's GatherScatterViewType::verifyIndices).
        """
        if not index_types:
            return None
        dim = self.sparse_dim
        if dim >= len(index_types):
            return (f"gather/scatter dimension {dim} is out of range for index count "
                    f"{len(index_types)}")
        gather = index_types[dim]
        if not isinstance(gather, TileType):
            return (f"expected index at sparse_dim position {dim} to be a tile type for "
                    "GatherScatterView")
        if gather.rank != 1:
            return (f"expected index at sparse_dim position {dim} to be a 1D tensor for "
                    f"GatherScatterView, got rank {gather.rank}")
        if gather.shape[0] != self.tile_shape[dim]:
            return (f"expected gather/scatter index size ({gather.shape[0]}) to match tile "
                    f"shape at gather/scatter dimension {dim} ({self.tile_shape[dim]})")
        base: Type | None = None
        for i, t in enumerate(index_types):
            if i == dim:
                continue
            if not isinstance(t, TileType) or t.rank != 0:
                return f"expected index {i} to be a scalar tile for GatherScatterView"
            if base is None:
                base = t
            elif t != base:
                return (f"expected scalar index {i} to have the same type as other scalar "
                        f"indices ({quoted(base)}), got {quoted(t)}")
        return None


@dataclass(frozen=True)
class TokenType(Type):
    """``token``: orders memory operations within a tile block; not a run-time value."""

    mnemonic = "token"
    since = V13_1

    def format(self, qualified: bool = True) -> str:
        return _qualify("token", "", qualified)


TOKEN = TokenType()


@dataclass(frozen=True)
class FunctionType(Type):
    """MLIR's builtin ``(T...) -> (R...)``, the signature of entries and functions."""

    inputs: tuple[Type, ...] = field(default=())
    results: tuple[Type, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", _tuple(self.inputs))
        object.__setattr__(self, "results", _tuple(self.results))

    def format(self, qualified: bool = True) -> str:
        inputs = "(" + ", ".join(str(t) for t in self.inputs) + ")"
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            results = str(self.results[0])
        else:
            results = "(" + ", ".join(str(t) for t in self.results) + ")"
        return f"{inputs} -> {results}"

    def children(self) -> tuple[Type, ...]:
        return self.inputs + self.results
