"""What NVIDIA's two text tools share: their common flags and reading their input."""

from __future__ import annotations

import argparse
import sys

#: The flags cuda-tile-opt and cuda-tile-translate both take: spellings and destination.
COMMON_FLAGS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("-split-input-file", "--split-input-file"), "split"),
    (("-no-implicit-module", "--no-implicit-module"), "no_implicit"),
    (("-allow-unregistered-dialect", "--allow-unregistered-dialect"), "unregistered"),
    (("-mlir-print-debuginfo", "--mlir-print-debuginfo"), "debuginfo"),
    (("-verify-diagnostics", "--verify-diagnostics"), "verify_diagnostics"),
)


def tool_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser with the input, ``-o`` and the common flags (each a switch)."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("-o", dest="output", default="-")
    for spellings, dest in COMMON_FLAGS:
        ap.add_argument(*spellings, dest=dest, action="store_true")
    return ap


def read_input(prog: str, path: str) -> tuple[str, str] | None:
    """The text and file name of `path` (``-``: stdin); None, after saying why, when it
    cannot be read."""
    try:
        if path == "-":
            return sys.stdin.read(), "<stdin>"
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    except (OSError, UnicodeDecodeError) as exc:
        print(f"{prog}: cannot read '{path}': {exc}", file=sys.stderr)
        return None
