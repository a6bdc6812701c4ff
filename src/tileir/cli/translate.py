"""``cuda-tile-translate``: convert between Tile IR text and bytecode, as NVIDIA's tool does.

The text side is complete: input text is parsed and verified chunk by chunk, with
``-verify-diagnostics`` as in cuda-tile-opt, so a translation of an invalid module fails with
the reference's diagnostics.  The bytecode reader and writer arrive with the bytecode
issue; until then a translation of a valid module stops with a clear message and exit 1.
"""

from __future__ import annotations

import argparse
import sys

from ..diagnostics import Location, Severity, error
from .expected import check as check_expected
from .expected import parse_expectations
from .opt import split_chunks
from .opt import run_chunk

NOT_YET = "bytecode reading and writing is not implemented in tileir yet"


def build_parser() -> argparse.ArgumentParser:
    """The tool's flags, spelled as NVIDIA's tool spells them."""
    ap = argparse.ArgumentParser(prog="cuda-tile-translate",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("-o", dest="output", default="-")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("-mlir-to-cudatilebc", "--mlir-to-cudatilebc", dest="to_bytecode",
                      action="store_true")
    mode.add_argument("-cudatilebc-to-mlir", "--cudatilebc-to-mlir", dest="from_bytecode",
                      action="store_true")
    mode.add_argument("-test-cudatile-roundtrip", "--test-cudatile-roundtrip",
                      dest="roundtrip", action="store_true")
    mode.add_argument("--list-versions", "-list-versions", dest="list_versions",
                      action="store_true")
    ap.add_argument("-bytecode-version", "--bytecode-version", dest="version")
    ap.add_argument("-split-input-file", "--split-input-file", dest="split",
                    action="store_true")
    ap.add_argument("-no-implicit-module", "--no-implicit-module", dest="no_implicit",
                    action="store_true")
    ap.add_argument("-allow-unregistered-dialect", "--allow-unregistered-dialect",
                    dest="unregistered", action="store_true")
    ap.add_argument("-mlir-print-debuginfo", "--mlir-print-debuginfo", dest="debuginfo",
                    action="store_true")
    ap.add_argument("-verify-diagnostics", "--verify-diagnostics", dest="verify_diagnostics",
                    action="store_true")
    return ap


def _text_args(args: argparse.Namespace) -> argparse.Namespace:
    """The options cuda-tile-opt's chunk runner reads, from ours."""
    return argparse.Namespace(unregistered=args.unregistered, no_implicit=args.no_implicit,
                              generic=False, debuginfo=args.debuginfo, warn_hints=False,
                              error_hints=False)


def main(argv: list[str] | None = None) -> int:
    """Run the tool; the exit status is 1 when any chunk failed."""
    args = build_parser().parse_args(argv)
    if args.list_versions or args.from_bytecode:
        print(f"cuda-tile-translate: {NOT_YET}", file=sys.stderr)
        return 1
    try:
        if args.input == "-":
            text, filename = sys.stdin.read(), "<stdin>"
        else:
            with open(args.input, encoding="utf-8") as handle:
                text, filename = handle.read(), args.input
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cuda-tile-translate: cannot read '{args.input}': {exc}", file=sys.stderr)
        return 1
    failed = False
    for chunk, first_line in split_chunks(text) if args.split else [(text, 1)]:
        output, diagnostics = run_chunk(chunk, filename, _text_args(args), first_line)
        if args.verify_diagnostics:
            diagnostics = check_expected(diagnostics, parse_expectations(
                chunk, filename, first_line), filename)
        elif output is not None:
            diagnostics.append(error(NOT_YET, Location(filename, first_line, 1)))
        for diagnostic in diagnostics:
            print(diagnostic.render({filename: text}), file=sys.stderr)
            failed |= diagnostic.severity is Severity.ERROR
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
