"""Every registered pass and every -O pipeline, checked by execution: applied with the
semantics check (`tileir.transforms.check`) to every shipped kernel on its launches
(tests/transforms/launches.py) and to generated kernels on one tile block and on three,
each launch compared before and after each pass (bit for bit, fuse-fma within its few
ulps) or, where the kernel had undefined behaviour before the pass, counted unchecked;
the verifier runs after each pass, and the module printed after it (with its debug info:
every location too) must parse and verify again.  Beside the shipped kernels, kernels
written for loop-split (launches.py's `TARGETED`: neither the shipped nor the generated
kernels hold a loop it splits) run through every subject too.

The subjects are whatever is registered when the tests are collected
(tools/pass_campaign.py's `subjects`): a pass anchored on functions runs under
``cuda_tile.module(cuda_tile.entry(...))`` (test id ``name``) and under
``cuda_tile.module(cuda_tile.testing$func(...))`` (``name@func``: the kernel's entries made
testing functions for the pass, then entries again and launched against the original), a
module pass under ``cuda_tile.module(...)``, an "any" pass at the top; each -O level
(``O2``, ``O2+fuse-fma``) once optimize.py's pipeline names only registered passes.  A
pass not registered yet is simply not in the parametrization.

The long version of the generated-kernel half is ``python tools/pass_campaign.py``.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import tileir
from launches import SHIPPED, TARGETED, KernelCase, shipped_files
from tileir.interp import launch

REPO = Path(__file__).resolve().parents[2]

#: Generated kernels (seeds 0 ..) per pass, per pass run on testing functions (the same
#: rewrite as on entries, under another anchor), and per -O pipeline (several passes
#: each), so that the file takes well under a minute on two cores.
SEEDS_PER_PASS = 100
SEEDS_AS_FUNCTIONS = 50
SEEDS_PER_LEVEL = 25
#: Seeds per test (the generated half split so that xdist spreads it).
CHUNK = 50

#: (subject pattern, kernel or "seed N", why): checks expected to fail, recorded until
#: their owner fixes them (strict: the test fails once it passes, so the entry goes then).
KNOWN_FAILURES: list[tuple[str, str, str]] = []


def _campaign() -> Any:
    """tools/pass_campaign.py, imported by path."""
    name = "tileir_tools_pass_campaign"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "pass_campaign.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


campaign = _campaign()
SUBJECTS = campaign.subjects()
CASES = [SHIPPED[name] for name in sorted(SHIPPED)] + list(TARGETED.values())


def _param(subject: Any, what: Any, label: str) -> Any:
    """A pytest param of (subject, what), xfail (strict) where a failure is recorded."""
    reason = next((why for pattern, known, why in KNOWN_FAILURES
                   if known == label and re.fullmatch(pattern, subject.name)), None)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(subject, what, id=f"{subject.name}-{label}", marks=marks)


def _runs_a_pass(subject: Any) -> bool:
    """Whether `subject`'s pipeline holds any pass (-O0 without fuse-fma holds none)."""
    return campaign.pass_steps(subject.pipeline) > 0


def _pass_names(subject: Any) -> set[str]:
    """The names the report counts `subject`'s checks under."""
    if subject.kind == "pass":
        return {subject.name}
    return set(campaign.pass_names(subject.pipeline))


# ---- the launch table --------------------------------------------------------------------


def test_every_shipped_kernel_has_launches() -> None:
    assert sorted(SHIPPED) == shipped_files()
    assert all(case.launches for case in SHIPPED.values())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_launches_run_cleanly_before_any_pass(case: KernelCase) -> None:
    """Each launch runs without undefined behaviour (the ub_* kernels on inputs that avoid
    it), twice alike (make_args gives fresh copies); ub_rmw_race has no such input."""
    module = case.module()
    for entry in case.launches:
        if case.undefined is not None:
            with pytest.raises(tileir.ExecutionError, match="races with"):
                launch(module, entry.entry, entry.grid, entry.make_args())
            continue
        runs = []
        for _ in range(2):
            args, printed = entry.make_args(), io.StringIO()
            launch(module, entry.entry, entry.grid, args, stdout=printed)
            runs.append(([a.tobytes() for a in args if hasattr(a, "tobytes")],
                         printed.getvalue()))
        assert runs[0] == runs[1]


# ---- shipped kernels ---------------------------------------------------------------------


@pytest.mark.parametrize("subject, case", [_param(s, c, c.name) for s in SUBJECTS
                                           for c in CASES])
def test_pass_keeps_what_a_kernel_computes(subject: Any, case: KernelCase) -> None:
    outcome = campaign.check_subject(subject, case.module(), case.launches)
    assert outcome.failure is None, outcome.failure
    assert outcome.accounted, (outcome.compared, outcome.unchecked, outcome.expected)
    if not _runs_a_pass(subject):
        assert outcome.expected == 0 and not outcome.changed
        return
    assert outcome.steps > 0 and outcome.expected >= len(case.launches)
    if case.undefined is None:            # clean before any pass: every launch compared
        assert outcome.total_compared == outcome.expected and not outcome.unchecked
    else:
        assert outcome.total_unchecked > 0


@pytest.mark.skipif("loop-split" not in tileir.transforms.load_passes(),
                    reason="loop-split is not registered")
@pytest.mark.parametrize("case", TARGETED.values(), ids=lambda c: c.name)
def test_loop_split_kernels_are_split(case: KernelCase) -> None:
    """The kernels written for loop-split keep their point: it splits each loop in two
    (the one whose test's signedness differs from the loop's stays whole)."""
    module = case.module()
    tileir.transforms.run(module, "cuda_tile.module(cuda_tile.entry(loop-split))")
    loops = module.format().count(" = for ")
    assert loops == (1 if "mixed_signedness" in case.name else 2)


# ---- generated kernels -------------------------------------------------------------------


def _generated_params() -> list[Any]:
    """(subject, seeds) params: each subject's seeds in chunks, a recorded failing seed in
    a param of its own."""
    params = []
    for subject in SUBJECTS:
        count = SEEDS_PER_LEVEL if subject.kind == "level" else \
            SEEDS_AS_FUNCTIONS if subject.as_functions else SEEDS_PER_PASS
        known = sorted(int(label.split()[1]) for pattern, label, _ in KNOWN_FAILURES
                       if re.fullmatch(pattern, subject.name) and label.startswith("seed ")
                       and int(label.split()[1]) < count)
        rest = [s for s in range(count) if s not in known]
        for at in range(0, len(rest), CHUNK):
            seeds = tuple(rest[at:at + CHUNK])
            params.append(_param(subject, seeds, f"seeds{seeds[0]}-{seeds[-1]}"))
        params += [_param(subject, (s,), f"seed {s}") for s in known]
    return params


@pytest.mark.parametrize("subject, seeds", _generated_params())
def test_pass_keeps_what_generated_kernels_compute(subject: Any, seeds: tuple[int, ...]
                                                   ) -> None:
    compared: Counter[str] = Counter()
    unchecked = 0
    failures = []
    for seed in seeds:
        outcome = campaign.check_seed(subject, seed, timeout=0)
        if outcome.failure is None and not outcome.accounted:
            outcome.failure = (f"{outcome.total_compared} compared + "
                               f"{outcome.total_unchecked} unchecked != {outcome.expected}")
        if outcome.failure is not None:
            failures.append(f"seed {seed}: {outcome.failure}")
        compared.update(outcome.compared)
        unchecked += outcome.total_unchecked
    assert not failures, "\n".join(failures)
    if len(seeds) == 1:
        return                       # a recorded seed alone: its failure is the point
    if _runs_a_pass(subject):
        # a check that never compares proves nothing: every pass compared something
        assert all(compared[name] > 0 for name in _pass_names(subject)), (compared, unchecked)
    else:
        assert not compared and not unchecked


@pytest.mark.skipif(not SUBJECTS, reason="no pass is registered")
def test_the_campaign_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    name = SUBJECTS[0].name.split("@")[0]
    status = campaign.main(["--kernels", "2", "--seed", "5", "--passes", name, "--levels", "",
                            "--quiet"])
    out = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(out) if line.startswith("pass or pipeline"))
    assert out[header].split()[-1] == "failures"
    rows = [line.split() for line in out[header + 1:] if line.startswith(name)]
    assert rows and all(row[1] == "2" for row in rows)
    assert status == (1 if any(row[-1] != "0" for row in rows) else 0)
