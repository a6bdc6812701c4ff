"""What ``import tileir`` gives a newcomer: a light import, `tileir.launch` and
`tileir.cutile` on first use, and `tileir.launch(path)` on text and bytecode files whose
run-time errors name the file."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import tileir

KERNELS = pathlib.Path(tileir.__file__).parent / "examples" / "kernels"


def _fresh(code: str) -> str:
    """The stdout of `code` run by a fresh interpreter (which must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_tileir_loads_neither_cuda_tile_nor_torch_nor_the_interpreter() -> None:
    loaded = json.loads(_fresh("import sys, json, tileir; print(json.dumps(list(sys.modules)))"))
    heavy = [name for name in loaded
             if name in ("cuda.tile", "torch", "tileir.interp", "tileir.cutile")
             or name.startswith(("cuda.tile.", "torch.", "tileir.interp.", "tileir.cutile."))]
    assert heavy == []
    assert "tileir" in loaded


def test_launch_and_cutile_load_on_first_use() -> None:
    found = _fresh("import sys, tileir\n"
                   "print('tileir.interp' in sys.modules)\n"
                   "launch = tileir.launch\n"
                   "print('tileir.interp' in sys.modules)\n"
                   "import tileir.interp\n"
                   "print(launch is tileir.interp.launch)\n")
    assert found == "False\nTrue\nTrue\n"


def test_launch_is_the_interpreters_launch() -> None:
    import tileir.interp
    assert tileir.launch is tileir.interp.launch


def test_cutile_is_the_module() -> None:
    cutile = tileir.cutile
    assert isinstance(cutile, types.ModuleType)
    assert cutile is sys.modules["tileir.cutile"]
    assert cutile.__name__ == "tileir.cutile"


def test_dir_lists_the_lazy_names() -> None:
    names = dir(tileir)
    for name in ("launch", "cutile", "compile", "Kernel", "Trace", "parse", "load", "Builder"):
        assert name in names
    assert names == sorted(names)


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'tileir' has no attribute 'no_such'"):
        tileir.no_such  # noqa: B018


def _bytecode_copy(text_path: pathlib.Path) -> pathlib.Path:
    """A bytecode file beside `text_path`, written by tileir from it."""
    path = text_path.with_suffix(".tileirbc")
    path.write_bytes(tileir.load(text_path).to_bytecode())
    return path


@pytest.mark.parametrize("kind", ["text", "bytecode"])
@pytest.mark.parametrize("as_type", [str, pathlib.Path])
def test_launch_runs_a_kernel_file(tmp_path, kind, as_type) -> None:
    path = tmp_path / "vector_add.mlir"
    shutil.copyfile(KERNELS / "vector_add.mlir", path)
    if kind == "bytecode":
        path = _bytecode_copy(path)
        assert path.read_bytes()[:8] == b"\x7fTileIR\x00"
    n = 100
    a = np.arange(n, dtype=np.float32) / 8
    b = np.full(n, 0.25, np.float32)
    c = np.zeros(n, np.float32)
    tileir.launch(as_type(path), None, grid=2, args=[a, b, c, n])
    assert c.tolist() == [i / 8 + 0.25 for i in range(n)]


def _divide_by_zero(path) -> tileir.ExecutionError:
    """The error of running ub_div_by_zero from `path` with b[3] = 0."""
    a = np.arange(16, dtype=np.int32)
    b = np.ones(16, np.int32)
    b[3] = 0
    q, r = np.zeros(16, np.int32), np.zeros(16, np.int32)
    with pytest.raises(tileir.ExecutionError) as caught:
        tileir.launch(path, None, 1, [a, b, q, r, 16])
    assert q.tolist() == [0] * 16     # (a failed launch leaves the buffers as they were)
    return caught.value


MESSAGE = ("error: 'cuda_tile.divi' op division by zero at element [3]: 3 / 0 "
           "(tile block (0, 0, 0))")


@pytest.mark.parametrize("as_type", [str, pathlib.Path])
def test_an_error_in_a_text_file_names_its_line(tmp_path, as_type) -> None:
    path = tmp_path / "my_kernel.mlir"
    shutil.copyfile(KERNELS / "ub_div_by_zero.mlir", path)
    text = path.read_text()
    (line,) = [n for n, source in enumerate(text.splitlines(), 1) if " = divi " in source]
    source = text.splitlines()[line - 1]
    column = source.index("divi") + 1
    exc = _divide_by_zero(as_type(path))
    assert exc.diagnostics[0].location == tileir.Location(str(path), line, column)
    assert str(exc) == f"{path}:{line}:{column}: {MESSAGE}"
    assert exc.diagnostics[0].render({str(path): text}) == \
        f"{path}:{line}:{column}: {MESSAGE}\n{source}\n{' ' * (column - 1)}^"


@pytest.mark.parametrize("as_type", [str, pathlib.Path])
def test_an_error_in_a_bytecode_file_names_the_file(tmp_path, as_type) -> None:
    """Bytecode written without debug info has no lines: the error names the file at 0:0."""
    source = tmp_path / "my_kernel.mlir"
    shutil.copyfile(KERNELS / "ub_div_by_zero.mlir", source)
    path = _bytecode_copy(source)
    exc = _divide_by_zero(as_type(path))
    assert exc.diagnostics[0].location == tileir.Location(str(path), 0, 0)
    assert str(exc) == f"{path}:0:0: {MESSAGE}"


def test_loading_bytecode_keeps_its_bytes(tmp_path) -> None:
    """The file:0:0 placement is not written: the module writes back the file's bytes."""
    source = tmp_path / "k.mlir"
    shutil.copyfile(KERNELS / "matmul_f32.mlir", source)
    path = _bytecode_copy(source)
    data = path.read_bytes()
    assert tileir.load(path).to_bytecode() == data
    assert tileir.from_bytecode(data).to_bytecode() == data


def test_bytecode_with_debug_info_keeps_its_locations() -> None:
    """Ops of a file with debug info keep the locations it records (cuTile's Python lines);
    only those it records none for are placed at the file."""
    from conftest import SHARED, require
    from tileir.attributes import DILocAttr, FileLineColLoc, UnknownLoc
    path = require(SHARED / "reference" / "artifacts" / "vector_add_readme.v13.3.tileirbc")
    read = [op.location for op in tileir.from_bytecode(path.read_bytes()).walk()]
    loaded = [op.location for op in tileir.load(path).walk()]
    assert len(read) == len(loaded)
    assert sum(isinstance(loc, DILocAttr) for loc in read) > len(read) // 2
    for before, after in zip(read, loaded):
        if isinstance(before, UnknownLoc):
            assert after == FileLineColLoc(str(path), 0, 0)
        else:
            assert after == before
