"""13.5's preview function records: `preview$func` (a plain, private, bodiless record with
its argument attributes and ``const_params``) and `preview$extern_impl` (form 1, whose
record holds the op's attributes as an op encoding would, then one empty region).

The extern_impl encoding follows its declaration (`tileir.ops.preview`): a flags varint
with one bit per optional attribute in declaration order, then each attribute present in
declaration order, stored as its kind says (`_CODECS`).
"""

from __future__ import annotations

from typing import Any, Callable

from .. import preview as P
from ..attributes import ArrayAttr, Attribute, DictAttr, IntegerAttr, StringAttr, \
    SymbolRefAttr, TypeAttr
from ..ops.registry import lookup
from ..types import IntegerType
from . import attrs as A
from .encoding import ReadError, Sink, Source

_MASK64 = (1 << 64) - 1


def _write_string(value: Attribute, tables, sink: Sink) -> None:
    sink.varint(tables.string_ref(value.name if isinstance(value, SymbolRefAttr)
                                  else value.value))  # type: ignore[attr-defined]


def _write_array(value: ArrayAttr, tables, sink: Sink) -> None:
    A.write_array_payload(value, tables, sink)


def _write_type(value: TypeAttr, tables, sink: Sink) -> None:
    sink.varint(tables.type_ref(value.value))


def _write_dict(value: DictAttr, tables, sink: Sink) -> None:
    A.write_dict_payload(value.entries, tables, sink)


def _write_scratch(value: P.PreviewAttr, tables, sink: Sink) -> None:
    A.encode_attr(value["size"], tables, sink)
    A.encode_attr(value["alignment"], tables, sink)


def _write_sync(value: P.PreviewAttr, tables, sink: Sink) -> None:
    sink.varint(P.ENUMS["synchronization"].index(value["value"]))


def _write_i64(value: IntegerAttr, tables, sink: Sink) -> None:
    sink.varint(value.value & _MASK64)


def _read_string(source: Source, lookup_: Any) -> Attribute:
    return StringAttr(lookup_.read_string(source))


def _read_symbol(source: Source, lookup_: Any) -> Attribute:
    return SymbolRefAttr(lookup_.read_string(source))


def _read_array(source: Source, lookup_: Any) -> Attribute:
    return A.read_array_payload(source, lookup_)


def _read_type(source: Source, lookup_: Any) -> Attribute:
    return TypeAttr(lookup_.read_type(source))


def _read_dict(source: Source, lookup_: Any) -> Attribute:
    return DictAttr(A.read_dict_payload(source, lookup_))


def _read_scratch(source: Source, lookup_: Any) -> Attribute:
    definition = P.ATTR_BY_NAME["scratch_request"]
    values = tuple(A.read_preview_param("scratch_request", p, source, lookup_)
                   for p in definition.params)
    return P.PreviewAttr("scratch_request", values)


def _read_sync(source: Source, lookup_: Any) -> Attribute:
    at = source.offset
    names = P.ENUMS["synchronization"]
    index = source.varint("a synchronization value")
    if index >= len(names):
        raise ReadError(f"invalid integer value for enum type: {index}", at)
    return P.PreviewAttr("synchronization", (names[index],))


def _read_i64(source: Source, lookup_: Any) -> Attribute:
    raw = source.varint("an integer attribute") & _MASK64
    return IntegerAttr(raw - (1 << 64) if raw >> 63 else raw, IntegerType(64))


#: Per attribute kind of the declaration: how the record writes and reads it.
_CODECS: dict[str, tuple[Callable, Callable]] = {
    "symbol_name": (_write_string, _read_string), "symbol_ref": (_write_string, _read_symbol),
    "array": (_write_array, _read_array), "dict_array": (_write_array, _read_array),
    "type": (_write_type, _read_type), "dict": (_write_dict, _read_dict),
    "scratch": (_write_scratch, _read_scratch), "synchronization": (_write_sync, _read_sync),
    "i64": (_write_i64, _read_i64),
}


def _impl_def():
    definition = lookup("cuda_tile.preview$extern_impl")
    assert definition is not None
    return definition


def write_extern_impl(attributes: dict[str, Attribute], tables, sink: Sink) -> None:
    """The op encoding of a `preview$extern_impl`'s attributes and its empty region."""
    attrs = _impl_def().attrs
    optional = [a for a in attrs if a.optional]
    sink.varint(sum(1 << i for i, a in enumerate(optional) if a.name in attributes))
    for a in attrs:
        value = attributes.get(a.name)
        if value is not None:
            _CODECS[a.kind.name][0](value, tables, sink)
    sink.varint(1)          # one region
    sink.varint(0)          # with no blocks


def read_extern_impl(source: Source, lookup_: Any) -> dict[str, Attribute]:
    """A `preview$extern_impl`'s attributes from its op encoding (its region must be empty)."""
    attrs = _impl_def().attrs
    optional = [a for a in attrs if a.optional]
    at = source.offset
    flags = source.varint("the extern_impl flags")
    if flags >> len(optional):
        raise ReadError(f"extern_impl has unknown flag bits (0x{flags:x})", at)
    present = {a.name for i, a in enumerate(optional) if flags >> i & 1}
    found: dict[str, Attribute] = {}
    for a in attrs:
        if a.optional and a.name not in present:
            continue
        found[a.name] = _CODECS[a.kind.name][1](source, lookup_)
    at = source.offset
    regions = source.varint("number of regions")
    if regions != 1:
        raise ReadError(f"cuda_tile.preview$extern_impl op expected 1 regions, got {regions}",
                        at)
    at = source.offset
    if source.varint("number of blocks"):
        raise ReadError("'cuda_tile.preview$extern_impl' op region #0 ('body') failed to verify "
                        "constraint: region with 0 blocks", at)
    return found
