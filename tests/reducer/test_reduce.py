"""`tileir.reduce`: planted faults in kernels of 200+ ops shrink back to their exact cores,
the same for any number of jobs, every candidate valid, Ctrl-C and deadlines keeping the
smallest so far."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir.interp.batch.ops import BATCHED
from tileir.interp.semantics import SEMANTICS
from tileir.reducer import REDUCTIONS, ReduceError, ReduceResult, count_ops, predicates, reduce
from tileir.verify import Options, verify

from planted import (EXTRACT_CORE, EXTRACT_MINIMAL, NEGI_CORE, NEGI_MINIMAL, planted)

#: The warning the extract core plants (``tileir check``'s spec warnings).
OUT_OF_BOUNDS = "may be out of bounds"


@pytest.fixture(scope="module")
def extract_kernel() -> tileir.Module:
    """A generated kernel of 235 ops with the out-of-bounds extract in its middle."""
    return planted(EXTRACT_CORE, seed=1)


@pytest.fixture
def wrong_batched_negi(monkeypatch):
    """The batched engine's negi made wrong by one (a test-only fault: the reference engine
    is untouched)."""
    reference = SEMANTICS["negi"]
    monkeypatch.setitem(BATCHED, "negi",
                        lambda step, x: reference(step, x) + np.ones((), x.dtype))


def test_planted_diagnostic_reduces_to_its_core(extract_kernel) -> None:
    before = [d.message for d in verify(extract_kernel, Options(spec_warnings=True))]
    assert len(before) == 1 and OUT_OF_BOUNDS in before[0]
    result = reduce(extract_kernel, predicates.diagnostic(OUT_OF_BOUNDS))
    assert isinstance(result, ReduceResult)
    assert result.module.format() == EXTRACT_MINIMAL
    assert (result.ops_before, result.ops_after) == (count_ops(extract_kernel), 6)
    assert result.ops_before >= 200
    assert not result.interrupted and not result.timed_out
    assert result.tested > 0 and result.seconds > 0


def test_planted_engine_disagreement_reduces_to_its_core(wrong_batched_negi) -> None:
    kernel = planted(NEGI_CORE, seed=98)
    assert predicates.engine_disagreements(kernel, (1,))
    result = reduce(kernel, predicates.engines_differ((1,)))
    assert result.module.format() == NEGI_MINIMAL
    assert result.ops_before >= 200 and result.ops_after == 6
    # (the same kernel agrees on the engines once the fault is gone)


def test_engines_agree_without_the_fault() -> None:
    kernel = tileir.parse(NEGI_MINIMAL)
    assert predicates.engine_disagreements(kernel) == []
    with pytest.raises(ReduceError, match="does not hold on the original input"):
        reduce(kernel, predicates.engines_differ((1,)))


def test_result_is_the_same_for_any_number_of_jobs(extract_kernel, wrong_batched_negi) -> None:
    one = reduce(extract_kernel, predicates.diagnostic(OUT_OF_BOUNDS), jobs=1)
    two = reduce(extract_kernel, predicates.diagnostic(OUT_OF_BOUNDS), jobs=2)
    assert two.module.format() == one.module.format() == EXTRACT_MINIMAL
    assert two.tested == one.tested
    # (the worker processes see the monkeypatched engine too: they are forked)
    kernel = planted(NEGI_CORE, seed=98)
    assert reduce(kernel, predicates.engines_differ((1,)), jobs=2).module.format() == \
        NEGI_MINIMAL


def test_every_candidate_tested_is_a_valid_kernel(extract_kernel) -> None:
    seen: list[tuple[str, bool]] = []
    inner = predicates.diagnostic(OUT_OF_BOUNDS)

    def recording(module: tileir.Module) -> bool:
        module.verify()                 # (raises VerificationError for an invalid one)
        seen.append((module.format(), inner(module)))
        return seen[-1][1]
    result = reduce(extract_kernel, recording)
    assert len(seen) == result.tested + 2   # (+ the original, + the result tested again)
    assert seen[-1] == (result.module.format(), True) and result.confirmed
    for text, _ in seen:
        tileir.parse(text)              # every one reads back and verifies
    kept = [count_ops(tileir.parse(t)) for t, interesting in seen if interesting]
    assert kept == sorted(kept, reverse=True) and kept[0] == result.ops_before
    assert kept[-1] == result.ops_after == 6


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_keeps_the_smallest_so_far(extract_kernel, jobs: int) -> None:
    verdicts: list[tuple[str, bool]] = []
    inner = predicates.diagnostic(OUT_OF_BOUNDS)

    def interrupted_at_the_tenth(module: tileir.Module) -> bool:
        if len(verdicts) == 10:
            raise KeyboardInterrupt
        verdicts.append((module.format(), inner(module)))
        return verdicts[-1][1]
    result = reduce(extract_kernel, interrupted_at_the_tenth, jobs=jobs)
    assert result.interrupted and not result.timed_out
    if jobs == 1:       # (a pool's workers record in their own processes)
        assert result.tested == 9
        smallest = [text for text, interesting in verdicts if interesting][-1]
        assert result.module.format() == smallest
        assert result.ops_after > 6     # (not yet the fixed point)
    assert result.ops_after < result.ops_before
    assert inner(result.module)


def test_deadline_keeps_the_smallest_so_far(extract_kernel) -> None:
    result = reduce(extract_kernel, predicates.diagnostic(OUT_OF_BOUNDS), deadline=0.0)
    assert result.timed_out and not result.interrupted
    assert result.ops_after <= result.ops_before
    assert OUT_OF_BOUNDS in verify(result.module, Options(spec_warnings=True))[0].message


def test_progress_is_reported_after_each_candidate(extract_kernel) -> None:
    seen = []
    result = reduce(extract_kernel, predicates.diagnostic(OUT_OF_BOUNDS), progress=seen.append)
    assert len(seen) == result.tested
    assert seen[0].ops_before == result.ops_before
    assert [p.tested for p in seen] == list(range(1, result.tested + 1))
    assert seen[-1].ops == result.ops_after


def test_tileir_reduce_is_the_reducer_and_takes_text() -> None:
    assert tileir.reduce is reduce and "reduce" in tileir.__all__
    result = tileir.reduce(EXTRACT_CORE, predicates.diagnostic(OUT_OF_BOUNDS))
    assert result.module.format() == EXTRACT_MINIMAL.replace("@kernel(", "@k(")


def test_invalid_input_and_a_test_that_does_not_hold() -> None:
    with pytest.raises(tileir.VerificationError):
        reduce(EXTRACT_CORE.replace("-> tile<2xf32>", "-> tile<16xf32>"), lambda m: True)
    with pytest.raises(ReduceError, match="does not hold on the original input"):
        reduce(EXTRACT_CORE, predicates.diagnostic("no such diagnostic"))


def test_command_predicate_runs_a_shell_command(tmp_path) -> None:
    module = tileir.parse(EXTRACT_CORE)
    assert predicates.command("grep -q extract {}")(module)
    assert not predicates.command("grep -q absf {}")(module)
    assert predicates.command("grep -q extract")(module)            # (path appended)
    reads = (f"{sys.executable} -c 'import sys, tileir; "
             "assert sys.argv[1].endswith(\".tileirbc\"); tileir.load(sys.argv[1])' {}")
    assert predicates.command(reads, as_bytecode=True)(module)
    assert not predicates.command(reads)(module)
    assert not predicates.command("sleep 5", timeout=0.2)(module)
    result = reduce(module, predicates.command("grep -q 'extract' {}"))
    assert result.module.format() == """\
cuda_tile.module @kernels {
  entry @k() {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<1xf32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %0 = extract %cst_0_f32[%cst_0_i32] : tile<1xf32> -> tile<1xf32>
    return
  }
}
"""


def test_diagnostic_of_a_launch() -> None:
    kernel = """\
cuda_tile.module @kernels {
  entry @k(%a: tile<ptr<i32>>, %b: tile<ptr<i32>>) {
    %x, %t = load_ptr_tko weak %a : tile<ptr<i32>> -> tile<i32>, token
    %z = constant <i32: 0> : tile<i32>
    %n = negi %x : tile<i32>
    %d = divi %n, %z signed : tile<i32>
    %t2 = store_ptr_tko weak %b, %d : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""
    assert not predicates.diagnostic("division by zero")(tileir.parse(kernel))
    result = reduce(kernel, predicates.diagnostic("division by zero", launch=True))
    assert result.module.format() == """\
cuda_tile.module @kernels {
  entry @k() {
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %0 = divi %cst_0_i32, %cst_0_i32 signed : tile<i32>
    return
  }
}
"""


def test_engines_compare_kernels_with_scalar_arguments(wrong_batched_negi) -> None:
    # (a scalar argument's bytes were read as a list of buffers: a TypeError escaped)
    kernel = tileir.parse("""\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<i32>>, %n: tile<i32>, %x: tile<f32>) {
    %y = negi %n : tile<i32>
    %t = store_ptr_tko weak %p, %y : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
""")
    found = predicates.engine_disagreements(kernel, (1,))
    # (the batched settings run the batched engine with the planted fault; the compiled
    # ones, with the jit extra, compile the kernel and the per-block one runs the reference)
    faulty = ["batched", "checks off (batched)"]
    assert [(d.setting, d.schedule) for d in found] == [
        (name, schedule) for schedule in ("sequential", "reverse") for name in faulty]
    assert str(found[0]) == ("blocks and batched wrote different bytes to argument 0 "
                             "(entry 'k', grid 1, schedule sequential)")


def test_engines_differ_keeps_to_the_settings_it_is_given(wrong_batched_negi) -> None:
    kernel = tileir.parse(NEGI_MINIMAL)
    assert predicates.engines_differ((1,))(kernel)
    assert predicates.engines_differ((1,), settings=["batched"])(kernel)
    assert not predicates.engines_differ((1,), settings=["checks off"])(kernel)


def test_the_result_is_tested_again_and_a_flaky_yes_is_not_handed_back(
        extract_kernel) -> None:
    inner = predicates.diagnostic(OUT_OF_BOUNDS)
    said_yes: list[str] = []

    def flaky(module: tileir.Module) -> bool:
        """Yes to the first kernel of 6 ops once; no to it ever after."""
        text = module.format()
        if count_ops(module) == 6:
            if said_yes:
                return False
            said_yes.append(text)
        return inner(module)
    result = reduce(extract_kernel, flaky)
    assert result.confirmed and said_yes
    assert result.module.format() != said_yes[0] and result.ops_after > 6
    assert flaky(result.module)         # (the kernel handed back shows the failure)
    calls = []

    def no_longer(module: tileir.Module) -> bool:
        calls.append(1)
        return len(calls) < 3           # (the input, one candidate: then never again)
    with pytest.raises(ReduceError, match="different answers on the same kernel"):
        reduce(extract_kernel, no_longer)


def test_an_error_of_the_test_is_a_reduce_error(extract_kernel) -> None:
    def broken(module: tileir.Module) -> bool:
        raise ValueError("bad\nmore")
    for jobs in (1, 2):
        with pytest.raises(ReduceError, match=r"^the test failed with an error: "
                                              r"ValueError: bad$"):
            reduce(EXTRACT_CORE, broken, jobs=jobs)


def test_a_command_past_its_timeout_is_killed_with_what_it_started(tmp_path) -> None:
    pid_file = tmp_path / "pid"
    done = predicates.run_tool(f"sleep 60 & echo $! > {pid_file}; wait", 3.0)
    assert done.timed_out
    pid = int(pid_file.read_text())
    stat = Path(f"/proc/{pid}/stat")

    def gone() -> bool:
        """Whether the sleep is dead (reaped, or a zombie)."""
        try:
            return stat.read_text().split(") ")[1].startswith("Z")
        except (FileNotFoundError, ProcessLookupError):
            return True
    # (SIGKILL is sent to the whole group; the kernel may take a moment to end the sleep
    # on a busy machine: the test waits for that, up to a minute, and fails only if it
    # lives on)
    for _ in range(1200):
        if gone():
            break
        time.sleep(0.05)
    assert gone()


def test_a_stopped_pool_worker_removes_its_scratch_files(tmp_path, monkeypatch) -> None:
    # (a test still running when the reduction stops is ended by the pool's SIGTERM)
    import tempfile
    import time
    from tileir.reducer.core import _Pool, _work, warning_kinds
    from tileir.reducer.reductions import measure
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    module = tileir.parse(EXTRACT_CORE)
    text = module.format()
    key = REDUCTIONS["constants"].keys(module)[0]
    pool = _Pool(predicates.command(f"touch {tmp_path}/started; sleep 60; test -f {{}}"), 1)
    try:
        pool.pool.apply_async(_work, ((text, "constants", key, measure(module, text),
                                       warning_kinds(module)),))
        waited = 0.0
        while not (tmp_path / "started").exists() and waited < 60:
            time.sleep(0.05)
            waited += 0.05
        assert len(list(tmp_path.glob("tileir-reduce-*"))) == 1
    finally:
        pool.close()
    assert list(tmp_path.glob("tileir-reduce-*")) == []


def _deaf_to_sigterm(started: str) -> None:
    """A pool task that ignores SIGTERM and waits (a worker that missed the signal)."""
    import signal
    import time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    Path(started).touch()
    time.sleep(120)


def test_closing_a_pool_kills_a_worker_that_stays_after_sigterm(tmp_path, monkeypatch) -> None:
    import time
    from tileir.reducer import core
    monkeypatch.setattr(core, "STOP_GRACE_S", 0.2)
    pool = core._Pool(predicates.command("true"), 1)
    workers = list(pool.pool._pool)
    pool.pool.apply_async(_deaf_to_sigterm, (str(tmp_path / "started"),))
    for _ in range(1200):               # (at most a minute for the task to start)
        if (tmp_path / "started").exists():
            break
        time.sleep(0.05)
    assert (tmp_path / "started").exists()
    pool.close()            # (returns: SIGTERM twice, then SIGKILL)
    assert [w.exitcode for w in workers] == [-9]
