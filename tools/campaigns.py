"""What the random-kernel campaigns (tools/compiled_campaign.py, tools/race_campaign.py)
share: one launch's outcome, the first difference between the reference's and the
compiled engine's, the gist of a hand-on reason, and the command line."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

import tileir


@dataclass(frozen=True)
class Outcome:
    """One launch: "ran" (with the engine and its reason), "error" (the first line) or
    "crash" (an exception other than TileIRError), and the arrays' bytes afterwards."""
    kind: str
    engine: str = ""
    message: str = ""
    arrays: tuple[bytes, ...] = ()


def launch_outcome(module: Any, grid: Any, args: list[Any], arrays: Sequence[np.ndarray],
                   engine: str, **options: Any) -> Outcome:
    """Launch `module` on `engine` with `args` (fresh copies: `arrays` are the buffers
    they write, read back afterwards)."""
    try:
        run = tileir.launch(module, None, grid, args, engine=engine, **options)
    except tileir.TileIRError as error:
        text = str(error)
        return Outcome("error", message=text.splitlines()[0] if text else repr(error),
                       arrays=tuple(a.tobytes() for a in arrays))
    except Exception as error:  # noqa: BLE001 - any other exception is a finding
        return Outcome("crash", message=f"{type(error).__name__}: {error}")
    return Outcome("ran", run.engine, run.reason or "", tuple(a.tobytes() for a in arrays))


def first_difference(ref: Outcome, got: Outcome, dtypes: Sequence[np.dtype]) -> str | None:
    """None where the compiled launch `got` matches the reference `ref` (the same kind,
    error line and bytes), else how not; `dtypes`: the arrays' element types."""
    for side, outcome in (("blocks", ref), ("compiled", got)):
        if outcome.kind == "crash":
            return f"{side} raised {outcome.message}"
    if ref.kind != got.kind:
        describe = {"ran": lambda o: f"ran ({o.engine})", "error": lambda o: o.message}
        return f"blocks: {describe[ref.kind](ref)}; compiled: {describe[got.kind](got)}"
    if ref.kind == "error" and ref.message != got.message:
        return f"errors differ: {ref.message!r} vs {got.message!r}"
    for k, (expected, actual) in enumerate(zip(ref.arrays, got.arrays)):
        if expected != actual:      # (compared as bits: -0.0 and NaN payloads count)
            a, c = (np.frombuffer(b, dtypes[k]) for b in (expected, actual))
            bits = f"u{a.itemsize}"
            first = int(np.flatnonzero(a.view(bits) != c.view(bits))[0])
            return (f"array {k} element {first}: blocks {a[first]!r}, compiled {c[first]!r} "
                    f"(compiled run: {got.engine or got.kind})")
    return None


def short_reason(reason: str | None) -> str:
    """The gist of a hand-on reason (the part before its second colon, 90 characters)."""
    return ":".join((reason or "").split(":")[:2])[:90]


def command_line(doc: str, argv: list[str] | None) -> argparse.Namespace:
    """The campaigns' options: --kernels, --seed, --verbose, --show SEED."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--show", type=int, help="print the kernel of this seed and stop")
    return parser.parse_args(argv)


def run_main(name: str, main: Callable[[], int]) -> None:
    """Exit with `main`'s status; Ctrl-C ends with one line and status 130."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        sys.exit(130)
