"""Bytecode tileir writes from hand-written text, read by NVIDIA's tileirdisasm 13.5: its
text must equal ours (issue 16 §2).  Each kernel here once disagreed: i1 constants written
a byte per element (refused), i1 identities (unreadable), i64 and f64 array elements
(printed with a type MLIR leaves out).  Skipped when the `oracles` extra is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

import corpus
from syntax.test_identities import reduce_kernel
import tileir

pytestmark = pytest.mark.skipif(corpus.tool_path("tileirdisasm") is None,
                                reason="NVIDIA's tileirdisasm is not installed "
                                       "(pip install -e '.[oracles]')")


KERNELS = {
    "i1 or, identity false": reduce_kernel("i1", "false, false, true, false", "false", "ori"),
    "i1 and, identity true": reduce_kernel("i1", "true, true, false, true", "-1 : i1", "andi"),
    "f64 sum": reduce_kernel("f64", "1.0, 2.0, 3.0, 4.0", "0.000000e+00", "addf"),
    "i64 sum": reduce_kernel("i64", "1, 2, 3, 4", "0 : i64", "addi"),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_tileirdisasm_prints_what_we_print(name: str, tmp_path: Path) -> None:
    module = tileir.parse(KERNELS[name])
    module.verify()
    path = tmp_path / "k.tileirbc"
    path.write_bytes(module.to_bytecode())
    done = corpus.run_tool("tileirdisasm", str(path))
    assert done.returncode == 0, done.stderr
    ours = tileir.from_bytecode(path.read_bytes())
    ours.spelling = "bare"
    assert ours.format() == done.stdout
