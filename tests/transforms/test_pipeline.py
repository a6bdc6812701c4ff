"""Pass pipelines (tileir.transforms.pipeline): the text MLIR's tools read (nests, passes,
typed options, commas between elements), and what running one guarantees: anchors
checked, the verifier after each pass whatever else is checked (a pass that breaks the IR
is caught and named), and every malformed pipeline or option one diagnostic from
cuda-tile-opt, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tileir
from tileir.transforms import (PASSES, InvalidAfterPass, PassDef, PassFailure, PipelineError,
                               load_passes, parse_pipeline, run)
from tileir.transforms.pipeline import Nest, PassStep, parse_options
from transform_helpers import ONE_ENTRY, opt

load_passes()


# ---- the text ----------------------------------------------------------------------------


def test_nests_passes_and_options() -> None:
    [top] = parse_pipeline("builtin.module(cuda_tile.module(cuda_tile.entry("
                           "loop-split{split-threshold=2}), cse))")
    loop_split, cse = PASSES["loop-split"], PASSES["cse"]
    assert top == Nest("builtin.module", (Nest("cuda_tile.module", (
        Nest("cuda_tile.entry", (PassStep(loop_split, {"split-threshold": 2}),)),
        PassStep(cse, {}))),))
    assert parse_pipeline(" canonicalize , cse ") == parse_pipeline("canonicalize,cse")
    assert parse_pipeline("") == []


def test_steps_differing_only_in_options_differ() -> None:
    assert parse_pipeline("loop-split{split-threshold=2}") != parse_pipeline("loop-split")
    assert parse_pipeline("loop-split{split-threshold=1}") == parse_pipeline("loop-split")


def test_options_are_typed_quoted_and_defaulted() -> None:
    canonicalize = PASSES["canonicalize"]
    defaults = {"top-down": True, "region-simplify": "normal", "max-iterations": 10,
                "max-num-rewrites": -1, "test-convergence": False}
    assert parse_options(canonicalize, "") == defaults
    assert parse_options(canonicalize, "  test-convergence  max-iterations='3'  "
                                       'region-simplify="disabled" top-down=FALSE ') == {
        **defaults, "test-convergence": True, "max-iterations": 3,
        "region-simplify": "disabled", "top-down": False}
    assert parse_options(canonicalize, "top-down=0 test-convergence=1") == {
        **defaults, "top-down": False, "test-convergence": True}


def _error(text: str) -> str:
    """The one diagnostic's message of the `PipelineError` `text` raises."""
    with pytest.raises(PipelineError) as caught:
        parse_pipeline(text)
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.location is None
    return diagnostic.message


@pytest.mark.parametrize("text, message", [
    ("canonicalize cse",
     "invalid pass pipeline 'canonicalize cse': expected ',' or ')' at 'cse'"),
    ("cuda_tile.entry(cse cse)",
     "invalid pass pipeline 'cuda_tile.entry(cse cse)': expected ',' or ')' at 'cse)'"),
    ("canonicalize,",
     "invalid pass pipeline 'canonicalize,': expected a pass or op name after ','"),
    ("cuda_tile.entry(cse, )",
     "invalid pass pipeline 'cuda_tile.entry(cse, )': expected a pass or op name after ','"),
    ("cse,,cse", "invalid pass pipeline 'cse,,cse': expected a pass or op name at ',cse'"),
    ("garbage(((", "invalid pass pipeline 'garbage(((': expected a pass or op name at '(('"),
    ("builtin.module(cse", "invalid pass pipeline 'builtin.module(cse': missing ')'"),
    ("cse)", "invalid pass pipeline 'cse)': unexpected ')'"),
    ("cse{", "invalid pass pipeline 'cse{': missing '}'"),
    ("nope", "'nope' does not refer to a registered pass or pass pipeline"),
])
def test_malformed_pipeline_text(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize("options, message", [
    ("bogus=1", "'canonicalize' pass has no option 'bogus'"),
    ("=", "invalid options of pass 'canonicalize': expected 'name=value' at '='"),
    ("top-down = true",
     "invalid options of pass 'canonicalize': expected 'name=value' at '= true'"),
    ("max-iterations=\"3", "invalid options of pass 'canonicalize': expected 'name=value' "
                           "at 'max-iterations=\"3'"),
    ("max-iterations=abc",
     "invalid value 'abc' for option 'max-iterations' of pass 'canonicalize'"),
    ("max-iterations=1.5",
     "invalid value '1.5' for option 'max-iterations' of pass 'canonicalize'"),
    ("max-iterations", "invalid value '' for option 'max-iterations' of pass 'canonicalize'"),
    ("top-down=maybe", "invalid value 'maybe' for option 'top-down' of pass 'canonicalize'"),
    ("top-down=", "invalid value '' for option 'top-down' of pass 'canonicalize'"),
    ("region-simplify=sometimes",
     "invalid value 'sometimes' for option 'region-simplify' of pass 'canonicalize'"),
])
def test_malformed_options(options: str, message: str) -> None:
    assert _error(f"canonicalize{{{options}}}") == message


# ---- running -----------------------------------------------------------------------------


def test_anchors_are_checked() -> None:
    module = tileir.parse(ONE_ENTRY)
    with pytest.raises(PassFailure, match="^error: can't run 'loop-split' pass on "
                                          "'cuda_tile.module' op$"):
        run(module, "loop-split")
    with pytest.raises(PassFailure, match="^error: can't run a pipeline anchored on "
                                          "'cuda_tile.entry' on 'cuda_tile.module' op$"):
        run(module, "cuda_tile.entry(cse)")
    run(module, "cuda_tile.module(cuda_tile.entry(loop-split))")


def _drop_terminator(op, options) -> None:
    """A broken pass: the function's return goes."""
    block = op.regions[0].blocks[0]
    block.operations.remove(block.operations[-1])


@pytest.mark.parametrize("check_semantics", [False, True])
def test_a_pass_that_breaks_the_ir_is_caught_and_named(monkeypatch,
                                                       check_semantics: bool) -> None:
    monkeypatch.setitem(PASSES, "test-break", PassDef("test-break", "function",
                                                      _drop_terminator))
    module = tileir.parse(ONE_ENTRY)
    with pytest.raises(InvalidAfterPass) as caught:
        run(module, "cuda_tile.module(cuda_tile.entry(test-break))",
            check_semantics=check_semantics)
    assert caught.value.pass_name == "test-break"
    assert [d.message for d in caught.value.diagnostics] == [
        "'cuda_tile.entry' op expects a non-empty block"]


def test_verify_each_off_runs_no_verifier(monkeypatch) -> None:
    monkeypatch.setitem(PASSES, "test-break", PassDef("test-break", "function",
                                                      _drop_terminator))
    module = tileir.parse(ONE_ENTRY)
    run(module, "cuda_tile.module(cuda_tile.entry(test-break))", verify_each=False)
    assert module.entries[0].regions[0].blocks[0].operations == []


# ---- cuda-tile-opt -------------------------------------------------------------------------

NESTED = "--pass-pipeline=builtin.module(cuda_tile.module(cuda_tile.entry({})))"


@pytest.mark.parametrize("flag, message", [
    (NESTED.format("canonicalize cse"),
     "error: invalid pass pipeline 'builtin.module(cuda_tile.module(cuda_tile.entry("
     "canonicalize cse)))': expected ',' or ')' at 'cse)))'"),
    (NESTED.format("canonicalize{=}"),
     "error: invalid options of pass 'canonicalize': expected 'name=value' at '='"),
    ("--canonicalize=max-iterations=x",
     "error: invalid value 'x' for option 'max-iterations' of pass 'canonicalize'"),
    ("--loop-split={split-threshold=2}",
     "error: 'loop-split' pass has no option '{split-threshold'"),
    ("--pass-pipeline=builtin.module(loop-split)",
     "error: can't run 'loop-split' pass on 'builtin.module' op"),
    (NESTED.format("canonicalize{max-iterations=0 test-convergence}"),
     "in.mlir:2:3: error: canonicalization did not converge\n  entry @k() {\n  ^"),
    ("--test-debuginfo-update-symbol-name=symbol-to-rename=nope",
     "in.mlir:0:0: error: could not find symbol op with name '@nope'"),
])
def test_cuda_tile_opt_says_one_error(tmp_path, monkeypatch, capsys, flag: str,
                                      message: str) -> None:
    assert opt(tmp_path, monkeypatch, capsys, ONE_ENTRY, flag) == (1, "", message + "\n")


def test_cuda_tile_opt_process_on_garbage(tmp_path) -> None:
    """The installed tool, as a process: one line on stderr, no traceback."""
    (tmp_path / "in.mlir").write_text(ONE_ENTRY)
    done = subprocess.run([sys.executable, "-m", "tileir.cli.opt", "in.mlir",
                           "--pass-pipeline=garbage((("], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", "error: invalid pass pipeline 'garbage(((': expected a pass or op name at "
               "'(('\n")


def test_a_pass_name_registers_once(monkeypatch) -> None:
    from tileir.transforms import register
    monkeypatch.setitem(PASSES, "test-once", PASSES["cse"])
    with pytest.raises(ValueError, match="pass 'test-once' registered twice"):
        register("test-once")(lambda op, options: None)
    assert PASSES["test-once"] is PASSES["cse"]
