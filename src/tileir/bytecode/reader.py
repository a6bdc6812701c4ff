"""Bytecode -> Module, trusting nothing: every count, index, length and tag is checked, and
any failure is a `BytecodeError` at a byte offset with the reference's message."""

from __future__ import annotations

from ..attributes import (UNKNOWN_LOC, ArrayAttr, Attribute, DenseArrayAttr,
                          DenseElementsAttr, DictAttr, EnumAttr,
                          IntegerAttr, Location, StringAttr, SymbolRefAttr,
                          TypeAttr, UNIT, BoolAttr, NestingError, OptimizationHintsAttr)
from ..enums import SymbolVisibility
from ..ir import Block, Module, Operation, Region, Value, gc_paused
from ..ops.base import OPTIONAL, SINGLE, VARIADIC, AttrDef, OpDef
from ..ops.registry import lookup
from ..types import FunctionType, IntegerType, TileType, Type
from ..versions import V13_4, V13_5, Version
from . import attrs as A
from .debug import BY_TAG, KNOWN_SUBPROGRAM_FLAGS
from .preview import read_extern_impl
from .encoding import ReadError, Source
from .tables import read_offset_table
from .ops import layout, opdef_for_opcode
from ..versions import TESTING, newest_release, supported_versions
from .sections import (CONSTANT, DEBUG, END, FORM_EXTERN_IMPL, FORM_MASK, FORM_TESTING, FUNC,
                       GLOBAL, KNOWN_FUNCTION_FLAGS_13_5, MAGIC, NUM_SECTIONS, PREVIEW_TAG,
                       PRODUCER, REQUIRED_ALIGNMENT, STRING, TYPE, V_FUNCTION_FORMS,
                       FunctionFlags, Layout, min_version_text)
from .types import TypeTable, _enum

_I32_LIMITS = (-(1 << 31), (1 << 31) - 1)
#: Nesting of debug attributes (call sites of call sites ...) a file may have.
MAX_DEBUG_NESTING = 256
#: Nesting of regions a body may have (far beyond any real kernel).
MAX_REGION_DEPTH = 256


class Reader:
    """One read of one file."""

    def __init__(self, data: bytes, preview: tuple[str, ...] = ()) -> None:
        self.data = bytes(data)
        #: The preview features enabled (``--preview=simt``).
        self.preview = preview
        self.version = Version(0, 0)
        self.strings: list[str] = []
        self.string_spans: list[tuple[int, int]] = []
        self.constant_spans: list[tuple[int, int]] = []
        self.constant_cache: dict[tuple[int, Type], DenseElementsAttr] = {}
        self.types: TypeTable | None = None
        self.layout: Layout | None = None
        self.debug = DebugTable(self)

    def spelling(self, opdef: OpDef) -> str:
        """The op's name as the emulated tools print it: an op renamed in 13.4 keeps its
        older name (its first alias) when the newest supported release is older."""
        if opdef.aliases and newest_release() < V13_4:
            return f"{opdef.dialect}.{opdef.aliases[0]}"
        return opdef.full_name

    # ---- framing --------------------------------------------------

    def read(self) -> Module:
        source = Source(self.data)
        self._header(source)
        payloads = self._sections(source)
        if STRING not in payloads:
            raise ReadError("string section is mandatory", None)
        self._strings(*payloads[STRING])
        producer = None
        if PRODUCER in payloads:
            producer = self.read_string(_source(self.data, *payloads[PRODUCER]))
        self._types(*payloads.get(TYPE, (len(self.data), len(self.data))))
        if CONSTANT in payloads:
            self._constants(*payloads[CONSTANT])
        globals_ = self._globals(*payloads[GLOBAL]) if GLOBAL in payloads else []
        if FUNC not in payloads:
            raise ReadError("function section is mandatory", None)
        functions = self._function_table(*payloads[FUNC])
        start, end = payloads[FUNC]
        self.layout.pad_functions = (end - start) % 8 == 0
        if DEBUG in payloads:
            self.debug.load(*payloads[DEBUG])
        module = Module("kernels", producer=producer)
        for op in globals_:
            module.body.append(op)
        for info in functions:
            module.body.append(self._function(info))
        assert self.layout is not None and self.types is not None
        self.layout.strings = [self.data[a:b] for a, b in self.string_spans]
        self.layout.types = [self.data[a:b] for a, b in self.types.spans]
        self.layout.constants = [self.data[a:b] for a, b in self.constant_spans]
        self.layout.constant_keys = [[] for _ in self.constant_spans]
        for (index, _), value in self.constant_cache.items():
            self.layout.constant_keys[index].append(value)
        self.layout.debug, self.layout.debug_keys = self.debug.entries()
        module.bytecode_layout = self.layout  # type: ignore[attr-defined]
        return module

    def _header(self, source: Source) -> None:
        for i, expected in enumerate(MAGIC):
            got = source.byte("the magic number")
            if got != expected:
                raise ReadError(f"invalid magic number at position {i}, got {got} expected "
                                f"{expected}", source.offset - 1)
        major = source.byte("the version")
        minor = source.byte("the version")
        tag = source.fixed(2, "the version tag")
        version = Version(major, minor)
        if version not in supported_versions():
            raise ReadError(f"unsupported Tile version {major}.{minor}.{tag}, this reader "
                            f"supports versions {min_version_text()}", source.offset)
        self.version = version
        self.layout = Layout(version)
        if V13_5 in supported_versions():   # a 13.5 build checks the tag's bits
            self.layout.preview = self._preview_tag(version, tag, source.offset)

    def _preview_tag(self, version: Version, tag: int, at: int) -> bool:
        """Whether the header's tag says the file holds preview content (13.5): any other
        tag bit, preview content at an older version, or preview content with no preview
        feature enabled is refused with the reference's message."""
        if tag & ~PREVIEW_TAG:
            raise ReadError(f"header has unrecognized version tag bits "
                            f"(0x{tag & ~PREVIEW_TAG:x});", at)
        if not tag & PREVIEW_TAG:
            return False
        current = newest_release()
        if version != current:
            raise ReadError(f"public-preview bytecode at version {version}.{tag} is not "
                            f"readable; preview content is only valid at the current "
                            f"version {current}", at)
        if not self.preview:
            raise ReadError("public-preview bytecode requires at least one enabled preview "
                            "feature", at)
        return True

    def _sections(self, source: Source) -> dict[int, tuple[int, int]]:
        payloads: dict[int, tuple[int, int]] = {}
        while True:
            at = source.offset
            if source.at_end():
                raise source.fail("unexpected end of data while reading section header")
            head = source.byte()
            section, aligned = head & 0x7F, bool(head & 0x80)
            if section == END:
                if aligned:
                    raise ReadError("end section should not have alignment flag set", at)
                if not source.at_end():
                    raise source.fail("end section is not the last section")
                return payloads
            if section >= NUM_SECTIONS:
                raise ReadError(f"unknown section ID: {section}", at)
            length_at = source.offset
            try:
                length = source.varint("a section length")
            except ReadError:
                raise ReadError("failed to read section length", length_at) from None
            if length > source.remaining():
                raise source.fail(f"section length {length} exceeds remaining data size "
                                  f"{source.remaining()}")
            alignment = 1
            if aligned:
                alignment = source.varint("a section alignment")
                if alignment == 0 or alignment & (alignment - 1):
                    raise source.fail(f"invalid alignment value: {alignment}")
                source.skip_padding(alignment)
            required = REQUIRED_ALIGNMENT.get(section)
            if required and (not aligned or alignment % required):
                how = f"has alignment of {alignment}" if aligned else \
                    "has no alignment flag set"
                raise ReadError(f"section {section} must have alignment that is a multiple "
                                f"of {required} bytes, but {how}", at)
            if length > source.remaining():
                raise source.fail(f"section length {length} exceeds remaining bytecode data. "
                                  f"{source.remaining()}")
            start = source.offset
            source.pos += length
            payloads[section] = (start, start + length)
            assert self.layout is not None
            if section in self.layout.section_order:
                self.layout.section_order.remove(section)
            self.layout.section_order.append(section)

    # ---- tables --------------------------------------------------

    def _strings(self, start: int, end: int) -> None:
        """The string table.  Offsets are clamped to the data as the reference's
        ``StringRef::substr`` does (a string whose end precedes its start runs to the
        end), so odd tables read as they do there."""
        source = _source(self.data, start, end)
        at = source.offset
        n = source.varint("number of strings")
        room = source.remaining()
        if n > room // 4:
            raise ReadError(f"number of strings ({n}) exceeds the maximum of {room // 4} that "
                            f"can fit in the remaining payload of {room} bytes.", at)
        spans = []
        if n:
            source.skip_padding(4)
            source._need(4 * n, "string offsets")
            offsets = [source.fixed(4, "a string offset") for _ in range(n)]
            base, size = source.offset, source.remaining()
            for i, first in enumerate(offsets):
                last = offsets[i + 1] if i + 1 < n else size
                first = min(first, size)
                last = size if last < first else min(last, size)
                spans.append((base + first, base + last))
        self.string_spans = spans
        self.strings = [None] * len(spans)  # type: ignore[list-item]

    @property
    def preview_content(self) -> bool:
        """Whether the header says the file holds preview content (preview tags allowed)."""
        return self.layout is not None and self.layout.preview

    def read_string(self, source: Source) -> str:
        at = source.offset
        index = source.varint("a string index")
        return self.string(index, at)

    def string(self, index: int, at: int | None) -> str:
        if index >= len(self.string_spans):
            raise ReadError(f"string index {index} out of bounds", at)
        text = self.strings[index]
        if text is None:
            a, b = self.string_spans[index]
            try:
                text = self.data[a:b].decode("utf-8")
            except UnicodeDecodeError:
                raise ReadError(f"string {index} is not valid UTF-8", a) from None
            self.strings[index] = text
        return text

    def _types(self, start: int, end: int) -> None:
        spans = []
        if end > start:
            source = _source(self.data, start, end)
            spans = read_offset_table(source, 4, "types")
        self.types = TypeTable(self.data, spans, 0, self.version)
        self.types.lookup = self

    def read_type(self, source: Source) -> Type:
        assert self.types is not None
        return self.types.read_ref(source)

    def _constants(self, start: int, end: int) -> None:
        source = _source(self.data, start, end)
        self.constant_spans = read_offset_table(source, 8, "constants")

    def read_constant(self, source: Source, t: Type) -> DenseElementsAttr:
        at = source.offset
        index = source.varint("a constant index")
        return self.constant(index, t, at)

    def constant(self, index: int, t: Type, at: int | None) -> DenseElementsAttr:
        found = self.constant_cache.get((index, t))
        if found is not None:
            return found
        if index >= len(self.constant_spans):
            raise ReadError(f"constant index {index} out of bounds", at)
        if not isinstance(t, TileType):
            raise ReadError(f"expect Cuda Tile integer or float type but got: {t.format()}", at)
        a, b = self.constant_spans[index]
        blob = _source(self.data, a, b)
        size = blob.varint("the size of the data buffer")
        raw = blob.bytes(size, "the raw byte data")
        value = A.decode_dense(raw, t, a)
        self.constant_cache[(index, t)] = value
        return value

    # ---- globals and functions --------------------------------------------------

    def _globals(self, start: int, end: int) -> list[Operation]:
        source = _source(self.data, start, end)
        n = source.count("number of globals", 4)
        ops = []
        definition = lookup("cuda_tile.global")
        assert definition is not None
        for _ in range(n):
            name = self.read_string(source)
            t = self.read_type(source)
            value = self.read_constant(source, t)
            alignment = source.varint("a global alignment")
            attrs: dict[str, Attribute] = {"sym_name": StringAttr(name), "value": value,
                                           "alignment": IntegerAttr(alignment)}
            if self.version >= Version(13, 3):
                visibility = _enum(SymbolVisibility, source, self.version)
                if visibility != SymbolVisibility.PUBLIC:
                    attrs["symbol_visibility"] = EnumAttr(visibility)
                constant = source.varint("the global constant flag")
                if constant:
                    attrs["constant"] = UNIT
            ops.append(_make(definition, [], [], attrs, UNKNOWN_LOC))
        return ops

    def _function_table(self, start: int, end: int) -> list[dict]:
        source = _source(self.data, start, end)
        at = source.offset
        n = source.varint("number of functions")
        if n > end - start:
            raise ReadError(f"number of functions ({n}) exceeds payload size ({end - start})",
                            at)
        infos = []
        for _ in range(n):
            info: dict = {"at": source.offset}
            info["name"] = self.read_string(source)
            info["signature_at"] = source.offset
            info["signature"] = source.varint("a signature index")
            flags_at = source.offset
            info["flags"] = source.byte("function flags")
            info["debug"] = source.varint("a debug index")
            info["hints"] = info["arg_attrs"] = None
            info["impl"] = info["const_params"] = None
            if self.version >= V_FUNCTION_FORMS:
                self._function_form(info["flags"], flags_at)
                if info["flags"] & FORM_MASK == FORM_EXTERN_IMPL:
                    info["impl"] = read_extern_impl(source, self)
                else:
                    if info["flags"] & FunctionFlags.ENTRY:
                        info["hints"] = A.decode_attr(source, self)
                    info["arg_attrs_at"] = source.offset
                    info["arg_attrs"] = A.decode_attr(source, self)
            elif info["flags"] & FunctionFlags.ENTRY and info["flags"] & FunctionFlags.HINTS:
                hints = A.decode_attr(source, self)
                info["hints"] = hints
            length = source.varint("a function body length")
            if length > source.remaining():
                raise source.fail(f"function body length {length} exceeds remaining bytecode "
                                  f"data ({source.remaining()} bytes)")
            info["body"] = (source.offset, source.offset + length)
            source.pos += length
            if info["impl"] is not None and length:
                raise source.fail(f"extern implementation entry has non-zero body length "
                                  f"({length}); bodiless extern implementations must have "
                                  f"body length 0")
            if self._is_preview_func(info) and not length:
                at = source.offset
                params = A.decode_attr(source, self)
                if not isinstance(params, ArrayAttr):
                    raise ReadError("extern function const params payload is not an ArrayAttr",
                                    at)
                info["const_params"] = params
            infos.append(info)
        return infos

    def _function_form(self, flags: int, at: int) -> None:
        """13.5's checks of a function's flags byte: known bits only, a form other than
        reserved, the testing form only in a test build, and no kernel that is also an
        extern implementation (preview extern implementations are not read yet)."""
        if flags & ~KNOWN_FUNCTION_FLAGS_13_5:
            raise ReadError(f"function entry has unrecognized flag bits "
                            f"(0x{flags & ~KNOWN_FUNCTION_FLAGS_13_5:x});", at)
        form = flags & FORM_MASK
        if form == FORM_MASK:
            raise ReadError("function entry has reserved form value", at)
        if form == FORM_TESTING and not set(TESTING) & set(supported_versions()):
            raise ReadError("function entry has testing form in non-test build", at)
        if form == FORM_EXTERN_IMPL:
            if flags & FunctionFlags.ENTRY:
                raise ReadError("function entry cannot be both kernel and extern impl", at)
            if not self.preview_content:
                raise ReadError("extern implementation in a file whose header does not "
                                "advertise preview content", at)
            if not flags & FunctionFlags.PRIVATE:
                raise ReadError("'cuda_tile.preview$extern_impl' op symbol declaration cannot "
                                "have public visibility", at)

    def _is_preview_func(self, info: dict) -> bool:
        """Whether a record is a `preview$func`: a plain non-entry function of a file
        holding preview content."""
        return (self.version >= V_FUNCTION_FORMS and self.preview_content and
                not info["flags"] & (FunctionFlags.ENTRY | FORM_MASK))

    def _function(self, info: dict) -> Operation:
        name = info["name"]
        if not name:
            raise ReadError("function name is empty", info["at"])
        assert self.types is not None
        signature = self.types.get(info["signature"], info["signature_at"])
        if not isinstance(signature, FunctionType):
            raise ReadError(f"function signature index {info['signature']} does not refer to a "
                            f"function type for function '{name}', got type: "
                            f"{signature.format()}", info["signature_at"])
        if info["impl"] is not None or self._is_preview_func(info):
            return self._preview_function(info, name, signature)
        is_entry = bool(info["flags"] & FunctionFlags.ENTRY)
        if self.version >= V_FUNCTION_FORMS:
            if not is_entry and not info["flags"] & FORM_TESTING:
                raise ReadError(f"un-expected non-entry function '{name}'", info["at"])
        elif not is_entry and not set(TESTING) & set(supported_versions()):
            raise ReadError(f"un-expected non-entry function '{name}'", info["at"])
        locations = self.debug.function_locations(info["debug"], info["at"])
        definition = lookup("cuda_tile.entry" if is_entry else "cuda_tile.testing$func")
        assert definition is not None
        attrs: dict[str, Attribute] = {
            "sym_name": StringAttr(name), "function_type": TypeAttr(signature)}
        arg_attrs = self._arg_attrs(info)
        if arg_attrs is not None:
            attrs["arg_attrs"] = arg_attrs
        elif is_entry:
            attrs["arg_attrs"] = ArrayAttr(tuple(DictAttr(()) for _ in signature.inputs))
        hints = info["hints"]
        # 13.5 entries always carry hints: an empty set stands for none (and prints none).
        if hints is not None and not (self.version >= V_FUNCTION_FORMS and
                                      isinstance(hints, OptimizationHintsAttr) and
                                      not hints.entries):
            attrs["optimization_hints"] = hints
        op = _make(definition, [], [], attrs, next(locations))
        region = Region(op)
        op.regions.append(region)
        block = region.add_block(Block())
        for t in signature.inputs:
            block.add_argument(t)
        a, b = info["body"]
        body = BodyReader(self, _source(self.data, a, b), locations)
        values: list[Value] = list(block.arguments)
        while not body.source.at_end():
            block.append(body.op(values, 0))
        return op


    def _preview_function(self, info: dict, name: str, signature: FunctionType) -> Operation:
        """A `preview$func` (private, bodiless) or `preview$extern_impl` record."""
        locations = self.debug.function_locations(info["debug"], info["at"])
        if info["impl"] is not None:
            definition = lookup("cuda_tile.preview$extern_impl")
            attrs = dict(info["impl"])
        else:
            if not info["flags"] & FunctionFlags.PRIVATE:
                raise ReadError("'cuda_tile.preview$func' op symbol declaration cannot have "
                                "public visibility", info["at"])
            definition = lookup("cuda_tile.preview$func")
            attrs = {"sym_name": StringAttr(name), "function_type": TypeAttr(signature)}
            arg_attrs = self._arg_attrs(info)
            if arg_attrs is not None:
                attrs["arg_attrs"] = arg_attrs
            if info["const_params"].elements:
                attrs["const_params"] = info["const_params"]
        assert definition is not None
        op = _make(definition, [], [], attrs, next(locations))
        op.regions.append(Region(op))
        return op

    def _arg_attrs(self, info: dict) -> ArrayAttr | None:
        """A 13.5 record's ``arg_attrs``: None for an empty array (no argument has any),
        else the dictionaries as read.  The layout remembers which form it was."""
        assert self.layout is not None
        found = info["arg_attrs"]
        if found is None:
            return None
        if not isinstance(found, ArrayAttr) or \
                not all(isinstance(d, DictAttr) for d in found.elements):
            raise ReadError("function arg_attrs is not an array of dictionaries",
                            info["arg_attrs_at"])
        self.layout.empty_arg_attrs.append(not found.elements)
        return found if found.elements else None   # (its size is the verifier's to check)


def _source(data: bytes, start: int, end: int) -> Source:
    """A cursor over ``data[start:end]`` (no copy) that reports file offsets."""
    return Source(memoryview(data)[start:end], start)


def _make(definition: OpDef, operands: list[Value], result_types: list[Type],
          attrs: dict[str, Attribute], location: Location, name: str | None = None
          ) -> Operation:
    cls = definition.op_class or Operation
    return cls.from_parts(name or definition.full_name, operands, result_types, attrs, {},
                          location)


# ---- debug info --------------------------------------------------


class DebugTable:
    """The Debug section: per function, a list of debug-attribute indices (the function's
    location, then each op's in pre-order), and the attributes, decoded on first use."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.lists: list[tuple[int, int]] = []   # (start, count) into `indices`
        self.indices: list[int] = []
        self.spans: list[tuple[int, int]] = []
        self.cache: dict[int, Attribute] = {}
        self.busy: set[int] = set()

    def load(self, start: int, end: int) -> None:
        source = _source(self.reader.data, start, end)
        n = source.count("number of functions with debug info", 4)
        source.skip_padding(4)
        starts = [source.fixed(4, "a debug list offset") for _ in range(n)]
        total = source.count("number of debug indices", 8)
        source.skip_padding(8)
        self.indices = [source.fixed(8, "a debug index") for _ in range(total)]
        for i, s in enumerate(starts):
            stop = starts[i + 1] if i + 1 < n else total
            if not s <= stop <= total:
                raise ReadError(f"debug info list {i} has invalid bounds [{s}, {stop})",
                                source.offset)
            self.lists.append((s, stop - s))
        self.spans = read_offset_table(source, 4, "debug attributes")

    def entries(self) -> tuple[list[bytes], list]:
        data = self.reader.data
        blobs = [data[a:b] for a, b in self.spans]
        keys = [self.cache.get(i) for i in range(len(self.spans))]
        return blobs, keys

    def function_locations(self, index: int, at: int):
        """The locations of a function and then of its ops, in order (unknown once the
        list is used up, as the reference reads them)."""
        if index == 0:
            while True:
                yield UNKNOWN_LOC
        if index - 1 >= len(self.lists):
            raise ReadError(f"debug index {index} out of bounds", at)
        start, count = self.lists[index - 1]
        for k in range(count):
            loc = self.get(self.indices[start + k], at)
            yield loc if isinstance(loc, Location) else UNKNOWN_LOC
        while True:
            yield UNKNOWN_LOC

    def get(self, index: int, at: int | None) -> Attribute:
        if index == 0:
            return UNKNOWN_LOC
        position = index - 1
        found = self.cache.get(position)
        if found is not None:
            return found
        if position >= len(self.spans):
            raise ReadError(f"debug info index {index} out of bounds", at)
        if position in self.busy:
            raise ReadError(f"debug info attribute {index} refers to itself", at)
        if len(self.busy) >= MAX_DEBUG_NESTING:
            raise ReadError(f"debug info attributes nest more than {MAX_DEBUG_NESTING} deep",
                            at)
        self.busy.add(position)
        try:
            a, b = self.spans[position]
            value = self._decode(_source(self.reader.data, a, b))
        finally:
            self.busy.discard(position)
        self.cache[position] = value
        return value

    def _ref(self, source: Source, kinds: tuple[type, ...], what: str) -> Attribute:
        at = source.offset
        value = self.get(source.varint(f"a {what} index"), at)
        if not isinstance(value, kinds):
            raise ReadError(f"failed to read {what} attribute", at)
        return value

    def _decode(self, source: Source) -> Attribute:
        """One debug attribute record, by `debug.BY_TAG` (unknown tags: unknown)."""
        at = source.offset
        record = BY_TAG.get(source.varint("a debug info tag"))
        if record is None:
            return UNKNOWN_LOC
        values = []
        for field in record.fields:
            if field.since > self.reader.version:
                continue
            if field.kind == "ref":
                values.append(self._ref(source, field.refers_to, field.what))
            elif field.kind == "str":
                values.append(self.reader.read_string(source))
            else:
                field_at = source.offset
                values.append(source.varint(f"a {field.what}"))
                if field.what == "flags" and values[-1] & ~KNOWN_SUBPROGRAM_FLAGS:
                    raise ReadError(f"unrecognized flag bits "
                                    f"(0x{values[-1] & ~KNOWN_SUBPROGRAM_FLAGS:x}) when "
                                    f"parsing DISubprogramAttr", field_at)
        try:
            return record.build(*values)
        except NestingError as exc:
            raise ReadError(str(exc), at) from None


# ---- function bodies --------------------------------------------------


class BodyReader:
    """The op records of one function body."""

    def __init__(self, reader: Reader, source: Source, locations) -> None:
        self.r = reader
        self.source = source
        self.version = reader.version
        self.locations = locations
        self._plans: dict[int, tuple] = {}
        self._counts: dict[str, tuple[int, int, bool, bool]] = {}

    def _value(self, values: list[Value]) -> Value:
        at = self.source.offset
        index = self.source.varint("an operand index")
        if index >= len(values):
            raise ReadError(f"operand index {index} out of bounds (size={len(values)})", at)
        return values[index]

    def op(self, values: list[Value], depth: int) -> Operation:
        source = self.source
        at = source.offset
        if depth > MAX_REGION_DEPTH:
            raise ReadError("regions are nested too deeply", at)
        opcode = source.varint("an opcode")
        known = self._plans.get(opcode)
        if known is None:
            known = self._plans[opcode] = self._plan(opcode, at)
        opdef, plan, written, with_flags, flag_bits, steps, simple = known
        location = next(self.locations)
        if plan.counted:
            count = source.count("number of results")
            types = [self.r.read_type(source) for _ in range(count)]
        else:
            types = [self.r.read_type(source) for _ in written]
        if simple and len(types) == len(written):
            # What `_result_types` gives when every result is single and written.
            result_types, pushed = types, list(range(len(types)))
        else:
            result_types, pushed = self._result_types(opdef, written, types, at)
        flags = source.varint("op flags") if with_flags else 0
        present = {name for name, bit in flag_bits if flags >> bit & 1} if flags else set()
        attrs: dict[str, Attribute] = {}
        for attr, flagged in steps:  # `_attr`, with the layout's answers looked up once
            if flagged:
                if attr.name not in present:
                    continue
                value = UNIT if attr.is_unit else \
                    self._attr_value(opdef, attr, result_types)
            elif attr.since > self.version:
                value = attr.default
            else:
                value = self._attr_value(opdef, attr, result_types)
            if value is not None:
                attrs[attr.name] = value
        operands, groups = self._operands(opdef, plan, present, values)
        if plan.segmented:
            attrs["operandSegmentSizes"] = opdef.segment_sizes(groups)
        inbounds = attrs.get("inbounds")
        if isinstance(inbounds, DenseArrayAttr) and not any(inbounds.values) and \
                len(inbounds.values) == len(groups[opdef.operand_index("index")]):
            del attrs["inbounds"]   # all false, one per index: what the text leaves out
        op = _make(opdef, operands, result_types, attrs, location, self.r.spelling(opdef))
        if opdef.regions:
            n = source.count("number of regions")
            if n != opdef.regions:
                raise ReadError(f"'{opdef.full_name}' has {opdef.regions} regions, the record "
                                f"has {n}", at)
            for _ in range(n):
                op.regions.append(self._region(op, values, depth))
        values.extend(op.results[i] for i in pushed)
        return op

    def _plan(self, opcode: int, at: int) -> tuple:
        """What reading an op of `opcode` needs from its declaration and layout, at this
        file's version (worked out once per opcode): the op, its layout, the results
        written, whether a flags varint is, the flag bits in use, and per attribute
        whether a flag says it is present; and whether every result is single and
        written (no count to split)."""
        opdef = opdef_for_opcode(opcode)
        if opdef is None or opdef.since > self.version:
            raise ReadError(f"unsupported opcode {opcode} for bytecode version "
                            f"{self.version}", at)
        plan = layout(opdef)
        written = [d for d in opdef.results if d.since <= self.version]
        flag_bits = tuple((f.name, f.bit) for f in plan.flags if f.since <= self.version)
        steps = tuple((attr, attr.name in plan.flagged_attrs) for attr in opdef.attrs)
        simple = all(d.since <= self.version and d.arity != VARIADIC for d in opdef.results)
        return opdef, plan, written, plan.has_flags(self.version), flag_bits, steps, simple

    def _result_types(self, opdef: OpDef, written, types: list[Type], at: int
                      ) -> tuple[list[Type], list[int]]:
        """All result types (newer results get their buildable type) and the positions
        of those numbered in the file."""
        variadic = [d for d in written if d.arity == VARIADIC]
        fixed = len(written) - len(variadic)
        if len(types) < fixed or (not variadic and len(types) != fixed):
            raise ReadError(f"'{opdef.full_name}' expects {fixed} results, the record has "
                            f"{len(types)}", at)
        all_types: list[Type] = []
        pushed: list[int] = []
        pos = 0
        for decl in opdef.results:
            if decl.since > self.version:
                if decl.constraint.buildable is None:
                    raise ReadError(f"'{opdef.full_name}' result '{decl.name}' cannot be "
                                    f"upgraded from version {self.version}", at)
                all_types.append(decl.constraint.buildable)
                continue
            take = len(types) - fixed if decl.arity == VARIADIC else 1
            for t in types[pos:pos + take]:
                pushed.append(len(all_types))
                all_types.append(t)
            pos += take
        return all_types, pushed

    def _attr(self, opdef: OpDef, attr: AttrDef, present: set[str],
              result_types: list[Type]) -> Attribute | None:
        plan = layout(opdef)
        if attr.name in plan.flagged_attrs:
            if attr.name not in present:
                return None
            if attr.is_unit:
                return UNIT
        elif attr.since > self.version:
            return attr.default
        return self._attr_value(opdef, attr, result_types)

    def _attr_value(self, opdef: OpDef, attr: AttrDef, result_types: list[Type]) -> Attribute:
        """An attribute stored in the record, read as its kind says (`_ATTR_READERS`)."""
        enum_type = getattr(attr.kind, "enum_type", None)
        if enum_type is not None:
            return EnumAttr(_enum(enum_type, self.source, self.version))
        read = _ATTR_READERS.get(attr.kind.name, _read_tagged)
        return read(self, opdef, result_types, self.source.offset)

    def _operands(self, opdef: OpDef, plan, present: set[str], values: list[Value]
                  ) -> tuple[list[Value], list[list[Value]]]:
        source = self.source
        groups: list[list[Value]] = []
        if plan.segmented:
            for decl in opdef.operands:
                if decl.arity == OPTIONAL:
                    groups.append([self._value(values)] if decl.name in present else [])
                elif decl.arity == VARIADIC:
                    n = source.count("number of operands")
                    groups.append([self._value(values) for _ in range(n)])
                else:
                    groups.append([self._value(values)])
            return [v for g in groups for v in g], groups
        kept, singles, kept_variable, counted = self._operand_counts(opdef)
        if counted:
            n = source.count("number of operands")
        else:
            n = kept
        operands = [self._value(values) for _ in range(n)]
        if n < singles or (n > singles and not kept_variable):
            raise ReadError(f"'{opdef.full_name}' expects {singles} operands, the record has "
                            f"{n}", source.offset)
        return operands, []

    def _operand_counts(self, opdef: OpDef) -> tuple[int, int, bool, bool]:
        """For an unsegmented record, from the declaration (worked out once per op): how
        many operand groups this version writes, how many of those are single, whether
        one of those is optional or variadic, and whether a count is written."""
        known = self._counts.get(opdef.full_name)
        if known is None:
            kept = [d for d in opdef.operands if d.since <= self.version]
            known = self._counts[opdef.full_name] = (
                len(kept), sum(d.arity == SINGLE for d in kept),
                any(d.arity != SINGLE for d in kept),
                any(d.arity != SINGLE for d in opdef.operands))
        return known

    def _region(self, op: Operation, values: list[Value], depth: int) -> Region:
        source = self.source
        region = Region(op)
        n = source.count("number of blocks")
        for _ in range(n):
            block = region.add_block(Block())
            mark = len(values)
            count = source.count("number of block arguments")
            for _ in range(count):
                values.append(block.add_argument(self.r.read_type(source)))
            ops = source.count("number of operations")
            for _ in range(ops):
                block.append(self.op(values, depth + 1))
            terminator = block.terminator
            if terminator is None or terminator.opdef is None or \
                    "Terminator" not in terminator.opdef.traits:
                what = "it is empty" if terminator is None else \
                    f"the last operation '{terminator.name}' is not a terminator"
                raise ReadError("invalid block structure: block is expected to have a "
                                f"terminator operation, but {what}", source.offset)
            del values[mark:]
        return region


def _read_integer(width: int):
    """A reader of an i32/i64 attribute: a zero-extended varint."""
    def read(body: BodyReader, opdef: OpDef, result_types: list[Type], at: int) -> Attribute:
        raw = body.source.varint("an integer attribute")
        if raw >> width:
            raise ReadError(f"value {raw} does not fit in i{width}", at)
        return IntegerAttr(raw - (1 << width) if raw >> (width - 1) else raw,
                           IntegerType(width))
    return read


def _read_bool(body: BodyReader, opdef: OpDef, result_types: list[Type], at: int) -> Attribute:
    return BoolAttr(bool(body.source.byte("a boolean attribute")))


def _read_string(body: BodyReader, opdef: OpDef, result_types: list[Type],
                 at: int) -> Attribute:
    return StringAttr(body.r.read_string(body.source))


def _read_symbol(body: BodyReader, opdef: OpDef, result_types: list[Type],
                 at: int) -> Attribute:
    return SymbolRefAttr(body.r.read_string(body.source))


def _read_i32_array(body: BodyReader, opdef: OpDef, result_types: list[Type],
                    at: int) -> Attribute:
    values = body.source.fixed_list(4, "an array attribute")
    for v in values:
        if v in _I32_LIMITS:
            raise ReadError(f"array contains unsupported value {v}", at)
    return DenseArrayAttr(IntegerType(32), tuple(values))


def _read_bool_array(body: BodyReader, opdef: OpDef, result_types: list[Type],
                     at: int) -> Attribute:
    flags = body.source.fixed_list(1, "a bool array", signed=False)
    return DenseArrayAttr(IntegerType(1), tuple(int(b != 0) for b in flags))


def _read_dense(body: BodyReader, opdef: OpDef, result_types: list[Type],
                at: int) -> Attribute:
    """A constant index; the constant's type is the op's result type."""
    if not result_types:
        raise ReadError(f"'{opdef.full_name}' has no result type for its constant", at)
    return body.r.read_constant(body.source, result_types[0])


def _read_array(body: BodyReader, opdef: OpDef, result_types: list[Type],
                at: int) -> Attribute:
    return A.read_array_payload(body.source, body.r)


def _read_hints(body: BodyReader, opdef: OpDef, result_types: list[Type],
                at: int) -> Attribute:
    return A.read_hints_payload(body.source, body.r)


def _read_tagged(body: BodyReader, opdef: OpDef, result_types: list[Type],
                 at: int) -> Attribute:
    """Any other kind (assume predicates): a self-contained, tagged attribute."""
    return A.decode_attr(body.source, body.r)


#: How an op record stores an attribute, by the attribute's kind (enums aside).
_ATTR_READERS = {
    "i64": _read_integer(64), "i32": _read_integer(32), "bool": _read_bool,
    "str": _read_string, "symbol_name": _read_string, "symbol_ref": _read_symbol,
    "dense_i32_array": _read_i32_array, "dense_bool_array": _read_bool_array,
    "dense": _read_dense, "array": _read_array, "dict_array": _read_array,
    "optimization_hints": _read_hints,
}


def read_bytecode(data: bytes, preview: tuple[str, ...] = ()) -> Module:
    """The module in `data` (not yet verified); `BytecodeError` for anything malformed.
    `preview` names the enabled preview features (a file with preview content needs one)."""
    with gc_paused():
        return Reader(data, preview).read()
