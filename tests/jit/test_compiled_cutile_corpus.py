"""The cuTile Python corpus (tests/oracles/kernels.py: kernels written with cuTile and
exported by it, launched through tileir.cutile.launch) on the compiled engine against the
reference: the same bytes or the same error; compiled where its ops are (the list below,
which grows as the engine does), else handed on with the reason."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")
pytest.importorskip("cuda.tile", reason="cuTile Python is an optional dependency (oracles)")

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "oracles"))

import kernels  # noqa: E402
from jit_checks import SETTINGS, assert_runs_alike, expected_under, setting_id  # noqa: E402
import tileir  # noqa: E402
import tileir.cutile as tc  # noqa: E402
from test_cutile_launch import launch_args  # noqa: E402

#: The corpus kernels that run compiled.
COMPILED = {"vector_add", "axpy_i64", "matmul_f16", "matmul_f32", "softmax_rows",
            "layernorm", "flash_attention", "shape_ops", "integer_ops", "reduce_scan",
            "gather_scatter", "histogram", "math_ops", "ops_13_3", "ops_13_4", "conversions",
            "control_flow", "view_atomics"}
#: Those whose result depends on the order of tile blocks (atomics, prints).
ORDER_DEPENDENT = {"histogram", "view_atomics", "control_flow"}


def _outcome(kernel, engine: str, **settings):
    inputs = kernel.launch.inputs(np.random.default_rng(7))
    args, arrays = launch_args(kernel, inputs)
    try:
        run = tc.launch(None, kernel.launch.grid, kernel.function, args, engine=engine,
                        **settings)
        head = (run.engine, run.reason)
    except tileir.ExecutionError as exc:
        head = ("error", str(exc).splitlines()[0])
    return (*head, {name: array.tobytes() for name, array in arrays.items()})


@pytest.mark.parametrize("name", [k.name for k in kernels.KERNELS])
def test_corpus_kernel_runs_alike_compiled(name):
    kernel = next(k for k in kernels.KERNELS if k.name == name)
    assert_runs_alike(_outcome(kernel, "blocks"), _outcome(kernel, "compiled"),
                      name in COMPILED)


@pytest.mark.parametrize("settings", SETTINGS, ids=setting_id)
@pytest.mark.parametrize("name", [k.name for k in kernels.KERNELS])
def test_corpus_kernel_runs_alike_compiled_under_other_settings(name, settings):
    """Checks off, other schedules: the reference's bytes or error; compiled, but under
    another schedule handed on, with the reason, where the order of blocks matters."""
    kernel = next(k for k in kernels.KERNELS if k.name == name)
    assert_runs_alike(_outcome(kernel, "blocks", **settings),
                      _outcome(kernel, "compiled", **settings),
                      expected_under(settings, name in COMPILED, name in ORDER_DEPENDENT))


def test_the_engine_can_be_chosen_by_the_environment(monkeypatch):
    """TILEIR_CUTILE_ENGINE picks the engine of launches that name none; a name that is
    not an engine is refused with a clear message."""
    kernel = next(k for k in kernels.KERNELS if k.name == "vector_add")
    monkeypatch.setenv("TILEIR_CUTILE_ENGINE", "compiled")
    inputs = kernel.launch.inputs(np.random.default_rng(7))
    args, _ = launch_args(kernel, inputs)
    assert tc.launch(None, kernel.launch.grid, kernel.function, args).engine == "compiled"
    monkeypatch.setenv("TILEIR_CUTILE_ENGINE", "fast")
    with pytest.raises(ValueError, match="TILEIR_CUTILE_ENGINE='fast' names no engine"):
        tc.launch(None, kernel.launch.grid, kernel.function, args)


def test_the_list_names_corpus_kernels():
    assert COMPILED <= {k.name for k in kernels.KERNELS}
