"""``cuda-tile-translate``: convert between Tile IR text and bytecode, as NVIDIA's tool does.

The text side is complete: input text is parsed and verified chunk by chunk, with
``-verify-diagnostics`` as in cuda-tile-opt, so a translation of an invalid module fails with
the reference's diagnostics.  The bytecode reader and writer arrive with the bytecode
issue; until then a translation of a valid module stops with a clear message and exit 1.
"""

from __future__ import annotations

import argparse
import sys

from .common import read_input, tool_parser
from .opt import run

NOT_YET = "bytecode reading and writing is not implemented in tileir yet"

#: The translation modes, one at a time: spellings and destination.
MODES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("-mlir-to-cudatilebc", "--mlir-to-cudatilebc"), "to_bytecode"),
    (("-cudatilebc-to-mlir", "--cudatilebc-to-mlir"), "from_bytecode"),
    (("-test-cudatile-roundtrip", "--test-cudatile-roundtrip"), "roundtrip"),
    (("--list-versions", "-list-versions"), "list_versions"),
)


def build_parser() -> argparse.ArgumentParser:
    """The tool's flags, spelled as NVIDIA's tool spells them."""
    ap = tool_parser("cuda-tile-translate", __doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    for spellings, dest in MODES:
        mode.add_argument(*spellings, dest=dest, action="store_true")
    ap.add_argument("-bytecode-version", "--bytecode-version", dest="version")
    # what cuda-tile-opt's runner reads, which this tool does not set
    ap.set_defaults(generic=False, warn_hints=False, error_hints=False)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run the tool; the exit status is 1 when any chunk failed (and, until the bytecode
    lands, whenever a translation was asked of valid text)."""
    args = build_parser().parse_args(argv)
    if args.list_versions or args.from_bytecode:
        print(f"cuda-tile-translate: {NOT_YET}", file=sys.stderr)
        return 1
    source = read_input("cuda-tile-translate", args.input)
    if source is None:
        return 1
    text, filename = source
    _, messages, failed = run(text, filename, args)
    for message in messages:
        print(message, file=sys.stderr)
    if not failed and not args.verify_diagnostics:
        print(f"{filename}: error: {NOT_YET}", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
