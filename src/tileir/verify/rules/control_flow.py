"""Verifiers of the control flow ops (`tileir.ops.control_flow`): early exits, returns,
``if`` branches and loop-carried values (CudaTile.cpp)."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import TensorViewType, TiledView, Type
from ..registry import Context, error_at, note_at, op_error, verifier
from ..text import type_list
from .core import constant_splat, function_type

IF, FOR, LOOP = "cuda_tile.if", "cuda_tile.for", "cuda_tile.loop"

#: The loops each early exit may leave, in the order the reference names them.
EXIT_TARGETS: dict[str, tuple[str, ...]] = {"break": (LOOP,), "continue": (FOR, LOOP)}


def enclosing_loop(op: Any) -> Any:
    """The loop an early exit leaves: its nearest ancestor, reached through ``if`` ops only.

    Rejects the exit (with a note at the offending ancestor) when something else is in
    between (verifyEarlyExitOp)."""
    loops = EXIT_TARGETS[op.opdef.name]
    ancestor = op.parent_op
    while ancestor is not None and ancestor.name not in loops:
        if ancestor.name != IF:
            allowed = "', '".join(loops + (IF,))
            raise op_error(op, f"can only be nested within a ancestor chain of '{allowed}' "
                               "operations",
                           [note_at(ancestor, "see unexpected ancestor operation")])
        ancestor = ancestor.parent_op
    return ancestor


def _types(values: Sequence[Any]) -> list[Type]:
    """The types of `values`."""
    return [v.type for v in values]


@verifier("break")
def check_break(op: Any, ctx: Context) -> None:
    """BreakOp::verify: inside a loop (through ifs), yielding the loop's result types."""
    loop = enclosing_loop(op)
    if loop is None:
        return
    results, given = _types(loop.results), _types(op.operands)
    if results != given:
        raise op_error(op, "operand types must correspond to the parent loop result types: "
                           f"({type_list(given)}) vs ({type_list(results)})")


@verifier("continue")
def check_continue(op: Any, ctx: Context) -> None:
    """ContinueOp::verify: a ``loop`` gets its iter_values' types, a ``for`` its results'."""
    loop = enclosing_loop(op)
    if loop is None:
        return
    given = _types(op.operands)
    if loop.name == LOOP:
        expected = _types(loop.operands)
        if expected != given:
            raise error_at(op, "`loop` is missing a valid terminator. `continue` op should "
                               "have operand types that match the parent loop iter_values: "
                               f"({type_list(expected)}), but found: ({type_list(given)})")
        return
    expected = _types(loop.results)
    if expected != given:
        raise error_at(op, "`for` is missing a valid terminator. `continue` op should have "
                           "operand types that match the parent loop return types: "
                           f"({type_list(expected)}), but found: ({type_list(given)})")


#: The function-like ops a ``return`` may end (the testing one is built for the suite).
FUNCTIONS = ("cuda_tile.entry", "cuda_tile.testing$func")


@verifier("return")
def check_return(op: Any, ctx: Context) -> None:
    """ReturnOp::verify: the operands match the enclosing function's results (reached
    through ``if`` ops and, since 13.4, ``loop`` ops)."""
    parent = op.parent_op
    while parent is not None and parent.name in (IF, LOOP):  # loop: 13.4
        parent = parent.parent_op
    if parent is None or parent.name not in FUNCTIONS:
        raise op_error(op, "must be used within a cuda_tile.testing$func, cuda_tile.entry, or "
                           "cuda_tile.if operation")
    signature = function_type(parent)
    results = list(signature.results) if signature is not None else []
    name = parent.symbol
    if len(op.operands) != len(results):
        raise op_error(op, f"has {len(op.operands)} operands, but enclosing function (@{name})"
                           f" returns {len(results)}")
    if parent.name == "cuda_tile.entry":
        if op.operands:
            raise op_error(op, f"has {len(op.operands)} operands, but entry function must "
                               "return 0 operands")
        return
    for index, (value, expected) in enumerate(zip(op.operands, results)):
        if value.type != expected:
            raise error_at(op, f"type of return operand {index} ('{value.type}') doesn't "
                               f"match function result type ('{expected}') in function "
                               f"@{name}")


def view_kind(t: Type) -> str | None:
    """'a tensor_view' or 'a tile view' for the types that may not flow through control
    flow, else None."""
    if isinstance(t, TensorViewType):
        return "a tensor_view"
    if isinstance(t, TiledView):
        return "a tile view"
    return None


def _branch_yields(op: Any, region: Any, branch: str, results: list[Type]) -> None:
    """checkRegionYieldTypes: the branch's ``yield`` gives the if's result types."""
    terminator = region.blocks[0].operations[-1] if region.blocks[0].operations else None
    if terminator is None or terminator.name != "cuda_tile.yield":
        return
    yielded = _types(terminator.operands)
    if results and not yielded:
        raise op_error(op, f"has return type of {type_list(results)} but {branch} branch does "
                           "not yield anything")
    if not results and yielded:
        raise op_error(op, f"does not return a value, but {branch} branch yields "
                           f"{type_list(yielded)}")
    if yielded != results:
        raise op_error(op, f"type does not match yield type, {branch} branch yields "
                           f"{type_list(yielded)} but op result type is {type_list(results)}")


@verifier("if")
def check_if(op: Any, ctx: Context) -> None:
    """IfOp::verify: no view results; each branch yields the result types; an else branch
    when there are results."""
    if not op.regions:
        raise op_error(op, "must define then branch")
    results = _types(op.results)
    for index, t in enumerate(results):
        kind = view_kind(t)
        if kind is not None:
            raise op_error(op, f"result type {index} is {kind}, which is not supported")
    then_region, else_region = op.regions[0], op.regions[1]
    if not then_region.blocks:
        raise op_error(op, "must define then branch")
    _branch_yields(op, then_region, "then", results)
    if not else_region.blocks:
        if results:
            raise op_error(op, "has non-empty return type, must define else branch")
        return
    _branch_yields(op, else_region, "else", results)


def check_iter_values(op: Any, iter_args: Sequence[Any]) -> None:
    """verifyLoopIterValues: inits and block arguments agree; no views carried or returned."""
    inits = op.operand_group("initValues")
    if len(iter_args) != len(inits):
        raise op_error(op, "mismatch in number of region iterator values and loop iterator "
                           f"inits: {len(iter_args)} vs {len(inits)}")
    for index, (init, arg) in enumerate(zip(inits, iter_args)):
        kind = view_kind(arg.type)
        if kind is not None:
            raise op_error(op, f"loop-carried value {index} is {kind}, which is not supported")
        if init.type != arg.type:
            raise op_error(op, f"init value {index} and region iter_value {index} have "
                               f"different type: '{init.type}' != '{arg.type}'")
    for index, result in enumerate(op.results):
        kind = view_kind(result.type)
        if kind is not None:
            raise op_error(op, f"result type {index} is {kind}, which is not supported")


@verifier("for", stage="regions")
def check_for(op: Any, ctx: Context) -> None:
    """ForOp::verifyRegions: the induction variable has the bounds' type; iter values."""
    arguments = op.regions[0].blocks[0].arguments
    if not arguments:
        raise op_error(op, "expected at least one block argument for induction variable")
    induction, lower = arguments[0].type, op.operands[0].type
    if induction != lower:
        raise op_error(op, "expected induction variable to be same type as bounds and step: "
                           f"'{induction}' vs '{lower}'")
    check_iter_values(op, arguments[1:])
    step = constant_splat(op.operands[2]) if ctx.options.spec_warnings else None
    if step is not None and step <= 0:
        ctx.warn(op, f"step {step} is not positive: the loop fails when it runs (the "
                     "spec's step must be positive)")


@verifier("loop", stage="regions")
def check_loop(op: Any, ctx: Context) -> None:
    """LoopOp::verifyRegions: iter values."""
    check_iter_values(op, op.regions[0].blocks[0].arguments)
