"""`tileir fuzz` as a subprocess, on a tiny count with the targets that need no tileiras:
the exact summary (its one timing masked), a planted failure saved, -j 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _fuzz(tmp_path, *argv: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = (prelude + "import sys\nfrom tileir.cli.main import main\n"
            "sys.exit(main(['fuzz', *sys.argv[1:]]))")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def _untimed(text: str) -> str:
    return re.sub(r"\(\d+\.\d s\)", "(T s)", text)


def test_clean_run_exact_summary(tmp_path):
    done = _fuzz(tmp_path, "--count", "6", "--seed", "40", "--target", "roundtrip,engines")
    assert (done.returncode, done.stderr) == (0, "")
    assert _untimed(done.stdout) == ("tileir fuzz: 6 kernels (seeds 40..45), targets "
                                     "roundtrip,engines: 0 distinct failures in 0 findings "
                                     "(T s)\n")
    assert not (tmp_path / "fuzz-findings").exists()


PLANT = """\
from tileir.ir import Module
_original = Module.to_bytecode
_seen = set()
def _drifting(self, *args, **kwargs):
    data = _original(self, *args, **kwargs)
    if id(self) in _seen or not hasattr(self, "_fuzz_generated"):
        return data + b"\\0"
    _seen.add(id(self))
    return data
Module.to_bytecode = _drifting
from tileir.fuzz import campaign
_kernel = campaign.kernel
def _marked(config, seed):
    module, arguments = _kernel(config, seed)
    module._fuzz_generated = True
    return module, arguments
campaign.kernel = _marked
"""


def test_planted_failure_exact_summary_and_files(tmp_path):
    done = _fuzz(tmp_path, "--count", "3", "--seed", "5", "--ops", "6", "--target",
                 "engines,roundtrip", "--no-reduce", "--out", "found", prelude=PLANT)
    assert (done.returncode, done.stderr) == (1, "")
    slug = "roundtrip-bytecode-rewritten-differs-"
    path = next(p for p in (tmp_path / "found").iterdir())
    assert path.name.startswith(slug) and len(path.name) == len(slug) + 8
    saved = f"found/{path.name}"
    from tileir.api import parse
    from tileir.reducer import count_ops
    ops = str(count_ops(parse((path / "kernel.mlir").read_text())))
    saved = f"found/{path.name}"
    assert _untimed(done.stdout).splitlines() == [
        "tileir fuzz: 3 kernels (seeds 5..7), targets engines,roundtrip: 1 distinct "
        "failures in 3 findings (T s)",
        f"| signature                  | target    | count | first seed | ops before → after "
        f"| {'saved'.ljust(len(saved))} |",
        f"|----------------------------|-----------|-------|------------|--------------------"
        f"|{'-' * (len(saved) + 2)}|",
        f"| bytecode rewritten differs | roundtrip | 3     | 5          | "
        f"{ops.ljust(len('ops before → after'))} | {saved} |",
    ]
    assert (path / "seed").read_text() == "5\n"


def test_jobs_give_the_same_summary(tmp_path):
    # (with findings: a summary of none would match even if the workers checked nothing;
    # the workers are forked, so they see the planted fault too)
    argv = ("--count", "4", "--seed", "60", "--ops", "6", "--target", "roundtrip",
            "--no-reduce", "--out", "found")
    one = _fuzz(tmp_path, *argv, prelude=PLANT)
    two = _fuzz(tmp_path, *argv, "-j", "2", prelude=PLANT)
    assert one.returncode == two.returncode == 1
    assert _untimed(one.stdout) == _untimed(two.stdout)
    assert "1 distinct failures in 4 findings" in one.stdout
