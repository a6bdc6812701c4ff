"""Text of 13.5's ``--preview=simt`` constructs: ``#cuda_tile<preview$...>`` attributes,
``!cuda_tile<preview$...>`` types, and the `preview$func`, `preview$extern_impl` and
`preview$call` ops, each printed as tileirdisasm 13.5 prints it and parsed back.

The attribute and type bodies are driven by their declarations (`tileir.preview`); a
layout's infix expressions (``(N + 2):(1)``, with ``/`` and ``/+``, which are no MLIR
tokens) are read from the raw characters.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import preview as P
from ..attributes import ArrayAttr, DictAttr, StringAttr, SymbolRefAttr, TypeAttr, \
    identifier_or_string
from ..types import FunctionType, Type
from .directives import type_text
from .lexer import (BARE_IDENTIFIER, EXCLAMATION_IDENTIFIER, HASH_IDENTIFIER, PERCENT_IDENTIFIER,
                    STRING, unescape_string)

if TYPE_CHECKING:
    from ..ir import Operation
    from .parser import OpParser, OpState
    from .printer import Printer


# ---- attributes ---------------------------------------------------------------------------


def parse_preview_attr(parser: "OpParser", offset: int) -> P.PreviewAttr:
    """The body of ``#cuda_tile<...>`` from its ``preview$`` mnemonic to the closing ``>``
    (the ``<`` after ``#cuda_tile`` is consumed)."""
    token = parser.token
    mnemonic = token.spelling[len("preview$"):] if token.kind is BARE_IDENTIFIER else ""
    definition = P.ATTR_BY_NAME.get(mnemonic) if token.spelling.startswith("preview$") \
        else None
    if definition is None:
        raise parser.error_at(token.offset, f"unknown attribute `{token.spelling}` in dialect "
                                            "`cuda_tile`")
    parser.advance()
    parser.expect_punct("<")
    if mnemonic == "layout" and parser.token.is_punct("("):
        attr = _parse_infix_layout(parser)
    else:
        values = []
        for i, param in enumerate(definition.params):
            if i:
                parser.expect_punct(",")
            if param.key is not None:
                _expect_key(parser, param.key)
                parser.expect_punct("=")
            values.append(_parse_value(parser, mnemonic, param))
        attr = P.PreviewAttr(mnemonic, tuple(values))
    parser.expect_punct(">")
    parser.expect_punct(">")
    message = P.attr_error(attr)
    if message is not None:
        raise parser.error_at(offset, message)
    return attr


def _expect_key(parser: "OpParser", key: str) -> None:
    """A parameter's key (``name``, ``smem.size``: one bare identifier)."""
    if not parser.consume_keyword(key):
        raise parser.wrong_token(f"expected '{key}'")


def _parse_value(parser: "OpParser", mnemonic: str, param: P.Param) -> Any:
    kind, at = param.kind, parser.token.offset
    if kind == "int":
        return parser.parse_integer(64)
    if kind in ("var", "builtin", "str"):
        return parser.parse_string()
    if kind == "type":
        return parser.parse_type()
    if kind == "enum":
        word = parser.parse_keyword()
        if word not in P.ENUMS[mnemonic]:
            raise parser.error_at(at, f"invalid {mnemonic} value '{word}'")
        return word
    if kind == "tuple":
        if param.key is not None:           # the keyword form: a whole symbolic_tuple
            value = parser.parse_attribute()
            if not isinstance(value, P.PreviewAttr) or value.mnemonic != "symbolic_tuple":
                raise parser.error_at(at, f"expected a symbolic_tuple for '{param.name}'")
            value = value["elements"]
        else:
            value = tuple(parser.parse_comma_list(parser.parse_attribute, "square"))
    else:
        value = parser.parse_attribute()
    message = P.param_error(param, value)
    if message is not None:
        raise parser.error_at(at, message)
    return value


_INFIX_TOKEN = re.compile(r'\s*(/\+|[-+*/():,]|[A-Za-z_][A-Za-z0-9_$.]*|\d+|"(?:[^"\\]|\\.)*")')


def _parse_infix_layout(parser: "OpParser") -> P.PreviewAttr:
    """``(e, (e, e)):(e, e, e)`` up to (not including) the closing ``>``, from the raw text."""
    text = parser.source.text
    start = parser.token.offset
    end = text.find(">", start)
    if end < 0:
        raise parser.error_at(start, "expected '>'")
    reader = _Infix(text[start:end], start, parser)
    shapes = reader.tuple_()
    reader.expect(":")
    strides = reader.tuple_()
    if reader.peek() is not None:
        reader.fail("expected '>'")
    parser.rewind(end)
    return P.PreviewAttr("layout", (shapes, strides))


class _Infix:
    """Recursive descent over a layout's infix text: tuples of expressions with
    ``+ -`` below ``* / /+``, unary ``-``, integers, variable names, parentheses."""

    def __init__(self, text: str, base: int, parser: "OpParser") -> None:
        self.tokens: list[tuple[str, int]] = []
        pos = 0
        while text[pos:].strip():
            match = _INFIX_TOKEN.match(text, pos)
            if match is None:
                raise parser.error_at(base + pos, "unexpected character in a layout")
            self.tokens.append((match.group(1), base + match.start(1)))
            pos = match.end()
        self.i = 0
        self.parser = parser
        self.end = base + len(text)

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def fail(self, message: str):
        at = self.tokens[self.i][1] if self.i < len(self.tokens) else self.end
        raise self.parser.error_at(at, message)

    def expect(self, token: str) -> None:
        if self.peek() != token:
            self.fail(f"expected '{token}'")
        self.i += 1

    def tuple_(self) -> tuple:
        """``(a, b)``, ``(a,)`` or ``()``."""
        return self._tuple()[0]

    def _tuple(self) -> tuple[tuple, bool]:
        """A tuple's elements, and whether it is spelled as one (a comma or no element)."""
        self.expect("(")
        elements, comma = [], False
        while self.peek() != ")":
            elements.append(self.element())
            if self.peek() != ",":
                break
            comma = True
            self.i += 1
        self.expect(")")
        return tuple(elements), comma or not elements

    def element(self) -> P.PreviewAttr:
        """A nested tuple (``(a, b)``, ``(a,)``, ``()``) or an expression (in parentheses
        too: a nested one-element tuple prints with a trailing comma)."""
        if self.peek() == "(":
            mark = self.i
            elements, is_tuple = self._tuple()
            if is_tuple:
                return P.PreviewAttr("symbolic_tuple", (elements,))
            self.i = mark
        return self.expr()

    def expr(self, level: int = 1) -> P.PreviewAttr:
        left = self.unary() if level > 2 else self.expr(level + 1)
        while level <= 2:
            op = self.peek()
            if op is None or P.PRECEDENCE.get(op) != level:
                break
            self.i += 1
            right = self.expr(level + 1)
            left = P.PreviewAttr(P.INFIX_MNEMONICS[op], (left, right))
        return left

    def unary(self) -> P.PreviewAttr:
        token = self.peek()
        if token == "-":
            self.i += 1
            if self.peek() is not None and self.peek().isdigit():
                value = -int(self.tokens[self.i][0])
                self.i += 1
                return P.PreviewAttr("expr_int", (value,))
            return P.PreviewAttr("expr_neg", (self.unary(),))
        if token == "(":
            self.i += 1
            inner = self.expr()
            self.expect(")")
            return inner
        if token is not None and token.isdigit():
            self.i += 1
            return P.PreviewAttr("expr_int", (int(token),))
        if token is not None and token.startswith('"'):
            self.i += 1
            return P.PreviewAttr("expr_const_str", (unescape_string(token),))
        if token is not None and token.startswith("context."):
            self.i += 1
            return P.PreviewAttr("expr_builtin", (token, P.INDEX))
        if token is not None and (token[0].isalpha() or token[0] == "_"):
            self.i += 1
            return P.PreviewAttr("expr_var", (token,))
        self.fail("expected an expression")


# ---- types --------------------------------------------------------------------------------


def parse_preview_type(parser: "OpParser", qualified: bool) -> Type:
    """``preview$sym_t<N>`` (after ``!cuda_tile<`` when `qualified`, whose closing ``>`` is
    read too)."""
    token = parser.token
    mnemonic = token.spelling[len("preview$"):] if token.spelling.startswith("preview$") \
        else ""
    definition = P.TYPE_BY_NAME.get(mnemonic)
    if token.kind is not BARE_IDENTIFIER or definition is None:
        raise parser.error_at(token.offset, f"unknown type `{token.spelling}` in dialect "
                                            "`cuda_tile`")
    parser.advance()
    values: tuple = ()
    if mnemonic == "sym_t":
        parser.expect_punct("<")
        name = parser.parse_keyword()
        parser.expect_punct(">")
        values = (P.PreviewAttr("expr_var", (name,)),)
    elif mnemonic == "fragment":
        values = _parse_fragment(parser)
    if qualified:
        parser.expect_punct(">")
    result = P.PreviewType(mnemonic, values)
    message = P.type_error(result)
    if message is not None:
        raise parser.error_at(token.offset, message)
    return result


_DIM = re.compile(r"\s*(\d+|\[[^\]]*\])x")


def _parse_fragment(parser) -> tuple:
    """``<4x[N]xi32, local, mem_layout = <L>, fragmap = <L>[, alignment = A]>``."""
    parser.expect_punct("<")
    text, pos = parser.source.text, parser.token.offset
    dims = []
    while True:
        match = _DIM.match(text, pos)
        if match is None:
            break
        spelled = match.group(1)
        if spelled.startswith("["):
            reader = _Infix(spelled[1:-1], match.start(1) + 1, parser)
            dims.append(reader.expr())
            if reader.peek() is not None:
                reader.fail("expected ']'")
        else:
            dims.append(P.PreviewAttr("expr_int", (int(spelled),)))
        pos = match.end()
    parser.rewind(pos)
    element = parser.parse_cuda_tile_type()
    parser.expect_punct(",")
    space = parser.parse_keyword()
    if space not in P.ENUMS["memory_space"]:
        raise parser.error_at(parser.prev_end - len(space), f"invalid memory space '{space}'")
    layouts = []
    for key in ("mem_layout", "fragmap"):
        parser.expect_punct(",")
        _expect_key(parser, key)
        parser.expect_punct("=")
        layouts.append(_layout_body(parser))
    alignment = P.PreviewAttr("expr_int", (1,))
    if parser.consume_punct(","):
        _expect_key(parser, "alignment")
        parser.expect_punct("=")
        start = parser.token.offset
        end = text.find(">", start)
        reader = _Infix(text[start:end if end >= 0 else len(text)], start, parser)
        alignment = reader.expr()
        parser.rewind(reader.tokens[reader.i - 1][1] + len(reader.tokens[reader.i - 1][0]))
    parser.expect_punct(">")
    return (tuple(dims), element, space, layouts[0], layouts[1], alignment)


def _layout_body(parser) -> P.PreviewAttr:
    """``<(4):(1)>`` or ``<shapes = ..., strides = ...>``: a layout without its mnemonic
    (a fragment's mem_layout and fragmap)."""
    if not hasattr(parser, "parse_attribute"):     # a type parser: read it as an attribute
        from .parser import OpParser
        sub = OpParser(parser.source.text, parser.source.filename)
        sub.rewind(parser.token.offset)
        attr = _layout_body(sub)
        parser.rewind(sub.token.offset)
        return attr
    at = parser.token.offset
    parser.expect_punct("<")
    if parser.token.is_punct("("):
        attr = _parse_infix_layout(parser)
    else:
        attr = P.PreviewAttr("layout", tuple(
            _keyed_value(parser, "layout", param, i) for i, param in
            enumerate(P.ATTR_BY_NAME["layout"].params)))
    parser.expect_punct(">")
    message = P.attr_error(attr)
    if message is not None:
        raise parser.error_at(at, message)
    return attr


def _keyed_value(parser, mnemonic: str, param: P.Param, index: int) -> Any:
    if index:
        parser.expect_punct(",")
    _expect_key(parser, param.key)
    parser.expect_punct("=")
    return _parse_value(parser, mnemonic, param)


# ---- preview$func -------------------------------------------------------------------------


def _const_params(attr: Any) -> str:
    """``<[N: index, M: !cuda_tile<preview$shape>]>`` (empty when there are none)."""
    if not isinstance(attr, ArrayAttr):
        return ""
    return "<[" + ", ".join(_const_param(p) for p in attr.elements) + "]>"


def _const_param(param: Any) -> str:
    if isinstance(param, P.PreviewAttr) and param.mnemonic == "const_param":
        name = param["name"]
        return name if name == "?" else f"{name}: {param['type'].format()}"
    return param.format()


def _parse_const_params(parser: "OpParser") -> ArrayAttr:
    """``<[N: T, ?, ...]>`` after a symbol name (the ``<`` is next)."""
    parser.expect_punct("<")

    def param() -> P.PreviewAttr:
        if parser.consume_punct("?"):
            return P.PreviewAttr("const_param", ("?", P.INDEX))
        at = parser.token.offset
        name = parser.parse_keyword_or_string()
        parser.expect_punct(":")
        t = parser.parse_type()
        attr = P.PreviewAttr("const_param", (name, t))
        message = P.attr_error(attr)
        if message is not None:
            raise parser.error_at(at, message)
        return attr
    params = parser.parse_comma_list(param, "square")
    parser.expect_punct(">")
    return ArrayAttr(tuple(params))


def _signature_args(p: "Printer", op: "Operation", fn: FunctionType) -> str:
    """``(%arg0: tile<i32> {attrs}, ...)``: the arguments of a bodiless function."""
    arg_attrs = op.attributes.get("arg_attrs")
    dicts = arg_attrs.elements if isinstance(arg_attrs, ArrayAttr) else ()
    parts = []
    for i, t in enumerate(fn.inputs):
        text = f"%arg{i}: {type_text(t, False)}"
        if i < len(dicts) and isinstance(dicts[i], DictAttr) and dicts[i].entries:
            text += " " + dicts[i].format()
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def _results(fn: FunctionType) -> str:
    if not fn.results:
        return ""
    if len(fn.results) == 1:
        return " -> " + type_text(fn.results[0], False)
    return " -> (" + ", ".join(type_text(t, False) for t in fn.results) + ")"


def print_preview_func(p: "Printer", op: "Operation") -> str:
    fn = op.attributes["function_type"].value  # type: ignore[union-attr]
    name = identifier_or_string(op.attributes["sym_name"].value)  # type: ignore[union-attr]
    text = (f" extern @{name}{_const_params(op.attributes.get('const_params'))}"
            f"{_signature_args(p, op, fn)}{_results(fn)} ")
    return text + p.attr_dict(op, {"sym_name", "function_type", "arg_attrs", "res_attrs",
                                   "const_params"})


def _parse_signature(parser: "OpParser", state: "OpState") -> None:
    """``(%arg0: T {attrs}, ...) -> R``: function_type and arg_attrs of a bodiless function."""
    inputs, dicts = [], []

    def argument() -> None:
        if parser.token.kind is not PERCENT_IDENTIFIER:
            raise parser.wrong_token("expected SSA identifier")
        parser.advance()
        parser.expect_punct(":")
        inputs.append(parser.parse_cuda_tile_type())
        entries: dict = {}
        parser.parse_optional_attr_dict(entries)
        dicts.append(DictAttr.of(entries))
    parser.parse_comma_list(argument, "paren")
    results = []
    if parser.consume_punct("->"):
        if parser.consume_punct("("):
            if not parser.consume_punct(")"):
                results = parser.parse_cuda_tile_type_list()
                parser.expect_punct(")")
        else:
            results.append(parser.parse_cuda_tile_type())
    state.attributes["function_type"] = TypeAttr(FunctionType(tuple(inputs), tuple(results)))
    if any(d.entries for d in dicts):
        state.attributes["arg_attrs"] = ArrayAttr(tuple(dicts))


def parse_preview_func(parser: "OpParser", state: "OpState") -> None:
    parser.expect_keyword("extern")
    state.attributes["sym_name"] = StringAttr(parser.parse_symbol_name())
    if parser.token.is_punct("<"):
        state.attributes["const_params"] = _parse_const_params(parser)
    _parse_signature(parser, state)
    parser.parse_optional_attr_dict(state.discardable)


# ---- preview$extern_impl ------------------------------------------------------------------

#: Optional attributes printed after the signature, in the reference's order, with their
#: spelling (`scratch_smem` prints as ``scratch {smem.size = ..., smem.alignment = ...}``).
_IMPL_TRAILING = ("synchronization", "arch", "scratch_smem")


def print_preview_extern_impl(p: "Printer", op: "Operation") -> str:
    a = op.attributes
    fn = a["function_type"].value  # type: ignore[union-attr]
    name = identifier_or_string(a["sym_name"].value)  # type: ignore[union-attr]
    text = f" @{name}{_const_params(a.get('const_params'))} implements {a['implements'].format()}"
    const_args = a.get("const_args")
    if isinstance(const_args, ArrayAttr):
        text += "<[" + ", ".join(_const_arg(e) for e in const_args.elements) + "]>"
    text += " " + _signature_args(p, op, fn) + _results(fn)
    sync = a.get("synchronization")
    if sync is not None:
        text += f" synchronization = {sync.format()}"
    arch = a.get("arch")
    if arch is not None:
        text += f" arch = {arch.format()}"
    scratch = a.get("scratch_smem")
    if isinstance(scratch, P.PreviewAttr):
        text += (f" scratch {{smem.size = {scratch['size'].format()}, smem.alignment = "
                 f"{scratch['alignment'].format()}}}")
    return text + p.attr_dict(op, {"sym_name", "function_type", "arg_attrs", "res_attrs",
                                   "const_params", "const_args", "implements",
                                   *_IMPL_TRAILING})


def _const_arg(arg: Any) -> str:
    """A constant argument: a variable by its bare name, anything else in full."""
    if isinstance(arg, P.PreviewAttr) and arg.mnemonic == "expr_var":
        return arg["name"]
    return arg.format()


def _parse_const_args(parser: "OpParser") -> ArrayAttr:
    """``<[N, M, #cuda_tile<...>]>``: names are variables (``?`` too)."""
    parser.expect_punct("<")

    def arg() -> Any:
        if parser.consume_punct("?"):
            return P.PreviewAttr("expr_var", ("?",))
        if parser.token.kind is BARE_IDENTIFIER:
            return P.PreviewAttr("expr_var", (parser.advance().spelling,))
        return parser.parse_attribute()
    args = parser.parse_comma_list(arg, "square")
    parser.expect_punct(">")
    return ArrayAttr(tuple(args))


def parse_preview_extern_impl(parser: "OpParser", state: "OpState") -> None:
    a = state.attributes
    a["sym_name"] = StringAttr(parser.parse_symbol_name())
    if parser.token.is_punct("<"):
        a["const_params"] = _parse_const_params(parser)
    parser.expect_keyword("implements")
    a["implements"] = SymbolRefAttr(parser.parse_symbol_name())
    if parser.token.is_punct("<"):
        a["const_args"] = _parse_const_args(parser)
    _parse_signature(parser, state)
    if parser.consume_keyword("synchronization"):
        parser.expect_punct("=")
        a["synchronization"] = parser.parse_attribute()
    if parser.consume_keyword("arch"):
        parser.expect_punct("=")
        a["arch"] = parser.parse_attribute()
    if parser.consume_keyword("scratch"):
        entries: dict = {}
        parser.parse_attr_dict_body(entries)
        size, alignment = entries.get("smem.size"), entries.get("smem.alignment")
        if size is None or alignment is None or len(entries) != 2:
            raise parser.wrong_token("expected 'smem.size' and 'smem.alignment'")
        a["scratch_smem"] = P.PreviewAttr("scratch_request", (size, alignment))
    parser.parse_optional_attr_dict(a)


# ---- preview$call -------------------------------------------------------------------------


def print_preview_call(p: "Printer", op: "Operation") -> str:
    a = op.attributes
    text = " " + a["callee"].format()
    const_args = a.get("const_args")
    if isinstance(const_args, ArrayAttr) and const_args.elements:
        text += "<[" + ", ".join(P.compact_text(e) for e in const_args.elements) + "]>"
    text += "(" + ", ".join(p.value(v) for v in op.operands) + ")"
    text += p.attr_dict(op, {"callee", "const_args"})
    inputs = ", ".join(t.format() for t in (v.type for v in op.operands))
    results = [r.type for r in op.results]
    result_text = results[0].format() if len(results) == 1 else \
        "(" + ", ".join(t.format() for t in results) + ")"
    return text + f" : ({inputs}) -> {result_text}"


def _item_end(text: str, start: int) -> int:
    """Where a compact constant argument starting at `start` ends: the ``,`` or ``]`` at
    its own depth (strings skipped)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c in ",]" and depth == 0:
            return i
        i += 1
    return i


def _compact_arg(parser: "OpParser") -> P.PreviewAttr:
    """One constant argument of a call: in full, a string, a type, or compact infix."""
    token = parser.token
    if token.kind is HASH_IDENTIFIER:
        return parser.parse_attribute()
    if token.kind is STRING:
        return P.PreviewAttr("expr_const_str", (parser.parse_string(),))
    if token.kind is EXCLAMATION_IDENTIFIER or (token.kind is BARE_IDENTIFIER and
                                               _is_type_keyword(token.spelling)):
        return P.PreviewAttr("concrete_type", (parser.parse_type(),))
    text = parser.source.text
    end = _item_end(text, token.offset)
    reader = _Infix(text[token.offset:end], token.offset, parser)
    value = reader.element()
    if reader.peek() is not None:
        reader.fail("expected ',' or ']'")
    parser.rewind(end)
    return value


def _is_type_keyword(word: str) -> bool:
    """Whether a bare word starts a type (``i32``, ``f16``, ``index``, ``tf32`` ...)."""
    return word in ("index", "none", "bf16", "tf32") or bool(
        re.fullmatch(r"(i\d+|f\d+\w*|fnv\w+)", word))


def parse_preview_call(parser: "OpParser", state: "OpState") -> None:
    a = state.attributes
    a["callee"] = SymbolRefAttr(parser.parse_symbol_name())
    a["const_args"] = ArrayAttr(())
    if parser.token.is_punct("<"):
        parser.expect_punct("<")
        a["const_args"] = ArrayAttr(tuple(parser.parse_comma_list(
            lambda: _compact_arg(parser), "square")))
        parser.expect_punct(">")
    uses = parser.parse_comma_list(parser.parse_ssa_use, "paren")
    parser.parse_optional_attr_dict(a)
    parser.expect_punct(":")
    at = parser.token.offset
    fn = parser.parse_type()
    if not isinstance(fn, FunctionType):
        raise parser.error_at(at, "expected a function type")
    if len(fn.inputs) != len(uses):
        raise parser.error_at(at, f"{len(uses)} operands present, but expected "
                                  f"{len(fn.inputs)}")
    state.resolved_operands = [parser.resolve(u, t) for u, t in zip(uses, fn.inputs)]
    state.result_types = list(fn.results)


PRINTERS = {"preview_func": print_preview_func, "preview_extern_impl": print_preview_extern_impl,
            "preview_call": print_preview_call}
PARSERS = {"preview_func": parse_preview_func, "preview_extern_impl": parse_preview_extern_impl,
           "preview_call": parse_preview_call}
