"""The race campaign (tools/race_campaign.py) on a fixed set of seeds: random kernels of
view and pointer accesses on maybe aliased buffers give the reference engine's bytes and
diagnostics under every setting, a good part of them really run compiled under each
setting (a silent decline of everything cannot pass), and a race proof broken on purpose
is caught."""

from __future__ import annotations

import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from jit_checks import load_tool  # noqa: E402
from tileir.interp.compiled import runner  # noqa: E402


#: Seeds run here (about 8 s on a 2-core machine).
KERNELS = 80
#: The fraction of launches that must run compiled under each setting: the fewest of
#: these 80 seeds was 21 (26%, reverse and random schedules).
MIN_COMPILED = 0.15
#: Seeds run with a broken proof (each fault below was caught on 9 to 12 of them).
PLANTED_KERNELS = 40


def test_campaign_finds_nothing_and_runs_compiled_under_every_setting():
    tool = load_tool("race_campaign")
    summary = tool.campaign(KERNELS, seed=0)
    assert summary.findings == []
    assert summary.verified == KERNELS
    assert set(summary.families) == {"views", "pointers"}
    assert set(summary.tallies) == {s.label for s in tool.SETTINGS}
    for label, tally in summary.tallies.items():
        assert tally.launches == KERNELS
        assert tally.compiled >= MIN_COMPILED * KERNELS, (label, summary.reasons)


def test_show_prints_a_kernel_that_parses(capsys):
    assert load_tool("race_campaign").main(["--show", "7"]) == 0
    text = capsys.readouterr().out
    assert "entry @k(" in text and "family" in text
    tileir.parse(text)


#: Faults planted in the compiled engine's launch: the static view race proof says yes
#: to everything (and no index log is kept); the pointer proof and its address log see
#: no conflict.
PLANTED = {
    "view proof": {"race_reason": lambda *args, **kwargs: None},
    "pointer proof": {"pointer_reason": lambda *args, **kwargs: None,
                      "conflict": lambda *args, **kwargs: False},
}


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_campaign_catches_a_broken_race_proof(monkeypatch, fault):
    for name, replacement in PLANTED[fault].items():
        monkeypatch.setattr(runner, name, replacement)
    summary = load_tool("race_campaign").campaign(PLANTED_KERNELS, seed=0)
    assert summary.findings, fault
    # (differences the broken proof let through, not a planted fault that crashes)
    assert not any(" raised " in found for _, found in summary.findings), summary.findings
