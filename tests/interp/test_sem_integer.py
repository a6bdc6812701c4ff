"""Semantics of the integer and bitwise ops, checked against the spec's definitions.

Expected values are literal numbers worked out by hand, or come from a reference model in
this file written with Python's unbounded integers straight from the spec's formulas (the
exact result, then wrapped modulo 2^N; overflow means the exact result is outside the
reading's range), never from the code under test.
"""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from tileir.diagnostics import ExecutionError

INTEGER = importlib.import_module("tileir.interp.semantics.integer")

pytestmark = pytest.mark.filterwarnings("error")

DTYPES = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


# ---- building and running one op ---------------------------------------------------------


def tile(n: int, shape: tuple[int, ...] | int = ()) -> str:
    """The Tile IR spelling of a tile of iN with `shape`."""
    dims = (shape,) if isinstance(shape, int) else shape
    return "!cuda_tile.tile<" + "".join(f"{d}x" for d in dims) + f"i{n}>"


def module(op: str, *types: str) -> str:
    """A module whose function's first op is ``cuda_tile.<op>`` on arguments %a, %b, %c."""
    args = ", ".join(f"%{name}: {t}" for name, t in zip("abc", types))
    return (f"cuda_tile.module @m {{\n  cuda_tile.testing$func @f({args}) {{\n"
            f"    %0 = cuda_tile.{op}\n  }}\n}}")


def arr(n: int, values) -> np.ndarray:
    """Python integers (any reading; nested lists keep their shape) as an iN tile: the low
    N bits, two's complement."""
    shape = np.shape(values)
    flat = [wrap(int(v), n) for v in np.ravel(np.array(values, dtype=object))]
    return np.array(flat, dtype=DTYPES[n]).reshape(shape)


def binary(run_op, op: str, n: int, a, b, suffix: str = "", checks: bool = True):
    """Run ``op %a, %b <suffix> : tile<len x iN>`` on lists `a`, `b` (length a power of 2)."""
    t = tile(n, len(a))
    return run_op(module(f"{op} %a, %b {suffix} : {t}", t, t), arr(n, a), arr(n, b),
                  checks=checks)


def fails(call, message: str) -> None:
    """`call()` raises an ExecutionError whose text contains `message` exactly."""
    with pytest.raises(ExecutionError) as caught:
        call()
    assert message in str(caught.value), str(caught.value)


# ---- reference model: Python integers ----------------------------------------------------


def wrap(v: int, n: int) -> int:
    """The N-bit pattern of integer `v`, as the value NumPy stores (signed; i1: 0 or 1)."""
    v &= (1 << n) - 1
    if n == 1:
        return v
    return v - (1 << n) if v >= 1 << (n - 1) else v


def signed(v: int, n: int) -> int:
    """The signed reading of pattern `v` (i1 true is -1, spec 8.8.1)."""
    v &= (1 << n) - 1
    return v - (1 << n) if v >> (n - 1) else v


def unsigned(v: int, n: int) -> int:
    """The unsigned reading of pattern `v`."""
    return v & ((1 << n) - 1)


def fits(v: int, n: int, is_signed: bool) -> bool:
    """Whether exact value `v` lies in the N-bit range of the reading."""
    if is_signed:
        return -(1 << (n - 1)) <= v < (1 << (n - 1))
    return 0 <= v < (1 << n)


def trunc_div(a: int, b: int) -> int:
    """a / b rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


EXACT = {
    "addi": (lambda x, y: x + y, "+"),
    "subi": (lambda x, y: x - y, "-"),
    "muli": (lambda x, y: x * y, "*"),
}

FLAG_READINGS = {"no_signed_wrap": (True,), "no_unsigned_wrap": (False,),
                 "no_wrap": (True, False)}


def edge_values(n: int) -> list[int]:
    """Boundary patterns of iN: 0, 1, -1, the extremes and their neighbours, powers of 2."""
    values = {0, 1, -1, 2, -2, 3, -3, 7, -7, (1 << (n - 1)) - 1, -(1 << (n - 1)),
              -(1 << (n - 1)) + 1, (1 << (n - 1)) - 2, 1 << (n // 2), (1 << (n // 2)) - 1,
              -(1 << (n // 2))}
    return sorted({wrap(v, n) for v in values})


def operand_pairs(n: int, count: int = 4096, seed: int = 0) -> tuple[list[int], list[int]]:
    """Every pair for i1 and i8; else every pair of edge values, then random patterns."""
    if n <= 8:
        values = [wrap(v, n) for v in range(1 << n)]
        return [x for x in values for _ in values], [y for _ in values for y in values]
    edges = edge_values(n)
    a = [x for x in edges for _ in edges]
    b = [y for _ in edges for y in edges]
    rng = random.Random(seed + n)
    while len(a) < count:
        a.append(wrap(rng.getrandbits(n), n))
        b.append(wrap(rng.getrandbits(n) >> rng.randrange(n), n))
    return a, b


def pad(a: list[int], b: list[int], fill: tuple[int, int]) -> tuple[list[int], list[int]]:
    """Extend both lists with the pair `fill` to a power-of-two length."""
    size = 1
    while size < len(a):
        size *= 2
    extra = size - len(a)
    return a + [fill[0]] * extra, b + [fill[1]] * extra


WIDTHS = [1, 8, 16, 32, 64]


# ---- addi, subi, muli ---------------------------------------------------------------------


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("op", ["addi", "subi", "muli"])
def test_wrapping_arithmetic_matches_the_exact_result_modulo_2n(run_op, tally, op, n):
    a, b = operand_pairs(n)
    exact = EXACT[op][0]
    out = binary(run_op, op, n, a, b)
    assert out.dtype == DTYPES[n] and out.shape == (len(a),)
    assert out.tolist() == [wrap(exact(x, y), n) for x, y in zip(a, b)]
    tally("integer results", len(a))


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("flag", ["no_signed_wrap", "no_unsigned_wrap", "no_wrap"])
@pytest.mark.parametrize("op", ["addi", "subi", "muli"])
def test_overflow_flags_report_exactly_the_wrapping_elements(run_op, tally, op, flag, n):
    a, b = operand_pairs(n)
    exact, symbol = EXACT[op]
    readings = FLAG_READINGS[flag]

    def bad_kind(x: int, y: int) -> str | None:
        """The first reading (signed first) in which x op y wraps under `flag`."""
        for is_signed in readings:
            read = signed if is_signed else unsigned
            if not fits(exact(read(x, n), read(y, n)), n, is_signed):
                return "signed" if is_signed else "unsigned"
        return None

    kinds = [bad_kind(x, y) for x, y in zip(a, b)]
    safe = [(x, y) for (x, y), k in zip(zip(a, b), kinds) if k is None]
    sa, sb = pad([x for x, _ in safe], [y for _, y in safe], safe[0])
    out = binary(run_op, op, n, sa, sb, f"overflow<{flag}>")
    assert out.tolist() == [wrap(exact(x, y), n) for x, y in zip(sa, sb)]
    # The whole set fails at its first wrapping element, in the reading checked first.
    bad = [i for i, k in enumerate(kinds) if k is not None]
    if not bad:   # i1 products: 0/1 times 0/1 never leaves [0, 1]
        assert (op, n, flag) == ("muli", 1, "no_unsigned_wrap")
        return
    i = bad[0]
    kind = kinds[i]
    read = signed if kind == "signed" else unsigned
    fails(lambda: binary(run_op, op, n, a, b, f"overflow<{flag}>"),
          f"'cuda_tile.{op}' op {kind} overflow ({flag}) at element [{i}]: "
          f"{read(a[i], n)} {symbol} {read(b[i], n)}")
    # Every wrapping element alone fails (a sample of them for the wide types).
    rng = random.Random(n)
    for i in rng.sample(bad, min(len(bad), 40)):
        fails(lambda: binary(run_op, op, n, [a[i]], [b[i]], f"overflow<{flag}>"),
              f"{kinds[i]} overflow ({flag}) at element [0]")
    # Without checks the same elements just wrap.
    out = binary(run_op, op, n, a, b, f"overflow<{flag}>", checks=False)
    assert out.tolist() == [wrap(exact(x, y), n) for x, y in zip(a, b)]
    tally("integer overflow checks", 2 * len(a) + len(safe))


def test_addi_literal_cases(run_op):
    out = binary(run_op, "addi", 32, [0x7FFFFFFF, -1], [1, 1])
    assert out.tolist() == [-0x80000000, 0]
    fails(lambda: binary(run_op, "addi", 32, [1, 0x7FFFFFFF], [2, 1], "overflow<no_signed_wrap>"),
          "'cuda_tile.addi' op signed overflow (no_signed_wrap) at element [1]: "
          "2147483647 + 1 (tile block (0, 0, 0))")
    # -1 + 1 wraps unsigned (255 + 1) but not signed.
    assert binary(run_op, "addi", 8, [-1, 0], [1, 0], "overflow<no_signed_wrap>").tolist() == [0, 0]
    fails(lambda: binary(run_op, "addi", 8, [-1, 0], [1, 0], "overflow<no_unsigned_wrap>"),
          "unsigned overflow (no_unsigned_wrap) at element [0]: 255 + 1")
    fails(lambda: binary(run_op, "addi", 8, [-1, 0], [1, 0], "overflow<no_wrap>"),
          "unsigned overflow (no_wrap) at element [0]: 255 + 1")
    # i1 (spec 8.8.1): signed reads true as -1, so true + true = -2 wraps signed; 1 + 1 = 2
    # wraps unsigned; true + false fits both.
    assert binary(run_op, "addi", 1, [1, 1], [1, 0]).tolist() == [False, True]
    assert binary(run_op, "addi", 1, [0, 1], [1, 0], "overflow<no_wrap>").tolist() == [True, True]
    fails(lambda: binary(run_op, "addi", 1, [0, 1], [0, 1], "overflow<no_signed_wrap>"),
          "signed overflow (no_signed_wrap) at element [1]: -1 + -1")
    fails(lambda: binary(run_op, "addi", 1, [0, 1], [0, 1], "overflow<no_unsigned_wrap>"),
          "unsigned overflow (no_unsigned_wrap) at element [1]: 1 + 1")


def test_subi_and_muli_literal_cases(run_op):
    assert binary(run_op, "subi", 16, [-32768, 0], [1, 1]).tolist() == [32767, -1]
    fails(lambda: binary(run_op, "subi", 16, [-32768, 0], [1, 1], "overflow<no_signed_wrap>"),
          "signed overflow (no_signed_wrap) at element [0]: -32768 - 1")
    fails(lambda: binary(run_op, "subi", 16, [5, 0], [1, 1], "overflow<no_unsigned_wrap>"),
          "unsigned overflow (no_unsigned_wrap) at element [1]: 0 - 1")
    two32, two31, two63 = 1 << 32, 1 << 31, 1 << 63
    # 2^32 * 2^32 = 2^64: wraps to 0 in both readings.
    assert binary(run_op, "muli", 64, [two32, 3], [two32, 5]).tolist() == [0, 15]
    # -2^32 * 2^31 = -2^63 fits signed; read unsigned it is (2^64 - 2^32) * 2^31: wraps.
    assert binary(run_op, "muli", 64, [-two32], [two31], "overflow<no_signed_wrap>").tolist() \
        == [-two63]
    fails(lambda: binary(run_op, "muli", 64, [-two32], [two31], "overflow<no_unsigned_wrap>"),
          f"unsigned overflow (no_unsigned_wrap) at element [0]: {2**64 - two32} * {two31}")
    # 2^32 * 2^31 = 2^63 fits unsigned, not signed.
    assert binary(run_op, "muli", 64, [two32], [two31], "overflow<no_unsigned_wrap>").tolist() \
        == [-two63]
    fails(lambda: binary(run_op, "muli", 64, [two32], [two31], "overflow<no_wrap>"),
          f"signed overflow (no_wrap) at element [0]: {two32} * {two31}")
    # i1: -1 * -1 = 1 does not fit the signed i1 range [-1, 0]; 1 * 1 fits unsigned.
    assert binary(run_op, "muli", 1, [1], [1], "overflow<no_unsigned_wrap>").tolist() == [True]
    fails(lambda: binary(run_op, "muli", 1, [1], [1], "overflow<no_signed_wrap>"),
          "signed overflow (no_signed_wrap) at element [0]: -1 * -1")


# ---- negi, absi, mulhii --------------------------------------------------------------------


def unary(run_op, op: str, n: int, a, suffix: str = "", checks: bool = True):
    """Run ``op %a <suffix> : tile<len x iN>`` on list `a`."""
    t = tile(n, len(a))
    return run_op(module(f"{op} %a {suffix} : {t}", t), arr(n, a), checks=checks)


@pytest.mark.parametrize("n", WIDTHS)
def test_negi_and_absi_match_the_signed_reading(run_op, tally, n):
    values = sorted({wrap(v, n) for v in operand_pairs(n)[0]})
    values, _ = pad(values, values, (0, 0))
    neg = unary(run_op, "negi", n, values)
    assert neg.dtype == DTYPES[n]
    assert neg.tolist() == [wrap(-signed(v, n), n) for v in values]
    # absi: |x| of the signed reading, read back unsigned: |min| = 2^(N-1) is exact.
    out = unary(run_op, "absi", n, values)
    assert out.dtype == DTYPES[n]
    assert [unsigned(int(v), n) for v in out.tolist()] == [abs(signed(v, n)) for v in values]
    tally("integer results", 2 * len(values))


def test_negi_literal_cases_and_overflow(run_op):
    # The spec's example: [0, 1, 2, 3] -> [0, -1, -2, -3].
    assert unary(run_op, "negi", 16, [0, 1, 2, 3]).tolist() == [0, -1, -2, -3]
    assert unary(run_op, "negi", 8, [-128, 127]).tolist() == [-128, -127]
    for flag in ("no_signed_wrap", "no_wrap"):
        fails(lambda: unary(run_op, "negi", 8, [127, -128], f"overflow<{flag}>"),
              f"'cuda_tile.negi' op signed overflow ({flag}) at element [1]: -(-128)")
    assert unary(run_op, "negi", 8, [-128, 5], "overflow<no_signed_wrap>", checks=False).tolist() \
        == [-128, -5]
    # i1: -(0) = 0; -(-1) = 1 does not fit signed i1, so under no_signed_wrap true is bad.
    assert unary(run_op, "negi", 1, [0, 1]).tolist() == [False, True]
    assert unary(run_op, "negi", 1, [0, 0], "overflow<no_signed_wrap>").tolist() == [False, False]
    fails(lambda: unary(run_op, "negi", 1, [0, 1], "overflow<no_signed_wrap>"),
          "signed overflow (no_signed_wrap) at element [1]: -(-1)")
    i64min = -(1 << 63)
    fails(lambda: unary(run_op, "negi", 64, [1, i64min], "overflow<no_signed_wrap>"),
          f"at element [1]: -({i64min})")


def test_absi_literal_cases(run_op):
    assert unary(run_op, "absi", 8, [-128, -5, 5, 0]).tolist() == [-128, 5, 5, 0]
    out = unary(run_op, "absi", 64, [-(1 << 63), -(1 << 63) + 1])
    assert out.view(np.uint64).tolist() == [1 << 63, (1 << 63) - 1]
    assert unary(run_op, "absi", 1, [0, 1]).tolist() == [False, True]   # |-1| = 1


@pytest.mark.parametrize("n", WIDTHS)
def test_mulhii_is_the_high_half_of_the_unsigned_product(run_op, tally, n):
    a, b = operand_pairs(n)
    out = binary(run_op, "mulhii", n, a, b)
    assert out.dtype == DTYPES[n]
    assert out.tolist() == [wrap((unsigned(x, n) * unsigned(y, n)) >> n, n)
                            for x, y in zip(a, b)]
    tally("integer results", len(a))


def test_mulhii_literal_cases(run_op):
    # The spec's example: 2^31 * 2 = 2^32, high 32 bits 1.
    assert binary(run_op, "mulhii", 32, [1 << 31], [2]).tolist() == [1]
    # 0xFF * 0xFF = 0xFE01.
    assert binary(run_op, "mulhii", 8, [-1], [-1]).tolist() == [-2]
    # (2^64 - 1)^2 = 2^128 - 2^65 + 1: high half 2^64 - 2.
    assert binary(run_op, "mulhii", 64, [-1, 1 << 32], [-1, 1 << 32]).view(np.uint64).tolist() \
        == [2**64 - 2, 1]
    assert binary(run_op, "mulhii", 1, [1], [1]).tolist() == [False]


# ---- divi, remi ---------------------------------------------------------------------------


ROUND = {"zero": trunc_div, "negative_inf": lambda a, b: a // b,
         "positive_inf": lambda a, b: -((-a) // b)}


def divi_suffix(is_signed: bool, rounding: str | None) -> str:
    """``signed rounding<...>`` / ``unsigned`` ... as divi prints it."""
    text = "signed" if is_signed else "unsigned"
    return text + (f" rounding<{rounding}>" if rounding else "")


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("is_signed,rounding", [(True, None), (True, "zero"),
                                                (True, "negative_inf"), (True, "positive_inf"),
                                                (False, None), (False, "positive_inf")])
def test_divi_rounds_the_exact_quotient(run_op, tally, n, is_signed, rounding):
    read = signed if is_signed else unsigned
    a, b = operand_pairs(n)
    ok = [(x, y) for x, y in zip(a, b) if read(y, n) != 0
          and not (is_signed and read(x, n) == -(1 << (n - 1)) and read(y, n) == -1)]
    a, b = pad([x for x, _ in ok], [y for _, y in ok], ok[0])
    out = binary(run_op, "divi", n, a, b, divi_suffix(is_signed, rounding))
    assert out.dtype == DTYPES[n]
    rule = ROUND[rounding or "zero"]
    assert out.tolist() == [wrap(rule(read(x, n), read(y, n)), n) for x, y in zip(a, b)]
    tally("integer results", len(a))


def test_divi_literal_cases(run_op):
    lhs, rhs = [7, -7, 7, -7, 6, -6, 0, 1], [2, 2, -2, -2, 3, 3, 5, 1]
    expected = {"zero": [3, -3, -3, 3, 2, -2, 0, 1],
                "negative_inf": [3, -4, -4, 3, 2, -2, 0, 1],
                "positive_inf": [4, -3, -3, 4, 2, -2, 0, 1]}
    for rounding, quotients in expected.items():
        assert binary(run_op, "divi", 32, lhs, rhs, f"signed rounding<{rounding}>").tolist() \
            == quotients
    # Unsigned: 0xFF / 2 = 127 (ceil 128 = 0x80); (2^64 - 1) / 3 = 0x5555555555555555 exactly.
    assert binary(run_op, "divi", 8, [-1, 7], [2, 7], "unsigned").tolist() == [127, 1]
    assert binary(run_op, "divi", 8, [-1, 7], [2, 7], "unsigned rounding<positive_inf>") \
        .tolist() == [-128, 1]
    assert binary(run_op, "divi", 64, [-1, -1], [3, 1 << 32], "unsigned").tolist() \
        == [0x5555555555555555, 0xFFFFFFFF]
    assert binary(run_op, "divi", 64, [-(1 << 63)], [3], "signed rounding<negative_inf>") \
        .tolist() == [-3074457345618258603]
    # i1: unsigned 1/1 = 1, 0/1 = 0; signed 0 / -1 = 0.
    assert binary(run_op, "divi", 1, [1, 0], [1, 1], "unsigned").tolist() == [True, False]
    assert binary(run_op, "divi", 1, [0, 0], [1, 1], "signed").tolist() == [False, False]


def test_divi_undefined_behaviour(run_op):
    fails(lambda: binary(run_op, "divi", 32, [1, 7], [1, 0], "signed"),
          "'cuda_tile.divi' op division by zero at element [1]: 7 / 0")
    fails(lambda: binary(run_op, "divi", 8, [-1, 7], [0, 1], "unsigned rounding<positive_inf>"),
          "division by zero at element [0]: 255 / 0")
    fails(lambda: binary(run_op, "divi", 32, [5, -2**31], [-1, -1], "signed"),
          "signed division overflow at element [1]: -2147483648 / -1")
    fails(lambda: binary(run_op, "divi", 64, [-2**63], [-1], "signed rounding<negative_inf>"),
          f"signed division overflow at element [0]: {-2**63} / -1")
    # i1 signed: true is -1, the minimum, so true / true overflows; false divides by zero.
    fails(lambda: binary(run_op, "divi", 1, [1], [1], "signed"),
          "signed division overflow at element [0]: -1 / -1")
    fails(lambda: binary(run_op, "divi", 1, [1], [0], "unsigned"),
          "division by zero at element [0]: 1 / 0")
    # Unsigned, the minimum / all-ones is an ordinary division: 128 / 255 = 0.
    assert binary(run_op, "divi", 8, [-128], [-1], "unsigned").tolist() == [0]
    # Without checks: a quotient by zero is 0, the minimum / -1 wraps to the minimum.
    out = binary(run_op, "divi", 64, [7, -2**63, 9, 0], [0, -1, -1, 0], "signed", checks=False)
    assert out.tolist() == [0, -2**63, -9, 0]


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("is_signed", [True, False])
def test_remi_is_the_truncated_remainder(run_op, tally, n, is_signed):
    read = signed if is_signed else unsigned
    a, b = operand_pairs(n)
    ok = [(x, y) for x, y in zip(a, b) if y != 0]
    a, b = pad([x for x, _ in ok], [y for _, y in ok], ok[0])
    out = binary(run_op, "remi", n, a, b, "signed" if is_signed else "unsigned")
    assert out.dtype == DTYPES[n]
    expected = [read(x, n) - trunc_div(read(x, n), read(y, n)) * read(y, n)
                for x, y in zip(a, b)]
    assert out.tolist() == [wrap(r, n) for r in expected]
    tally("integer results", len(a))


def test_remi_literal_cases_and_undefined_behaviour(run_op):
    # The spec's examples: the sign of the dividend.
    assert binary(run_op, "remi", 32, [7, 7, -7, -7], [3, -3, 3, -3], "signed").tolist() \
        == [1, 1, -1, -1]
    # 0xFF % 7 = 255 - 36 * 7 = 3; 7 % 0xFD (253) = 7.
    assert binary(run_op, "remi", 8, [-1, 7], [7, -3], "unsigned").tolist() == [3, 7]
    # min % -1 = 0 exactly: the spec calls only a zero divisor undefined.
    assert binary(run_op, "remi", 64, [-2**63, -2**63 + 1], [-1, -1], "signed").tolist() == [0, 0]
    fails(lambda: binary(run_op, "remi", 16, [3, 4], [1, 0], "unsigned"),
          "'cuda_tile.remi' op remainder by zero at element [1]: 4 % 0")
    fails(lambda: binary(run_op, "remi", 1, [1], [0], "signed"),
          "remainder by zero at element [0]: -1 % 0")
    # Without checks a remainder by zero is the dividend.
    assert binary(run_op, "remi", 16, [3, -4], [0, 3], "signed", checks=False).tolist() == [3, -1]


# ---- shli, shri ---------------------------------------------------------------------------


def shift_pairs(n: int) -> tuple[list[int], list[int]]:
    """Every value pattern of the edge set with every shift amount below N."""
    values = edge_values(n) if n > 8 else [wrap(v, n) for v in range(1 << n)]
    a = [x for x in values for _ in range(n)]
    b = [s for _ in values for s in range(n)]
    return a, b


@pytest.mark.parametrize("n", WIDTHS)
def test_shifts_match_the_model(run_op, tally, n):
    a, b = pad(*shift_pairs(n), (0, 0))
    assert binary(run_op, "shli", n, a, b).tolist() == \
        [wrap(unsigned(x, n) << s, n) for x, s in zip(a, b)]
    assert binary(run_op, "shri", n, a, b, "unsigned").tolist() == \
        [wrap(unsigned(x, n) >> s, n) for x, s in zip(a, b)]
    assert binary(run_op, "shri", n, a, b, "signed").tolist() == \
        [wrap(signed(x, n) >> s, n) for x, s in zip(a, b)]
    tally("integer results", 3 * len(a))


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("flag", ["no_signed_wrap", "no_unsigned_wrap", "no_wrap"])
def test_shli_overflow_flags(run_op, tally, n, flag):
    a, b = pad(*shift_pairs(n), (0, 0))
    readings = FLAG_READINGS[flag]

    def wraps(x: int, s: int) -> bool:
        """Whether x * 2^s leaves the range of a reading the flag promises."""
        return any(not fits((signed if r else unsigned)(x, n) << s, n, r) for r in readings)

    safe = [(x, s) for x, s in zip(a, b) if not wraps(x, s)]
    sa, sb = pad([x for x, _ in safe], [s for _, s in safe], (0, 0))
    assert binary(run_op, "shli", n, sa, sb, f"overflow<{flag}>").tolist() == \
        [wrap(unsigned(x, n) << s, n) for x, s in zip(sa, sb)]
    bad = [i for i, (x, s) in enumerate(zip(a, b)) if wraps(x, s)]
    assert bad or n == 1   # i1 shifts below the width are by 0 only
    for i in bad[:: max(1, len(bad) // 40)]:
        fails(lambda: binary(run_op, "shli", n, [a[i]], [b[i]], f"overflow<{flag}>"),
              f"overflow ({flag}) at element [0]")
    tally("integer overflow checks", len(a))


def test_shift_literal_cases(run_op):
    assert binary(run_op, "shli", 32, [1, 3], [31, 1]).tolist() == [-2**31, 6]
    fails(lambda: binary(run_op, "shli", 32, [3, 1], [1, 31], "overflow<no_signed_wrap>"),
          "'cuda_tile.shli' op signed overflow (no_signed_wrap) at element [1]: 1 << 31")
    assert binary(run_op, "shli", 32, [1], [31], "overflow<no_unsigned_wrap>").tolist() == [-2**31]
    fails(lambda: binary(run_op, "shli", 32, [3], [31], "overflow<no_unsigned_wrap>"),
          "unsigned overflow (no_unsigned_wrap) at element [0]: 3 << 31")
    # -1 << 7 = -128 fits i8 signed (but 255 << 7 does not fit unsigned).
    assert binary(run_op, "shli", 8, [-1], [7], "overflow<no_signed_wrap>").tolist() == [-128]
    fails(lambda: binary(run_op, "shli", 8, [-1], [7], "overflow<no_wrap>"),
          "unsigned overflow (no_wrap) at element [0]: 255 << 7")
    # shri: sign fill versus zero fill.
    assert binary(run_op, "shri", 8, [-8, 8], [1, 1], "signed").tolist() == [-4, 4]
    assert binary(run_op, "shri", 8, [-8, 8], [1, 1], "unsigned").tolist() == [124, 4]
    assert binary(run_op, "shri", 64, [-2**63, -2**63], [63, 0], "signed").tolist() \
        == [-1, -2**63]
    assert binary(run_op, "shri", 64, [-2**63], [63], "unsigned").tolist() == [1]


def test_shift_amount_past_the_width(run_op):
    # The amount is read unsigned: -1 in i8 is 255.
    fails(lambda: binary(run_op, "shli", 8, [1, 1], [7, -1]),
          "'cuda_tile.shli' op shift amount not less than the bit width 8 at element [1]: "
          "1 << 255")
    fails(lambda: binary(run_op, "shri", 32, [-8], [32], "signed"),
          f"shift amount not less than the bit width 32 at element [0]: {2**32 - 8} >> 32")
    fails(lambda: binary(run_op, "shri", 1, [1], [1], "unsigned"),
          "shift amount not less than the bit width 1 at element [0]: 1 >> 1")
    # Without checks the shift clamps to N: nothing left, or the sign fill.
    assert binary(run_op, "shli", 64, [-1, 5], [64, 200], checks=False).tolist() == [0, 0]
    assert binary(run_op, "shri", 16, [-8, 8], [16, -1], "signed", checks=False).tolist() \
        == [-1, 0]
    assert binary(run_op, "shri", 64, [-8, 8], [64, 100], "unsigned", checks=False).tolist() \
        == [0, 0]


def test_shift_past_the_width_when_it_is_not_treated_as_undefined(run_op, monkeypatch):
    # With the switch off, a shift by N or more is the clamped shift, and the overflow
    # flags judge it like any other: every set bit is shifted out.
    monkeypatch.setattr(INTEGER, "SHIFT_PAST_WIDTH_IS_UNDEFINED", False)
    assert binary(run_op, "shli", 8, [0, 0], [8, 255], "overflow<no_wrap>").tolist() == [0, 0]
    fails(lambda: binary(run_op, "shli", 8, [0, 5], [8, 9], "overflow<no_unsigned_wrap>"),
          "unsigned overflow (no_unsigned_wrap) at element [1]: 5 << 9")
    fails(lambda: binary(run_op, "shli", 64, [-1], [64], "overflow<no_signed_wrap>"),
          "signed overflow (no_signed_wrap) at element [0]: -1 << 64")
    assert binary(run_op, "shri", 64, [-8, 8], [64, 1000], "signed").tolist() == [-1, 0]
    assert binary(run_op, "shri", 8, [-8, 8], [8, 200], "unsigned").tolist() == [0, 0]


# ---- cmpi, maxi, mini ---------------------------------------------------------------------


PREDICATES = {"equal": lambda x, y: x == y, "not_equal": lambda x, y: x != y,
              "less_than": lambda x, y: x < y, "less_than_or_equal": lambda x, y: x <= y,
              "greater_than": lambda x, y: x > y,
              "greater_than_or_equal": lambda x, y: x >= y}


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("is_signed", [True, False])
def test_cmpi_every_predicate(run_op, tally, n, is_signed):
    read = signed if is_signed else unsigned
    a, b = operand_pairs(n, 1024)
    t = tile(n, len(a))
    for predicate, rule in PREDICATES.items():
        text = module(f"cmpi {predicate} %a, %b, {'signed' if is_signed else 'unsigned'} "
                      f": {t} -> {tile(1, len(a))}", t, t)
        out = run_op(text, arr(n, a), arr(n, b))
        assert out.dtype == np.bool_ and out.shape == (len(a),)
        assert out.tolist() == [rule(read(x, n), read(y, n)) for x, y in zip(a, b)]
        tally("integer results", len(a))


def test_cmpi_literal_cases(run_op):
    t, r = tile(8, 2), tile(1, 2)
    lt_signed = module(f"cmpi less_than %a, %b, signed : {t} -> {r}", t, t)
    lt_unsigned = module(f"cmpi less_than %a, %b, unsigned : {t} -> {r}", t, t)
    assert run_op(lt_signed, arr(8, [-1, 1]), arr(8, [1, -1])).tolist() == [True, False]
    assert run_op(lt_unsigned, arr(8, [-1, 1]), arr(8, [1, -1])).tolist() == [False, True]
    # i1: signed true is -1 < 0; unsigned true is 1 > 0.
    t1 = tile(1, 2)
    text = module(f"cmpi greater_than %a, %b, signed : {t1} -> {t1}", t1, t1)
    assert run_op(text, arr(1, [1, 0]), arr(1, [0, 1])).tolist() == [False, True]
    text = module(f"cmpi greater_than %a, %b, unsigned : {t1} -> {t1}", t1, t1)
    assert run_op(text, arr(1, [1, 0]), arr(1, [0, 1])).tolist() == [True, False]


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("is_signed", [True, False])
def test_maxi_mini(run_op, tally, n, is_signed):
    read = signed if is_signed else unsigned
    a, b = operand_pairs(n, 1024)
    word = "signed" if is_signed else "unsigned"
    top = binary(run_op, "maxi", n, a, b, word)
    low = binary(run_op, "mini", n, a, b, word)
    assert top.dtype == low.dtype == DTYPES[n]
    assert top.tolist() == [x if read(x, n) >= read(y, n) else y for x, y in zip(a, b)]
    assert low.tolist() == [x if read(x, n) <= read(y, n) else y for x, y in zip(a, b)]
    tally("integer results", 2 * len(a))


def test_maxi_mini_literal_cases(run_op):
    assert binary(run_op, "maxi", 64, [-1, -2**63], [1, 2**63 - 1], "signed").tolist() \
        == [1, 2**63 - 1]
    assert binary(run_op, "maxi", 64, [-1, -2**63], [1, 2**63 - 1], "unsigned").tolist() \
        == [-1, -2**63]
    assert binary(run_op, "mini", 32, [-5, 5], [3, 3], "signed").tolist() == [-5, 3]
    assert binary(run_op, "mini", 32, [-5, 5], [3, 3], "unsigned").tolist() == [3, 3]
    assert binary(run_op, "mini", 1, [1, 0], [0, 1], "signed").tolist() == [True, True]
    assert binary(run_op, "mini", 1, [1, 0], [0, 1], "unsigned").tolist() == [False, False]


# ---- bitwise ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", WIDTHS)
def test_bitwise_ops_on_the_bit_patterns(run_op, tally, n):
    a, b = operand_pairs(n, 1024)
    rules = {"andi": lambda x, y: x & y, "ori": lambda x, y: x | y,
             "xori": lambda x, y: x ^ y}
    for op, rule in rules.items():
        out = binary(run_op, op, n, a, b)
        assert out.dtype == DTYPES[n]
        assert out.tolist() == [wrap(rule(unsigned(x, n), unsigned(y, n)), n)
                                for x, y in zip(a, b)]
        tally("integer results", len(a))


def test_bitwise_literal_cases(run_op):
    # The spec's xori example: [0, 1, 2, 3] ^ [4, 5, 6, 7] = [4, 4, 4, 4].
    assert binary(run_op, "xori", 32, [0, 1, 2, 3], [4, 5, 6, 7]).tolist() == [4, 4, 4, 4]
    assert binary(run_op, "andi", 32, [0x0F0F0F0F, -1], [0x00FF00FF, -2**31]).tolist() \
        == [0x000F000F, -2**31]
    assert binary(run_op, "ori", 64, [-2**63, 1], [1, 2]).tolist() == [-2**63 + 1, 3]
    assert binary(run_op, "andi", 1, [0, 0, 1, 1], [0, 1, 0, 1]).tolist() \
        == [False, False, False, True]
    assert binary(run_op, "ori", 1, [0, 0, 1, 1], [0, 1, 0, 1]).tolist() \
        == [False, True, True, True]
    assert binary(run_op, "xori", 1, [0, 0, 1, 1], [0, 1, 0, 1]).tolist() \
        == [False, True, True, False]


# ---- mmai ---------------------------------------------------------------------------------


def mmai_text(shapes: tuple[tuple[int, ...], ...], lhs: str, rhs: str) -> str:
    """An mmai on tiles of the given (lhs, rhs, acc) shapes and signedness words."""
    a, b, c = tile(8, shapes[0]), tile(8, shapes[1]), tile(32, shapes[2])
    return module(f"mmai %a, %b, %c {lhs} {rhs} : {a}, {b}, {c}", a, b, c)


def matmul_model(a, b, c, sa: bool, sb: bool, n: int = 8) -> list:
    """sum_k A[i][k] * B[k][j] + C[i][j] over the readings, wrapped to i32 (lists)."""
    ra, rb = (signed if sa else unsigned), (signed if sb else unsigned)
    return [[wrap(sum(ra(a[i][k], n) * rb(b[k][j], n) for k in range(len(b)))
                  + signed(c[i][j], 32), 32) for j in range(len(b[0]))] for i in range(len(a))]


def test_mmai_literal_cases(run_op):
    a = [[1, -1], [-128, 2]]
    b = [[3, -2], [4, 1]]
    c = [[0, 10], [-5, 0]]
    shapes = ((2, 2), (2, 2), (2, 2))
    out = run_op(mmai_text(shapes, "signed", "signed"), arr(8, a), arr(8, b), arr(32, c))
    # [1*3 + -1*4, 1*-2 + -1*1] + c = [-1, 7]; [-128*3 + 2*4, -128*-2 + 2*1] + c = [-381, 258]
    assert out.dtype == np.int32 and out.tolist() == [[-1, 7], [-381, 258]]
    out = run_op(mmai_text(shapes, "unsigned", "signed"), arr(8, a), arr(8, b), arr(32, c))
    # lhs unsigned: -1 -> 255, -128 -> 128: [3 + 1020, -2 + 255 + 10], [384 + 8 - 5, -256 + 2]
    assert out.tolist() == [[1023, 263], [387, -254]]
    out = run_op(mmai_text(shapes, "unsigned", "unsigned"), arr(8, a), arr(8, b), arr(32, c))
    # rhs unsigned: -2 -> 254: [3 + 1020, 254 + 255 + 10], [384 + 8 - 5, 128 * 254 + 2]
    assert out.tolist() == [[1023, 519], [387, 32514]]
    # The i32 result wraps: 2^31 - 1 + 1 = -2^31.
    out = run_op(mmai_text(((1, 1), (1, 1), (1, 1)), "signed", "signed"),
                 arr(8, [[1]]), arr(8, [[1]]), arr(32, [[2**31 - 1]]))
    assert out.tolist() == [[-2**31]]


def test_mmai_against_the_model(run_op, tally):
    rng = random.Random(7)
    m, k, n = 4, 32, 8
    for sa in (True, False):
        for sb in (True, False):
            a = [[rng.randrange(-128, 128) for _ in range(k)] for _ in range(m)]
            b = [[rng.randrange(-128, 128) for _ in range(n)] for _ in range(k)]
            c = [[rng.randrange(-2**31, 2**31) for _ in range(n)] for _ in range(m)]
            words = ("signed" if sa else "unsigned", "signed" if sb else "unsigned")
            out = run_op(mmai_text(((m, k), (k, n), (m, n)), *words), arr(8, a), arr(8, b),
                         arr(32, c))
            assert out.tolist() == matmul_model(a, b, c, sa, sb)
            tally("integer results", m * n)


def test_mmai_batched(run_op):
    rng = random.Random(3)
    batch = [([[rng.randrange(-128, 128) for _ in range(4)] for _ in range(2)],
              [[rng.randrange(-128, 128) for _ in range(2)] for _ in range(4)],
              [[rng.randrange(-1000, 1000) for _ in range(2)] for _ in range(2)])
             for _ in range(2)]
    text = mmai_text(((2, 2, 4), (2, 4, 2), (2, 2, 2)), "signed", "unsigned")
    out = run_op(text, arr(8, [x[0] for x in batch]), arr(8, [x[1] for x in batch]),
                 arr(32, [x[2] for x in batch]))
    assert out.shape == (2, 2, 2)
    assert out.tolist() == [matmul_model(a, b, c, True, False) for a, b, c in batch]


# ---- 0-d tiles and a leading grid axis ----------------------------------------------------


def test_rank0_tiles_give_0d_arrays_without_warnings(run_op):
    t = tile(64)
    cases = [("addi %a, %b overflow<no_unsigned_wrap>", [1, 2], 3),
             ("subi %a, %b", [-2**63, 1], 2**63 - 1),
             ("muli %a, %b overflow<no_signed_wrap>", [-2**62, 2], -2**63),
             ("mulhii %a, %b", [-1, -1], -2),
             ("divi %a, %b signed rounding<positive_inf>", [-7, 2], -3),
             ("remi %a, %b signed", [-2**63, -1], 0),
             ("shli %a, %b", [3, 62], -2**62),   # 2^63 + 2^62 wraps
             ("shri %a, %b signed", [-2**63, 1], -2**62),
             ("maxi %a, %b unsigned", [1, -1], -1),
             ("xori %a, %b", [-1, 1], -2)]
    for body, (x, y), expected in cases:
        out = run_op(module(f"{body} : {t}", t, t), arr(64, x), arr(64, y))
        assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.int64, body
        assert int(out) == expected, body
    out = run_op(module(f"negi %a : {t}", t), arr(64, -2**63))
    assert out.shape == () and int(out) == -2**63
    out = run_op(module(f"cmpi less_than %a, %b, signed : {t} -> {tile(1)}", t, t),
                 arr(64, -1), arr(64, 0))
    assert isinstance(out, np.ndarray) and out.shape == () and bool(out) is True
    fails(lambda: run_op(module(f"addi %a, %b overflow<no_wrap> : {t}", t, t),
                         arr(64, 2**63 - 1), arr(64, 1)),
          f"signed overflow (no_wrap) at element []: {2**63 - 1} + 1")


def test_a_leading_grid_axis_is_carried_through(run_op):
    # The functions see whole arrays: an extra leading axis (one row per tile block) works.
    t = tile(16, 2)
    grid_a = arr(16, [[1, 2], [-32768, 7]])
    grid_b = arr(16, [[3, 4], [1, 2]])
    out = run_op(module(f"subi %a, %b : {t}", t, t), grid_a, grid_b)
    assert out.tolist() == [[-2, -2], [32767, 5]]
    fails(lambda: run_op(module(f"subi %a, %b overflow<no_signed_wrap> : {t}", t, t),
                         grid_a, grid_b),
          "signed overflow (no_signed_wrap) at element [1, 0]: -32768 - 1")
    out = run_op(module(f"divi %a, %b signed rounding<negative_inf> : {t}", t, t),
                 grid_a, grid_b)
    assert out.tolist() == [[0, 0], [-32768, 3]]
    text = mmai_text(((1, 2), (2, 1), (1, 1)), "signed", "signed")
    out = run_op(text, arr(8, [[[1, 2]], [[3, 4]]]), arr(8, [[[5], [6]], [[7], [8]]]),
                 arr(32, [[[0]], [[1]]]))
    assert out.tolist() == [[[17]], [[54]]]


def test_every_op_of_the_groups_has_semantics():
    from tileir.interp import SEMANTICS
    from tileir.ops.registry import all_ops
    declared = {d.name for d in all_ops() if d.group in ("Integer", "Bitwise")}
    assert len(declared) == 17
    assert declared <= set(SEMANTICS)
