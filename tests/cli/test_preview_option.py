"""``--preview=<feature[,feature...]>`` on cuda-tile-translate and cuda-tile-opt, spelled and
refused as NVIDIA's tools spell and refuse it (tileirdisasm/tileiras 13.5 --help: "Enable
one or more named preview features"; messages are tileirdisasm 13.5's)."""

from __future__ import annotations

import pytest

from tileir.cli import opt, translate

#: A 13.5 file whose header's version tag has the preview bit (0x0001), holding one entry
#: `k` that returns: header; Func section (one function: name 0, signature 0, flags entry,
#: no debug info, empty hints, empty arg_attrs, a 3-byte body `return`); Type section (the
#: empty signature); String section ("k").  Built by hand from the format (docs/bytecode.md).
FLAGGED = bytes.fromhex(
    "7f54696c65495200 0d05 0100"
    "8210 08 cb 010000 02 00 0b00 0600 03 5c0000 cbcbcb"
    "850b 04 cb 01 cbcbcb 00000000 100000"
    "8109 04 cbcb 01 cbcbcb 00000000 6b"
    "00")
TEXT = "cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}\n"


@pytest.fixture
def flagged(tmp_path):
    path = tmp_path / "k.tileirbc"
    path.write_bytes(FLAGGED)
    return path


@pytest.mark.parametrize("flag", ["--preview=simt", "-preview=simt", "--preview=simt,simt"])
def test_flagged_bytecode_reads_with_the_feature(flagged, capsys, flag: str) -> None:
    assert translate.main(["-cudatilebc-to-mlir", flag, str(flagged)]) == 0
    assert capsys.readouterr().out == TEXT


def test_flagged_bytecode_needs_a_feature(flagged, capsys) -> None:
    assert translate.main(["-cudatilebc-to-mlir", str(flagged)]) == 1
    assert "public-preview bytecode requires at least one enabled preview feature" in \
        capsys.readouterr().err


@pytest.mark.parametrize("tool", [translate, opt])
@pytest.mark.parametrize("flag, name", [
    ("--preview=foo", "foo"), ("--preview=", ""), ("--preview=simt,", ""),
    ("--preview=SIMT", "SIMT"),
])
def test_unknown_feature_is_refused(tmp_path, capsys, tool, flag: str, name: str) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(TEXT)
    assert tool.main([flag, str(source)]) == 1
    prog = "cuda-tile-translate" if tool is translate else "cuda-tile-opt"
    assert capsys.readouterr().err == (f"{prog}: for the --preview option: unknown preview "
                                       f"feature '{name}'; supported features: simt\n")


def test_opt_accepts_the_feature(tmp_path, capsys) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(TEXT)
    assert opt.main(["--preview=simt", "-no-implicit-module", str(source)]) == 0
    assert capsys.readouterr().out == TEXT
