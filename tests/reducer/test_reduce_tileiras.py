"""A tileiras crash of docs/nvidia-tools.md (SIGILL on a widening ftof with
``rounding<nearest_away>``), planted in a generated kernel of 200+ ops, reduced back to a
handful of ops by `tileiras_crash`; skipped without the ``oracles`` extra."""

from __future__ import annotations

import signal

import pytest

from tileir.reducer import predicates, reduce

from planted import FTOF_CRASH_CORE, planted

pytestmark = pytest.mark.skipif(
    predicates.find_tool("tileiras") is None,
    reason="NVIDIA's tileiras is not installed (pip install -e '.[oracles]')")

def test_planted_tileiras_crash_reduces_to_a_few_ops(request) -> None:
    kernel = planted(FTOF_CRASH_CORE, seed=1)
    if predicates.tileiras_outcome(kernel) != signal.SIGILL:
        pytest.skip("this tileiras does not die of SIGILL on the planted ftof (a version "
                    "other than 13.5.37, with the bug fixed?)")
    # (no deadline: one would make the result depend on the machine's speed; each
    # tileiras run is bounded by predicates.TOOL_TIMEOUT_S)
    result = reduce(kernel, predicates.tileiras_crash(signal.SIGILL, "sm_100"), jobs=2)
    text = result.module.format()
    assert result.confirmed and result.ops_before >= 200
    assert result.ops_after <= 15
    assert "rounding<nearest_away> : tile<f8E4M3FN> -> tile<bf16>" in text
    assert predicates.tileiras_outcome(result.module) == signal.SIGILL
    request.node.user_properties.append(("summary", (
        "tileir reduce on a planted tileiras crash",
        f"SIGILL ftof: {result.ops_before} -> {result.ops_after} ops in "
        f"{result.seconds:.1f} s ({result.tested} candidates, 2 jobs)")))
