"""The `tileir` command: readable output, diagnostics with a caret, non-zero exit on bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileir.cli.main import main


def test_example_prints_each_shipped_type(capsys):
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert "!cuda_tile.partition_view<tile=(128x128), tensor_view<64x256xf32, strides=[256,1]>>\n" \
           "  index space 1x2; each index loads a tile<128x128xf32>" in out
    assert "  index space 4x22; each index loads a tile<4x2xf32>" in out
    assert "!cuda_tile.tile<4xptr<i8>>" in out


def test_type_reports_errors_with_location(capsys):
    assert main(["type", "tile<8x4xf32>", "tile<3xf32>"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("!cuda_tile.tile<8x4xf32>\n  32 elements of f32\n")
    assert captured.err == ("<arg>:1:5: error: all dimensions must be powers of two, got 3\n"
                            "tile<3xf32>\n    ^\n")


@pytest.mark.parametrize("argv, expected", [
    (["convert", "1e9", "--to", "f8E4M3FN"], "1000000000.0 -> f8E4M3FN: 448.0 (bits 0x7e)\n"),
    (["convert", "nan", "--to", "f8E4M3FN"], "nan -> f8E4M3FN: 448.0 (bits 0x7e)\n"),
    (["convert", "0.3", "--to", "f8E8M0FNU", "--rounding", "positive_inf"],
     "0.3 -> f8E8M0FNU: 0.5 (bits 0x7e)\n"),
    (["convert", "1e9", "--to", "f16", "--rounding", "zero"],
     "1000000000.0 -> f16: 65504.0 (bits 0x7bff)\n"),
    (["convert", "-3.7", "--to", "i8"], "-3.7 -> i8: -3 (bits 0xfd)\n"),
    (["convert", "300", "--to", "i8", "--unsigned"], "300.0 -> i8: 255 (bits 0xff)\n"),
])
def test_convert(argv, expected, capsys):
    assert main(argv) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("argv, message", [
    (["convert", "1", "--to", "f80"], "error: 'f80' is not a Tile IR element type\n"),
    (["convert", "x", "--to", "f32"], "error: 'x' is not a number\n"),
    (["convert", "1", "--to", "f32", "--rounding", "up"],
     "error: 'up' is not one of: nearest_even, zero, negative_inf, positive_inf, approx, full, "
     "nearest_int_to_zero, nearest_away\n"),
])
def test_convert_rejects_bad_arguments(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err == message


def test_console_entry_point_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "tileir", "type", "tile<f4E2M1FN>"],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "error: F4E2M1FN tiles must have an even number of elements" in done.stderr
    assert "Traceback" not in done.stderr


_KERNEL = """cuda_tile.module @m {
  cuda_tile.entry @f() {
    %0 = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<2xf32>
    %1 = cuda_tile.OP %0, %0 : !cuda_tile.tile<2xf32>
    cuda_tile.return
  }
}
"""


def test_check_verifies_files(tmp_path, capsys):
    good, bad = tmp_path / "good.mlir", tmp_path / "bad.mlir"
    good.write_text(_KERNEL.replace("OP", "addf"))
    bad.write_text(_KERNEL.replace("OP", "addi"))
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: ok (5 ops)\n"
    assert main(["check", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"{good}: ok (5 ops)\n"
    # addi takes integer tiles (spec: integer ops), so an f32 operand is rejected
    assert captured.err == (
        f"{bad}:4:10: error: 'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 "
        "or i32 or i64 values, but got '!cuda_tile.tile<2xf32>'\n"
        "    %1 = cuda_tile.addi %0, %0 : !cuda_tile.tile<2xf32>\n"
        "         ^\n")


def test_check_missing_file(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.mlir")]) == 1
    assert "nope.mlir: error: cannot read:" in capsys.readouterr().err


_HINTED = """cuda_tile.module @m {
  entry @k() optimization_hints=<sm_100={num_qqq=1}> {
    return
  }
}
"""


@pytest.mark.parametrize("flags, status, err", [
    ([], 0, ""),
    # -Werr-hints only matters with -Wunsupported-hints, as in the reference
    (["-Werr-hints"], 0, ""),
    (["-Wunsupported-hints"], 0,
     "warning: num_qqq is not known hint for current Operation"),
    (["-Wunsupported-hints", "-Werr-hints"], 1,
     "warning: num_qqq is not known hint for current Operation"),
])
def test_check_hint_flags(tmp_path, capsys, flags, status, err):
    path = tmp_path / "k.mlir"
    path.write_text(_HINTED)
    assert main(["check", *flags, str(path)]) == status
    captured = capsys.readouterr()
    assert (err in captured.err) if err else captured.err == ""
    if status:
        assert "error: 'cuda_tile.entry' op Optimization hints verification failed" \
            in captured.err


def test_check_warns_about_an_empty_module(tmp_path, capsys):
    # spec 6.2.5: a well-formed module holds at least one item; the reference accepts an
    # empty one (and so does cuda-tile-opt), so `tileir check` warns without failing
    path = tmp_path / "empty.mlir"
    path.write_text("cuda_tile.module @empty {\n}\n")
    assert main(["check", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{path}: ok (1 ops)\n"
    assert captured.err == (f"{path}:1:1: warning: module has no items; a well-formed module "
                            "has at least one (spec 6.2.5)\ncuda_tile.module @empty {\n^\n")


def test_example_runs_the_shipped_kernels(capsys):
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert ("vector_add.mlir: c = a + b, 1000 f32 values in 64-element tiles, 16 tile blocks "
            "(batched engine): ok (bit-identical to NumPy's a + b)\n") in out
    assert ("matmul_f32.mlir: C = A @ B, 40x24 by 24x56 f32 in 16x16 tiles, 12 tile blocks "
            "(batched engine): ok (equal to the exact integer product)\n") in out
    assert ("transpose.mlir: B = A^T, 40x24 f32 in 16x16 tiles, view types written as type "
            "aliases, 6 tile blocks (batched engine): ok (bit-identical to NumPy's a.T)\n") in out


def test_show_prints_bytecode_with_debug_info_as_tileirdisasm(capsys):
    from conftest import SHARED, require
    artifacts = SHARED / "reference" / "artifacts"
    path = require(artifacts / "vector_add_readme.v13.3.tileirbc")
    assert main(["show", "--bare", "--debuginfo", str(path)]) == 0
    expected = (artifacts / "vector_add_readme.v13.3.debuginfo.mlir").read_text()
    assert capsys.readouterr().out == expected


def test_check_reads_bytecode_and_reports_bad_bytecode(tmp_path, capsys):
    import tileir
    good, bad = tmp_path / "k.tileirbc", tmp_path / "bad.tileirbc"
    good.write_bytes(tileir.parse("cuda_tile.module @kernels {\n  entry @k() {\n    return\n"
                                  "  }\n}\n").to_bytecode("13.2"))
    bad.write_bytes(b"\x7fTileIR\x00\x0d\x02\x00\x00\x09")
    assert main(["check", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"{good}: ok (3 ops)\n"
    assert captured.err == f"{bad}:0:0: error: error at offset 12: unknown section ID: 9\n"


def test_show_and_check_refuse_bytecode_that_does_not_verify(tmp_path, capsys):
    """A file that reads but fails the verifier is refused by show as by check (and by
    tileirdisasm), its diagnostic placed at the file's start."""
    import tileir
    path = tmp_path / "negf.tileirbc"
    path.write_bytes(tileir.parse("cuda_tile.module @kernels {\n  entry @k() {\n"
                                  "    %c = constant <f32: 1.0> : tile<2xf32>\n"
                                  "    %0 = negi %c : tile<2xf32>\n    return\n  }\n}\n",
                                  verify=False).to_bytecode("13.2"))
    message = (f"{path}:0:0: error: 'cuda_tile.negi' op operand #0 must be tile of i1 or i8 or "
               "i16 or i32 or i64 values, but got '!cuda_tile.tile<2xf32>'\n")
    for command in ("show", "check"):
        assert main([command, str(path)]) == 1
        assert capsys.readouterr() == ("", message)


def _tileir(*args: str) -> subprocess.CompletedProcess:
    """``tileir ARGS`` run as a separate process."""
    return subprocess.run([sys.executable, "-m", "tileir", *args], capture_output=True,
                          text=True, timeout=300)


def _shipped() -> "Path":
    """The shipped kernels' directory, found from the package, not from the CLI."""
    import tileir
    return Path(tileir.__file__).parent / "examples" / "kernels"


def test_example_path_prints_the_kernels_directory_alone():
    done = _tileir("example", "--path")
    assert (done.returncode, done.stderr) == (0, "")
    assert Path(done.stdout.removesuffix("\n")).resolve() == _shipped().resolve()
    assert done.stdout.count("\n") == 1


def test_example_path_names_files_in_a_shell():
    done = subprocess.run(["bash", "-c", f'"{sys.executable}" -m tileir check '
                           f'"$("{sys.executable}" -m tileir example --path)/vector_add.mlir"'],
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    # module, entry, make_token, 3 tensor views, 3 partition views, get_tile_block_id, 2
    # loads, addf, store, return
    assert done.stdout == f"{_shipped().resolve() / 'vector_add.mlir'}: ok (15 ops)\n"


def test_example_list_names_every_shipped_kernel_once():
    done = _tileir("example", "--list")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "Run by `tileir example` and checked against NumPy:"
    others = lines.index("More kernels, in `tileir example --path` (run them with "
                         "tileir.launch):")
    rows = [line.split(None, 1) for line in lines if line.startswith("  ")]
    assert len(rows) == len(lines) - 2
    files = sorted(p.name for p in _shipped().glob("*.mlir"))
    assert sorted(name for name, _ in rows) == files
    assert all(len(row) == 2 and row[1].strip() for row in rows)
    # the kernels `tileir example` runs come first, the others after, by name
    checked = [line.split()[0] for line in lines[1:others]]
    assert checked[:3] == ["vector_add.mlir", "matmul_f32.mlir", "transpose.mlir"]
    assert [line.split()[0] for line in lines[others + 1:]] == \
        sorted(set(files) - set(checked))
    planted = {name for name, what in rows if "planted undefined behaviour" in what}
    assert planted == {name for name in files if "PLANTED UNDEFINED BEHAVIOUR"
                       in (_shipped() / name).read_text()}
    assert {name for name in files if name.startswith("ub_")} <= planted
    # names padded to one column
    columns = {re.match(r"  \S+ +", line).end() for line in lines if line.startswith("  ")}
    assert len(columns) == 1


def test_example_list_describes_the_table_kernels_as_example_runs_them(capsys):
    from tileir.cli.examples import KERNELS
    assert main(["example", "--list"]) == 0
    out = capsys.readouterr().out
    for example in KERNELS:
        assert re.search(rf"^  {re.escape(example.file)} +{re.escape(example.what)}$", out,
                         re.MULTILINE)


def test_example_list_and_path_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["example", "--list", "--path"])
    assert exc.value.code == 2
    assert "argument --path: not allowed with argument --list" in capsys.readouterr().err


def test_header_summary_is_the_first_sentence_of_the_leading_comment():
    """The description of a kernel file no table describes."""
    from tileir.cli.examples import header_summary
    text = ("// my_kernel: out[i] = in[i .. i+3] summed, in f32.  Each tile block adds\n"
            "// one tile.\n// Parameters: ...\ncuda_tile.module @m {\n}\n")
    assert header_summary(text) == "out[i] = in[i .. i+3] summed, in f32"
    assert header_summary("// two\n// lines with no stop\ncuda_tile.module @m {}\n") == \
        "two lines with no stop"
    assert header_summary("cuda_tile.module @m {}\n") == ""
    assert header_summary("// k: y = 2 * x.\n// PLANTED BUG (for a demo): the index is "
                          "swapped.\ncuda_tile.module @m {}\n") == "y = 2 * x; planted bug"
    assert header_summary("// k: q = a / b.\n// PLANTED UNDEFINED BEHAVIOUR when b is 0.\n") \
        == "q = a / b; planted undefined behaviour"


def test_the_transpose_example_names_its_view_types_by_alias():
    """The example that shows type aliases: defined at the top, used by name in the kernel,
    and read as the types they stand for."""
    import numpy as np
    import tileir
    text = (_shipped() / "transpose.mlir").read_text()
    code = [line for line in text.splitlines() if not line.startswith("//")]
    assert code[:3] == [
        "!matrix = !cuda_tile.tensor_view<?x?xf32, strides=[?,1]>",
        "!a_tiles = !cuda_tile.partition_view<tile=(16x16), padding_value = zero, !matrix>",
        "!b_tiles = !cuda_tile.partition_view<tile=(16x16), !matrix>"]
    body = code[3:]
    assert not [line for line in body if "_view<" in line]
    assert sum("!a_tiles" in line for line in body) == 2
    assert sum("!b_tiles" in line for line in body) == 2
    assert sum("-> !matrix" in line for line in body) == 2
    m, n = 33, 17
    a = np.arange(m * n, dtype=np.float32).reshape(m, n)
    b = np.full((n, m), -1, np.float32)
    tileir.launch(_shipped() / "transpose.mlir", None, (3, 2), [a, m, n, n, b, n, m, m])
    assert b.tolist() == [[float(i * n + j) for i in range(m)] for j in range(n)]
