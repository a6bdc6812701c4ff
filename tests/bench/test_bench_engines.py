"""The benchmark kernels give the same bytes on every engine: the reference (one tile block
at a time) under all three schedules, and the batched engine in one span and in spans of a
single tile block, on one thread and on three, with checks on and off."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir.interp import launch

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import kernels_bench as kb  # noqa: E402

LAUNCH = sys.modules["tileir.interp.launch"]    # the module (the package exports the function)


@pytest.mark.parametrize("name", sorted(kb.PROBLEMS))
def test_every_engine_gives_the_same_bytes(name: str, monkeypatch) -> None:
    problem = kb.PROBLEMS[name]
    dims = problem.sizes["tiny"]
    inputs = problem.make_inputs(dims, np.random.default_rng(3))
    module = tileir.parse(problem.kernel_path().read_text(), problem.kernel_path().name)
    grid = problem.grid(dims)
    outputs = {}
    runs = [("blocks", schedule, True, None, 1)
            for schedule in ("sequential", "reverse", "random")]
    runs += [("batched", "sequential", checks, span, workers) for checks in (True, False)
             for span in (None, 1) for workers in (1, 3)]
    for engine, schedule, checks, span, workers in runs:
        monkeypatch.setattr(LAUNCH, "SPAN_BYTES", span or (8 << 20))
        out = problem.make_output(dims)
        run = launch(module, problem.entry, grid, problem.args(dims, inputs, out),
                     engine=engine, schedule=schedule, seed=11, checks=checks,
                     workers=workers)
        assert run.engine == engine
        outputs[(engine, schedule, checks, span, workers)] = out.tobytes()
    reference = outputs[("blocks", "sequential", True, None, 1)]
    written = np.frombuffer(reference, out.dtype)
    assert not np.isnan(written).any()        # every element written (the output is NaNs)
    assert all(got == reference for got in outputs.values()), \
        [key for key, got in outputs.items() if got != reference]
