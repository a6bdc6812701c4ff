"""NVIDIA's optimization levels as pipelines (tileir.transforms.optimize) and cuda-tile-opt's
-O0..-O3 and --fuse-fma-opt.  The pipeline texts are checked whatever passes exist; runs
of a level skip, naming the passes it lacks, until they are registered."""

from __future__ import annotations

import pytest

import tileir
from tileir.cli.opt import build_parser
from tileir.transforms import PipelineError, parse_pipeline
from tileir.transforms.optimize import missing_passes, optimize, passes_for, pipeline_for
from tileir.transforms.pipeline import Nest
from transform_helpers import KERNELS, ONE_ENTRY, opt


def _in_functions(body: str) -> str:
    return f"cuda_tile.module(cuda_tile.entry({body}), cuda_tile.testing$func({body}))"


O3 = "canonicalize, cse, loop-invariant-code-motion, loop-split{split-threshold=1}, canonicalize"


@pytest.mark.parametrize("level, fuse_fma, body", [
    (0, False, ""),
    (1, False, "canonicalize, cse"),
    (2, False, "canonicalize, cse, loop-invariant-code-motion"),
    (3, False, O3),
    (0, True, "fuse-fma"),
    (1, True, "fuse-fma, canonicalize, cse"),
    (2, True, "fuse-fma, canonicalize, cse, loop-invariant-code-motion"),
    (3, True, "fuse-fma, " + O3),
])
def test_pipeline_texts(level: int, fuse_fma: bool, body: str) -> None:
    assert pipeline_for(level, fuse_fma) == _in_functions(body)
    assert ", ".join(passes_for(level, fuse_fma)) == body


def test_pipeline_defaults_and_split_threshold() -> None:
    assert pipeline_for(3) == _in_functions(O3)
    assert passes_for(3, split_threshold=4)[3] == "loop-split{split-threshold=4}"


@pytest.mark.parametrize("level", [-1, 4, "3"])
def test_levels_are_0_to_3(level) -> None:
    with pytest.raises(ValueError, match=f"optimization level must be one of 0, 1, 2, 3, "
                                         f"got {level!r}"):
        pipeline_for(level)


def test_missing_passes_are_named_once_in_order(monkeypatch) -> None:
    from tileir.transforms import registry
    monkeypatch.setattr(registry, "PASSES", {})
    monkeypatch.setattr("tileir.transforms.optimize.load_passes", lambda: {})
    assert missing_passes(3, True) == ["fuse-fma", "canonicalize", "cse",
                                       "loop-invariant-code-motion", "loop-split"]
    assert missing_passes(0) == []


def test_o0_parses_to_empty_function_nests() -> None:
    assert parse_pipeline(pipeline_for(0)) == [Nest("cuda_tile.module", (
        Nest("cuda_tile.entry", ()), Nest("cuda_tile.testing$func", ())))]


# ---- cuda-tile-opt ---------------------------------------------------------------------

def test_opt_flags() -> None:
    parse = build_parser().parse_args
    assert parse(["-O3", "x"]).opt_level == 3
    assert parse(["-O", "1", "x"]).opt_level == 1
    assert parse(["x"]).opt_level is None and not parse(["x"]).fuse_fma_opt
    assert parse(["-O0", "--fuse-fma-opt", "x"]).fuse_fma_opt


def test_opt_level_out_of_range(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["-O4", "x"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.endswith(
        "cuda-tile-opt: error: argument -O: invalid choice: 4 (choose from 0, 1, 2, 3)\n")


PRINTED = "module {\n  cuda_tile.module @m {\n    entry @k() {\n      return\n    }\n  }\n}\n"


def test_o0_runs_nothing(tmp_path, monkeypatch, capsys) -> None:
    assert opt(tmp_path, monkeypatch, capsys, ONE_ENTRY, "-O0") == (0, PRINTED, "")
    assert opt(tmp_path, monkeypatch, capsys, ONE_ENTRY, "-O0", "-no-implicit-module") == (
        0, ONE_ENTRY, "")


def test_o0_then_a_pass_pipeline(tmp_path, monkeypatch, capsys) -> None:
    status, out, err = opt(
        tmp_path, monkeypatch, capsys, ONE_ENTRY, "-O0", "--pass-pipeline="
        "builtin.module(cuda_tile.module(synthesize-debug-info-scopes))",
        "--mlir-print-debuginfo")
    assert (status, err) == (0, "")
    assert '#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 2, name = "k"' \
        in out


def test_fuse_fma_opt_needs_a_level(tmp_path, monkeypatch, capsys) -> None:
    assert opt(tmp_path, monkeypatch, capsys, ONE_ENTRY, "--fuse-fma-opt") == (
        1, "", "error: --fuse-fma-opt needs an optimization level (-O0 to -O3)\n")


def test_a_level_with_unregistered_passes_says_which(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr("tileir.transforms.pipeline.load_passes", lambda: {})
    assert opt(tmp_path, monkeypatch, capsys, ONE_ENTRY, "-O1") == (
        1, "", "error: 'canonicalize' does not refer to a registered pass or pass pipeline\n")


def test_levels_run_their_passes_in_order_on_each_function(tmp_path, monkeypatch,
                                                            capsys) -> None:
    """With stand-ins for the five passes: what each level runs, on what."""
    from tileir.transforms import PASSES, PassDef, PassOption
    ran: list[tuple[str, str, dict]] = []
    for name, anchor in [("fuse-fma", "function"), ("canonicalize", "any"), ("cse", "any"),
                         ("loop-invariant-code-motion", "any"), ("loop-split", "function")]:
        options = (PassOption("split-threshold", int, 1),) if name == "loop-split" else ()
        monkeypatch.setitem(PASSES, name, PassDef(
            name, anchor, lambda op, opts, name=name: ran.append((name, op.symbol, opts)),
            options=options))
    text = ONE_ENTRY.replace("  }\n}", "  }\n  testing$func @t() {\n    return\n  }\n}")
    status, out, err = opt(tmp_path, monkeypatch, capsys, text, "-O3", "--fuse-fma-opt")
    assert (status, err) == (0, "")
    per_function = [("fuse-fma", {}), ("canonicalize", {}), ("cse", {}),
                    ("loop-invariant-code-motion", {}),
                    ("loop-split", {"split-threshold": 1}), ("canonicalize", {})]
    assert ran == [(name, function, opts) for function in ("k", "t")
                   for name, opts in per_function]
    ran.clear()
    module = tileir.parse(text)
    assert optimize(module, 2) is module
    assert [(name, function) for name, function, _ in ran] == [
        (name, function) for function in ("k", "t")
        for name in ("canonicalize", "cse", "loop-invariant-code-motion")]


# ---- running the levels (once their passes exist) ---------------------------------------

LEVEL_CASES = [(level, fma) for level in (1, 2, 3) for fma in (False, True)] + [(0, True)]


def _require(level: int, fuse_fma: bool) -> None:
    missing = missing_passes(level, fuse_fma)
    if missing:
        pytest.skip(f"-O{level}{' --fuse-fma-opt' if fuse_fma else ''} needs passes not "
                    f"registered yet: {', '.join(missing)}")


@pytest.mark.parametrize("level, fuse_fma", LEVEL_CASES)
@pytest.mark.parametrize("kernel", ["vector_add.mlir", "bug_scale2d.mlir"])
def test_levels_keep_what_kernels_compute(level: int, fuse_fma: bool, kernel: str) -> None:
    from collections import Counter

    from tileir.transforms.check import Report
    _require(level, fuse_fma)
    module = tileir.load(KERNELS / kernel)
    report = Report()
    assert optimize(module, level, fuse_fma, check_semantics=True, report=report) is module
    module.verify()
    # every pass step of the level ran the kernel before and after it (a check that
    # compares nothing would pass whatever the passes did)
    names = Counter(text.partition("{")[0] for text in passes_for(level, fuse_fma))
    assert (report.compared, report.unchecked) == (dict(names), {})


@pytest.mark.parametrize("level, fuse_fma", LEVEL_CASES)
def test_levels_from_cuda_tile_opt(tmp_path, monkeypatch, capsys, level: int,
                                   fuse_fma: bool) -> None:
    _require(level, fuse_fma)
    text = (KERNELS / "vector_add.mlir").read_text()
    status, out, err = opt(tmp_path, monkeypatch, capsys, text, f"-O{level}",
                            *(["--fuse-fma-opt"] if fuse_fma else []), "--check-semantics")
    assert (status, err) == (0, "")
    # the same as the Python entry point, on the builtin.module cuda-tile-opt wraps
    module = tileir.load(KERNELS / "vector_add.mlir")
    optimize(module, level, fuse_fma)
    assert out == "module {\n" + "".join(
        "  " + line if line else line
        for line in module.format().splitlines(keepends=True)) + "}\n"


def test_optimize_o0_without_passes_changes_nothing() -> None:
    module = tileir.load(KERNELS / "vector_add.mlir")
    before = module.format()
    assert optimize(module, 0).format() == before


def test_optimize_reports_an_unregistered_pass(monkeypatch) -> None:
    monkeypatch.setattr("tileir.transforms.pipeline.load_passes", lambda: {})
    module = tileir.load(KERNELS / "vector_add.mlir")
    with pytest.raises(PipelineError, match="'canonicalize' does not refer to a registered"):
        optimize(module, 1)
