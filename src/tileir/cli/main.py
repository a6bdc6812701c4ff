"""tileir: read, check, run and explain CUDA Tile IR.

Each command below has its own options: tileir COMMAND --help.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Sequence

import numpy as np

from .. import numerics
from ..diagnostics import TileIRError
from ..ir import Module
from ..syntax.printer import Printer
from ..enums import RoundingMode
from ..syntax.type_parser import parse_type
from ..types import (F64, ELEMENT_INFO, FloatType, IntegerType, TiledView, TileType, Type,
                     element_type)
from .common import checked_document, guarded
from .examples import kernels_dir, list_lines, run_examples
from .opt import hint_options
from .view import add_parser as add_view_parser
from .fuzz import add_parser as add_fuzz_parser
from .run import add_parser as add_run_parser
from .reduce import add_parser as add_reduce_parser


def describe(t: Type) -> list[str]:
    """The canonical spelling of a type and what the spec says of it."""
    lines = [str(t)]
    if isinstance(t, TileType):
        lines.append(f"  {t.num_elements} elements of {t.element_type}")
    if isinstance(t, TiledView):
        space = "x".join("?" if n is None else str(n) for n in t.index_space_shape())
        lines.append(f"  index space {space}; each index loads a {t.tile_type.format(False)}")
    element = getattr(t, "element_type", t)
    info = ELEMENT_INFO.get(element)
    if info is not None:
        lines.append(f"  {element}: {info.bit_width} bits, stored in {info.storage_bits}, "
                     f"since Tile IR {info.since}")
    return lines


def _example_lines() -> list[tuple[int, str]]:
    text = resources.files("tileir").joinpath("examples/types.mlir").read_text()
    return [(n, line) for n, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("//")]


def _run_types(items: Sequence[tuple[str, str]]) -> int:
    status = 0
    for name, text in items:
        try:
            print("\n".join(describe(parse_type(text, name))))
        except TileIRError as exc:
            for diag in exc.diagnostics:
                print(diag.render({name: text}), file=sys.stderr)
            status = 1
    return status


def _cmd_check(args: argparse.Namespace) -> int:
    """Parse (or read as bytecode) and verify each file."""
    status = 0
    options = hint_options(args)
    options.spec_warnings = True
    for path in args.files:
        read = checked_document(path, options)
        if read is None:
            status = 1
        else:
            ops = read[1]
            count = sum(1 for op in ops for _ in op.walk())
            print(f"{path}: ok ({count} ops)")
    return status


def _cmd_show(args: argparse.Namespace) -> int:
    """Print a bytecode or text file, verified, as Tile IR text."""
    read = checked_document(args.file)
    if read is None:
        return 1
    for op in read[1]:
        if isinstance(op, Module):
            if args.bare:
                op.spelling = "bare"
            text = op.format(debuginfo=args.debuginfo)
        else:
            text = Printer(debuginfo=args.debuginfo).print_top([op])
        print(text.rstrip("\n"))
    return 0


def _cmd_example(args: argparse.Namespace) -> int:
    """The spec's example types, then the shipped kernels run and checked against NumPy;
    with ``--list`` the shipped kernels described, with ``--path`` their directory."""
    if args.path:
        print(kernels_dir())
        return 0
    if args.list:
        print("\n".join(list_lines()))
        return 0
    status = _run_types([(f"types.mlir:{n}", line) for n, line in _example_lines()])
    print()
    try:
        results = run_examples()
    except TileIRError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return 1
    for line, ok in results:
        print(line)
        status |= 0 if ok else 1
    return status


def _cmd_type(args: argparse.Namespace) -> int:
    return _run_types([("<arg>", text) for text in args.types])


def _cmd_convert(args: argparse.Namespace) -> int:
    try:
        target = element_type(args.to)
        default = "nearest_even" if isinstance(target, FloatType) else "nearest_int_to_zero"
        rounding = RoundingMode.from_keyword(args.rounding or default)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    try:
        value = float(args.value)
    except ValueError:
        print(f"error: {args.value!r} is not a number", file=sys.stderr)
        return 2
    try:
        return _convert(value, target, rounding, args)
    except TileIRError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2


def _convert(value: float, target: Type, rounding: RoundingMode,
             args: argparse.Namespace) -> int:
    x = np.array([value], dtype=np.float64)
    if isinstance(target, FloatType):
        result = numerics.from_float64(x, target, rounding, args.flush_to_zero)
        words = numerics.to_words(result, target)
        exact = float(numerics.to_float64(result, target)[0])
        width = numerics.float_format(target).storage_bits
    elif isinstance(target, IntegerType):
        result = numerics.float_to_int(x, F64, target, not args.unsigned, rounding)
        words = numerics.as_unsigned(result, target)
        exact = int((numerics.as_unsigned if args.unsigned else numerics.as_signed)(
            result, target)[0])
        width = target.width
    else:  # pragma: no cover - element_type only returns ints and floats
        return 2
    digits = max(1, (width + 3) // 4)
    print(f"{value!r} -> {target}: {exact!r} (bits 0x{int(words[0]):0{digits}x})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``tileir`` command line: each command a subparser with its one-line help."""
    parser = argparse.ArgumentParser(prog="tileir", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, title="commands",
                                metavar="COMMAND", help="one of:")
    p_check = _command(sub, "check", "parse (or read) and verify Tile IR text or bytecode "
                       "files")
    p_check.add_argument("files", nargs="+", help="Tile IR text or bytecode files")
    p_check.add_argument("-Wunsupported-hints", dest="warn_hints", action="store_true",
                         help="warn about optimization hints tileiras does not know")
    p_check.add_argument("-Werr-hints", dest="error_hints", action="store_true",
                         help="with -Wunsupported-hints: make them errors")
    p_check.set_defaults(func=_cmd_check)
    p_show = _command(sub, "show", "print a Tile IR bytecode (or text) file as text")
    p_show.add_argument("file", help="a Tile IR bytecode or text file")
    p_show.add_argument("--bare", action="store_true",
                        help="print the module's items only, as tileirdisasm does")
    p_show.add_argument("--debuginfo", action="store_true", help="print locations")
    p_show.set_defaults(func=_cmd_show)
    p_example = _command(sub, "example", "describe the shipped example types, run the "
                         "example kernels")
    shown = p_example.add_mutually_exclusive_group()
    shown.add_argument("--list", action="store_true",
                       help="list the shipped example kernels (file name and what each "
                       "computes) instead of running them")
    shown.add_argument("--path", action="store_true",
                       help="print only the directory holding the shipped example kernels, "
                       "as in $(tileir example --path)/vector_add.mlir")
    p_example.set_defaults(func=_cmd_example)
    p_type = _command(sub, "type", "parse, verify and describe types")
    p_type.add_argument("types", nargs="+", help="types, e.g. 'tile<8x4xf32>'")
    p_type.set_defaults(func=_cmd_type)
    p_conv = _command(sub, "convert", "convert a number to an element type")
    p_conv.add_argument("value", help="a number (inf and nan allowed)")
    p_conv.add_argument("--to", required=True, help="element type, e.g. f8E4M3FN")
    p_conv.add_argument("--rounding", help="rounding mode keyword (default nearest_even for "
                        "float targets, nearest_int_to_zero for integer targets)")
    p_conv.add_argument("--flush-to-zero", action="store_true",
                        help="flush a subnormal result to zero (float targets)")
    p_conv.add_argument("--unsigned", action="store_true",
                        help="integer target is unsigned")
    p_conv.set_defaults(func=_cmd_convert)
    add_run_parser(sub)
    add_view_parser(sub)
    add_reduce_parser(sub)
    add_fuzz_parser(sub)
    return parser


def _command(sub: argparse._SubParsersAction, name: str, help: str
             ) -> argparse.ArgumentParser:
    """A subcommand whose one-line `help` is also its ``--help`` description."""
    return sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return guarded("tileir", lambda: args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
