"""The tileiras bugs docs/nvidia-tools.md records: each kernel there is valid Tile IR
(tileir parses and verifies it), and tileiras 13.5.37, the release the page describes,
still fails on it (a crash or a refusal).  A later tileiras is not held to it: the test
then skips, saying the page needs checking again."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import corpus
import tileir
from tileir.nvidia import ARCHITECTURE_LIMIT

DOC = Path(__file__).resolve().parents[2] / "docs" / "nvidia-tools.md"
KERNELS = re.findall(r"```\n(cuda_tile\.module.*?)```", DOC.read_text(encoding="utf-8"), re.S)
#: The tileiras release the page's findings were made with.
DOCUMENTED = "V13.5.37"


#: The architectures the page's kernels fail on: sm_100, and sm_120 for the one refusal
#: of Blackwell's consumer chip (a scan of an mmaf_scaled result).
ARCHITECTURES = ("sm_100", "sm_120")


def test_the_page_records_kernels():
    # the SIGILL, two SIGSEGVs, two refusals; from tileir fuzz, a refusal for sm_120 and
    # a SIGABRT
    assert len(KERNELS) == 7


@pytest.mark.parametrize("index", range(len(KERNELS)))
def test_a_recorded_kernel_is_valid_and_still_fails_tileiras(index: int, tmp_path: Path):
    module = tileir.parse(KERNELS[index])
    module.verify()
    if corpus.tool_path("tileiras") is None:
        pytest.skip("NVIDIA's tileiras is not installed (pip install -e '.[oracles]')")
    version = corpus.tool_version("tileiras")
    if DOCUMENTED not in version:
        pytest.skip(f"docs/nvidia-tools.md describes tileiras {DOCUMENTED}; this is "
                    f"'{version}': check the page again")
    path = tmp_path / "k.tileirbc"
    path.write_bytes(module.to_bytecode(version="13.5"))
    failures = []
    for gpu in ARCHITECTURES:
        done = subprocess.run([str(corpus.tool_path("tileiras")), f"--gpu-name={gpu}", "-o",
                               str(tmp_path / "k.cubin"), str(path)], capture_output=True,
                              text=True, timeout=120, check=False)
        if done.returncode != 0 and not ARCHITECTURE_LIMIT.search(done.stderr):
            failures.append(gpu)
    assert failures, "tileiras compiled a kernel the page says it fails on"
