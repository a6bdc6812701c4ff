"""cuda-tile-translate's text half: it parses and verifies as cuda-tile-opt does."""

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


def test_valid_text_says_bytecode_is_not_there_yet(tmp_path, capsys):
    path = tmp_path / "ok.mlir"
    path.write_text("cuda_tile.module @m {\n}\n")
    assert main(["-mlir-to-cudatilebc", str(path)]) == 1
    assert capsys.readouterr().err == (f"{path}: error: bytecode reading and writing is not "
                                       "implemented in tileir yet\n")


def test_verify_diagnostics_matches_expectations(tmp_path):
    path = tmp_path / "expect.mlir"
    path.write_text(_BAD.replace("    %0", "    // expected-error @below {{must be tile of}}\n"
                                         "    %0"))
    assert main(["-mlir-to-cudatilebc", "-verify-diagnostics", str(path)]) == 0
