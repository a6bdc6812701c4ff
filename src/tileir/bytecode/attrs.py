"""Attributes in bytecode: the self-contained tagged form (identities, assume predicates,
hint dictionaries) and the raw element data of dense constants."""

from __future__ import annotations

from typing import Protocol

from ..attributes import (ArrayAttr, Attribute, BoolAttr, BoundedAttr, DenseElementsAttr,
                          DictAttr, DivByAttr, FloatAttr, IntegerAttr, OptimizationHintsAttr,
                          SameElementsAttr, StringAttr, TypeAttr)
from .. import preview as P
from ..numerics.raw import code_bits, element_bytes, from_code, from_raw, to_code, to_raw
from ..types import I1, FloatType, IntegerType, TileType, Type
from .encoding import ReadError, Sink, Source

INTEGER, FLOAT, BOOL, TYPE, STRING, ARRAY, DENSE, DIV_BY, SAME_ELEMENTS = range(1, 10)
DICTIONARY, OPTIMIZATION_HINTS, BOUNDED = 10, 11, 12
_MASK64 = (1 << 64) - 1
#: Nesting allowed inside one self-contained attribute (arrays of dictionaries ...).
MAX_DEPTH = 64


class Tables(Protocol):
    """What encoding needs from the writer: indices of types, strings and constants."""

    def type_ref(self, t: Type) -> int: ...
    def string_ref(self, s: str) -> int: ...
    def constant_ref(self, attr: DenseElementsAttr) -> int: ...

    #: Set when a preview attribute or type is written (the header then says so).
    preview: bool


class Lookup(Protocol):
    """What decoding needs from the reader."""

    def read_type(self, source: Source) -> Type: ...
    def read_string(self, source: Source) -> str: ...
    def read_constant(self, source: Source, t: Type) -> DenseElementsAttr: ...


class UnencodableAttr(Exception):
    """An attribute the self-contained encoding has no tag for."""


# ---- scalars as MLIR's APInt --------------------------------------------------


def write_apint(value: int, width: int, sink: Sink) -> None:
    """An APInt: a raw byte up to 8 bits, else the zigzag varint of its 64-bit pattern."""
    value &= (1 << width) - 1
    if width <= 8:
        sink.byte(value)
    elif width <= 64:
        signed = value - (1 << 64) if value >> 63 else value
        sink.svarint(signed)
    else:
        raise UnencodableAttr(f"integers of {width} bits")


def read_apint(width: int, source: Source) -> int:
    at = source.offset
    if width <= 8:
        value = source.byte("an integer value")
    else:
        value = source.svarint("an integer value") & _MASK64
    if value >> width:
        raise ReadError(f"value {value} does not fit in {width} bits", at)
    return value


# ---- self-contained attributes --------------------------------------------------


def encode_attr(attr: Attribute, tables: Tables, sink: Sink) -> None:
    """The tagged, self-contained encoding of `attr`."""
    if isinstance(attr, P.PreviewAttr):
        _enc_preview(attr, tables, sink)
        return
    encoder = _ENCODERS.get(type(attr))
    if encoder is None:
        raise UnencodableAttr(f"attribute {attr.format()}")
    encoder(attr, tables, sink)


def _enc_integer(attr: IntegerAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(INTEGER)
    sink.varint(tables.type_ref(attr.type))
    width = attr.type.width if isinstance(attr.type, IntegerType) else 64
    sink.varint(attr.value & ((1 << width) - 1))


def _enc_bool(attr: BoolAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(INTEGER)  # a BoolAttr is an i1 IntegerAttr in MLIR
    sink.varint(tables.type_ref(I1))
    sink.varint(int(attr.value))


def _enc_float(attr: FloatAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(FLOAT)
    sink.varint(tables.type_ref(attr.type))
    write_apint(to_code(attr.bits, attr.type), code_bits(attr.type), sink)


def _enc_type(attr: TypeAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(TYPE)
    sink.varint(tables.type_ref(attr.value))


def _enc_string(attr: StringAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(STRING)
    sink.varint(tables.string_ref(attr.value))


def _enc_array(attr: ArrayAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(ARRAY)
    write_array_payload(attr, tables, sink)


def write_array_payload(attr: ArrayAttr, tables: Tables, sink: Sink) -> None:
    """varint n, then n self-contained attributes (also an op's ArrayAttr operand form)."""
    sink.varint(len(attr.elements))
    for element in attr.elements:
        encode_attr(element, tables, sink)


def _enc_dense(attr: DenseElementsAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(DENSE)
    sink.varint(tables.type_ref(attr.type))
    sink.varint(tables.constant_ref(attr))


def _enc_div_by(attr: DivByAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(DIV_BY)
    sink.varint(attr.divisor)
    sink.byte((attr.every is not None) | (attr.along is not None) << 1)
    for part in (attr.every, attr.along):
        if part is not None:
            sink.svarint(part)


def _enc_same_elements(attr: SameElementsAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(SAME_ELEMENTS)
    sink.varint(len(attr.values))
    for v in attr.values:
        sink.fixed(v, 8)


def _enc_dict(attr: DictAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(DICTIONARY)
    write_dict_payload(attr.entries, tables, sink)


def write_dict_payload(entries, tables: Tables, sink: Sink) -> None:
    sink.varint(len(entries))
    for key, value in entries:
        sink.varint(tables.string_ref(key))
        encode_attr(value, tables, sink)


def write_hints_payload(attr: OptimizationHintsAttr, tables: Tables, sink: Sink) -> None:
    """An OptimizationHints attribute without its tag: per architecture, a dictionary."""
    write_dict_payload(attr.entries, tables, sink)


def _enc_hints(attr: OptimizationHintsAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(OPTIMIZATION_HINTS)
    write_hints_payload(attr, tables, sink)


def _enc_bounded(attr: BoundedAttr, tables: Tables, sink: Sink) -> None:
    sink.varint(BOUNDED)
    sink.byte((attr.lower is not None) | (attr.upper is not None) << 1)
    for part in (attr.lower, attr.upper):
        if part is not None:
            sink.svarint(part)


def _enc_preview(attr: P.PreviewAttr, tables: Tables, sink: Sink) -> None:
    tables.preview = True       # (the header must say the file holds preview content)
    definition = attr.definition
    sink.varint(definition.tag)
    for param, value in zip(definition.params, attr.values):
        write_preview_param(attr.mnemonic, param.kind, value, tables, sink, param.enum)


def write_preview_param(mnemonic: str, kind: str, value, tables: Tables, sink: Sink,
                        enum: str | None = None) -> None:
    """One parameter of a preview attribute or type, as its declaration's kind says."""
    if kind == "int":
        sink.svarint(value)
    elif kind in ("var", "builtin", "str"):
        sink.varint(tables.string_ref(value))
    elif kind == "type":
        sink.varint(tables.type_ref(value))
    elif kind == "tuple":
        sink.varint(len(value))
        for element in value:
            encode_attr(element, tables, sink)
    elif kind == "enum":
        sink.byte(P.ENUMS[enum or mnemonic].index(value))
    elif kind == "shape":                   # the symbolic tuple, then its concrete cache
        encode_attr(P.PreviewAttr("symbolic_tuple", (value,)), tables, sink)
        sink.varint(len(value))
        for extent in P.concrete_shape(value):
            sink.fixed(extent, 8)
    else:
        encode_attr(value, tables, sink)


_ENCODERS = {
    IntegerAttr: _enc_integer, BoolAttr: _enc_bool, FloatAttr: _enc_float, TypeAttr: _enc_type,
    StringAttr: _enc_string, ArrayAttr: _enc_array, DenseElementsAttr: _enc_dense,
    DivByAttr: _enc_div_by, SameElementsAttr: _enc_same_elements, DictAttr: _enc_dict,
    OptimizationHintsAttr: _enc_hints, BoundedAttr: _enc_bounded,
}


def decode_attr(source: Source, lookup: Lookup, depth: int = 0) -> Attribute:
    """One self-contained attribute."""
    at = source.offset
    if depth > MAX_DEPTH:
        raise ReadError("attribute nesting is too deep", at)
    tag = source.varint("an attribute tag")
    preview = P.ATTR_BY_TAG.get(tag)
    if preview is not None:
        return _dec_preview(preview, source, lookup, depth, at)
    decoder = _DECODERS.get(tag)
    if decoder is None:
        raise ReadError(f"unknown attribute tag {tag}", at)
    return decoder(source, lookup, depth)


def _dec_preview(definition: P.PreviewAttrDef, source: Source, lookup: Lookup, depth: int,
                 at: int) -> Attribute:
    if not getattr(lookup, "preview_content", False):
        raise ReadError(f"public-preview attribute tag {definition.tag} in a file whose header "
                        f"does not advertise preview content", at)
    return read_preview(definition, P.PreviewAttr, P.attr_error, source, lookup, depth, at)


def read_preview(definition, make, rules, source: Source, lookup: Lookup, depth: int, at: int):
    """A preview attribute or type (`make`) from its row's parameters, refused with the
    first of its own `rules` it breaks."""
    values = tuple(read_preview_param(definition.mnemonic, p, source, lookup, depth)
                   for p in definition.params)
    result = make(definition.mnemonic, values)
    message = rules(result)
    if message is not None:
        raise ReadError(message, at)
    return result


def read_preview_param(mnemonic: str, param: P.Param, source: Source, lookup: Lookup,
                       depth: int = 0):
    """One parameter of a preview attribute or type (see `write_preview_param`)."""
    kind, at = param.kind, source.offset
    if kind == "int":
        return source.svarint("an integer")
    if kind in ("var", "builtin", "str"):
        return lookup.read_string(source)
    if kind == "type":
        return lookup.read_type(source)
    if kind == "enum":
        names = P.ENUMS[param.enum or mnemonic]
        index = source.byte("an enum value")
        if index >= len(names):
            raise ReadError(f"invalid enum value for value: {index}", at)
        return names[index]
    if kind == "shape":
        return _read_fragment_shape(source, lookup, depth)
    if kind == "tuple":
        n = source.count("number of tuple elements")
        value = tuple(decode_attr(source, lookup, depth + 1) for _ in range(n))
    elif kind == "layout":
        value = decode_attr(source, lookup, depth + 1)
        if not isinstance(value, P.PreviewAttr) or value.mnemonic != "layout":
            raise ReadError(f"expected a layout for parameter '{param.name}', got "
                            f"{value.format()}", at)
        return value
    else:
        value = decode_attr(source, lookup, depth + 1)
    message = P.param_error(param, value)
    if message is not None:
        raise ReadError(message, at)
    return value


def _read_fragment_shape(source: Source, lookup: Lookup, depth: int) -> tuple:
    """A fragment's symbolic shape and its concrete cache, which must agree."""
    at = source.offset
    shape = decode_attr(source, lookup, depth + 1)
    if not isinstance(shape, P.PreviewAttr) or shape.mnemonic != "symbolic_tuple":
        raise ReadError("symbolic shape must be a SymbolicTupleAttr", at)
    dims = shape["elements"]
    at = source.offset
    rank = source.count("the concrete shape cache rank", 8)
    cache = [source.fixed(8, "a concrete extent", signed=True) for _ in range(rank)]
    if rank != len(dims):
        raise ReadError(f"concrete shape cache rank ({rank}) does not match symbolic shape "
                        f"rank ({len(dims)})", at)
    for i, (found, expected) in enumerate(zip(cache, P.concrete_shape(dims))):
        if found != expected:
            message = (f"concrete shape cache dimension {i} must be dynamic for a symbolic "
                       f"shape dimension" if expected == P.DYNAMIC else
                       f"concrete shape cache dimension {i} does not match symbolic shape")
            raise ReadError(message, at)
    return dims


def _dec_integer(source: Source, lookup: Lookup, depth: int) -> Attribute:
    at = source.offset
    t = lookup.read_type(source)
    if not isinstance(t, IntegerType):
        raise ReadError(f"expected an integer type for an integer attribute, got "
                        f"{t.format()}", at)
    if t.width == 1:
        value = source.byte("a boolean value")
        if value > 1:
            raise ReadError(f"invalid boolean value {value}", at)
        return BoolAttr(bool(value))
    value = source.varint("an integer value")
    if value >> t.width:
        raise ReadError(f"value {value} does not fit in {t.format()}", at)
    if value >> (t.width - 1):
        value -= 1 << t.width
    return IntegerAttr(value, t)


def _dec_float(source: Source, lookup: Lookup, depth: int) -> Attribute:
    at = source.offset
    t = lookup.read_type(source)
    if not isinstance(t, FloatType):
        raise ReadError(f"expected a float type for a float attribute, got {t.format()}", at)
    return FloatAttr(from_code(read_apint(code_bits(t), source), t), t)


def _dec_bool(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return BoolAttr(bool(source.byte("a boolean value")))


def _dec_type(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return TypeAttr(lookup.read_type(source))


def _dec_string(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return StringAttr(lookup.read_string(source))


def _dec_array(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return read_array_payload(source, lookup, depth)


def read_array_payload(source: Source, lookup: Lookup, depth: int = 0) -> ArrayAttr:
    n = source.count("number of array elements")
    return ArrayAttr(tuple(decode_attr(source, lookup, depth + 1) for _ in range(n)))


def _dec_dense(source: Source, lookup: Lookup, depth: int) -> Attribute:
    t = lookup.read_type(source)
    return lookup.read_constant(source, t)


def _dec_div_by(source: Source, lookup: Lookup, depth: int) -> Attribute:
    divisor = source.varint("a divisor")
    flags = source.byte("div_by flags")
    every = source.svarint("div_by every") if flags & 1 else None
    along = source.svarint("div_by along") if flags & 2 else None
    return DivByAttr(divisor, every, along)


def _dec_same_elements(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return SameElementsAttr(tuple(source.fixed_list(8, "same_elements values")))


def _dec_dict(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return DictAttr(read_dict_payload(source, lookup, depth))


def read_dict_payload(source: Source, lookup: Lookup, depth: int = 0
                      ) -> tuple[tuple[str, Attribute], ...]:
    """varint n, then n (non-empty key, attribute) pairs; sorted by key, as MLIR keeps a
    dictionary."""
    n = source.count("number of dictionary entries", 2)
    entries = []
    for i in range(n):
        at = source.offset
        key = lookup.read_string(source)
        if not key:
            raise ReadError(f"invalid empty attribute name for DictionaryAttr element {i}", at)
        if any(key == k for k, _ in entries):
            raise ReadError(f"duplicate key '{key}' in dictionary attribute", at)
        entries.append((key, decode_attr(source, lookup, depth + 1)))
    return tuple(sorted(entries, key=lambda e: e[0]))


def read_hints_payload(source: Source, lookup: Lookup) -> OptimizationHintsAttr:
    """A dictionary payload whose values, one per architecture, are dictionaries."""
    at = source.offset
    entries = read_dict_payload(source, lookup)
    for key, value in entries:
        if not isinstance(value, DictAttr):
            raise ReadError(f"optimization hints for '{key}' must be a dictionary", at)
    return OptimizationHintsAttr(entries)


def _dec_hints(source: Source, lookup: Lookup, depth: int) -> Attribute:
    return read_hints_payload(source, lookup)


def _dec_bounded(source: Source, lookup: Lookup, depth: int) -> Attribute:
    flags = source.byte("bounded flags")
    lower = source.svarint("a lower bound") if flags & 1 else None
    upper = source.svarint("an upper bound") if flags & 2 else None
    return BoundedAttr(lower, upper)


_DECODERS = {
    INTEGER: _dec_integer, FLOAT: _dec_float, BOOL: _dec_bool, TYPE: _dec_type,
    STRING: _dec_string, ARRAY: _dec_array, DENSE: _dec_dense, DIV_BY: _dec_div_by,
    SAME_ELEMENTS: _dec_same_elements, DICTIONARY: _dec_dict,
    OPTIMIZATION_HINTS: _dec_hints, BOUNDED: _dec_bounded,
}


# ---- dense element data (the Constant section) ------------------------------------------


def encode_dense(attr: DenseElementsAttr) -> bytes:
    """A constant blob: varint raw size, then the little-endian elements (one if splat; i1
    elements bit-packed, low bit first, as MLIR and NVIDIA's tools keep them)."""
    t = attr.element_type
    sink = Sink()
    if t != I1:
        raw = to_raw(attr.values, t)
    elif attr.is_splat:                     # MLIR keeps a true i1 splat as an all-ones byte
        raw = b"\xff" if attr.values[0] else b"\x00"
    else:                                   # and packs other i1 data, bit i of byte i // 8
        packed = sum(1 << i for i, value in enumerate(attr.values) if value)
        raw = packed.to_bytes((len(attr.values) + 7) // 8, "little")
    sink.varint(len(raw))
    sink.raw(raw)
    return bytes(sink.data)


def decode_dense(raw: bytes, t: TileType, at: int) -> DenseElementsAttr:
    """The elements of a constant blob's raw data for tile type `t` (MLIR's raw-buffer
    rules: one element is a splat)."""
    element = t.element_type
    if not isinstance(element, (IntegerType, FloatType)) or element.info is None:
        raise ReadError(f"expect Cuda Tile integer or float type but got: {t.format()}", at)
    count = t.num_elements
    if element == I1:
        return DenseElementsAttr(t, _decode_i1(raw, count, at))
    size = element_bytes(element)
    if len(raw) not in (size, size * count):
        raise ReadError("failed to validate buffer size and format", at)
    try:
        return DenseElementsAttr(t, from_raw(raw, element))
    except ValueError as error:             # (a 4-bit float's byte with its high nibble set)
        raise ReadError(f"constant {error}", at) from None


def _decode_i1(raw: bytes, count: int, at: int) -> tuple[int, ...]:
    """i1 data as NVIDIA's 13.5 reader takes it: a buffer of exactly ceil(n/8) bytes is
    MLIR's bit-packed form (a lone 0x00 or 0xFF byte being a splat), else a single byte is
    a splat (any non-zero byte is true); 13.4's one byte per element is refused."""
    if len(raw) == (count + 7) // 8:
        if len(raw) == 1 and raw[0] in (0, 0xFF):
            return (int(raw[0] != 0),)
        return tuple((raw[i // 8] >> (i % 8)) & 1 for i in range(count))
    if len(raw) == 1:
        return (int(raw[0] != 0),)
    raise ReadError(f"i1 dense attribute payload size {len(raw)} is not a recognized "
                    f"encoding for {count} elements", at)
