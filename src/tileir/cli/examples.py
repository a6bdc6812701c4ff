"""The shipped example kernels `tileir example` runs: each with its inputs, its grid and the
NumPy computation its output is checked against."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Callable

import numpy as np

from ..api import parse
from ..interp import launch


Check = Callable[[], tuple[bool, str]]


@dataclass(frozen=True)
class KernelExample:
    """A kernel file of ``tileir/examples/kernels`` and how to run and check it."""

    file: str
    what: str
    #: Build (grid, args, check) from a random generator; check() -> (ok, detail).
    setup: Callable[[np.random.Generator], tuple[tuple[int, ...], list, Check]]


def _vector_add(rng: np.random.Generator) -> tuple[tuple[int, ...], list, Check]:
    """1000 f32 values: the last of 16 tiles is partial."""
    n = 1000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)

    def check() -> tuple[bool, str]:
        """f32 addition is exact to the bit: c must equal NumPy's a + b."""
        return c.tobytes() == (a + b).tobytes(), "bit-identical to NumPy's a + b"
    return (-(-n // 64),), [a, b, c, n], check


def _matmul_f32(rng: np.random.Generator) -> tuple[tuple[int, ...], list, Check]:
    """A 40x24 by 24x56 product of small integers: every partial sum is exact in f32."""
    m, k, n = 40, 24, 56
    a = rng.integers(-8, 8, (m, k)).astype(np.float32)
    b = rng.integers(-8, 8, (k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)

    def check() -> tuple[bool, str]:
        """With integer inputs this small, any summation order gives the exact product."""
        return np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64)), \
            "equal to the exact integer product"
    return (-(-m // 16), -(-n // 16)), [a, m, k, k, b, k, n, n, c, m, n, n], check


KERNELS: tuple[KernelExample, ...] = (
    KernelExample("vector_add.mlir", "c = a + b, 1000 f32 values in 64-element tiles",
                  _vector_add),
    KernelExample("matmul_f32.mlir", "C = A @ B, 40x24 by 24x56 f32 in 16x16 tiles",
                  _matmul_f32),
)


def kernel_text(file: str) -> str:
    """The text of a shipped example kernel."""
    return resources.files("tileir").joinpath(f"examples/kernels/{file}").read_text()


def run_examples(seed: int = 0) -> list[tuple[str, bool]]:
    """Run every shipped kernel example; one report line and its verdict per kernel."""
    rng = np.random.default_rng(seed)
    lines = []
    for example in KERNELS:
        module = parse(kernel_text(example.file), example.file)
        grid, args, check = example.setup(rng)
        run = launch(module, None, grid, args)
        ok, detail = check()
        blocks = int(np.prod(grid))
        verdict = "ok" if ok else "MISMATCH"
        lines.append((f"{example.file}: {example.what}, {blocks} tile blocks ({run.engine} "
                      f"engine): {verdict} ({detail})", ok))
    return lines
