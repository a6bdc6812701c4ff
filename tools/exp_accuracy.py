"""How far the compiled engine's float64 exp lies from NumPy's, over every f32 input.

Usage: python tools/exp_accuracy.py [--every K]

The compiled `exp` (f32) rounds its own float64 exp to f32 only where every f64 within
EXP_BAND bit patterns of it rounds the same way, so its result is the reference's (NumPy's
float64 exp rounded once) as long as the two float64 values lie within EXP_BAND bit
patterns of each other.  This walks every f32 bit pattern whose value lies in [-110, 90]
(beyond, both give 0 or infinity: tests/jit check those), or every K-th with --every,
through `tileir.interp.compiled.probes.exp_f64_probe` and NumPy, and prints how many
inputs lie at each distance (in f64 bit patterns) and the largest, which must not exceed
`lower.EXP_ULPS`.  Exit status 1 when it does.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

import numpy as np

CHUNK = 1 << 24


def patterns(every: int) -> list[tuple[int, int]]:
    """(first, end) ranges of f32 bit patterns (as uint32) with values in [-110, 90]."""
    top = int(np.float32(90.0).view(np.uint32))
    bottom = int(np.float32(-110.0).view(np.uint32))
    return [(0, top + 1), (0x80000000, bottom + 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=1, help="test every K-th pattern")
    args = ap.parse_args(argv)
    from tileir.interp.compiled.lower import EXP_BAND, EXP_ULPS
    from tileir.interp.compiled.probes import exp_f64_probe
    probe = exp_f64_probe()
    counts: collections.Counter = collections.Counter()
    worst, worst_x, tested = 0, 0.0, 0
    start = time.perf_counter()
    try:
        for first, end in patterns(args.every):
            for at in range(first, end, CHUNK * args.every):
                bits = np.arange(at, min(at + CHUNK * args.every, end), args.every,
                                 dtype=np.uint64).astype(np.uint32)
                x = bits.view(np.float32)
                ours = probe(x)
                numpy = np.exp(x.astype(np.float64))
                distance = np.abs(ours.view(np.int64) - numpy.view(np.int64))
                for d, n in zip(*np.unique(distance, return_counts=True)):
                    counts[int(d)] += int(n)
                k = int(distance.argmax())
                if distance[k] > worst:
                    worst, worst_x = int(distance[k]), float(x[k])
                tested += x.size
    except KeyboardInterrupt:
        print("exp_accuracy: interrupted", file=sys.stderr)
        return 130
    print(f"{tested} f32 inputs in [-110, 90] (every {args.every}), "
          f"{time.perf_counter() - start:.0f} s")
    print(" f64 bit patterns from NumPy's exp   inputs")
    for d in sorted(counts):
        print(f" {d:>33}   {counts[d]}")
    print(f"largest: {worst} (at x = {worst_x!r}); EXP_ULPS = {EXP_ULPS}, EXP_BAND = {EXP_BAND}")
    return 0 if worst <= EXP_ULPS else 1


if __name__ == "__main__":
    sys.exit(main())
