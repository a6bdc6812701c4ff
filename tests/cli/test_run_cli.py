"""`tileir run`: kernels run from the shell, end to end (subprocesses on real files), their
results checked against NumPy computing the same from the same inputs."""

from __future__ import annotations

import argparse
import io
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tileir
from tileir.cli.run import (PROGRESS_AFTER, Progress, Refusal, _arguments, parameter_names,
                            progress_text)
from tileir.diagnostics import ExecutionError, LaunchError
from tileir.interp import launch
from tileir.types import F32, TileType

KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"
TIME = re.compile(r"time: \d+\.\d{3} s")


def run(cwd: Path, *argv: str, command: str = "run") -> subprocess.CompletedProcess:
    """``python -m tileir run ARGV...`` in `cwd`."""
    return subprocess.run([sys.executable, "-m", "tileir", command, *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def stable(out: str) -> str:
    """`out` without its one varying line, the time (checked to be there, once)."""
    lines = out.splitlines(keepends=True)
    times = [line for line in lines if TIME.fullmatch(line.rstrip("\n"))]
    assert len(times) == 1, out
    return "".join(line for line in lines if line not in times)


def copy(tmp_path: Path, name: str) -> str:
    """Copy a shipped kernel into `tmp_path` (so that messages name it shortly)."""
    shutil.copy(KERNELS / name, tmp_path / name)
    return name


def write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return name


def keep_kernel(*types: str) -> str:
    """A kernel taking a buffer of each element type in `types` and doing nothing: what the
    run leaves in them is what the command made."""
    params = ", ".join(f"%p{i}: tile<ptr<{t}>>" for i, t in enumerate(types))
    return f"cuda_tile.module @keep {{\n  entry @keep({params}) {{\n    return\n  }}\n}}\n"


SCALARS = """\
cuda_tile.module @scal {
  entry @scal(%x: tile<f32>, %i: tile<i8>, %p: tile<ptr<f32>>, %q: tile<ptr<i8>>) {
    %t0 = store_ptr_tko weak %p, %x : tile<ptr<f32>>, tile<f32> -> token
    %t1 = store_ptr_tko weak %q, %i : tile<ptr<i8>>, tile<i8> -> token
    return
  }
}
"""

TWO_ENTRIES = """\
cuda_tile.module @two {
  entry @first(%p: tile<ptr<f32>>) {
    return
  }
  entry @second(%p: tile<ptr<f32>>) {
    return
  }
}
"""

# Prints a line and stores its block id, once per tile block: endless enough to interrupt.
PRINTING = """\
cuda_tile.module @printing {
  entry @printing(%p: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t0 = print_tko "block %d\\n", %bx : tile<i32> -> token
    %t1 = store_ptr_tko weak %p, %bx : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


def fmt(values) -> str:
    """Elements as the output writes a small array: NumPy's text of each, in a list."""
    return "[" + ", ".join(str(v) for v in values) + "]"


# ------------------------------------------------------------------------- successful runs


def test_vector_add_from_npy_files(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    rng = np.random.default_rng(123)
    a = rng.standard_normal(200).astype(np.float32)
    b = rng.standard_normal(200).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    before = {n: (tmp_path / n).read_bytes() for n in ("a.npy", "b.npy")}
    done = run(tmp_path, kernel, "--grid", "4", "a.npy", "b.npy", "zeros:200xf32", "200",
               "-o", "out.npz")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    c = a + b       # f32 addition, as NumPy computes it
    with np.load(tmp_path / "out.npz") as out:
        # (keyed by the names the kernel's text gives its parameters: %a, %b, %c)
        assert sorted(out.files) == ["a", "b", "c"]
        assert out["c"].dtype == np.float32
        assert out["c"].tobytes() == c.tobytes()
        assert out["a"].tobytes() == a.tobytes() and out["b"].tobytes() == b.tobytes()
    # without --in-place the inputs are never written
    assert {n: (tmp_path / n).read_bytes() for n in before} == before

    def summarized(name, x):
        return (f"  {name}: float32[200]: min {str(x.min())}, max {str(x.max())}, "
                f"first {fmt(x[:8])[:-1]}, ...]\n")
    assert stable(done.stdout) == (
        "file: vector_add.mlir\n"
        "kernel: vector_add\n"
        "grid: 4x1x1 (4 tile blocks)\n"
        "engine: batched\n"
        "buffers after the run:\n"
        + summarized("a", a) + summarized("b", b) + summarized("c", c)
        + "saved: out.npz (a, b, c)\n")


def test_small_arrays_print_in_full_exactly(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    done = run(tmp_path, kernel, "--grid", "1", "arange:8xf32", "full:2.5:8xf32", "zeros:8",
               "8")
    assert done.returncode == 0, done.stderr
    assert stable(done.stdout) == (
        "file: vector_add.mlir\n"
        "kernel: vector_add\n"
        "grid: 1x1x1 (1 tile block)\n"
        "engine: batched\n"
        "buffers after the run:\n"
        "  a: float32[8] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n"
        "  b: float32[8] = [2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5]\n"
        "  c: float32[8] = [2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]\n")


def test_full_prints_large_arrays_whole_and_options_show_in_the_engine_line(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    done = run(tmp_path, kernel, "--grid", "2,1", "arange:100xf32", "ones:100xf32",
               "zeros:100xf32", "100", "--full", "--engine", "blocks", "--schedule",
               "reverse", "--no-checks")
    assert done.returncode == 0, done.stderr
    lines = stable(done.stdout).splitlines()
    assert lines[:5] == ["file: vector_add.mlir", "kernel: vector_add",
                         "grid: 2x1x1 (2 tile blocks)",
                         "engine: blocks, schedule reverse, checks off",
                         "buffers after the run:"]
    assert lines[7] == "  c: float32[100] = [" + ", ".join(
        f"{i + 1}.0" for i in range(100)) + "]"


def test_bytecode_file_runs_as_its_text(tmp_path):
    (tmp_path / "va.tileirbc").write_bytes(tileir.load(KERNELS / "vector_add.mlir")
                                           .to_bytecode())
    a = np.linspace(-1, 1, 64, dtype=np.float32)
    np.save(tmp_path / "a.npy", a)
    done = run(tmp_path, "va.tileirbc", "--grid", "1", "a.npy", "a.npy", "zeros:64xf32",
               "64", "-o", "out.npz")
    assert done.returncode == 0, done.stderr
    assert stable(done.stdout).startswith("file: va.tileirbc\nkernel: vector_add\n"
                                          "grid: 1x1x1 (1 tile block)\n")
    with np.load(tmp_path / "out.npz") as out:
        assert out["arg2"].tobytes() == (a + a).tobytes()


def test_a_bytecode_kernel_names_its_parameters_arg0_arg1_and_so_on(tmp_path):
    # (bytecode keeps no SSA names: the buffers, the archive and the messages say argN,
    # where the same kernel's text says a, b, c, n)
    copy(tmp_path, "vector_add.mlir")
    (tmp_path / "va.tileirbc").write_bytes(tileir.load(KERNELS / "vector_add.mlir")
                                           .to_bytecode())
    a = np.arange(8, dtype=np.float32) - 2.5
    np.save(tmp_path / "a.npy", a)
    runs = {kernel: run(tmp_path, kernel, "--grid", "1", "a.npy", "ones:8", "zeros:8", "8",
                        "-o", f"{kernel}.npz")
            for kernel in ("va.tileirbc", "vector_add.mlir")}
    for (kernel, done), names in zip(runs.items(), [("arg0", "arg1", "arg2"), ("a", "b", "c")]):
        assert done.returncode == 0, done.stderr
        assert stable(done.stdout).endswith(
            "buffers after the run:\n"
            f"  {names[0]}: float32[8] = {fmt(a)}\n"
            f"  {names[1]}: float32[8] = {fmt(np.ones(8, np.float32))}\n"
            f"  {names[2]}: float32[8] = {fmt(a + np.float32(1))}\n"
            f"saved: {kernel}.npz ({', '.join(names)})\n")
        with np.load(tmp_path / f"{kernel}.npz") as out:
            assert sorted(out.files) == list(names)
            assert out[names[2]].tobytes() == (a + np.float32(1)).tobytes()
    wrong = run(tmp_path, "va.tileirbc", "--grid", "1", "zeros:8")
    assert (wrong.returncode, wrong.stdout, wrong.stderr) == (
        2, "", "tileir run: the kernel takes 4 arguments (%arg0: tile<ptr<f32>>, "
        "%arg1: tile<ptr<f32>>, %arg2: tile<ptr<f32>>, %arg3: tile<i32>), got 1\n")


def test_parameter_names_are_the_texts_else_argN(tmp_path):
    text = (KERNELS / "vector_add.mlir").read_text()
    module = tileir.parse(text)
    assert parameter_names(module.entries[0], module) == ["a", "b", "c", "n"]
    (tmp_path / "va.tileirbc").write_bytes(module.to_bytecode())
    read = tileir.load(tmp_path / "va.tileirbc")
    assert parameter_names(read.entries[0], read) == ["arg0", "arg1", "arg2", "arg3"]
    assert parameter_names(module.entries[0]) == ["arg0", "arg1", "arg2", "arg3"]

    def names(params: str) -> list[str]:
        m = tileir.parse(f"cuda_tile.module @m {{\n  entry @k({params}) {{\n    return\n"
                         "  }\n}\n")
        return parameter_names(m.entries[0], m)
    # a number is no name (argN in its place); names that would collide: argN for all
    assert names("%0: tile<ptr<f32>>, %y: tile<ptr<f32>>") == ["arg0", "y"]
    assert names("%arg1: tile<ptr<f32>>, %0: tile<ptr<f32>>") == ["arg0", "arg1"]


def test_a_file_whose_name_looks_like_a_generator_is_read(tmp_path):
    kernel = write(tmp_path, "keep.mlir", keep_kernel("i16"))
    np.save(tmp_path / "data:7.npy", np.array([7, -7], np.int16))
    done = run(tmp_path, kernel, "--grid", "1", "data:7.npy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("  p0: int16[2] = [7, -7]\n")


def test_multi_entry_module_runs_the_entry_named(tmp_path):
    kernel = write(tmp_path, "two.mlir", TWO_ENTRIES)
    done = run(tmp_path, kernel, "--kernel", "second", "--grid", "1", "ones:2")
    assert done.returncode == 0, done.stderr
    assert "kernel: second\n" in done.stdout
    assert done.stdout.endswith("  p: float32[2] = [1.0, 1.0]\n")


def test_scalars_negative_numbers_and_hex_are_arguments_not_options(tmp_path):
    kernel = write(tmp_path, "scal.mlir", SCALARS)
    for x, i, want_x, want_i in [("-1e-3", "-0x10", np.float32(-1e-3), -16),
                                 ("0x1.8p1", "255", np.float32(3.0), -1),
                                 ("-inf", "-128", np.float32(-np.inf), -128)]:
        done = run(tmp_path, kernel, "--grid", "1", x, i, "zeros:1", "zeros:1", "-o", "o.npz")
        assert done.returncode == 0, done.stderr
        with np.load(tmp_path / "o.npz") as out:
            assert out["p"].tobytes() == np.array([want_x], np.float32).tobytes()
            assert out["q"].tobytes() == np.array([want_i], np.int8).tobytes()


def test_in_place_writes_npy_files_back_after_a_successful_run(tmp_path):
    kernel = copy(tmp_path, "ub_div_by_zero.mlir")
    rng = np.random.default_rng(5)
    a = rng.integers(-1000, 1000, 32).astype(np.int32)
    b = rng.integers(1, 50, 32).astype(np.int32) * rng.choice([-1, 1], 32).astype(np.int32)
    for name, x in [("a", a), ("b", b), ("q", np.zeros(32, np.int32)),
                    ("r", np.full(32, 7, np.int32))]:
        np.save(tmp_path / f"{name}.npy", x)
    inputs = {n: (tmp_path / n).read_bytes() for n in ("a.npy", "b.npy")}
    done = run(tmp_path, kernel, "--grid", "2", "a.npy", "b.npy", "q.npy", "r.npy", "32",
               "--in-place")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("written back: a.npy, b.npy, q.npy, r.npy\n")
    # signed division rounding toward zero, and its remainder
    q = (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(np.int32)
    assert np.load(tmp_path / "q.npy").tobytes() == q.tobytes()
    assert np.load(tmp_path / "r.npy").tobytes() == (a - b * q).astype(np.int32).tobytes()
    assert {n: (tmp_path / n).read_bytes() for n in inputs} == inputs
    assert sorted(os.listdir(tmp_path)) == ["a.npy", "b.npy", "q.npy", "r.npy",
                                            "ub_div_by_zero.mlir"]


def test_written_files_keep_their_mode_and_new_ones_get_the_umasks(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    np.save(tmp_path / "c.npy", np.zeros(8, np.float32))
    os.chmod(tmp_path / "c.npy", 0o640)
    done = run(tmp_path, kernel, "--grid", "1", "ones:8", "ones:8", "c.npy", "8", "--in-place",
               "-o", "out.npz")
    assert done.returncode == 0, done.stderr
    assert np.load(tmp_path / "c.npy").tolist() == [2.0] * 8
    assert (tmp_path / "c.npy").stat().st_mode & 0o777 == 0o640
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "out.npz").stat().st_mode & 0o777 == 0o666 & ~umask


# ---------------------------------------------------------------------------- generators


@pytest.mark.parametrize("spec, element, expected", [
    ("rand:64xf16", "f16", lambda rng: rng.random(64).astype(np.float16)),
    ("rand:16x8xf32", "f32", lambda rng: rng.random((16, 8)).astype(np.float32)),
    ("randn:8x8xbf16", "bf16", lambda rng: rng.standard_normal((8, 8)).astype(ml_dtypes.bfloat16)),
    ("randn:32xf64", "f64", lambda rng: rng.standard_normal(32)),
    ("randn:32xf8E4M3FN", "f8E4M3FN",
     lambda rng: rng.standard_normal(32).astype(ml_dtypes.float8_e4m3fn)),
    ("rand:100xi8", "i8",
     lambda rng: rng.integers(-128, 127, size=100, endpoint=True).astype(np.int8)),
    ("arange:1000xi32", "i32", lambda rng: np.arange(1000, dtype=np.int32)),
    ("arange:1000", "f16", lambda rng: np.arange(1000).astype(np.float16)),
    ("zeros:4x4xf8E5M2", "f8E5M2", lambda rng: np.zeros((4, 4), ml_dtypes.float8_e5m2)),
    ("ones:3xi16", "i16", lambda rng: np.ones(3, np.int16)),
    ("full:-3:5xi64", "i64", lambda rng: np.full(5, -3, np.int64)),
    ("full:0x10:4", "i32", lambda rng: np.full(4, 16, np.int32)),
    ("full:-inf:4xf16", "f16", lambda rng: np.full(4, -np.inf, np.float16)),
    ("full:1e-3:8xbf16", "bf16", lambda rng: np.full(8, 1e-3).astype(ml_dtypes.bfloat16)),
    ("ones:2xi1", "i1", lambda rng: np.ones(2, np.bool_)),
])
@pytest.mark.parametrize("seed", [0, 7])
def test_generators_make_what_numpy_makes(tmp_path, spec, element, expected, seed):
    kernel = write(tmp_path, "keep.mlir", keep_kernel(element))
    done = run(tmp_path, kernel, "--grid", "1", spec, "--seed", str(seed), "-o", "o.npz")
    assert done.returncode == 0, done.stderr
    want = np.asarray(expected(np.random.default_rng(seed)))
    with np.load(tmp_path / "o.npz") as out:
        got = out["p0"]
    # (ml_dtypes arrays are saved, as NumPy saves them, as raw bytes of their size)
    assert got.shape == want.shape and got.dtype.itemsize == want.dtype.itemsize
    assert got.tobytes() == want.tobytes()


def test_random_generators_draw_one_stream_in_argument_order(tmp_path):
    kernel = write(tmp_path, "keep.mlir", keep_kernel("f32", "f32", "f32"))
    done = run(tmp_path, kernel, "--grid", "1", "rand:8", "zeros:8", "randn:8", "--seed", "3",
               "-o", "o.npz")
    assert done.returncode == 0, done.stderr
    rng = np.random.default_rng(3)
    first, second = rng.random(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    with np.load(tmp_path / "o.npz") as out:
        assert out["p0"].tobytes() == first.tobytes()
        assert out["p2"].tobytes() == second.tobytes()
    assert stable(done.stdout).endswith(
        f"  p0: float32[8] = {fmt(first)}\n"
        f"  p1: float32[8] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]\n"
        f"  p2: float32[8] = {fmt(second)}\n"
        "saved: o.npz (p0, p1, p2)\n")


def test_ml_dtypes_npy_files_are_read_and_printed(tmp_path):
    kernel = write(tmp_path, "keep.mlir", keep_kernel("bf16", "f8E4M3FN"))
    np.save(tmp_path / "h.npy", np.array([0.1, -2, 3.5, np.inf], ml_dtypes.bfloat16))
    np.save(tmp_path / "e.npy", np.array([0.875, -448, 0.001953125, 0], ml_dtypes.float8_e4m3fn))
    done = run(tmp_path, kernel, "--grid", "1", "h.npy", "e.npy")
    assert done.returncode == 0, done.stderr
    # (exact values: bf16's nearest to 0.1 is 0.10009765625)
    assert stable(done.stdout).endswith(
        "  p0: bfloat16[4] = [0.10009765625, -2.0, 3.5, inf]\n"
        "  p1: float8_e4m3fn[4] = [0.875, -448.0, 0.001953125, 0.0]\n")
    # float8_e5m2, which np.save describes so that np.load cannot read it, as raw bytes
    codes = np.array([0x3c, 0xc0, 0x7c, 0x01], np.uint8)       # 1, -2, inf, 2**-16
    np.save(tmp_path / "f.npy", codes.view("V1"))
    kernel = write(tmp_path, "keep2.mlir", keep_kernel("f8E5M2"))
    done = run(tmp_path, kernel, "--grid", "1", "f.npy", "-o", "o.npz")
    assert done.returncode == 0, done.stderr
    assert stable(done.stdout).endswith(
        "  p0: float8_e5m2[4] = [1.0, -2.0, inf, 1.52587890625e-05]\n"
        "saved: o.npz (p0)\n")
    with np.load(tmp_path / "o.npz") as out:
        assert out["p0"].dtype == np.dtype("V1")
        assert out["p0"].tobytes() == codes.tobytes()


def test_summaries_leave_nans_out_of_min_and_max_and_i1_prints_true_false(tmp_path):
    # (the min of [nan, nan, nan, inf, ...] once printed as nan: NaNs were set to +inf to
    # be passed over, then tied with the real infinities and came first)
    kernel = write(tmp_path, "keep.mlir", keep_kernel("f32", "i1", "bf16"))
    x = np.full(100, np.inf, np.float32)
    x[:3] = np.nan
    np.save(tmp_path / "x.npy", x)
    h = np.full(100, -np.inf, ml_dtypes.bfloat16)
    h[1] = np.nan
    h[50] = 0.1
    np.save(tmp_path / "h.npy", h)
    done = run(tmp_path, kernel, "--grid", "1", "x.npy", "ones:3xi1", "h.npy")
    assert done.returncode == 0, done.stderr
    assert stable(done.stdout).endswith(
        "  p0: float32[100]: min inf, max inf, 3 NaN, first [nan, nan, nan, inf, inf, inf, "
        "inf, inf, ...]\n"
        "  p1: bool[3] = [true, true, true]\n"
        "  p2: bfloat16[100]: min -inf, max 0.10009765625, 1 NaN, first [-inf, nan, -inf, "
        "-inf, -inf, -inf, -inf, -inf, ...]\n")


def test_a_0d_npy_file_stays_0d(tmp_path):
    # (np.ascontiguousarray made it a 1-element vector: printed float32[1], and the shape
    # a 0-d file was written back with depended on NumPy's broadcasting)
    kernel = write(tmp_path, "keep.mlir", keep_kernel("f32"))
    np.save(tmp_path / "s.npy", np.float32(2.5))
    done = run(tmp_path, kernel, "--grid", "1", "s.npy", "--in-place", "-o", "o.npz")
    assert done.returncode == 0, done.stderr
    assert stable(done.stdout).endswith("  p0: float32[] = 2.5\nsaved: o.npz (p0)\n"
                                        "written back: s.npy\n")
    for saved in (np.load(tmp_path / "s.npy"), np.load(tmp_path / "o.npz")["p0"]):
        assert saved.shape == () and saved.tobytes() == np.float32(2.5).tobytes()


# -------------------------------------------------------------------- undefined behaviour


def test_division_by_zero_reports_the_diagnostic_and_leaves_in_place_files(tmp_path):
    kernel = copy(tmp_path, "ub_div_by_zero.mlir")
    a = np.arange(16, dtype=np.int32)
    b = np.array([1] * 15 + [0], np.int32)
    for name, x in [("a", a), ("b", b), ("q", np.full(16, 9, np.int32)),
                    ("r", np.full(16, 9, np.int32))]:
        np.save(tmp_path / f"{name}.npy", x)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = run(tmp_path, kernel, "--grid", "1", "a.npy", "b.npy", "q.npy", "r.npy", "16",
               "--in-place", "-o", "out.npz")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "ub_div_by_zero.mlir:17:12: error: 'cuda_tile.divi' op division by zero at element "
        "[15]: 15 / 0 (tile block (0, 0, 0))\n"
        "    %quo = divi %x, %y signed : tile<16xi32>\n"
        "           ^\n")
    # byte for byte as they were, and nothing else written (no archive, no temporaries)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_out_of_bounds_access_is_reported_as_launch_reports_it(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    done = run(tmp_path, kernel, "--grid", "1", "zeros:16", "zeros:16", "zeros:16", "32")
    assert done.returncode == 1 and done.stdout == ""
    text = (tmp_path / kernel).read_text()
    with pytest.raises(ExecutionError) as caught:
        launch(tileir.parse(text, kernel), "vector_add", 1,
               [np.zeros(16, np.float32) for _ in range(3)] + [32])
    expected = "".join(d.render({kernel: text}) + "\n" for d in caught.value.diagnostics)
    assert done.stderr == expected
    assert done.stderr.startswith(
        "vector_add.mlir:15:20: error: 'cuda_tile.load_view_tko' op accesses address ")
    assert "(tile block (0, 0, 0))\n    %x, %x_token = load_view_tko weak" in done.stderr
    assert "\nvector_add.mlir:15:20: note: undefined behaviour in the kernel: " in done.stderr


def test_kernel_file_errors_print_as_check_prints_them(tmp_path):
    kernel = write(tmp_path, "bad.mlir", "cuda_tile.module @m {\n  entry @k(%p: tile<3xf32>) "
                   "{\n    return\n  }\n}\n")
    done = run(tmp_path, kernel, "--grid", "1", "x")
    checked = run(tmp_path, kernel, command="check")
    assert done.returncode == checked.returncode == 1
    assert done.stdout == ""
    assert done.stderr == checked.stderr
    assert done.stderr.startswith("bad.mlir:2:")
    missing = run(tmp_path, "nope.mlir", "--grid", "1")
    assert missing.returncode == 1
    assert missing.stderr == "nope.mlir: error: cannot read: No such file or directory\n"


# ------------------------------------------------------------------------ wrong arguments

#: The kernels the argument tables run: each parameter as messages name it, and arguments
#: it takes (a case changes one of them).
PARAMETERS = {
    "vector_add.mlir": (["%a: tile<ptr<f32>>", "%b: tile<ptr<f32>>", "%c: tile<ptr<f32>>",
                         "%n: tile<i32>"], ["zeros:8", "zeros:8", "zeros:8", "8"]),
    "scal.mlir": (["%x: tile<f32>", "%i: tile<i8>", "%p: tile<ptr<f32>>",
                   "%q: tile<ptr<i8>>"], ["1", "1", "zeros:1", "zeros:1"]),
}
TOO_LONG = "9" * 5000       # (past the 4,300 digits int() reads: a traceback once)


def argument_files(tmp_path: Path) -> None:
    """The kernels of `PARAMETERS`, and the files the cases below pass."""
    copy(tmp_path, "vector_add.mlir")
    write(tmp_path, "scal.mlir", SCALARS)
    write(tmp_path, "two.mlir", TWO_ENTRIES)
    np.save(tmp_path / "f64.npy", np.zeros(8))
    # a header promising 10**12 floats over no data (np.load allocated 4 TB: a
    # MemoryError traceback once), and a file cut 10 bytes short of its header's 32
    with open(tmp_path / "huge.npy", "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f4", "fortran_order": False,
                                                      "shape": (10**12,)})
    np.save(tmp_path / "cut.npy", np.zeros(8, np.float32))
    (tmp_path / "cut.npy").write_bytes((tmp_path / "cut.npy").read_bytes()[:-10])
    np.save(tmp_path / "objects.npy", np.array([1, "x"], object), allow_pickle=True)
    (tmp_path / "pickled.npy").write_bytes(pickle.dumps([1.0, 2.0]))
    (tmp_path / "empty.npy").write_bytes(b"")
    np.savez(tmp_path / "z.npz", a=np.zeros(8, np.float32))
    (tmp_path / "adir").mkdir()


@pytest.mark.parametrize("kernel, at, word, why", [
    ("vector_add.mlir", 0, "f64.npy",
     "expected an array of float32 for f32, got float64 ('f64.npy')"),
    ("vector_add.mlir", 1, "missing.npy",
     "no such file 'missing.npy' (an array argument is a .npy file or a generator such as "
     "zeros:1024xf32)"),
    ("vector_add.mlir", 0, "huge.npy",
     "an array of shape 1000000000000 holds 4000000000000 bytes; a launch maps at most "
     "68719476736"),
    ("vector_add.mlir", 0, "cut.npy",
     "'cut.npy' is cut short: its header says 32 bytes of data, the file holds 22"),
    ("vector_add.mlir", 0, "objects.npy", "'objects.npy' holds Python objects (a pickle), "
     "not numbers"),
    ("vector_add.mlir", 0, "pickled.npy", "'pickled.npy' is not a .npy file (it does not "
     "start as one)"),
    ("vector_add.mlir", 0, "empty.npy", "'empty.npy' is not a .npy file (it does not start "
     "as one)"),
    ("vector_add.mlir", 0, "z.npz", "'z.npz' is an .npz archive; give a .npy file"),
    ("vector_add.mlir", 0, "adir", "'adir' is a directory, not a .npy file"),
    ("vector_add.mlir", 2, "zeros:8xf16", "the generator makes f16, the parameter takes f32"),
    ("vector_add.mlir", 3, "8.5", "expected an integer for i32, got '8.5'"),
    ("vector_add.mlir", 3, "eight", "expected a number, got 'eight'"),
    ("vector_add.mlir", 3, "0x100000000", "4294967296 does not fit in i32"),
    ("vector_add.mlir", 0, "zero:8", "unknown generator 'zero' in 'zero:8' (generators: "
     "zeros, ones, full, arange, rand, randn)"),
    ("vector_add.mlir", 0, "zeros:8xf99", "'zeros:8xf99': 'f99' is not a Tile IR element "
     "type"),
    ("vector_add.mlir", 0, "zeros:8x", "'zeros:8x': expected SHAPE or SHAPExTYPE after "
     "'zeros:', e.g. zeros:64x64xf32"),
    ("vector_add.mlir", 0, "full:8", "'full:8': full takes a value first, e.g. "
     "full:1.5:64xf32"),
    ("vector_add.mlir", 0, "full:x:8", "'full:x:8': 'x' is not a number"),
    # shapes past what a launch maps, refused before any of it is made (NumPy's "array is
    # too big" and "maximum allowed size" were tracebacks)
    ("vector_add.mlir", 0, "zeros:100000000x100000000x100000000",
     "an array of shape 100000000x100000000x100000000 holds 4000000000000000000000000 "
     "bytes; a launch maps at most 68719476736"),
    ("vector_add.mlir", 0, "arange:99999999999999999999",
     "an array of shape 99999999999999999999 holds 399999999999999999996 bytes; a launch "
     "maps at most 68719476736"),
    ("vector_add.mlir", 0, "zeros:" + TOO_LONG,
     f"'zeros:{TOO_LONG[:34]}...': a dimension too long to read"),
    ("scal.mlir", 1, "300", "300 does not fit in i8"),
    ("scal.mlir", 3, "full:256:1", "256 does not fit in i8"),
    ("scal.mlir", 3, "randn:4", "randn makes normally distributed floats, not i8 (use rand "
     "for random integers)"),
])
def test_an_argument_its_parameter_cannot_take_exits_2_naming_it(tmp_path, kernel, at, word,
                                                                 why):
    argument_files(tmp_path)
    params, good = PARAMETERS[kernel]
    done = run(tmp_path, kernel, "--grid", "1", *good[:at], word, *good[at + 1:])
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"tileir run: argument {at} ({params[at]}): {why}\n")


@pytest.mark.parametrize("argv, message", [
    (["vector_add.mlir", "--grid", "1", "zeros:8", "zeros:8", "8"],
     "the kernel takes 4 arguments (%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, "
     "%c: tile<ptr<f32>>, %n: tile<i32>), got 3"),
    (["two.mlir", "--grid", "1", "zeros:8"],
     "the module has 2 entries (first, second): choose one with --kernel"),
    (["two.mlir", "--kernel", "third", "--grid", "1", "zeros:8"],
     "no entry named 'third' in the module (entries: first, second)"),
    # launch's own refusal (the batched engine cannot bound ops), as launch words it
    (["vector_add.mlir", "--grid", "1", "zeros:8", "zeros:8", "zeros:8", "8", "--engine",
      "batched", "--max-ops", "10"],
     "the batched engine cannot run this kernel: max_ops bounds tile blocks run one at a "
     "time"),
    # -o naming a file --in-place writes back (however spelled): the archive was lost
    # while the output said "saved"
    (["vector_add.mlir", "--grid", "1", "zeros:8", "zeros:8", "f32.npy", "8", "--in-place",
      "-o", "./f32.npy"],
     "-o './f32.npy' is an argument --in-place writes back; save the archive under another "
     "name"),
])
def test_wrong_command_lines_exit_2_with_one_line(tmp_path, argv, message):
    argument_files(tmp_path)
    np.save(tmp_path / "f32.npy", np.zeros(8, np.float32))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    done = run(tmp_path, *argv)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"tileir run: {message}\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_larger_tile_parameters_take_arrays_of_their_shape():
    # (entries take rank-0 tiles only; a testing function may take larger ones)
    t = TileType((4, 2), F32)
    passed = _arguments([t], ["x"], ["arange:4x2xf32"], 0)
    assert passed.values[0].tobytes() == np.arange(8, dtype=np.float32).tobytes()
    with pytest.raises(Refusal) as caught:
        _arguments([t], ["x"], ["zeros:8xf32"], 0)
    assert str(caught.value) == ("argument 0 (%x: tile<4x2xf32>): expected shape 4x2, got 8 "
                                 "('zeros:8xf32')")


def test_launch_refusal_is_worded_as_launch_words_it():
    module = tileir.load(KERNELS / "vector_add.mlir")
    with pytest.raises(LaunchError) as caught:          # (what makes `tileir run` exit 2)
        launch(module, None, 1, [np.zeros(8, np.float32)] * 3 + [8], engine="batched",
               max_ops=10)
    assert caught.value.diagnostics[0].message == (
        "the batched engine cannot run this kernel: max_ops bounds tile blocks run one at a "
        "time")


def test_bad_grid_is_a_usage_error(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    done = run(tmp_path, kernel, "--grid", "0", "zeros:8", "zeros:8", "zeros:8", "8")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.endswith("tileir run: error: argument --grid: expected 1 to 3 positive "
                                "integers of at most 2147483647, separated by commas, got '0'\n")


def test_unwritable_output_exits_1_before_running_and_touches_nothing(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    np.save(tmp_path / "c.npy", np.full(8, 5, np.float32))
    (tmp_path / "adir").mkdir()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    for output, why in [("nodir/out.npz", "No such file or directory"),
                        ("adir", "it is a directory")]:
        done = run(tmp_path, kernel, "--grid", "1", "ones:8", "ones:8", "c.npy", "8",
                   "--in-place", "-o", output)
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == f"tileir run: cannot write '{output}': {why}\n"
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert os.listdir(tmp_path / "adir") == []


# ------------------------------------------------------------------------------- --trace


def table_rows(table: str) -> list[dict[str, str]]:
    """The rows of a trace table (`Trace.format`): each event row by column (cut where the
    header's column names start), a block line as {"block": "(0, 0, 0)"}, and each line
    `--full` prints below a row as {"detail": its text}."""
    header, *lines = table.splitlines()
    starts = [(m.start(), m.group()) for m in re.finditer(r"\S+", header)]
    assert [name for _, name in starts] == ["#", "location", "iter", "op", "value", "type",
                                            "contents"], header
    value = starts[4][0]
    rows: list[dict[str, str]] = []
    for line in lines:
        block = re.fullmatch(r"tile block (\(\d+, \d+, \d+\)):", line)
        if block:
            rows.append({"block": block[1]})
        elif line.startswith("      ") and not (line[:value].isspace()
                                                and line[value:].startswith("%")):
            rows.append({"detail": line.strip()})       # (not an op's next value: %name)
        else:
            bounds = [s for s, _ in starts] + [None]
            rows.append({name: line[bounds[i]:bounds[i + 1]].strip()
                         for i, (_, name) in enumerate(starts)})
    return rows


def trace_of(stdout: str, title: str = "trace:") -> str:
    """The table `tileir run` printed after `title`, up to the buffers (or the end)."""
    assert stdout.count(f"\n{title}\n") + stdout.startswith(f"{title}\n") == 1, stdout
    after = stdout.split(f"{title}\n", 1)[1]
    return after.split("buffers after the run:", 1)[0].removesuffix("\n")


def op_lines(text: str) -> list[tuple[int, str, int]]:
    """(line, op name, column of the op name) of each op with results in the kernel's
    text, in order: what its trace records, read from the text itself."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(r"\s*%[\w, %]+=\s*([a-z_]+)", line)
        if match:
            found.append((number, match[1], match.start(1) + 1))
    return found


def f32(text: str) -> float:
    """An f32 value printed as the shortest text that reads back as it, read back."""
    return float(np.float32(text))


def compact(contents: str) -> tuple[float, float, list[float]]:
    """min, max and the first elements of a larger f32 tile's contents cell, as numbers."""
    match = re.fullmatch(r"min (\S+) max (\S+)  \[(.*), \.\.\.\]", contents)
    assert match, contents
    return f32(match[1]), f32(match[2]), [f32(x) for x in match[3].split(", ")]


def test_trace_of_one_op_is_launchs_table_and_numpys_sum(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    a = np.array([0.5, -1.25, 3, 2.75, -0.125, 10, 7.5, -6], np.float32)
    b = np.array([1, 2, -3, 0.25, 4.5, -10, 0.5, 1e-3], np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    done = run(tmp_path, kernel, "--grid", "1", "a.npy", "b.npy", "zeros:8", "8",
               "--trace", "op=addf")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    text = (tmp_path / kernel).read_text()
    api = tileir.launch(tileir.parse(text, kernel), "vector_add", 1,
                        [a.copy(), b.copy(), np.zeros(8, np.float32), 8], trace="op=addf")
    assert api.engine == "blocks" and api.reason      # (a trace runs block by block)
    c = a + b
    assert stable(done.stdout) == (
        "file: vector_add.mlir\n"
        "kernel: vector_add\n"
        "grid: 1x1x1 (1 tile block)\n"
        f"engine: blocks (not batched: {api.reason})\n"
        "trace:\n" + api.trace.format() + "\n"
        "buffers after the run:\n"
        f"  a: float32[8] = {fmt(a)}\n"
        f"  b: float32[8] = {fmt(b)}\n"
        f"  c: float32[8] = {fmt(c)}\n")
    # the one row: the addf of the text, its 64-element tile the sum padded with zeros
    [(line, op, column)] = [x for x in op_lines(text) if x[1] == "addf"]
    block, row = table_rows(trace_of(done.stdout))
    assert block == {"block": "(0, 0, 0)"}
    assert {k: v for k, v in row.items() if k != "contents"} == {
        "#": "0", "location": f"vector_add.mlir:{line}:{column}", "iter": "", "op": "addf",
        "value": "%sum", "type": "tile<64xf32>"}
    tile = np.zeros(64, np.float32)
    tile[:8] = c
    low, high, first = compact(row["contents"])
    assert (low, high) == (float(tile.min()), float(tile.max()))
    assert first == [float(x) for x in tile[:len(first)]] and len(first) == 4


def test_trace_without_spec_records_every_op_of_block_0(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    a = np.arange(128, dtype=np.float32)
    done = run(tmp_path, kernel, "--grid", "2", "arange:128", "full:0.5:128", "zeros:128",
               "128", "-o", "out.npz", "--trace")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / kernel).read_text()
    api = tileir.launch(tileir.parse(text, kernel), None, 2,
                        [a.copy(), np.full(128, 0.5, np.float32), np.zeros(128, np.float32),
                         128], trace=True)
    table = trace_of(done.stdout)
    assert table == api.trace.format()
    assert done.stdout.index("\ntrace:\n") > done.stdout.index("\ntime: ")
    rows = table_rows(table)
    assert rows[0] == {"block": "(0, 0, 0)"}
    assert [r for r in rows if "block" in r] == [rows[0]]     # (block 0 only)
    events = [r for r in rows[1:] if r["#"]]
    assert [r["#"] for r in events] == [str(i) for i in range(len(events))]
    # the kernel's arguments, then each op of the text with results, in program order
    ops = op_lines(text)
    assert [r["op"] for r in events] == ["entry (args)"] + [op for _, op, _ in ops]
    assert [r["location"] for r in events[1:]] == [f"vector_add.mlir:{n}:{column}"
                                                   for n, _, column in ops]
    # the entry's row and those below it: its parameters, as the text names them
    params = re.findall(r"%(\w+): tile", text.split("entry @vector_add(")[1].split(")")[0])
    arguments = rows[1:1 + len(params)]
    assert [r["value"] for r in arguments] == ["%" + p for p in params]
    assert arguments[-1]["contents"] == "128"                           # %n
    ids = rows.index(next(r for r in events if r["op"] == "get_tile_block_id"))
    assert [r["contents"] for r in rows[ids:ids + 3]] == ["0", "0", "0"]
    # tracing one block changes no result: block 1 ran too
    with np.load(tmp_path / "out.npz") as out:
        assert out["c"].tobytes() == (a + np.float32(0.5)).tobytes()


def test_trace_full_prints_every_element_of_a_tile(tmp_path):
    kernel = copy(tmp_path, "vector_add.mlir")
    rng = np.random.default_rng(11)
    a = rng.standard_normal(100).astype(np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    argv = [kernel, "--grid", "2", "a.npy", "b.npy", "zeros:100", "100", "--trace",
            "op=addf"]
    full, short = run(tmp_path, *argv, "--full"), run(tmp_path, *argv)
    assert full.returncode == short.returncode == 0, full.stderr + short.stderr
    text = (tmp_path / kernel).read_text()
    api = tileir.launch(tileir.parse(text, kernel), None, 2,
                        [a.copy(), b.copy(), np.zeros(100, np.float32), 100], trace="op=addf")
    assert trace_of(full.stdout) == api.trace.format(full=True)
    assert trace_of(short.stdout) == api.trace.format()
    c = a + b
    # below the addf row, all 64 elements of block 0's tile, exactly (elements 0..63)
    rows = table_rows(trace_of(full.stdout))
    assert [r.get("op") for r in rows[:2]] == [None, "addf"]
    details = [r["detail"] for r in rows[2:]]
    assert len(details) == len(rows) - 2 >= 1
    assert [f32(x) for x in " ".join(details).split()] == [float(x) for x in c[:64]]
    # without --full: the row alone, min, max and the first 4
    assert len(table_rows(trace_of(short.stdout))) == 2
    low, high, first = compact(table_rows(trace_of(short.stdout))[1]["contents"])
    assert (low, high, first) == (float(c[:64].min()), float(c[:64].max()),
                                  [float(x) for x in c[:4]])
    # --full prints the 100-element buffers whole too; without it they are summarized
    assert f"  c: float32[100] = {fmt(c)}\n" in full.stdout
    assert "  c: float32[100]: min " in short.stdout


def test_undefined_behaviour_under_trace_prints_the_trace_up_to_the_failure(tmp_path):
    kernel = copy(tmp_path, "ub_div_by_zero.mlir")
    a = np.arange(-8, 8, dtype=np.int32) * 3
    b = np.array([3, -1, 2, 5, 7, 0, 1, 1, 2, 2, 9, -4, 1, 1, 1, 1], np.int32)
    for name, x in [("a", a), ("b", b), ("q", np.full(16, 9, np.int32)),
                    ("r", np.full(16, 9, np.int32))]:
        np.save(tmp_path / f"{name}.npy", x)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = run(tmp_path, kernel, "--grid", "1", "a.npy", "b.npy", "q.npy", "r.npy", "16",
               "--in-place", "-o", "out.npz", "--trace", "--full")
    assert done.returncode == 1
    text = (tmp_path / kernel).read_text()
    with pytest.raises(ExecutionError) as caught:
        tileir.launch(tileir.parse(text, kernel), None, 1,
                      [a.copy(), b.copy(), np.zeros(16, np.int32), np.zeros(16, np.int32), 16],
                      trace=True)
    failure = caught.value
    assert not isinstance(failure, LaunchError) and failure.trace is not None
    assert done.stdout == "trace (up to the failure):\n" + failure.trace.format(full=True) + "\n"
    assert done.stderr == "".join(d.render({kernel: text}) + "\n" for d in failure.diagnostics)
    [(line, _, column)] = [x for x in op_lines(text) if x[1] == "divi"]
    assert done.stderr.startswith(f"ub_div_by_zero.mlir:{line}:{column}: error: "
                                  "'cuda_tile.divi' op division by zero at element [5]")
    # the rows: up to the second load (both loaded tiles, every element), no divi
    rows = table_rows(trace_of(done.stdout, "trace (up to the failure):"))
    events = [r for r in rows if r.get("#")]
    ops = [op for _, op, _ in op_lines(text)]
    assert [r["op"] for r in events] == ["entry (args)"] + ops[:ops.index("divi")]
    for name, x in [("%x", a), ("%y", b)]:
        at = next(i for i, r in enumerate(rows) if r.get("value") == name)
        assert rows[at]["op"] == "load_view_tko" and rows[at]["type"] == "tile<16xi32>"
        assert rows[at + 1]["detail"].split() == [str(int(v)) for v in x]
    # nothing written: the inputs byte for byte as they were, no archive, no temporaries
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("argv, spec, message", [
    (["--grid", "4", "--trace", "colour=red"], "colour=red",
     "trace spec item 'colour=red': expected block=X,Y,Z, block=all, op=NAME or line=N"),
    (["--grid", "4", "--trace", "block=9"], "block=9",
     "the trace names tile block (9, 0, 0), outside the grid (4, 1, 1)"),
    (["--grid", "4", "--trace", "--engine", "batched"], True,
     "a traced launch runs one tile block at a time: use engine 'auto' or 'blocks'"),
])
def test_trace_refusals_exit_2_with_launchs_line_and_write_nothing(tmp_path, argv, spec,
                                                                  message):
    kernel = copy(tmp_path, "vector_add.mlir")
    np.save(tmp_path / "c.npy", np.full(256, 3, np.float32))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = run(tmp_path, kernel, "ones:256", "ones:256", "c.npy", "256", "--in-place", "-o",
               "out.npz", *argv)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"tileir run: {message}\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    with pytest.raises(LaunchError) as caught:      # (launch's words, through the API)
        tileir.launch(tileir.load(KERNELS / "vector_add.mlir"), None, 4,
                      [np.ones(256, np.float32)] * 3 + [256], trace=spec,
                      engine="batched" if "batched" in argv else "auto")
    assert caught.value.diagnostics[0].message == message


def test_a_refusal_from_inside_a_traced_launch_prints_no_trace(tmp_path):
    # (the random schedule's bound is checked as the blocks are ordered, after the
    # arguments are mapped: its LaunchError once carried an empty trace, printed as
    # "trace (up to the failure): (no events)" before the refusal)
    kernel = write(tmp_path, "keep.mlir", keep_kernel("f32"))
    done = run(tmp_path, kernel, "--grid", str((1 << 24) + 1), "zeros:4", "--schedule",
               "random", "--trace")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"tileir run: the random schedule shuffles at most {1 << 24} tile blocks; "
        f"this grid has {(1 << 24) + 1}\n")


def test_a_word_without_equals_after_trace_is_an_argument(tmp_path):
    # (`--trace a.npy ...` once took a.npy for a SPEC: every SPEC item holds '=')
    kernel = copy(tmp_path, "vector_add.mlir")
    np.save(tmp_path / "a.npy", np.arange(8, dtype=np.float32))
    last = run(tmp_path, kernel, "--grid", "1", "a.npy", "a.npy", "zeros:8", "8", "--trace")
    assert last.returncode == 0, last.stderr
    for argv in (["--trace", "a.npy", "a.npy", "zeros:8", "8"],
                 ["a.npy", "a.npy", "zeros:8", "--tr", "8"],
                 ["a.npy", "a.npy", "--trace", "zeros:8", "8"]):
        done = run(tmp_path, kernel, "--grid", "1", *argv)
        assert done.returncode == 0, done.stderr
        assert stable(done.stdout) == stable(last.stdout)
    spec = run(tmp_path, kernel, "--grid", "1", "--trace", "op=addf", "a.npy", "a.npy",
               "zeros:8", "8")
    assert spec.returncode == 0, spec.stderr
    assert [r.get("op") for r in table_rows(trace_of(spec.stdout))] == [None, "addf"]



# ---------------------------------------------------------------- Ctrl-C and the progress


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_ctrl_c_stops_cleanly_and_leaves_in_place_files(tmp_path):
    kernel = write(tmp_path, "printing.mlir", PRINTING)
    np.save(tmp_path / "p.npy", np.full(1, -1, np.int32))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    process = subprocess.Popen(
        [sys.executable, "-m", "tileir", "run", kernel, "--grid", str(1 << 30), "p.npy",
         "--in-place", "--engine", "blocks", "--no-checks"], cwd=tmp_path, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # (Ctrl-C's default even when this test runs in a background job, which ignores it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline() == "block 0\n"      # (it is running blocks)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err == "tileir: interrupted\n"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_progress_text():
    assert progress_text(3, 10) == "tileir run: block 3/10 (30%)"
    assert progress_text(1, 3) == "tileir run: block 1/3 (33%)"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_after_a_second_and_is_cleared():
    now = [0.0]
    stream = _Terminal()
    progress = Progress(stream, clock=lambda: now[0])
    progress(1, 100)                          # (too early: nothing)
    now[0] = PROGRESS_AFTER + 0.5
    progress(9, 100)
    progress(10, 100)                         # (too soon after the last draw: nothing)
    now[0] += 1
    progress(100, 100)
    progress.clear()
    assert stream.getvalue() == ("\rtileir run: block 9/100 (9%)"
                                 "\rtileir run: block 100/100 (100%)"
                                 "\r" + " " * 32 + "\r")


def test_progress_writes_nothing_when_stderr_is_no_terminal():
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(stream, clock=lambda: now[0])
    now[0] = 100.0
    progress(5, 10)
    progress.clear()
    assert stream.getvalue() == ""
    assert Progress(None).enabled is False


def test_long_per_block_run_prints_no_progress_to_a_pipe(tmp_path):
    kernel = write(tmp_path, "keep.mlir", keep_kernel("f32"))
    done = run(tmp_path, kernel, "--grid", "2000", "zeros:4", "--engine", "blocks")
    assert done.returncode == 0 and done.stderr == ""
    assert "grid: 2000x1x1 (2000 tile blocks)\nengine: blocks\n" in done.stdout


def test_help_lists_every_option():
    done = subprocess.run([sys.executable, "-m", "tileir", "run", "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0
    options = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", done.stdout.split("\nARG,")[0]))
    assert options == {"-h", "--help", "--kernel", "--grid", "-o", "--in-place",
                       "--no-checks", "--schedule", "--seed", "--max-ops", "--engine",
                       "--full", "--trace"}


@pytest.mark.parametrize("reason, label", [
    ("compiled engine: the kernel prints, in the order of tile blocks", "not compiled: "
     "the kernel prints, in the order of tile blocks"),
    ("tracing runs tile blocks one at a time", "not batched: tracing runs tile blocks one "
     "at a time")])
def test_the_engine_line_names_the_engine_that_declined(reason, label):
    """One tile block at a time after the compiled engine declined says "not compiled"
    (found by a review: any run of the reference engine said "not batched")."""
    from tileir.cli.run import summary
    from tileir.interp.launch import Run
    options = argparse.Namespace(schedule="sequential", seed=None, checks=True)
    lines = summary("k.mlir", "k", (2,), Run("blocks", reason), options, 0.5)
    assert f"engine: blocks ({label})" in lines
