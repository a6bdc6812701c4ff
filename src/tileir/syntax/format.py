"""MLIR's declarative assembly format: parse a format string into elements, then print and
parse ops with it.

Spacing follows MLIR's generated printers exactly (including the double space an empty
custom directive leaves, as in ``addf %a, %b  : tile<f32>``): the "emit a space" state is
threaded through the elements in order, as mlir-tblgen does when it generates a printer.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

# ---- elements --------------------------------------------------


@dataclass
class Literal:
    text: str           # "" and " " are MLIR's whitespace elements


@dataclass
class Var:
    name: str
    anchor: bool = False


@dataclass
class TypeOf:
    name: str
    anchor: bool = False


@dataclass
class Custom:
    name: str
    args: list = field(default_factory=list)
    anchor: bool = False


@dataclass
class AttrDict:
    with_keyword: bool


@dataclass
class Optional_:
    elements: list
    anchor: str


@dataclass
class OIList:
    clauses: list        # (keyword, variable name)


_TOKEN = re.compile(r"\s*(`[^`]*`|\$\w+\^?|type\(|custom<\w+>\(|oilist\(|attr-dict-with-keyword"
                    r"|attr-dict|\(|\)\??|\^|,|\|)")


#: Held while a declaration's format is parsed on first use (see `format_of`).
_FORMAT_LOCK = threading.Lock()


def format_of(opdef: Any) -> list:
    """`opdef`'s declarative format parsed, kept with the declaration (`parsed_format`).
    The first thread to ask parses it under a lock and the others then find it: the field
    is assigned once (assigning it empties `opdef.derived`, the plans other threads may
    have built meanwhile)."""
    elements = opdef.parsed_format
    if elements is None:
        with _FORMAT_LOCK:
            elements = opdef.parsed_format
            if elements is None:
                elements = opdef.parsed_format = parse_format(opdef.format or "")
    return elements


def parse_format(text: str) -> list:
    """The element list of a declarative format string."""
    tokens = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"bad assembly format near {text[pos:pos + 20]!r}")
        tokens.append(match.group(1))
        pos = match.end()
    elements, rest = _elements(tokens, 0, stop=None)
    return elements


def _elements(tokens: list[str], i: int, stop: str | None) -> tuple[list, int]:
    out: list = []
    while i < len(tokens):
        tok = tokens[i]
        if stop is not None and tok.startswith(stop):
            return out, i
        if tok.startswith("`"):
            out.append(Literal(tok[1:-1]))
            i += 1
        elif tok.startswith("$"):
            out.append(Var(tok[1:].rstrip("^"), tok.endswith("^")))
            i += 1
        elif tok == "type(":
            name = tokens[i + 1][1:]
            tokens[i + 2] == ")" and i + 3 < len(tokens) and tokens[i + 3] == "^"
            out.append(TypeOf(name.rstrip("^")))
            i += 3
        elif tok.startswith("custom<"):
            name = tok[len("custom<"):-2]
            args, i = _elements(tokens, i + 1, stop=")")
            element = Custom(name, [a for a in args if not isinstance(a, Literal)])
            i += 1
            if i < len(tokens) and tokens[i] == "^":
                element.anchor = True
                i += 1
            out.append(element)
        elif tok == "oilist(":
            clauses, i = _oilist(tokens, i + 1)
            out.append(OIList(clauses))
        elif tok == "(":
            inner, i = _elements(tokens, i + 1, stop=")")
            if tokens[i] != ")?":
                raise ValueError("only optional groups are supported")
            i += 1
            out.append(Optional_(inner, _anchor(inner)))
        elif tok in ("attr-dict", "attr-dict-with-keyword"):
            out.append(AttrDict(tok == "attr-dict-with-keyword"))
            i += 1
        elif tok in (",", "^"):
            i += 1
        else:
            raise ValueError(f"unexpected token {tok!r} in assembly format")
    return out, i


def _oilist(tokens: list[str], i: int) -> tuple[list, int]:
    clauses = []
    while tokens[i] != ")" and tokens[i] != ")?":
        if tokens[i] == "|":
            i += 1
            continue
        keyword = tokens[i][1:-1]
        var = tokens[i + 1][1:]
        clauses.append((keyword, var))
        i += 2
    return clauses, i + 1


def _anchor(elements: list) -> str:
    for element in elements:
        if isinstance(element, (Var, TypeOf)) and element.anchor:
            return element.name
        if isinstance(element, Custom) and element.anchor:
            return _custom_var(element)
    raise ValueError("optional group without an anchor")


def _custom_var(element: Custom) -> str:
    arg = element.args[0]
    return arg.name


# ---- the spacing state machine (mlir-tblgen's OpFormatGen) ------------------------------------


class Spacing:
    """Decides where MLIR's generated printer puts spaces between elements."""

    def __init__(self) -> None:
        self.should_emit_space = True
        self.last_was_punctuation = False

    def before_literal(self, value: str) -> bool:
        emit = self.should_emit_space and _space_before(value, self.last_was_punctuation)
        self.should_emit_space = len(value) != 1 or value[0] not in "<({["
        self.last_was_punctuation = value[0] != "_" and not value[0].isalpha()
        return emit

    def whitespace(self, value: str) -> bool:
        self.should_emit_space = False
        self.last_was_punctuation = not value
        return bool(value)

    def before_element(self) -> bool:
        emit = self.should_emit_space or not self.last_was_punctuation
        self.last_was_punctuation = False
        self.should_emit_space = True
        return emit

    def after_attr_dict(self) -> None:
        self.last_was_punctuation = False


def _space_before(value: str, last_was_punctuation: bool) -> bool:
    if len(value) != 1 and value != "->":
        return True
    if last_was_punctuation:
        return value[0] not in ">)}],"
    return value[0] not in "<>(){}[],"
