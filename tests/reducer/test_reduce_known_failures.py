"""Each tileiras failure docs/nvidia-tools.md records, planted in a generated kernel of
200+ ops, reduced back to at most 15 ops (tools/reduce_known_failures.py, the closing
figure, run here on each); skipped without the ``oracles`` extra."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import tileir
from tileir.reducer import predicates, reduce

REPO = Path(__file__).resolve().parents[2]


def _load():
    """tools/reduce_known_failures.py, imported by path."""
    name = "tileir_tools_reduce_known_failures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, REPO / "tools" / "reduce_known_failures.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


known = _load()

pytestmark = pytest.mark.skipif(
    predicates.find_tool("tileiras") is None,
    reason="NVIDIA's tileiras is not installed (pip install -e '.[oracles]')")


@pytest.mark.parametrize("name, heading, outcome", known.FAILURES,
                         ids=[f[0].replace(" ", "-") for f in known.FAILURES])
def test_a_known_tileiras_failure_reduces_to_at_most_15_ops(name, heading, outcome) -> None:
    doc = known.DOC.read_text()
    module = known.planted(known.kernel_after(heading, doc), seed=1)
    test = known.predicate(outcome, "sm_100")
    if not test(module):
        pytest.skip(f"this tileiras does not fail on the recorded {name} kernel (a version "
                    "other than 13.5.37, with the bug fixed?)")
    result = reduce(module, test, jobs=2)
    assert result.ops_before >= 200 and result.ops_after <= 15 and result.confirmed
    assert test(result.module)
    assert predicates.tileiras_outcome(result.module, "sm_100") == \
        predicates.tileiras_outcome(tileir.parse(known.kernel_after(heading, doc)), "sm_100")
