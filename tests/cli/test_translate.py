"""cuda-tile-translate: text to bytecode and back, verifying as cuda-tile-opt does."""

from __future__ import annotations

from tileir.cli.translate import main

_BAD = ("cuda_tile.module @m {\n"
        "  cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>) {\n"
        "    %0 = cuda_tile.addi %a, %a : !cuda_tile.tile<2xf32>\n"
        "  }\n"
        "}\n")


def test_invalid_text_gets_the_verifier_diagnostics(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(_BAD)
    assert main(["-mlir-to-cudatilebc", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3:10: error: 'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or " \
           "i16 or i32 or i64 values, but got '!cuda_tile.tile<2xf32>'" in err
    assert "not implemented" not in err


EMPTY_13_1 = bytes.fromhex("7f54696c65495200 0d010000 820808cb 00cbcbcbcbcbcbcb 850404cb 00cbcbcb"
                           "810404cb 00cbcbcb 00")


def test_text_to_bytecode_writes_the_file(tmp_path, capsys):
    path, out = tmp_path / "ok.mlir", tmp_path / "ok.tileirbc"
    path.write_text("cuda_tile.module @m {\n}\n")
    assert main(["-mlir-to-cudatilebc", "-no-implicit-module", "-bytecode-version=13.1",
                 str(path), "-o", str(out)]) == 0
    assert out.read_bytes() == EMPTY_13_1
    assert capsys.readouterr().err == ""


def test_bytecode_to_text_prints_the_module(tmp_path, capsys):
    path = tmp_path / "empty.tileirbc"
    path.write_bytes(EMPTY_13_1)
    assert main(["-cudatilebc-to-mlir", str(path)]) == 0
    assert capsys.readouterr().out == "cuda_tile.module @kernels {\n}\n"


def test_bad_bytecode_is_a_diagnostic_and_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.tileirbc"
    path.write_bytes(EMPTY_13_1[:20])
    assert main(["-cudatilebc-to-mlir", str(path)]) == 1
    # 12 header bytes, the Func section's id and length 8, then only 6 bytes
    assert capsys.readouterr().err == ("error: error at offset 14: section length 8 exceeds "
                                       "remaining data size 6\n")


def test_round_trip_prints_what_was_read(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text("cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}\n")
    assert main(["-test-cudatile-roundtrip", "-no-implicit-module", str(path)]) == 0
    assert capsys.readouterr().out == ("cuda_tile.module @kernels {\n  entry @k() {\n"
                                       "    return\n  }\n}\n")


def test_list_versions(capsys):
    assert main(["--list-versions"]) == 0
    assert capsys.readouterr().out == "13.1\n13.2\n13.3\n13.4\n13.5\n"


def test_unknown_version_is_refused(tmp_path, capsys):
    path = tmp_path / "ok.mlir"
    path.write_text("cuda_tile.module @m {\n}\n")
    assert main(["-mlir-to-cudatilebc", "-bytecode-version=12.0", str(path)]) == 1
    assert capsys.readouterr().err == ("cuda-tile-translate: for the --bytecode-version option: "
                                       "Invalid argument '12.0': the supported versions are "
                                       "[13.1 - 13.5]\n")


def test_verify_diagnostics_matches_expectations(tmp_path):
    path = tmp_path / "expect.mlir"
    path.write_text(_BAD.replace("    %0", "    // expected-error @below {{must be tile of}}\n"
                                         "    %0"))
    assert main(["-mlir-to-cudatilebc", "-verify-diagnostics", str(path)]) == 0
