"""The whole benchmark suite of issue 7 in one command: kernels, then text, then bytecode.

Run: ``python bench/run.py [--size small|full] [--repeat N] [--problems a,b]
[--engine auto] [--budget SECONDS] [--no-triton] [--no-cutile] [--cutile-checks off]
[--blas-threads N] [--workers N] [--ops N] [--skip kernels,text,bytecode]``.

Each part runs as its own process (kernels_bench.py, syntax_bench.py, bytecode_bench.py)
and prints its tables as it goes; ``--ops`` goes to the text and bytecode benchmarks, every
other option to kernels_bench.py as given (its ``--help`` lists them, with their defaults).
The exit status is the first failing part's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parts(cli: argparse.Namespace, kernels: list[str]) -> list[tuple[str, list[str]]]:
    """(name, command line) of every part to run, in order; `kernels` are the options
    for kernels_bench.py."""
    text = ["--ops", str(cli.ops)]
    table = [("kernels", "kernels_bench.py", kernels), ("text", "syntax_bench.py", text),
             ("bytecode", "bytecode_bench.py", text)]
    skip = set(filter(None, cli.skip.split(",")))
    return [(name, [sys.executable, str(HERE / script)] + options)
            for name, script, options in table if name not in skip]


def main() -> int:
    """Run every part, printing a banner before each; the first failure's status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="Other options go to kernels_bench.py (see its --help).")
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--skip", default="", help="parts to leave out: kernels,text,bytecode")
    cli, kernels = ap.parse_known_args()
    status = 0
    for name, command in parts(cli, kernels):
        print(f"\n######## {name}: {' '.join(Path(c).name for c in command[1:2])} "
              f"{' '.join(command[2:])}", flush=True)
        start = time.perf_counter()
        rc = subprocess.call(command)
        print(f"######## {name}: exit {rc}, {time.perf_counter() - start:.1f} s", flush=True)
        status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main())
