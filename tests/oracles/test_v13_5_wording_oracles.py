"""13.5's verifier wording against NVIDIA's tileirdisasm 13.5 itself: each module of
tests/verify/test_verify_v13_5_wording.py (every ftof conversion and rounding mode, the
constraint summaries that list fnv8E5M3FNU), written as 13.5 bytecode without verifying,
is refused by tileirdisasm with our first diagnostic, or accepted where we accept it.
Skipped when the `oracles` extra is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import corpus
import tileir
from tileir import TileIRError

pytestmark = pytest.mark.skipif(corpus.tool_path("tileirdisasm") is None,
                                reason="NVIDIA's tileirdisasm is not installed "
                                       "(pip install -e '.[oracles]')")

_SPEC = importlib.util.spec_from_file_location(
    "v13_5_wording", Path(__file__).parents[1] / "verify" / "test_verify_v13_5_wording.py")
wording = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(wording)


def _ours(text: str) -> str:
    """Our first diagnostic's message, or "accepted"."""
    try:
        tileir.parse(text, "k.mlir")
    except TileIRError as error:
        return error.diagnostics[0].message
    return "accepted"


def _theirs(text: str, tmp_path: Path) -> str:
    """tileirdisasm 13.5's first error message for the module as 13.5 bytecode."""
    path = tmp_path / "k.tileirbc"
    path.write_bytes(tileir.parse(text, "k.mlir", verify=False).to_bytecode("13.5"))
    done = corpus.run_tool("tileirdisasm", str(path))
    if done.returncode == 0:
        return "accepted"
    return done.stderr.splitlines()[0].split("error: ", 1)[-1]


_FTOF = [(s, d, m) for s, d, m, _ in wording.FTOF_CASES + wording.FTOF_OTHER_MODES]


@pytest.mark.parametrize("src, dst, mode", _FTOF, ids=[f"{s}-{d}-{m}" for s, d, m in _FTOF])
def test_ftof_rounding(tmp_path: Path, src: str, dst: str, mode: str, tally) -> None:
    text = wording.ftof_text(src, dst, mode)
    assert _ours(text) == _theirs(text, tmp_path)
    tally("13.5 ftof conversions verified as tileirdisasm 13.5 verifies them", 1)


@pytest.mark.parametrize("body", [case[0] for case in wording.SUMMARY_CASES])
def test_summaries(tmp_path: Path, body: str, tally) -> None:
    text = wording._module(body)
    assert _ours(text) == _theirs(text, tmp_path)
    tally("13.5 constraint summaries worded as tileirdisasm 13.5 words them", 1)
