"""``tileir reduce`` end to end: the output, -o and -j, a shell --test, Ctrl-C, and one
line for every bad input."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.cli.main import build_parser, main
from tileir.reducer import predicates

#: A small planted case: the out-of-bounds extract among ops that do not matter.
KERNEL = """\
cuda_tile.module @kernels {
  entry @k(%a: tile<ptr<f32>>) {
    %c = constant <f32: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tile<8xf32>
    %d = negf %c : tile<8xf32>
    %i = constant <i32: 5> : tile<i32>
    %e = extract %d[%i] : tile<8xf32> -> tile<2xf32>
    %f = absf %e : tile<2xf32>
    return
  }
}
"""
MINIMAL = """\
cuda_tile.module @kernels {
  entry @k() {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<1xf32>
    %cst_5_i32 = constant <i32: 5> : tile<i32>
    %0 = extract %cst_0_f32[%cst_5_i32] : tile<1xf32> -> tile<1xf32>
    return
  }
}
"""
SUMMARY = "tileir reduce: 8 -> 6 ops in #.# s, 31 candidates tested\n"


def _tileir(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``tileir ARGV`` in a fresh interpreter (Ctrl-C handled as at a terminal)."""
    return subprocess.run([sys.executable, "-m", "tileir", *argv], cwd=cwd, text=True,
                          capture_output=True, timeout=300,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _masked(stderr: str) -> str:
    return re.sub(r"in \d+\.\d s", "in #.# s", stderr)


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.mlir"
    path.write_text(KERNEL)
    return path


def test_reduce_prints_the_smallest_kernel_and_the_reduction(kernel: Path) -> None:
    done = _tileir("reduce", kernel.name, "--diagnostic", "may be out of bounds",
                   cwd=kernel.parent)
    assert (done.returncode, done.stdout, _masked(done.stderr)) == (0, MINIMAL, SUMMARY)


def test_output_file_and_jobs_give_the_same_kernel(kernel: Path) -> None:
    done = _tileir("reduce", kernel.name, "--diagnostic", "may be out of bounds", "-o",
                   "min.mlir", "-j", "2", cwd=kernel.parent)
    assert (done.returncode, done.stdout, _masked(done.stderr)) == (0, "", SUMMARY)
    assert (kernel.parent / "min.mlir").read_text() == MINIMAL
    done = _tileir("reduce", kernel.name, "--diagnostic", "may be out of bounds", "-o",
                   "min.tileirbc", cwd=kernel.parent)
    assert done.returncode == 0
    assert tileir.load(kernel.parent / "min.tileirbc").format() == MINIMAL
    again = _tileir("reduce", "min.tileirbc", "--diagnostic", "out of bounds",
                    cwd=kernel.parent)          # (bytecode in)
    assert (again.returncode, again.stdout) == (0, MINIMAL)


def test_shell_command_test(kernel: Path) -> None:
    done = _tileir("reduce", kernel.name, "--test", "grep -q 'absf' {}", cwd=kernel.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout == """\
cuda_tile.module @kernels {
  entry @k() {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<1xf32>
    %0 = absf %cst_0_f32 : tile<1xf32>
    return
  }
}
"""
    done = _tileir("reduce", kernel.name, "--as-bytecode", "--test",
                   "case {} in *.tileirbc) grep -q . {};; *) false;; esac", cwd=kernel.parent)
    # (no further: a module with no items draws a warning the input does not have)
    assert (done.returncode, done.stdout) == (
        0, "cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}\n")


@pytest.mark.parametrize("again, how", [
    ("-eq", "interrupted: the smallest kernel so far"),
    ("-ge", "interrupted before the smallest kernel was tested again")])
def test_ctrl_c_writes_the_smallest_so_far(kernel: Path, again: str, how: str) -> None:
    # The test command itself sends Ctrl-C (SIGINT) to tileir on its fifth run (after the
    # original and three candidates), and with -ge on every run after (the last test of
    # the smallest kernel too); the sleep after it is killed with the command.
    counting = ("n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count; "
                f"if [ $n {again} 4 ]; then kill -INT $PPID; sleep 60; fi; "
                "grep -q extract {}")
    done = _tileir("reduce", kernel.name, "--test", counting, "-o", "min.mlir",
                   cwd=kernel.parent)
    assert done.returncode == 130, done.stderr
    assert re.fullmatch(r"tileir reduce: 8 -> \d ops in \d+\.\d s, 3 candidates tested "
                        rf"\({how}\)\n", done.stderr)
    assert (kernel.parent / "count").read_text() == "6\n"     # (the last: the test again)
    smallest = tileir.load(kernel.parent / "min.mlir")
    assert "extract" in smallest.format()


@pytest.mark.parametrize("argv, message", [
    (["missing.mlir", "--diagnostic", "x"],
     "tileir reduce: cannot read 'missing.mlir': No such file or directory\n"),
    (["bad.mlir", "--diagnostic", "x"],
     "tileir reduce: bad.mlir:1:1: error: custom op 'garbage' is unknown (tried "
     "'builtin.garbage' as well)\n"),
    (["kernel.mlir", "--diagnostic", "no such diagnostic"],
     "tileir reduce: the test does not hold on kernel.mlir\n"),
    (["kernel.mlir", "--test", "false"],
     "tileir reduce: the test does not hold on kernel.mlir (its command must exit 0 on it "
     "within 300 s, --test-timeout)\n"),
    (["kernel.mlir", "--diagnostic", "x", "-o", "no/such/dir/min.mlir"],
     "tileir reduce: cannot write 'no/such/dir/min.mlir': No such file or directory\n"),
])
def test_bad_input_is_one_line(kernel: Path, argv: list[str], message: str) -> None:
    (kernel.parent / "bad.mlir").write_text("garbage\n")
    done = _tileir("reduce", *argv, cwd=kernel.parent)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", message)


@pytest.mark.parametrize("argv, message", [
    (["folder", "--diagnostic", "x"], "tileir reduce: cannot read 'folder': Is a directory\n"),
    (["binary.mlir", "--diagnostic", "x"],
     "tileir reduce: error: 'binary.mlir' is neither Tile IR bytecode nor UTF-8 text "
     "(byte 128)\n"),
    (["kernel.mlir", "--diagnostic", "bounds", "-o", "folder"],
     "tileir reduce: cannot write 'folder': Is a directory\n"),
    (["kernel.mlir", "--diagnostic", "bounds", "-o", "kernel.mlir/min.mlir"],
     "tileir reduce: cannot write 'kernel.mlir/min.mlir': No such file or directory\n"),
    (["kernel.mlir", "--test", "sleep 60; true", "--test-timeout", "0.5"],
     "tileir reduce: the test does not hold on kernel.mlir (its command must exit 0 on it "
     "within 0.5 s, --test-timeout)\n"),
    (["kernel.mlir", "--engines-differ"],
     "tileir reduce: the test does not hold on kernel.mlir: tileir's engines agree on it\n"),
])
def test_hostile_input_is_one_line_before_any_work(kernel: Path, argv: list[str],
                                                   message: str) -> None:
    # (-o a directory was found only after the whole reduction, and said 'tileir:'; a
    # --test that hangs hung the reduction: the default is now TEST_TIMEOUT_S)
    (kernel.parent / "folder").mkdir()
    (kernel.parent / "binary.mlir").write_bytes(bytes(range(256)) * 4)
    done = _tileir("reduce", *argv, cwd=kernel.parent)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", message)


@pytest.mark.parametrize("argv, message", [
    (["-j", "0"], "argument -j/--jobs: expected an integer from 1 to 256, got '0'"),
    (["-j", "-3"], "argument -j/--jobs: expected an integer from 1 to 256, got '-3'"),
    (["-j", "99999"], "argument -j/--jobs: expected an integer from 1 to 256, got '99999'"),
    (["--time-limit", "nan"], "argument --time-limit: expected a positive number of "
     "seconds, got 'nan'"),
    (["--test-timeout", "-1"], "argument --test-timeout: expected a positive number of "
     "seconds, got '-1'"),
    (["--grids", "1,0"], "argument --grids: expected a positive integer, got '0'"),
])
def test_numbers_out_of_range_exit_2(kernel: Path, argv: list[str], message: str,
                                     capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["reduce", str(kernel), "--diagnostic", "bounds", *argv])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"tileir reduce: error: {message}"


def test_a_test_printing_megabytes(kernel: Path) -> None:
    # (what the command prints is thrown away, not kept in memory nor shown)
    chatty = "head -c 20000000 /dev/zero; head -c 20000000 /dev/zero >&2; grep -q absf {}"
    done = _tileir("reduce", kernel.name, "--test", chatty, cwd=kernel.parent)
    assert done.returncode == 0, done.stderr
    assert "absf" in done.stdout and len(done.stdout) < 1000


def test_engines_differ_on_a_kernel_with_scalar_arguments(tmp_path: Path, monkeypatch,
                                                          capsys) -> None:
    # (a scalar argument ended in a TypeError traceback)
    import numpy as np
    from tileir.interp.batch.ops import BATCHED
    from tileir.interp.semantics import SEMANTICS
    reference = SEMANTICS["negi"]
    monkeypatch.setitem(BATCHED, "negi",
                        lambda step, x: reference(step, x) + np.ones((), x.dtype))
    path = tmp_path / "scalar.mlir"
    path.write_text("""\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %a = absi %n : tile<i32>
    %y = negi %a : tile<i32>
    %t = store_ptr_tko weak %p, %y : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
""")
    assert main(["reduce", str(path), "--engines-differ", "--grids", "1"]) == 0
    assert "negi" in capsys.readouterr().out


def test_missing_tileiras_is_one_line(kernel: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(predicates, "find_tool", lambda name="tileiras": None)
    for test in (["--tileiras-crash"], ["--tileiras-error", "failed"]):
        assert main(["reduce", str(kernel), *test]) == 2
        assert capsys.readouterr().err == ("tileir reduce: NVIDIA's tileiras is not "
                                           "installed (pip install -e '.[oracles]')\n")


def test_progress_line_only_on_a_terminal(kernel: Path, monkeypatch, capsys) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("tileir.cli.reduce.PROGRESS_EVERY", 0.0)
    assert main(["reduce", str(kernel), "--diagnostic", "out of bounds"]) == 0
    shown = terminal.getvalue()
    assert "\rtileir reduce: 8 -> " in shown and " tested, " in shown
    assert _masked(shown.split("\r")[-1]) == SUMMARY        # (the line wiped first)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["reduce", str(kernel), "--diagnostic", "out of bounds"]) == 0
    assert "\r" not in sys.stderr.getvalue()


def test_every_option_has_help() -> None:
    parser = build_parser()
    reduce_parser = parser._subparsers._group_actions[0].choices["reduce"]
    for action in reduce_parser._actions:
        assert action.help, action.dest
    assert "--tileiras-crash" in reduce_parser.format_help()


def test_one_test_is_required(kernel: Path) -> None:
    done = _tileir("reduce", kernel.name, cwd=kernel.parent)
    assert done.returncode == 2 and "one of the arguments" in done.stderr
    done = _tileir("reduce", kernel.name, "--diagnostic", "x", "--engines-differ",
                   cwd=kernel.parent)
    assert done.returncode == 2 and "not allowed with" in done.stderr
