"""Bytecode 13.5 against NVIDIA's tools (cuTile Python 1.7.0's 13.5 writer, tileirdisasm and
tileiras 13.5).

- The corpus kernels of kernels.py exported at 13.5 (cuTile marks its 13.5 writer dev-only;
  the export enables it): our reader prints what tileirdisasm prints, with and without -g,
  our writer gives back cuTile's bytes, and tileiras compiles what we write for sm_100.
- Multimem kernels written with cuTile's 13.5 encoders (cuTile Python has no multimem API):
  the same three checks, and for invalid ones, our verifier's message is tileirdisasm's.
- Headers and function records tileirdisasm refuses: our reader refuses them with its words.

Skipped when the `oracles` extra is missing.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import pytest

import corpus
import tileir
from tileir import TileIRError
from tileir.bytecode import BytecodeError

try:
    import kernels
except ImportError:  # cuda-tile is an optional extra; every test below then skips
    kernels = None

NAMES = [k.name for k in kernels.KERNELS] if kernels else ["(cuda-tile not installed)"]


@pytest.fixture(scope="session")
def corpus_13_5() -> Path:
    """The corpus kernels exported at 13.5 and disassembled (cached like `corpus.build`)."""
    why = corpus.missing()
    if why is not None:
        pytest.skip(why)
    import cuda.tile._compile as compile_
    key = hashlib.sha256((corpus.cache_key() + Path(__file__).read_text()).encode())
    directory = Path(tempfile.gettempdir()) / "tileir-oracles-13.5" / key.hexdigest()[:16]
    if not (directory / "done").exists():
        directory.mkdir(parents=True, exist_ok=True)
        enabled = compile_.dev_features_enabled
        compile_.dev_features_enabled = lambda: True      # cuTile's 13.5 writer is dev-only
        try:
            for kernel in kernels.KERNELS:
                corpus.export(kernel.function, kernel.parameters, "13.5",
                              directory / f"{kernel.name}.v13.5.tileirbc")
        finally:
            compile_.dev_features_enabled = enabled
        for kernel in kernels.KERNELS:
            corpus.disassemble(corpus.Entry(kernel.name, "13.5", directory))
        (directory / "done").write_text("")
    return directory


def _printed(data: bytes, debuginfo: bool = False) -> str:
    module = tileir.from_bytecode(data)
    module.spelling = "bare"
    return module.format(debuginfo=debuginfo)


@pytest.mark.parametrize("name", NAMES)
def test_corpus_at_13_5(corpus_13_5: Path, tmp_path: Path, name: str, tally) -> None:
    item = corpus.Entry(name, "13.5", corpus_13_5)
    data = item.bytecode
    assert data[8:12] == bytes([13, 5, 0, 0])
    assert _printed(data) == item.text
    assert _printed(data, True) == item.debug_text
    assert tileir.from_bytecode(data).to_bytecode("13.5") == data
    _written_back_and_compiled(item.debug_text, tmp_path)
    tally("13.5 corpus files printed, written back and compiled (sm_100)", 1)


def _written_back_and_compiled(text: str, tmp_path: Path) -> None:
    """tileirdisasm's `-g` text parsed and written by tileir at 13.5: tileirdisasm prints it
    back as it was, and tileiras compiles it for sm_100."""
    source = tmp_path / "ours.tileirbc"
    source.write_bytes(tileir.parse(text).to_bytecode("13.5"))
    done = corpus.run_tool("tileirdisasm", "-g", str(source))
    assert done.returncode == 0, done.stderr
    assert done.stdout == text
    cubin = tmp_path / "k.cubin"
    done = corpus.compile_cubin(source, "sm_100", cubin)
    assert done.returncode == 0, f"tileiras rc {done.returncode}: {done.stderr}"
    assert cubin.read_bytes()[:4] == b"\x7fELF"


# ---- multimem kernels written with cuTile's 13.5 encoders ---------------------------------


def _multimem_file(body, element: str = "F32", ptr_attr: bytes | None = b"\x02",
                   tile: tuple[int, ...] = (16,), shape: tuple[int, ...] = (64,),
                   strides: tuple[int, ...] = (1,)) -> bytes:
    """An entry over one pointer (with `ptr_attr`: 1 unicast, 2 multicast) whose body makes
    a tensor_view and a partition_view, an index, a value tile, then calls `body(ctx)`; with
    debug info (a subprogram and a location per op), as cuTile writes kernels."""
    import cuda.tile._bytecode as bc
    from cuda.tile._bytecode import encodings as E
    from cuda.tile._bytecode.type_base import PtrAttr

    class Attr:
        """A ptr_attr value cuTile's PtrAttr enum lacks (13.5's unicast and multicast)."""
        def __init__(self, value: bytes) -> None:
            self._value_ = value

    buf = bytearray()
    with bc.write_bytecode(1, buf, bc.BytecodeVersion.V_13_5) as w:
        types = w.type_table
        element_type = types.simple(getattr(bc.SimpleType, element))
        attr = Attr(ptr_attr) if ptr_attr is not None else PtrAttr.Missing
        pointer = types.tile(types.pointer(element_type, attr), ())
        tensor_view = types.tensor_view(element_type, list(shape), list(strides), attr)
        view = types.partition_view(list(tile), tensor_view, list(range(len(tile))),
                                    bc.PaddingValue.Missing)
        tile_type = types.tile(element_type, list(tile))
        debug = w.debug_attr_table
        file = debug.file("k.py", "/src")
        subprogram = debug.subprogram(file, 1, "k", "k", debug.compile_unit(file), 1)
        with w.function("k", [pointer], [], True, {}, debug.loc(subprogram, "/src/k.py", 1, 0)
                        ) as fb:
            cb = fb.code_builder
            with cb.debug_attr(debug.loc(subprogram, "/src/k.py", 2, 4)):
                made = E.encode_MakeTensorViewOp(cb, tensor_view, fb.parameters[0], [], [])
                ctx = {"cb": cb, "E": E, "tile": tile_type, "token": types.Token,
                       "view": E.encode_MakePartitionViewOp(cb, view, made)}
                index = E.encode_ConstantOp(cb, types.tile(types.I32, ()), bytes(4))
                ctx["index"] = [index] * len(tile)
                count = 1
                for extent in tile:
                    count *= extent
                width = {"F32": 4, "F16": 2, "I32": 4, "I8": 1, "F64": 8}[element]
                ctx["value"] = E.encode_ConstantOp(cb, tile_type, bytes(width * count))
                body(ctx)
                E.encode_ReturnOp(cb, [])
    return bytes(buf)


def _all_three(ctx, reduction: str = "ADD", order: str = "WEAK") -> None:
    """A load-reduce, a reduce and a store, with and without tokens, scopes and inbounds."""
    E, cb = ctx["E"], ctx["cb"]
    Order, S, R = E.MemoryOrderingSemantics, E.MemoryScope, E.MultimemReductionKind
    n = len(ctx["index"])
    tile, token = E.encode_MultimemLoadReduceViewTkoOp(
        cb, ctx["tile"], ctx["token"], ctx["view"], ctx["index"], None, Order[order],
        None if order == "WEAK" else S.DEVICE, R[reduction], [False] * n)
    _, token = E.encode_MultimemLoadReduceViewTkoOp(
        cb, ctx["tile"], ctx["token"], ctx["view"], ctx["index"], token, Order.ACQUIRE, S.SYS,
        R[reduction], [True] * n)
    token = E.encode_MultimemReduceViewTkoOp(
        cb, ctx["token"], ctx["view"], tile, ctx["index"], token, Order.RELAXED, S.DEVICE,
        R[reduction], [False] * n)
    E.encode_MultimemReduceViewTkoOp(cb, ctx["token"], ctx["view"], tile, ctx["index"], None,
                                     Order.RELEASE, S.TL_BLK, R[reduction], [True] * n)
    E.encode_MultimemStoreViewTkoOp(cb, ctx["token"], ctx["view"], tile, ctx["index"], token,
                                    Order.WEAK, None, [True] * n)
    E.encode_MultimemStoreViewTkoOp(cb, ctx["token"], ctx["view"], tile, ctx["index"], None,
                                    Order.RELEASE, S.SYS, [False] * n)


VALID = {
    "f32 add": lambda: _multimem_file(_all_three),
    "i32 umax": lambda: _multimem_file(lambda c: _all_three(c, "UMAX", "RELAXED"), "I32"),
    "i32 xor": lambda: _multimem_file(lambda c: _all_three(c, "XOR"), "I32"),
    "f64 add, relaxed": lambda: _multimem_file(lambda c: _all_three(c, order="RELAXED"),
                                               "F64"),
    "f16 2-d": lambda: _multimem_file(_all_three, "F16", tile=(4, 8), shape=(64, 64),
                                      strides=(64, 1)),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_multimem_kernels(tmp_path: Path, name: str, tally) -> None:
    """Printed as tileirdisasm prints them (plain and -g), written back to cuTile's bytes,
    and, written by us from tileirdisasm's text, read by tileirdisasm to the same text and
    compiled by tileiras for sm_100."""
    if corpus.missing() is not None:
        pytest.skip(corpus.missing())
    data = VALID[name]()
    path = tmp_path / "cutile.tileirbc"
    path.write_bytes(data)
    plain = corpus.run_tool("tileirdisasm", str(path))
    debug = corpus.run_tool("tileirdisasm", "-g", str(path))
    assert plain.returncode == 0 and debug.returncode == 0, plain.stderr
    assert _printed(data) == plain.stdout
    assert _printed(data, True) == debug.stdout
    assert tileir.from_bytecode(data).to_bytecode("13.5") == data
    _written_back_and_compiled(debug.stdout, tmp_path)
    tally("13.5 multimem kernels printed, written back and compiled (sm_100)", 1)


def _one(op: str, reduction: str = "ADD", order: str = "WEAK", scope: str | None = None,
         inbounds: int | None = None):
    """A body with one multimem op (`op`: load_reduce, reduce or store)."""
    def body(ctx) -> None:
        E, cb = ctx["E"], ctx["cb"]
        Order, S, R = E.MemoryOrderingSemantics, E.MemoryScope, E.MultimemReductionKind
        n = inbounds if inbounds is not None else len(ctx["index"])
        flags = [False] * n
        the_scope = S[scope] if scope else None
        if op == "load_reduce":
            E.encode_MultimemLoadReduceViewTkoOp(cb, ctx["tile"], ctx["token"], ctx["view"],
                                                 ctx["index"], None, Order[order], the_scope,
                                                 R[reduction], flags)
        elif op == "reduce":
            E.encode_MultimemReduceViewTkoOp(cb, ctx["token"], ctx["view"], ctx["value"],
                                             ctx["index"], None, Order[order], the_scope or S.SYS,
                                             R[reduction], flags)
        else:
            E.encode_MultimemStoreViewTkoOp(cb, ctx["token"], ctx["view"], ctx["value"],
                                            ctx["index"], None, Order[order], the_scope, flags)
    return body


INVALID = {
    "not multicast": lambda: _multimem_file(_one("load_reduce"), ptr_attr=None),
    "unicast": lambda: _multimem_file(_one("store"), ptr_attr=b"\x01"),
    "i8": lambda: _multimem_file(_one("reduce", order="RELAXED"), "I8"),
    "f32 min": lambda: _multimem_file(_one("load_reduce", "MIN")),
    "f16 reduce max": lambda: _multimem_file(_one("reduce", "MAX", "RELAXED"), "F16",
                                             tile=(2,)),
    "f32 and": lambda: _multimem_file(_one("reduce", "AND", "RELAXED")),
    "f16 one element": lambda: _multimem_file(_one("store"), "F16", tile=(1,)),
    "f16 no unit stride": lambda: _multimem_file(_one("load_reduce"), "F16", tile=(2, 2),
                                                 shape=(8, 8), strides=(8, 2)),
    "reduce weak": lambda: _multimem_file(_one("reduce")),
    "store acquire": lambda: _multimem_file(_one("store", order="ACQUIRE", scope="SYS")),
    "weak load with scope": lambda: _multimem_file(_one("load_reduce", scope="DEVICE")),
    "inbounds size": lambda: _multimem_file(_one("load_reduce", inbounds=2)),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_multimem_rejections(tmp_path: Path, name: str, tally) -> None:
    """tileirdisasm refuses the file; our reader refuses it with the same message."""
    if corpus.missing() is not None:
        pytest.skip(corpus.missing())
    path = tmp_path / "k.tileirbc"
    path.write_bytes(INVALID[name]())
    done = corpus.run_tool("tileirdisasm", str(path))
    assert done.returncode != 0
    message = corpus.first_error(done.stderr)
    with pytest.raises(TileIRError) as caught:
        tileir.from_bytecode(path.read_bytes())
    assert message in str(caught.value)
    tally("13.5 multimem files rejected as tileirdisasm rejects them", 1)


# ---- headers and function records ----------------------------------------------------------


def _patched(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


def _flags_at(data: bytes) -> int:
    """Where the function record's flags byte is: entry, debug list 1, then the hints."""
    return data.index(bytes([0x02, 0x01, 0x0B]))


HEADERS = {
    "tag bit 1": (lambda d: 10, (2).to_bytes(2, "little")),
    "preview flag without a feature": (lambda d: 10, (1).to_bytes(2, "little")),
    "version 13.6": (lambda d: 9, bytes([6])),
    "function flag bit 4": (_flags_at, bytes([0x12])),
    "reserved function form": (_flags_at, bytes([0x0C])),
    "testing form": (_flags_at, bytes([0x0A])),
    "kernel and extern impl": (_flags_at, bytes([0x06])),
}


@pytest.mark.parametrize("name", sorted(HEADERS))
def test_headers_and_records_refused_as_tileirdisasm_refuses_them(tmp_path: Path, name: str,
                                                      tally) -> None:
    if corpus.missing() is not None:
        pytest.skip(corpus.missing())
    where, value = HEADERS[name]
    data = VALID["f32 add"]()
    data = _patched(data, where(data), value)
    path = tmp_path / "k.tileirbc"
    path.write_bytes(data)
    done = corpus.run_tool("tileirdisasm", str(path))
    assert done.returncode != 0
    with pytest.raises(BytecodeError) as caught:
        tileir.from_bytecode(data)
    # The words; tileirdisasm gives function-record offsets within the Func section, where
    # tileir gives file offsets (as for every other message).
    theirs = corpus.first_error(done.stderr).split(": ", 1)[1]
    assert caught.value.reason == theirs
    tally("13.5 headers and function records refused as tileirdisasm refuses them", 1)


def test_preview_flag_read_with_simt(tmp_path: Path) -> None:
    """With --preview=simt, tileirdisasm reads a flagged file as an unflagged one; so do we,
    and the flag is written back."""
    if corpus.missing() is not None:
        pytest.skip(corpus.missing())
    plain = VALID["f32 add"]()
    data = _patched(plain, 10, (1).to_bytes(2, "little"))
    path = tmp_path / "k.tileirbc"
    path.write_bytes(data)
    done = corpus.run_tool("tileirdisasm", "--preview=simt", str(path))
    assert done.returncode == 0, done.stderr
    module = tileir.from_bytecode(data, preview=("simt",))
    module.spelling = "bare"
    assert module.format() == done.stdout
    assert tileir.from_bytecode(data, preview=("simt",)).to_bytecode("13.5") == data
