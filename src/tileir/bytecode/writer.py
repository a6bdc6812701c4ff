"""Module -> bytecode, as the reference writer lays it out: header; Global, Func,
Constant, Debug, Type, Producer and String sections; end byte.  Table entries are numbered
in the reference's first-use order so that the output is byte-identical to NVIDIA's."""

from __future__ import annotations

from dataclasses import dataclass

from ..attributes import (ArrayAttr, Attribute, BoolAttr, CallSiteLoc,
                          DenseArrayAttr, DictAttr, DenseElementsAttr, DILocAttr, EnumAttr,
                          FileLineColLoc, FusedLoc, IntegerAttr, Location, NameLoc,
                          OpaqueAttr, OptimizationHintsAttr, StringAttr, SymbolRefAttr,
                          UnitAttr, UnknownLoc)
from ..diagnostics import BytecodeError, Diagnostic, Severity, error
from ..ir import Module, Operation, Value, gc_paused, location_of
from ..ops.base import OPTIONAL, SINGLE, VARIADIC, AttrDef, OpDef
from ..types import Type
from ..versions import Version
from . import attrs as A
from .debug import RECORDS, dependencies
from .encoding import Sink
from .ops import Layout, is_default, layout, written_attr
from .preview import write_extern_impl
from .sections import (CONSTANT, FORM_EXTERN_IMPL, DEBUG, END, FORM_TESTING, FUNC, GLOBAL, MAGIC,
                       PREVIEW_TAG, PRODUCER, STRING, TYPE, V_FUNCTION_FORMS, WRITE_ORDER,
                       FunctionFlags, Layout as FileLayout)
from .tables import Table, write_offset_table
from .types import TypeVersionError, encode_type, enum_since

#: Producer and extended global fields exist from this release.
V_EXTENDED = Version(13, 3)


class WriteError(BytecodeError):
    """IR that this bytecode version cannot encode (at the offending op)."""


def _fail(thing, message: str, remark_on: Operation | None = None) -> WriteError:
    """The error at `thing` (None: no location), after the reference's ``invalid op``
    remark at `remark_on` when given."""
    diagnostics = []
    if remark_on is not None:
        diagnostics.append(Diagnostic(Severity.REMARK, location_of(remark_on),
                                      f"invalid op: {remark_on.name}"))
    diagnostics.append(error(message, location_of(thing) if thing is not None else None))
    return WriteError(diagnostics)


@dataclass
class _Function:
    op: Operation
    name: int
    signature: int
    debug_index: int
    hints: Attribute | None
    is_entry: bool


class Writer:
    """One write of one module at one version."""

    def __init__(self, module: Module, version: Version, seed: FileLayout | None) -> None:
        self.module = module
        self.version = version
        self.strings: Table[str] = Table()
        self.types: Table[Type] = Table()
        self._type_refs: dict[int, tuple[Type, int]] = {}
        self.constants: Table[DenseElementsAttr] = Table(match_blobs=False)
        self.debug: Table[Attribute] = Table(match_blobs=False)
        self.debug_lists: list[list[int]] = []
        self.section_order = list(WRITE_ORDER)
        self.pad_functions = True
        #: Whether the header says the file holds preview content (13.5).
        self.preview = False
        #: Per function, whether a 13.5 record writes an empty ``arg_attrs`` array for
        #: arguments with no attributes (the read file's choice; cuTile's by default).
        self.empty_arg_attrs: list[bool] = []
        #: Sections the file this module was read from had, written even when empty.
        self.seeded_sections: set[int] = set()
        if seed is not None and seed.version == version:
            self.preview = seed.preview
            self.empty_arg_attrs = list(seed.empty_arg_attrs)
            self.strings.seed(seed.strings)
            self.types.seed(seed.types)
            self.constants.seed(seed.constants, seed.constant_keys or None)
            self.debug.seed(seed.debug, seed.debug_keys or None)
            self.pad_functions = seed.pad_functions
            self.seeded_sections = set(seed.section_order)
            self.section_order = seed.section_order + [s for s in WRITE_ORDER
                                                       if s not in seed.section_order]

    # ---- tables --------------------------------------------------

    def string_ref(self, s: str) -> int:
        return self.strings.intern(s, lambda: s.encode("utf-8"))

    def type_ref(self, t: Type) -> int:
        """The type table index of `t` (by object first: an index, once given, stays)."""
        known = self._type_refs.get(id(t))
        if known is not None and known[0] is t:
            return known[1]
        index = self.types.intern(t, lambda: encode_type(t, self.version, self.type_ref, self))
        self._type_refs[id(t)] = (t, index)
        return index

    def constant_ref(self, attr: DenseElementsAttr) -> int:
        return self.constants.intern(attr, lambda: A.encode_dense(attr))

    def _type_at(self, op: Operation, t: Type) -> int:
        try:
            return self.type_ref(t)
        except TypeVersionError as exc:
            raise _fail(None, str(exc)) from None

    # ---- the whole file --------------------------------------------------

    def write(self) -> bytes:
        self._check_contents()
        functions = [self._register_function(op) for op in self.module.items
                     if op.opdef is not None and "FunctionOpInterface" in op.opdef.traits]
        payloads: dict[int, tuple[bytes, int]] = {}
        globals_ = self._global_section()
        if globals_ is not None:
            payloads[GLOBAL] = (globals_, 1)
        payloads[FUNC] = (self._func_section(functions), 8)
        if len(self.constants) or CONSTANT in self.seeded_sections:
            payloads[CONSTANT] = (self._table_payload(self.constants, 8), 8)
        debug = self._debug_section()
        if debug is not None:
            payloads[DEBUG] = (debug, 8)
        payloads[TYPE] = (self._table_payload(self.types, 4), 4)
        producer = self.module.attributes.get("producer")
        if isinstance(producer, StringAttr) and self.version >= V_EXTENDED:
            sink = Sink()
            sink.varint(self.string_ref(producer.value))
            payloads[PRODUCER] = (bytes(sink.data), 1)
        payloads[STRING] = (self._table_payload(self.strings, 4), 4)
        out = Sink()
        out.raw(MAGIC)
        out.byte(self.version.major)
        out.byte(self.version.minor)
        out.fixed(PREVIEW_TAG if self.preview else 0, 2)
        for section in self.section_order:
            if section in payloads:
                data, alignment = payloads[section]
                _section(out, section, data, alignment)
        out.byte(END)
        return bytes(out.data)

    def _check_contents(self) -> None:
        """The reference's preconditions: only functions and globals at top level, only
        cuda_tile ops, only pure ops inside reduce and scan bodies."""
        for op in self.module.items:
            if op.opdef is None or not ({"FunctionOpInterface", "Symbol"} & op.opdef.traits):
                raise _fail(self.module, "'cuda_tile.module' op only function and global ops "
                            "are allowed in the body", op)
        for op in self.module.walk():
            if op.opdef is None or op.opdef.dialect != "cuda_tile":
                raise _fail(self.module, "'cuda_tile.module' op only ops from the 'cuda_tile' "
                            "dialect are allowed", op)
            parent = op.parent_op
            if parent is not None and parent.opdef is not None and \
                    parent.opdef.name in ("reduce", "scan") and "Pure" not in op.opdef.traits:
                raise _fail(parent, f"'{parent.name}' op only pure operations allowed", op)

    def _table_payload(self, table: Table, width: int) -> bytes:
        sink = Sink()
        write_offset_table([b or b"" for b in table.blobs], width, sink)
        return bytes(sink.data)

    # ---- globals --------------------------------------------------

    def _global_section(self) -> bytes | None:
        globals_ = self.module.globals
        if not globals_:
            return None
        sink = Sink()
        sink.varint(len(globals_))
        for op in globals_:
            name = op.attributes["sym_name"].value  # type: ignore[attr-defined]
            visibility = op.attributes.get("symbol_visibility")
            private = isinstance(visibility, EnumAttr) and int(visibility.value) != 0
            constant = isinstance(op.attributes.get("constant"), UnitAttr)
            if self.version < V_EXTENDED:
                if private:
                    raise _fail(op, f"global `{name}` uses non-public symbol visibility, which "
                                f"cannot be encoded in bytecode version {self.version} "
                                f"(requires bytecode 13.3+)")
                if constant:
                    raise _fail(op, f"constant global `{name}` cannot be encoded in bytecode "
                                f"version {self.version} (the `constant` attribute requires "
                                f"bytecode 13.3+)")
            value = op.attributes["value"]
            sink.varint(self.string_ref(name))
            sink.varint(self._type_at(op, value.type))  # type: ignore[attr-defined]
            sink.varint(self.constant_ref(value))  # type: ignore[arg-type]
            alignment = op.attributes.get("alignment")
            sink.varint(alignment.value if isinstance(alignment, IntegerAttr) else 0)
            if self.version >= V_EXTENDED:
                sink.varint(int(private))
                sink.varint(int(constant))
        return bytes(sink.data)

    # ---- functions --------------------------------------------------

    def _register_function(self, op: Operation) -> _Function:
        if op.opdef is not None and op.opdef.since > self.version:
            raise _fail(op, f"operation '{op.name}' is not available in bytecode version "
                        f"{self.version}")
        name = self.string_ref(op.attributes["sym_name"].value)  # type: ignore[attr-defined]
        signature = op.attributes["function_type"].value  # type: ignore[attr-defined]
        index = self._type_at(op, signature)
        debug_index = 0
        if not _reserved(op.location):
            self._check_location(op, op.location)
            self.debug_lists.append([])
            debug_index = len(self.debug_lists)
        self._note_location(debug_index, op.location)
        is_entry = op.opdef is not None and op.opdef.name == "entry"
        return _Function(op, name, index, debug_index,
                         op.attributes.get("optimization_hints") if is_entry else None,
                         is_entry)

    def _func_section(self, functions: list[_Function]) -> bytes:
        sink = Sink()
        sink.varint(len(functions))
        for number, fn in enumerate(functions):
            sink.varint(fn.name)
            sink.varint(fn.signature)
            if self.version >= V_FUNCTION_FORMS:
                self._function_record_13_5(number, fn, sink)
            else:
                flags = 0
                if fn.is_entry:
                    flags |= FunctionFlags.ENTRY
                    if fn.hints is not None:
                        flags |= FunctionFlags.HINTS
                sink.byte(flags)
                sink.varint(fn.debug_index)
                if flags & FunctionFlags.HINTS:
                    self._self_contained(fn.op, fn.hints, sink)
            if fn.op.opdef is not None and fn.op.opdef.name.startswith("preview$"):
                self._preview_tail(fn.op, sink)
                continue
            body = BodyWriter(self, fn).write()
            sink.varint(len(body))
            sink.raw(body)
        if self.pad_functions:
            sink.pad_to(8)
        return bytes(sink.data)

    def _preview_tail(self, op: Operation, sink: Sink) -> None:
        """A preview function's empty body, then a `preview$func`'s ``const_params``."""
        if op.regions and op.regions[0].blocks:
            raise _fail(op, f"'{op.name}' op must be extern when serialized to bytecode")
        sink.varint(0)
        if op.opdef is not None and op.opdef.name == "preview$func":
            params = op.attributes.get("const_params")
            self._self_contained(op, params if isinstance(params, ArrayAttr) else ArrayAttr(()),
                                 sink)

    def _function_record_13_5(self, number: int, fn: _Function, sink: Sink) -> None:
        """13.5's flags, debug index, hints and ``arg_attrs``: an entry always carries its
        hints (empty when it has none), and every function an array of argument
        attributes (empty when no argument has any, unless the read file wrote one
        dictionary per argument)."""
        name = fn.op.opdef.name if fn.op.opdef is not None else ""
        if name.startswith("preview$"):
            self.preview = True
        if name == "preview$extern_impl":
            sink.byte(FunctionFlags.PRIVATE | FORM_EXTERN_IMPL)
            sink.varint(fn.debug_index)
            self._guarded(fn.op, lambda: write_extern_impl(fn.op.attributes, self, sink))
            return
        flags = FunctionFlags.ENTRY if fn.is_entry else \
            FunctionFlags.PRIVATE if name == "preview$func" else FORM_TESTING
        sink.byte(flags)
        sink.varint(fn.debug_index)
        if fn.is_entry:
            hints = fn.hints if fn.hints is not None else OptimizationHintsAttr(())
            self._self_contained(fn.op, hints, sink)
        arg_attrs = fn.op.attributes.get("arg_attrs")
        dicts = arg_attrs.elements if isinstance(arg_attrs, ArrayAttr) else ()
        empty = not any(isinstance(d, DictAttr) and d.entries for d in dicts)
        if empty and (number >= len(self.empty_arg_attrs) or self.empty_arg_attrs[number]):
            dicts = ()
        self._self_contained(fn.op, ArrayAttr(tuple(dicts)), sink)

    def _guarded(self, op: Operation, write) -> None:
        """Run `write`, reporting an attribute it cannot encode against `op`."""
        try:
            write()
        except (A.UnencodableAttr, TypeVersionError) as exc:
            raise _fail(op, f"failed to serialize attribute: {exc}") from None

    def _self_contained(self, op: Operation, attr: Attribute | None, sink: Sink) -> None:
        try:
            A.encode_attr(attr, self, sink)  # type: ignore[arg-type]
        except (A.UnencodableAttr, TypeVersionError) as exc:
            raise _fail(op, f"failed to serialize attribute: {exc}") from None

    # ---- debug info --------------------------------------------------

    def _check_location(self, op: Operation, loc: Location) -> None:
        if isinstance(loc, CallSiteLoc):
            self._check_location(op, loc.caller)
            self._check_location(op, loc.callee)
        elif not isinstance(loc, (DILocAttr, FileLineColLoc, UnknownLoc)):
            kind = {FusedLoc: "FusedLoc", NameLoc: "NameLoc"}.get(type(loc), "OpaqueLoc")
            raise _fail(op, f"unsupported location, got {kind}, expected DILocAttr or "
                        f"CallSiteLoc")

    def _note_location(self, debug_index: int, loc: Location) -> None:
        if debug_index:
            self.debug_lists[debug_index - 1].append(self._di_index(loc))

    def _di_index(self, attr: Attribute) -> int:
        if _reserved(attr):
            return 0
        found = self.debug.index.get(attr)
        if found is not None:
            return found + 1
        for dependency in dependencies(attr):
            self._di_index(dependency)
        position, _ = self.debug.reserve(attr)
        return position + 1

    def _debug_section(self) -> bytes | None:
        if not self.debug_lists and not len(self.debug) and DEBUG not in self.seeded_sections:
            return None
        sink = Sink()
        sink.varint(len(self.debug_lists))
        sink.pad_to(4)
        running = 0
        for indices in self.debug_lists:
            sink.fixed(running, 4)
            running += len(indices)
        sink.varint(running)
        sink.pad_to(8)
        for indices in self.debug_lists:
            for index in indices:
                sink.fixed(index, 8)
        for position, blob in enumerate(self.debug.blobs):
            if blob is None:
                self.debug.fill(position, self._encode_di(self.debug.keys[position]))
        sink.varint(len(self.debug.blobs))
        sink.pad_to(4)
        running = 0
        for blob in self.debug.blobs:
            sink.fixed(running, 4)
            running += len(blob)  # type: ignore[arg-type]
        for blob in self.debug.blobs:
            sink.raw(blob)  # type: ignore[arg-type]
        return bytes(sink.data)

    def _encode_di(self, attr: Attribute | None) -> bytes:
        """A debug attribute's record, laid out by `debug.RECORDS` (strings interned now,
        in the order the reference writer interns them)."""
        record = RECORDS.get(type(attr))
        sink = Sink()
        if record is None:
            return bytes(sink.data)
        sink.varint(record.tag)
        encode = {"ref": self._di_index, "str": self.string_ref, "int": int}
        for field in record.fields:
            if field.since > self.version:
                if field.get(attr):
                    raise _fail(None, f"{type(attr).__name__} parameter '{field.what}' "
                                f"requires bytecode version {field.since}+, but targeting "
                                f"{self.version}")
                continue
            sink.varint(encode[field.kind](field.get(attr)))
        return bytes(sink.data)


def _reserved(loc: Attribute) -> bool:
    """Locations stored as index 0: unknown and plain file:line:col."""
    return isinstance(loc, (UnknownLoc, FileLineColLoc))


def _section(out: Sink, section: int, payload: bytes, alignment: int) -> None:
    out.byte(section | (0x80 if alignment > 1 else 0))
    out.varint(len(payload))
    if alignment > 1:
        out.varint(alignment)
        out.pad_to(alignment)
    out.raw(payload)


# ---- function bodies --------------------------------------------------


class BodyWriter:
    """The op records of one function, numbering values as the reference does: arguments
    first, an op's results after its regions, and each block's values released at its end."""

    def __init__(self, writer: Writer, fn: _Function) -> None:
        self.w = writer
        self.fn = fn
        self.version = writer.version
        self.numbers: dict[Value, int] = {}
        self.next = 0
        self.used: set[Value] = {v for op in fn.op.walk() for v in op.operands}

    def write(self) -> bytes:
        sink = Sink()
        block = self.fn.op.regions[0].block
        for arg in block.arguments:
            self._number(arg)
        for op in block.operations:
            self.write_op(op, sink)
        return bytes(sink.data)

    def _number(self, value: Value) -> None:
        self.numbers[value] = self.next
        self.next += 1

    def _ref(self, op: Operation, value: Value, sink: Sink) -> None:
        index = self.numbers.get(value)
        if index is None:
            raise _fail(op, "operand is not defined before its use in the function body")
        sink.varint(index)

    def write_op(self, op: Operation, sink: Sink) -> None:
        opdef = op.opdef
        if opdef is None or opdef.opcode is None:
            raise _fail(op, "operation not supported in bytecode (missing from "
                        "BytecodeOpcodes.td)")
        if opdef.since > self.version:
            raise _fail(op, f"operation '{op.name}' is not available in bytecode version "
                        f"{self.version}")
        self.w._check_location(op, op.location)
        self.w._note_location(self.fn.debug_index, op.location)
        plan = layout(opdef)
        sink.varint(opdef.opcode)
        result_decls = self._result_decls(op, opdef)
        self._results(op, result_decls, plan.counted, sink)
        groups = opdef.split_operands(op)
        present = self._flags(op, plan, groups, sink)
        for attr in opdef.attrs:
            self._attr(op, plan, attr, present, groups, sink)
        self._operands(op, opdef, plan, groups, present, sink)
        if opdef.regions:
            sink.varint(len(op.regions))
            for region in op.regions:
                sink.varint(len(region.blocks))
                for block in region.blocks:
                    self._block(block, sink)
        for result, decl in result_decls:
            if decl.since <= self.version:
                self._number(result)

    def _block(self, block, sink: Sink) -> None:
        mark = self.next
        sink.varint(len(block.arguments))
        for arg in block.arguments:
            sink.varint(self.w._type_at(block.parent_op, arg.type))
            self._number(arg)
        sink.varint(len(block.operations))
        for op in block.operations:
            self.write_op(op, sink)
        self.next = mark

    def _result_decls(self, op: Operation, opdef: OpDef):
        """Each result with its declaration."""
        if not opdef.shape.result_variable:  # single results: the i-th is declaration i's
            return list(zip(op.results, opdef.results))
        groups = opdef.split_results(op)
        return [(r, decl) for decl, group in zip(opdef.results, groups) for r in group]

    def _results(self, op: Operation, result_decls: list, counted: bool, sink: Sink) -> None:
        """The result types (a count first where `counted`)."""
        kept = []
        for result, decl in result_decls:
            if decl.since <= self.version:
                kept.append(result)
            elif result in self.used:
                raise _fail(op, f"result '{decl.name}' requires bytecode version {decl.since} "
                            f"but is being used and targeting {self.version}. Cannot "
                            f"serialize to older bytecode version when newer features are "
                            f"used.")
        if counted:
            sink.varint(len(kept))
        for result in kept:
            sink.varint(self.w._type_at(op, result.type))

    def _flags(self, op: Operation, plan, operand_groups: list, sink: Sink) -> set[str]:
        """The flags varint; returns the names of the optional fields present."""
        present: set[str] = set()
        if not plan.flags:
            if plan.has_flags(self.version):
                sink.varint(0)
            return present
        groups = dict(zip((o.name for o in plan.opdef.operands), operand_groups))
        bits = 0
        for field_ in plan.flags:
            is_set = (field_.name in op.attributes) if field_.kind == "attr" \
                else bool(groups.get(field_.name))
            if not is_set:
                continue
            if field_.since > self.version:
                what = "optional attribute" if field_.kind == "attr" else "optional operand"
                raise _fail(op, f"{what} '{field_.name}' is provided but requires bytecode "
                            f"version {field_.since}, targeting {self.version}")
            bits |= 1 << field_.bit
            present.add(field_.name)
        if plan.has_flags(self.version):
            sink.varint(bits)
        return present

    def _attr(self, op: Operation, plan: Layout, attr: AttrDef, present: set[str],
              groups: list, sink: Sink) -> None:
        """One attribute's payload, if the record has it (`groups`: the operand groups)."""
        if attr.is_unit:
            return
        if attr.name in plan.flagged_attrs:
            if attr.name in present:
                self._attr_value(op, attr, op.attributes[attr.name], sink)
            return
        value = written_attr(op, attr, groups)
        if attr.since > self.version:
            if not is_default(attr, op.attributes.get(attr.name)):
                raise _fail(op, f"attribute '{attr.name}' requires bytecode version "
                            f"{attr.since}+, but targeting {self.version}")
            return
        if value is None:
            raise _fail(op, f"requires attribute '{attr.name}'")
        self._attr_value(op, attr, value, sink)

    def _attr_value(self, op: Operation, attr: AttrDef, value: Attribute, sink: Sink) -> None:
        """An attribute as an op record stores it, by its value's class (`_ATTR_WRITERS`);
        other classes take the self-contained tagged form."""
        write = _ATTR_WRITERS.get(type(value))
        if write is None:
            self.w._self_contained(op, value, sink)
        else:
            write(self, op, attr, value, sink)

    def _operands(self, op: Operation, opdef: OpDef, plan, groups: list, present: set[str],
                  sink: Sink) -> None:
        """The operand references (group by group where the layout is segmented)."""
        if plan.segmented:
            for decl, group in zip(opdef.operands, groups):
                if decl.arity == OPTIONAL:
                    if decl.name in present:
                        self._ref(op, group[0], sink)
                elif decl.arity == VARIADIC:
                    sink.varint(len(group))
                    for value in group:
                        self._ref(op, value, sink)
                else:
                    self._ref(op, group[0], sink)
            return
        values = [v for decl, group in zip(opdef.operands, groups)
                  if decl.since <= self.version for v in group]
        for decl, group in zip(opdef.operands, groups):
            if decl.since > self.version and group:
                raise _fail(op, f"optional operand '{decl.name}' is provided but requires "
                            f"bytecode version {decl.since}, targeting {self.version}")
        if any(d.arity != SINGLE for d in opdef.operands):
            sink.varint(len(values))
        for value in values:
            self._ref(op, value, sink)


def _write_enum(body: BodyWriter, op: Operation, attr: AttrDef, value: EnumAttr,
                sink: Sink) -> None:
    """A varint of the case, refused when the case is newer than the version."""
    if enum_since(value.value) > body.version:
        raise _fail(op, f"enum value for attribute '{attr.name}' is not available in "
                    f"bytecode version {body.version}")
    sink.varint(int(value.value))


def _write_integer(body: BodyWriter, op: Operation, attr: AttrDef, value: IntegerAttr,
                   sink: Sink) -> None:
    """A varint of the value, zero-extended from its width (an integer held by an
    attribute of another kind takes the tagged form)."""
    width = {"i64": 64, "i32": 32}.get(attr.kind.name)
    if width is None:
        body.w._self_contained(op, value, sink)
        return
    sink.varint(value.value & ((1 << width) - 1))


def _write_bool(body: BodyWriter, op: Operation, attr: AttrDef, value: BoolAttr,
                sink: Sink) -> None:
    sink.byte(int(value.value))


def _write_string(body: BodyWriter, op: Operation, attr: AttrDef, value: StringAttr,
                  sink: Sink) -> None:
    sink.varint(body.w.string_ref(value.value))


def _write_symbol(body: BodyWriter, op: Operation, attr: AttrDef, value: SymbolRefAttr,
                  sink: Sink) -> None:
    sink.varint(body.w.string_ref(value.name))


def _write_dense_array(body: BodyWriter, op: Operation, attr: AttrDef,
                       value: DenseArrayAttr, sink: Sink) -> None:
    """A count, then one byte per i1 element or four per i32 element."""
    sink.varint(len(value.values))
    size = 1 if value.element_type.width == 1 else 4
    for v in value.values:
        sink.fixed(v, size)


def _write_dense(body: BodyWriter, op: Operation, attr: AttrDef, value: DenseElementsAttr,
                 sink: Sink) -> None:
    sink.varint(body.w.constant_ref(value))


def _write_array(body: BodyWriter, op: Operation, attr: AttrDef, value: ArrayAttr,
                 sink: Sink) -> None:
    try:
        A.write_array_payload(value, body.w, sink)
    except (A.UnencodableAttr, TypeVersionError) as exc:
        raise _fail(op, f"failed to serialize attribute '{attr.name}': {exc}") from None


def _write_hints(body: BodyWriter, op: Operation, attr: AttrDef,
                 value: OptimizationHintsAttr, sink: Sink) -> None:
    A.write_hints_payload(value, body.w, sink)


def _write_opaque(body: BodyWriter, op: Operation, attr: AttrDef, value: OpaqueAttr,
                  sink: Sink) -> None:
    raise _fail(op, f"failed to serialize attribute '{attr.name}'")


#: How an op record stores an attribute, by the class of its value.
_ATTR_WRITERS = {
    EnumAttr: _write_enum, IntegerAttr: _write_integer, BoolAttr: _write_bool,
    StringAttr: _write_string, SymbolRefAttr: _write_symbol,
    DenseArrayAttr: _write_dense_array, DenseElementsAttr: _write_dense,
    ArrayAttr: _write_array, OptimizationHintsAttr: _write_hints, OpaqueAttr: _write_opaque,
}


def write_bytecode(module: Module, version: Version, seed: FileLayout | None = None) -> bytes:
    """`module` as bytecode of `version` (raises `BytecodeError` for what it cannot hold)."""
    with gc_paused():
        return Writer(module, version, seed).write()


__all__ = ["WriteError", "write_bytecode"]
