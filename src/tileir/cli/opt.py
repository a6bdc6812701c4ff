"""``cuda-tile-opt``: parse Tile IR text, verify it and print it back, as NVIDIA's tool does.

Accepts the flags NVIDIA's test suite uses, ``-verify-diagnostics`` included, and runs
passes (`tileir.transforms`): ``--pass-pipeline='builtin.module(...)'``, or one flag per
pass (``--canonicalize``, ``--cse``, ``--loop-split='split-threshold=2'`` ...), in the
order given; the verifier runs after each pass unless ``--verify-each=false``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, NamedTuple

from ..attributes import FileLineColLoc
from ..diagnostics import (Diagnostic, Location, ParseError, Severity, TileIRError,
                           VerificationError, error)
from ..ir import Operation
from ..api import check_document, has_errors
from ..syntax.printer import Printer
from ..verify import Options
from .common import guarded, preview_features, read_input, tool_parser, write_output
from .expected import check as check_expected
from .expected import parse_expectations

SPLIT_MARKER = "// -----"

#: Flags that need features not built yet, with the feature they need.
NOT_YET: dict[str, str] = {}


class _PassFlag(argparse.Action):
    """A pass given by its own flag (``--cse``, ``--loop-split=split-threshold=2``): added,
    in command-line order, to ``args.passes`` as (name, options text)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        namespace.passes = [*(namespace.passes or []), (self.metavar, values or "")]


def build_parser() -> argparse.ArgumentParser:
    """The tool's flags, spelled as NVIDIA's tool spells them, with a flag per pass."""
    from ..transforms import load_passes
    ap = tool_parser("cuda-tile-opt", __doc__.splitlines()[0])
    ap.add_argument("-mlir-print-op-generic", "--mlir-print-op-generic", dest="generic",
                    action="store_true", help="print ops in MLIR's generic form")
    ap.add_argument("--pass-pipeline", "-pass-pipeline", dest="pass_pipeline",
                    metavar="PIPELINE", help="run a textual pass pipeline, e.g. "
                    "'builtin.module(cuda_tile.module(cuda_tile.entry(loop-split)))'")
    ap.add_argument("--verify-each", "-verify-each", dest="verify_each", default="true",
                    choices=("true", "false", "1", "0"), nargs="?", const="true",
                    help="run the verifier after each pass (default: true)")
    ap.add_argument("--check-semantics", dest="check_semantics", action="store_true",
                    help="run every kernel on the interpreter before and after each pass "
                    "(made-up inputs) and fail if a pass changes a result")
    ap.set_defaults(passes=[])
    for name, pass_def in sorted(load_passes().items()):
        ap.add_argument(f"--{name}", f"-{name}", dest=f"pass_{name}", metavar=name,
                        nargs="?", const="", action=_PassFlag,
                        help=f"{pass_def.summary or 'run the ' + name + ' pass'}"
                        + (" (options: " + ", ".join(o.name for o in pass_def.options) + ")"
                           if pass_def.options else ""))
    ap.add_argument("-O", dest="opt_level", type=int, choices=(0, 1, 2, 3), metavar="N",
                    help="run optimization level N's pipeline, as cuda-tile-optimize -O N "
                    "does (-O0 to -O3; tileir.transforms.optimize), before any "
                    "--pass-pipeline or pass flags")
    ap.add_argument("--fuse-fma-opt", "-fuse-fma-opt", dest="fuse_fma_opt",
                    action="store_true", help="with -O N: start its pipeline with fuse-fma "
                    "(cuda-tile-optimize's --fuse-fma)")
    ap.add_argument("-Wunsupported-hints", dest="warn_hints", action="store_true",
                    help="warn about optimization hints tileiras does not know")
    ap.add_argument("-Werr-hints", dest="error_hints", action="store_true",
                    help="with -Wunsupported-hints: make them errors")
    return ap


def hint_options(args: argparse.Namespace) -> Options:
    """The verifier options of ``-Wunsupported-hints`` and ``-Werr-hints`` (the latter only
    matters with the former, as in the reference)."""
    return Options(warn_hints=args.warn_hints, error_hints=args.error_hints)


def split_chunks(text: str) -> list[tuple[str, int]]:
    """``// -----`` chunks with the line each starts on (so diagnostics keep file lines)."""
    chunks, current, start = [], [], 1
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.strip() == SPLIT_MARKER:
            chunks.append(("".join(current), start))
            current, start = [], number + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


def read_ops(text: str, filename: str, args: argparse.Namespace, first_line: int = 1,
             diagnostics: list[Diagnostic] | None = None) -> list[Operation]:
    """Parse and verify one chunk: its top-level ops.  Warnings go to `diagnostics`;
    errors raise."""
    ops, found = check_document(text, filename, first_line=first_line,
                                options=hint_options(args),
                                allow_unregistered=args.unregistered)
    if ops is None:
        raise ParseError(found)
    if has_errors(found):
        raise VerificationError(found)
    if diagnostics is not None:
        diagnostics.extend(found)
    return ops


def process(text: str, filename: str, args: argparse.Namespace, first_line: int = 1,
            diagnostics: list[Diagnostic] | None = None) -> str:
    """Parse and verify one chunk and print it back (wrapped in the implicit builtin module
    unless ``-no-implicit-module``).  Warnings go to `diagnostics`; errors raise."""
    ops = read_ops(text, filename, args, first_line, diagnostics)
    level = args.opt_level
    if args.fuse_fma_opt and level is None:
        raise TileIRError("--fuse-fma-opt needs an optimization level (-O0 to -O3)")
    if (args.pass_pipeline or args.passes or level is not None) and not args.no_implicit \
            and (len(ops) != 1 or ops[0].name != "builtin.module"):
        ops = [_wrapped(ops, filename)]
    if args.pass_pipeline or args.passes or level is not None:
        _run_passes(ops[0] if len(ops) == 1 else None, args)
    if args.no_implicit:
        if len(ops) != 1:
            raise TileIRError(f"source must contain a single top-level operation, "
                              f"found: {len(ops)}")
    elif len(ops) != 1 or ops[0].name != "builtin.module":
        ops = [_wrapped(ops, filename)]
    return Printer(generic=args.generic, debuginfo=args.debuginfo).print_top(ops)


def _wrapped(ops: list[Operation], filename: str) -> Operation:
    """`ops` inside the implicit ``builtin.module`` MLIR's tools wrap top-level ops in."""
    wrapper = Operation("builtin.module", regions=1, location=FileLineColLoc(filename, 0, 0))
    block = wrapper.regions[0].add_block()
    for op in ops:
        block.append(op)
    return wrapper


def _run_passes(top: Operation | None, args: argparse.Namespace) -> None:
    """Run the pipeline or the pass flags on the chunk's top-level op."""
    from ..transforms import Checks, PassFailure, run_pipeline
    if top is None:
        raise PassFailure(error("source must contain a single top-level operation", None))
    checks = Checks(verify_each=args.verify_each in ("true", "1"))
    if args.check_semantics:
        from ..transforms.check import semantics_checks
        checks = semantics_checks(top, checks)
    level = args.opt_level
    if level is not None:
        from ..transforms.optimize import anchored_pipeline
        run_pipeline(top, anchored_pipeline(top, level, args.fuse_fma_opt), checks)
    if args.pass_pipeline:
        run_pipeline(top, args.pass_pipeline, checks)
    elif args.passes:
        run_pipeline(top, ",".join(name + ("{" + options + "}" if options else "")
                                   for name, options in args.passes), checks)


#: What a tool does with one chunk: its output, from the chunk's text (see `process`).
Processor = Callable[[str, str, argparse.Namespace, int, "list[Diagnostic]"], Any]


def run_chunk(chunk: str, filename: str, args: argparse.Namespace, first_line: int,
              processor: Processor | None = None) -> tuple[Any, list[Diagnostic]]:
    """One chunk's output (None when it failed) and its diagnostics."""
    diagnostics: list[Diagnostic] = []
    try:
        return (processor or process)(chunk, filename, args, first_line, diagnostics), \
            diagnostics
    except TileIRError as exc:
        return None, diagnostics + list(exc.diagnostics)
    except RecursionError:
        return None, [error("input nests too deeply", Location(filename, first_line, 1))]
    except Exception as exc:  # a bug in tileir: report it without a traceback
        return None, [error(f"internal error in tileir: {type(exc).__name__}: {exc}",
                            Location(filename, first_line, 1))]


class Result(NamedTuple):
    """What a run prints on stdout and stderr, and whether it failed."""

    output: Any
    messages: list[str]
    failed: bool


def run(text: str, filename: str, args: argparse.Namespace,
        processor: Processor | None = None) -> Result:
    """The tool's output for `text` and its rendered diagnostics (chunk by chunk with
    ``-split-input-file``, so one bad chunk does not hide the others).

    With ``-verify-diagnostics`` the messages are the mismatches between the diagnostics
    and the ``expected-*`` comments; the run succeeds when there are none.
    """
    chunks = split_chunks(text) if args.split else [(text, 1)]
    outputs, messages, failed = [], [], False
    for chunk, first_line in chunks:
        output, diagnostics = run_chunk(chunk, filename, args, first_line, processor)
        if args.verify_diagnostics:
            expectations = parse_expectations(chunk, filename, first_line)
            diagnostics = check_expected(diagnostics, expectations, filename)
        if output is not None:
            outputs.append(output)
        for diagnostic in diagnostics:
            messages.append(diagnostic.render({filename: text}))
            failed |= diagnostic.severity is Severity.ERROR
    if outputs and isinstance(outputs[0], bytes):
        return Result(b"".join(outputs), messages, failed)
    return Result("// -----\n".join(outputs), messages, failed)


def main(argv: list[str] | None = None) -> int:
    """Run the tool; the exit status is 1 when any chunk failed."""
    args = build_parser().parse_args(argv)
    return guarded("cuda-tile-opt", lambda: _main(args), uses_stdout=args.output == "-")


def _main(args: argparse.Namespace) -> int:
    """`main` after its arguments are read."""
    if args.pass_pipeline and args.passes:
        print("cuda-tile-opt: --pass-pipeline cannot be used with individual pass flags "
              f"(--{args.passes[0][0]})", file=sys.stderr)
        return 2
    for flag, reason in NOT_YET.items():
        if getattr(args, flag):
            print(f"cuda-tile-opt: {reason}, which tileir does not implement yet",
                  file=sys.stderr)
            return 2
    if preview_features("cuda-tile-opt", args) is None:
        return 1
    source = read_input("cuda-tile-opt", args.input)
    if source is None:
        return 1
    text, filename = source
    output, messages, failed = run(text, filename, args)
    for message in messages:
        print(message, file=sys.stderr)
    write_output(output, args.output)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
