"""Inputs for every shipped kernel (src/tileir/examples/kernels/*.mlir), as the semantics
check takes them: a `Launch` list per kernel file (`SHIPPED`), small enough that running
each twice per pass stays fast.

The values are those the interpreter tests use (tests/interp/test_kernels_misc.py,
test_kernels_dense.py, tileir.cli.examples), cut down: each launch runs without undefined
behaviour.  The kernels with planted bugs get inputs on which they run cleanly where any
exist: ``ub_div_by_zero`` non-zero divisors (and no -2^31 / -1), ``ub_ftoi_nan`` both its
saturating path (NaN, infinities, huge values) and its plain path on in-range values,
``bug_scale2d`` a square matrix (its swapped tile index then stays inside the matrix).
``ub_rmw_race`` races on every input (its store is not ordered after its load within
each tile block), so its launches can only be counted as unchecked: `KernelCase.undefined`
says so, and the tests hold it to that.

A support module for tests/transforms/test_passes_by_execution.py (not a test file).
"""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import tileir
from tileir.transforms.check import Launch
from transform_helpers import KERNELS


@dataclass(frozen=True)
class KernelCase:
    """A kernel (a shipped file, or `text` written here) and its launches; `undefined`
    says why none of them can run cleanly (None: every launch runs without undefined
    behaviour)."""

    file: str
    launches: tuple[Launch, ...]
    undefined: str | None = None
    text: str | None = None

    @property
    def name(self) -> str:
        """The file's name without ``.mlir`` (the test ids)."""
        return self.file.removesuffix(".mlir")

    def module(self) -> tileir.ir.Module:
        """The kernel, freshly parsed under its file name (a pass rewrites it in place)."""
        text = self.text if self.text is not None else (KERNELS / self.file).read_text()
        return tileir.parse(text, self.file)


def fixed(*args: Any) -> Callable[[], list[Any]]:
    """A `make_args` giving a fresh deep copy of `args` on every call (both runs of a
    launch start from the same bytes)."""
    return lambda: copy.deepcopy(list(args))


def launch(grid: int | tuple[int, ...], *args: Any, entry: str | None = None) -> Launch:
    """A launch of the module's only entry (or `entry`) over `grid` with `args`."""
    grid = (grid,) if isinstance(grid, int) else tuple(grid)
    return Launch(entry, grid, fixed(*args))


def ceil_div(a: int, b: int) -> int:
    """ceil(a / b) for positive integers."""
    return -(-a // b)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _argmax() -> tuple[Launch, ...]:
    """Two chunks of 32: a tie (the first index wins) and an infinity."""
    x = _rng(2).standard_normal(64).astype(np.float32)
    x[10] = x[20] = 9.0
    x[40] = np.float32(np.inf)
    return (launch(2, x, np.full(2, -1, np.int32), 64),)


def _bug_scale2d() -> tuple[Launch, ...]:
    """32 x 32 (square: the swapped tile index [%j, %i] still lands inside)."""
    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    return (launch((2, 2), x, np.zeros((32, 32), np.float32), 32, 32),)


def _cumsum() -> tuple[Launch, ...]:
    """3 rows of values of mixed magnitudes (the scan's roundings show)."""
    rng = _rng(1)
    x = (rng.standard_normal((3, 16)) * np.exp2(rng.integers(-8, 8, (3, 16)))).astype(np.float32)
    return (launch(3, x, np.full_like(x, np.nan), 3),)


def _custom_reduce() -> tuple[Launch, ...]:
    """8 rows: a negative largest magnitude, a row of -0.0, wrapping i32 products."""
    rng = _rng(3)
    x = rng.standard_normal((8, 8)).astype(np.float32)
    x[2, 5], x[3] = -7.5, -0.0
    y = rng.integers(-70000, 70000, (8, 8)).astype(np.int32)
    return (launch(2, x, y, np.full(8, np.nan, np.float32), np.zeros(8, np.int32), 8),)


def _flash_attention() -> tuple[Launch, ...]:
    """Sq = 20, Sk = 37: partial query and key blocks (the last key block masked)."""
    rng = _rng(9)
    sq, sk = 20, 37
    q = rng.standard_normal((sq, 16)).astype(np.float16)
    k = rng.standard_normal((sk, 16)).astype(np.float16)
    v = rng.standard_normal((sk, 16)).astype(np.float16)
    o = np.full((sq, 16), np.nan, np.float32)
    return (launch(ceil_div(sq, 16), q, sq, 16, k, sk, 16, v, sk, 16, o, sq, 16, 0.25),)


def _histogram() -> tuple[Launch, ...]:
    """75 values in 6 bins (a masked tail); 16 lanes of one atomic all hit bin 3."""
    data = _rng(4).integers(0, 6, 75).astype(np.int32)
    data[:16] = 3
    return (launch(ceil_div(75, 16), data, np.zeros(6, np.int32), 75),)


def _int_bits() -> tuple[Launch, ...]:
    """Random lanes and the edges: extremes, shift amounts 0 and width - 1."""
    rng = _rng(5)
    a32 = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    b32 = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    a64 = rng.integers(-2**63, 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    b64 = rng.integers(-2**63, 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    a32[:4], b32[:4] = [-2**31, -1, 2**31 - 1, 1], [31, 32, -1, 0]
    a64[:4], b64[:4] = [-2**63, -1, 2**63 - 1, 1], [63, 64, -1, 0]
    return (launch(1, a32, b32, a64, b64, np.zeros(112, np.int32), np.zeros(112, np.int64)),)


def _layernorm() -> tuple[Launch, ...]:
    """3 rows of 50 (padding lanes masked out of the variance), and one row [1, 3]."""
    rng = _rng(8)
    m, n = 3, 50
    x = (rng.standard_normal((m, n)) * 3 + 1).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    small = np.array([[1.0, 3.0]], np.float32)
    return (launch(m, x, m, n, n, y, m, n, n, w, b, n, 1e-5),
            launch(1, small, 1, 2, 2, np.full_like(small, np.nan), 1, 2, 2,
                   np.array([2.0, 0.5], np.float32), np.array([10.0, -1.0], np.float32), 2,
                   0.0))


def _math_ops() -> tuple[Launch, ...]:
    """32 positive values (log, sqrt and rsqrt defined), a few exact cases first."""
    x = _rng(6).uniform(0.01, 20.0, 32).astype(np.float32)
    x[:6] = [1.0, 0.5, 2.0, np.float32(np.pi), 1e-3, 16.0]
    return (launch(2, x, np.full(8 * 32, np.nan, np.float32), 32),)


def _matmul_f16() -> tuple[Launch, ...]:
    """24 x 40 by 40 x 20, random f16 (partial tiles in M, N and K)."""
    rng = _rng(4)
    m, k, n = 24, 40, 20
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    return (launch((ceil_div(m, 16), ceil_div(n, 16)), a, m, k, k, b, k, n, n, c, m, n, n),)


def _matmul_f32() -> tuple[Launch, ...]:
    """20 x 13 by 13 x 33 random f32 (partial tiles everywhere), and strided rows."""
    rng = _rng(2)
    m, k, n = 20, 13, 33
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    ws, kw, nw = 18, 11, 35
    wa = np.full((ws, 16), np.nan, np.float32)
    wb = np.full((kw, 40), np.nan, np.float32)
    wa[:, :kw] = rng.integers(-4, 5, (ws, kw))
    wb[:, :nw] = rng.integers(-4, 5, (kw, nw))
    wc = np.full((ws, 48), -7.0, np.float32)
    return (launch((ceil_div(m, 16), ceil_div(n, 16)), a, m, k, k, b, k, n, n, c, m, n, n),
            launch((ceil_div(ws, 16), ceil_div(nw, 16)), wa, ws, kw, 16, wb, kw, nw, 40,
                   wc, ws, nw, 48))


def _shape_ops() -> tuple[Launch, ...]:
    """One 4 x 8 tile of distinct values."""
    a = np.arange(32, dtype=np.int32) * 7 - 50
    return (launch(1, a, *(np.zeros(n, np.int32) for n in (32, 64, 8, 32, 32))),)


def _softmax() -> tuple[Launch, ...]:
    """3 rows of 50, and rows of one element (-3e38 and 7: exactly 1)."""
    x = (_rng(5).standard_normal((3, 50)) * 4).astype(np.float32)
    one = np.array([[-3.0e38], [7.0]], np.float32)
    return (launch(3, x, 3, 50, 50, np.full_like(x, np.nan), 3, 50, 50),
            launch(2, one, 2, 1, 1, np.full_like(one, np.nan), 2, 1, 1))


def _spin_lock() -> tuple[Launch, ...]:
    """4 tile blocks adding to a counter under the lock."""
    return (launch(4, np.zeros(1, np.int32), np.array([100], np.int32)),)


def _transpose() -> tuple[Launch, ...]:
    """40 x 24: partial tiles along both dimensions."""
    m, n = 40, 24
    a = _rng(0).standard_normal((m, n)).astype(np.float32)
    return (launch((ceil_div(m, 16), ceil_div(n, 16)), a, m, n, n,
                   np.zeros((n, m), np.float32), n, m, m),)


def _ub_div_by_zero() -> tuple[Launch, ...]:
    """Non-zero divisors, no -2^31 / -1: extremes and both signs."""
    rng = _rng(7)
    n = 48
    a = rng.integers(-2**31, 2**31, n).astype(np.int32)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    b[b == 0] = 7
    a[:4], b[:4] = [-2**31, -7, 7, -2**31], [1, 2, -2, 2**31 - 1]
    b[(a == -2**31) & (b == -1)] = 3
    return (launch(n // 16, a, b, np.zeros(n, np.int32), np.zeros(n, np.int32), n),)


def _ub_ftoi_nan() -> tuple[Launch, ...]:
    """The saturating path on NaN, infinities and out-of-range values; the plain path on
    values inside i32 after rounding toward zero."""
    special = np.array([2.7, -2.7, np.nan, 1e10, -1e10, np.inf, -0.5, 2**31 - 128] + [1.0] * 8,
                       np.float32)
    plain = np.array([2.7, -2.7, 0.0, -0.0, 1e9, -1e9, -0.5, 2**31 - 128, -2**31]
                     + [0.25 * i for i in range(23)], np.float32)
    return (launch(1, special, np.zeros(16, np.int32), 16, 1),
            launch(2, plain, np.zeros(32, np.int32), 32, 0))


def _vector_add() -> tuple[Launch, ...]:
    """200 values (the last of 4 tiles partial)."""
    rng = _rng(0)
    a = rng.standard_normal(200).astype(np.float32)
    b = rng.standard_normal(200).astype(np.float32)
    return (launch(ceil_div(200, 64), a, b, np.zeros(200, np.float32), 200),)


def _while_break_print() -> tuple[Launch, ...]:
    """Collatz from 5 .. 10, one tile block each (each prints its line)."""
    return (launch(6, np.full(6, -1, np.int32), 5),)


def _ub_rmw_race() -> tuple[Launch, ...]:
    """The test's values (every input races: see the module docstring)."""
    return (launch(3, np.array([1, 2, 3], np.int32), np.array([10, 20, 30], np.int32)),)


RACE = ("the store takes the block's first token, not its load's: a race within every "
        "tile block, whatever the input")

#: Every shipped kernel file, with its launches.
SHIPPED: dict[str, KernelCase] = {case.file: case for case in (
    KernelCase("argmax.mlir", _argmax()),
    KernelCase("bug_scale2d.mlir", _bug_scale2d()),
    KernelCase("cumsum.mlir", _cumsum()),
    KernelCase("custom_reduce.mlir", _custom_reduce()),
    KernelCase("flash_attention.mlir", _flash_attention()),
    KernelCase("histogram.mlir", _histogram()),
    KernelCase("int_bits.mlir", _int_bits()),
    KernelCase("layernorm.mlir", _layernorm()),
    KernelCase("math_ops.mlir", _math_ops()),
    KernelCase("matmul_f16.mlir", _matmul_f16()),
    KernelCase("matmul_f32.mlir", _matmul_f32()),
    KernelCase("shape_ops.mlir", _shape_ops()),
    KernelCase("softmax.mlir", _softmax()),
    KernelCase("spin_lock.mlir", _spin_lock()),
    KernelCase("transpose.mlir", _transpose()),
    KernelCase("ub_div_by_zero.mlir", _ub_div_by_zero()),
    KernelCase("ub_ftoi_nan.mlir", _ub_ftoi_nan()),
    KernelCase("ub_rmw_race.mlir", _ub_rmw_race(), undefined=RACE),
    KernelCase("vector_add.mlir", _vector_add()),
    KernelCase("while_break_print.mlir", _while_break_print()),
)}


# ---- kernels a pass should act on ---------------------------------------------------------
#
# Neither the shipped kernels nor the generated ones hold a `for` whose body branches on
# its induction variable against a loop invariant, so loop-split would never split
# anything there.  These kernels do, in each of the forms NVIDIA's pass splits (each
# predicate, the variable on either side, signed and unsigned loops, dynamic and constant
# bounds) and one it must leave alone (an unsigned test in a signed loop).  Each tile
# block reads its (lower, upper, step, k) from %params, runs the loop and stores an
# order-sensitive hash of the values the branches gave (acc = 31 acc + v, wrapping), so a
# wrong split point, a lost or repeated iteration, or swapped branches change the result.

LOOP_SPLIT = """\
cuda_tile.module @loop_split {{
  entry @loop_split(%params: tile<ptr<i32>>, %out: tile<ptr<i32>>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %base = muli %bx, %four : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %three = constant <i32: 3> : tile<i32>
    %i1 = addi %base, %one : tile<i32>
    %i2 = addi %base, %two : tile<i32>
    %i3 = addi %base, %three : tile<i32>
    %p0 = offset %params, %base : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %p1 = offset %params, %i1 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %p2 = offset %params, %i2 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %p3 = offset %params, %i3 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %dlb, %t0 = load_ptr_tko weak %p0 : tile<ptr<i32>> -> tile<i32>, token
    %dub, %t1 = load_ptr_tko weak %p1 : tile<ptr<i32>> -> tile<i32>, token
    %dst, %t2 = load_ptr_tko weak %p2 : tile<ptr<i32>> -> tile<i32>, token
    %k, %t3 = load_ptr_tko weak %p3 : tile<ptr<i32>> -> tile<i32>, token
{bounds}    %zero = constant <i32: 0> : tile<i32>
    %ten = constant <i32: 10> : tile<i32>
    %m31 = constant <i32: 31> : tile<i32>
    %r = for {unsigned}%i in (%lb to %ub, step %st) : tile<i32> iter_values(%acc = %zero) -> (tile<i32>) {{
      %c = cmpi {predicate} {lhs}, {rhs}, {signedness} : tile<i32> -> tile<i1>
      %v = if %c -> (tile<i32>) {{
        %a = muli %i, %ten : tile<i32>
        yield %a : tile<i32>
      }} else {{
        %b = addi %i, %one : tile<i32>
        yield %b : tile<i32>
      }}
      %h = muli %acc, %m31 : tile<i32>
      %acc2 = addi %h, %v : tile<i32>
      continue %acc2 : tile<i32>
    }}
    %po = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %done = store_ptr_tko weak %po, %r : tile<ptr<i32>>, tile<i32> -> token
    return
  }}
}}
"""
#: The loaded bounds plus the z block id (0 on a 1-D grid): values read at run time.
DYNAMIC_BOUNDS = """\
    %lb = addi %dlb, %bz : tile<i32>
    %ub = addi %dub, %bz : tile<i32>
    %st = addi %dst, %bz : tile<i32>
"""
CONSTANT_BOUNDS = """\
    %lb = constant <i32: -3> : tile<i32>
    %ub = constant <i32: 37> : tile<i32>
    %st = constant <i32: 4> : tile<i32>
"""
#: (lower, upper, step, k) of each tile block: split points inside, before, after and at
#: the ends of the range, steps that skip over it, empty loops, the type's extremes.
SIGNED_PARAMS = [(0, 20, 1, 7), (-5, 17, 4, -2), (0, 20, 3, 2**31 - 1), (0, 20, 1, -2**31),
                 (3, 10, 2, 100), (5, 5, 1, 5), (10, 40, 7, 11), (-20, -3, 5, -9),
                 (0, 16, 1, 16), (0, 16, 1, 0)]
UNSIGNED_PARAMS = [(0, 20, 1, 7), (0, 20, 3, 7), (2, 17, 4, 0), (0, 20, 1, -1),
                   (3, 10, 2, 100), (10, 40, 7, 11), (0, 16, 1, 16), (1, 9, 1, 2**31)]
#: name: (predicate, induction variable on the left, unsigned loop and compare, constant
#: bounds, compare's signedness differs from the loop's).
LOOP_SPLIT_FORMS = {
    "loop_split_lt": ("less_than", True, False, False, False),
    "loop_split_le_iv_right": ("less_than_or_equal", False, False, False, False),
    "loop_split_gt": ("greater_than", True, False, False, False),
    "loop_split_ge_iv_right": ("greater_than_or_equal", False, False, False, False),
    "loop_split_gt_constant_bounds": ("greater_than", True, False, True, False),
    "loop_split_lt_unsigned_iv_right": ("less_than", False, True, False, False),
    "loop_split_ge_unsigned": ("greater_than_or_equal", True, True, False, False),
    "loop_split_le_mixed_signedness": ("less_than_or_equal", True, False, False, True),
}


def _loop_split_case(name: str) -> KernelCase:
    """The loop-split kernel of form `name`, with a tile block per parameter set."""
    predicate, iv_left, unsigned, constant, mixed = LOOP_SPLIT_FORMS[name]
    text = LOOP_SPLIT.format(
        bounds=CONSTANT_BOUNDS if constant else DYNAMIC_BOUNDS,
        unsigned="unsigned " if unsigned else "", predicate=predicate,
        lhs="%i" if iv_left else "%k", rhs="%k" if iv_left else "%i",
        signedness="unsigned" if unsigned != mixed else "signed")
    sets = UNSIGNED_PARAMS if unsigned else SIGNED_PARAMS
    params = np.array(sets, np.int64).astype(np.uint32).view(np.int32).reshape(-1)
    return KernelCase(f"{name}.mlir", (launch(len(sets), params, np.zeros(len(sets), np.int32)),),
                      text=text)


#: Kernels written for a pass to act on, by name.
TARGETED: dict[str, KernelCase] = {name: _loop_split_case(name) for name in LOOP_SPLIT_FORMS}


def shipped_files() -> list[str]:
    """The kernel files shipped in the package, by name."""
    return sorted(p.name for p in KERNELS.glob("*.mlir"))


__all__ = ["KERNELS", "KernelCase", "SHIPPED", "TARGETED", "ceil_div", "fixed", "launch",
           "shipped_files"]
