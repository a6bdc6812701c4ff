"""The command-line tools when their environment fails them: closed, full or broken
standard streams, output paths that cannot be written, input that is not text, Ctrl-C.
Each ends with one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.cli.common import guarded

KERNEL = Path(tileir.__file__).parent / "examples" / "kernels" / "vector_add.mlir"
TOOLS = {"tileir": "tileir", "cuda-tile-opt": "tileir.cli.opt",
         "cuda-tile-translate": "tileir.cli.translate"}
FULL = "/dev/full"


def _shell(command: str, **kwargs) -> subprocess.CompletedProcess:
    """`command` run by bash, with the tools spelled as `python -m` modules."""
    for tool, module in sorted(TOOLS.items(), key=lambda t: -len(t[0])):
        command = command.replace(f"@{tool}", f"{sys.executable} -m {module}")
    return subprocess.run(["bash", "-c", command], stdout=kwargs.pop("stdout", subprocess.PIPE),
                          stderr=subprocess.PIPE, text=True, timeout=120, **kwargs)


def _one_line(run: subprocess.CompletedProcess, line: str, status: int = 1) -> None:
    assert (run.returncode, run.stderr) == (status, line + "\n")


def test_closed_stdin() -> None:
    _one_line(_shell("@cuda-tile-opt - <&-"),
              "cuda-tile-opt: cannot read standard input: it is closed")
    _one_line(_shell("@cuda-tile-translate -mlir-to-cudatilebc - <&-"),
              "cuda-tile-translate: cannot read standard input: it is closed")


@pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("tool, args", [
    ("tileir", f"check {KERNEL}"),
    ("tileir", f"show {KERNEL}"),
    ("cuda-tile-opt", f"{KERNEL}"),
    ("cuda-tile-translate", f"-mlir-to-cudatilebc {KERNEL}"),
])
def test_a_full_stdout(tool, args) -> None:
    _one_line(_shell(f"@{tool} {args} > {FULL}"),
              f"{tool}: cannot write standard output: No space left on device")


@pytest.mark.parametrize("tool, args", [
    ("tileir", f"check {KERNEL}"),
    ("cuda-tile-opt", f"{KERNEL}"),
    ("cuda-tile-translate", f"-mlir-to-cudatilebc {KERNEL}"),
])
def test_a_closed_stdout(tool, args) -> None:
    _one_line(_shell(f"@{tool} {args} >&-"),
              f"{tool}: cannot write standard output: it is closed")


def test_a_closed_stdout_does_not_matter_with_an_output_file(tmp_path) -> None:
    out = tmp_path / "out.mlir"
    run = _shell(f"@cuda-tile-opt {KERNEL} -o {out} >&-")
    assert (run.returncode, run.stderr) == (0, "")
    assert out.read_text().startswith("module {\n  cuda_tile.module @examples {\n")


@pytest.mark.parametrize("where, reason", [
    ("missing/out.tileirbc", "No such file or directory"),
    (".", "Is a directory"),
])
def test_an_output_path_that_cannot_be_written(tmp_path, where, reason) -> None:
    path = tmp_path / where
    _one_line(_shell(f"@cuda-tile-translate -mlir-to-cudatilebc {KERNEL} -o {path}"),
              f"cuda-tile-translate: cannot write '{path}': {reason}")
    _one_line(_shell(f"@cuda-tile-opt {KERNEL} -o {path}"),
              f"cuda-tile-opt: cannot write '{path}': {reason}")


@pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")
def test_an_output_file_on_a_full_device() -> None:
    _one_line(_shell(f"@cuda-tile-translate -mlir-to-cudatilebc {KERNEL} -o {FULL}"),
              f"cuda-tile-translate: cannot write '{FULL}': No space left on device")


@pytest.mark.parametrize("tool, args", [
    ("tileir", "show {big}"),
    ("cuda-tile-opt", "-split-input-file {big}"),
])
def test_a_broken_pipe(tmp_path, tool, args) -> None:
    # a pipe whose reading end is closed before the tool writes (as `| head` does)
    big = tmp_path / "big.mlir"
    big.write_text("\n// -----\n".join([KERNEL.read_text()] * 50))
    read, write = os.pipe()
    os.close(read)
    try:
        run = _shell(f"@{tool} {args.format(big=big)}", stdout=write)
    finally:
        os.close(write)
    _one_line(run, f"{tool}: cannot write standard output: the reading end of the pipe "
                   "closed")


def test_bytecode_given_to_the_text_tool(tmp_path) -> None:
    binary = tmp_path / "k.tileirbc"
    binary.write_bytes(tileir.parse(KERNEL.read_text()).to_bytecode())
    _one_line(_shell(f"@cuda-tile-opt {binary}"),
              f"cuda-tile-opt: '{binary}' is Tile IR bytecode, not text; read it with "
              "cuda-tile-translate -cudatilebc-to-mlir")


def test_non_utf8_input_is_refused_from_a_file_and_from_stdin(tmp_path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_bytes(b"cuda_tile.module @m {\xff}")
    _one_line(_shell(f"@cuda-tile-opt {bad}"),
              f"cuda-tile-opt: cannot read '{bad}': not UTF-8 text (byte 21)")
    _one_line(_shell(f"@cuda-tile-opt - < {bad}"),
              "cuda-tile-opt: cannot read '<stdin>': not UTF-8 text (byte 21)")


def test_a_missing_input() -> None:
    _one_line(_shell("@cuda-tile-opt /no/such/file.mlir"),
              "cuda-tile-opt: cannot read '/no/such/file.mlir': No such file or directory")


def test_ctrl_c_is_one_line_and_status_130(capsys) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt
    assert guarded("cuda-tile-opt", interrupted) == 130
    assert capsys.readouterr().err == "cuda-tile-opt: interrupted\n"


def test_status_line_draws_throttled_and_clears() -> None:
    """The one progress line of the CLIs (`common.StatusLine`): nothing before `after`,
    at most one draw per `every`, padded over a longer previous line, wiped by clear; a
    lazily made text is made only when drawn."""
    import io
    from tileir.cli.common import StatusLine

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    now = [0.0]
    made: list[str] = []

    def text(word: str):
        def make() -> str:
            made.append(word)
            return word
        return make
    stream = Terminal()
    line = StatusLine(stream, clock=lambda: now[0], after=1.0, every=0.5)
    line.show(text("early"))
    now[0] = 1.0
    line.show(text("longer"))
    now[0] = 1.2
    line.show(text("skipped"))
    now[0] = 2.0
    line.show("ab")
    line.clear()
    assert made == ["longer"]
    assert stream.getvalue() == "\rlonger\rab    \r  \r"   # (the padding blanked the rest)
    assert StatusLine(io.StringIO()).enabled is False and StatusLine(None).enabled is False
