"""Bytecode 13.5: the version, the header's preview flag, the new function records, the
DISubprogram flags, the multimem op records, and the writer's refusals at older versions.

Expected bytes are built here by hand from the format (NVIDIA's 13.5 writer in cuTile
Python 1.7.0, ``cuda/tile/_bytecode``: ``writer.py``, ``debug_info.py``, ``encodings.py``);
messages are tileirdisasm 13.5's.
"""

from __future__ import annotations

import pytest

from mutators import Section, encode_varint, join_sections, offset_table, split_sections
from tileir import SUPPORTED_VERSIONS, LATEST, Version, parse
from tileir.bytecode import (BytecodeError, MAGIC, default_write_version, from_bytecode,
                             parse_preview, to_bytecode)

RETURN = bytes([92, 0, 0])          # opcode, no result types, no operands
EMPTY_SIGNATURE = bytes([0x10, 0, 0])
ENTRY = "cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}\n"


def file_13_5(func_record: bytes, tag: int = 0, version: tuple[int, int] = (13, 5),
              types: tuple[bytes, ...] = (EMPTY_SIGNATURE,)) -> bytes:
    """A file with one function whose record after its name and signature is
    `func_record` (flags, debug index, hints, arg_attrs, body length, body)."""
    func = encode_varint(1) + encode_varint(0) + encode_varint(0) + func_record
    sections = [Section(2, 8, func + b"\xcb" * (-len(func) % 8)),
                Section(5, 4, offset_table(list(types), 4)),
                Section(1, 4, offset_table([b"k"], 4))]
    return join_sections(MAGIC + bytes(version) + tag.to_bytes(2, "little"), sections)


#: An entry's 13.5 record: flags (entry), no debug info, empty hints (tag 0x0b, no
#: architecture), empty arg_attrs (tag 0x06, no element), then the body.
ENTRY_RECORD = bytes([0x02, 0x00, 0x0B, 0x00, 0x06, 0x00]) + encode_varint(3) + RETURN


def failure(data: bytes, **kwargs) -> BytecodeError:
    with pytest.raises(BytecodeError) as info:
        from_bytecode(data, **kwargs)
    return info.value


# ---- versions --------------------------------------------------


def test_13_5_is_read_and_listed_but_13_4_is_written_by_default() -> None:
    assert SUPPORTED_VERSIONS[-1] == LATEST == Version(13, 5)
    assert default_write_version() == Version(13, 4)
    data = parse(ENTRY).to_bytecode()
    assert data[8:12] == bytes([13, 4, 0, 0])
    assert parse(ENTRY).to_bytecode("13.5")[8:12] == bytes([13, 5, 0, 0])


def test_entry_record_at_13_5() -> None:
    """No hints bit in the flags; the entry's (empty) hints and an empty arg_attrs array
    always follow the debug index."""
    data = to_bytecode(parse(ENTRY), "13.5")
    func = [s for s in split_sections(data) if s.ident == 2][0].payload
    expected = bytes([1, 0, 0]) + ENTRY_RECORD
    assert func == expected + b"\xcb" * (-len(expected) % 8)
    assert data == file_13_5(ENTRY_RECORD)
    assert str(from_bytecode(data)) == ENTRY


def test_entry_with_hints_at_13_5() -> None:
    text = ENTRY.replace("@k()", "@k() optimization_hints=<sm_100 = {num_cta_in_cga = 2}>")
    data = to_bytecode(parse(text), "13.5")
    func = [s for s in split_sections(data) if s.ident == 2][0].payload
    # flags, debug, hints {sm_100 (string 1): {num_cta_in_cga (string 2): i32 (type 1) 2}}
    hints = bytes([0x0B, 1, 1, 0x0A, 1, 2, 0x01, 1, 2])
    assert func.startswith(bytes([1, 0, 0, 0x02, 0x00]) + hints + bytes([0x06, 0x00]))
    assert str(from_bytecode(data)) == text


@pytest.mark.parametrize("flags, message", [
    (0x12, "function entry has unrecognized flag bits (0x10);"),
    (0x0C, "function entry has reserved form value"),
    (0x0E, "function entry has reserved form value"),
    (0x0A, "function entry has testing form in non-test build"),
    (0x06, "function entry cannot be both kernel and extern impl"),
])
def test_function_flags_refused_as_tileirdisasm_refuses_them(flags: int, message: str) -> None:
    err = failure(file_13_5(bytes([flags]) + ENTRY_RECORD[1:]))
    assert err.reason == message


def test_entry_hints_bit_still_read_before_13_5() -> None:
    record = bytes([0x06, 0x00, 0x0B, 0x00]) + encode_varint(3) + RETURN
    assert str(from_bytecode(file_13_5(record, version=(13, 4)))) == ENTRY


def test_arg_attrs_read_back_in_the_form_written() -> None:
    """One empty dictionary per argument reads as no attributes and is written back as
    it was (cuTile writes an empty array)."""
    types = (bytes([0x03]), bytes([0x0D, 0, 0]), bytes([0x10, 1, 1, 0]))
    per_argument = bytes([0x02, 0x00, 0x0B, 0x00, 0x06, 0x01, 0x0A, 0x00]) + \
        encode_varint(3) + RETURN
    data = file_13_5(per_argument, types=types)
    data = data.replace(bytes([1, 0, 0, 0x02]), bytes([1, 0, 2, 0x02]), 1)  # signature 2
    module = from_bytecode(data)
    assert "entry @k(%arg0: tile<i32>) {" in str(module)
    assert module.to_bytecode("13.5") == data


def test_arg_attrs_of_the_wrong_size_fail_verification() -> None:
    types = (bytes([0x03]), bytes([0x0D, 0, 0]), bytes([0x10, 1, 1, 0]))
    record = bytes([0x02, 0x00, 0x0B, 0x00, 0x06, 0x02, 0x0A, 0x00, 0x0A, 0x00]) + \
        encode_varint(3) + RETURN
    data = file_13_5(record, types=types).replace(bytes([1, 0, 0, 0x02]),
                                                  bytes([1, 0, 2, 0x02]), 1)
    assert "expects argument attribute array to have the same number of elements as the " \
        "number of function arguments, got 2, but expected 1" in str(failure(data))


# ---- the header's preview flag --------------------------------------------------


@pytest.mark.parametrize("version, tag, message", [
    ((13, 5), 2, "header has unrecognized version tag bits (0x2);"),
    ((13, 5), 0x101, "header has unrecognized version tag bits (0x100);"),
    ((13, 4), 1, "public-preview bytecode at version 13.4.1 is not readable; preview content "
                 "is only valid at the current version 13.5"),
    ((13, 5), 1, "public-preview bytecode requires at least one enabled preview feature"),
    ((13, 6), 1, "unsupported Tile version 13.6.1, this reader supports versions "
                 "[13.1 - 13.5]"),
])
def test_version_tag_refused_as_tileirdisasm_refuses_it(version, tag, message) -> None:
    err = failure(file_13_5(ENTRY_RECORD, tag=tag, version=version))
    assert err.reason == message
    assert err.offset == 12


def test_preview_flagged_file_reads_with_a_preview_feature_and_keeps_its_flag() -> None:
    data = file_13_5(ENTRY_RECORD, tag=1)
    module = from_bytecode(data, preview=parse_preview("simt"))
    assert str(module) == ENTRY
    assert module.to_bytecode("13.5") == data
    assert module.to_bytecode("13.5", keep_layout=False)[10:12] == b"\x00\x00"


def test_unknown_preview_feature() -> None:
    with pytest.raises(BytecodeError) as info:
        parse_preview("simt,vector")
    assert info.value.message == "unknown preview feature 'vector'; supported features: simt"


# ---- DISubprogram flags --------------------------------------------------

DEBUG_ENTRY = (
    '#di_file = #cuda_tile.di_file<"k.py" in "/src">\n'
    '#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>\n'
    '#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 3, name = "k", '
    'linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 3FLAGS>\n'
    '#loc = loc("/src/k.py":3:0)\n'
    '#loc1 = loc("/src/k.py":4:0)\n'
    '#loc2 = #cuda_tile.di_loc<#loc in #di_subprogram>\n'
    '#loc3 = #cuda_tile.di_loc<#loc1 in #di_subprogram>\n'
    'cuda_tile.module @kernels {\n'
    '  entry @k() {\n'
    '    return loc(#loc3)\n'
    '  } loc(#loc2)\n'
    '}\n')


def _subprogram_record(data: bytes) -> bytes:
    """The DISubprogram record (tag 5) of the Debug section's attribute table."""
    debug = [s for s in split_sections(data) if s.ident == 3][0].payload
    for start in range(len(debug)):
        if debug[start] == 5 and debug[start + 1] == 1:   # tag, file = attribute 1
            return debug[start:]
    raise AssertionError("no DISubprogram record")


def test_subprogram_flags_written_at_13_5_only() -> None:
    """13.5 appends a flags varint (bit 0: declaration) to the DISubprogram record."""
    plain = parse(DEBUG_ENTRY.replace("FLAGS", ""))
    declared = parse(DEBUG_ENTRY.replace("FLAGS", ", flags = declaration"))
    # tag, file 1, line 3, name and linkageName (string 0, "k"), compile unit 2, scopeLine 3
    fields = bytes([5, 1, 3, 0, 0, 2, 3])
    assert _subprogram_record(plain.to_bytecode("13.4")).startswith(fields + bytes([4]))
    assert _subprogram_record(plain.to_bytecode("13.5")).startswith(fields + bytes([0, 4]))
    data = declared.to_bytecode("13.5")
    assert _subprogram_record(data).startswith(fields + bytes([1, 4]))
    again = from_bytecode(data)
    assert "scopeLine = 3, flags = declaration>" in again.format(debuginfo=True)
    assert again.to_bytecode("13.5") == data
    with pytest.raises(BytecodeError) as info:
        declared.to_bytecode("13.4")
    assert info.value.message == ("DISubprogramAttr parameter 'flags' requires bytecode "
                                 "version 13.5+, but targeting 13.4")


def test_unknown_subprogram_flag_bits_are_refused() -> None:
    data = bytearray(parse(DEBUG_ENTRY.replace("FLAGS", "")).to_bytecode("13.5"))
    record = _subprogram_record(bytes(data))
    at = bytes(data).index(record) + 7
    data[at] = 2
    assert failure(bytes(data)).reason == ("unrecognized flag bits (0x2) when parsing "
                                           "DISubprogramAttr")


# ---- multimem records and the writer's refusals --------------------------------------------

_MC = "#cuda_tile.ptr_attr<multicast>"
_TV = f"tensor_view<64xf32, strides=[1], {_MC}>"
_PV = f"partition_view<tile=(16), {_TV}>"
#: tileirdisasm 13.5's text for multimem records written by cuTile's encoders.
MULTIMEM = (
    "cuda_tile.module @kernels {\n"
    "  entry @k(%arg0: tile<ptr<f32, <multicast>>>) {\n"
    "    %tview = make_tensor_view %arg0, shape = [64], strides = [1] : "
    f"tile<ptr<f32, <multicast>>> -> {_TV}\n"
    f"    %pview = make_partition_view %tview : {_PV}\n"
    "    %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
    "    %reduced_values, %result_token = multimem_load_reduce_view_tko weak "
    f"%pview[%cst_0_i32]  : {_PV}, tile<i32> -> tile<16xf32>, token\n"
    "    %0 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32] "
    f"token = %result_token inbounds = [true] : {_PV}, tile<16xf32>, tile<i32>, token -> "
    "token\n"
    "    %1 = multimem_store_view_tko relaxed tl_blk %pview, %reduced_values[%cst_0_i32]  : "
    f"{_PV}, tile<16xf32>, tile<i32> -> token\n"
    "    return\n"
    "  }\n"
    "}\n")


def test_multimem_records() -> None:
    """Records laid out as cuTile's 13.5 encoders lay them out: opcode, result count and
    types, flags (memory_scope bit 0 where optional, then the token), ordering, scope,
    reduction, inbounds (count and one byte each), view, tile, index count and indices,
    token.  Values: %arg0 0, %tview 1, %pview 2, %cst 3, %reduced_values 4, %result_token 5."""
    data = parse(MULTIMEM).to_bytecode("13.5")
    f32 = _type_index(data, bytes([0x07]))
    tile = _type_index(data, bytes([0x0D, f32, 1]) + (16).to_bytes(8, "little"))
    token = _type_index(data, bytes([0x11]))
    load = bytes([123, 2, tile, token, 0b00, 0, 0, 1, 0, 2, 1, 3])
    reduce = bytes([124, 1, token, 0b1, 1, 2, 0, 1, 1, 2, 4, 1, 3, 5])
    store = bytes([125, 1, token, 0b01, 1, 0, 1, 0, 2, 4, 1, 3])
    assert load + reduce + store in data


def _type_index(data: bytes, blob: bytes) -> int:
    """The index of the type whose encoding is `blob` in the file's type table."""
    table = [s for s in split_sections(data) if s.ident == 5][0].payload
    count = table[0]
    offsets = [int.from_bytes(table[4 + 4 * i:8 + 4 * i], "little") for i in range(count)]
    start = 4 + 4 * count
    ends = offsets[1:] + [len(table) - start]
    blobs = [table[start + a:start + b] for a, b in zip(offsets, ends)]
    return blobs.index(blob)


@pytest.mark.parametrize("text, message", [
    (MULTIMEM, "enum value 'multicast' of parameter 'ptrAttr' requires bytecode version "
               "13.5+, but targeting 13.4"),
    (MULTIMEM.replace("<multicast>", "<none>"),
     "operation 'cuda_tile.multimem_load_reduce_view_tko' is not available in bytecode "
     "version 13.4"),
])
def test_13_5_features_refused_at_13_4(text: str, message: str) -> None:
    with pytest.raises(BytecodeError) as info:
        parse(text, verify=False).to_bytecode("13.4")
    assert info.value.message == message


_PVI = "partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>"
ATOMIC_RED = (
    "cuda_tile.module @kernels {\n"
    "  entry @k(%arg0: tile<ptr<i32>>) {\n"
    "    %tview = make_tensor_view %arg0, shape = [64], strides = [1] : "
    "tensor_view<64xi32, strides=[1]>\n"
    f"    %pview = make_partition_view %tview : {_PVI}\n"
    "    %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
    "    %cst_0_i32_0 = constant <i32: 0> : tile<16xi32>\n"
    "    %0 = atomic_red_view_tko relaxed device %pview[%cst_0_i32], add, %cst_0_i32_0 "
    f"INBOUNDS: tile<16xi32>, {_PVI}, tile<i32> -> token\n"
    "    return\n"
    "  }\n"
    "}\n")


def test_atomic_red_view_inbounds_is_13_5() -> None:
    """13.5 writes an inbounds array after the mode (cuTile's encode_AtomicRedViewTkoOp);
    13.4 drops an all-false one and refuses any other."""
    plain = parse(ATOMIC_RED.replace("INBOUNDS", ""))
    inbounds = parse(ATOMIC_RED.replace("INBOUNDS", "inbounds = [true] "))
    # opcode, 1 result (token), flags, relaxed, device, add, [inbounds], view, 1 index,
    # value (values: %arg0 0, %tview 1, %pview 2, the index 3, the value 4)
    token = _type_index(plain.to_bytecode("13.5"), bytes([0x11]))
    assert bytes([117, 1, token, 0, 1, 1, 3, 1, 0, 2, 1, 3, 4]) in plain.to_bytecode("13.5")
    assert bytes([117, 1, token, 0, 1, 1, 3, 1, 1, 2, 1, 3, 4]) in inbounds.to_bytecode("13.5")
    assert bytes([117, 1, token, 0, 1, 1, 3, 2, 1, 3, 4]) in plain.to_bytecode("13.4")
    assert str(from_bytecode(inbounds.to_bytecode("13.5"))) == str(inbounds)
    with pytest.raises(BytecodeError) as info:
        inbounds.to_bytecode("13.4")
    assert info.value.message == ("attribute 'inbounds' requires bytecode version 13.5+, but "
                                 "targeting 13.4")


def test_13_5_enum_cases_refused_in_older_files() -> None:
    """A 13.4 file naming multicast (ptr_attr value 2) is refused as NVIDIA's reader does."""
    data = bytearray(parse(MULTIMEM.replace("<multicast>", "<none>").replace(
        "multicast", "none").split("    %reduced_values")[0] + "    return\n  }\n}\n"
    ).to_bytecode("13.4"))
    f32 = _type_index(bytes(data), bytes([0x07]))
    pointer = bytes([0x0C, 1, f32, 0])     # ptr: flags (ptr_attr present), f32, none
    at = bytes(data).index(pointer)
    data[at + 3] = 2
    assert failure(bytes(data)).reason == ("enum value 2 is not available in bytecode version "
                                           "13.4")
