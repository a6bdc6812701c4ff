"""`tileir fuzz` campaigns in process: dedup by signature, the saved files, reduction
(a stand-in reducer, the real one), Ctrl-C, a folder that cannot be written, and the
command's options and progress line."""

from __future__ import annotations

import stat
from types import SimpleNamespace

import pytest

from tileir.cli.main import main
from tileir.fuzz import campaign
from tileir.fuzz.campaign import Config, run, summary
from tileir.fuzz.targets import Options
from tileir.generate import generate_with_arguments
from tileir.reducer import count_ops


def _crashing_tileiras(tmp_path) -> str:
    path = tmp_path / "tileiras"
    path.write_text("#!/bin/sh\nkill -ILL $$\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _config(tmp_path, **changes) -> Config:
    base = dict(count=3, seed=10, targets=("tileiras",), ops=6, out=tmp_path / "out",
                options=Options(tileiras=_crashing_tileiras(tmp_path)))
    base.update(changes)
    return Config(**base)


def _stand_in(calls, **flags):
    def reduce(module, predicate, *, jobs=1, progress=None, deadline=None):
        calls.append((predicate(module), jobs, deadline))
        small = generate_with_arguments(1, ops=1)[0]
        return SimpleNamespace(module=small, ops_before=17, ops_after=4, seconds=0.1,
                               **{"timed_out": False, "interrupted": False, **flags})
    return reduce


def test_findings_deduplicated_saved_and_reduced(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(campaign, "reduce", _stand_in(calls))
    report = run(_config(tmp_path, reduce_seconds=7.0))
    assert report.checked == 3 and report.findings == 3 and len(report.failures) == 1
    failure = next(iter(report.failures.values()))
    assert (failure.signature.target, failure.signature.key) == ("tileiras", "SIGILL")
    assert failure.count == 3 and failure.first.seed == 10
    assert calls == [(True, 1, 7.0)]        # (the predicate holds on the first kernel)
    kernel = generate_with_arguments(10, ops=6)[0]
    assert (failure.ops_before, failure.ops_after) == (count_ops(kernel), 4)
    path = tmp_path / "out" / failure.signature.slug()
    assert failure.path == path
    assert sorted(p.name for p in path.iterdir()) == [
        "kernel.13.5.tileirbc", "kernel.mlir", "message.txt", "reduced.13.5.tileirbc",
        "reduced.mlir", "reproduce.sh", "seed"]
    assert (path / "seed").read_text() == "10\n"
    assert (path / "kernel.mlir").read_text() == \
        generate_with_arguments(10, ops=6)[0].format()
    message = (path / "message.txt").read_text()
    assert message.startswith("signature: tileiras: SIGILL\ntarget: tileiras\n"
                              "seed: 10, version 13.5, gpu-name sm_100\nkernels: 3\n"
                              "seeds: 10 11 12\n\n"
                              "SIGILL (bytecode 13.5, --gpu-name=sm_100)")
    assert (path / "reproduce.sh").read_text() == (
        "tileir fuzz --count 1 --seed 10 --target tileiras --version 13.5 --gpu-name sm_100"
        " --ops 6 --no-reduce\n")
    lines = summary(report).splitlines()
    assert lines[0].startswith("tileir fuzz: 3 kernels (seeds 10..12), targets tileiras: "
                               "1 distinct failures in 3 findings (")
    assert lines[1].split("|")[1:-1] == [
        " signature ", " target   ", " count ", " first seed ", " ops before → after ",
        " saved" + " " * (len(str(path)) - 4)]
    assert [c.strip() for c in lines[3].split("|")[1:-1]] == [
        "SIGILL", "tileiras", "3", "10", f"{count_ops(kernel)} → 4", str(path)]


def test_ctrl_c_in_a_reduction_saves_the_smallest_so_far(tmp_path, monkeypatch):
    # (the reduction's smallest kernel was dropped: only the unreduced one was saved)
    monkeypatch.setattr(campaign, "reduce", _stand_in([], interrupted=True))
    report = run(_config(tmp_path, count=1))
    failure = next(iter(report.failures.values()))
    assert report.interrupted and failure.reduce_note == "reduction interrupted"
    assert (failure.path / "reduced.mlir").read_text() == \
        generate_with_arguments(1, ops=1)[0].format()


def test_a_failure_that_cannot_be_saved_is_a_note(tmp_path):
    (tmp_path / "file").write_text("")
    report = run(_config(tmp_path, count=1, reduce=False, out=tmp_path / "file" / "out"))
    failure = next(iter(report.failures.values()))
    assert failure.path is None
    assert report.notes == [f"cannot save {failure.signature.slug()} under "
                            f"'{tmp_path / 'file' / 'out'}': Not a directory"]
    assert summary(report).endswith("note: " + report.notes[0])


def test_no_reduce_and_no_findings(tmp_path):
    report = run(Config(count=2, seed=3, targets=("roundtrip",), ops=5,
                        out=tmp_path / "out", reduce=False))
    assert report.failures == {} and not (tmp_path / "out").exists()
    assert summary(report).startswith("tileir fuzz: 2 kernels (seeds 3..4), targets "
                                      "roundtrip: 0 distinct failures in 0 findings (")


def test_real_reducer_keeps_the_signature(tmp_path):
    report = run(_config(tmp_path, count=1, ops=8, reduce_seconds=60.0))
    failure = next(iter(report.failures.values()))
    assert failure.ops_after is not None and failure.ops_after < failure.ops_before
    assert (failure.path / "reduced.mlir").exists()


def test_ctrl_c_stops_and_reports(tmp_path, monkeypatch):
    original = campaign.check_seed

    def interrupted(config, seed):
        if seed == 12:
            raise KeyboardInterrupt
        return original(config, seed)

    monkeypatch.setattr(campaign, "check_seed", interrupted)
    report = run(_config(tmp_path, count=5, reduce=False))
    assert report.interrupted and report.checked == 2 and report.findings == 2
    assert summary(report).startswith("tileir fuzz: interrupted after 2 of 5 kernels "
                                      "(seeds 10..11)")
    assert next(iter(report.failures.values())).path.is_dir()


def test_deterministic_by_seed(tmp_path):
    config = Config(count=4, seed=21, targets=("roundtrip",), reduce=False, out=None)
    assert [campaign.kernel(config, s)[0].format() for s in (21, 22)] == \
        [campaign.kernel(config, s)[0].format() for s in (21, 22)]
    assert config.kernel_ops(21) == 6 + 21 % 15


@pytest.mark.parametrize("argv, message", [
    (["--target", "nope"], "unknown target 'nope'; choose from tileiras, tileirdisasm, "
     "engines, roundtrip"),
    (["--target", "roundtrip", "--version", "12.0"],
     "--version takes some of 13.1, 13.2, 13.3, 13.4, 13.5"),
    (["--target", "roundtrip", "--gpu-name", "ampere"],
     "--gpu-name takes names such as sm_80,sm_90,sm_100, got 'ampere'"),
])
def test_bad_options_one_line_exit_2(argv, message, capsys):
    assert main(["fuzz", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"tileir fuzz: error: {message}\n"


@pytest.mark.parametrize("argv, message", [
    (["-j", "0"], "argument -j/--jobs: expected an integer from 1 to 256, got '0'"),
    (["-j", "100000"], "argument -j/--jobs: expected an integer from 1 to 256, got '100000'"),
    (["--count", "-1"], "argument --count: expected an integer of at least 0, got '-1'"),
    (["--seed", "-5"], "argument --seed: expected an integer of at least 0, got '-5'"),
    (["--ops", "0"], "argument --ops: expected an integer from 1 to 10000, got '0'"),
    (["--ops", "100000000"],
     "argument --ops: expected an integer from 1 to 10000, got '100000000'"),
    (["--timeout", "nan"], "argument --timeout: expected a positive number of seconds, got "
     "'nan'"),
    (["--reduce-seconds", "inf"], "argument --reduce-seconds: expected a positive number of "
     "seconds, got 'inf'"),
])
def test_numbers_out_of_range_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["fuzz", "--target", "roundtrip", *argv])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1] == f"tileir fuzz: error: {message}"


def test_an_out_that_is_a_file_is_refused_first(tmp_path, capsys):
    (tmp_path / "k.mlir").write_text("")
    for out in ("k.mlir", "k.mlir/found"):
        assert main(["fuzz", "--target", "roundtrip", "--count", "1",
                     "--out", str(tmp_path / out)]) == 2
        assert capsys.readouterr().err == (
            f"tileir fuzz: error: --out '{tmp_path / out}': '{tmp_path / 'k.mlir'}' is not "
            "a directory\n")


def test_a_huge_count_is_not_listed_up_front(tmp_path, monkeypatch):
    # (the seeds were listed, and every one submitted to the pool, before the first ran)
    seen = []

    def stop_at_the_fifth(config, seed):
        seen.append(seed)
        if len(seen) == 5:
            raise KeyboardInterrupt
        return []
    monkeypatch.setattr(campaign, "check_seed", stop_at_the_fifth)
    report = run(Config(count=10 ** 30, seed=0, targets=("roundtrip",), out=None))
    assert report.interrupted and report.checked == 4 and seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("target, tool", [("tileiras", "tileiras"),
                                          ("roundtrip,tileirdisasm", "tileirdisasm")])
def test_missing_tool_says_how_to_install(target, tool, capsys, monkeypatch):
    from tileir.fuzz import targets
    monkeypatch.setattr(targets, "tool_path", lambda name: None)
    assert main(["fuzz", "--target", target, "--count", "1"]) == 2
    assert capsys.readouterr().err == (
        f"tileir fuzz: error: target '{tool}' needs NVIDIA's {tool}, which is not "
        "installed: pip install 'tileir[oracles]' (or pip install nvidia-cuda-tileiras)\n")


def test_help_describes_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["fuzz", "--help"])
    out = capsys.readouterr().out
    for option in ("--count", "--seed", "--target", "--ops", "--version", "--gpu-name",
                   "--out", "--no-reduce", "--reduce-seconds", "--timeout", "--jobs"):
        assert option in out
    from tileir.cli.main import build_parser
    fuzz = build_parser()._subparsers._group_actions[0].choices["fuzz"]
    assert all(a.help for a in fuzz._actions)


def test_generator_exception_is_a_finding(tmp_path, monkeypatch):
    def broken(seed, version, ops):
        raise RuntimeError(f"no kernel for seed {seed}")

    monkeypatch.setattr(campaign, "generate_with_arguments", broken)
    report = run(Config(count=2, seed=8, targets=("roundtrip",), reduce=False, out=None))
    assert [(str(s), f.count) for s, f in report.failures.items()] == [
        ("generator: generator raised RuntimeError: no kernel for seed #", 2)]


def test_progress_line_only_on_a_terminal(tmp_path, monkeypatch, capsys):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    argv = ["fuzz", "--target", "roundtrip", "--count", "3", "--out", str(tmp_path)]
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert main(argv) == 0
    shown = sys.stderr.getvalue()
    assert "\r1/3 kernels, 0 distinct failures, 0 findings, " in shown  # (the first drawn)
    assert shown.endswith("\r")                     # (the line wiped at the end)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(argv) == 0
    assert sys.stderr.getvalue() == ""
    assert capsys.readouterr().out.startswith("tileir fuzz: 3 kernels")
