"""The verifier's walk: MLIR's order of checks over an op tree, driven by the op
declarations.

For each op, as MLIR's OperationVerifier does: the count traits (regions, results,
operands), the structural traits, the generated invariants (attribute constraints, operand
and result type constraints, ODS predicate traits, region constraints), then the native
traits, then the op's own ``verify``; then its regions, block by block;
then its region verifiers.  The first failure inside an isolated-from-above op (a module,
a function) stops that op; sibling functions are still verified, as MLIR verifies them
independently.  Dominance is checked for each isolated op that verified.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..attributes import DenseArrayAttr
from ..diagnostics import Diagnostic
from ..recursion import deep_recursion
from ..ir import Block, BlockArgument, OpResult, Operation
from ..ops.base import OPTIONAL, SINGLE, VARIADIC
from ..types import I32
from ..versions import newest_release
from . import rules  # noqa: F401  (registers every op's checks)
from . import traits
from .attr_kinds import constraint_of
from .registry import CHECKS, Context, Failure, Options, error_at, note_at, op_error


class _Failed(Exception):
    """An isolated child failed; its diagnostics are already recorded."""


def verify(root: Operation, options: Options | None = None) -> list[Diagnostic]:
    """Every diagnostic (errors, warnings and their notes) verifying `root` produces."""
    ctx = Context(options or Options())
    with deep_recursion():
        _verify_isolated(root, ctx)
    return ctx.diagnostics


def _verify_isolated(op: Operation, ctx: Context) -> bool:
    """Verify an isolated-from-above op on its own (MLIR verifies these independently):
    its first failure is recorded and stops it; the result says whether it verified."""
    try:
        _verify_op(op, ctx)
        _check_dominance(op)
    except Failure as failure:
        ctx.diagnostics.append(failure.diagnostic)
        return False
    except _Failed:
        return False
    return True


def _is_isolated(op: Operation) -> bool:
    """Whether `op` has regions that see nothing from outside (module, entry, function)."""
    return bool(op.regions) and op.opdef is not None and "IsolatedFromAbove" in op.opdef.traits


def _verify_op(op: Operation, ctx: Context) -> None:
    """Verify `op`, then the ops of its regions, then its region checks (raises `Failure`
    at the first problem, `_Failed` when a nested isolated op failed)."""
    _check_value_types(op)
    _invariants(op, ctx)
    if op.regions:
        isolated: list[Operation] = []
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    if _is_isolated(child):
                        isolated.append(child)
                    else:
                        _verify_op(child, ctx)
                _check_terminator(op, block)
        failed = False
        for child in isolated:
            failed |= not _verify_isolated(child, ctx)
        if failed:
            raise _Failed()
    opdef = op.opdef
    if opdef is not None:
        steps = opdef.derived.get("verify regions")
        if steps is None:
            steps = opdef.derived["verify regions"] = _trait_steps(traits.REGION, opdef)
        for step, argument in steps:
            step(op, argument)
        for check in CHECKS["regions"].get(opdef.name, ()):
            check(op, ctx)


def _check_value_types(op: Operation) -> None:
    """Every type `op` defines (results, its blocks' arguments) obeys the type rules the
    parser and bytecode reader apply as they read a type: an op built through the API can
    hold a type text could never spell (an odd number of f4E2M1FN elements, say)."""
    values: list[Any] = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            values.extend(block.arguments)
    for value in values:
        try:
            message = _type_error(value.type)
        except TypeError:           # (an unhashable type: not remembered)
            message = _type_error.__wrapped__(value.type)
        if message is not None:
            what = (f"result #{value.index}" if isinstance(value, OpResult)
                    else f"block argument #{value.index}")
            raise op_error(op, f"{what} has an invalid type {value.type}: {message}")


@functools.lru_cache(maxsize=4096)
def _type_error(t: Any) -> str | None:
    """The first rule type `t` breaks, remembered per type (types are immutable)."""
    first = getattr(t, "first_error", None)
    return first() if first is not None else None


# ---- per-op invariants --------------------------------------------------


def _invariants(op: Operation, ctx: Context) -> None:
    """MLIR's per-op verification on entrance: the count traits, the structural traits,
    the generated invariants (attributes, operand and result types, predicate traits,
    region constraints), the native traits, then the op's own verifier."""
    opdef = op.opdef
    if opdef is None:
        return
    plan = opdef.derived.get("verify")
    if plan is None:
        plan = opdef.derived["verify"] = _invariant_plan(opdef)
    for step, argument in plan:
        step(op, argument)
    for check in CHECKS["verify"].get(opdef.name, ()):
        check(op, ctx)


Step = tuple[Callable[[Operation, Any], None], Any]


def _invariant_plan(opdef: Any) -> tuple[Step, ...]:
    """The checks `_invariants` runs for ops of `opdef`, in MLIR's order, decided once per
    declaration: which traits apply, which attributes have constraints, and whether the
    operands and results can be checked one value per declaration (no optional or
    variadic group) without splitting them into groups."""
    shape = opdef.shape
    fixed = not shape.operand_variable and not shape.result_variable
    counts = (len(opdef.region_names), len(opdef.results), len(opdef.operands))
    steps: list[Step] = [(_fixed_counts_step, counts) if fixed else (_counts_step, None)]
    steps += _trait_steps(traits.STRUCTURAL, opdef)
    if opdef.needs_segments:
        steps.append((_segments_step, None))
    constrained = tuple((decl.name, constraint) for decl in opdef.attrs
                        if (constraint := constraint_of(decl)) is not None)
    if shape.required_attrs or constrained:
        steps.append((_check_attributes, (shape.required_attrs, constrained)))
    for what, declared, variable, split in (
            ("operand", opdef.operands, shape.operand_variable, opdef.split_operands),
            ("result", opdef.results, shape.result_variable, opdef.split_results)):
        if not declared:
            continue
        if variable:
            steps.append((_grouped_values_step, (what, declared, split)))
        else:
            # (the predicate itself: `TypeConstraint.accepts` only calls it)
            checks = tuple((decl.constraint.predicate, decl.constraint)
                           for decl in declared)
            steps.append((_single_values_step, (what, checks)))
    steps += _trait_steps(traits.PREDICATES, opdef)
    if any(constraint is not None for constraint in opdef.region_constraints):
        steps.append((_regions_step, None))
    steps += _trait_steps(traits.NATIVE, opdef)
    return tuple(steps)


def _trait_steps(table: dict[str, traits.Check], opdef: Any) -> list[Step]:
    """The checks of `opdef`'s traits (declared order) that `table` knows, each with its
    argument (specialised to the declaration where the check can be: see
    `traits.compiled`)."""
    return [traits.compiled(table, name, args, opdef)
            for name, args in opdef.trait_list if name in table]


def _counts_step(op: Operation, _: None) -> None:
    """`_check_counts` as a plan step."""
    _check_counts(op)


def _fixed_counts_step(op: Operation, counts: tuple[int, int, int]) -> None:
    """`_check_counts` for a declaration without optional or variadic groups: nothing to
    report when the op has the declared numbers of regions, results and operands."""
    regions, results, operands = counts
    if len(op.regions) != regions or len(op.results) != results or \
            len(op.operands) != operands:
        _check_counts(op)


def _segments_step(op: Operation, _: None) -> None:
    """`_check_segments` as a plan step."""
    _check_segments(op)


def _regions_step(op: Operation, _: None) -> None:
    """`_check_regions` as a plan step."""
    _check_regions(op)


def _grouped_values_step(op: Operation, argument: tuple) -> None:
    """`_check_values` over the declared groups (optional or variadic ones among them)."""
    what, declared, split = argument
    _check_values(op, what, declared, split(op))


def _single_values_step(op: Operation, argument: tuple) -> None:
    """`_check_values` when every group is single: the counts were checked first, so value
    i belongs to declaration i, and no group can be empty or oversized.  `argument` holds
    each declaration's constraint test and constraint."""
    what, checks = argument
    values = op.operands if what == "operand" else op.results
    for index, ((accepts, constraint), value) in enumerate(zip(checks, values)):
        if not accepts(value.type):
            summary = constraint.summary_at(newest_release())
            raise op_error(op, f"{what} #{index} must be {summary}, but got "
                               f"'{value.type.format()}'")


#: MLIR's messages for a fixed count of 0 and 1 (ZeroOperands, OneOperand, OneResult ...).
_FIXED_COUNT_MESSAGES: dict[tuple[str, int], str] = {
    ("operand", 0): "requires zero operands", ("operand", 1): "requires a single operand",
    ("result", 0): "requires zero results", ("result", 1): "requires one result",
    ("region", 0): "requires zero regions", ("region", 1): "requires one region",
}


def _count_message(what: str, fixed: int, variable: bool, found: int) -> str | None:
    """MLIR's NOperands / AtLeastNOperands / OneResult ... messages; None when fine."""
    if variable:
        if found < fixed:
            return f"expected {fixed} or more {what}s, but found {found}"
        return None
    if found == fixed:
        return None
    if what == "region":  # NRegions<n> says no more
        return _FIXED_COUNT_MESSAGES.get((what, fixed), f"expected {fixed} regions")
    return _FIXED_COUNT_MESSAGES.get((what, fixed), f"expected {fixed} {what}s, but found {found}")


def _check_counts(op: Operation) -> None:
    """The count traits ODS adds first, in its order: regions, results, operands (the
    plan calls it for fixed counts only where one differs: `_fixed_counts_step`)."""
    opdef = op.opdef
    shape = opdef.shape
    results = len(opdef.results) - len(shape.result_variable)
    operands = len(opdef.operands) - len(shape.operand_variable)
    counts = (("region", opdef.regions, False, len(op.regions)),
              ("result", results, bool(shape.result_variable), len(op.results)),
              ("operand", operands, bool(shape.operand_variable), len(op.operands)))
    for what, fixed, variable, found in counts:
        message = _count_message(what, fixed, variable, found)
        if message is not None:
            raise op_error(op, message)


def _check_segments(op: Operation) -> None:
    """AttrSizedOperandSegments' attribute, checked first in the generated invariants."""
    opdef = op.opdef
    if opdef.needs_segments:
        sizes = op.attributes.get("operandSegmentSizes")
        if sizes is None:
            raise op_error(op, "requires attribute 'operandSegmentSizes'")
        if not (isinstance(sizes, DenseArrayAttr) and
                (sizes.element_type is I32 or sizes.element_type == I32)):
            raise op_error(op, "requires dense i32 array attribute 'operandSegmentSizes'")
        values = sizes.values
        if len(values) != len(opdef.operands):
            raise op_error(op, f"'operandSegmentSizes' attribute for specifying operand "
                               f"segments must have {len(opdef.operands)} elements, but got "
                               f"{len(values)}")
        if any(size < 0 for size in values):
            raise op_error(op, "'operandSegmentSizes' attribute cannot have negative elements")
        if sum(values) != len(op.operands):
            raise op_error(op, f"operand count ({len(op.operands)}) does not match with the "
                               f"total size ({sum(values)}) specified in attribute "
                               f"'operandSegmentSizes'")


def _check_attributes(op: Operation, argument: tuple) -> None:
    """Required attributes are present, then each present one meets its ODS constraint;
    `argument` holds the required names and each constrained attribute's name and
    constraint, in declared order."""
    required, constrained = argument
    attributes = op.attributes
    for name in required:
        if name not in attributes:
            raise op_error(op, f"requires attribute '{name}'")
    for name, constraint in constrained:
        value = attributes.get(name)
        if value is not None and not constraint.predicate(value):  # (what `accepts` does)
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: "
                               f"{constraint.summary}")


def _check_values(op: Operation, what: str, declared: tuple[Any, ...],
                  groups: list[list[Any]]) -> None:
    """Each operand (result) meets its declared type constraint.  A segment size of 0 for a
    single operand, which the reference does not check (its verifiers then read a missing
    operand), is reported in the words of the optional-group check."""
    index = 0
    for decl, group in zip(declared, groups):
        if decl.arity == OPTIONAL and len(group) > 1:
            raise op_error(op, f"{what} group starting at #{index} requires 0 or 1 element, "
                               f"but found {len(group)}")
        if decl.arity == SINGLE and not group:
            raise op_error(op, f"{what} group starting at #{index} requires 1 element, but "
                               "found 0")
        for value in group:
            if not decl.constraint.accepts(value.type):
                summary = decl.constraint.summary_at(newest_release())
                if decl.arity == VARIADIC:
                    summary = f"variadic of {summary}"
                raise op_error(op, f"{what} #{index} must be {summary}, but got "
                                   f"'{value.type.format()}'")
            index += 1


def _check_regions(op: Operation) -> None:
    """Each region meets its ODS constraint (``SizedRegion<1>``: one block).  As ODS's
    generated code does, the index counts the constrained regions only."""
    index = 0
    for position, (name, constraint) in enumerate(zip(op.opdef.region_names,
                                                      op.opdef.region_constraints)):
        if constraint is None or position >= len(op.regions):
            continue
        if not constraint.accepts(op.regions[position]):
            raise op_error(op, f"region #{index} ('{name}') failed to verify constraint: "
                               f"{constraint.summary}")
        index += 1


# ---- blocks --------------------------------------------------


def _check_terminator(op: Operation, block: Block) -> None:
    """A block of a region that needs a terminator ends with one (MLIR's block exit)."""
    opdef = op.opdef
    if opdef is None or "NoTerminator" in opdef.traits:
        return
    if not block.operations:  # (SingleBlock ops reported an empty block on entrance)
        raise error_at(op, "empty block: expect at least a terminator")
    last = block.operations[-1]
    if last.opdef is not None and "Terminator" not in last.opdef.traits:
        raise error_at(last, f"block with no terminator, has '{last.name}' op")


# ---- dominance --------------------------------------------------


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    """The op of `block` that is or contains `op`, if any."""
    current: Operation | None = op
    while current is not None and current.parent is not block:
        current = current.parent_op
    return current


def _region_relation(use: Block, definition: Block) -> str:
    """How the defining block's region relates to the using block's (MLIR's note words)."""
    use_region, def_region = use.parent, definition.parent
    if use_region is def_region:
        return "same region"
    if _region_contains(def_region, use_region):
        return "parent region"
    if _region_contains(use_region, def_region):
        return "child region"
    return "neither"


def _region_contains(outer: Any, inner: Any) -> bool:
    """Whether `inner` is nested (properly) somewhere inside `outer`."""
    op = inner.parent if inner is not None else None
    while op is not None:
        block = op.parent
        region = block.parent if block is not None else None
        if region is outer:
            return True
        op = region.parent if region is not None else None
    return False


#: MLIR's words for where an operand is defined, by region relation.
_DEFINED_BY_OP = {"same region": "op in the same region", "parent region": "op in a parent region",
                  "child region": "op in a child region",
                  "neither": "op is neither in a parent nor in a child region"}
_DEFINED_AS_ARGUMENT = {"same region": "in the same region", "parent region": "in a parent region",
                        "child region": "in a child region",
                        "neither": "neither in a parent nor in a child region"}


def _dominance_error(op: Operation, index: int) -> Failure:
    """MLIR's diagnoseInvalidOperandDominance: where the operand is defined, relative to
    the use."""
    value = op.operands[index]
    message = f"operand #{index} does not dominate this use"
    if isinstance(value, OpResult):
        definition = value.owner.parent
        where = "op in the same block" if definition is op.parent else \
            _DEFINED_BY_OP[_region_relation(op.parent, definition)]
        return error_at(op, message, [note_at(value.owner, f"operand defined here ({where})")])
    owner = value.owner
    index_in_region = owner.parent.blocks.index(owner) if owner.parent is not None else 0
    where = _DEFINED_AS_ARGUMENT[_region_relation(op.parent, owner)]
    return error_at(op, message, [note_at(owner.parent_op, f"operand defined as a block "
                                                           f"argument (block #{index_in_region}"
                                                           f" {where})")])


def _check_dominance(root: Operation) -> None:
    """Every operand is defined before its use, in its block or an enclosing one (MLIR's
    verifyDominanceOfContainedRegions: only blocks reachable from their region's entry are
    checked; nested isolated ops are checked on their own)."""
    positions: dict[int, dict[int, int]] = {}

    def table_of(block: Block) -> dict[int, int]:
        """Each op's index in `block`, by the op's id (built once per block)."""
        table = positions.get(id(block))
        if table is None:
            table = positions[id(block)] = {id(o): i for i, o in enumerate(block.operations)}
        return table

    def dominates(value: Any, op: Operation) -> bool:
        """Whether `value` is available at `op`."""
        if isinstance(value, BlockArgument):
            return _ancestor_in(op, value.owner) is not None
        owner, block = value.owner, value.owner.parent
        if block is None:
            return True
        user = _ancestor_in(op, block)
        if user is None or user is owner:
            return False
        table = table_of(block)
        return table[id(user)] > table[id(owner)]

    def walk(parent: Operation) -> None:
        """Check the ops of `parent`'s regions, recursing into non-isolated ops.  A value
        defined by an op of the same block (the common case) is available when its owner
        comes earlier in the block: `dominates`, without climbing the ancestors."""
        for region in parent.regions:
            for number, block in enumerate(region.blocks):
                table = table_of(block) if number == 0 else None
                for op in block.operations:
                    if table is not None:  # blocks after the entry are unreachable
                        for index, value in enumerate(op.operands):
                            if isinstance(value, OpResult) and value.owner.parent is block:
                                if table[id(value.owner)] < table[id(op)]:
                                    continue
                                raise _dominance_error(op, index)
                            if not dominates(value, op):
                                raise _dominance_error(op, index)
                    if op.regions and not _is_isolated(op):
                        walk(op)

    walk(root)
