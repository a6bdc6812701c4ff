"""Every shipped example kernel (tileir/examples/kernels, with the launches
tests/transforms/launches.py gives them) on the compiled engine against the reference:
the same bytes, the same printed output, the same error; compiled where its ops are (the
list below, which grows as the engine does), else handed on with the reason."""

from __future__ import annotations

import io
import pathlib
import sys

import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "transforms"))

import tileir  # noqa: E402
from jit_checks import SETTINGS, assert_runs_alike, expected_under, setting_id  # noqa: E402
from launches import SHIPPED  # noqa: E402

#: The shipped examples whose every launch runs compiled.
COMPILED = {"argmax.mlir", "bug_scale2d.mlir", "cumsum.mlir", "custom_reduce.mlir",
            "flash_attention.mlir", "histogram.mlir", "int_bits.mlir", "layernorm.mlir",
            "math_ops.mlir", "matmul_f16.mlir", "matmul_f32.mlir", "shape_ops.mlir",
            "softmax.mlir", "spin_lock.mlir", "transpose.mlir", "ub_div_by_zero.mlir",
            "ub_ftoi_nan.mlir", "vector_add.mlir", "while_break_print.mlir"}
#: Those whose result depends on the order of tile blocks (atomics, prints).
ORDER_DEPENDENT = {"spin_lock.mlir", "while_break_print.mlir"}
#: Those that race: the reference reports it with checks on; with checks off they run
#: compiled.
RACING = {"ub_rmw_race.mlir"}


def _outcome(module, entry, engine: str, **settings):
    """(engine or "error", the reason or the first line of the error, printed output,
    bytes of every array argument) of one launch."""
    args, printed = entry.make_args(), io.StringIO()
    try:
        run = tileir.launch(module, entry.entry, entry.grid, args, engine=engine,
                            stdout=printed, **settings)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, printed.getvalue(), [a.tobytes() for a in args if hasattr(a, "tobytes")])


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_example_runs_alike_compiled(name):
    case = SHIPPED[name]
    module = case.module()
    for entry in case.launches:
        assert_runs_alike(_outcome(module, entry, "blocks"),
                          _outcome(module, entry, "compiled"), name in COMPILED)


@pytest.mark.parametrize("settings", SETTINGS, ids=setting_id)
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_example_runs_alike_compiled_under_other_settings(name, settings):
    """Checks off, other schedules: the reference's bytes, output or error; compiled,
    but under another schedule handed on, with the reason, where the order of blocks
    matters."""
    case = SHIPPED[name]
    module = case.module()
    runs = name in COMPILED or (name in RACING and not settings.get("checks", True))
    expect = expected_under(settings, runs, name in ORDER_DEPENDENT)
    for entry in case.launches:
        assert_runs_alike(_outcome(module, entry, "blocks", **settings),
                          _outcome(module, entry, "compiled", **settings), expect)


def test_the_list_names_shipped_examples():
    assert COMPILED <= set(SHIPPED)
