"""``tileir fuzz``: random valid kernels against NVIDIA's tools and tileir's own engines
and round trips; every distinct failure saved (and reduced) under ``--out``, a summary
table at the end.  Bad options: one line on stderr and exit status 2; findings: exit 1;
Ctrl-C: the summary of what was found, exit 130."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..versions import Version, supported_versions

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
--no-reduce, the kernel reduced while the same signature still holds.

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
    p.add_argument("--count", type=int, default=100, metavar="N",
                   help="how many kernels to generate (default 100)")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="seed of the first kernel; kernel i uses S+i (default 1)")
    p.add_argument("--target", required=True, metavar="T[,T...]",
                   help="what to check: tileiras, tileirdisasm, engines, roundtrip "
                   "(comma-separated)")
    p.add_argument("--ops", type=int, default=None, metavar="N",
                   help="about how many ops each kernel has (default: 6 to 20, by seed)")
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
    p.add_argument("--reduce-seconds", type=float, default=300.0, metavar="SECONDS",
                   help="the most time spent reducing one failure (default 300)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="seconds tileiras or tileirdisasm may take on one kernel before it "
                   "counts as hanging (default 60)")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="processes checking kernels (and testing reductions) at once "
                   "(default 1)")
    p.set_defaults(func=run_command)
    return p


def run_command(args: argparse.Namespace) -> int:
    """Check the options, run the campaign, print its summary."""
    from ..fuzz import campaign
    from ..fuzz.targets import TARGETS, Options, tool_path
    targets = tuple(dict.fromkeys(t.strip() for t in args.target.split(",") if t.strip()))
    unknown = [t for t in targets if t not in TARGETS]
    if unknown or not targets:
        return _error(f"unknown target '{unknown[0] if unknown else args.target}'; "
                      f"choose from {', '.join(TARGETS)}")
    if args.count < 0 or args.jobs < 1 or (args.ops is not None and args.ops < 1) \
            or args.timeout <= 0 or args.reduce_seconds <= 0:
        return _error("--count must be at least 0, --jobs and --ops at least 1, --timeout "
                      "and --reduce-seconds positive")
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
    terminal = sys.stderr.isatty()
    progress = campaign.progress_line(sys.stderr) if terminal else None

    def log(line: str) -> None:
        if terminal:
            sys.stderr.write("\r\x1b[K" + line + "\n")
            sys.stderr.flush()

    report = campaign.run(config, progress, log)
    if terminal:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    print(campaign.summary(report), flush=True)
    if report.interrupted:
        return 130
    return 1 if report.failures else 0


__all__ = ["add_parser", "run_command"]
