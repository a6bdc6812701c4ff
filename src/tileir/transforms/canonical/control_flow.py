"""The fold and canonicalization patterns of ``if`` (spec group "Control Flow"), as the
reference declares them (``IfOp::fold``, ``IfOp::getCanonicalizationPatterns``): MLIR's
``scf.if`` canonicalizations, extended to branches that end in ``return``, ``continue`` or
``break`` (which leave the enclosing block, so nothing after the ``if`` runs on that path).

``for`` and ``loop`` have no fold or canonicalization pattern in the reference.
"""

from __future__ import annotations

from typing import Sequence

from ...ir import Block, Operation, Region, Value
from ...types import TileType
from ..rewriter import Patterns, Rewriter, fold
from .common import (CT, build_not, build_select, constant_bool, defining, is_true,
                     parent_region)

#: The canonicalization patterns of this group's ops.
PATTERNS = Patterns()
IF = CT + "if"
YIELD = CT + "yield"
#: Terminators that leave the block holding the ``if`` (the reference's
#: ``isTerminatorForParent``).
LEAVING = frozenset({CT + "return", CT + "continue", CT + "break"})


# ---- reading an if ----------------------------------------------------------------


def then_block(op: Operation) -> Block:
    """The ``if``'s then block."""
    return op.regions[0].blocks[-1]


def else_block(op: Operation) -> Block | None:
    """The ``if``'s else block, None without an else."""
    blocks = op.regions[1].blocks
    return blocks[-1] if blocks else None


def then_terminator(op: Operation) -> Operation | None:
    """The terminator of the then block."""
    return then_block(op).terminator


def else_terminator(op: Operation) -> Operation | None:
    """The terminator of the else block, None without an else."""
    block = else_block(op)
    return block.terminator if block is not None else None


def leaves(terminator: Operation | None) -> bool:
    """Whether `terminator` leaves the block holding the ``if`` (return, continue,
    break)."""
    return terminator is not None and terminator.name in LEAVING


def is_yield(terminator: Operation | None) -> bool:
    """Whether `terminator` is a ``yield``."""
    return terminator is not None and terminator.name == YIELD


def within(op: Operation, region: Region) -> bool:
    """Whether `op` is inside `region` (at any depth)."""
    block = op.parent
    while block is not None and block.parent is not None:
        if block.parent is region:
            return True
        parent = block.parent.parent
        block = parent.parent if parent is not None else None
    return False


# ---- rewriting helpers --------------------------------------------------------------


def replace_with_region(rewriter: Rewriter, op: Operation, region: Region) -> bool:
    """Replace `op` by the body of `region` (one block): its ops go before `op`; a final
    ``yield`` gives `op`'s results; a final return, continue or break makes `op` and
    everything after it in its block unreachable, and they are erased."""
    block = region.blocks[0]
    terminator = block.terminator
    rewriter.inline_block_before(block, op)
    if is_yield(terminator):
        rewriter.replace_op(op, list(terminator.operands))
        rewriter.erase_op(terminator)
        return True
    if leaves(terminator):
        rewriter.erase_from(op)
        return True
    return False


def replace_yield(rewriter: Rewriter, block: Block, values: Sequence[Value]) -> None:
    """Replace the ``yield`` ending `block` by one yielding `values`."""
    old = block.terminator
    assert old is not None
    rewriter.create(block, YIELD, [list(values)], (), location=old.location)
    rewriter.erase_op(old)


def new_if(rewriter: Rewriter, anchor: Operation, cond: Value, types: Sequence[object]
           ) -> Operation:
    """An ``if`` on `cond` with results of `types` and empty regions, before `anchor`."""
    return rewriter.create(anchor, IF, [cond], list(types), blocks=False)


# ---- the fold -------------------------------------------------------------------------


@fold(IF)
def fold_if(op: Operation, rewriter: Rewriter) -> list[Value] | None:
    """``if (xori %c, true) A else B`` becomes ``if %c B else A`` (in place)."""
    if not op.regions[1].blocks:
        return None
    xor = defining(op.operands[0], "xori")
    if xor is None or not is_true(xor.operands[1]):
        return None
    rewriter.set_operand(op, 0, xor.operands[0])
    then_region, else_region = op.regions
    then_region.blocks, else_region.blocks = else_region.blocks, then_region.blocks
    for region in op.regions:
        for block in region.blocks:
            block.parent = region
    return []


# ---- the patterns, in the reference's order ----------------------------------------------


@PATTERNS.pattern(IF)
def remove_unused_results(op: Operation, rewriter: Rewriter) -> bool:
    """An ``if`` with unused results becomes one yielding only the used ones."""
    if not op.results:
        return False
    then_end, else_end = then_terminator(op), else_terminator(op)
    if not (is_yield(then_end) or is_yield(else_end)) or else_end is None:
        return False
    used = [r for r in op.results if rewriter.has_uses(r)]
    if len(used) == len(op.results):
        return False
    replacement = new_if(rewriter, op, op.operands[0], [r.type for r in used])
    for source, dest in zip(op.regions, replacement.regions):
        block = rewriter.add_block(dest)
        rewriter.merge_blocks(source.blocks[0], block)
        terminator = block.terminator
        if is_yield(terminator):
            rewriter.set_operands(terminator, [terminator.operands[r.index] for r in used])
    rewriter.replace_op(op, [replacement.results[used.index(r)] if r in used else None
                             for r in op.results])
    return True


@PATTERNS.pattern(IF)
def replace_yield_with_value(op: Operation, rewriter: Rewriter) -> bool:
    """A result both branches yield the same outside value for is that value; one they
    yield true and false for is the condition, false and true its negation.  (Only where
    the result has the condition's type: the reference would also rewrite an i1 tile of
    rank > 0 to the rank-0 condition, which the verifier rejects.)"""
    if not op.results:
        return False
    then_end, else_end = then_terminator(op), else_terminator(op)
    if not (is_yield(then_end) and is_yield(else_end)):
        return False
    cond = op.operands[0]
    changed = False
    for if_true, if_false, result in zip(then_end.operands, else_end.operands, op.results):
        if if_true is if_false:
            if rewriter.has_uses(result):
                rewriter.replace_all_uses(result, if_true)
                changed = True
            continue
        true_value, false_value = constant_bool(if_true), constant_bool(if_false)
        if true_value is None or false_value is None or result.type != cond.type:
            continue
        if not true_value and false_value and rewriter.has_uses(result):
            rewriter.replace_all_uses(result, build_not(rewriter, op, cond))
            changed = True
        if true_value and not false_value and rewriter.has_uses(result):
            rewriter.replace_all_uses(result, cond)
            changed = True
    return changed


@PATTERNS.pattern(IF)
def remove_static_condition(op: Operation, rewriter: Rewriter) -> bool:
    """An ``if`` on a constant condition becomes the branch it takes (or nothing)."""
    taken = constant_bool(op.operands[0])
    if taken is None:
        return False
    if taken:
        return replace_with_region(rewriter, op, op.regions[0])
    if op.regions[1].blocks:
        return replace_with_region(rewriter, op, op.regions[1])
    rewriter.erase_op(op)
    return True


@PATTERNS.pattern(IF)
def convert_to_select(op: Operation, rewriter: Rewriter) -> bool:
    """Results yielded from values defined outside the ``if`` become ``select``s on the
    condition (or the value itself when both branches yield it); a branch that leaves
    the block yields nothing, so the other branch's values are taken.  The ``if`` keeps
    the results its branches compute."""
    if not op.results:
        return False
    then_end, else_end = then_terminator(op), else_terminator(op)
    if else_end is None or not (is_yield(then_end) or is_yield(else_end)):
        return False
    then_yields, else_yields = is_yield(then_end), is_yield(else_end)
    true_values = list((then_end if then_yields else else_end).operands)
    false_values = list((else_end if else_yields else then_end).operands)
    true_region = op.regions[0] if then_yields else op.regions[1]
    false_region = op.regions[1] if else_yields else op.regions[0]
    if not all(isinstance(r.type, TileType) for r in op.results):
        return False
    kept = [i for i, (t, f) in enumerate(zip(true_values, false_values))
            if parent_region(t) is true_region or parent_region(f) is false_region]
    if len(kept) == len(op.results):
        return False
    cond = op.operands[0]
    replacement = new_if(rewriter, op, cond, [op.results[i].type for i in kept])
    for source, dest in zip(op.regions, replacement.regions):
        rewriter.move_region_body(source, dest)
    results: list[Value] = []
    true_kept: list[Value] = []
    false_kept: list[Value] = []
    for i, (if_true, if_false) in enumerate(zip(true_values, false_values)):
        if i in kept:
            results.append(replacement.results[len(true_kept)])
            true_kept.append(if_true)
            false_kept.append(if_false)
        elif if_true is if_false:
            results.append(if_true)
        else:
            results.append(build_select(rewriter, replacement, cond, if_true, if_false))
    if then_yields:
        replace_yield(rewriter, then_block(replacement), true_kept)
    if else_yields:
        replace_yield(rewriter, else_block(replacement), false_kept)
    rewriter.replace_op(op, results)
    return True


@PATTERNS.pattern(IF)
def remove_empty_else_branch(op: Operation, rewriter: Rewriter) -> bool:
    """An else branch of an ``if`` without results that only yields goes."""
    if op.results:
        return False
    block = else_block(op)
    if block is None or len(block.operations) != 1 or leaves(block.terminator):
        return False
    replacement = rewriter.clone_without_regions(op)
    rewriter.move_region_body(op.regions[0], replacement.regions[0])
    rewriter.erase_op(op)
    return True


def _merge_branch(rewriter: Rewriter, first: Block, second: Block) -> None:
    """Append `second`'s ops to `first`; where both end in ``yield``, one ``yield`` of
    both value lists ends the merged block."""
    first_end, second_end = first.terminator, second.terminator
    first_yield = first_end if is_yield(first_end) else None
    second_yield = second_end if is_yield(second_end) else None
    rewriter.merge_blocks(second, first)
    if first_yield is not None and second_yield is not None:
        rewriter.create(first, YIELD, [list(first_yield.operands) +
                                       list(second_yield.operands)], (),
                        location=second_yield.location)
    if first_yield is not None:
        rewriter.erase_op(first_yield)
    if second_yield is not None:
        rewriter.erase_op(second_yield)


@PATTERNS.pattern(IF)
def combine_ifs(op: Operation, rewriter: Rewriter) -> bool:
    """Two ``if``s in a row on the same condition (or on it and its negation) become one,
    the second's branches appended to the matching branches of the first (a branch of the
    first that leaves the block drops the matching branch of the second)."""
    block = op.parent
    assert block is not None
    at = block.operations.index(op)
    if at == 0 or block.operations[at - 1].name != IF:
        return False
    prev = block.operations[at - 1]
    prev_cond, cond = prev.operands[0], op.operands[0]
    next_then: Block | None = None
    next_else: Block | None = None
    if cond is prev_cond:
        next_then, next_else = then_block(op), else_block(op)
    for negated, plain in ((cond, prev_cond), (prev_cond, cond)):
        xor = defining(negated, "xori")
        if xor is not None and is_true(xor.operands[1]) and xor.operands[0] is plain:
            next_then, next_else = else_block(op), then_block(op)
    if leaves(then_terminator(prev)):
        next_then = None
    if leaves(else_terminator(prev)):
        next_else = None
    if next_then is None and next_else is None:
        return False
    prev_then_values: list[Value] = list(prev.results)
    prev_else_values: list[Value] = list(prev.results)
    if next_then is not None and prev.regions[0].blocks:
        prev_then_values = list(then_terminator(prev).operands)
    if next_else is not None and prev.regions[1].blocks:
        prev_else_values = list(else_terminator(prev).operands)
    for result, then_value, else_value in zip(prev.results, prev_then_values,
                                              prev_else_values):
        if next_then is not None:
            rewriter.replace_uses_where(
                result, then_value, lambda user, r=next_then.parent: within(user, r))
        if next_else is not None:
            rewriter.replace_uses_where(
                result, else_value, lambda user, r=next_else.parent: within(user, r))
    combined = new_if(rewriter, op, prev_cond,
                      [r.type for r in prev.results] + [r.type for r in op.results])
    rewriter.move_region_body(prev.regions[0], combined.regions[0])
    if next_then is not None:
        _merge_branch(rewriter, then_block(combined), next_then)
    rewriter.move_region_body(prev.regions[1], combined.regions[1])
    if next_else is not None:
        if not combined.regions[1].blocks:
            rewriter.move_region_body(next_else.parent, combined.regions[1])
        else:
            _merge_branch(rewriter, else_block(combined), next_else)
    count = len(prev.results)
    rewriter.replace_op(prev, combined.results[:count])
    rewriter.replace_op(op, combined.results[count:])
    return True


@PATTERNS.pattern(IF)
def combine_nested_ifs(op: Operation, rewriter: Rewriter) -> bool:
    """``if %a { if %b { X } }`` becomes ``if (andi %a, %b) { X }``: the outer then
    branch must hold only the inner ``if``, any else branches only yield; results the
    outer ``if`` yields from outside values become ``select``s on %a."""
    body = then_block(op).operations[:-1]
    outer_else = else_block(op)
    if len(body) != 1 or (outer_else is not None and len(outer_else.operations) != 1):
        return False
    nested = body[0]
    if nested.name != IF:
        return False
    nested_else = else_block(nested)
    if nested_else is not None and len(nested_else.operations) != 1:
        return False
    if leaves(then_terminator(op)) or leaves(else_terminator(op)) or \
            leaves(else_terminator(nested)):
        return False
    if leaves(then_terminator(nested)) and (outer_else is not None or
                                            nested_else is not None):
        return False
    then_values = list(then_terminator(op).operands)
    else_values = list(else_terminator(op).operands) if outer_else is not None else []
    to_select: list[int] = []
    for i, value in enumerate(then_values):
        if getattr(value, "owner", None) is nested:
            nested_else_end = else_terminator(nested)
            if nested_else_end is None or i >= len(else_values) or \
                    nested_else_end.operands[value.index] is not else_values[i]:
                return False
            then_values[i] = then_terminator(nested).operands[value.index]
            continue
        if parent_region(value) is op.regions[0] or not isinstance(value.type, TileType):
            return False
        to_select.append(i)
    outer_cond = op.operands[0]
    both = rewriter.create(op, CT + "andi", [outer_cond, nested.operands[0]],
                           [outer_cond.type]).result
    combined = new_if(rewriter, op, both, [r.type for r in op.results])
    combined_then = rewriter.add_block(combined.regions[0])
    results: list[Value] = list(combined.results)
    for i in to_select:
        results[i] = build_select(rewriter, combined, outer_cond, then_values[i],
                                  else_values[i])
    rewriter.merge_blocks(then_block(nested), combined_then)
    if is_yield(combined_then.terminator):
        replace_yield(rewriter, combined_then, then_values)
    if else_values:
        combined_else = rewriter.add_block(combined.regions[1])
        rewriter.create(combined_else, YIELD, [else_values], (), location=op.location)
    rewriter.replace_op(op, results)
    return True


@PATTERNS.pattern(IF)
def move_terminator_to_parent(op: Operation, rewriter: Rewriter) -> bool:
    """When both branches leave the block, what follows the ``if`` never runs: the
    ``if`` keeps its then branch only and the else branch replaces the rest of the
    block."""
    if not op.regions[1].blocks:
        return False
    if not (leaves(then_terminator(op)) and leaves(else_terminator(op))):
        return False
    replacement = new_if(rewriter, op, op.operands[0], [])
    rewriter.move_region_body(op.regions[0], replacement.regions[0])
    return replace_with_region(rewriter, op, op.regions[1])


__all__ = ["LEAVING", "PATTERNS", "combine_ifs", "combine_nested_ifs", "convert_to_select",
           "fold_if", "move_terminator_to_parent", "remove_empty_else_branch",
           "remove_static_condition", "remove_unused_results", "replace_with_region",
           "replace_yield_with_value"]
