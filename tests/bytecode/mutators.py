"""Seeds, mutators and the robustness property shared by the bytecode fuzz test
(`test_fuzz.py`, driven by hypothesis) and the long campaign (`fuzz_campaign.py`, driven by
plain `random`), and the bytecode framing written independently of tileir (varints, section
framing, offset tables) that the tests building files by hand use too.

A mutator takes a `random.Random`-like object, the bytes to mutate and the whole corpus (for
splices) and returns new bytes.  `read_outcome` reads one input and says what happened:
``"module"`` or the class of the `TileIRError` raised; any other exception propagates (that is
a crash of the reader), as does a broken diagnostic (`DiagnosticProblem`) or a module that
does not survive being written and read again (`RoundTripProblem`).
"""

from __future__ import annotations

import functools
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import tileir
from tileir.bytecode import from_bytecode, to_bytecode
from tileir.bytecode.encoding import ReadError
from tileir.versions import TESTING, supported_versions
from tileir.diagnostics import TileIRError

REPO = Path(__file__).resolve().parents[2]
#: ../shared, located as tests/conftest.py does.
SHARED = Path(os.environ.get("TILEIR_SHARED", REPO.parent / "shared"))
FIXTURES_13_1 = SHARED / "conformance/cuda-tile/test/Bytecode/versioning/Inputs/13.1"
#: The valid bytecode files of the reference suite used as seeds.
SHARED_FIXTURES = ("negi-op-13.1.tileirbc", "print-op-13.1.tileirbc")
ARTIFACTS = SHARED / "reference" / "artifacts"
KERNELS = REPO / "src" / "tileir" / "examples" / "kernels"
#: The versions the shipped example kernels are written at to make seeds.
SEED_VERSIONS = ("13.1", "13.3", "13.4")

Mutator = Callable[[random.Random, bytes, Sequence[bytes]], bytes]


@dataclass(frozen=True)
class Seed:
    """One valid file of the corpus: where it came from and its bytes."""

    name: str
    data: bytes


# ---- seeds --------------------------------------------------


def shared_seeds() -> list[Seed]:
    """The valid .tileirbc files of ../shared (NVIDIA's fixtures and cuTile's exports);
    empty when ../shared is absent."""
    paths = [FIXTURES_13_1 / name for name in SHARED_FIXTURES]
    paths += sorted(ARTIFACTS.glob("*.tileirbc")) if ARTIFACTS.is_dir() else []
    return [Seed(p.name, p.read_bytes()) for p in paths if p.is_file()]


def kernel_seeds() -> list[Seed]:
    """Bytecode tileir's writer makes of the shipped example kernels at each seed version
    (a kernel using a feature newer than a version is left out at that version)."""
    seeds = []
    for path in sorted(KERNELS.glob("*.mlir")):
        module = tileir.parse(path.read_text(), str(path))
        for version in SEED_VERSIONS:
            try:
                data = to_bytecode(module, version)
            except TileIRError:
                continue
            seeds.append(Seed(f"{path.stem}@{version}", data))
    return seeds


def all_seeds() -> list[Seed]:
    """Every seed: the shared files (when present) and the written example kernels."""
    return shared_seeds() + kernel_seeds()


# ---- mutators --------------------------------------------------

#: Values a mutated varint takes: past every count and index limit, the 32-bit and 64-bit
#: edges, and the largest values a 10-byte varint holds.
HUGE_VALUES = (1 << 31, (1 << 32) - 2, (1 << 32) - 1, 1 << 32, 1 << 40, (1 << 63) - 1,
               1 << 63, (1 << 64) - 1)
#: Small values that land on real (and just out of range) indices, tags and counts.
SMALL_VALUES = tuple(range(0, 24)) + (127, 128, 200, 255, 256, 1000)
#: Byte values worth trying in place of a random one.
INTERESTING_BYTES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xCB, 0xFF)


def encode_varint(value: int) -> bytes:
    """`value` (any size) as LEB128, the format's varint."""
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def varint_run(data: bytes, start: int) -> tuple[int, int]:
    """The span [start, end) of the varint that would be read at `start` (to the end of
    the data when it never terminates)."""
    end = start
    while end < len(data) and data[end] & 0x80:
        end += 1
    return start, min(end + 1, len(data))


def truncate(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """A prefix of any length shorter than the file."""
    return data[:rng.randrange(len(data))] if data else data


def flip_bits(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """1 to 8 single-bit flips."""
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def replace_bytes(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """1 to 8 bytes replaced, half of them by an interesting value, half at random."""
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        value = rng.choice(INTERESTING_BYTES) if rng.randrange(2) else rng.randrange(256)
        out[rng.randrange(len(out))] = value
    return bytes(out)


def splice(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """A prefix of this file followed by a suffix of a corpus file (possibly itself)."""
    other = rng.choice(corpus) if corpus else data
    return data[:rng.randint(0, len(data))] + other[rng.randint(0, len(other)):]


def insert_bytes(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """1 to 4 random bytes inserted at one position."""
    at = rng.randint(0, len(data))
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    return data[:at] + junk + data[at:]


def delete_bytes(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """1 to 4 consecutive bytes deleted."""
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randint(1, 4):]


def _set_varint(rng: random.Random, data: bytes, values: Sequence[int]) -> bytes:
    """The varint-looking run at a random position replaced by one of `values`."""
    if not data:
        return data
    start, end = varint_run(data, rng.randrange(len(data)))
    return data[:start] + encode_varint(rng.choice(values)) + data[end:]


def huge_varint(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """A varint-looking byte run set to a huge value (absurd counts, lengths, indices)."""
    return _set_varint(rng, data, HUGE_VALUES)


def small_varint(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """A varint-looking byte run set to a small value (wrong tags, indices, counts)."""
    return _set_varint(rng, data, SMALL_VALUES)


def overlong_varint(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """A varint-looking byte run replaced by 9 to 20 continuation bytes then a stop byte
    (a varint longer than 64 bits)."""
    if not data:
        return data
    start, end = varint_run(data, rng.randrange(len(data)))
    run = bytes([0xFF] * rng.randint(9, 20)) + bytes([rng.randrange(128)])
    return data[:start] + run + data[end:]


# ---- mutators that keep the section framing valid --------------------------------------
#
# Byte-level mutations mostly break the framing (a length, an id), so the reader stops early.
# These split a file into its sections (format: cuda-tile.md section 4.3), mutate one payload
# and frame it again with the right length and padding, so the tables and bodies get fuzzed.

HEADER_SIZE = 12
#: The magic number every file starts with.
MAGIC = b"\x7fTileIR\x00"


@dataclass
class Section:
    """One section of a file: its id and its alignment (1: the flag is clear)."""

    ident: int
    alignment: int
    payload: bytes


def split_sections(data: bytes) -> list[Section] | None:
    """The sections of a well-framed file, else None (no reader checks beyond framing)."""
    pos, found = HEADER_SIZE, []
    while pos < len(data):
        head = data[pos]
        pos += 1
        if head == 0:
            return found if pos == len(data) else None
        length, pos = _read_varint(data, pos)
        alignment = 1
        if head & 0x80:
            alignment, pos = _read_varint(data, pos)
            if alignment < 1 or alignment > 64:
                return None
            pos += -pos % alignment
        if length is None or pos + length > len(data):
            return None
        found.append(Section(head & 0x7F, alignment, data[pos:pos + length]))
        pos += length
    return None


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The LEB128 value at `pos` and the position after it (a truncated one reads as what
    it has)."""
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return value, pos


def join_sections(header: bytes, sections: Sequence[Section]) -> bytes:
    """A file of `header` and `sections`, framed with the right lengths and padding."""
    out = bytearray(header)
    for section in sections:
        aligned = section.alignment > 1
        out.append(section.ident | (0x80 if aligned else 0))
        out += encode_varint(len(section.payload))
        if aligned:
            out += encode_varint(section.alignment)
            out += b"\xcb" * (-len(out) % section.alignment)
        out += section.payload
    out.append(0)
    return bytes(out)


def entry_file(body: bytes, types: list[bytes], constants: Sequence[bytes] = (),
               strings: Sequence[bytes] = (b"k",), version: int = 4, hints: bytes = b"",
               signature: int = 0) -> bytes:
    """A 13.`version` file with one entry `k` (string 0, signature type `signature`) whose
    body is `body`, in the reference writer's section order."""
    flags = 0x06 if hints else 0x02
    func = encode_varint(1) + encode_varint(0) + encode_varint(signature) + bytes([flags]) + \
        encode_varint(0) + hints + encode_varint(len(body)) + body
    sections = [Section(2, 8, func + b"\xcb" * (-len(func) % 8))]
    if constants:
        sections.append(Section(4, 8, offset_table([encode_varint(len(c)) + c
                                                     for c in constants], 8)))
    sections += [Section(5, 4, offset_table(types, 4)),
                 Section(1, 4, offset_table(list(strings), 4))]
    return join_sections(MAGIC + bytes([13, version, 0, 0]), sections)


def offset_table(blobs: list[bytes], width: int) -> bytes:
    """A String/Type table payload: count, padding, `width`-byte start offsets, blobs."""
    out = bytearray(encode_varint(len(blobs)))
    out += b"\xcb" * (-len(out) % width)
    position = 0
    for blob in blobs:
        out += position.to_bytes(width, "little")
        position += len(blob)
    return bytes(out) + b"".join(blobs)


#: What may be done to one payload: the byte-level mutators above.
PAYLOAD_MUTATORS = ("truncate", "flip_bits", "replace_bytes", "insert_bytes",
                    "delete_bytes", "huge_varint", "small_varint", "overlong_varint")


def mutate_payload(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """One section payload mutated by a byte-level mutator, the framing kept valid."""
    sections = split_sections(data)
    if not sections:
        return flip_bits(rng, data, corpus)
    section = rng.choice(sections)
    name = rng.choice(PAYLOAD_MUTATORS)
    section.payload = MUTATORS[name](rng, section.payload, corpus)
    return join_sections(data[:HEADER_SIZE], sections)


def swap_section(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """One section replaced by the section of the same id from another file (tables and
    bodies that do not belong together: indices out of range, wrong kinds)."""
    sections = split_sections(data)
    others = [s for other in corpus for s in split_sections(other) or []]
    if not sections or not others:
        return flip_bits(rng, data, corpus)
    i = rng.randrange(len(sections))
    same = [s for s in others if s.ident == sections[i].ident] or others
    sections[i] = rng.choice(same)
    return join_sections(data[:HEADER_SIZE], sections)


def reshuffle_sections(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """Sections dropped, duplicated or reordered, each still well framed."""
    sections = split_sections(data)
    if not sections:
        return flip_bits(rng, data, corpus)
    action = rng.randrange(3)
    i = rng.randrange(len(sections))
    if action == 0:
        del sections[i]
    elif action == 1:
        sections.insert(rng.randint(0, len(sections)), sections[i])
    else:
        rng.shuffle(sections)
    return join_sections(data[:HEADER_SIZE], sections)


def split_functions(payload: bytes) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
    """The Func section payload as (entry head up to the body length, body) per function and
    the bytes after the last one; None when a function has hints (their length is only known
    by decoding them) or the table is malformed."""
    count, pos = _read_varint(payload, 0)
    functions = []
    for _ in range(count):
        start = pos
        for _ in range(2):              # name, signature
            _, pos = _read_varint(payload, pos)
        if pos >= len(payload) or payload[pos] & 0x04:
            return None
        _, pos = _read_varint(payload, pos + 1)   # flags byte, debug index
        head = payload[start:pos]
        length, pos = _read_varint(payload, pos)
        if pos + length > len(payload):
            return None
        functions.append((head, payload[pos:pos + length]))
        pos += length
    return functions, payload[pos:]


@functools.lru_cache(maxsize=256)
def _body_spans(data: bytes) -> tuple[tuple[int, int, int], ...] | None:
    """(entry start, body start, body end) of each function, relative to the Func payload,
    as tileir's reader finds them (the only way past optimization hints, whose size only
    decoding tells); None when that fails (the file is already broken)."""
    from tileir.bytecode.encoding import Source
    from tileir.bytecode.reader import Reader
    from tileir.bytecode.sections import CONSTANT, FUNC, STRING, TYPE
    try:
        reader = Reader(data)
        source = Source(reader.data)
        reader._header(source)
        payloads = reader._sections(source)
        reader._strings(*payloads[STRING])
        reader._types(*payloads.get(TYPE, (len(data), len(data))))
        if CONSTANT in payloads:
            reader._constants(*payloads[CONSTANT])
        infos = reader._function_table(*payloads[FUNC])
    except Exception:       # any failure just means: no spans
        return None
    base = payloads[FUNC][0]
    return tuple((i["at"] - base, i["body"][0] - base, i["body"][1] - base) for i in infos)


def split_hinted_functions(data: bytes, payload: bytes
                           ) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
    """`split_functions` for a Func payload whose functions may have hints, using the spans
    tileir's reader finds in the whole file `data`."""
    spans = _body_spans(data)
    if not spans:
        return None
    functions = []
    for at, start, end in spans:
        length = encode_varint(end - start)
        if payload[start - len(length):start] != length:
            return None             # a length written with a redundant varint byte
        functions.append((payload[at:start - len(length)], payload[start:end]))
    return functions, payload[spans[-1][2]:]


def mutate_body(rng: random.Random, data: bytes, corpus: Sequence[bytes]) -> bytes:
    """The body of one function mutated byte-wise, its length and every framing around it
    kept valid, so that the op records themselves get fuzzed."""
    sections = split_sections(data)
    funcs = [s for s in sections or [] if s.ident == 2]
    table = (split_functions(funcs[-1].payload) or
             split_hinted_functions(data, funcs[-1].payload)) if funcs else None
    if not table or not table[0]:
        return mutate_payload(rng, data, corpus)
    functions, _ = table
    i = rng.randrange(len(functions))
    head, body = functions[i]
    functions[i] = (head, MUTATORS[rng.choice(PAYLOAD_MUTATORS)](rng, body, corpus))
    payload = bytearray(encode_varint(len(functions)))
    for head, body in functions:
        payload += head + encode_varint(len(body)) + body
    payload += b"\xcb" * (-len(payload) % 8)
    funcs[-1].payload = bytes(payload)
    return join_sections(data[:HEADER_SIZE], sections)  # type: ignore[arg-type]


#: Every mutator, by name (the campaign reports counts under these names).
MUTATORS: dict[str, Mutator] = {
    "truncate": truncate, "flip_bits": flip_bits, "replace_bytes": replace_bytes,
    "splice": splice, "insert_bytes": insert_bytes, "delete_bytes": delete_bytes,
    "huge_varint": huge_varint, "small_varint": small_varint,
    "overlong_varint": overlong_varint, "mutate_payload": mutate_payload,
    "swap_section": swap_section, "reshuffle_sections": reshuffle_sections,
    "mutate_body": mutate_body,
}
#: How often `mutate` picks each mutator: the framing-preserving ones weigh more, since
#: they reach past the section framing into the tables and the op records.
WEIGHTS: dict[str, int] = {name: 1 for name in MUTATORS} | {
    "mutate_payload": 5, "mutate_body": 5, "swap_section": 2}
_WEIGHTED = tuple(name for name, weight in sorted(WEIGHTS.items()) for _ in range(weight))


def mutate(rng: random.Random, data: bytes, corpus: Sequence[bytes],
           rounds: int) -> tuple[bytes, list[str]]:
    """`rounds` mutators in a row, chosen at random by `WEIGHTS`; the result and their
    names."""
    names = []
    for _ in range(rounds):
        name = rng.choice(_WEIGHTED)
        data = MUTATORS[name](rng, data, corpus)
        names.append(name)
    return data, names


# ---- the property --------------------------------------------------


class DiagnosticProblem(AssertionError):
    """A `TileIRError` that is not a usable diagnostic (empty message, offset off the file)."""


def check_error(err: TileIRError, data: bytes | None) -> None:
    """An error must say something and, when it comes from reading `data` and names a byte
    offset, one inside the file (the end included)."""
    if not str(err).strip() or not err.message.strip():
        raise DiagnosticProblem(f"{type(err).__name__} with an empty message")
    if data is None:
        return
    offset = getattr(err, "offset", None)
    if offset is not None and not (isinstance(offset, int) and 0 <= offset <= len(data)):
        raise DiagnosticProblem(f"offset {offset!r} outside a {len(data)}-byte file: {err}")


def category(err: TileIRError) -> str:
    """A short class of an error for tallies: the first word of its reason (the message
    after ``error at offset N:``), or ``verify`` for a module the verifier refused."""
    if isinstance(err, ReadError):
        words = err.reason.split()
        return words[0] if words else "<empty>"
    return "verify" if len(err.diagnostics) > 1 or "verif" in str(err) else \
        (err.message.split() or ["<empty>"])[0]


def shape(err: TileIRError) -> str:
    """The reason of an error with its numbers blanked, to group like errors."""
    text = err.reason if isinstance(err, ReadError) else err.diagnostics[-1].message
    return re.sub(r"-?\d+", "N", text)[:90]


def read_outcome(data: bytes, verify: bool = True) -> tuple[str, TileIRError | None]:
    """Read `data` as the tools do (verified); for a module, also print it, write it back
    at its file's version keeping the file's layout and at every release without it, and
    read each written file again (it must print the same).  ``("module", None)`` or
    ``(category, error)``; any exception other than a `TileIRError` propagates.  With
    ``verify=False`` the module is not verified before it is printed and written (what a
    caller skipping verification gets)."""
    try:
        module = from_bytecode(data, verify=verify)
    except TileIRError as err:
        check_error(err, data)
        return category(err), err
    text = str(module)
    version = module.bytecode_layout.version  # type: ignore[attr-defined]
    targets = [(version, True)] + [(v, False) for v in supported_versions() if v not in TESTING]
    for target, keep_layout in targets:
        try:
            written = to_bytecode(module, target, keep_layout=keep_layout)
        except TileIRError as err:   # a module the writer refuses: fine, if it says why
            check_error(err, None)
            continue
        check_reread(written, text, f"at {target}, keep_layout={keep_layout}", verify)
    return "module", None


class RoundTripProblem(AssertionError):
    """A module read from (mutated) bytecode, written back, reads back differently."""


def check_reread(written: bytes, text: str, how: str, verify: bool) -> None:
    """What the writer made of a read module (`how`: at which version, with which layout)
    must read back (verified as it was) to the same text."""
    try:
        again = str(from_bytecode(written, verify=verify))
    except TileIRError as err:
        raise RoundTripProblem(f"written {how}, it does not read back: {err}") from None
    if again != text:
        raise RoundTripProblem(f"written {how}, it reads back as different text")
