"""Bytecode against NVIDIA's tools: cuTile exports our kernels, tileirdisasm prints them.

For every kernel of kernels.py at 13.1, 13.3 and 13.4: our reader prints exactly what
tileirdisasm prints (with and without `-g`), our writer gives back the same bytes, and
tileiras compiles what our writer wrote. Skipped when the `oracles` extra is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import corpus
import tileir
from tileir import TileIRError

try:
    import kernels
except ImportError:  # cuda-tile is an optional extra; every test below then skips
    kernels = None

CASES = [(k.name, v) for k in kernels.KERNELS for v in k.versions] if kernels else []
REJECTED = [(k.name, v) for k in kernels.REJECTED for v in k.versions] if kernels else []
# 13.1 files are exported for sm_90; 13.3+ files are architecture-independent. tileiras takes
# 0.1-0.8 s a file, so sm_100 (Blackwell) compiles only the newest version of each kernel.
ARCHS = {"13.1": ("sm_90",), "13.3": ("sm_90",), "13.4": ("sm_90", "sm_100")}
COMPILES = [(name, v, arch) for name, v in CASES for arch in ARCHS[v]]
NO_CASES = [("(cuda-tile not installed)", "-")]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The exported corpus (built once per session, cached across sessions)."""
    why = corpus.missing()
    if why is not None:
        pytest.skip(why)
    return corpus.build()


def entry(corpus_dir: Path, name: str, version: str) -> corpus.Entry:
    """The corpus entry of one kernel at one version."""
    return corpus.Entry(name, version, corpus_dir)


def diff_at(expected: str, actual: str) -> str:
    """The first line that differs, for an assertion message."""
    ours, theirs = actual.splitlines(), expected.splitlines()
    for number, (a, b) in enumerate(zip(ours, theirs), 1):
        if a != b:
            return f"line {number}:\n  tileirdisasm: {b}\n  tileir:       {a}"
    return f"line counts differ: tileirdisasm {len(theirs)}, tileir {len(ours)}"


def first_byte_difference(expected: bytes, actual: bytes) -> str:
    """The first differing byte offset, for an assertion message."""
    for offset, (a, b) in enumerate(zip(actual, expected)):
        if a != b:
            return f"offset {offset}: cuTile 0x{b:02x}, tileir 0x{a:02x}"
    return f"lengths differ: cuTile {len(expected)}, tileir {len(actual)}"


def disassembled(data: bytes, debuginfo: bool = False) -> str:
    """The file read and printed as tileirdisasm prints it: the module's items only."""
    module = tileir.from_bytecode(data)
    module.spelling = "bare"
    return module.format(debuginfo=debuginfo)


#: What each printing test counts: tileirdisasm's plain text, or its `-g` text.
PRINTED = {False: "oracle files printed as tileirdisasm prints them",
           True: "oracle files printed as tileirdisasm -g prints them"}


@pytest.mark.parametrize("debuginfo", [False, True], ids=["plain", "g"])
@pytest.mark.parametrize("name,version", CASES or NO_CASES)
def test_reader_prints_what_tileirdisasm_prints(corpus_dir: Path, name: str, version: str,
                                                debuginfo: bool, tally) -> None:
    """Reading the file and printing it gives tileirdisasm's text byte for byte; with debug
    info, `tileirdisasm -g`'s, locations included."""
    item = entry(corpus_dir, name, version)
    expected = item.debug_text if debuginfo else item.text
    text = disassembled(item.bytecode, debuginfo)
    assert text == expected, diff_at(expected, text)
    tally(PRINTED[debuginfo], 1)


@pytest.mark.parametrize("name,version", CASES or NO_CASES)
def test_writer_gives_back_cutile_bytes(corpus_dir: Path, name: str, version: str,
                                        tally) -> None:
    """Reading then writing at the file's version reproduces cuTile's bytes exactly."""
    item = entry(corpus_dir, name, version)
    data = item.bytecode
    written = tileir.from_bytecode(data).to_bytecode(version)
    assert written == data, first_byte_difference(data, written)
    tally("oracle files written back byte-identically", 1)


@pytest.mark.parametrize("name,version,arch", COMPILES or [NO_CASES[0] + ("-",)])
def test_tileiras_compiles_what_we_write(corpus_dir: Path, tmp_path: Path, name: str,
                                         version: str, arch: str, tally) -> None:
    """tileiras turns our writer's output into a non-empty ELF cubin for the architecture:
    bytecode written from the tileirdisasm text with debug info, in the reference writer's
    layout (so not cuTile's bytes)."""
    item = entry(corpus_dir, name, version)
    source = tmp_path / f"{item.stem}.tileirbc"
    written = tileir.parse(item.debug_text).to_bytecode(version)
    assert written != item.bytecode       # tileir's own layout, not a copy of cuTile's file
    source.write_bytes(written)
    cubin = tmp_path / f"{item.stem}.{arch}.cubin"
    done = corpus.compile_cubin(source, arch, cubin)
    assert done.returncode == 0, f"tileiras rc {done.returncode}: {done.stderr}"
    assert cubin.read_bytes()[:4] == b"\x7fELF"
    tally(f"tileiras compiles of our bytecode ({arch})", 1)


#: The versions of the corpus kernel whose tiled-view atomics (`TiledView.atomic_store_add`,
#: `_max`, `_xor`) cuTile lowers to atomic_red_view_tko records (13.3+).
VIEW_ATOMICS = [v for k in kernels.KERNELS if k.name == "view_atomics"
                for v in k.versions] if kernels else []


@pytest.mark.parametrize("version", VIEW_ATOMICS or ["-"])
def test_view_atomics_are_written_back_as_cutile_wrote_them(corpus_dir: Path, tmp_path: Path,
                                                            version: str, tally) -> None:
    """cuTile's atomic_red_view_tko records (flags bit 0 = the token, memory_scope always
    written) are read and written back to cuTile's bytes, and NVIDIA's disassembler and
    its compiler for sm_100 take the bytes we wrote."""
    item = entry(corpus_dir, "view_atomics", version)
    assert item.text.count("= atomic_red_view_tko relaxed device %") == 3
    written = tileir.from_bytecode(item.bytecode).to_bytecode(version)
    assert written == item.bytecode, first_byte_difference(item.bytecode, written)
    source = tmp_path / f"{item.stem}.tileirbc"
    source.write_bytes(written)
    done = corpus.run_tool("tileirdisasm", str(source))
    assert done.returncode == 0, f"tileirdisasm rc {done.returncode}: {done.stderr}"
    assert done.stdout == item.text
    cubin = tmp_path / f"{item.stem}.sm_100.cubin"
    done = corpus.compile_cubin(source, "sm_100", cubin)
    assert done.returncode == 0, f"tileiras rc {done.returncode}: {done.stderr}"
    assert cubin.read_bytes()[:4] == b"\x7fELF"
    tally("tiled-view atomics written back byte-identically and compiled for sm_100", 1)


@pytest.mark.parametrize("name,version", CASES or NO_CASES)
def test_tileirdisasm_text_parses_and_prints_back(corpus_dir: Path, name: str, version: str,
                                                   tally) -> None:
    """tileirdisasm's text (plain and -g) parses, verifies and prints back unchanged, and
    goes through our bytecode and back to the same text."""
    item = entry(corpus_dir, name, version)
    for text, debuginfo in ((item.text, False), (item.debug_text, True)):
        module = tileir.parse(text)
        assert module.format(debuginfo=debuginfo) == text
        again = tileir.from_bytecode(module.to_bytecode(version))
        again.spelling = "bare"
        assert again.format(debuginfo=debuginfo) == text
    tally("tileirdisasm texts parsed, printed and passed through our bytecode", 2)


@pytest.mark.parametrize("name,version", REJECTED or NO_CASES)
def test_reader_rejects_what_tileirdisasm_rejects(corpus_dir: Path, name: str, version: str,
                                                  tally) -> None:
    """A file NVIDIA's verifier refuses is refused by ours, with the same message."""
    item = entry(corpus_dir, name, version)
    message = corpus.first_error(item.rejection)
    assert message, f"tileirdisasm gave no error line: {item.rejection!r}"
    with pytest.raises(TileIRError) as caught:
        tileir.from_bytecode(item.bytecode)
    assert message.split(" op ", 1)[-1] in str(caught.value)
    tally("oracle files rejected as tileirdisasm rejects them", 1)


def test_corpus_covers_every_kernel_and_version(corpus_dir: Path, tally, request) -> None:
    """Every kernel was exported at every version and tileirdisasm read each file."""
    names = {k.name for k in kernels.KERNELS}
    assert len(names) == len(kernels.KERNELS) >= 12
    found = sorted(p.name for p in corpus_dir.glob("*.tileirbc"))
    expected = sorted(f"{n}.v{v}.tileirbc" for n, v in CASES + REJECTED)
    assert found == expected
    for item in corpus.entries(corpus_dir):
        assert "\nentry @" in "\n" + item.text, item.stem
        assert "\nentry @" in "\n" + item.debug_text, item.stem
    versions = ", ".join(f"{t}: {corpus.tool_version(t)}" for t in corpus.TOOLS)
    request.node.user_properties.append(("summary", (
        "bytecode oracle corpus",
        f"{len(names)} kernels, {len(CASES)} files at 13.1, 13.3 and 13.4 "
        f"(+{len(REJECTED)} NVIDIA rejects) in {corpus_dir}\n{versions}")))
    tally("oracle bytecode files exported and disassembled", len(found))


@pytest.mark.parametrize("name", [k.name for k in kernels.KERNELS] if kernels else
                         [NO_CASES[0][0]])
def test_launch_description_is_well_formed(name: str, tally) -> None:
    """Inputs cover the in/inout arrays and the reference gives the out/inout arrays, with
    the declared shapes and dtypes (the interpreter runs kernels from this description)."""
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    import numpy as np

    launch = next(k for k in kernels.KERNELS if k.name == name).launch
    arrays = {a.name: a for a in launch.args if a.role != "scalar"}
    inputs = launch.inputs(np.random.default_rng(0))
    expected = launch.reference(inputs)
    assert sorted(inputs) == sorted(n for n, a in arrays.items() if a.role in ("in", "inout"))
    assert sorted(expected) == sorted(n for n, a in arrays.items() if a.role in ("out", "inout"))
    for values in (inputs, expected):
        for key, value in values.items():
            assert (value.shape, value.dtype.name) == (arrays[key].shape, arrays[key].dtype), key
    assert all(a.value is not None for a in launch.args if a.role == "scalar")
    assert len(launch.grid) == 3 and all(g >= 1 for g in launch.grid)
    tally("oracle launch descriptions checked", 1)
