"""``cuda-tile-opt``: parse Tile IR text and print it back, as NVIDIA's tool does.

Accepts the flags NVIDIA's test suite uses.  Verification (``-verify-diagnostics``) and
the passes (``--canonicalize``, ``--pass-pipeline``) arrive with later issues: until then
they are rejected with a clear message and exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from ..attributes import FileLineColLoc
from ..diagnostics import TileIRError
from ..ir import Operation
from ..syntax.parser import parse_document
from ..syntax.printer import Printer

SPLIT_MARKER = "// -----"

#: Flags that need features not built yet, with the feature they need.
NOT_YET = {"verify_diagnostics": "-verify-diagnostics needs the verifier",
           "canonicalize": "--canonicalize needs the canonicalization pass",
           "pass_pipeline": "--pass-pipeline needs the transformation passes"}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="cuda-tile-opt", description=__doc__.splitlines()[0])
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("-o", dest="output", default="-")
    ap.add_argument("-split-input-file", "--split-input-file", dest="split",
                    action="store_true")
    ap.add_argument("-no-implicit-module", "--no-implicit-module", dest="no_implicit",
                    action="store_true")
    ap.add_argument("-allow-unregistered-dialect", "--allow-unregistered-dialect",
                    dest="unregistered", action="store_true")
    ap.add_argument("-mlir-print-op-generic", "--mlir-print-op-generic", dest="generic",
                    action="store_true")
    ap.add_argument("-mlir-print-debuginfo", "--mlir-print-debuginfo", dest="debuginfo",
                    action="store_true")
    ap.add_argument("-verify-diagnostics", "--verify-diagnostics", dest="verify_diagnostics",
                    action="store_true")
    ap.add_argument("-canonicalize", "--canonicalize", dest="canonicalize",
                    action="store_true")
    ap.add_argument("--pass-pipeline", "-pass-pipeline", dest="pass_pipeline")
    ap.add_argument("-Wunsupported-hints", dest="warn_hints", action="store_true")
    ap.add_argument("-Werr-hints", dest="error_hints", action="store_true")
    return ap


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


def process(text: str, filename: str, args: argparse.Namespace, first_line: int = 1) -> str:
    """Parse one chunk and print it back (wrapped in the implicit builtin module unless
    ``-no-implicit-module``)."""
    ops = parse_document(text, filename, first_line=first_line,
                         allow_unregistered=args.unregistered)
    if args.no_implicit:
        if len(ops) != 1:
            raise TileIRError(f"source must contain a single top-level operation, "
                              f"found: {len(ops)}")
    elif len(ops) != 1 or ops[0].name != "builtin.module":
        wrapper = Operation("builtin.module", regions=1,
                            location=FileLineColLoc(filename, 0, 0))
        block = wrapper.regions[0].add_block()
        for op in ops:
            block.append(op)
        ops = [wrapper]
    return Printer(generic=args.generic, debuginfo=args.debuginfo).print_top(ops)


def run(text: str, filename: str, args: argparse.Namespace) -> tuple[str, list[str]]:
    """The tool's output for `text` and its rendered error messages (chunk by chunk with
    ``-split-input-file``, so one bad chunk does not hide the others)."""
    chunks = split_chunks(text) if args.split else [(text, 1)]
    outputs, errors = [], []
    for chunk, first_line in chunks:
        try:
            outputs.append(process(chunk, filename, args, first_line))
        except TileIRError as exc:
            errors.extend(d.render({filename: text}) for d in exc.diagnostics)
        except RecursionError:
            errors.append(f"{filename}: error: input nests too deeply")
        except Exception as exc:  # a bug in tileir: report it without a traceback
            errors.append(f"{filename}: error: internal error in tileir: "
                          f"{type(exc).__name__}: {exc}")
    return "// -----\n".join(outputs), errors


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for flag, reason in NOT_YET.items():
        if getattr(args, flag):
            print(f"cuda-tile-opt: {reason}, which tileir does not implement yet",
                  file=sys.stderr)
            return 2
    try:
        if args.input == "-":
            text, filename = sys.stdin.read(), "<stdin>"
        else:
            with open(args.input, encoding="utf-8") as handle:
                text, filename = handle.read(), args.input
    except OSError as exc:
        print(f"cuda-tile-opt: cannot read '{args.input}': {exc.strerror}", file=sys.stderr)
        return 1
    output, errors = run(text, filename, args)
    for message in errors:
        print(message, file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(output)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(output)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
