"""``tileir reduce``: shrink a kernel while a test still holds (``tileir.reduce``).

    tileir reduce KERNEL.mlir|KERNEL.tileirbc (--test 'CMD {}' | --tileiras-crash |
                  --tileiras-error TEXT | --diagnostic TEXT | --engines-differ)
                  [-o MIN.mlir] [-j N] [--time-limit S]

Exit status: 0 when the reduction reached a fixed point (or its time limit); 1 for a kernel
that does not read or verify, a test that does not hold on it, or an output that cannot
be written; 2 for a wrong command line or a missing tileiras; 130 for Ctrl-C, after writing
the smallest kernel found so far.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Callable

from ..api import load
from ..diagnostics import TileIRError
from ..ir import Module
from ..reducer import Progress, ReduceError, reduce
from ..reducer import predicates
from .common import (MAX_JOBS, CliError, StatusLine, jobs_option, positive_int,
                     positive_seconds, write_output)

PROG = "tileir reduce"
#: How often the progress line is redrawn (seconds).
PROGRESS_EVERY = 0.1
#: How long one run of a --test command may take by default (seconds): a command that
#: hangs on a candidate must not hang the reduction.
TEST_TIMEOUT_S = 300.0

DESCRIPTION = """\
Shrink a Tile IR kernel to a small one on which a test still holds, by delta debugging:
delete ops (big chunks first, then single ones), replace results by operands, block
arguments, zeros or other values, inline if branches and loop bodies, drop loop-carried
values, entry arguments and items, reset attributes, make constants zero, halve tile
shapes and tensor views, drop unit dimensions and make element types f32 or i32, repeated
to a fixed point.  Every candidate is a valid kernel (it verifies, with no kind of
warning the input lacks); the smallest interesting one (fewest ops, then shortest text)
is kept.
The result is the same for every -j.  Ctrl-C stops the search and writes the smallest
kernel found so far (exit status 130).
"""

EPILOG = """\
the test (exactly one):
  --test 'CMD {}'        CMD, run by the shell, exits 0 on a candidate: {} is the path of
                         a file holding it (text, .mlir; bytecode 13.5 with --as-bytecode)
  --tileiras-crash       NVIDIA's tileiras dies of the signal it dies of on KERNEL
  --tileiras-error TEXT  tileiras refuses the candidate with a message containing TEXT
  --diagnostic TEXT      a diagnostic of tileir's verifier (as tileir check: spec warnings
                         on), or with --launch of a launch on made-up inputs, contains TEXT
  --engines-differ       tileir's engines disagree on the candidate launched on made-up
                         inputs as they disagree on KERNEL (the reference, blocks with
                         checks on, against batched or checks off, both schedules)

examples:
  tileir reduce crash.mlir --tileiras-crash --gpu-name sm_90 -o small.mlir -j 4
  tileir reduce k.mlir --test 'tileiras --gpu-name=sm_100 -o /dev/null {}' --as-bytecode
  tileir reduce k.mlir --diagnostic 'may be out of bounds'
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tileir reduce`` with its options on `subparsers` (build_parser's)."""
    p = subparsers.add_parser(
        "reduce", help="shrink a kernel while a test (a crash, a diagnostic, ...) holds",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="KERNEL", help="Tile IR text (.mlir) or bytecode "
                   "(.tileirbc) file")
    test = p.add_mutually_exclusive_group(required=True)
    test.add_argument("--test", metavar="'CMD {}'", help="a shell command that exits 0 "
                      "while the candidate is still interesting; {} is replaced by the "
                      "candidate's file path (appended when CMD has no {})")
    test.add_argument("--tileiras-crash", action="store_true", help="keep candidates "
                      "NVIDIA's tileiras dies on with the same signal as on KERNEL")
    test.add_argument("--tileiras-error", metavar="TEXT", help="keep candidates tileiras "
                      "refuses with an error message containing TEXT")
    test.add_argument("--diagnostic", metavar="TEXT", help="keep candidates on which one "
                      "of tileir's diagnostics contains TEXT")
    test.add_argument("--engines-differ", action="store_true", help="keep candidates on "
                      "which tileir's engines disagree (launched on made-up inputs)")
    p.add_argument("--as-bytecode", action="store_true", help="with --test: give the "
                   "command a bytecode file (.tileirbc, version 13.5) instead of text")
    p.add_argument("--test-timeout", type=positive_seconds, default=TEST_TIMEOUT_S,
                   metavar="S", help="with --test: a run longer than S seconds is killed "
                   f"and counts as not interesting (default: {TEST_TIMEOUT_S:g})")
    p.add_argument("--gpu-name", default="sm_100", metavar="sm_XX", help="with "
                   "--tileiras-crash or --tileiras-error: the architecture tileiras "
                   "compiles for (default: sm_100)")
    p.add_argument("-Wunsupported-hints", dest="warn_hints", action="store_true",
                   help="with --diagnostic: also warn about optimization hints tileiras "
                   "does not know, as tileir check -Wunsupported-hints does")
    p.add_argument("--launch", action="store_true", help="with --diagnostic: also launch "
                   "each entry on one tile block with made-up inputs and match the error")
    p.add_argument("--grids", type=_grids, default=(1, 3), metavar="N[,N...]",
                   help="with --engines-differ: the 1-D grids to launch on (default: 1,3)")
    p.add_argument("-o", dest="output", metavar="MIN.mlir", help="write the smallest kernel "
                   "here (bytecode 13.5 when the name ends in .tileirbc) instead of "
                   "printing it")
    p.add_argument("-j", "--jobs", type=jobs_option, default=1, metavar="N",
                   help=f"test N candidates at once, in N processes, at most {MAX_JOBS} "
                   "(default: 1)")
    p.add_argument("--time-limit", type=positive_seconds, metavar="S", help="stop after S "
                   "seconds, keeping the smallest kernel found so far")
    p.set_defaults(func=reduce_command)
    return p


def _grids(text: str) -> tuple[int, ...]:
    """A comma-separated list of 1-D grid sizes."""
    return tuple(positive_int(part) for part in text.split(","))


class Refusal(Exception):
    """Why the command stops before reducing: one line, and the exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _tileiras_crash(args: argparse.Namespace, module: Module) -> predicates.TileirasCrash:
    """The test "tileiras dies of the signal it dies of on the input"."""
    found = predicates.tileiras_outcome(module, args.gpu_name)
    if not isinstance(found, int):
        how = "compiles it" if found is None else \
            f"refuses it: {found.splitlines()[0]}"
        raise Refusal(f"the test does not hold on {args.file}: tileiras "
                      f"--gpu-name={args.gpu_name} does not crash on it (it {how})")
    return predicates.tileiras_crash(found, args.gpu_name)


def _engines_differ(args: argparse.Namespace, module: Module) -> predicates.EnginesDiffer:
    """The test "the engines disagree as they disagree on the input" (the settings that
    disagree there: a reduction must not drift to another disagreement)."""
    try:
        with predicates.time_limit(predicates.LAUNCH_TIMEOUT_S):
            found = {d.setting for d in predicates.engine_disagreements(module, args.grids)}
    except predicates.TimedOut:
        raise Refusal(f"the test does not hold on {args.file}: its launches take more than "
                      f"{predicates.LAUNCH_TIMEOUT_S:g} s") from None
    if not found:
        raise Refusal(f"the test does not hold on {args.file}: tileir's engines agree on it")
    return predicates.engines_differ(args.grids, settings=sorted(found))


#: How each test option makes its predicate: (the option's destination, the factory).
TESTS: dict[str, Callable[[argparse.Namespace, Module], predicates.Predicate]] = {
    "test": lambda a, m: predicates.command(  # (no one run past the whole --time-limit)
        a.test, as_bytecode=a.as_bytecode, timeout=min(a.test_timeout,
                                                       a.time_limit or math.inf)),
    "tileiras_crash": _tileiras_crash,
    "tileiras_error": lambda a, m: predicates.tileiras_error(a.tileiras_error, a.gpu_name),
    "diagnostic": lambda a, m: predicates.diagnostic(a.diagnostic, warn_hints=a.warn_hints,
                                                     launch=a.launch),
    "engines_differ": _engines_differ,
}


def _predicate(args: argparse.Namespace, module: Module) -> predicates.Predicate:
    """The predicate the command line asks for."""
    for dest, make in TESTS.items():
        if getattr(args, dest) not in (None, False):
            try:
                return make(args, module)
            except predicates.ToolMissing as exc:
                raise Refusal(str(exc), 2) from None
    raise Refusal("no test given", 2)       # (argparse requires one)


def _read(path: str) -> Module:
    """The kernel in `path`, verified; `Refusal` with its first diagnostic otherwise."""
    try:
        return load(path)
    except OSError as exc:
        raise Refusal(f"cannot read '{path}': {exc.strerror or exc}") from None
    except TileIRError as exc:
        first = exc.diagnostics[0] if exc.diagnostics else None
        line = str(first).splitlines()[0] if first is not None else str(exc)
        raise Refusal(line if path in line else f"{path}: {line}") from None


def _progress_text(p: Progress) -> str:
    """The progress line's text at `p`."""
    return (f"{PROG}: {p.ops_before} -> {p.ops} ops, {p.tested} tested, "
            f"{p.seconds:.1f} s ({p.reduction})")


def _check_output(path: str | None, module: Module) -> None:
    """Refuse, before any work, an -o that cannot be written: a directory, a folder that
    does not exist, a file or folder not writable, bytecode the input cannot be written
    as."""
    if path is None or path == "-":
        return
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    why = "Is a directory" if os.path.isdir(target) else \
        "No such file or directory" if not os.path.isdir(folder) else \
        "Permission denied" if not os.access(
            target if os.path.exists(target) else folder, os.W_OK) else None
    if why is not None:
        raise Refusal(f"cannot write '{path}': {why}")
    if path.endswith(".tileirbc"):
        try:
            module.to_bytecode(version=predicates.BYTECODE_VERSION)
        except TileIRError as exc:
            raise Refusal(f"cannot write '{path}' as bytecode "
                          f"{predicates.BYTECODE_VERSION}: {exc.message}") from None


def reduce_command(args: argparse.Namespace) -> int:
    """``tileir reduce``: its exit status."""
    try:
        module = _read(args.file)
        _check_output(args.output, module)
        predicate = _predicate(args, module)
    except Refusal as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return exc.status
    line = StatusLine(sys.stderr, every=PROGRESS_EVERY)
    try:
        result = reduce(module, predicate, jobs=args.jobs,
                        progress=lambda p: line.show(lambda: _progress_text(p)),
                        deadline=args.time_limit)
    except ReduceError as exc:
        line.clear()
        message = str(exc).replace("the original input", args.file)
        if args.test is not None and message.endswith(f"does not hold on {args.file}"):
            message += (f" (its command must exit 0 on it within {args.test_timeout:g} s, "
                        "--test-timeout)")
        print(f"{PROG}: {message}", file=sys.stderr)
        return 1
    finally:
        line.clear()
    if args.output is None:
        sys.stdout.write(result.module.format())
    else:
        try:
            data: str | bytes = result.module.to_bytecode(
                version=predicates.BYTECODE_VERSION) if args.output.endswith(".tileirbc") \
                else result.module.format()
            write_output(data, args.output)
        except TileIRError as exc:
            print(f"{PROG}: cannot write '{args.output}' as bytecode: {exc.message}",
                  file=sys.stderr)
            return 1
        except CliError as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            return 1
    how = " (interrupted before the smallest kernel was tested again)" \
        if not result.confirmed else \
        " (interrupted: the smallest kernel so far)" if result.interrupted else \
        " (time limit: the smallest kernel so far)" if result.timed_out else ""
    print(f"{PROG}: {result.ops_before} -> {result.ops_after} ops in {result.seconds:.1f} s, "
          f"{result.tested} candidates tested{how}", file=sys.stderr)
    return 130 if result.interrupted else 0


__all__ = ["add_parser", "reduce_command"]
