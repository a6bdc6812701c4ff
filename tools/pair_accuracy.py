"""How far the C library's float64 atan2 / pow (what the compiled engine rounds for f32
`atan2`, `fpowi` and `fpowf`) lie from NumPy's (the reference's), over many random pairs.

Usage: python tools/pair_accuracy.py [--function atan2|fpowi|fpowf] [--pairs N] [--seed S]

The compiled engine takes its f32 rounding of the C library's value only where every f64
within `lower.EXP_BAND` bit patterns of it rounds alike (`_Lowering._rounded_f64`), so it
gives the reference's result as long as the two float64 values lie within half of that
(the decision's margin).  Two operands cannot be walked exhaustively; this draws N pairs
(default 2**26): random f32 bit patterns (every magnitude and sign), values near 1 and of
moderate size, and for fpowi exponents small (|n| <= 64), moderate and anywhere in i32;
it prints how many lie at each distance (in f64 bit patterns) and the largest, and checks
NaN and infinite results agree.  Exit status 1 when the largest exceeds EXP_BAND // 2.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

import numpy as np

CHUNK = 1 << 22


def draw_f32(rng: np.random.Generator, n: int) -> np.ndarray:
    """f32 values: a third random bit patterns (finite), a third near 1, a third normal
    values scaled by powers of two up to 2**+-20."""
    k = rng.integers(0, 3, n)
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    bits = np.where((bits & 0x7F800000) == 0x7F800000, bits & 0xBFFFFFFF, bits)
    out = bits.view(np.float32).copy()
    near = (1 + rng.standard_normal(n) * 2.0 ** -rng.integers(4, 24, n)).astype(np.float32)
    scaled = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 21, n))).astype(np.float32)
    return np.where(k == 0, out, np.where(k == 1, near, scaled)).astype(np.float32)


def draw_exponents(rng: np.random.Generator, n: int) -> np.ndarray:
    """i32 exponents: small (|n| <= 64), up to 2**16, and anywhere."""
    k = rng.integers(0, 3, n)
    small = rng.integers(-64, 65, n)
    moderate = rng.integers(-(1 << 16), 1 << 16, n)
    anywhere = rng.integers(-(1 << 31), 1 << 31, n)
    return np.where(k == 0, small, np.where(k == 1, moderate, anywhere)).astype(np.int32)


def reference(function: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's float64 value, as `interp/semantics/floating_point.py` computes it."""
    x, y = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        return np.arctan2(x, y) if function == "atan2" else np.power(x, y)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--function", default="atan2", choices=["atan2", "fpowi", "fpowf"])
    ap.add_argument("--pairs", type=int, default=1 << 26)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from tileir.interp.compiled.lower import EXP_BAND
    from tileir.interp.compiled.probes import binary_f64_probe
    probe = binary_f64_probe(args.function)
    rng = np.random.default_rng(args.seed)
    counts: collections.Counter[int] = collections.Counter()
    mismatched = tested = 0
    start = time.time()
    while tested < args.pairs:
        n = min(CHUNK, args.pairs - tested)
        a = draw_f32(rng, n)
        b = draw_exponents(rng, n) if args.function == "fpowi" else draw_f32(rng, n)
        got, want = probe(a, b), reference(args.function, a, b)
        finite = np.isfinite(got) & np.isfinite(want)
        mismatched += int(np.count_nonzero(~finite & ~(
            (np.isnan(got) & np.isnan(want)) | (got == want))))
        g, w = (np.abs(v[finite]).view(np.int64) for v in (got, want))
        same_sign = np.signbit(got[finite]) == np.signbit(want[finite])
        distance = np.where(same_sign, np.abs(g - w), g + w)
        counts.update(dict(zip(*np.unique(np.minimum(distance, 1 << 20), return_counts=True))))
        tested += n
    worst = max(counts) if counts else 0
    print(f"{args.function}: {tested} random pairs, {time.time() - start:.1f} s")
    print(" f64 bit patterns from NumPy's   pairs")
    for d in sorted(counts):
        print(f" {int(d):>28}   {counts[d]}")
    print(f"largest {worst} (margin {EXP_BAND // 2}); NaN or infinity disagreeing: {mismatched}")
    return 0 if worst <= EXP_BAND // 2 and mismatched == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
