"""``cuda-tile-translate``: convert between Tile IR text and bytecode, as NVIDIA's tool does.

Modes: ``-mlir-to-cudatilebc`` (text to bytecode at ``-bytecode-version``, 13.4 by
default: see docs/bytecode.md), ``-cudatilebc-to-mlir`` (bytecode to text),
``-test-cudatile-roundtrip`` (text through bytecode and back to text) and
``--list-versions``.  Text input is parsed and
verified chunk by chunk, with ``-split-input-file`` and ``-verify-diagnostics`` as in
cuda-tile-opt, so writer errors can be matched against expectations too.
``--preview=simt`` enables the preview feature a preview-flagged file needs.
"""

from __future__ import annotations

import argparse
import sys

from ..bytecode import (default_write_version, from_bytecode, parse_version,
                        supported_versions, to_bytecode)
from ..diagnostics import BytecodeError, Diagnostic, TileIRError
from ..ir import Module, Operation
from ..syntax.printer import Printer
from .common import (guarded, preview_features, read_bytes, read_input, tool_parser,
                     write_output)
from .opt import read_ops, run

#: The translation modes, one at a time: spellings, destination and help.
MODES: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("-mlir-to-cudatilebc", "--mlir-to-cudatilebc"), "to_bytecode",
     "translate Tile IR text to bytecode"),
    (("-cudatilebc-to-mlir", "--cudatilebc-to-mlir"), "from_bytecode",
     "translate Tile IR bytecode to text"),
    (("-test-cudatile-roundtrip", "--test-cudatile-roundtrip"), "roundtrip",
     "write text as bytecode, read it back and print it"),
    (("--list-versions", "-list-versions"), "list_versions",
     "print the bytecode versions this tool reads and writes, one a line"),
)


def build_parser() -> argparse.ArgumentParser:
    """The tool's flags, spelled as NVIDIA's tool spells them."""
    ap = tool_parser("cuda-tile-translate", __doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    for spellings, dest, help in MODES:
        mode.add_argument(*spellings, dest=dest, action="store_true", help=help)
    versions = ", ".join(map(str, supported_versions()))
    ap.add_argument("-bytecode-version", "--bytecode-version", dest="version",
                    metavar="VERSION", help=f"the bytecode version to write ({versions}; "
                    f"default {default_write_version()})")
    ap.add_argument("-mlir-print-op-generic", "--mlir-print-op-generic", dest="generic",
                    action="store_true", help="print ops in MLIR's generic form")
    # what cuda-tile-opt's runner reads, which this tool does not set
    ap.set_defaults(warn_hints=False, error_hints=False)
    return ap


def tile_module(ops: list[Operation], args: argparse.Namespace) -> Module:
    """The one ``cuda_tile.module`` a translation works on (looked for inside the implicit
    builtin module unless ``-no-implicit-module``)."""
    if not args.no_implicit and len(ops) == 1 and ops[0].name == "builtin.module":
        ops = ops[0].regions[0].block.operations
    modules = [op for op in ops if isinstance(op, Module)]
    if len(ops) != 1 or len(modules) != 1:
        if len(ops) == 1:
            raise TileIRError(f"expected a CUDA Tile IR module, but got a '{ops[0].name}'")
        raise TileIRError("expected a single CUDA Tile IR module in the MLIR module")
    return modules[0]


def _print(module: Module, args: argparse.Namespace) -> str:
    return Printer(generic=args.generic, debuginfo=args.debuginfo).print_top([module])


def to_bytes(text: str, filename: str, args: argparse.Namespace, first_line: int,
             diagnostics: list[Diagnostic]) -> bytes:
    """One chunk of text as bytecode."""
    module = tile_module(read_ops(text, filename, args, first_line, diagnostics), args)
    return to_bytecode(module, args.version)


def round_trip(text: str, filename: str, args: argparse.Namespace, first_line: int,
               diagnostics: list[Diagnostic]) -> str:
    """One chunk of text written as bytecode, read back and printed."""
    return _print(from_bytecode(to_bytes(text, filename, args, first_line, diagnostics)), args)


def _list_versions() -> int:
    for version in supported_versions():
        print(version)
    return 0


def _from_bytecode(args: argparse.Namespace, preview: tuple[str, ...]) -> int:
    """``-cudatilebc-to-mlir``: read (with the ``--preview`` features), verify, print."""
    data = read_bytes(args.input)
    try:
        module = from_bytecode(data, preview=preview)
    except TileIRError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return 1
    write_output(_print(module, args), args.output)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the tool; the exit status is 1 when any chunk failed."""
    args = build_parser().parse_args(argv)
    return guarded("cuda-tile-translate", lambda: _main(args), uses_stdout=args.output == "-")


def _main(args: argparse.Namespace) -> int:
    """`main` after its arguments are read."""
    if args.list_versions:
        return _list_versions()
    if args.version is not None:
        try:
            parse_version(args.version)
        except BytecodeError as exc:
            print(f"cuda-tile-translate: for the --bytecode-version option: {exc.message}",
                  file=sys.stderr)
            return 1
    preview = preview_features("cuda-tile-translate", args)
    if preview is None:
        return 1
    if args.from_bytecode:
        return _from_bytecode(args, preview)
    source = read_input("cuda-tile-translate", args.input)
    if source is None:
        return 1
    text, filename = source
    processor = to_bytes if args.to_bytecode else round_trip if args.roundtrip else None
    output, messages, failed = run(text, filename, args, processor)
    for message in messages:
        print(message, file=sys.stderr)
    if not failed and not args.verify_diagnostics:
        write_output(output, args.output)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
