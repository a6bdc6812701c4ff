"""What NVIDIA's reader does with unusual but well-formed files, reproduced: files built
here byte by byte (independently of tileir's writer), expectations from what NVIDIA's 13.4
and 13.5 tileirdisasm print for the same bytes (../shared/reference/cuda-tile.md section 4
and the 13.4 research notes)."""

from __future__ import annotations

import pytest

from tileir import BytecodeError
from tileir.bytecode import from_bytecode

from mutators import entry_file
from mutators import encode_varint as varint


FN = bytes([16, 0, 0])           # () -> ()
I1, I32 = bytes([0]), bytes([3])
RETURN = bytes([0x5C, 0, 0])


def tile(element: int, *dims: int) -> bytes:
    return bytes([13, element]) + varint(len(dims)) + b"".join(d.to_bytes(8, "little")
                                                               for d in dims)


def i1_constant(raw: bytes, n: int) -> str:
    """The printed constant of an i1 tile of n elements with raw data `raw`."""
    types = [FN, I1, tile(1, n)]
    data = entry_file(bytes([0x10, 2, 0]) + RETURN, types, [raw])
    return str(from_bytecode(data)).splitlines()[2].strip()


def test_one_zero_byte_is_a_false_splat() -> None:
    assert i1_constant(b"\x00", 2) == "%false = constant <i1: false> : tile<2xi1>"


def test_one_byte_for_eight_elements_is_bit_packed() -> None:
    assert i1_constant(b"\x01", 8) == ("%cst_i1 = constant <i1: [true, false, false, false, "
                                       "false, false, false, false]> : tile<8xi1>")


def test_one_nonzero_byte_for_more_elements_is_a_true_splat() -> None:
    assert i1_constant(b"\x01", 32) == "%true = constant <i1: true> : tile<32xi1>"


def test_packed_bits_past_the_last_element_are_ignored() -> None:
    assert i1_constant(b"\xf0", 4) == "%false = constant <i1: false> : tile<4xi1>"
    assert i1_constant(b"\x05\x00", 16) == (
        "%cst_i1 = constant <i1: [true, false, true" + ", false" * 13 + "]> : tile<16xi1>")


@pytest.mark.parametrize("raw, n", [(b"\x01\x00\x01\x01" * 4, 16), (b"\x00\x00\x01\x00", 4),
                                    (b"\x01\x01\x01", 16)])
def test_other_i1_sizes_are_refused_as_13_5_does(raw, n) -> None:
    # (13.4's tileirdisasm took one byte per element; 13.5's refuses it)
    with pytest.raises(BytecodeError) as info:
        i1_constant(raw, n)
    assert info.value.reason == (f"i1 dense attribute payload size {len(raw)} is not a "
                                 f"recognized encoding for {n} elements")


def test_hint_dictionaries_read_sorted_by_key() -> None:
    # tag 11 payload: 1 entry, key "sm_100" (string 1), a dictionary (tag 10) with
    # occupancy (string 2) = 2 : i32 then num_cta_in_cga (string 3) = 2 : i32
    hints = bytes([11, 1, 1, 10, 2, 2, 1, 1, 2, 3, 1, 1, 2])
    data = entry_file(RETURN, [FN, I32], hints=hints,
                      strings=[b"k", b"sm_100", b"occupancy", b"num_cta_in_cga"])
    assert str(from_bytecode(data)).splitlines()[1] == (
        "  entry @k() optimization_hints=<sm_100 = {num_cta_in_cga = 2, occupancy = 2}> {")


def test_a_pointer_to_a_pointer_is_refused_when_read() -> None:
    types = [FN, bytes([7]), bytes([12, 0, 1]), bytes([12, 0, 2]), tile(3)]  # ptr<ptr<f32>>
    data = entry_file(bytes([0x10, 4, 0]) + RETURN, types, [b"\x00" * 8])
    with pytest.raises(BytecodeError) as info:
        from_bytecode(data, verify=False)
    assert info.value.reason.startswith("failed to verify 'pointeeType': f16 or bf16 or f32")


def test_a_file_version_gates_enum_values() -> None:
    # ftof f32 -> f16 with rounding<nearest_away> (7), a 13.4 value, in a 13.3 file
    types = [FN, bytes([7]), tile(1, 4), bytes([5]), tile(3, 4)]
    body = bytes([0x10, 2, 0, 0x2A, 4, 7, 0]) + RETURN
    with pytest.raises(BytecodeError) as info:
        from_bytecode(entry_file(body, types, [b"\x00\x00\x80\x3f"], version=3))
    assert info.value.reason == "enum value 7 is not available in bytecode version 13.3"


def test_an_empty_inbounds_array_reaches_the_verifier() -> None:
    # make_tensor_view/partition_view on a pointer argument would need a long type table;
    # the rule is checked on the smallest record that carries inbounds: a 13.4 load with
    # two indices and inbounds = [] (length 0).
    f32, ptr, tptr = bytes([7]), bytes([12, 0, 1]), tile(2)
    tview = bytes([14, 0, 1]) + varint(2) + (64).to_bytes(8, "little") * 2 + \
        varint(2) + (64).to_bytes(8, "little") + (1).to_bytes(8, "little")
    pview = bytes([15, 0]) + varint(2) + (16).to_bytes(4, "little") * 2 + bytes([4]) + \
        varint(2) + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
    types = [bytes([16, 1, 3, 0]), f32, ptr, tptr, tview, pview, I32, tile(6),
             tile(1, 16, 16), bytes([17])]
    body = (bytes([0x43, 1, 4, 0, 0, 0])            # make_tensor_view %arg0 (no dynamic)
            + bytes([0x42, 5, 1])                  # make_partition_view
            + bytes([0x10, 7, 0])                  # constant 0 : tile<i32>
            + bytes([0x3E, 2, 8, 9, 0, 0, 0, 2, 2, 3, 3])  # load, inbounds = [], 2 indices
            + RETURN)
    data = entry_file(body, types, [b"\x00\x00\x00\x00"])
    with pytest.raises(BytecodeError) as info:
        from_bytecode(data)
    assert [d.message for d in info.value.diagnostics] == [
        "'cuda_tile.load_view_tko' op inbounds size (0) must match the number of index "
        "dimensions (2)", "verification failed for deserialized cuda_tile::ModuleOp"]
