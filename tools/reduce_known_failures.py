#!/usr/bin/env python3
"""Each tileiras failure docs/nvidia-tools.md records, planted in a generated kernel of 200
or more ops and reduced back by `tileir.reduce`: the closing figure of the reducer.

The kernels are read from the doc itself (the fenced block after each failure's heading),
planted in the middle of ``tileir.generate``'s kernel of ``--seed`` (as
tests/reducer/planted.py plants a core), and reduced with the predicate that failure
needs: the same signal, or tileiras's message, for ``--gpu-name``.  Prints a Markdown
table (ops before -> after, seconds, candidates tested) and, with ``--show``, each
reduced kernel.  Needs the ``oracles`` extra (NVIDIA's tileiras).

    python tools/reduce_known_failures.py [--seed 1] [--jobs 2] [--gpu-name sm_100] [--show]
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "reducer"))

from planted import planted  # noqa: E402  (the tests' planting, shared)

from tileir.reducer import predicates, reduce  # noqa: E402

DOC = REPO / "docs" / "nvidia-tools.md"
#: Each failure: a name, the start of its paragraph in the doc, and what tileiras does
#: (a signal, or a text its message contains).
FAILURES: list[tuple[str, str, int | str]] = [
    ("widening ftof", "**A widening `ftof` to bf16", signal.SIGILL),
    ("multimem store", "**`multimem_store_view_tko` of a computed", signal.SIGSEGV),
    ("for shifting carried values", "**A `for` that shifts", signal.SIGSEGV),
    ("i1 yielded by an if", "**An i1 tile yielded by an `if`", "failed to compile"),
    ("reshape of a scan", "**A `reshape` of a `scan`", "failed to compile"),
]


def kernel_after(heading: str, doc: str) -> str:
    """The first fenced block after `heading` in `doc`."""
    at = doc.index(heading)
    start = doc.index("```\n", at) + 4
    return doc[start:doc.index("```", start)]


def predicate(outcome: int | str, gpu_name: str) -> predicates.Predicate:
    """The reducer's test for a failure: tileiras dies of signal `outcome`, or refuses the
    kernel with a message containing it."""
    if isinstance(outcome, str):
        return predicates.tileiras_error(outcome, gpu_name)
    return predicates.tileiras_crash(outcome, gpu_name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--gpu-name", default="sm_100")
    parser.add_argument("--show", action="store_true", help="print each reduced kernel")
    options = parser.parse_args(argv)
    if predicates.find_tool("tileiras") is None:
        print("reduce_known_failures: NVIDIA's tileiras is not installed "
              "(pip install -e '.[oracles]')", file=sys.stderr)
        return 2
    doc = DOC.read_text()
    rows, shown = [], []
    for name, heading, outcome in FAILURES:
        module = planted(kernel_after(heading, doc), seed=options.seed)
        test = predicate(outcome, options.gpu_name)
        what = f"'{outcome}'" if isinstance(outcome, str) else predicates.signal_name(outcome)
        result = reduce(module, test, jobs=options.jobs)
        rows.append(f"| {name} | {what} | {result.ops_before} → {result.ops_after} | "
                    f"{result.seconds:.1f} | {result.tested} | "
                    f"{'yes' if result.confirmed else 'no'} |")
        shown.append(f"### {name}\n\n```\n{result.module.format()}```\n")
    print(f"tileiras, {options.gpu_name}; generated kernel of seed {options.seed}; "
          f"{options.jobs} jobs\n")
    print("| failure | tileiras | ops before → after | seconds | candidates | confirmed |")
    print("|---------|----------|--------------------|---------|------------|-----------|")
    print("\n".join(rows))
    if options.show:
        print("\n" + "\n".join(shown))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("reduce_known_failures: interrupted", file=sys.stderr)
        sys.exit(130)
