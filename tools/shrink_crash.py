"""Shrink a kernel tileiras crashes on (or refuses) to a small one it fails on the same way.

    python tools/shrink_crash.py KERNEL.mlir [--arch sm_100] [--version 13.5] [-o OUT]

Greedy, line by line: drop an op (and every later op that can no longer verify without
it, by trying again), keep the drop when the smaller module still verifies and tileiras
still dies of the same signal (or refuses it with the same first line); repeat until no
line can go.  The first step toward issue
19's `tileir reduce`; here it turns a campaign finding into the minimal kernel that
docs/nvidia-tools.md records.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import tileir

from oracle_campaign import tool_path


def _signal(text: str, arch: str, version: str, scratch: Path) -> int | str | None:
    """How tileiras fails on `text`: the signal it dies of, or the first line of its
    refusal (None: it compiled `text`, or `text` does not verify)."""
    try:
        module = tileir.parse(text)
        module.verify()
        data = module.to_bytecode(version=version)
    except tileir.TileIRError:
        return None
    path = scratch / "k.tileirbc"
    path.write_bytes(data)
    done = subprocess.run([tool_path("tileiras"), f"--gpu-name={arch}", "-o",
                           str(scratch / "k.cubin"), str(path)], capture_output=True,
                          timeout=120, check=False)
    code = done.returncode
    if code < 0 or code > 128:
        return -code if code < 0 else code - 128
    if code:
        return (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[0]
    return None


def shrink(text: str, arch: str, version: str) -> str:
    """The smallest kernel found that crashes like `text`."""
    try:
        tileir.parse(text).verify()
    except tileir.TileIRError as error:
        raise SystemExit(f"shrink_crash: the kernel is not valid Tile IR:\n{error}") from None
    with tempfile.TemporaryDirectory() as scratch:
        target = _signal(text, arch, version, Path(scratch))
        if target is None:
            raise SystemExit("shrink_crash: tileiras compiles the kernel")
        lines = text.splitlines()
        changed = True
        while changed:
            changed = False
            for i in range(len(lines) - 1, -1, -1):
                if i >= len(lines):
                    continue
                line = lines[i].strip()
                if not line or line.startswith(("return", "}", "cuda_tile.module", "entry")):
                    continue
                trial = lines[:i] + lines[_end_of_op(lines, i) + 1:]
                if _signal("\n".join(trial), arch, version, Path(scratch)) == target:
                    lines, changed = trial, True
        return "\n".join(lines) + "\n"


def _end_of_op(lines: list[str], first: int) -> int:
    """The last line of the op starting at line `first`: itself, or the line closing the
    regions it opens (a region's block arguments may sit on a line of their own)."""
    depth, i = 0, first
    while i < len(lines):
        text = lines[i]
        depth += text.count("{") - text.count("}")
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if depth <= 0 and not following.startswith("("):
            return i
        i += 1
    return first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernel", type=Path)
    parser.add_argument("--arch", default="sm_100")
    parser.add_argument("--version", default="13.5")
    parser.add_argument("-o", "--output", type=Path)
    args = parser.parse_args(argv)
    if tool_path("tileiras") is None:
        print("shrink_crash: NVIDIA's tileiras is not installed (pip install -e "
              "'.[oracles]')", file=sys.stderr)
        return 2
    try:
        small = shrink(args.kernel.read_text(encoding="utf-8"), args.arch, args.version)
        if args.output:
            args.output.write_text(small, encoding="utf-8")
        else:
            sys.stdout.write(small)
    except KeyboardInterrupt:
        print("shrink_crash: interrupted", file=sys.stderr)
        return 130
    except (OSError, UnicodeDecodeError) as error:
        print(f"shrink_crash: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
