"""Which memory ops a token chain orders before which: the static view of the reference's
`Token` (a set of the block's earlier accesses) that the race proof (`races.py`) needs to
clear two accesses of one buffer in one tile block.

A token names the ops it is ordered after.  Only ops that run at most once per tile block
(outside every loop) enter a token here: a dynamic instance of an op in a loop body is not
the op's only instance, so naming the op would claim more order than the reference sees.
Where control flow meets, a token holds only what every path to it holds: an ``if``'s
token results what both regions yield; a ``for``'s what its initial value and every
iteration's yield hold (found by intersecting to a fixed point); a ``loop``'s results
(ended by ``break``) nothing.  Smaller sets claim less order, so the proof stays sound."""

from __future__ import annotations

from typing import Any, Iterable

from ...ir import Operation
from ...types import TokenType
from ..semantics.registry import short_name

def token_order(kernel: Operation) -> dict[Operation, frozenset]:
    """For every op of `kernel` that takes a token: the once-per-block ops that token is
    ordered after."""
    order: dict[Operation, frozenset] = {}
    env: dict[Any, frozenset] = {}
    for block in (r.blocks[0] for r in kernel.regions if r.blocks):
        _block(block, env, order, in_loop=False)
    return order


#: Ops that make or merge tokens without accessing memory.
_TOKEN_MAKERS = frozenset({"make_token", "join_tokens"})


def _is_token(value: Any) -> bool:
    return isinstance(value.type, TokenType)


def _block(block: Any, env: dict[Any, frozenset], order: dict[Operation, frozenset],
           in_loop: bool) -> tuple[str, list[frozenset]]:
    """Walk `block`'s ops; its terminator's name ("" if none) and the token sets it
    passes on."""
    passed: tuple[str, list[frozenset]] = ("", [])
    for op in block:
        name = short_name(op)
        handler = _REGIONS.get(name)
        if handler is not None:
            handler(op, env, order, in_loop)
            continue
        if name in ("yield", "continue", "break"):
            passed = (name, [env.get(v, frozenset()) for v in op.operands])
            continue
        after = frozenset().union(*(env.get(v, frozenset())
                                    for v in op.operands if _is_token(v)))
        # An access (any op giving a token but make_token and join_tokens) is ordered
        # after its token operand's set, or nothing (no operand: a fresh token), and its
        # token holds it too, as the reference's `Token.with_access`.
        access = name not in _TOKEN_MAKERS and any(_is_token(r) for r in op.results)
        if access or any(_is_token(v) for v in op.operands):
            order[op] = after
        produced = after | ({op} if access and not in_loop else set())
        for result in op.results:
            if _is_token(result):
                env[result] = frozenset(produced)
    return passed


def _meet(sets: Iterable[frozenset | None]) -> frozenset:
    """What every one of `sets` holds (a missing set holds nothing)."""
    out = None
    for s in sets:
        s = s if s is not None else frozenset()
        out = s if out is None else out & s
    return out if out is not None else frozenset()


def _for(op: Operation, env: dict, order: dict, in_loop: bool) -> None:
    """A ``for``: its iteration values start as its inits and are met with each yield
    until nothing shrinks; its results meet the inits and the last yield."""
    body = op.regions[0].blocks[0]
    inits = [env.get(v, frozenset()) for v in op.operands[3:]]
    if _exits_inside(op):       # (a continue in an ``if``: values the walk does not meet)
        inits = [frozenset()] * len(inits)
    entry = list(inits)
    while True:
        for argument, value in zip(body.arguments[1:], entry):
            env[argument] = value
        end, passed = _block(body, env, order, in_loop=True)
        if end != "continue":
            passed = []
        passed = passed + [frozenset()] * (len(entry) - len(passed))
        shrunk = [e & p for e, p in zip(entry, passed)]
        if shrunk == entry:
            break
        entry = shrunk
    for result, init, last in zip(op.results, inits, passed):
        env[result] = init & last


def _exits_inside(op: Operation) -> bool:
    """Whether a ``continue`` or ``break`` of loop `op` sits inside a nested region."""
    for inner in op.walk():
        if short_name(inner) in ("continue", "break") and inner.parent_op is not op:
            at = inner.parent_op
            while at is not None and short_name(at) not in ("for", "loop"):
                at = at.parent_op
            if at is op:
                return True
    return False


def _loop(op: Operation, env: dict, order: dict, in_loop: bool) -> None:
    """A ``loop``: nothing is claimed inside it or of its results."""
    body = op.regions[0].blocks[0]
    for argument in body.arguments:
        env[argument] = frozenset()
    _block(body, env, order, in_loop=True)
    for result in op.results:
        env[result] = frozenset()


def _if(op: Operation, env: dict, order: dict, in_loop: bool) -> None:
    """An ``if``: each result holds what both regions yield for it."""
    passed = []
    for region in op.regions:
        end, values = _block(region.blocks[0], env, order, in_loop) if region.blocks \
            else ("", [])
        passed.append(values if end == "yield" else None)
    for k, result in enumerate(op.results):
        env[result] = _meet(p[k] if p is not None and k < len(p) else None
                            for p in passed) if len(passed) == 2 else frozenset()


def _opaque(op: Operation, env: dict, order: dict, in_loop: bool) -> None:
    """Ops whose regions carry no tokens (``reduce``, ``scan``): their results too."""
    for result in op.results:
        env[result] = frozenset()


_REGIONS = {"for": _for, "loop": _loop, "if": _if, "reduce": _opaque, "scan": _opaque}


__all__ = ["token_order"]
