"""MLIR's textual pass pipelines, as cuda-tile-opt reads them, and running one.

``builtin.module(cuda_tile.module(cuda_tile.entry(loop-split{split-threshold=2}), cse))``
is a tree: an op name with a parenthesized list runs that list on each op of that name
directly nested in the op the enclosing list runs on; a bare name is a pass, with its
options in braces (``{name=value name2=value}``); the elements of a list are separated by
commas.  A pipeline may also be a plain list (``canonicalize,cse``): it then runs on the op
it is given.

After each pass the op it ran on is verified (MLIR's ``-verify-each``, on by default), so a
pass that breaks the IR is caught: the verifier's diagnostics, as MLIR prints them, come
back as an `InvalidAfterPass` (a `PassFailure`) whose `pass_name` names the pass.
`Checks.after_pass` lets a caller check more (the semantics check runs the kernel before
and after).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..diagnostics import Diagnostic, VerificationError
from ..ir import Operation
from .registry import PassDef, PassFailure, failure, load_passes


@dataclass(frozen=True)
class PassStep:
    """One pass of a pipeline, with its options (parsed and typed)."""

    pass_def: PassDef
    #: (Compared, so that two steps differing only in their options are not equal; not
    #: hashed, a dict being unhashable.)
    options: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Nest:
    """Run `steps` on each op named `op_name` directly nested in the op being run on
    (or, at the top, on that op itself when it has that name)."""

    op_name: str
    steps: tuple[Any, ...]


class PipelineError(PassFailure):
    """A pipeline text that does not parse, or names an unknown pass or option."""


class InvalidAfterPass(PassFailure):
    """The verifier rejected the IR a pass left (`pass_name`): its diagnostics."""

    def __init__(self, pass_name: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        super().__init__(diagnostics)
        self.pass_name = pass_name


def _fail(message: str) -> PipelineError:
    return failure(message, kind=PipelineError)  # type: ignore[return-value]


_NAME = re.compile(r"[A-Za-z_][\w.$-]*")


def parse_pipeline(text: str) -> list[Any]:
    """The steps (`PassStep` and `Nest`) of a pipeline's text."""
    passes = load_passes()
    steps, end = _parse_list(text, 0, passes)
    if end != len(text):
        raise _fail(f"invalid pass pipeline '{text}': unexpected '{text[end:]}'")
    return steps


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _parse_list(text: str, at: int, passes: dict[str, PassDef]) -> tuple[list[Any], int]:
    """Comma-separated elements from `at`, up to a ``)`` or the end."""
    steps: list[Any] = []
    at = _skip(text, at)
    while at < len(text) and text[at] != ")":
        match = _NAME.match(text, at)
        if match is None:
            raise _fail(f"invalid pass pipeline '{text}': expected a pass or op name at "
                        f"'{text[at:]}'")
        name, at = match.group(), _skip(text, match.end())
        if at < len(text) and text[at] == "(":
            inner, at = _parse_list(text, at + 1, passes)
            if at >= len(text) or text[at] != ")":
                raise _fail(f"invalid pass pipeline '{text}': missing ')'")
            steps.append(Nest(name, tuple(inner)))
            at += 1
        else:
            options = ""
            if at < len(text) and text[at] == "{":
                close = text.find("}", at)
                if close < 0:
                    raise _fail(f"invalid pass pipeline '{text}': missing '}}'")
                options, at = text[at + 1:close], close + 1
            if name not in passes:
                raise _fail(f"'{name}' does not refer to a registered pass or pass pipeline")
            steps.append(PassStep(passes[name], parse_options(passes[name], options)))
        at = _skip(text, at)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
            if at >= len(text) or text[at] == ")":
                raise _fail(f"invalid pass pipeline '{text}': expected a pass or op name "
                            f"after ','")
        elif at < len(text) and text[at] != ")":
            raise _fail(f"invalid pass pipeline '{text}': expected ',' or ')' at "
                        f"'{text[at:]}'")
    return steps, at


_BOOLS = {"true": True, "1": True, "false": False, "0": False}
#: What a value that does not parse as its option's type reads as.
_INVALID = object()


#: One ``name=value`` item of a pass's options (the value may be quoted).
_OPTION = re.compile(r"""([^\s="']+)(?:(=)("[^"]*"|'[^']*'|[^\s"']*))?(?=\s|$)""")


def parse_options(pass_def: PassDef, text: str) -> dict[str, Any]:
    """A pass's options from ``name=value`` items separated by spaces (values may be
    quoted; a bool option alone means true); every declared option not given takes its
    default.  Text that is no such item, an undeclared name, or a value not of the
    option's type (or not among its `choices`) is an error."""
    declared = {o.name: o for o in pass_def.options}
    values = {o.name: o.default for o in pass_def.options}
    at = _skip(text, 0)
    while at < len(text):
        match = _OPTION.match(text, at)
        if match is None:
            raise _fail(f"invalid options of pass '{pass_def.name}': expected "
                        f"'name=value' at '{text[at:]}'")
        name, eq, value = match.group(1), match.group(2), match.group(3) or ""
        at = _skip(text, match.end())
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        option = declared.get(name)
        if option is None:
            raise _fail(f"'{pass_def.name}' pass has no option '{name}'")
        try:
            if option.type is bool:
                parsed = True if not eq else _BOOLS[value.lower()]
            else:
                parsed = option.type(value)
        except (KeyError, ValueError):
            parsed = _INVALID
        if parsed is _INVALID or (option.choices and parsed not in option.choices):
            raise _fail(f"invalid value '{value}' for option '{name}' of pass "
                        f"'{pass_def.name}'")
        values[name] = parsed
    return values


@dataclass
class Checks:
    """What runs after each pass: the verifier (`verify_each`) and `after_pass`, called
    with (the pass, the op it ran on) (the semantics check)."""

    verify_each: bool = True
    after_pass: Callable[[PassDef, Operation], None] | None = None
    before_pass: Callable[[PassDef, Operation], None] | None = None


def run_steps(op: Operation, steps: list[Any] | tuple[Any, ...], checks: Checks) -> None:
    """Run `steps` on `op` (see the module docstring)."""
    for step in steps:
        if isinstance(step, Nest):
            for child in _nested(op, step.op_name):
                run_steps(child, step.steps, checks)
            continue
        pass_def = step.pass_def
        if not pass_def.accepts(op.name):
            raise failure(f"can't run '{pass_def.name}' pass on '{op.name}' op")
        if checks.before_pass is not None:
            checks.before_pass(pass_def, op)
        pass_def.run(op, dict(step.options))
        if checks.verify_each:
            verify_after(pass_def, op)
        if checks.after_pass is not None:
            checks.after_pass(pass_def, op)


def verify_after(pass_def: PassDef, op: Operation) -> None:
    """Verify `op` after `pass_def` ran on it: `InvalidAfterPass` with the verifier's
    diagnostics when it is invalid."""
    try:
        op.verify()
    except VerificationError as exc:
        raise InvalidAfterPass(pass_def.name, exc.diagnostics) from None


def _nested(op: Operation, name: str) -> list[Operation]:
    """The ops named `name` directly inside `op`'s regions (a snapshot: a pass may add or
    remove ops)."""
    return [child for region in op.regions for block in region.blocks
            for child in block.operations if child.name == name]


def run_pipeline(op: Operation, pipeline: str | list[Any], checks: Checks | None = None
                 ) -> None:
    """Parse `pipeline` (when text) and run it on `op`: a pipeline anchored on an op name
    (``builtin.module(...)``) must name `op`'s own."""
    steps = parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
    checks = checks if checks is not None else Checks()
    if len(steps) == 1 and isinstance(steps[0], Nest):
        if steps[0].op_name != op.name:
            raise failure(f"can't run a pipeline anchored on '{steps[0].op_name}' on "
                          f"'{op.name}' op")
        steps = list(steps[0].steps)
    run_steps(op, steps, checks)


__all__ = ["Checks", "InvalidAfterPass", "Nest", "PassStep", "PipelineError", "parse_options",
           "parse_pipeline", "run_pipeline", "run_steps", "verify_after"]
