"""The whole benchmark suite of issue 7 in one command: kernels, then text, then bytecode.

Run: ``python bench/run.py [--size small|full] [--repeat N] [--problems a,b]
[--engine auto] [--budget SECONDS] [--no-triton] [--no-cutile] [--cutile-checks off]
[--blas-threads N] [--workers N] [--ops N] [--skip kernels,text,bytecode]``.

Each part runs as its own process (kernels_bench.py, syntax_bench.py, bytecode_bench.py)
and prints its tables as it goes; the kernel options go to kernels_bench.py, ``--ops`` to
the text and bytecode benchmarks.  The exit status is the first failing part's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parts(cli: argparse.Namespace) -> list[tuple[str, list[str]]]:
    """(name, command line) of every part to run, in order."""
    kernels = ["--size", cli.size, "--problems", cli.problems, "--engine", cli.engine,
               "--budget", str(cli.budget)]
    if cli.repeat is not None:
        kernels += ["--repeat", str(cli.repeat)]
    if cli.no_triton:
        kernels.append("--no-triton")
    if cli.no_cutile:
        kernels.append("--no-cutile")
    kernels += ["--cutile-checks", cli.cutile_checks]
    kernels += ["--blas-threads", str(cli.blas_threads)]
    if cli.workers is not None:
        kernels += ["--workers", str(cli.workers)]
    text = ["--ops", str(cli.ops)]
    table = [("kernels", "kernels_bench.py", kernels), ("text", "syntax_bench.py", text),
             ("bytecode", "bytecode_bench.py", text)]
    skip = set(filter(None, cli.skip.split(",")))
    return [(name, [sys.executable, str(HERE / script)] + options)
            for name, script, options in table if name not in skip]


def main() -> int:
    """Run every part, printing a banner before each; the first failure's status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("small", "full"), default="small")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--problems", default="vector_add,softmax,matmul,layernorm,attention")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--budget", type=float, default=600.0)
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--no-cutile", action="store_true", help="skip the cuTile columns")
    ap.add_argument("--cutile-checks", default="off",
                    help="checks settings of the cuTile columns: off, on, or on,off")
    ap.add_argument("--blas-threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None, help="tileir's threads")
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--skip", default="", help="parts to leave out: kernels,text,bytecode")
    cli = ap.parse_args()
    status = 0
    for name, command in parts(cli):
        print(f"\n######## {name}: {' '.join(Path(c).name for c in command[1:2])} "
              f"{' '.join(command[2:])}", flush=True)
        start = time.perf_counter()
        rc = subprocess.call(command)
        print(f"######## {name}: exit {rc}, {time.perf_counter() - start:.1f} s", flush=True)
        status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main())
