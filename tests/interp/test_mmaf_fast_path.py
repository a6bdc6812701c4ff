"""mmaf's certified fast path (a float64 BLAS sum with a rigorous error bound, the exact
path only where the bound cannot decide) gives the exact path's bits: on random data, on
sums landing on and within a float64 ulp of rounding midpoints, on heavy cancellation, on
overflow, subnormal results and non-finite inputs; expected bits come from the exact path
(forced) or are worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import function_module, run_op_text
from tileir.interp.semantics import floating_point as fp
from tileir.types import BF16, F16, F32, F64, F8E4M3FN, F8E5M2, F8E8M0FNU, F4E2M1FN, TF32

WORD = {F32: np.uint32, F16: np.uint16}
DTYPE = {F32: np.float32, F16: np.float16}
BATCHES = [(), (3,), (2, 2)]
CERTIFIED = fp._matmul_certified


def as_input(values: np.ndarray, t) -> np.ndarray:
    """`values` rounded to input type `t` (f32, f16, or bf16 by clearing f32's low 16
    bits), as exact float64."""
    if t == BF16:
        words = values.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
        return words.view(np.float32).astype(np.float64)
    return values.astype(DTYPE[t]).astype(np.float64)


class Counted:
    """Wraps `_matmul_certified`, recording how many calls returned a result (not None)."""

    def __init__(self, monkeypatch) -> None:
        """Install the counting wrapper for the test's duration."""
        self.original = CERTIFIED
        self.answered = 0
        monkeypatch.setattr(fp, "_matmul_certified", self)

    def __call__(self, *args):
        """Run the real fast path and count a result."""
        result = self.original(*args)
        self.answered += result is not None
        return result


def both_paths(monkeypatch, a, b, c, out) -> tuple[np.ndarray, np.ndarray, int]:
    """The fast path's result, the exact path's (forced), and how often the fast path
    answered."""
    counted = Counted(monkeypatch)
    fast = fp._matmul_round(a, b, c, out, narrow=True)
    answered = counted.answered
    monkeypatch.setattr(fp, "_matmul_certified", lambda *args: None)
    exact = fp._matmul_round(a, b, c, out, narrow=True)
    return fast, exact, answered


def same_bits(x: np.ndarray, y: np.ndarray, out) -> bool:
    """Whether two results have the same shape, dtype and bits."""
    return x.shape == y.shape and x.dtype == y.dtype and \
        np.array_equal(x.view(WORD[out]), y.view(WORD[out]))


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("k", [1, 7, 32, 64])
@pytest.mark.parametrize("tin,out", [(F32, F32), (F16, F32), (F16, F16), (BF16, F32)])
def test_random_products_match_the_exact_path(tin, out, k, batch, monkeypatch) -> None:
    """Random operands of each input type: the fast path ran and gave the exact bits."""
    rng = np.random.default_rng(k * 10 + len(batch))
    a = as_input(rng.standard_normal(batch + (5, k)), tin)
    b = as_input(rng.standard_normal(batch + (k, 6)), tin)
    c = rng.standard_normal(batch + (5, 6)).astype(DTYPE[out]).astype(np.float64)
    fast, exact, answered = both_paths(monkeypatch, a, b, c, out)
    assert answered == 1, "the fast path did not run"
    assert same_bits(fast, exact, out)


def midpoint_cases(out) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """One 1 x 2 by 2 x 1 product per row of the batch: acc + a0 b0 + a1 b1 landing on,
    and one float64 ulp (or less) off, the rounding midpoints next to 1; with the bits
    nearest-even gives (worked by hand)."""
    p = 24 if out == F32 else 11                    # significand bits of the result
    half = 2.0 ** -p                                # half an ulp of 1
    one = 0x3F800000 if out == F32 else 0x3C00
    cases = [  # (acc, a0 * b0, a1 * b1, expected bits)
        (1.0, half, 0.0, one),                      # on the midpoint: even (1)
        (1.0, 3 * half, 0.0, one + 2),              # on 1 + 3 ulp/2: even (1 + 2 ulp)
        (1.0, half, 2.0 ** -60, one + 1),           # just above (below float64's ulp)
        (1.0, half, -2.0 ** -60, one),              # just below
        (1.0, half, 2.0 ** -52, one + 1),           # one float64 ulp above
        (1.0, half, -2.0 ** -53, one),              # one float64 ulp (below 1 + ...) below
        (1.0, half, 2.0 ** -54, one + 1),           # a quarter float64 ulp: S rounds to the
        (1.0, half, -2.0 ** -54, one),              # midpoint, the sum is not exact
        (1.0 + 2 * half, -half, 2.0 ** -70, one + 1),   # 1 + ulp/2 + tiny from above
        (1.0 + 2 * half, -half, -2.0 ** -70, one),
    ]
    acc = np.array([[[x]] for x, _, _, _ in cases])
    a = np.array([[[p0, p1]] for _, p0, p1, _ in cases])
    b = np.ones((len(cases), 2, 1))
    return a, b, acc, [e for _, _, _, e in cases]


@pytest.mark.parametrize("out", [F32, F16])
def test_midpoints_and_near_midpoints(out, monkeypatch) -> None:
    """Sums on, and a float64 ulp or less off, rounding midpoints: hand-worked bits."""
    a, b, acc, expected = midpoint_cases(out)
    assert np.array_equal(a, a.astype(np.float32).astype(np.float64))   # narrow values
    fast, exact, answered = both_paths(monkeypatch, a, b, acc, out)
    assert answered == 1
    assert fast.reshape(-1).view(WORD[out]).tolist() == expected
    assert same_bits(fast, exact, out)


@pytest.mark.parametrize("chunk", [None, 64, 100])
def test_midpoints_among_random_elements(chunk, monkeypatch) -> None:
    """Elements that take the exact path one by one, scattered in a random batch: each
    gets its own bits back, the others keep theirs; also when the batch is worked in
    chunks (of 1 or 2 batch entries: 64 or 100 elements)."""
    if chunk:
        monkeypatch.setattr(fp, "_CHUNK", chunk)
    rng = np.random.default_rng(11)
    a = as_input(rng.standard_normal((4, 8, 2)), F32)
    b = as_input(rng.standard_normal((4, 2, 8)), F32)
    c = as_input(rng.standard_normal((4, 8, 8)), F32)
    ma, mb, macc, expected = midpoint_cases(F32)
    places = [(0, 0), (0, 7), (1, 3), (2, 2), (3, 5), (3, 6), (1, 1), (2, 4), (0, 3), (3, 0)]
    for n, (bi, i) in enumerate(places):
        # row i of batch entry bi gets case n's operands; column i of b too, so the
        # diagonal element (i, i) is case n (the rest of the row and column stay random)
        a[bi, i] = ma[n, 0]
        b[bi, :, i] = mb[n, :, 0]
        c[bi, i, i] = macc[n, 0, 0]
    fast, exact, answered = both_paths(monkeypatch, a, b, c, F32)
    assert answered == 1
    assert same_bits(fast, exact, F32)
    got = [int(fast[bi, i, i].view(np.uint32)) for bi, i in places]
    assert got == expected


@pytest.mark.parametrize("out", [F32, F16])
def test_cancellation_zero_and_tiny_results(out, monkeypatch) -> None:
    """Rows that cancel to exactly 0 (+0, also from -0 acc), to tiny values of either sign
    (subnormal results, and values rounding to +-0), with the hand-worked bits."""
    tiny = 2.0 ** -140 if out == F32 else 2.0 ** -20    # a subnormal of the result type
    below = 2.0 ** -152 if out == F32 else 2.0 ** -26   # under half the least subnormal
    r = np.sqrt
    cases = [  # (acc, [(a, b) pairs], expected bits)
        (1.0, [(-1.0, 1.0), (0.0, 0.0)], 0),            # exactly 0: +0
        (-0.0, [(0.0, 5.0), (0.0, -3.0)], 0),           # -0 + zero products: +0
        (-0.0, [(0.0, 0.0), (0.0, 0.0)], 0),
        (1.0, [(-1.0, 1.0), (r(tiny), r(tiny))], None),      # tiny positive: subnormal
        (1.0, [(-1.0, 1.0), (-r(tiny), r(tiny))], None),     # tiny negative
        (1.0, [(-1.0, 1.0), (r(below), r(below))], 0),        # rounds to +0
        (1.0, [(-1.0, 1.0), (-r(below), r(below))], 0x80000000 if out == F32 else 0x8000),
    ]
    sub = (round(tiny / (2.0 ** -149 if out == F32 else 2.0 ** -24)))
    sign = 0x80000000 if out == F32 else 0x8000
    expected = [e if e is not None else (sub if n == 3 else sign | sub)
                for n, (_, _, e) in enumerate(cases)]
    acc = np.array([[[x]] for x, _, _ in cases])
    a = np.array([[[p[0] for p in pairs]] for _, pairs, _ in cases])
    b = np.array([[[p[1]] for p in pairs] for _, pairs, _ in cases])
    assert np.array_equal(a, a.astype(np.float32).astype(np.float64))
    fast, exact, answered = both_paths(monkeypatch, a, b, acc, out)
    assert answered == 1
    assert fast.reshape(-1).view(WORD[out]).tolist() == expected
    assert same_bits(fast, exact, out)


@pytest.mark.parametrize("out", [F32, F16])
def test_overflow_to_infinity(out, monkeypatch) -> None:
    """Sums at and past the largest finite value: the bound declines (overflow risk) and
    the exact path rounds; hand-worked: the midpoint above the largest value rounds to
    infinity (the largest value is odd), just below it to the largest value."""
    big = float(np.finfo(DTYPE[out]).max)
    step = 2.0 ** (104 if out == F32 else 5)         # ulp of the largest value
    top, infinity, minus = (0x7F7FFFFF, 0x7F800000, 0xFF800000) if out == F32 else \
        (0x7BFF, 0x7C00, 0xFC00)
    acc = np.array([[[big]], [[big]], [[big]], [[-big]]])
    products = [step / 2, step / 2 - step / 2 ** 12, step, -step]
    a = np.array([[[p / 2 ** 20]] for p in products])
    b = np.full((4, 1, 1), 2.0 ** 20)
    fast, exact, answered = both_paths(monkeypatch, a, b, acc, out)
    assert answered == 0
    assert fast.reshape(-1).view(WORD[out]).tolist() == [infinity, top, infinity, minus]
    assert same_bits(fast, exact, out)


@pytest.mark.parametrize("chunk", [None, 12])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("where", ["lhs", "rhs", "acc"])
def test_non_finite_inputs_take_the_exact_path(bad, where, chunk, monkeypatch) -> None:
    """A non-finite input anywhere (in the second chunk, when chunked) sends the whole
    product to the exact path (whose k loop then runs on every element)."""
    if chunk:
        monkeypatch.setattr(fp, "_CHUNK", chunk)
    rng = np.random.default_rng(5)
    x = {"lhs": as_input(rng.standard_normal((2, 4, 8)), F32),
         "rhs": as_input(rng.standard_normal((2, 8, 3)), F32),
         "acc": as_input(rng.standard_normal((2, 4, 3)), F32)}
    x[where][1, 2, 1] = bad
    fast, exact, answered = both_paths(monkeypatch, x["lhs"], x["rhs"], x["acc"], F32)
    assert answered == 0
    assert same_bits(fast, exact, F32)
    assert np.isnan(fast).any() or np.isinf(fast).any()


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("shortcut", [True, False])
def test_elements_alone_match_the_whole_product(shortcut, batch, monkeypatch) -> None:
    """Every element through the one-by-one exact path (all certificates refused), with
    the exact-sum shortcut on and off, gives the whole exact product's bits: f16 products
    whose sums often land exactly on midpoints, wide-range rows (several slices), zero
    rows and columns, -0 accumulators."""
    rng = np.random.default_rng(9)
    a = as_input(rng.standard_normal(batch + (6, 16)) *
                 2.0 ** rng.integers(-12, 12, batch + (6, 16)), F16)
    b = as_input(rng.standard_normal(batch + (16, 5)), F16)
    a[..., 2, :] = 0.0
    b[..., :, 4] = 0.0
    c = np.zeros(batch + (6, 5))
    c[..., 1, :] = -0.0
    c[..., 3, :] = as_input(rng.standard_normal(batch + (5,)), F32)
    exact = fp._matmul_exact(a, b, c, F32)
    monkeypatch.setattr(fp, "_certified_scale", lambda k: 1.0)   # ends never agree
    if not shortcut:
        monkeypatch.setattr(fp, "_exact_sums", lambda rows, *rest: np.zeros(len(rows), bool))
    fast = fp._matmul_round(a, b, c, F32, narrow=True)
    assert same_bits(fast, exact, F32)


@pytest.mark.parametrize("chunk", [None, 40])
def test_broadcast_operands(chunk, monkeypatch) -> None:
    """A batch-free lhs against a batched rhs and acc (NumPy matmul broadcasting), also
    in chunks of the leading axis; and a batch-free acc."""
    if chunk:
        monkeypatch.setattr(fp, "_CHUNK", chunk)
    rng = np.random.default_rng(2)
    a = as_input(rng.standard_normal((4, 7)), F32)
    b = as_input(rng.standard_normal((2, 3, 7, 5)), F32)
    c = as_input(rng.standard_normal((2, 3, 4, 5)), F32)
    a[1, 0] = 2.0 ** 30                               # a wide row: many close calls
    fast, exact, answered = both_paths(monkeypatch, a, b, c, F32)
    assert answered == 1 and same_bits(fast, exact, F32)
    fast, exact, answered = both_paths(monkeypatch, b[..., :4, :].swapaxes(-1, -2),
                                       a[:, :4] * 2.0 ** -20, c[0, 0].T, F32)
    assert answered == 1 and same_bits(fast, exact, F32)


def test_narrow_types() -> None:
    """Which operand types allow the certified path: not f64; f32, tf32, bf16, f16 and the
    f8/f4 types, scaled by e8m0 or e4m3 scales."""
    assert not fp._narrow(F64)
    assert all(fp._narrow(t) for t in (F32, TF32, BF16, F16, F8E4M3FN, F8E5M2, F4E2M1FN))
    assert fp._narrow(F8E4M3FN, F8E8M0FNU) and fp._narrow(F4E2M1FN, F8E4M3FN)
    assert fp._narrow(F8E5M2, F8E8M0FNU)
    assert not fp._narrow(F32, F32)                  # 48 bits a side: products not exact
    assert not fp._narrow(BF16, F8E8M0FNU)           # 2**-260: too wide a range


@pytest.mark.parametrize("k", [1, 2, 7, 64, 1000, 1 << 14])
@pytest.mark.parametrize("low,high,bits", [(-149, 127, 24), (-143, 143, 3)])
def test_the_exact_path_slices_the_widest_narrow_rows(low, high, bits, k) -> None:
    """The element-by-element exact path relies on narrow operands always taking the sliced
    branch (whole or in part): rows spanning f32's whole range (and f8E5M2 times e8m0
    scales'), beside rows at the very bottom, do, for K up to 2**14."""
    a = np.full((2, k), 2.0 ** low)
    a[0, 0] = (2 - 2.0 ** (1 - bits)) * 2.0 ** high
    if k > 1:
        a[0, -1] = (1 + 2.0 ** (1 - bits)) * 2.0 ** (low + bits - 1)
    assert fp._matmul_sliced(a, a.T.copy(), np.zeros((2, 2))) is not None


@pytest.mark.parametrize("chunk", [None, 40])
@pytest.mark.parametrize("tin,dtype", [("f32", np.float32), ("f16", np.float16),
                                        ("f64", np.float64)])
def test_the_op_takes_the_fast_path_for_narrow_inputs(tin, dtype, chunk,
                                                      monkeypatch) -> None:
    """mmaf on a batch (read into float64 by chunks of 1 or 2 batch entries when chunked)
    gives the exact path's bits; f16 sums land exactly on f32 midpoints often."""
    if chunk:
        monkeypatch.setattr(fp, "_CHUNK", chunk)
    rng = np.random.default_rng(4)
    lhs = rng.standard_normal((5, 8, 16)).astype(dtype)
    rhs = rng.standard_normal((5, 16, 4)).astype(dtype)
    acc_t = "f64" if tin == "f64" else "f32"
    acc = rng.standard_normal((5, 8, 4)).astype(np.float64 if tin == "f64" else np.float32)
    acc[::2] = 0.0
    ta, tb, tc = (f"tile<{s}>" for s in (f"8x16x{tin}", f"16x4x{tin}", f"8x4x{acc_t}"))
    text = function_module(f"%a: {ta}, %b: {tb}, %c: {tc}",
                           f"%r = mmaf %a, %b, %c : {ta}, {tb}, {tc}")
    counted = Counted(monkeypatch)
    fast = run_op_text(text, lhs, rhs, acc)
    assert counted.answered == (0 if tin == "f64" else 1)
    monkeypatch.setattr(fp, "_matmul_certified", lambda *args: None)
    exact = run_op_text(text, lhs, rhs, acc)
    word = np.uint64 if tin == "f64" else np.uint32
    assert np.array_equal(fast.view(word), exact.view(word))


def test_float32_arrays_are_summed_in_float64(monkeypatch) -> None:
    """Operands passed in float32 arrays (values of f32) still give the exact bits: the
    certified sum is taken in float64 whatever the arrays' dtype."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 6, 32)).astype(np.float32)
    b = rng.standard_normal((3, 32, 5)).astype(np.float32)
    c = rng.standard_normal((3, 6, 5)).astype(np.float32)
    fast = fp._matmul_round(a, b, c, F32, narrow=True)
    exact = fp._matmul_exact(*(x.astype(np.float64) for x in (a, b, c)), F32)
    assert same_bits(fast, exact, F32)


@pytest.mark.parametrize("tin", [F32, F16])
@pytest.mark.parametrize("chunk", [None, 64])
def test_a_shared_rhs_is_one_matrix_product(tin, chunk, monkeypatch) -> None:
    """A rhs the batched engine broadcast along the block axis (stride 0, as a uniform
    tile is) is read once and multiplied as one matrix product: the exact bits, with the
    fast path seeing a 2-D rhs; also with sums landing on f32 midpoints (f16 inputs)."""
    if chunk:
        monkeypatch.setattr(fp, "_CHUNK", chunk)
    rng = np.random.default_rng(8)
    a = as_input(rng.standard_normal((6, 8, 16)), tin)
    b = np.broadcast_to(as_input(rng.standard_normal((16, 8)), tin), (6, 16, 8))
    c = as_input(rng.standard_normal((6, 8, 8)), F32)
    c[0] = 0.0
    a[0, :, :] = 2.0 ** -3                             # exact, short sums: midpoints likely
    seen = []
    original = fp._certified_block
    monkeypatch.setattr(fp, "_certified_block",
                        lambda lhs, rhs, *rest: seen.append(fp._shared(rhs).ndim)
                        or original(lhs, rhs, *rest))
    fast, exact, answered = both_paths(monkeypatch, a, b, c, F32)
    assert answered == 1 and seen and set(seen) == {2}
    assert same_bits(fast, exact, F32)


def test_lowest_bits() -> None:
    x = np.array([1.0, 3.0, 0.5, 0.0, -6.0, 5 * 2.0 ** -30, 2.0 ** 40 + 1, 1.5, -2.0 ** -24])
    assert fp._lowest_bits(x).tolist() == [0, 0, -1, fp._NO_BITS, 1, -30, 0, -1, -24]
    words = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    finite = words[np.isfinite(words)].astype(np.float64)     # every finite f16 value
    assert fp._lowest_bits(finite, F16).tolist() == fp._lowest_bits(finite).tolist()


def test_exact_midpoint_sums_settle_from_row_and_column_bits(monkeypatch) -> None:
    """f16 products with short sums land exactly on f32 midpoints often; the lowest bits
    of rows and columns show those sums exact, so no element is gathered, and the bits
    are the exact path's."""
    rng = np.random.default_rng(12)
    a = as_input(np.round(rng.standard_normal((4, 16, 8)) * 64) / 64, F16)
    b = as_input(np.round(rng.standard_normal((8, 16)) * 64) / 64, F16)
    a[:, 0, :] = 0.0                                   # row 0: every product zero
    c = np.zeros((4, 16, 16))
    c[:, 0, 0] = 0.5 + 2.0 ** -25                      # so element (0, 0): an f32 midpoint
    monkeypatch.setattr(fp, "_GATHER_BELOW", 0.0)      # (few elements: would gather)
    sums = np.einsum("bik,kj->bij", a, b) + c          # exact: few bits each
    assert np.count_nonzero((sums.view(np.uint64) & np.uint64((1 << 29) - 1))
                            == 1 << 28) >= 4           # the planted f32 midpoints
    settled, gathered = [], []
    for name, log in (("_settle", settled), ("_gather", gathered)):
        original = getattr(fp, name)
        monkeypatch.setattr(fp, name, lambda *args, log=log, original=original:
                            log.append(args[5].size if log is settled else args[-1].size)
                            or original(*args))
    fast, exact, answered = both_paths(monkeypatch, a, b, c, F32)
    assert answered == 1 and same_bits(fast, exact, F32)
    assert sum(settled) >= 4 and not gathered


def test_work_arrays_last_a_launch_and_no_longer() -> None:
    """The certified path's work arrays are reused from call to call on a thread, and a
    launch drops them when it ends (the example matmul is right either way)."""
    from tileir.cli.examples import KERNELS, kernel_text
    from tileir.interp import launch
    example = next(k for k in KERNELS if k.file == "matmul_f32.mlir")
    grid, args, check = example.setup(np.random.default_rng(1))
    fp._Scratch(None).array("probe", (2, 2))
    assert "probe" in fp._WORK.arrays                 # kept for the next call
    launch(kernel_text(example.file), None, grid, args, engine="batched", workers=1)
    assert check()[0]
    assert not hasattr(fp._WORK, "arrays")            # released when the launch ended
