"""Bytecode records written and read, with the bytes derived by hand from the format
(../shared/reference/cuda-tile.md section 4, and the 13.4 record layouts observed with
NVIDIA's 13.4 tools)."""

from __future__ import annotations

import pytest

import tileir
from tileir import BytecodeError
from tileir.bytecode import from_bytecode, to_bytecode

from mutators import split_sections

HEADER = b"\x7fTileIR\x00"


def sections(data: bytes) -> dict[int, bytes]:
    """Section id -> payload, framed independently of tileir's reader."""
    assert data[:8] == HEADER
    found = split_sections(data)
    assert found is not None, "badly framed"
    return {section.ident: section.payload for section in found}


def body(data: bytes) -> bytes:
    """The op records of the only function (names, types and bodies under 128)."""
    func = sections(data)[2]
    assert func[0] == 1, "one function"
    flags = func[3]
    assert not flags & 0x04, "no hints in these tests"
    length = func[5]
    return func[6:6 + length]


def module(body_text: str, args: str = "") -> tileir.Module:
    return tileir.parse("cuda_tile.module @kernels {\n  entry @k(" + args + ") {\n"
                        + body_text + "    return\n  }\n}\n")


FTOI = ("    %a = constant <f32: 1.5> : tile<16xf32>\n"
        "    %0 = ftoi %a signed saturating : tile<16xf32> -> tile<16xi32>\n")


def test_empty_module_frames_every_mandatory_section() -> None:
    expected = bytes.fromhex(
        "7f54696c65495200 0d010000"          # magic, version 13.1, tag 0
        "820808cb 00cbcbcbcbcbcbcb"          # Func: 0 functions, padded to 8
        "850404cb 00cbcbcb"                  # Type: 0 types
        "810404cb 00cbcbcb"                  # String: 0 strings
        "00")                                # End
    assert to_bytecode(tileir.parse("cuda_tile.module @m {\n}\n"), "13.1") == expected


def test_ftoi_saturating_is_a_flags_bit_from_13_4() -> None:
    # types: 0 = () -> (), 1 = f32, 2 = tile<16xf32>, 3 = i32, 4 = tile<16xi32>
    data = to_bytecode(module(FTOI), "13.4")
    assert body(data) == bytes.fromhex("100200" "2b0401" "0106" "00" "5c0000")
    round_trip = from_bytecode(data)
    assert "ftoi %cst_f32 signed  saturating : tile<16xf32> -> tile<16xi32>" in str(round_trip)


def test_ftoi_has_no_flags_before_13_4() -> None:
    data = to_bytecode(module(FTOI.replace(" saturating", "")), "13.3")
    assert body(data) == bytes.fromhex("100200" "2b04" "0106" "00" "5c0000")


def test_a_newer_optional_attribute_set_is_refused() -> None:
    with pytest.raises(BytecodeError) as info:
        to_bytecode(module(FTOI), "13.3")
    assert info.value.message == ("optional attribute 'saturating' is provided but requires "
                                  "bytecode version 13.4, targeting 13.3")
    assert info.value.diagnostics[0].location.line == 4


def test_negi_overflow_written_from_13_2_and_refused_before() -> None:
    text = ("    %a = constant <i32: 1> : tile<4xi32>\n"
            "    %0 = negi %a overflow<no_signed_wrap> : tile<4xi32>\n")
    # types: 0 = () -> (), 1 = i32, 2 = tile<4xi32>; overflow nsw = 1
    assert body(to_bytecode(module(text), "13.2")) == bytes.fromhex("100200" "50020100"
                                                                    "5c0000")
    with pytest.raises(BytecodeError) as info:
        to_bytecode(module(text), "13.1")
    assert info.value.message == ("attribute 'overflow' requires bytecode version 13.2+, but "
                                  "targeting 13.1")
    plain = text.replace(" overflow<no_signed_wrap>", "")
    assert body(to_bytecode(module(plain), "13.1")) == bytes.fromhex("100200" "500200"
                                                                     "5c0000")


def test_an_op_newer_than_the_version_is_refused() -> None:
    text = ("    %a = constant <f32: 1.5> : tile<4xf32>\n"
            "    %e = constant <i32: 2> : tile<4xi32>\n"
            "    %0 = fpowi %a, %e : tile<4xf32>, tile<4xi32>\n")
    with pytest.raises(BytecodeError) as info:
        to_bytecode(module(text), "13.3")
    assert info.value.message == ("operation 'cuda_tile.fpowi' is not available in bytecode "
                                  "version 13.3")


def test_a_newer_type_is_refused_without_a_location() -> None:
    text = "    %a = constant <f8E8M0FNU: 1.0> : tile<4xf8E8M0FNU>\n"
    with pytest.raises(BytecodeError) as info:
        to_bytecode(module(text), "13.1")
    assert info.value.message == ("type 'Float8E8M0FNU' requires bytecode version 13.2+, "
                                  "targeting 13.1")
    assert info.value.diagnostics[0].location is None


def test_pointer_attribute_needs_13_4() -> None:
    m = module("", "%p: tile<ptr<f32, <none>>>")
    types = sections(to_bytecode(m, "13.4"))[5]
    # entries: 0 = f32, 1 = ptr<f32, none>: flags 1, pointee 0, attribute 0
    assert bytes.fromhex("0c010000") in types
    with pytest.raises(BytecodeError) as info:
        to_bytecode(m, "13.3")
    assert info.value.message == ("parameter 'ptrAttr' requires bytecode version 13.4+, but "
                                  "targeting 13.3")


LOAD = ("    %t = make_tensor_view %a, shape = [16], strides = [1] : "
        "tensor_view<16xf32, strides=[1]>\n"
        "    %p = make_partition_view %t : partition_view<tile=(4), tensor_view<16xf32, "
        "strides=[1]>>\n"
        "    %i = constant <i32: 0> : tile<i32>\n"
        "    %v, %tok = load_view_tko weak %p[%i] : partition_view<tile=(4), tensor_view<16xf32"
        ", strides=[1]>>, tile<i32> -> tile<4xf32>, token\n")


def test_load_view_writes_inbounds_from_13_4_only() -> None:
    m = module(LOAD, "%a: tile<ptr<f32>>")
    load_13_4 = body(to_bytecode(m, "13.4"))
    load_13_3 = body(to_bytecode(m, "13.3"))
    # opcode 0x3e, 2 result types, flags 0, weak 0, [13.4: inbounds = [false]], then the
    # view, one index and the index.
    assert bytes.fromhex("3e02080900" "00" "0100" "020103") in load_13_4
    assert bytes.fromhex("3e02080900" "00" "020103") in load_13_3


def test_print_token_result_is_dropped_at_13_1_unless_used() -> None:
    unused = "    %t = print_tko \"x\" -> token\n"
    data = to_bytecode(module(unused), "13.1")
    # opcode 0x55, 0 results written, no flags at 13.1, the string, 0 arguments
    assert body(data) == bytes.fromhex("5500" "01" "00" "5c0000")
    used = unused + "    %u = join_tokens %t, %t : token\n"
    with pytest.raises(BytecodeError) as info:
        to_bytecode(module(used), "13.1")
    assert info.value.message.startswith("result 'result_token' requires bytecode version "
                                         "13.2 but is being used and targeting 13.1")


def test_reader_upgrades_13_1_print_with_a_fresh_token() -> None:
    data = to_bytecode(module("    %t = print_tko \"x\" -> token\n"), "13.1")
    assert 'print_tko "x" -> token' in str(from_bytecode(data))


def test_reader_refuses_an_opcode_newer_than_the_file() -> None:
    text = ("    %a = constant <f32: 1.5> : tile<4xf32>\n"
            "    %e = constant <i32: 2> : tile<4xi32>\n"
            "    %0 = fpowi %a, %e : tile<4xf32>, tile<4xi32>\n")
    data = bytearray(to_bytecode(module(text), "13.4"))
    data[9] = 3                                       # claim version 13.3
    with pytest.raises(BytecodeError) as info:
        from_bytecode(bytes(data))
    assert info.value.reason == "unsupported opcode 121 for bytecode version 13.3"
    assert data[info.value.offset] == 121


def test_reader_refuses_a_type_newer_than_the_file() -> None:
    data = bytearray(to_bytecode(module("    %a = constant <fnv8E5M3FNU: 1.0> : "
                                        "tile<4xfnv8E5M3FNU>\n"), "13.4"))
    data[9] = 3
    with pytest.raises(BytecodeError) as info:
        from_bytecode(bytes(data))
    assert info.value.reason == ("type 'FloatNV8E5M3FNU' requires bytecode version 13.4+, "
                                 "file version is 13.3")


@pytest.mark.parametrize("version", ["13.1", "13.2", "13.3", "13.4"])
def test_shipped_kernels_round_trip_at_every_version(version: str) -> None:
    from importlib import resources
    written = 0
    kernels = resources.files("tileir").joinpath("examples/kernels")
    for path in sorted(kernels.iterdir(), key=lambda p: p.name):
        m = tileir.parse(path.read_text(), path.name)
        try:
            data = to_bytecode(m, version)
        except BytecodeError:
            continue          # a feature newer than the version, refused with a message
        again = from_bytecode(data)
        assert str(again).replace(f"@{m.sym_name}", "@kernels") == \
            str(m).replace(f"@{m.sym_name}", "@kernels")
        assert to_bytecode(again, version) == data
        assert to_bytecode(again, version, keep_layout=False) == data
        written += 1
    assert written >= (10 if version >= "13.3" else 5)
