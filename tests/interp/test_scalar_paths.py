"""Scalar paths (`tileir.interp.semantics.scalar`) give their semantics function's bits.

For every op with a scalar path, every width, flag, signedness, predicate and rounding:
each pair of operands (all 65,536 pairs for i8; edge values and random ones for wider
types) is run through the scalar path and through the semantics function.  Where the path
answers, its result has the function's dtype, shape and bytes (checks off), and the
function with checks on reports nothing there; where the path declines, the function
decides (the machine calls it).  Which pairs a path answers is itself checked against a
model written here from the spec's definitions with Python's unbounded integers (an
overflow flag's promise broken, a divisor of 0 or -1), so a path that declined everything
would fail.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from tileir import parse
from tileir.interp import SEMANTICS, Step
from tileir.interp.semantics.scalar import SCALAR, scalar_path

DTYPES = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
WIDTHS = [8, 16, 32, 64]


def tile(n: int) -> str:
    """A rank-0 tile of iN."""
    return f"!cuda_tile.tile<i{n}>"


def first_op(text: str, *types: str):
    """The op ``cuda_tile.<text>`` in a function taking %a, %b, %c of `types`."""
    args = ", ".join(f"%{name}: {t}" for name, t in zip("abc", types))
    module = parse(f"cuda_tile.module @m {{\n  cuda_tile.testing$func @f({args}) {{\n"
                   f"    %0 = cuda_tile.{text}\n  }}\n}}", "scalar.mlir")
    return module.items[0].regions[0].blocks[0].operations[0]


def wrap(value: int, n: int) -> int:
    """`value` modulo 2^N, read signed."""
    value &= (1 << n) - 1
    return value - (1 << n) if value >> (n - 1) else value


@functools.lru_cache(maxsize=None)
def pairs(n: int) -> tuple[tuple[int, int, np.ndarray, np.ndarray], ...]:
    """Operand pairs: signed readings and the 0-d tiles holding them; every pair for i8,
    else edge values and random ones."""
    if n == 8:
        values = list(range(-128, 128))
    else:
        rng = random.Random(n)
        half = 1 << (n - 1)
        values = [0, 1, -1, 2, -2, 3, 7, -7, half - 1, -half, half - 2, -half + 1,
                  1 << (n // 2), -(1 << (n // 2)), (1 << (n // 2)) - 1]
        values += [wrap(rng.getrandbits(n), n) for _ in range(40)]
        values += [wrap(rng.getrandbits(n // 2 + 1), n) for _ in range(15)]
    tiles = {v: np.array(v, DTYPES[n]) for v in values}
    return tuple((a, b, tiles[a], tiles[b]) for a in values for b in values)


def compare(op, n: int, cases, answers) -> None:
    """Run `op`'s scalar path on every case of `pairs`; where it answers, compare with the
    semantics function (checks off: the same bytes; checks on: no report); `answers(a, b)`
    says (independently) whether the path must answer."""
    general = SEMANTICS[op.opdef.name]
    path = scalar_path(general, op)
    assert path is not None
    dtype = DTYPES[n]
    answered, got = [], []
    for a, b, x, y in cases:
        out = path(x, y)
        if (out is not None) != answers(a, b):
            raise AssertionError(f"the path {'answered' if out is not None else 'declined'} "
                                 f"{a}, {b}")
        if out is not None:
            answered.append((a, b))
            got.append(out)
    if not answered:
        return
    assert {type(g) for g in got} == {np.ndarray} and {g.shape for g in got} == {()}
    lhs = np.array([a for a, _ in answered], dtype)
    rhs = np.array([b for _, b in answered], dtype)
    off = general(Step(op, checks=False), lhs, rhs)
    on = general(Step(op, checks=True), lhs, rhs)       # raises if anything is reported
    assert on.tobytes() == off.tobytes()
    assert {g.dtype for g in got} == {off.dtype}
    assert np.array([g.item() for g in got], off.dtype).tobytes() == off.tobytes()


def overflows(op: str, n: int, a: int, b: int, signed: bool) -> bool:
    """Whether the exact result of `op` on the reading of a, b leaves that reading's range."""
    mask = (1 << n) - 1
    x, y = (a, b) if signed else (a & mask, b & mask)
    exact = {"addi": x + y, "subi": x - y, "muli": x * y}[op]
    low, high = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, mask)
    return not low <= exact <= high


FLAGS = {"": (), "overflow<no_signed_wrap>": (True,),
         "overflow<no_unsigned_wrap>": (False,), "overflow<no_wrap>": (True, False)}


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("flag", list(FLAGS))
@pytest.mark.parametrize("name", ["addi", "subi", "muli"])
def test_wrapping_arithmetic(name: str, flag: str, n: int) -> None:
    op = first_op(f"{name} %a, %b {flag} : {tile(n)}", tile(n), tile(n))
    compare(op, n, pairs(n),
            lambda a, b: not any(overflows(name, n, a, b, signed) for signed in FLAGS[flag]))


PREDICATES = ["equal", "not_equal", "less_than", "less_than_or_equal", "greater_than",
              "greater_than_or_equal"]


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
@pytest.mark.parametrize("predicate", PREDICATES)
def test_cmpi(predicate: str, signedness: str, n: int) -> None:
    op = first_op(f"cmpi {predicate} %a, %b, {signedness} : {tile(n)} -> {tile(1)}",
                  tile(n), tile(n))
    compare(op, n, pairs(n), lambda a, b: True)


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
@pytest.mark.parametrize("name", ["maxi", "mini"])
def test_maxi_mini(name: str, signedness: str, n: int) -> None:
    op = first_op(f"{name} %a, %b {signedness} : {tile(n)}", tile(n), tile(n))
    compare(op, n, pairs(n), lambda a, b: True)


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("name", ["andi", "ori", "xori"])
def test_bitwise(name: str, n: int) -> None:
    op = first_op(f"{name} %a, %b : {tile(n)}", tile(n), tile(n))
    compare(op, n, pairs(n), lambda a, b: True)


@pytest.mark.parametrize("name", ["andi", "ori", "xori"])
def test_bitwise_on_i1(name: str) -> None:
    op = first_op(f"{name} %a, %b : {tile(1)}", tile(1), tile(1))
    cases = [(a, b, np.array(a, np.bool_), np.array(b, np.bool_)) for a in (0, 1) for b in (0, 1)]
    compare(op, 1, cases, lambda a, b: True)


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("signedness, rounding", [
    ("signed", "zero"), ("signed", "negative_inf"), ("signed", "positive_inf"),
    ("unsigned", "zero"), ("unsigned", "positive_inf")])   # (unsigned: no negative_inf)
def test_divi(signedness: str, rounding: str, n: int) -> None:
    op = first_op(f"divi %a, %b {signedness} rounding<{rounding}> : {tile(n)}",
                  tile(n), tile(n))
    # declined: a divisor of 0 (undefined), and of -1 read signed (the minimum wraps)
    compare(op, n, pairs(n), lambda a, b: b != 0 and not (signedness == "signed" and b == -1))


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
def test_remi(signedness: str, n: int) -> None:
    op = first_op(f"remi %a, %b {signedness} : {tile(n)}", tile(n), tile(n))
    compare(op, n, pairs(n), lambda a, b: b != 0 and not (signedness == "signed" and b == -1))


def test_the_quotients_by_hand() -> None:
    # -7 / 2 rounded three ways, 7 / -2, and the unsigned reading of -7 (249 in i8)
    expected = {("signed", "zero"): [-3, -3], ("signed", "negative_inf"): [-4, -4],
                ("signed", "positive_inf"): [-3, -3], ("unsigned", "zero"): [124, 0],
                ("unsigned", "positive_inf"): [125, 1]}
    for (signedness, rounding), (q1, q2) in expected.items():
        op = first_op(f"divi %a, %b {signedness} rounding<{rounding}> : {tile(8)}",
                      tile(8), tile(8))
        path = scalar_path(SEMANTICS["divi"], op)
        assert path(np.array(-7, np.int8), np.array(2, np.int8)).tolist() == q1
        assert path(np.array(7, np.int8), np.array(-2, np.int8)).tolist() == q2


def test_select_copies_the_chosen_bits() -> None:
    for element, values in [("f32", np.array([np.nan, -0.0], np.float32)),
                            ("i64", np.array([-2**63, 5], np.int64)),
                            ("bf16", None)]:
        op = first_op(f"select %a, %b, %c : {tile(1)}, !cuda_tile.tile<{element}>",
                      tile(1), f"!cuda_tile.tile<{element}>", f"!cuda_tile.tile<{element}>")
        path = scalar_path(SEMANTICS["select"], op)
        if values is None:       # bf16: a NaN with a payload
            import ml_dtypes
            values = np.array([0x7FC1, 0x8000], np.uint16).view(ml_dtypes.bfloat16)
        x, y = np.array(values[0]), np.array(values[1])
        for cond in (True, False):
            got = path(np.array(cond), x, y)
            want = SEMANTICS["select"](Step(op), np.array(cond), x, y)
            assert got.dtype == want.dtype and got.shape == ()
            assert got.tobytes() == want.tobytes() == (x if cond else y).tobytes()
            assert got is not x and got is not y


def test_constant_gives_a_fresh_copy_each_time() -> None:
    op = first_op("constant <i32: [1, 2]> : !cuda_tile.tile<2xi32>")
    path = scalar_path(SEMANTICS["constant"], op)
    first, second = path(), path()
    assert first.tolist() == second.tolist() == [1, 2] and first.dtype == np.int32
    first[0] = 9
    assert path().tolist() == [1, 2] and first is not second


def test_paths_decline_operands_with_lanes_or_a_block_axis() -> None:
    op = first_op(f"addi %a, %b : {tile(32)}", tile(32), tile(32))
    path = scalar_path(SEMANTICS["addi"], op)
    assert path(np.array([1, 2], np.int32), np.array(3, np.int32)) is None
    assert path(np.array(1, np.int32), np.array([[3]], np.int32)) is None
    assert path(np.array(1, np.int32), np.array(3, np.int32)).tolist() == 4


def test_no_path_for_tiles_of_rank_one_i1_arithmetic_or_4_bit_types() -> None:
    vector = "!cuda_tile.tile<4xi32>"
    assert scalar_path(SEMANTICS["addi"],
                       first_op(f"addi %a, %b : {vector}", vector, vector)) is None
    assert scalar_path(SEMANTICS["addi"],
                       first_op(f"addi %a, %b : {tile(1)}", tile(1), tile(1))) is None
    assert scalar_path(SEMANTICS["cmpi"], first_op(
        f"cmpi equal %a, %b, signed : {tile(1)} -> {tile(1)}", tile(1), tile(1))) is None


def test_a_replaced_semantics_function_has_no_scalar_path(monkeypatch) -> None:
    op = first_op(f"addi %a, %b : {tile(32)}", tile(32), tile(32))
    assert scalar_path(SEMANTICS["addi"], op) is not None
    monkeypatch.setitem(SEMANTICS, "addi", lambda step, a, b: a)
    assert scalar_path(SEMANTICS["addi"], op) is None
    assert all(callable(make) for make in SCALAR.values())


ASSUMES = ["div_by<1>", "div_by<4>", "div_by<16>", "bounded<0, ?>", "bounded<?, 100>",
           "bounded<-5, 5>", "bounded<0, 127>"]


@pytest.mark.parametrize("predicate", ASSUMES)
@pytest.mark.parametrize("n", WIDTHS)
def test_assume_scalar_path_answers_exactly_where_the_predicate_holds(predicate, n) -> None:
    """``assume`` on a rank-0 integer: the path gives the value itself where the value is
    non-negative and the predicate holds (a model from its definition, with Python ints),
    declines elsewhere, and where it answers the semantics function with checks on
    reports nothing and returns the same bytes."""
    op = first_op(f"assume {predicate}, %a : {tile(n)}", tile(n))
    general = SEMANTICS["assume"]
    path = scalar_path(general, op)
    assert path is not None
    kind, bounds = predicate.split("<")
    values = sorted({a for a, _, _, _ in pairs(n)})
    answered = 0
    for v in values:
        x = np.array(v, DTYPES[n])
        if kind == "div_by":
            holds = v % int(bounds[:-1]) == 0
        else:
            low, high = (None if b.strip() == "?" else int(b) for b in bounds[:-1].split(","))
            holds = (low is None or v >= low) and (high is None or v <= high)
        out = path(x)
        assert (out is not None) == (v >= 0 and holds), (predicate, v)
        if out is not None:
            answered += 1
            step = Step(op, checks=True)
            assert general(step, x).tobytes() == out.tobytes()
    assert answered > 0


def test_assume_scalar_path_on_pointers_and_where_it_does_not_apply() -> None:
    ptr = "!cuda_tile.tile<!cuda_tile.ptr<f32>>"
    path = scalar_path(SEMANTICS["assume"], first_op(f"assume div_by<16>, %a : {ptr}", ptr))
    assert path(np.array(0x1000, np.int64)) is not None
    assert path(np.array(0x1004, np.int64)) is None
    vector = "!cuda_tile.tile<4xi32>"
    assert scalar_path(SEMANTICS["assume"],
                       first_op(f"assume div_by<4>, %a : {vector}", vector)) is None
    assert scalar_path(SEMANTICS["assume"],
                       first_op(f"assume same_elements<[]>, %a : {tile(32)}", tile(32))) is None
