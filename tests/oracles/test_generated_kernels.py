"""Random valid kernels (tileir.generate) against NVIDIA's tools (issue 16 §2): for each,
at every bytecode version our writer takes it at, tileirdisasm prints our bytes exactly as
tileir does, tileiras compiles the newest for sm_100 (and sm_90 unless it uses what Hopper
lacks), and the reference and batched engines, checks on and off, run it alike.  The same checks as
tools/oracle_campaign.py, which runs the long campaign; skipped when the `oracles` extra is
missing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load():
    """tools/oracle_campaign.py, imported by path."""
    name = "tileir_tools_oracle_campaign"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "oracle_campaign.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


oc = _load()

pytestmark = pytest.mark.skipif(
    oc.tool_path("tileirdisasm") is None or oc.tool_path("tileiras") is None,
    reason="NVIDIA's tileiras and tileirdisasm are not installed (pip install -e '.[oracles]')")

#: Kernels checked in CI (the campaign's seed 7 numbering: seed * 1_000_003 + i).
KERNELS = 200


@pytest.mark.parametrize("index", range(KERNELS))
def test_generated_kernel_agrees_with_nvidia_tools(index: int, tally) -> None:
    result = oc.check_kernel(7 * 1_000_003 + index)
    assert not result.findings, "\n".join(
        f"{f.check}: {f.detail}" for f in result.findings) + "\n" + result.text
    assert result.counts["texts equal to tileirdisasm's"] == \
        result.counts["files printed by tileirdisasm"] >= 1
    # (a kernel meeting a tileiras bug recorded in docs/nvidia-tools.md counts as
    # explained only when avoiding the bug alone makes tileiras compile it; Hopper lacks
    # Blackwell's narrow floats and multicast memory: tileiras refuses those for sm_90)
    for arch, lacking in (("sm_100", 0), ("sm_90", 1)):
        explained = sum(n for what, n in result.counts.items()
                        if what.startswith("tileiras ") and f"({arch}) explained" in what)
        limited = result.counts[f"refused by tileiras for what {arch} lacks"] if lacking else 0
        assert result.counts[f"compiled by tileiras ({arch})"] + explained + limited == 1
    assert result.counts["kernels compared across engines and checks"] == 1
    tally("generated kernels printed as tileirdisasm prints them, per version",
          result.counts["texts equal to tileirdisasm's"])
    tally("generated kernels compiled by tileiras (sm_90, sm_100)", 2)
