"""Bytecode throughput: read (with and without verification) and write a module of at least
10,000 ops as Tile IR bytecode 13.4 (ops per second).

Run: ``python bench/bytecode_bench.py [--ops N] [--version 13.4]``.  The module is the one
`syntax_bench.py` parses (a realistic kernel body repeated until it holds N ops).  Before
timing, reading the written bytes and writing them again must give the same bytes.  The
baseline is parsing the same module's text without verification, measured in the same run:
the ratio says what the binary form costs (or saves) against the text.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from syntax_bench import best_of, module_text, print_table  # noqa: E402

from tileir import parse  # noqa: E402
from tileir.bytecode import from_bytecode, to_bytecode  # noqa: E402


def check_round_trip(module, version: str) -> bytes:
    """The module's bytecode, after checking that reading and writing it back (with the
    read file's layout and without) reproduces it byte for byte."""
    data = to_bytecode(module, version, keep_layout=False)
    again = from_bytecode(data)
    assert to_bytecode(again, version) == data, "read + write (keeping the layout) differs"
    assert to_bytecode(again, version, keep_layout=False) == data, "read + write differs"
    assert again.format() == module.format().replace("@bench", "@kernels"), \
        "the read module prints differently"
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--version", default="13.4")
    args = ap.parse_args()
    text, count = module_text(args.ops)
    module = parse(text)  # verified: the benchmark module is valid
    data = check_round_trip(module, args.version)
    read = from_bytecode(data, verify=False)
    rows = [
        ("read", best_of(lambda: from_bytecode(data, verify=False), args.repeat)),
        ("read + verify", best_of(lambda: from_bytecode(data), args.repeat)),
        ("write", best_of(lambda: to_bytecode(module, args.version, keep_layout=False),
                          args.repeat)),
        ("write, file layout", best_of(lambda: to_bytecode(read, args.version), args.repeat)),
        ("baseline: parse text", best_of(lambda: parse(text, verify=False), args.repeat)),
    ]
    print(f"module: {count} ops, {len(data):,} bytes of bytecode {args.version}, "
          f"{len(text):,} characters of text")
    print_table(rows, count)


if __name__ == "__main__":
    main()
