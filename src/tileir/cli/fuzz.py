"""``tileir fuzz``: random valid kernels against NVIDIA's tools and tileir's own engines
and round trips; every distinct failure saved (and reduced) under ``--out``, a summary
table at the end.  Bad options: exit status 2 with one line saying which (after argparse's
usage for a number out of range); findings: exit 1; Ctrl-C: the summary of what was found,
exit 130."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..versions import Version, supported_versions
from .common import MAX_JOBS, StatusLine, int_option, jobs_option, positive_seconds

#: The most ops a generated kernel may be asked for (generating 10,000 takes seconds; the
#: time grows faster than the count).
MAX_OPS = 10_000

DESCRIPTION = """\
Generate COUNT random valid kernels (kernel i from seed SEED+i, so --count 1 --seed N
finds kernel N again) and run each target on each:

  tileiras      NVIDIA's compiler crashes (a signal), hangs, or rejects a kernel tileir's
                verifier accepts (refusals of what an architecture lacks are not failures)
  tileirdisasm  NVIDIA's disassembler prints tileir's bytecode other than tileir does
  engines       the reference and batched engines, or checks on and off, disagree
  roundtrip     text -> parse -> print or bytecode write -> read -> write changes

Findings are grouped by signature (the target and the signal, or the first line of the
message with names and numbers masked); each distinct failure gets a directory under
--out with its first kernel (.mlir, .tileirbc), the message, the seed and, unless
--no-reduce, the kernel reduced while the same signature still holds.  On a terminal a
progress line is redrawn on stderr.

examples:
  tileir fuzz --count 200 --target roundtrip,engines
  tileir fuzz --count 2000 --target tileiras --gpu-name sm_80,sm_90,sm_100,sm_120 -j 4
"""


def _error(message: str) -> int:
    print(f"tileir fuzz: error: {message}", file=sys.stderr)
    return 2


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tileir fuzz`` with its options on `subparsers` (build_parser's)."""
    p = subparsers.add_parser(
        "fuzz", help="check random valid kernels against NVIDIA's tools and tileir's "
        "engines, saving each distinct failure", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int_option(0), default=100, metavar="N",
                   help="how many kernels to generate (default 100)")
    p.add_argument("--seed", type=int_option(0), default=1, metavar="S",
                   help="seed of the first kernel; kernel i uses S+i (default 1)")
    p.add_argument("--target", required=True, metavar="T[,T...]",
                   help="what to check: tileiras, tileirdisasm, engines, roundtrip "
                   "(comma-separated)")
    p.add_argument("--ops", type=int_option(1, MAX_OPS), default=None, metavar="N",
                   help="about how many ops each kernel has, at most "
                   f"{MAX_OPS:,} (default: 6 to 20, by seed)")
    p.add_argument("--version", default=None, metavar="V[,V...]",
                   help="bytecode versions to write each kernel at, for tileiras, "
                   "tileirdisasm and roundtrip; kernels use the newest one's ops "
                   "(default 13.5)")
    p.add_argument("--gpu-name", default="sm_100", metavar="sm_XX[,sm_XX...]",
                   help="architectures tileiras compiles for (default sm_100)")
    p.add_argument("--out", type=Path, default=Path("fuzz-findings"), metavar="DIR",
                   help="where each distinct failure's directory goes "
                   "(default fuzz-findings/)")
    p.add_argument("--no-reduce", dest="reduce", action="store_false",
                   help="save the failing kernels without reducing them")
    p.add_argument("--reduce-seconds", type=positive_seconds, default=300.0,
                   metavar="SECONDS",
                   help="the most time spent reducing one failure (default 300)")
    p.add_argument("--timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                   help="seconds tileiras or tileirdisasm may take on one kernel, or the "
                   "engines target's launches, before it counts as hanging (default 60)")
    p.add_argument("-j", "--jobs", type=jobs_option, default=1, metavar="N",
                   help="processes checking kernels (and testing reductions) at once, at "
                   f"most {MAX_JOBS} (default 1)")
    p.set_defaults(func=run_command)
    return p


def _unwritable(out: Path) -> str | None:
    """Why findings cannot be saved under `out` (None when they can): the nearest part of
    it that exists must be a directory this process may write in."""
    at = out.absolute()
    while not at.exists() and at != at.parent:
        at = at.parent
    if not at.is_dir():
        return f"--out '{out}': '{at}' is not a directory"
    if not os.access(at, os.W_OK | os.X_OK):
        return f"--out '{out}': '{at}' is not writable"
    return None


def run_command(args: argparse.Namespace) -> int:
    """Check the options, run the campaign, print its summary."""
    from ..fuzz import campaign
    from ..fuzz.targets import TARGETS, Options, tool_path
    targets = tuple(dict.fromkeys(t.strip() for t in args.target.split(",") if t.strip()))
    unknown = [t for t in targets if t not in TARGETS]
    if unknown or not targets:
        return _error(f"unknown target '{unknown[0] if unknown else args.target}'; "
                      f"choose from {', '.join(TARGETS)}")
    known = supported_versions()
    try:
        versions = tuple(dict.fromkeys(Version.parse(v) for v in
                                       (args.version or "13.5").split(",")))
    except ValueError as exc:
        return _error(str(exc))
    if not set(versions) <= set(known):
        return _error(f"--version takes some of {', '.join(map(str, known))}")
    gpu_names = tuple(dict.fromkeys(g.strip() for g in args.gpu_name.split(",") if g.strip()))
    if not gpu_names or not all(g.startswith("sm_") and g[3:].rstrip("af").isdigit()
                                for g in gpu_names):
        return _error(f"--gpu-name takes names such as sm_80,sm_90,sm_100, got "
                      f"'{args.gpu_name}'")
    why = _unwritable(args.out)
    if why is not None:
        return _error(why)
    tools: dict[str, str | None] = {}
    for target in targets:
        for tool in TARGETS[target].tools:
            tools[tool] = tool_path(tool)
            if tools[tool] is None:
                return _error(f"target '{target}' needs NVIDIA's {tool}, which is not "
                              "installed: pip install 'tileir[oracles]' (or pip install "
                              "nvidia-cuda-tileiras)")
    options = Options(versions, gpu_names, args.timeout, tools.get("tileiras"),
                      tools.get("tileirdisasm"))
    config = campaign.Config(args.count, args.seed, targets, options, args.ops, args.out,
                             args.reduce, args.jobs, args.reduce_seconds)
    line = StatusLine(sys.stderr)       # (drawn only on a terminal)

    def progress(report: campaign.Report, total: int) -> None:
        rate = report.checked / max(line.clock() - line.start, 1e-9)
        line.show(lambda: f"{report.checked}/{total} kernels, {len(report.failures)} "
                  f"distinct failures, {report.findings} findings, {rate:.1f}/s")

    def log(message: str) -> None:
        """A line above the progress line (on a terminal only, as the progress line)."""
        if line.enabled:
            line.clear()
            try:
                line.stream.write(message + "\n")
                line.stream.flush()
            except (OSError, ValueError):       # (as StatusLine: a failing stream is left)
                line.enabled = False

    try:
        report = campaign.run(config, progress, log)
    finally:
        line.clear()
    print(campaign.summary(report), flush=True)
    if report.interrupted:
        return 130
    return 1 if report.failures or report.notes else 0


__all__ = ["MAX_OPS", "add_parser", "run_command"]
