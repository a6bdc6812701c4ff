"""The shipped example kernels: those `tileir example` runs, each with its inputs, its grid
and the NumPy computation its output is checked against, and a one-line description of
every other kernel file shipped beside them (``tileir example --list``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
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


def _transpose(rng: np.random.Generator) -> tuple[tuple[int, ...], list, Check]:
    """A 40x24 f32 matrix: its 3x2 tiles are partial along both dimensions."""
    m, n = 40, 24
    a = rng.standard_normal((m, n)).astype(np.float32)
    b = np.zeros((n, m), np.float32)

    def check() -> tuple[bool, str]:
        """A transpose moves values without arithmetic: b must hold a.T's bytes."""
        return b.tobytes() == np.ascontiguousarray(a.T).tobytes(), \
            "bit-identical to NumPy's a.T"
    return (-(-m // 16), -(-n // 16)), [a, m, n, n, b, n, m, m], check


KERNELS: tuple[KernelExample, ...] = (
    KernelExample("vector_add.mlir", "c = a + b, 1000 f32 values in 64-element tiles",
                  _vector_add),
    KernelExample("matmul_f32.mlir", "C = A @ B, 40x24 by 24x56 f32 in 16x16 tiles",
                  _matmul_f32),
    KernelExample("transpose.mlir", "B = A^T, 40x24 f32 in 16x16 tiles, view types written "
                  "as type aliases", _transpose),
)


#: What each shipped kernel file outside `KERNELS` computes, in one line (``--list``).
OTHER_KERNELS: dict[str, str] = {
    "argmax.mlir": "index of the largest of each 32 f32 values: a `reduce` over (value, "
                   "index) pairs",
    "cumsum.mlir": "inclusive prefix sum of each row of a rows x 16 f32 matrix (`scan`)",
    "custom_reduce.mlir": "max |x| (f32) and wrapping product (i32) of each row, in one "
                          "two-operand `reduce`",
    "flash_attention.mlir": "softmax(scale * Q @ K^T) @ V for one head, f16 inputs, online "
                            "softmax in a `for` loop",
    "histogram.mlir": "bins[v] += 1 for each value: gathered through a tile of pointers, "
                      "one `atomic_rmw_tko add`",
    "int_bits.mlir": "bitwise, shift and high-multiply ops on i32 and i64 lanes",
    "layernorm.mlir": "row-wise (X - mean) * rsqrt(var + eps) * W + B, f32",
    "math_ops.mlir": "elementwise f32 exp, exp2, log, sin, cos, tanh, sqrt and rsqrt",
    "matmul_f16.mlir": "tiled C = A @ B, f16 inputs, f32 accumulation, f16 result",
    "shape_ops.mlir": "permute, cat, extract, broadcast and reshape of a 4x8 i32 tile",
    "softmax.mlir": "row-wise softmax of an f32 matrix with rows of at most 64",
    "spin_lock.mlir": "a plain counter every tile block adds to under a spin lock "
                      "(`atomic_cas_tko` / `atomic_rmw_tko`)",
    "ub_div_by_zero.mlir": "i32 division and remainder; planted undefined behaviour: "
                           "division by zero",
    "ub_ftoi_nan.mlir": "f32 to i32 conversion; planted undefined behaviour: NaN or "
                        "out-of-range input without saturation",
    "ub_rmw_race.mlir": "counts[b] += inc[b]; planted undefined behaviour: a store not "
                        "ordered after its load (a race)",
    "while_break_print.mlir": "Collatz step counts with `loop`, `break` and `if`; each tile "
                              "block prints its result",
}


def kernels_dir() -> Path:
    """The directory holding the shipped example kernels (``tileir example --path``)."""
    return Path(str(resources.files("tileir").joinpath("examples/kernels")))


def header_summary(text: str) -> str:
    """The first sentence of a kernel file's leading ``//`` comment, less the ``name:``
    prefix it starts with, and what it says is planted (``PLANTED BUG``): the description
    of a file no table describes."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].strip())
    comment = " ".join(lines)
    summary = re.sub(r"^[\w ]+?:\s+", "", comment, count=1)
    end = re.search(r"(?<!\.)\.(?=\s|$)", summary)
    summary = summary[:end.start()] if end else summary
    planted = re.search(r"\bPLANTED ([A-Z]+(?: [A-Z]+)*)\b", comment)
    return f"{summary}; planted {planted.group(1).lower()}" if planted else summary


def kernel_list() -> list[tuple[str, str]]:
    """Every shipped kernel file with what it computes: those `tileir example` runs first,
    in its order, then the others by name."""
    run = [(example.file, example.what) for example in KERNELS]
    checked = {file for file, _ in run}
    others = sorted(p.name for p in kernels_dir().glob("*.mlir") if p.name not in checked)
    return run + [(name, OTHER_KERNELS.get(name) or header_summary(kernel_text(name)))
                  for name in others]


def list_lines() -> list[str]:
    """``tileir example --list``: the kernels `tileir example` checks, then the others,
    each as its file name and one line of description."""
    kernels = kernel_list()
    width = max(len(name) for name, _ in kernels)
    checked = len(KERNELS)
    lines = ["Run by `tileir example` and checked against NumPy:"]
    lines += [f"  {name:<{width}}  {what}" for name, what in kernels[:checked]]
    lines.append("More kernels, in `tileir example --path` (run them with tileir.launch):")
    lines += [f"  {name:<{width}}  {what}" for name, what in kernels[checked:]]
    return lines


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
