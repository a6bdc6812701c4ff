"""End-to-end kernels shipped in tileir/examples/kernels: scan, custom reductions, atomics
through gathered pointers, loops with break and print, integer bit ops, math ops, shape
ops, and kernels with planted undefined behaviour (diagnosed with location and tile block)."""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import io
from importlib import resources

import numpy as np
import pytest

import tileir
from conftest import SHARED, require
from tileir.api import check_document
from tileir.diagnostics import ExecutionError
from tileir.interp import launch

SCHEDULES = ["sequential", "reverse", "random"]
U32 = 2.0 ** -24   # unit roundoff of f32 (round to nearest)


def kernel_text(name: str) -> str:
    """The text of kernel `name` shipped as package data."""
    return (resources.files("tileir") / "examples" / "kernels" / f"{name}.mlir").read_text()


def kernel(name: str) -> tileir.ir.Module:
    """Kernel `name` parsed under its file name (so diagnostics name `name.mlir:line:col`)."""
    return tileir.parse(kernel_text(name), f"{name}.mlir")


def line_of(name: str, needle: str) -> int:
    """The 1-based line of the only line of kernel `name` containing `needle`."""
    lines = [i + 1 for i, line in enumerate(kernel_text(name).splitlines()) if needle in line]
    assert len(lines) == 1, (needle, lines)
    return lines[0]


def ordered(x: np.ndarray) -> np.ndarray:
    """f32 values as integers whose differences count ulps (sign-magnitude to linear)."""
    bits = np.asarray(x, np.float32).view(np.int32).astype(np.int64)
    magnitude = bits & 0x7FFFFFFF
    return np.where(bits < 0, -magnitude, magnitude)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance in f32 ulps between `a` and `b` elementwise."""
    return np.abs(ordered(a) - ordered(b))


def test_every_shipped_kernel_verifies():
    names = sorted(p.name for p in (resources.files("tileir") / "examples" / "kernels").iterdir()
                   if p.name.endswith(".mlir"))
    mine = {"cumsum", "argmax", "custom_reduce", "histogram", "while_break_print", "int_bits",
            "math_ops", "shape_ops", "spin_lock", "ub_rmw_race", "ub_div_by_zero", "ub_ftoi_nan"}
    assert mine <= {n[:-5] for n in names}
    for name in sorted(mine):
        text = kernel_text(name)
        assert text.startswith("//"), name
        ops, diagnostics = check_document(text, f"{name}.mlir")
        assert ops is not None and diagnostics == [], (name, diagnostics)


# ---- scan ---------------------------------------------------------------------------------


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cumsum_matches_numpy_within_the_scan_bound(schedule):
    # Hillis-Steele: every output is a sum whose every term passes through at most
    # log2(16) = 4 roundings, so |computed - exact| <= gamma_4 * S with gamma_4 = 4u / (1 - 4u),
    # u = 2^-24 and S = sum |x_i| over the prefix.  The float64 reference (np.cumsum) is
    # itself within 15 * 2^-53 * S of the exact sum, so we allow (gamma_4 + 2^-49) * S.
    rng = np.random.default_rng(1)
    rows = 5
    x = (rng.standard_normal((rows, 16)) * np.exp2(rng.integers(-8, 8, (rows, 16)))).astype(np.float32)
    out = np.full_like(x, np.nan)
    launch(kernel("cumsum"), None, rows, [x, out, rows], schedule=schedule, seed=3)
    exact = np.cumsum(x.astype(np.float64), axis=1)
    bound = (4 * U32 / (1 - 4 * U32) + 2.0 ** -49) * np.cumsum(np.abs(x.astype(np.float64)), axis=1)
    assert (np.abs(out - exact) <= bound).all()
    assert (out != exact.astype(np.float32)).any()   # the data does exercise rounding


def test_cumsum_of_small_integers_is_exact():
    x = np.arange(-40, 40, dtype=np.float32).reshape(5, 16)[:, ::-1].copy()
    out = np.zeros_like(x)
    launch(kernel("cumsum"), None, 5, [x, out, 5])
    assert out.tolist() == np.cumsum(x, axis=1).tolist()


# ---- custom reductions --------------------------------------------------------------------


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_argmax_with_ties_picks_the_first_index(schedule):
    rng = np.random.default_rng(2)
    n = 128
    x = rng.standard_normal(n).astype(np.float32)
    x[40] = x[55] = 9.0          # tie in chunk 1: index 40 wins
    x[96:128] = -1.0             # all equal in chunk 3: index 96 wins
    x[70] = np.float32(np.inf)   # an infinity beats everything in chunk 2
    out = np.full(n // 32, -1, np.int32)
    launch(kernel("argmax"), None, n // 32, [x, out, n], schedule=schedule, seed=5)
    expected = x.reshape(-1, 32).argmax(axis=1) + np.arange(0, n, 32)
    assert out.tolist() == expected.tolist()
    assert out.tolist()[1:] == [40, 70, 96]


def test_argmax_of_all_minus_infinity_gives_the_first_index():
    # Every element equals the identity's value: the tie rule still picks the first index.
    x = np.full(32, -np.inf, np.float32)
    out = np.full(1, -1, np.int32)
    launch(kernel("argmax"), None, 1, [x, out, 32])
    assert out.tolist() == [0]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_custom_reduce_max_abs_and_wrapping_product(schedule):
    # Exact: max and |x| are exact; the i32 product wraps modulo 2^32 in any order.
    rng = np.random.default_rng(3)
    rows = 8
    x = rng.standard_normal((rows, 8)).astype(np.float32)
    x[2, 5] = -7.5               # the largest magnitude is negative
    x[3] = -0.0
    y = rng.integers(-70000, 70000, (rows, 8)).astype(np.int32)
    maxabs = np.full(rows, np.nan, np.float32)
    prod = np.zeros(rows, np.int32)
    launch(kernel("custom_reduce"), None, rows // 4, [x, y, maxabs, prod, rows],
           schedule=schedule, seed=1)
    assert maxabs.tobytes() == np.abs(x).max(axis=1).tobytes()
    assert maxabs[2] == 7.5
    expected = [int(np.prod(row.astype(object))) % 2**32 for row in y]
    assert prod.view(np.uint32).tolist() == expected


# ---- atomics through gathered pointers ----------------------------------------------------


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_histogram_with_atomic_add_on_gathered_bins(schedule):
    rng = np.random.default_rng(4)
    n, nbins = 75, 6             # a masked tail: 75 = 4 * 16 + 11
    data = rng.integers(0, nbins, n).astype(np.int32)
    data[:16] = 3                # one atomic op whose 16 lanes all hit one bin
    bins = np.zeros(nbins, np.int32)
    launch(kernel("histogram"), None, -(-n // 16), [data, bins, n], schedule=schedule, seed=9)
    assert bins.tolist() == np.bincount(data, minlength=nbins).tolist()


def test_histogram_value_past_the_bins_faults_at_the_atomic():
    data = np.zeros(32, np.int32)
    data[20] = 1000              # block 1 lane 4 addresses far past the 4 bins
    with pytest.raises(ExecutionError) as info:
        launch(kernel("histogram"), None, 2, [data, np.zeros(4, np.int32), 32])
    text = str(info.value)
    assert f"histogram.mlir:{line_of('histogram', '= atomic_rmw_tko')}:" in text
    assert "atomic_rmw_tko" in text and "tile block (1, 0, 0)" in text
    assert "outside every mapped buffer" in text


WEAK_RMW = """    %old, %tl = load_ptr_tko weak %bptr, %live, %zeros : tile<16xptr<i32>>, tile<16xi1>, tile<16xi32> -> tile<16xi32>, token
    %new = addi %old, %ones : tile<16xi32>
    %ts = store_ptr_tko weak %bptr, %new, %live token = %tl : tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> token"""


def test_histogram_with_weak_read_modify_write_races_across_blocks():
    # Planted bug: the atomic add replaced by a weak gather, add and scatter.  With no atomic
    # left nothing orders the tile blocks, so block 1 reading the bins block 0 wrote is a
    # race (and within a block, lanes sharing a bin lose counts: that is no race, the
    # scatter is one op, but it is wrong).
    lines = kernel_text("histogram").splitlines()
    at = next(i for i, line in enumerate(lines) if "= atomic_rmw_tko" in line)
    text = "\n".join(lines[:at] + WEAK_RMW.splitlines() + lines[at + 1:])
    data = np.array([0, 1, 1, 2] * 8, np.int32)
    with pytest.raises(ExecutionError) as info:
        launch(tileir.parse(text, "weak_histogram.mlir"), None, 2, [data, np.zeros(3, np.int32), 32])
    message = str(info.value)
    assert f"weak_histogram.mlir:{at + 1}:" in message and "load_ptr_tko" in message
    assert "races with tile block (0, 0, 0)" in message and "tile block (1, 0, 0)" in message
    bins = np.zeros(3, np.int32)
    launch(tileir.parse(text, "weak_histogram.mlir"), None, 1, [data[:16].copy(), bins, 16])
    assert bins.tolist() == [1, 1, 1]   # 16 values, but each bin's lanes overwrite each other


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_spin_lock_guards_a_weak_read_modify_write(schedule):
    lock, total = np.zeros(1, np.int32), np.array([100], np.int32)
    launch(kernel("spin_lock"), None, 6, [lock, total], schedule=schedule, seed=6, max_ops=10_000)
    assert lock.tolist() == [0] and total.tolist() == [100 + 21]


def test_spin_lock_never_released_is_reported_in_the_waiting_block():
    # Planted bug: no release.  Block 1 (sequential) spins on a lock block 0 still holds;
    # blocks run one at a time, so max_ops stops it at the loop's continue.
    lines = kernel_text("spin_lock").splitlines()
    text = "\n".join(line for line in lines if "release" not in line or line.startswith("//"))
    with pytest.raises(ExecutionError) as info:
        launch(tileir.parse(text, "no_release.mlir"), None, 2,
               [np.zeros(1, np.int32), np.zeros(1, np.int32)], max_ops=300)
    message = str(info.value)
    assert f"no_release.mlir:{line_of('spin_lock', 'continue %tc')}:" in message
    assert "past the limit of 300 operations" in message and "tile block (1, 0, 0)" in message


# ---- loop, if, break, print ---------------------------------------------------------------


def collatz(x: int) -> int:
    """The number of Collatz steps from `x` to 1."""
    steps = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_while_break_print_collatz(schedule):
    start, blocks = 5, 6
    steps = np.full(blocks, -1, np.int32)
    stream = io.StringIO()
    launch(kernel("while_break_print"), None, blocks, [steps, start], schedule=schedule,
           seed=2, stdout=stream)
    expected = [collatz(start + b) for b in range(blocks)]
    assert steps.tolist() == expected
    lines = [f"block {b}: collatz({start + b}) = {s} steps\n" for b, s in enumerate(expected)]
    printed = stream.getvalue().splitlines(keepends=True)
    if schedule == "sequential":
        assert printed == lines
    elif schedule == "reverse":
        assert printed == lines[::-1]
    else:
        assert sorted(printed) == sorted(lines)


@pytest.mark.parametrize("schedule", ["sequential", "reverse"])
def test_while_break_print_overflow_is_reported_in_the_offending_block(schedule):
    # Block 0 starts at 1431655764 (even: halves to 715827882, 357913941, 3x+1 = 2^30, ...
    # all in range); block 1 at 1431655765 (odd: 3x = 4294967295 > 2^31 - 1) overflows the
    # no_signed_wrap muli on its first step.
    stream = io.StringIO()
    with pytest.raises(ExecutionError) as info:
        launch(kernel("while_break_print"), None, 2, [np.zeros(2, np.int32), 1431655765 - 1],
               schedule=schedule, stdout=stream)
    text = str(info.value)
    assert f"while_break_print.mlir:{line_of('while_break_print', 'muli %x, %three')}:" in text
    assert "tile block (1, 0, 0)" in text
    assert "signed overflow (no_signed_wrap) at element []: 1431655765 * 3" in text
    # Sequentially block 0 finished first and printed; in reverse nothing was printed.
    expected = f"block 0: collatz(1431655764) = {collatz(1431655764)} steps\n"
    assert stream.getvalue() == (expected if schedule == "sequential" else "")


# ---- integer bit ops ----------------------------------------------------------------------


def int_bits_reference(a: np.ndarray, b: np.ndarray, width: int) -> list[list[int]]:
    """The seven rows of int_bits for width-bit lanes `a`, `b`, computed on Python ints."""
    mask = (1 << width) - 1
    rows: list[list[int]] = [[] for _ in range(7)]
    for x, y in zip(a.tolist(), b.tolist()):
        ux, uy, s = x & mask, y & mask, y & (width - 1)
        for k, value in enumerate([ux & uy, ux | uy, ux ^ uy, (ux << s) & mask,
                                   (x >> s) & mask, ux >> s, (ux * uy) >> width]):
            rows[k].append(value)
    return rows


def test_int_bits_i32_and_i64():
    rng = np.random.default_rng(5)
    a32 = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    b32 = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    a64 = rng.integers(-2**63, 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    b64 = rng.integers(-2**63, 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    # edge lanes: extremes, shift amounts 0 and width - 1, all-ones operands
    a32[:4] = [-2**31, -1, 2**31 - 1, 1]
    b32[:4] = [31, 32, -1, 0]          # shift amounts 31, 0, 31, 0
    a64[:4] = [-2**63, -1, 2**63 - 1, 1]
    b64[:4] = [63, 64, -1, 0]
    out32 = np.zeros(112, np.int32)
    out64 = np.zeros(112, np.int64)
    launch(kernel("int_bits"), None, 1, [a32, b32, a64, b64, out32, out64])
    assert out32.view(np.uint32).reshape(7, 16).tolist() == int_bits_reference(a32, b32, 32)
    assert out64.view(np.uint64).reshape(7, 16).tolist() == int_bits_reference(a64, b64, 64)


# ---- math ---------------------------------------------------------------------------------


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_math_ops_against_numpy(schedule):
    # Reference: NumPy's float64 function of the (exact) f32 input, rounded once to f32.
    # sqrt is IEEE correctly rounded: 0 ulp.  The spec fixes no accuracy for the others; the
    # interpreter computes them in float64 and rounds once, which is within 1 f32 ulp of
    # the correctly rounded value (NumPy's float64 functions are within ~1 float64 ulp, so
    # only a near-tie can round to the other neighbour), so we allow 1 ulp.
    rng = np.random.default_rng(6)
    n = 48
    x = rng.uniform(0.01, 20.0, n).astype(np.float32)
    x[:6] = [1.0, 0.5, 2.0, np.float32(np.pi), 1e-3, 16.0]
    out = np.full(8 * n, np.nan, np.float32)
    launch(kernel("math_ops"), None, n // 16, [x, out, n], schedule=schedule, seed=4)
    got = out.reshape(8, n)
    x64 = x.astype(np.float64)
    refs = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "sin": np.sin, "cos": np.cos,
            "tanh": np.tanh, "sqrt": np.sqrt, "rsqrt": lambda v: 1.0 / np.sqrt(v)}
    for row, (name, f) in zip(got, refs.items()):
        reference = f(x64).astype(np.float32)
        tolerance = 0 if name == "sqrt" else 1
        assert ulps(row, reference).max() <= tolerance, name
    assert got[0][0] == np.float32(np.e) and got[1][2] == 4.0 and got[6][5] == 4.0


# ---- shape ops ----------------------------------------------------------------------------


def test_shape_ops_permute_cat_extract_broadcast_reshape():
    a = (np.arange(32, dtype=np.int32) * 7 - 50).reshape(4, 8)
    tr, cat, ext, bc, flat = (np.zeros(n, np.int32) for n in (32, 64, 8, 32, 32))
    launch(kernel("shape_ops"), None, 1, [a.ravel().copy(), tr, cat, ext, bc, flat])
    assert tr.reshape(8, 4).tolist() == a.T.tolist()
    assert cat.reshape(4, 16).tolist() == np.concatenate([a, 10 * a], axis=1).tolist()
    assert ext.reshape(2, 4).tolist() == a[2:4, 4:8].tolist()
    assert bc.reshape(4, 8).tolist() == np.tile(a[0], (4, 1)).tolist()
    assert flat.tolist() == a.reshape(2, 16).T.ravel().tolist()


# ---- planted undefined behaviour ----------------------------------------------------------


@pytest.mark.parametrize("schedule, block", [("sequential", 0), ("reverse", 2)])
def test_rmw_without_a_token_chain_races(schedule, block):
    counts = np.array([1, 2, 3], np.int32)
    inc = np.array([10, 20, 30], np.int32)
    with pytest.raises(ExecutionError) as info:
        launch(kernel("ub_rmw_race"), None, 3, [counts, inc], schedule=schedule)
    text = str(info.value)
    store = line_of("ub_rmw_race", "store_ptr_tko")
    load = line_of("ub_rmw_race", "load_ptr_tko weak %pc")
    assert f"ub_rmw_race.mlir:{store}:" in text and "store_ptr_tko" in text
    assert f"races with 'cuda_tile.load_ptr_tko' at ub_rmw_race.mlir:{load}:" in text
    assert f"tile block ({block}, 0, 0)" in text


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_rmw_with_the_token_chain_is_correct(schedule):
    text = kernel_text("ub_rmw_race").replace("%s token = %t0", "%s token = %t1")
    counts = np.array([1, 2, 3], np.int32)
    launch(tileir.parse(text, "fixed.mlir"), None, 3, [counts, np.array([10, 20, 30], np.int32)],
           schedule=schedule, seed=8)
    assert counts.tolist() == [11, 22, 33]
    # With checks off the racy kernel runs in program order and computes the same.
    counts = np.array([1, 2, 3], np.int32)
    launch(kernel("ub_rmw_race"), None, 3, [counts, np.array([10, 20, 30], np.int32)],
           checks=False)
    assert counts.tolist() == [11, 22, 33]


def test_division_kernel_matches_truncating_division():
    rng = np.random.default_rng(7)
    n = 48
    a = rng.integers(-2**31, 2**31, n).astype(np.int32)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    b[b == 0] = 7
    a[:4] = [-2**31, -7, 7, -2**31]
    b[:4] = [1, 2, -2, 2**31 - 1]
    q, r = np.zeros(n, np.int32), np.zeros(n, np.int32)
    launch(kernel("ub_div_by_zero"), None, n // 16, [a, b, q, r, n], schedule="random", seed=1)
    ia, ib = a.astype(np.int64), b.astype(np.int64)
    tq = np.sign(ia) * np.sign(ib) * (np.abs(ia) // np.abs(ib))
    assert q.tolist() == tq.tolist()
    assert r.tolist() == (ia - tq * ib).tolist()


@pytest.mark.parametrize("a_value, b_value, message", [
    (37, 0, "division by zero at element [5]: 37 / 0"),
    (-2**31, -1, "signed division overflow at element [5]: -2147483648 / -1"),
])
def test_division_by_zero_is_reported_in_its_block(a_value, b_value, message):
    n = 48
    a = np.arange(n, dtype=np.int32)
    b = np.ones(n, np.int32)
    a[37], b[37] = a_value, b_value          # block 2, lane 5
    with pytest.raises(ExecutionError) as info:
        launch(kernel("ub_div_by_zero"), None, 3,
               [a, b, np.zeros(n, np.int32), np.zeros(n, np.int32), n])
    text = str(info.value)
    assert f"ub_div_by_zero.mlir:{line_of('ub_div_by_zero', 'divi %x')}:" in text
    assert "'cuda_tile.divi' op" in text and message in text and "tile block (2, 0, 0)" in text


def test_ftoi_saturating_and_planted_nan():
    x = np.array([2.7, -2.7, np.nan, 1e10, -1e10, np.inf, -0.5, 2**31 - 128] + [1.0] * 8,
                 np.float32)
    out = np.zeros(16, np.int32)
    launch(kernel("ub_ftoi_nan"), None, 1, [x, out, 16, 1])
    assert out[:8].tolist() == [2, -2, 0, 2**31 - 1, -2**31, 2**31 - 1, 0, 2**31 - 128]
    y = np.ones(32, np.float32)
    y[16 + 3] = np.nan                       # block 1, lane 3
    with pytest.raises(ExecutionError) as info:
        launch(kernel("ub_ftoi_nan"), None, 2, [y, np.zeros(32, np.int32), 32, 0],
               schedule="reverse")
    text = str(info.value)
    assert f"ub_ftoi_nan.mlir:{line_of('ub_ftoi_nan', '%wu = ftoi')}:" in text
    assert "converts nan at element [3]" in text and "tile block (1, 0, 0)" in text


def test_vector_add_with_a_length_breaking_its_assumption():
    # NVIDIA's vector_add assumes div_by<16> of its length argument: 40 breaks it.
    path = require(SHARED / "reference" / "artifacts" / "vector_add_readme.v13.4.mlir")
    m = tileir.parse(path.read_text(), path.name)
    a, b, c = np.ones(48), np.ones(48), np.zeros(48)
    with pytest.raises(ExecutionError) as info:
        launch(m, None, 3, [a, 40, 1, b, 48, 1, c, 48, 1], schedule="reverse")
    text = str(info.value)
    assert "vector_add_readme.v13.4.mlir:4:" in text and "assume" in text
    assert "div_by<16>" in text and "tile block (2, 0, 0)" in text


def test_shift_past_the_width_is_reported():
    text = """cuda_tile.module @m {
  entry @k(%out: tile<ptr<i32>>, %s: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %amount = addi %s, %bx : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %v = shli %one, %amount : tile<i32>
    %p = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t = store_ptr_tko weak %p, %v : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}"""
    out = np.zeros(2, np.int32)
    launch(tileir.parse(text, "shift.mlir"), None, 2, [out, 30])
    assert out.tolist() == [2**30, -2**31]
    with pytest.raises(ExecutionError) as info:
        launch(tileir.parse(text, "shift.mlir"), None, 2, [out, 31])
    message = str(info.value)
    assert "shift.mlir:6:" in message and "tile block (1, 0, 0)" in message
    assert "shift amount not less than the bit width 32" in message
