"""13.5's `--preview=simt` content as tileirdisasm 13.5 reads it, pinned for whoever adds it
to tileir (docs/bytecode.md, "Known limits"), and tileir's one clean refusal of it today.

Every file here is built by hand from the format: `preview$call` as cuTile 1.7.0's
``encode_PreviewCallOp`` lays it out, the extern `preview$func` record and the
`preview$access` attribute (self-contained tag 0xdf) as found by probing tileirdisasm 13.5.
Expected text and messages are tileirdisasm 13.5's.  Skipped when the `oracles` extra is
missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import corpus
from tileir.bytecode import BytecodeError, MAGIC, from_bytecode, parse_preview
from tileir.cli import translate

sys.path.insert(0, str(Path(__file__).parents[1] / "bytecode"))
from mutators import Section, encode_varint, join_sections, offset_table  # noqa: E402

pytestmark = pytest.mark.skipif(corpus.tool_path("tileirdisasm") is None,
                                reason="NVIDIA's tileirdisasm is not installed "
                                       "(pip install -e '.[oracles]')")

#: Types: 0 `() -> ()`, 1 i32, 2 tile<i32>, 3 `(tile<i32>) -> ()`, 4 `(tile<i32>) -> tile<i32>`.
TYPES = (bytes([0x10, 0, 0]), bytes([0x03]), bytes([0x0D, 1, 0]), bytes([0x10, 1, 2, 0]),
         bytes([0x10, 1, 2, 1, 2]))
STRINGS = (b"k", b"f", b"cuda_tile.preview$access")
RETURN = bytes([92, 0, 0])
ACCESS_TAG = encode_varint(0xDF)


def _file(body: bytes, callee_signature: int = 3, access: int = 0) -> bytes:
    """A preview-flagged 13.5 file: entry `k(tile<i32>)` with `body`, and an extern
    `preview$func @f` (flags: private, plain form; no debug info; one arg_attrs dictionary
    {cuda_tile.preview$access: tag 0xdf, `access`}; body length 0; empty const_params)."""
    entry = bytes([0, 3, 0x02, 0, 0x0B, 0, 0x06, 0]) + encode_varint(len(body)) + body
    arg_attrs = bytes([0x06, 1, 0x0A, 1, 2]) + ACCESS_TAG + bytes([access])
    func = bytes([1, callee_signature, 0x01, 0]) + arg_attrs + bytes([0, 0x06, 0])
    payload = encode_varint(2) + entry + func
    sections = [Section(2, 8, payload + b"\xcb" * (-len(payload) % 8)),
                Section(5, 4, offset_table(list(TYPES), 4)),
                Section(1, 4, offset_table(list(STRINGS), 4))]
    return join_sections(MAGIC + bytes([13, 5, 1, 0]), sections)


#: preview$call: opcode 16386, result count and types, flags 0 (no arg_attrs/res_attrs),
#: callee string 1, no const_args, one operand (%arg0, value 0).
CALL = encode_varint(16386) + bytes([0, 0, 1, 0, 1, 0])
CALL_WITH_RESULT = encode_varint(16386) + bytes([1, 2, 0, 1, 0, 1, 0])

_FUNC = ("preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
         "#cuda_tile<preview$access<ACCESS>>}) ")

CASES = {
    "call": (_file(CALL + RETURN),
             "entry @k(%arg0: tile<i32>) {\n"
             "  preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> ()\n"
             "  return\n}\n" + _FUNC.replace("ACCESS", "in") + "\n"),
    "call_out": (_file(CALL_WITH_RESULT + RETURN, 4, 1),
                 "entry @k(%arg0: tile<i32>) {\n"
                 "  %0 = preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> "
                 "!cuda_tile.tile<i32>\n  return\n}\n" +
                 _FUNC.replace("ACCESS", "out") + "-> tile<i32> \n"),
    "call_inout": (_file(CALL_WITH_RESULT + RETURN, 4, 2),
                   "entry @k(%arg0: tile<i32>) {\n"
                   "  %0 = preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> "
                   "!cuda_tile.tile<i32>\n  return\n}\n" +
                   _FUNC.replace("ACCESS", "inout") + "-> tile<i32> \n"),
}


def _disasm(data: bytes, tmp_path: Path, *flags: str):
    path = tmp_path / "k.tileirbc"
    path.write_bytes(data)
    return corpus.run_tool("tileirdisasm", *flags, str(path))


@pytest.mark.parametrize("name", sorted(CASES))
def test_tileirdisasm_reads_the_documented_encoding(tmp_path: Path, name: str) -> None:
    data, text = CASES[name]
    done = _disasm(data, tmp_path, "--preview=simt")
    assert done.returncode == 0, done.stderr
    assert done.stdout == text


@pytest.mark.parametrize("func_record, message", [
    # a public extern function
    (bytes([0x00, 0]), "'cuda_tile.preview$func' op symbol declaration cannot have public "
                       "visibility"),
    # access 3 is no access kind
    (bytes([0x01, 0]), None),
])
def test_tileirdisasm_refusals(tmp_path: Path, func_record: bytes, message) -> None:
    data = _file(CALL + RETURN)
    at = data.index(bytes([1, 3, 0x01, 0, 0x06, 1]))
    if message is None:
        data = data.replace(ACCESS_TAG + bytes([0]), ACCESS_TAG + bytes([3]))
        message = "invalid enum value for value: 3"
    else:
        data = data[:at + 2] + func_record + data[at + 4:]
    assert message in _disasm(data, tmp_path, "--preview=simt").stderr


@pytest.mark.parametrize("name", sorted(CASES))
def test_tileir_refuses_preview_content_with_one_diagnostic(tmp_path: Path, capsys,
                                                           name: str) -> None:
    """Not yet read by tileir: one BytecodeError, one CLI error line, no traceback."""
    data, _ = CASES[name]
    with pytest.raises(BytecodeError):
        from_bytecode(data, preview=parse_preview("simt"))
    path = tmp_path / "k.tileirbc"
    path.write_bytes(data)
    assert translate.main(["-cudatilebc-to-mlir", "--preview=simt", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "Traceback" not in err
