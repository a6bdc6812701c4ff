"""Misused `launch`: every wrong kind of module, grid, option or argument is one
`ExecutionError` with a clear message, never a raw TypeError, ValueError or
AttributeError, and never a silently different run."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir import ExecutionError
from tileir.interp import launch

TEXT = (Path(tileir.__file__).parent / "examples" / "kernels" / "vector_add.mlir").read_text()


def _args(n: int = 64) -> list:
    return [np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32), n]


@pytest.mark.parametrize("grid", [None, "abc", 1.5, math.nan, [4.9], (2, 0), (), (1, 1, 1, 1),
                                  True, [1, "2"], 2**31, (1, -1)])
def test_a_bad_grid_is_one_execution_error(grid) -> None:
    c = _args()[2]
    with pytest.raises(ExecutionError, match=r"grid must have 1 to 3 positive extents "
                                             r"\(integers of at most 2147483647: tile block "
                                             r"ids are i32\), got "):
        launch(TEXT, None, grid, _args())
    assert not c.any()


@pytest.mark.parametrize("options, message", [
    (dict(schedule="bogus"), "schedule must be one of sequential, reverse, random, got 'bogus'"),
    (dict(max_ops="x"), "max_ops must be a positive integer or None, got 'x'"),
    (dict(max_ops=0), "max_ops must be a positive integer or None, got 0"),
    (dict(workers=1.5), "workers must be a positive integer or None, got 1.5"),
    (dict(seed="s"), "seed must be an integer or None, got 's'"),
    (dict(checks="yes"), "checks must be True or False, got 'yes'"),
    (dict(engine="fast"), "unknown engine 'fast'; use one of auto, blocks, batched, compiled"),
])
def test_a_bad_option_is_one_execution_error(options, message) -> None:
    with pytest.raises(ExecutionError, match="^error: " + message.replace("(", r"\(")
                       .replace(")", r"\)") + "$"):
        launch(TEXT, None, 1, _args(), **options)


@pytest.mark.parametrize("args, message", [
    (None, "args must be a list or tuple of the kernel's arguments, got NoneType"),
    ("abc", "args must be a list or tuple of the kernel's arguments, got str"),
])
def test_bad_argument_lists(args, message) -> None:
    with pytest.raises(ExecutionError, match="^error: " + message + "$"):
        launch(TEXT, None, 1, args)


def test_a_masked_array_is_refused() -> None:
    a, b, c, n = _args()
    masked = np.ma.masked_array(c, mask=np.zeros(64, bool))
    with pytest.raises(ExecutionError, match="argument 2 of 'vector_add' is a masked array; a "
                                             r"buffer has no mask \(pass its data, e.g. "
                                             r"a.filled\(0\)\)"):
        launch(TEXT, None, 1, [a, b, masked, n])


@pytest.mark.parametrize("module, message", [
    (42, "module must be a Module, Tile IR text or bytecode, or a file path; got int"),
    (None, "module must be a Module, Tile IR text or bytecode, or a file path; got NoneType"),
])
def test_a_module_of_the_wrong_kind(module, message) -> None:
    with pytest.raises(ExecutionError, match="^error: " + message + "$"):
        launch(module, None, 1, _args())


def test_a_path_names_the_module_in_every_location(tmp_path) -> None:
    path = tmp_path / "vadd.mlir"
    path.write_text(TEXT)
    for module in (path, str(path)):
        a, b, c, n = _args()
        launch(module, None, 1, [a, b, c, n])
        assert (c == 2).all()
    # a diagnostic from a file names it: tile block 1 reads past the end of a
    a, b, c, _ = _args()
    with pytest.raises(ExecutionError) as caught:
        launch(path, None, 2, [a, b, c, 128])
    assert str(caught.value.diagnostics[0].location).startswith(f"{path}:")
    # bytecode files and bytes too
    data = tileir.parse(TEXT).to_bytecode()
    binary = tmp_path / "vadd.tileirbc"
    binary.write_bytes(data)
    for module in (binary, data):
        a, b, c, n = _args()
        launch(module, None, 1, [a, b, c, n])
        assert (c == 2).all()


def test_a_missing_file_is_one_line(tmp_path) -> None:
    missing = tmp_path / "nope.mlir"
    with pytest.raises(ExecutionError, match=f"^error: cannot read the module file '{missing}': "
                                             "No such file or directory$"):
        launch(missing, None, 1, _args())
    with pytest.raises(ExecutionError, match="cannot read the module file"):
        launch(str(tmp_path), None, 1, _args())      # a directory
    with pytest.raises(ExecutionError, match="^error: cannot read the module file 'a\x00b': "
                                             "embedded null byte$"):
        launch("a\x00b", None, 1, _args())


def test_aliased_arguments_get_addresses_in_argument_order_wherever_numpy_put_them() -> None:
    # (found by tools/fuzz_campaign.py: a race was reported on one address or another
    # depending on which of two arrays NumPy had placed lower in memory)
    text = (Path(tileir.__file__).parent / "examples" / "kernels" / "custom_reduce.mlir") \
        .read_text()
    messages = set()
    for lower_first in (True, False):
        pool = np.zeros(2 * 32 + 64, np.float32)       # two arrays in a known host order
        first, second = (pool[:32], pool[64:96]) if lower_first else (pool[64:96], pool[:32])
        a = first
        b = second.view(np.int32)
        for engine in ("blocks", "auto"):
            with pytest.raises(ExecutionError) as caught:
                launch(text, None, 1, [a, b, a, b, 4], engine=engine)
            messages.add(caught.value.diagnostics[0].message)
    assert len(messages) == 1, messages


BLOCK_STORE = """cuda_tile.module @m {
  entry @k(%a: tile<ptr<i8>>) {
    %x, %y, %z = get_tile_block_id : tile<i32>
    %p = offset %a, %x : tile<ptr<i8>>, tile<i32> -> tile<ptr<i8>>
    %one = constant <i8: 1> : tile<i8>
    %t = store_ptr_tko weak %p, %one : tile<ptr<i8>>, tile<i8> -> token
    return
  }
}"""


def test_a_grid_of_2_to_the_24_blocks_runs_batched() -> None:
    # (it fell to one tile block at a time: minutes, where 2**24 - 1 blocks took 2 s)
    n = 1 << 24
    a = np.zeros(n, np.int8)
    assert launch(BLOCK_STORE, None, (n,), [a]).engine == "batched"
    assert int(np.count_nonzero(a)) == n


def test_the_batched_engine_names_its_block_limit_with_checks_on() -> None:
    with pytest.raises(ExecutionError, match="the batched engine cannot run this kernel: "
                                             r"2\*\*27 tile blocks or more with checks on"):
        launch(BLOCK_STORE, None, (1 << 27,), [np.zeros(1, np.int8)], engine="batched")
