"""Speed of tileir's exact conversions against NumPy / ml_dtypes casts (same run, same data).

The baseline casts are round-to-nearest-even only and do not follow the spec's
special-value rules; they are the cost floor of moving the same data.

    python bench/numerics_bench.py [elements]
"""

from __future__ import annotations

import sys
import time

import ml_dtypes
import numpy as np

from tileir import numerics
from tileir.enums import RoundingMode
from tileir.types import BF16, F8E4M3FN, F8E5M2, F16, F32, F64, I32, TF32


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(n: int) -> None:
    rng = np.random.default_rng(0)
    x32 = (rng.standard_normal(n) * 100).astype(np.float32)
    x64 = x32.astype(np.float64)
    i32 = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32)
    rows = [
        ("f32->f16", lambda: numerics.convert_float(x32, F32, F16),
         lambda: x32.astype(np.float16)),
        ("f32->bf16", lambda: numerics.convert_float(x32, F32, BF16),
         lambda: x32.astype(ml_dtypes.bfloat16)),
        ("f32->f8E4M3FN", lambda: numerics.convert_float(x32, F32, F8E4M3FN),
         lambda: x32.astype(ml_dtypes.float8_e4m3fn)),
        ("f32->f8E5M2 rz", lambda: numerics.convert_float(x32, F32, F8E5M2, RoundingMode.ZERO),
         lambda: x32.astype(ml_dtypes.float8_e5m2)),
        ("f32->tf32", lambda: numerics.convert_float(x32, F32, TF32),
         lambda: x32.view(np.uint32) & np.uint32(0xFFFFE000)),
        ("f64->f32", lambda: numerics.convert_float(x64, F64, F32),
         lambda: x64.astype(np.float32)),
        ("f16->f32", lambda: numerics.convert_float(x32.astype(np.float16), F16, F32),
         lambda: x32.astype(np.float16).astype(np.float32)),
        ("i32->f32 itof", lambda: numerics.int_to_float(i32, I32, F32, True),
         lambda: i32.astype(np.float32)),
        ("f32->i32 ftoi", lambda: numerics.float_to_int(x32, F32, I32, True),
         lambda: x32.astype(np.int32)),
    ]
    print(f"{n:,} elements, best of 5")
    print(f"{'conversion':<16}{'tileir ms':>12}{'baseline ms':>14}{'ratio':>8}")
    for name, ours, base in rows:
        t_ours, t_base = best_of(ours), best_of(base)
        print(f"{name:<16}{t_ours * 1e3:>12.2f}{t_base * 1e3:>14.2f}{t_ours / t_base:>8.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
