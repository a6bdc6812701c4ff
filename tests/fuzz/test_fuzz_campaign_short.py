"""A short, fixed-seed run of the fuzz campaign of tools/fuzz_campaign.py (mutated text,
bytecode, command lines and kernel launches), and checks that the campaign does catch the
failures it looks for."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]


def _load():
    """tools/fuzz_campaign.py, under a name of its own (tests/bytecode has a module named
    fuzz_campaign too)."""
    name = "tileir_tools_fuzz_campaign"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "fuzz_campaign.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module      # (dataclasses look their module up while it loads)
    spec.loader.exec_module(module)
    return module


fc = _load()

SEED = 20240611
COUNTS = {"text": 2000, "bytecode": 2000, "cli": 12, "launch": 40}


def _report(findings) -> str:
    return "\n".join(f"{f.line()}\n    class: {f.signature}\n    "
                     + f.detail.replace("\n", "\n    ")[-1500:] for f in findings)


def _campaign(kind: str):
    tally = fc.Tally(kind)
    findings = fc.run_campaign(kind, COUNTS[kind], SEED, tally=tally)
    assert tally.inputs == COUNTS[kind]
    assert findings == [], f"{len(findings)} findings:\n{_report(findings)}"
    return tally


def test_text_campaign_finds_nothing():
    tally = _campaign("text")
    # the mutations keep some texts valid, so printing and bytecode are exercised too
    assert tally.stats["clean"] > 0 and tally.stats["bytecode written"] > 0


def test_bytecode_campaign_finds_nothing():
    tally = _campaign("bytecode")
    assert tally.stats["module read"] > 0 and tally.stats["TileIRError"] > 0


def test_cli_campaign_finds_nothing():
    tally = _campaign("cli")
    assert sum(v for k, v in tally.stats.items() if k.startswith("exit ")) == COUNTS["cli"]


def test_launch_campaign_finds_nothing():
    tally = _campaign("launch")
    assert tally.stats["launches"] == 8 * COUNTS["launch"]
    assert tally.stats["ExecutionError"] > 0 and tally.stats["ran on batched"] > 0


# ---- the campaign itself: deterministic, and it does report what it looks for ------------


def test_inputs_are_deterministic_given_the_seed():
    import random
    for index in (0, 7, 123):
        texts = {fc.mutate_text(random.Random(f"text:{SEED}:{index}"))[0] for _ in range(2)}
        assert len(texts) == 1
        blobs = {fc.mutate_bytecode(random.Random(f"bytecode:{SEED}:{index}"))[0]
                 for _ in range(2)}
        assert len(blobs) == 1
    assert fc.launch_script(fc.launch_input(SEED, 5)) == fc.launch_script(fc.launch_input(SEED, 5))


def test_an_exception_from_check_document_is_a_finding(monkeypatch):
    def broken(text, filename=None, **kw):
        raise KeyError("planted")
    monkeypatch.setattr(fc, "check_document", broken)
    findings = fc.check_text("cuda_tile.module @m {}", 3).findings
    assert [(f.kind, f.index, f.check) for f in findings] == [("text", 3, "check_document raised")]
    assert findings[0].description == "check_document raised: KeyError: 'planted'"
    assert findings[0].data == b"cuda_tile.module @m {}"


def test_a_print_that_does_not_reparse_the_same_is_a_finding(monkeypatch):
    text = "cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}\n"
    assert fc.check_text(text).findings == []
    calls = []
    original = fc.tileir.ir.Module.__str__

    def drifting(self):
        calls.append(1)
        return original(self) + "\n" * len(calls)   # each print differs
    monkeypatch.setattr(fc.tileir.ir.Module, "__str__", drifting)
    checks = [f.check for f in fc.check_text(text).findings]
    assert checks == ["print-parse-print not a fixed point"]


def test_an_uncaught_reader_exception_is_a_finding(monkeypatch):
    def broken(data, *, verify=True):
        raise IndexError("planted")
    monkeypatch.setattr(fc.tileir, "from_bytecode", broken)
    findings = fc.check_bytecode(b"\x7fTileIR\x00junk", 9).findings
    assert [f.check for f in findings] == ["from_bytecode(verify=False) raised",
                                           "from_bytecode raised"]


def test_a_hang_is_a_finding(monkeypatch):
    import time

    def slow(text, filename=None, **kw):
        time.sleep(5)
    monkeypatch.setattr(fc, "check_document", slow)
    monkeypatch.setitem(fc.HANG_SECONDS, "text", 0.5)
    findings = fc.run_one("text", SEED, 0).findings
    assert [f.check for f in findings] == ["hang"]


def test_a_launch_that_is_not_atomic_is_a_finding(monkeypatch):
    spec = fc.launch_input(SEED, sorted(fc.KERNELS).index("vector_add"))
    assert spec["kernel"] == "vector_add"
    spec["args"] = [fc.Arg(np.ones(8, np.float32)), fc.Arg(np.ones(8, np.float32)),
                    fc.Arg(np.zeros(8, np.float32)), fc.Arg(8)]
    spec["grid"], spec["max_ops"] = 1, None
    assert fc.check_launch(spec).findings == []

    def leaky(module, name, grid, args, **kw):
        args[2][0] = 42.0                   # writes, then fails without putting it back
        raise fc.ExecutionError("planted failure")
    monkeypatch.setattr(fc, "launch", leaky)
    checks = {f.check for f in fc.check_launch(spec).findings}
    assert checks == {"failed launch left arguments changed"}


def test_engines_that_disagree_are_a_finding(monkeypatch):
    spec = fc.launch_input(SEED, 0)
    spec["kernel"], spec["grid"], spec["max_ops"] = "vector_add", 1, None
    spec["args"] = [fc.Arg(np.ones(8, np.float32)), fc.Arg(np.ones(8, np.float32)),
                    fc.Arg(np.zeros(8, np.float32)), fc.Arg(8)]
    real = fc.launch

    def skewed(module, name, grid, args, engine="auto", **kw):
        run = real(module, name, grid, args, engine=engine, **kw)
        if engine == "auto":
            args[2][1] += 1.0               # the auto engine gets another answer
        return run
    monkeypatch.setattr(fc, "launch", skewed)
    checks = {f.check for f in fc.check_launch(spec).findings}
    assert checks == {"engines give different outputs", "checks=False gives other outputs"}


def test_a_traceback_from_a_tool_is_a_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(fc.sys, "executable", sys.executable)
    argv = ["-c", "import sys; open(sys.argv[1]); raise ValueError('planted')", "FILE"]
    findings = fc.check_cli(b"text", ".mlir", argv, 4, tmp_path).findings
    assert [(f.kind, f.index, f.check) for f in findings] == [("cli", 4, "traceback")]
    assert "ValueError: planted" in findings[0].description
    clean = fc.check_cli(b"text", ".mlir", ["-c", "raise SystemExit(1)", "FILE"], 5, tmp_path)
    assert clean.findings == [] and dict(clean.stats) == {"exit 1": 1}
    odd = fc.check_cli(b"text", ".mlir", ["-c", "raise SystemExit(3)", "FILE"], 6, tmp_path)
    assert [f.check for f in odd.findings] == ["exit status 3"]
