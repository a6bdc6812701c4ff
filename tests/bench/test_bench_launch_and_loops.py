"""bench/launch_bench.py and bench/control_flow_bench.py run, check their kernels' outputs
(a wrong one stops them) and print their tables; no time is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import control_flow_bench as cfb  # noqa: E402
import launch_bench as lb  # noqa: E402


@pytest.mark.parametrize("case", lb.cases(), ids=lambda c: c.name)
@pytest.mark.parametrize("checks", [True, False])
def test_launch_bench_cases_run_and_check(case, checks) -> None:
    for scale in (1, 3):
        assert lb.per_launch(case, scale, checks, "auto", 2, 1, "cpu") >= 0
        assert lb.per_launch(case, scale, checks, "auto", 2, 1, "cpu", compiled=True) >= 0


def test_launch_bench_checks_catch_a_wrong_output() -> None:
    args, correct = lb.vector_add(64)(1)
    assert not correct()            # c is still zeros
    args[2][:] = args[0] + args[1]
    assert correct()
    args, correct = lb.scale2d(32, 32)(2)
    assert args[0].shape == (64, 32) and args[3:] == [64, 32] and not correct()


@pytest.mark.parametrize("name", ["for_loop", "loop_break"])
@pytest.mark.parametrize("engine", ["blocks", "batched"])
def test_control_flow_bench_kernels_run_and_check(name, engine) -> None:
    assert cfb.time_kernel(name, engine, 300, 1, "cpu") > 0


def test_control_flow_bench_sizes() -> None:
    m, total = cfb.loop_break_size(100)
    steps = [cfb.collatz_steps(k) for k in range(1, m)]
    assert total == sum(steps) >= 100 > sum(steps[:-1])
    assert cfb.collatz_steps(27) == 111 and cfb.collatz_steps(1) == 0
    assert cfb.expected_for_loop(9) == [3 * (0 + 1 + 2 + 8), 4]
    assert cfb.problem("for_loop", 50)[:2] == (50, 50)


@pytest.mark.parametrize("script, options, header", [
    ("launch_bench.py", ["--launches", "2", "--repeat", "1", "--scale", "2"],
     "kernel / grid         checks     launch     work  overhead  compiled  c.overhead"),
    ("control_flow_bench.py", ["--iterations", "200", "--repeat", "1"],
     "kernel      engine     scalar paths   general  ratio"),
])
def test_the_benchmarks_print_their_tables(script, options, header) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script)] + options,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == header
    rows = lines[2:]
    assert len(rows) == (8 if script == "launch_bench.py" else 4)
    assert all(np.isfinite(float(row.split()[-1])) for row in rows)
