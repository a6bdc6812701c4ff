"""The `atomic_red_view_tko` record, built here byte by byte from the layout of NVIDIA's
encoder (cuTile's `encode_AtomicRedViewTkoOp`, the reference's generated codec):

    opcode 0x75; result count 1 and the token type; flags varint with bit 0 = the optional
    `token` operand; memory_ordering_semantics, memory_scope and mode, each an enum varint
    (memory_scope is a required attribute, always written, never a flag bit); the view;
    the index count and indices; the value; the token when bit 0 is set.

Our reader must read such a file and our writer must give back exactly its bytes, both from
what it read and from the same module written as text, at every version with the op.
"""

from __future__ import annotations

import pytest

import tileir
from tileir import BytecodeError, TileIRError
from tileir.bytecode import from_bytecode, to_bytecode

from mutators import encode_varint as varint
from mutators import entry_file

VERSIONS = ("13.3", "13.4")

def types(version: str) -> list[bytes]:
    """The type table, in the reference writer's order (a type's parts before it, first
    use first): 0 i32, 1 ptr<i32>, 2 tile<ptr<i32>>, 3 the signature (tile<ptr<i32>>) -> (),
    4 tensor_view<16xi32, strides=[1]>, 5 partition_view<tile=(4), that view>, 6 tile<i32>,
    7 tile<4xi32>, 8 token.  From 13.4 a pointer and a tensor view start with a flags varint
    (0: no address-space attribute); from 13.3 a partition view starts with a flags varint
    (0: no padding value), before 13.3 it ends with a presence byte (0) instead."""
    flags = bytes([0]) if version >= "13.4" else b""
    if version >= "13.3":
        partition = bytes([15, 0, 1]) + (4).to_bytes(4, "little") + bytes([4, 1]) + \
            (0).to_bytes(4, "little")
    else:
        partition = bytes([15, 1]) + (4).to_bytes(4, "little") + bytes([4, 1]) + \
            (0).to_bytes(4, "little") + bytes([0])
    return [bytes([3]), bytes([12]) + flags + bytes([0]), bytes([13, 1, 0]),
            bytes([16, 1, 2, 0]),
            bytes([14]) + flags + bytes([0, 1]) + (16).to_bytes(8, "little") + bytes([1]) +
            (1).to_bytes(8, "little"),
            partition, bytes([13, 0, 0]), bytes([13, 0, 1]) + (4).to_bytes(8, "little"),
            bytes([17])]


CONSTANTS = [(0).to_bytes(4, "little"),
             b"".join(n.to_bytes(4, "little") for n in (1, 2, 3, 4))]

RELAXED, TL_BLK, DEVICE, ADD, MAX = 1, 0, 1, 3, 5


def red(flags: int, scope: int, mode: int, token: bytes = b"") -> bytes:
    """One atomic_red_view_tko record on view value 2, index value 3, value value 4."""
    return bytes([0x75, 1, 8]) + varint(flags) + bytes([RELAXED, scope, mode]) + \
        bytes([2, 1, 3, 4]) + token


BODY = (bytes([0x43, 1, 4, 0, 0, 0])        # %1 = make_tensor_view %0 (no dynamic sizes)
        + bytes([0x42, 5, 1])               # %2 = make_partition_view %1
        + bytes([0x10, 6, 0])               # %3 = constant 0 : tile<i32>
        + bytes([0x10, 7, 1])               # %4 = constant [1, 2, 3, 4] : tile<4xi32>
        + bytes([0x44, 8])                  # %5 = make_token
        + red(1, DEVICE, ADD, bytes([5]))   # %6: token present: flags bit 0, then %5 last
        + red(0, TL_BLK, MAX)               # %7: no token: flags 0, scope still written
        + bytes([0x5C, 0, 0]))              # return

VIEW = "partition_view<tile=(4), tensor_view<16xi32, strides=[1]>>"
TEXT = f"""cuda_tile.module @kernels {{
  entry @k(%a: tile<ptr<i32>>) {{
    %t = make_tensor_view %a, shape = [16], strides = [1] : tensor_view<16xi32, strides=[1]>
    %p = make_partition_view %t : {VIEW}
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: [1, 2, 3, 4]> : tile<4xi32>
    %k = make_token : token
    %r0 = atomic_red_view_tko relaxed device %p[%i], add, %v token = %k : tile<4xi32>, {VIEW}, tile<i32> -> token
    %r1 = atomic_red_view_tko relaxed tl_blk %p[%i], max, %v : tile<4xi32>, {VIEW}, tile<i32> -> token
    return
  }}
}}
"""


def hand_built(version: str) -> bytes:
    return entry_file(BODY, types(version), CONSTANTS, version=int(version.split(".")[1]),
                      signature=3)


@pytest.mark.parametrize("version", VERSIONS)
def test_reader_reads_the_hand_built_records(version: str) -> None:
    module = from_bytecode(hand_built(version))
    ops = module.body.operations[0].regions[0].block.operations
    assert [op.name for op in ops] == [
        "cuda_tile.make_tensor_view", "cuda_tile.make_partition_view", "cuda_tile.constant",
        "cuda_tile.constant", "cuda_tile.make_token", "cuda_tile.atomic_red_view_tko",
        "cuda_tile.atomic_red_view_tko", "cuda_tile.return"]
    view, index, value, token = ops[1].results[0], ops[2].results[0], ops[3].results[0], \
        ops[4].results[0]
    with_token, without = ops[5], ops[6]
    assert [g for g in with_token.operand_groups()] == [[view], [index], [value], [token]]
    assert [g for g in without.operand_groups()] == [[view], [index], [value], []]
    keywords = [(op.attr("memory_ordering_semantics").value.keyword,
                 op.attr("memory_scope").value.keyword, op.attr("mode").value.keyword)
                for op in (with_token, without)]
    assert keywords == [("relaxed", "device", "add"), ("relaxed", "tl_blk", "max")]


@pytest.mark.parametrize("version", VERSIONS)
def test_writer_gives_back_the_hand_built_bytes(version: str) -> None:
    data = hand_built(version)
    read = from_bytecode(data)
    assert to_bytecode(read, version) == data
    assert to_bytecode(read, version, keep_layout=False) == data
    assert to_bytecode(tileir.parse(TEXT), version) == data


def test_the_op_is_refused_before_13_3() -> None:
    with pytest.raises(BytecodeError) as info:
        to_bytecode(tileir.parse(TEXT), "13.2")
    assert info.value.message == ("operation 'cuda_tile.atomic_red_view_tko' is not "
                                  "available in bytecode version 13.2")
    with pytest.raises(BytecodeError) as info:
        from_bytecode(hand_built("13.2"))
    assert info.value.reason == "unsupported opcode 117 for bytecode version 13.2"


def test_memory_scope_is_required() -> None:
    """A required attribute (no flag bit can say it is absent): text without a scope
    parses but does not verify, as with the reference's ODS verifier."""
    text = TEXT.replace("relaxed tl_blk", "relaxed")
    with pytest.raises(TileIRError) as info:
        tileir.parse(text)
    assert info.value.diagnostics[0].message == (
        "'cuda_tile.atomic_red_view_tko' op requires attribute 'memory_scope'")
