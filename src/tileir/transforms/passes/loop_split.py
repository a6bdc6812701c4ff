"""``loop-split``: split a ``for`` loop in two where an ``if`` in its body tests the
induction variable against a loop invariant, so that neither loop branches.

As NVIDIA's pass (``LoopSplit.cpp``) does, for each ``for`` of a function (inner loops
first): the first ``if`` nested in it (in post-order) whose condition is a ``cmpi`` of the
induction variable with a value defined outside the loop, with the loop's signedness and
one of ``<``, ``<=``, ``>``, ``>=`` (the variable on either side), splits the loop at the
first iteration where the condition flips, when splitting pays (`split-threshold`: a branch
holding at least that many ops, or a load, store, mma, reduce, if or for; 1 always pays, 0
never).  The threshold can be overridden by a ``cuda_tile.loop_split = N`` attribute on the
``if``, else the ``for``, else the function.

Every ``if`` directly in the loop body that tests that ``cmpi`` is replaced by the branch
that runs in each part (the first loop gets the else branch for ``>``/``>=``, the then
branch for ``<``/``<=``; a branch ending in ``continue`` ends the body there); other uses of
the ``cmpi`` see a constant ``true``/``false``.  The first loop runs from the lower bound to
``mini(split, upper)``, the second from ``maxi(split, lower)`` to the upper bound, carrying
the first loop's results; ``split`` is the invariant (plus one for ``>`` and ``<=``), rounded
up to an iteration (``lower + ceildiv(split - lower, step) * step``) unless the step is the
constant 1.

Two departures from the reference, both where its output would be wrong: a block argument
(the loop's own iteration values) is no invariant (the reference takes it, and its split
point then uses a value outside its scope); and where the reference's arithmetic could wrap
(``bound + 1`` at the type's maximum, ``split - lower`` or the rounded split point past the
type's range) it is not used.  The reference's ops are emitted when the step is the
constant 1 and no ``+ 1`` is needed or the invariant is a constant below the maximum, or
when the invariant, lower bound and step are constants on which its arithmetic is exact
(every case of NVIDIA's test).  Otherwise the split point is computed so that nothing
wraps: ``bound + 1`` saturates (``maxi(bound + 1, bound)``); with a step other than 1 it is
clamped into [lower, upper] to end the first loop, and the second starts at the first
iteration at or past it, ``clamped + mini((step - (clamped - lower) % step) % step,
upper - clamped)`` (differences of ordered values read unsigned, so exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...attributes import DenseElementsAttr, IntegerAttr
from ...enums import ComparisonPredicate, RoundingMode, Signedness
from ...ir import Builder, Operation, Region, Value
from ...types import IntegerType
from ..canonical.common import CT, constant_attr, defining
from ..registry import PassOption, register
from ..rewriter import Rewriter

#: The discardable attribute that overrides the threshold on an op (function, for or if).
HINT = "cuda_tile.loop_split"
#: Ops that make a branch worth splitting for whatever its size (as the reference lists).
HEAVY_OPS = frozenset(CT + name for name in (
    "load_ptr_tko", "load_view_tko", "store_ptr_tko", "store_view_tko", "mmaf", "mmai",
    "reduce", "if", "for"))

LT, LE = ComparisonPredicate.LESS_THAN, ComparisonPredicate.LESS_THAN_OR_EQUAL
GT, GE = ComparisonPredicate.GREATER_THAN, ComparisonPredicate.GREATER_THAN_OR_EQUAL
#: The predicate with its operands swapped.
_SWAPPED = {LT: GT, LE: GE, GT: LT, GE: LE}


# ---- IR helpers ---------------------------------------------------------------------------


def _scalar_type(value: Value) -> IntegerType:
    """The element type of a rank-0 integer tile value."""
    return value.type.element_type  # type: ignore[attr-defined,no-any-return]


def constant_int(value: Value, unsigned: bool) -> int | None:
    """The integer a rank-0 ``constant`` gives `value`, read signed or unsigned; None when
    `value` is not one."""
    attr = constant_attr(value)
    if attr is None or len(attr.values) != 1 or not isinstance(attr.element_type, IntegerType):
        return None
    width = attr.element_type.width
    bits = int(attr.values[0]) & ((1 << width) - 1)
    if not unsigned and bits >> (width - 1):
        bits -= 1 << width
    return bits


def _bounds(width: int, unsigned: bool) -> tuple[int, int]:
    """The smallest and largest integer of `width` bits read with that signedness."""
    if unsigned:
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _hint(op: Operation | None) -> int | None:
    """The ``cuda_tile.loop_split`` threshold `op` carries, if any."""
    attr = op.discardable.get(HINT) if op is not None else None
    return int(attr.value) if isinstance(attr, IntegerAttr) else None


# ---- deciding ------------------------------------------------------------------------------


@dataclass
class Split:
    """A split the pass decided on: the ``cmpi``, the normalized predicate (induction
    variable on the left), the invariant it compares with, the ``if``s to replace by one
    branch, and whether the ``cmpi`` has other users (then its copies become
    constants)."""

    cmp: Operation
    predicate: ComparisonPredicate
    bound: Value
    ifs: list[Operation]
    copy_cmp: bool

    @property
    def second_then(self) -> bool:
        """Whether the second loop gets the then branch (``>``, ``>=``: the condition
        holds from the split point on)."""
        return self.predicate in (GT, GE)


def _normalized(loop: Operation, cmp: Operation) -> tuple[ComparisonPredicate, Value] | None:
    """``iv <pred> rhs`` for `cmp` (swapping its sides when the induction variable is on
    the right), or None when it does not compare the induction variable or its signedness
    is not the loop's."""
    unsigned = loop.has_flag("unsignedCmp")
    if cmp.enum("signedness") != (Signedness.UNSIGNED if unsigned else Signedness.SIGNED):
        return None
    iv = loop.regions[0].block.arguments[0]
    predicate = cmp.enum("comparison_predicate")
    lhs, rhs = cmp.operands
    if lhs is iv:
        return predicate, rhs
    if rhs is iv and predicate in _SWAPPED:
        return _SWAPPED[predicate], lhs
    return None


def _branch_size(region: Region) -> tuple[int, bool]:
    """The ops of a branch (its terminator not counted) and whether one of them is
    heavy."""
    ops = [op for block in region.blocks for op in block.operations]
    return len(ops) - 1, any(op.name in HEAVY_OPS for op in ops)


def is_split_profitable(if_op: Operation, threshold: int) -> bool:
    """Whether splitting for `if_op` pays at `threshold` (the reference's measure)."""
    if threshold == 1:
        return True
    then_size, heavy = _branch_size(if_op.regions[0])
    else_size, else_heavy = _branch_size(if_op.regions[1])
    return then_size >= threshold or else_size >= threshold or heavy or else_heavy


def find_split(loop: Operation, if_op: Operation, threshold: int,
               rewriter: Rewriter) -> Split | None:
    """The split `if_op` asks of `loop` at `threshold`, or None (see the module text)."""
    if not threshold:
        return None
    cmp = defining(if_op.operands[0], "cmpi")
    if cmp is None:
        return None
    normalized = _normalized(loop, cmp)
    if normalized is None:
        return None
    predicate, bound = normalized
    # The reference only asks that no op of the body defines the bound; a block argument
    # of the loop (or of a region in it) is no invariant either.
    if loop.encloses(bound) or predicate not in _SWAPPED:
        return None
    copy_cmp, profitable, ifs = False, False, []
    for user in rewriter.users(cmp.result):
        if user.name == CT + "if":
            profitable |= is_split_profitable(user, threshold)
            if user.parent_op is loop:
                ifs.append(user)
                continue
        copy_cmp = True
    if not profitable:
        return None
    return Split(cmp, predicate, bound, ifs, copy_cmp)


# ---- rewriting ------------------------------------------------------------------------------


class _Emitter:
    """Creates the split-point arithmetic before the loop, at its location."""

    def __init__(self, rewriter: Rewriter, loop: Operation) -> None:
        self.rewriter = rewriter
        self.loop = loop
        self.type = loop.operands[0].type

    def op(self, name: str, operands: Sequence[Value], **attributes: Any) -> Value:
        """A new ``name`` op of the loop's index type before the loop: its result."""
        return self.rewriter.create(self.loop, CT + name, list(operands), [self.type],
                                    attributes).result

    def constant(self, value: int) -> Value:
        """A rank-0 constant of the loop's index type."""
        return self.op("constant", [], value=DenseElementsAttr(self.type, (value,)))


def _reference_exact(split: Split, loop: Operation, step_one: bool) -> bool:
    """Whether the reference's arithmetic gives the exact split point: nothing it computes
    wraps (decided on constant operands; a dynamic one must not matter)."""
    unsigned = loop.has_flag("unsignedCmp")
    lowest, highest = _bounds(_scalar_type(split.bound).width, unsigned)
    plus_one = split.predicate in (GT, LE)
    bound = constant_int(split.bound, unsigned)
    if step_one:
        return not plus_one or (bound is not None and bound < highest)
    lower, _, step = loop.operands[:3]
    lb, by = constant_int(lower, unsigned), constant_int(step, unsigned)
    if bound is None or lb is None or by is None or by <= 0:
        return False
    point = bound + plus_one
    diff = point - lb
    k = -(-diff // by)
    return all(lowest <= v <= highest for v in (point, diff, k * by, lb + k * by))


def _split_points(split: Split, loop: Operation, rewriter: Rewriter) -> tuple[Value, Value]:
    """Create the arithmetic before `loop`: the first loop's upper bound and the second
    loop's lower bound."""
    emit = _Emitter(rewriter, loop)
    lower, upper, step = loop.operands[:3]
    unsigned = loop.has_flag("unsignedCmp")
    sign = Signedness.UNSIGNED if unsigned else Signedness.SIGNED
    step_one = constant_int(step, unsigned) == 1
    plus_one = split.predicate in (GT, LE)
    point = split.bound
    if _reference_exact(split, loop, step_one):
        if plus_one:
            point = emit.op("addi", [point, emit.constant(1)])
        if not step_one:
            diff = emit.op("subi", [point, lower])
            k = emit.op("divi", [diff, step], signedness=sign,
                        rounding=RoundingMode.POSITIVE_INF)
            point = emit.op("addi", [lower, emit.op("muli", [k, step])])
        return (emit.op("mini", [point, upper], signedness=sign),
                emit.op("maxi", [point, lower], signedness=sign))
    if plus_one:        # bound + 1, saturating at the type's maximum (never true above it)
        point = emit.op("maxi", [emit.op("addi", [point, emit.constant(1)]), point],
                        signedness=sign)
    if step_one:
        return (emit.op("mini", [point, upper], signedness=sign),
                emit.op("maxi", [point, lower], signedness=sign))
    # The clamped point c in [lower, upper] ends the first loop; the second starts at the
    # first iteration at or past it: c + (-(c - lower) mod step), or the upper bound when
    # that lies beyond it.  Differences of ordered values are exact read unsigned.
    clamped = emit.op("maxi", [emit.op("mini", [point, upper], signedness=sign), lower],
                      signedness=sign)
    unsigned_ = Signedness.UNSIGNED
    into = emit.op("remi", [emit.op("subi", [clamped, lower]), step], signedness=unsigned_)
    gap = emit.op("remi", [emit.op("subi", [step, into]), step], signedness=unsigned_)
    room = emit.op("subi", [upper, clamped])
    start = emit.op("addi", [clamped, emit.op("mini", [gap, room], signedness=unsigned_)])
    return clamped, start


def _copy_loop(loop: Operation, split: Split, lower: Value, upper: Value,
               inits: Sequence[Value], take_then: bool) -> Operation:
    """A new ``for`` over [lower, upper) with `loop`'s step and body, each split ``if``
    replaced by the branch `take_then` names (not yet inserted)."""
    body = loop.regions[0].block
    arg_types = [a.type for a in body.arguments]
    new = Builder(None, loop.location).create(
        "for", [lower, upper, loop.operands[2], list(inits)], [r.type for r in loop.results],
        {"unsignedCmp": loop.has_flag("unsignedCmp")}, regions=[arg_types])
    new_body = new.regions[0].block
    mapping: dict[Value, Value] = dict(zip(body.arguments, new_body.arguments))
    for argument in new_body.arguments:
        argument.location = loop.location
    for op in body.operations:
        if op is split.cmp:
            if split.copy_cmp:
                flag = Builder(new_body, op.location).create(
                    "constant", [], [op.result.type],
                    {"value": DenseElementsAttr(op.result.type, (int(take_then),))})
                mapping[op.result] = flag.result
            continue
        if op not in split.ifs:
            new_body.append(op.clone(mapping))
            continue
        branch = op.regions[0 if take_then else 1]
        for nested in (branch.blocks[0].operations if branch.blocks else []):
            if nested.name == CT + "yield":
                for result, value in zip(op.results, nested.operands, strict=True):
                    mapping[result] = mapping.get(value, value)
                continue
            new_body.append(nested.clone(mapping))
            if nested.name == CT + "continue":
                return new          # (the rest of the body never runs)
    return new


def split_loop(loop: Operation, split: Split, rewriter: Rewriter) -> None:
    """Replace `loop` by the two loops `split` describes."""
    first_upper, second_lower = _split_points(split, loop, rewriter)
    lower, upper = loop.operands[:2]
    inits = loop.operands[3:]
    first = _copy_loop(loop, split, lower, first_upper, inits, not split.second_then)
    rewriter.insert_before(loop, first)
    second = _copy_loop(loop, split, second_lower, upper, first.results, split.second_then)
    rewriter.insert_before(loop, second)
    rewriter.replace_op(loop, second.results)


def threshold_for(function_hint: int | None, loop: Operation, if_op: Operation,
                  default: int) -> int:
    """The threshold for `if_op` in `loop`: its own hint, else the loop's, else the
    function's, else the pass option."""
    for hint in (_hint(if_op), _hint(loop), function_hint):
        if hint is not None:
            return hint
    return default


@register("loop-split", "function",
          "Split loops when predicate in if-condition compares iv with loop invariant",
          (PassOption("split-threshold", int, 1,
                      "Threshold to split loop only if-block contaings not less than given "
                      "number of operations"),))
def loop_split(function: Operation, options: dict[str, Any]) -> None:
    """Split each ``for`` of `function` (inner loops first) at most once."""
    rewriter = Rewriter(function)
    function_hint = _hint(function)
    loops = [op for op in function.walk(post_order=True) if op.name == CT + "for"]
    for loop in loops:
        ifs = [op for op in loop.walk(post_order=True) if op.name == CT + "if"]
        for if_op in ifs:
            threshold = threshold_for(function_hint, loop, if_op, options["split-threshold"])
            split = find_split(loop, if_op, threshold, rewriter)
            if split is not None:
                split_loop(loop, split, rewriter)
                break


__all__ = ["HEAVY_OPS", "HINT", "Split", "constant_int", "find_split",
           "is_split_profitable", "loop_split", "split_loop", "threshold_for"]
