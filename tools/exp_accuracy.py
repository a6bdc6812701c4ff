"""How far the compiled engine's float64 exp (or other unary math function) lies from
NumPy's, over every f32 input.

Usage: python tools/exp_accuracy.py [--function exp|exp2|log|...] [--every K]

The compiled `exp` (f32) rounds its own float64 exp to f32 only where every f64 within
EXP_BAND bit patterns of it rounds the same way, so its result is the reference's (NumPy's
float64 exp rounded once) as long as the two float64 values lie within EXP_BAND bit
patterns of each other.  This walks every f32 bit pattern whose value lies in [-110, 90]
(beyond, both give 0 or infinity: tests/jit check those), or every K-th with --every,
through `tileir.interp.compiled.probes.math_f64_probe` and NumPy, and prints how many
inputs lie at each distance (in f64 bit patterns) and the largest, which must not exceed
`lower.EXP_ULPS`.  Exit status 1 when it does.  With --function, another of the f32
functions the compiled engine rounds from the C library's f64 value (`lower._LIBM`),
over every finite f32 input: there the distance must stay within half of `EXP_BAND`
(the decision's margin), and NaN and infinite results must agree with NumPy's.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

import numpy as np

CHUNK = 1 << 24


def patterns(function: str) -> list[tuple[int, int]]:
    """(first, end) ranges of the f32 bit patterns (as uint32) to walk: values in
    [-110, 90] for exp, every finite value for the others."""
    if function != "exp":
        return [(0, 0x7F800000), (0x80000000, 0xFF800000)]
    top = int(np.float32(90.0).view(np.uint32))
    bottom = int(np.float32(-110.0).view(np.uint32))
    return [(0, top + 1), (0x80000000, bottom + 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=1, help="test every K-th pattern")
    ap.add_argument("--function", default="exp", help="exp (default), or one of "
                    "exp2 log log2 sin cos tan sinh cosh tanh")
    args = ap.parse_args(argv)
    from tileir.interp.compiled.lower import _LIBM, EXP_BAND, EXP_ULPS
    from tileir.interp.compiled.probes import math_f64_probe
    if args.function != "exp" and args.function not in _LIBM:
        ap.error(f"unknown function {args.function!r}")
    probe = math_f64_probe(args.function)
    reference = getattr(np, args.function)
    limit = EXP_ULPS if args.function == "exp" else EXP_BAND // 2
    counts: collections.Counter = collections.Counter()
    worst, worst_x, tested, disagree = 0, 0.0, 0, 0
    start = time.perf_counter()
    try:
        for first, end in patterns(args.function):
            for at in range(first, end, CHUNK * args.every):
                bits = np.arange(at, min(at + CHUNK * args.every, end), args.every,
                                 dtype=np.uint64).astype(np.uint32)
                x = bits.view(np.float32)
                ours = probe(x)
                with np.errstate(all="ignore"):
                    numpy = reference(x.astype(np.float64))
                special = ~np.isfinite(ours) | ~np.isfinite(numpy)
                disagree += int(np.count_nonzero(special & (
                    (np.isnan(ours) != np.isnan(numpy)) |
                    (np.isinf(ours) != np.isinf(numpy)) |
                    (np.isinf(ours) & (ours != numpy)))))
                ours, numpy, x = ours[~special], numpy[~special], x[~special]
                distance = np.abs(ours.view(np.int64) - numpy.view(np.int64))
                for d, n in zip(*np.unique(distance, return_counts=True)):
                    counts[int(d)] += int(n)
                k = int(distance.argmax()) if distance.size else 0
                if distance.size and distance[k] > worst:
                    worst, worst_x = int(distance[k]), float(x[k])
                tested += bits.size
    except KeyboardInterrupt:
        print("exp_accuracy: interrupted", file=sys.stderr)
        return 130
    where = "in [-110, 90]" if args.function == "exp" else "finite"
    print(f"{args.function}: {tested} f32 inputs {where} (every {args.every}), "
          f"{time.perf_counter() - start:.0f} s")
    print(f" f64 bit patterns from NumPy's {args.function}   inputs")
    for d in sorted(counts):
        print(f" {d:>33}   {counts[d]}")
    print(f"largest: {worst} (at x = {worst_x!r}); limit {limit} (EXP_BAND = {EXP_BAND}); "
          f"NaN or infinity disagreeing: {disagree}")
    return 0 if worst <= limit and not disagree else 1


if __name__ == "__main__":
    sys.exit(main())
