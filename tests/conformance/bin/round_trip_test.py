"""`%round_trip_test IN TMP [FLAGS...]`: printing IN through bytecode equals printing it directly.

Writes IN as bytecode (TMP.out.tilebc), reads it back (TMP.roundtrip.mlir), prints IN with
cuda-tile-opt (TMP.ref.mlir), FLAGS going to both printers, and compares the two texts
ignoring blank lines; on a mismatch prints a unified diff and exits 1.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path


def _text_lines(path: str) -> list[str]:
    """The lines of a file that are not blank."""
    return [line for line in Path(path).read_text().splitlines(keepends=True) if line.strip()]


def main(argv: list[str]) -> int:
    """Run the three tools and compare their outputs."""
    if len(argv) < 2:
        print("usage: round_trip_test.py IN TMP [FLAGS...]", file=sys.stderr)
        return 2
    source, tmp, flags = argv[0], argv[1], argv[2:]
    bytecode, round_trip = f"{tmp}.out.tilebc", f"{tmp}.roundtrip.mlir"
    reference = f"{tmp}.ref.mlir"
    steps = [
        ["cuda-tile-translate", "-mlir-to-cudatilebc", "-no-implicit-module", source,
         "-o", bytecode],
        ["cuda-tile-translate", "-cudatilebc-to-mlir", bytecode, "-o", round_trip, *flags],
        ["cuda-tile-opt", source, "-no-implicit-module", "-o", reference, *flags],
    ]
    for command in steps:
        status = subprocess.call(command)
        if status != 0:
            print(f"round_trip_test: `{' '.join(command)}` exited with {status}", file=sys.stderr)
            return 1
    diff = list(difflib.unified_diff(_text_lines(reference), _text_lines(round_trip),
                                     reference, round_trip))
    if diff:
        sys.stdout.writelines(diff)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
