"""bench/passes_bench.py builds its modules, checks the kernels' results before and after
-O3 (a changed result stops it) and prints its tables; no time is asserted."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

import tileir

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import passes_bench as pb  # noqa: E402

O3 = pb.passes_for(pb.LEVEL, False)


def test_the_generated_module_holds_distinct_kernels() -> None:
    text, ops = pb.generated_module(400)
    module = tileir.parse(text)
    names = [entry.symbol for entry in module.entries]
    assert ops >= 400 and pb.count_ops(module) == ops
    assert len(names) == len(set(names)) > 1 and names[0] == "kernel_0"


def test_the_straight_line_module_is_the_syntax_benchmarks() -> None:
    text, ops = pb.straight_line_module(100)
    assert pb.count_ops(tileir.parse(text)) == ops >= 100


def test_each_pass_is_timed_and_the_baseline_comes_last() -> None:
    text, _ = pb.straight_line_module(80)
    rows, after = pb.time_pipeline(text, False, 1)
    names = [name for name, _ in rows]
    assert names == [f"  {i + 1}. {p}" for i, p in enumerate(O3)] + [
        "-O3 (passes only)", "-O3 (verify each pass)", "baseline: parse + verify"]
    assert all(best >= 0 and median >= best for _, (best, median) in rows)
    assert 0 < after < pb.count_ops(tileir.parse(text))     # cse and canonicalize shrink it


@pytest.mark.parametrize("fuse_fma", [False, True])
def test_kernel_results_are_checked_before_and_after(fuse_fma: bool) -> None:
    rows = pb.kernel_rows("tiny", ["vector_add", "layernorm"], 100, fuse_fma, 1)
    verdicts = {name.split()[0]: verdict for name, *_, verdict in rows}
    assert list(verdicts) == ["vector_add", "layernorm", "for_loop", "loop_break"]
    assert verdicts["vector_add"] == verdicts["for_loop"] == "bit-identical"
    if fuse_fma:   # y = xhat * w + b fuses: its bits may change, within the problem's bound
        assert verdicts["layernorm"].startswith(("bit-identical", "within bound"))
    else:
        assert verdicts["layernorm"] == "bit-identical"


def test_the_benchmark_prints_its_tables() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "passes_bench.py"), "--ops", "200", "--repeat", "1",
         "--size", "tiny", "--kernel-repeat", "1", "--iterations", "100",
         "--problems", "vector_add,softmax"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("passes bench: -O3 = canonicalize, cse, ")
    headers = [i for i, line in enumerate(lines) if line.startswith("pass ")]
    assert len(headers) == 2
    for at in headers:
        rows = lines[at + 1:at + 1 + len(O3) + 3]
        assert rows[-1].startswith("baseline: parse + verify")
        assert rows[-1].split()[-1] == "1.00"
        assert all(math.isfinite(float(row.split()[-1])) for row in rows)
    kernels = lines[next(i for i, line in enumerate(lines) if line.startswith("kernel ")) + 1:]
    assert [row.split()[0] for row in kernels] == ["vector_add", "softmax", "for_loop",
                                                   "loop_break"]
    assert all(row.endswith("bit-identical") for row in kernels)
    assert all(math.isfinite(float(row.split()[-2])) for row in kernels)


@pytest.mark.parametrize("option", ["--repeat", "--kernel-repeat", "--ops", "--iterations"])
def test_a_count_below_one_is_refused(option: str, capsys) -> None:
    # (--repeat 0 ended in min() of an empty list: a traceback)
    with pytest.raises(SystemExit) as stop:
        pb.main([option, "0"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        f"argument {option}: expected a positive integer, got '0'")
