"""Types in bytecode: one tagged entry per type in the Type section, nested types by index.

The tag table follows BytecodeTypeOpcodes: each scalar type has a tag and the release that
introduced it; composite types carry their parameters, some of them version-dependent
(the 13.3 flags bitfield of view types, the 13.4 pointer attribute).
"""

from __future__ import annotations

from typing import Any, Callable

from .. import preview as P
from ..enums import PaddingValue, PointerAttribute
from ..types import (BF16, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F16, F32, F4E2M1FN, F64,
                     I1, I4, I8, I16, I32, I64, TF32, TOKEN, FunctionType,
                     GatherScatterViewType, PartitionViewType, PointerType, StridedViewType,
                     TensorViewType, TileType, Type)
from ..versions import V13_1, V13_2, V13_3, V13_4, V13_5, Version
from .attrs import read_preview, write_preview_param
from .encoding import ReadError, Sink, Source

#: Scalar types: tag, the reference's name for version messages, and the first release.
SCALARS: dict[Type, tuple[int, str, Version]] = {
    I1: (0, "Int1", V13_1), I8: (1, "Int8", V13_1), I16: (2, "Int16", V13_1),
    I32: (3, "Int32", V13_1), I64: (4, "Int64", V13_1),
    F16: (5, "Float16", V13_1), BF16: (6, "BFloat16", V13_1), F32: (7, "Float32", V13_1),
    TF32: (8, "TFloat32", V13_1), F64: (9, "Float64", V13_1),
    F8E4M3FN: (10, "Float8E4M3FN", V13_1), F8E5M2: (11, "Float8E5M2", V13_1),
    TOKEN: (17, "TokenType", V13_1), F8E8M0FNU: (18, "Float8E8M0FNU", V13_2),
    F4E2M1FN: (19, "Float4E2M1FN", V13_3), I4: (22, "Int4", V13_3),
    F8E5M3FNU: (130, "FloatNV8E5M3FNU", V13_4),
}
SCALAR_BY_TAG: dict[int, Type] = {tag: t for t, (tag, _, _) in SCALARS.items()}

PTR, TILE, TENSOR_VIEW, PARTITION_VIEW, FUNCTION = 12, 13, 14, 15, 16
GATHER_SCATTER_VIEW, STRIDED_VIEW = 20, 21
#: Composite tags: the reference's name and the first release.
COMPOSITES: dict[int, tuple[str, Version]] = {
    PTR: ("PointerType", V13_1), TILE: ("TileType", V13_1),
    TENSOR_VIEW: ("TensorViewType", V13_1), PARTITION_VIEW: ("PartitionViewType", V13_1),
    FUNCTION: ("FunctionType", V13_1), GATHER_SCATTER_VIEW: ("GatherScatterViewType", V13_3),
    STRIDED_VIEW: ("StridedViewType", V13_3),
}
#: From this release, view types start with a flags bitfield for their optional parameters.
UNIFIED_BITFIELD = V13_3
#: From this release, pointers and tensor views carry that bitfield and a pointer attribute.
POINTER_ATTRIBUTE = V13_4
#: How deep types may nest in a file (a pointer to a pointer ... ); real types nest 4 deep.
MAX_NESTING = 64
#: How a dynamic size or stride is stored.
DYNAMIC_I64 = -(1 << 63)

TypeRef = Callable[[Type], int]


class TypeVersionError(Exception):
    """A type newer than the version being written: (name, since)."""


def check_type_version(name: str, since: Version, version: Version) -> None:
    if version < since:
        raise TypeVersionError(f"type '{name}' requires bytecode version {since}+, "
                               f"targeting {version}")


# ---- writing --------------------------------------------------


def _i32_list(values, sink: Sink) -> None:
    sink.varint(len(values))
    for v in values:
        sink.fixed(v, 4)


def _i64_list(values, sink: Sink) -> None:
    sink.varint(len(values))
    for v in values:
        sink.fixed(DYNAMIC_I64 if v is None else v, 8)


def _padding_tail(padding: PaddingValue | None, version: Version, sink: Sink) -> None:
    """The padding value of a view: flagged from 13.3, a presence byte before."""
    if version < UNIFIED_BITFIELD:
        sink.varint(padding is not None)
    if padding is not None:
        sink.varint(int(padding))


def _ptr_attr_flags(attr: PointerAttribute | None, version: Version, sink: Sink,
                    what: str) -> None:
    if version >= POINTER_ATTRIBUTE:
        sink.varint(attr is not None)
    elif attr is not None:
        raise TypeVersionError(f"parameter 'ptrAttr' requires bytecode version "
                               f"{POINTER_ATTRIBUTE}+, but targeting {version}")


def _ptr_attr_tail(attr: PointerAttribute | None, version: Version, sink: Sink) -> None:
    if version >= POINTER_ATTRIBUTE and attr is not None:
        if attr.since > version:   # 13.5's unicast and multicast
            raise TypeVersionError(f"enum value '{attr.keyword}' of parameter 'ptrAttr' "
                                   f"requires bytecode version {attr.since}+, but targeting "
                                   f"{version}")
        sink.varint(int(attr))


def _dim_map(view) -> tuple[int, ...]:
    return view.dim_map if view.dim_map is not None else tuple(range(len(view.tile_shape)))


def encode_type(t: Type, version: Version, ref: TypeRef, tables=None) -> bytes:
    """The Type-section entry of `t`; `ref` interns nested types (dependencies first), and
    `tables` (the writer) interns what a preview type's parameters refer to."""
    sink = Sink()
    preview_tag = _preview_tag(t)
    if preview_tag is not None:
        if version < V13_5:
            raise TypeVersionError(f"type '{t.format()}' requires bytecode version 13.5+, "
                                   f"but targeting {version}")
        sink.varint(preview_tag)
        tables.preview = True   # (the header must say the file holds preview content)
        if isinstance(t, P.PreviewType):
            for param, value in zip(t.definition.params, t.values):
                write_preview_param(t.mnemonic, param.kind, value, tables, sink, param.enum)
        return bytes(sink.data)
    scalar = SCALARS.get(t)
    if scalar is not None:
        tag, name, since = scalar
        check_type_version(name, since, version)
        sink.varint(tag)
        return bytes(sink.data)
    encoder = _ENCODERS.get(type(t))
    if encoder is None:
        raise TypeVersionError("unsupported type in bytecode writer")
    encoder(t, version, ref, sink)
    return bytes(sink.data)


def _preview_tag(t: Type) -> int | None:
    """The preview type tag of `t` (a ``preview$`` type, ``index`` or ``none``), or None."""
    if isinstance(t, P.PreviewType):
        return t.definition.tag
    for tag, builtin in P.BUILTIN_TAGS.items():
        if t == builtin:
            return tag
    return None


def _enc_ptr(t: PointerType, version: Version, ref: TypeRef, sink: Sink) -> None:
    pointee = ref(t.pointee)
    sink.varint(PTR)
    _ptr_attr_flags(t.ptr_attr, version, sink, "pointer")
    sink.varint(pointee)
    _ptr_attr_tail(t.ptr_attr, version, sink)


def _enc_tile(t: TileType, version: Version, ref: TypeRef, sink: Sink) -> None:
    element = ref(t.element_type)
    sink.varint(TILE)
    sink.varint(element)
    sink.varint(len(t.shape))
    for d in t.shape:
        sink.fixed(d, 8)


def _enc_tensor_view(t: TensorViewType, version: Version, ref: TypeRef, sink: Sink) -> None:
    element = ref(t.element_type)
    sink.varint(TENSOR_VIEW)
    _ptr_attr_flags(t.ptr_attr, version, sink, "tensor_view")
    sink.varint(element)
    _i64_list(t.shape, sink)
    _i64_list(t.strides, sink)
    _ptr_attr_tail(t.ptr_attr, version, sink)


def _enc_partition_view(t: PartitionViewType, version: Version, ref: TypeRef,
                        sink: Sink) -> None:
    view = ref(t.tensor_view)
    sink.varint(PARTITION_VIEW)
    if version >= UNIFIED_BITFIELD:
        sink.varint(t.padding_value is not None)
    _i32_list(t.tile_shape, sink)
    sink.varint(view)
    _i32_list(_dim_map(t), sink)
    _padding_tail(t.padding_value, version, sink)


def _enc_gather_scatter_view(t: GatherScatterViewType, version: Version, ref: TypeRef,
                             sink: Sink) -> None:
    check_type_version("GatherScatterViewType", V13_3, version)
    view = ref(t.tensor_view)
    sink.varint(GATHER_SCATTER_VIEW)
    sink.varint(t.padding_value is not None)
    _i32_list(t.tile_shape, sink)
    sink.varint(view)
    sink.varint(t.sparse_dim)
    _padding_tail(t.padding_value, version, sink)


def _enc_strided_view(t: StridedViewType, version: Version, ref: TypeRef, sink: Sink) -> None:
    check_type_version("StridedViewType", V13_3, version)
    view = ref(t.tensor_view)
    sink.varint(STRIDED_VIEW)
    sink.varint(t.padding_value is not None)
    _i32_list(t.tile_shape, sink)
    _i32_list(t.traversal_strides, sink)
    sink.varint(view)
    _i32_list(_dim_map(t), sink)
    _padding_tail(t.padding_value, version, sink)


def _enc_function(t: FunctionType, version: Version, ref: TypeRef, sink: Sink) -> None:
    inputs = [ref(x) for x in t.inputs]
    results = [ref(x) for x in t.results]
    sink.varint(FUNCTION)
    for group in (inputs, results):
        sink.varint(len(group))
        for index in group:
            sink.varint(index)


_ENCODERS: dict[type, Callable[[Type, Version, TypeRef, Sink], None]] = {
    PointerType: _enc_ptr, TileType: _enc_tile, TensorViewType: _enc_tensor_view,
    PartitionViewType: _enc_partition_view, GatherScatterViewType: _enc_gather_scatter_view,
    StridedViewType: _enc_strided_view, FunctionType: _enc_function,
}


# ---- reading --------------------------------------------------


class TypeTable:
    """The Type section of a file being read: entries decoded on first use, by index."""

    def __init__(self, data: bytes, spans: list[tuple[int, int]], base: int,
                 version: Version) -> None:
        self.data = data
        self.spans = spans
        self.base = base
        self.version = version
        self.cache: dict[int, Type] = {}
        self.busy: set[int] = set()
        #: The reader: strings and attributes a preview type's parameters refer to.
        self.lookup = None

    def __len__(self) -> int:
        return len(self.spans)

    def read_ref(self, source: Source) -> Type:
        at = source.offset
        return self.get(source.varint("a type index"), at)

    def get(self, index: int, at: int | None = None) -> Type:
        found = self.cache.get(index)
        if found is not None:
            return found
        if index >= len(self.spans):
            raise ReadError(f"type index {index} out of bounds (the file has "
                            f"{len(self.spans)} types)", at)
        if index in self.busy:
            raise ReadError(f"type {index} refers to itself", at)
        if len(self.busy) >= MAX_NESTING:
            raise ReadError(f"types nest more than {MAX_NESTING} deep", at)
        self.busy.add(index)
        try:
            start, end = self.spans[index]
            source = Source(memoryview(self.data)[start:end], self.base + start)
            result = self._decode(source)
        finally:
            self.busy.discard(index)
        self.cache[index] = result
        return result

    def _since(self, name: str, since: Version, source: Source, at: int) -> None:
        if self.version < since:
            raise ReadError(f"type '{name}' requires bytecode version {since}+, file version "
                            f"is {self.version}", at)

    def _decode(self, source: Source) -> Type:
        at = source.offset
        tag = source.varint("a type tag")
        scalar = SCALAR_BY_TAG.get(tag)
        if scalar is not None:
            _, name, since = SCALARS[scalar]
            self._since(name, since, source, at)
            return scalar
        if tag in P.TYPE_BY_TAG or tag in P.BUILTIN_TAGS:
            return self._preview(tag, source, at)
        composite = COMPOSITES.get(tag)
        if composite is None:
            raise ReadError(f"unknown type tag {tag}", at)
        self._since(*composite, source, at)
        try:
            result = _DECODERS[tag](self, source)
        except ValueError as exc:  # a type constructor refusing its parameters
            raise ReadError(f"invalid type: {exc}", at) from None
        problem = result.own_error()    # nested types were checked when they were read
        if problem is not None:
            raise ReadError(problem, at)
        return result

    def _preview(self, tag: int, source: Source, at: int) -> Type:
        """A preview type tag: only in a file whose header says it holds preview content."""
        if self.lookup is None or not getattr(self.lookup, "preview_content", False):
            raise ReadError("preview type extension requires the header to advertise preview "
                            "content", at)
        builtin = P.BUILTIN_TAGS.get(tag)
        if builtin is not None:
            return builtin
        return read_preview(P.TYPE_BY_TAG[tag], P.PreviewType, P.type_error, source,
                            self.lookup, 0, at)

    def _element(self, source: Source) -> Type:
        return self.read_ref(source)

    def _flags(self, source: Source, since: Version) -> int:
        return source.varint("type flags") if self.version >= since else 0

    def _ptr_attr(self, flags: int, source: Source) -> PointerAttribute | None:
        if not flags & 1:
            return None
        return _enum(PointerAttribute, source, self.version)

    def _padding(self, flags: int, source: Source) -> PaddingValue | None:
        if self.version < UNIFIED_BITFIELD:
            flags = source.byte("the padding presence byte")
        if not flags & 1:
            return None
        return _enum(PaddingValue, source, self.version)

    def _view(self, source: Source) -> TensorViewType:
        at = source.offset
        view = self.read_ref(source)
        if not isinstance(view, TensorViewType):
            raise ReadError(f"expected a tensor_view type, got {view.format()}", at)
        return view


#: Per (enum, stored value): the case and the release that introduced it (looked up
#: once: enum construction and `since` are slow, and files repeat a few cases).
_ENUM_CASES: dict[tuple[type, int], tuple[Any, Version]] = {}


def enum_since(value: Any) -> Version:
    """The release that introduced enum case `value` (remembered, as in `_enum`)."""
    key = (type(value), int(value))
    known = _ENUM_CASES.get(key)
    if known is None:
        known = _ENUM_CASES[key] = (value, value.since)
    return known[1]


def _enum(enum_type, source: Source, version: Version):
    """An enum case stored as a varint, refused when invalid or newer than `version`."""
    at = source.offset
    raw = source.varint("an enum value")
    known = _ENUM_CASES.get((enum_type, raw))
    if known is None:
        try:
            value = enum_type(raw)
        except ValueError:
            raise ReadError(f"invalid integer value for enum type: {raw}", at) from None
        known = _ENUM_CASES[(enum_type, raw)] = (value, value.since)
    value, since = known
    if since > version:
        raise ReadError(f"enum value {raw} is not available in bytecode version {version}", at)
    return value


def _dims(source: Source, what: str) -> tuple[int | None, ...]:
    return tuple(None if v == DYNAMIC_I64 else v for v in source.fixed_list(8, what))


def _identity_or(dim_map: list[int]) -> tuple[int, ...] | None:
    return None if dim_map == list(range(len(dim_map))) else tuple(dim_map)


def _dec_ptr(table: TypeTable, source: Source) -> Type:
    flags = table._flags(source, POINTER_ATTRIBUTE)
    pointee = table._element(source)
    return PointerType(pointee, table._ptr_attr(flags, source))


def _dec_tile(table: TypeTable, source: Source) -> Type:
    element = table._element(source)
    shape = source.fixed_list(8, "tile dimensions")
    return TileType(tuple(shape), element)


def _dec_tensor_view(table: TypeTable, source: Source) -> Type:
    flags = table._flags(source, POINTER_ATTRIBUTE)
    element = table._element(source)
    shape = _dims(source, "tensor_view shape")
    strides = _dims(source, "tensor_view strides")
    return TensorViewType(element, shape, strides, table._ptr_attr(flags, source))


def _dec_partition_view(table: TypeTable, source: Source) -> Type:
    flags = table._flags(source, UNIFIED_BITFIELD)
    tile_shape = tuple(source.fixed_list(4, "tile shape"))
    view = table._view(source)
    dim_map = _identity_or(source.fixed_list(4, "dim_map"))
    return PartitionViewType(tile_shape, view, dim_map, table._padding(flags, source))


def _dec_gather_scatter_view(table: TypeTable, source: Source) -> Type:
    flags = source.varint("type flags")
    tile_shape = tuple(source.fixed_list(4, "tile shape"))
    view = table._view(source)
    sparse_dim = source.varint("sparse dimension")
    return GatherScatterViewType(tile_shape, view, sparse_dim, table._padding(flags, source))


def _dec_strided_view(table: TypeTable, source: Source) -> Type:
    flags = source.varint("type flags")
    tile_shape = tuple(source.fixed_list(4, "tile shape"))
    strides = tuple(source.fixed_list(4, "traversal strides"))
    view = table._view(source)
    dim_map = _identity_or(source.fixed_list(4, "dim_map"))
    return StridedViewType(tile_shape, strides, view, dim_map, table._padding(flags, source))


def _dec_function(table: TypeTable, source: Source) -> Type:
    groups = []
    for what in ("parameters", "results"):
        n = source.count(f"number of {what}")
        groups.append(tuple(table.read_ref(source) for _ in range(n)))
    return FunctionType(*groups)


_DECODERS: dict[int, Callable[[TypeTable, Source], Type]] = {
    PTR: _dec_ptr, TILE: _dec_tile, TENSOR_VIEW: _dec_tensor_view,
    PARTITION_VIEW: _dec_partition_view, GATHER_SCATTER_VIEW: _dec_gather_scatter_view,
    STRIDED_VIEW: _dec_strided_view, FUNCTION: _dec_function,
}
