"""The bytecode reader never trusts its input: mutated valid files (truncations, bit flips,
byte replacements, splices, insertions, deletions, huge and overlong varints, section and body
surgery) read as a module or fail with a `TileIRError` diagnostic, quickly; never with another
exception.  Hand-built malformed files check the messages of NVIDIA's reader.

The long campaign with the same mutators is ``python tests/bytecode/fuzz_campaign.py``.
"""

from __future__ import annotations

import random
import re
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import require
import mutators as M
from mutators import offset_table
from tileir.bytecode import BytecodeError, from_bytecode, to_bytecode

SEEDS = M.all_seeds()
CORPUS = [seed.data for seed in SEEDS]
#: A generous bound on one read: a hang detector, not a speed requirement.
HANG_SECONDS = 2.0
FUZZ = settings(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check(data: bytes) -> str:
    """Read `data` under the fuzz property (see `mutators.read_outcome`); the outcome."""
    start = time.perf_counter()
    outcome, _ = M.read_outcome(data)
    elapsed = time.perf_counter() - start
    assert elapsed < HANG_SECONDS, f"reading {len(data)} bytes took {elapsed:.1f} s"
    return outcome


# ---- the seeds --------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_seed_is_valid(seed: M.Seed) -> None:
    """Every seed reads as a module (else the fuzzing would start from garbage), its
    sections split and join back to the same bytes, and its function bodies are found (the
    framing-preserving mutators rely on both)."""
    assert check(seed.data) == "module"
    sections = M.split_sections(seed.data)
    assert sections is not None
    assert M.join_sections(seed.data[:M.HEADER_SIZE], sections) == seed.data
    payload = [s for s in sections if s.ident == FUNC][-1].payload
    table = M.split_functions(payload) or M.split_hinted_functions(seed.data, payload)
    assert table is not None and table[0]


def test_shared_seeds_present() -> None:
    """The reference's fixtures and cuTile's exports are part of the corpus when ../shared
    is beside the checkout."""
    require(M.FIXTURES_13_1 / M.SHARED_FIXTURES[0])
    names = {seed.name for seed in M.shared_seeds()}
    assert set(M.SHARED_FIXTURES) <= names
    assert {p.name for p in M.ARTIFACTS.glob("*.tileirbc")} <= names


def test_kernel_seeds_cover_every_version() -> None:
    """The written example kernels give seeds of 13.1, 13.3 and 13.4, whose header says so."""
    versions = {seed.data[8:10] for seed in M.kernel_seeds()}
    assert versions == {bytes([13, 1]), bytes([13, 3]), bytes([13, 4])}


# ---- fuzzing --------------------------------------------------

seed_index = st.integers(0, len(SEEDS) - 1)


@settings(FUZZ, max_examples=300)
@given(index=seed_index, data=st.data())
def test_truncation(index: int, data) -> None:
    """Any prefix of a valid file."""
    raw = CORPUS[index]
    check(raw[:data.draw(st.integers(0, len(raw) - 1), label="length")])


@settings(FUZZ, max_examples=300)
@given(first=seed_index, second=seed_index, data=st.data())
def test_splice(first: int, second: int, data) -> None:
    """A prefix of one valid file followed by a suffix of another."""
    a, b = CORPUS[first], CORPUS[second]
    cut_a = data.draw(st.integers(0, len(a)), label="cut_a")
    cut_b = data.draw(st.integers(0, len(b)), label="cut_b")
    check(a[:cut_a] + b[cut_b:])


@settings(FUZZ, max_examples=2500)
@given(index=seed_index, names=st.lists(st.sampled_from(sorted(M.MUTATORS)), min_size=1,
                                         max_size=3),
       rng=st.randoms(use_true_random=False))
def test_mutations(index: int, names: list[str], rng: random.Random) -> None:
    """One to three mutators in a row (bit flips, byte replacements, insertions, deletions,
    splices, huge/small/overlong varints, payload and body surgery) on a valid file."""
    data = CORPUS[index]
    for name in names:
        data = M.MUTATORS[name](rng, data, CORPUS)
    check(data)


def test_every_mutator_changes_its_input() -> None:
    """Each mutator, on a valid file, makes a different file (for some random choices), so
    none of them silently fuzzes nothing."""
    rng = random.Random(5)
    data = max(CORPUS, key=len)
    for name, mutator in M.MUTATORS.items():
        assert any(mutator(rng, data, CORPUS) != data for _ in range(20)), name


# ---- hand-built files (format: cuda-tile.md section 4) -----------------------------------
#
# The expected messages are those of NVIDIA's reader (BytecodeReader.cpp, and tileirdisasm
# 13.5 run on these very files).  Offsets are tileir's: the file offset where the offending
# item starts.

FUNC, TYPE, STRING = 2, 5, 1
RETURN = bytes([0x5C, 0x00, 0x00])          # return: opcode, 0 results, 0 operands
FN_VOID = bytes([16, 0, 0])                 # function type () -> ()
#: What `build()` holds, printed.
MINIMAL_TEXT = "cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}"


def header(major: int = 13, minor: int = 1) -> bytes:
    """The 12-byte header of a file of version major.minor, tag 0."""
    return b"\x7fTileIR\x00" + bytes([major, minor, 0, 0])


def functions(bodies: list[bytes], count: int | None = None) -> bytes:
    """A Func payload of entries named string 0 with signature type 0, padded to 8."""
    out = bytearray(M.encode_varint(len(bodies) if count is None else count))
    for body in bodies:
        out += bytes([0, 0, 0x02, 0]) + M.encode_varint(len(body)) + body
    return bytes(out) + b"\xcb" * (-len(out) % 8)


def build(func: bytes | None = None, types: bytes | None = None,
          strings: bytes | None = None) -> bytes:
    """A 13.1 file: Func, Type and String sections (by default the module holding
    ``entry @k() { return }``), framed as NVIDIA's writer frames them."""
    return M.join_sections(header(), [
        M.Section(FUNC, 8, functions([RETURN]) if func is None else func),
        M.Section(TYPE, 4, offset_table([FN_VOID], 4) if types is None else types),
        M.Section(STRING, 4, offset_table([b"k"], 4) if strings is None else strings)])


def failure(data: bytes) -> BytecodeError:
    """The `BytecodeError` reading `data` raises (any other exception fails the test)."""
    with pytest.raises(BytecodeError) as caught:
        from_bytecode(data)
    return caught.value


def reason(err: BytecodeError) -> str:
    """The first diagnostic's message without its ``error at offset N:`` prefix."""
    return re.sub(r"^error at offset \d+: ", "", err.message)


@pytest.fixture(autouse=True)
def released_versions(monkeypatch) -> None:
    """The reader as released (13.1-13.4), whatever the environment asks."""
    monkeypatch.delenv("TILEIR_BYTECODE_VERSIONS", raising=False)


def test_minimal_file() -> None:
    """The hand-built file is valid: it reads as module ``@kernels`` (the name the reference
    reader gives every module) holding ``entry @k() { return }``, and writes back byte for
    byte."""
    data = build()
    module = from_bytecode(data)
    assert str(module).strip() == MINIMAL_TEXT
    assert to_bytecode(module, "13.1") == data


def test_debug_section_without_function_lists() -> None:
    """A Debug section listing no function but holding one attribute: each of its three
    counts is followed by padding, even when it is 0 (NVIDIA's reader skips the padding
    unconditionally, and reads this file as the plain minimal module)."""
    debug = bytes([0, 0xCB, 0xCB, 0xCB,     # 0 functions with debug info; pad to 4
                   0, 0xCB, 0xCB, 0xCB,     # 0 debug indices; pad to 8
                   1, 0xCB, 0xCB, 0xCB,     # 1 attribute; pad to 4
                   0, 0, 0, 0,              # its offset
                   0])                      # tag 0: unknown location
    data = M.join_sections(header(), [M.Section(FUNC, 8, functions([RETURN])),
                                      M.Section(3, 8, debug),
                                      M.Section(TYPE, 4, offset_table([FN_VOID], 4)),
                                      M.Section(STRING, 4, offset_table([b"k"], 4))])
    assert str(from_bytecode(data)).strip() == MINIMAL_TEXT


def test_every_truncation_of_the_minimal_file() -> None:
    """Each of its proper prefixes (the header included) is a diagnostic at an offset within
    the prefix."""
    data = build()
    for length in range(len(data)):
        err = failure(data[:length])
        assert err.offset is not None and 0 <= err.offset <= length, length


def test_unsupported_version() -> None:
    err = failure(header(18, 0))
    assert reason(err) == ("unsupported Tile version 18.0.0, this reader supports versions "
                           "[13.1 - 13.5]")
    assert err.offset == 12   # after the tag, as tileirdisasm 13.5 reports it


@pytest.mark.parametrize("head", [0x09, 0x89, 0x7F])
def test_unknown_section_id(head: int) -> None:
    err = failure(header() + bytes([head, 0x00]))
    assert reason(err) == f"unknown section ID: {head & 0x7F}"
    assert err.offset == 12


def test_section_length_past_the_end() -> None:
    """A String section claiming 32 bytes with 1 left after its length."""
    err = failure(header() + bytes([0x81, 0x20, 0x04]))
    assert reason(err) == "section length 32 exceeds remaining data size 1"
    assert err.offset == 14


def test_end_section_not_last() -> None:
    err = failure(header() + bytes([0x00, 0x01, 0x02]))
    assert reason(err) == "end section is not the last section"
    assert err.offset == 13


def test_end_section_with_alignment_flag() -> None:
    err = failure(header() + bytes([0x80]))
    assert reason(err) == "end section should not have alignment flag set"
    assert err.offset == 12


def test_truncated_section_length_varint() -> None:
    """A section length whose varint never terminates (0x80 and the end of the file)."""
    err = failure(header() + bytes([0x81, 0x80]))
    assert reason(err) == "failed to read section length"
    assert err.offset == 13


@pytest.mark.parametrize("run", [b"\xff" * 10 + b"\x01", b"\x80" * 40 + b"\x00"],
                         ids=["ff*10,01", "80*40,00"])
def test_overlong_section_length_varint(run: bytes) -> None:
    """A varint of more than 64 bits is malformed, not a huge number."""
    err = failure(header() + b"\x81" + run + b"\x04" + b"\xcb" * 64)
    assert reason(err) == "failed to read section length"
    assert err.offset == 13


def _peak_bytes(data: bytes) -> int:
    """The most memory Python allocated while failing to read `data`."""
    tracemalloc.start()
    try:
        failure(data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_absurd_function_count() -> None:
    """2^40 functions claimed in a 16-byte payload: refused before any allocation."""
    func = functions([RETURN], count=1 << 40)
    err = failure(build(func=func))
    assert reason(err) == f"number of functions (1099511627776) exceeds payload size " \
                          f"({len(func)})"
    assert err.offset == 16
    assert _peak_bytes(build(func=func)) < 1 << 20


def test_absurd_type_count() -> None:
    """2^40 types claimed: refused, citing how many 4-byte offsets the payload could hold."""
    types = M.encode_varint(1 << 40) + offset_table([FN_VOID], 4)[1:]
    data = build(types=types)
    remaining = len(types) - 6
    err = failure(data)
    assert reason(err) == (f"number of types (1099511627776) exceeds the maximum of "
                           f"{remaining // 4} that can fit in the remaining payload of "
                           f"{remaining} bytes.")
    assert _peak_bytes(data) < 1 << 20


def test_type_offset_past_the_table() -> None:
    """Two types, the second starting past the end of the blobs: refused, naming the first
    (whose span ends there), at the file offset where the blobs start."""
    table = offset_table([FN_VOID, FN_VOID], 4)
    types = table[:8] + (100).to_bytes(4, "little") + table[12:]
    data = build(types=types)
    err = failure(data)
    assert reason(err) == (f"types 0 has invalid offsets [0, 100) in a table of "
                           f"{2 * len(FN_VOID)} bytes")
    assert err.offset == data.index(types) + 12


def test_absurd_string_count() -> None:
    strings = bytes([0x40]) + offset_table([b"k"], 4)[1:]
    err = failure(build(strings=strings))
    assert reason(err) == ("number of strings (64) exceeds the maximum of 2 that can fit in "
                           "the remaining payload of 8 bytes.")


def test_type_that_is_its_own_parameter() -> None:
    """Type 0 = a function type whose parameter is type 0: a cycle, not a recursion.
    (NVIDIA's reader says only "failed to get parameter type"; tileir names the cycle.)"""
    err = failure(build(types=offset_table([bytes([16, 1, 0, 0])], 4)))
    assert reason(err) == "type 0 refers to itself"


def test_types_pointing_at_each_other() -> None:
    """Type 1 = ptr to type 2 and type 2 = ptr to type 1, used as a parameter: an error
    naming the cycle where type 2 refers back to type 1 (the payload's last byte), not a
    RecursionError."""
    types = offset_table([bytes([16, 1, 1, 0]), bytes([12, 2]), bytes([12, 1])], 4)
    data = build(types=types)
    err = failure(data)
    assert reason(err) == "type 1 refers to itself"
    assert err.offset == data.index(types) + len(types) - 1


def test_long_chain_of_types() -> None:
    """2,000 pointer types each pointing at the next (invalid, and deeper than any real
    type): an error, not a RecursionError."""
    n = 2000
    chain = [bytes([12]) + M.encode_varint(i + 1) for i in range(1, n)]
    types = offset_table([bytes([16, 1, 1, 0]), *chain, bytes([3])], 4)
    data = build(types=types)
    err = failure(data)
    assert reason(err) == "types nest more than 64 deep"
    # the byte of type 63 (a pointer) that refers to type 64: nesting 64 deep is refused
    chain_start = data.index(types) + len(types) - 1 - sum(map(len, chain))
    assert err.offset == chain_start + 2 * 62 + 1


def _nested_loops(depth: int) -> bytes:
    """A body of `depth` nested ``loop { ... break }`` ops, then return.  A loop record:
    opcode 0x41, 0 results, 0 operands, 1 region, 1 block, 0 arguments, its op count."""
    loop = bytes([0x41, 0x00, 0x00, 0x01, 0x01, 0x00])
    brk = bytes([0x0A, 0x00, 0x00])
    return (loop + b"\x02") * (depth - 1) + loop + b"\x01" + brk * depth + RETURN


@pytest.mark.parametrize("depth", [1, 64, 256])
def test_nested_regions_read(depth: int) -> None:
    """Ops nested in up to 256 regions (tileir's limit) print and write back byte for
    byte."""
    data = build(func=functions([_nested_loops(depth)]))
    module = from_bytecode(data)
    assert str(module).count("loop {") == depth
    assert to_bytecode(module, "13.1") == data


@pytest.mark.parametrize("depth", [257, 5000])
def test_nested_regions_too_deep(depth: int) -> None:
    """Deeper nesting is refused at the first op inside 257 regions (the 7-byte head of
    the 257th loop ends there), not by a RecursionError."""
    body = _nested_loops(depth)
    data = build(func=functions([body]))
    err = failure(data)
    assert err.offset == data.index(body) + 7 * 257


def _splat_constant_file(dims: list[int]) -> bytes:
    """``entry @k() { constant <i32: 7> : tile<dims x i32>; return }``: the constant a
    4-byte splat, the tile type's dims as written (any i64)."""
    tile = bytes([13, 1, len(dims)]) + b"".join(
        (d & ((1 << 64) - 1)).to_bytes(8, "little") for d in dims)
    body = bytes([0x10, 2, 0]) + RETURN     # constant: opcode, result type 2, constant 0
    return M.join_sections(header(), [
        M.Section(FUNC, 8, functions([body])),
        M.Section(4, 8, offset_table([bytes([4, 7, 0, 0, 0])], 8)),
        M.Section(TYPE, 4, offset_table([FN_VOID, bytes([3]), tile], 4)),
        M.Section(STRING, 4, offset_table([b"k"], 4))])


@pytest.mark.parametrize("dims, message", [
    ([1 << 40], "tile would exceed the maximum of 16777216 elements"),
    ([1 << 20, 1 << 20], "tile would exceed the maximum of 16777216 elements"),
    ([1 << 25], "tile would exceed the maximum of 16777216 elements"),
    ([-1], "all dimensions must be positive constants, got -1"),
    ([0], "all dimensions must be positive constants, got 0"),
])
def test_absurd_tile_shape(dims: list[int], message: str) -> None:
    """A tile type too large or with a bad dimension is refused where it is decoded, before
    anything is allocated for its elements."""
    data = _splat_constant_file(dims)
    assert reason(failure(data)) == message
    assert _peak_bytes(data) < 1 << 20


def test_largest_splat_constant_is_not_expanded() -> None:
    """A 2^24-element splat constant (the largest tile) reads from 4 bytes of data without
    allocating its 64 MiB."""
    data = _splat_constant_file([1 << 24])
    tracemalloc.start()
    try:
        text = str(from_bytecode(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "%cst_7_i32 = constant <i32: 7> : tile<16777216xi32>" in text
    assert peak < 8 << 20
