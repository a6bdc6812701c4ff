"""Token-level parsing helpers shared by the type, attribute and operation parsers.

The helpers reproduce MLIR's parsing primitives and their error messages
(``expected '<'``, ``expected integer value``, ``expected static shape``...), so
diagnostics match NVIDIA's tools word for word.
"""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from typing import Callable, Iterator, NoReturn, TypeVar

from ..attributes import EnumAttr
from ..diagnostics import ParseError, error
from .lexer import BARE_IDENTIFIER, EOF, INTEGER, PUNCT, LexError, Lexer, Source, Token

T = TypeVar("T")

_DELIMITERS = {"paren": ("(", ")"), "square": ("[", "]"), "less": ("<", ">"),
               "brace": ("{", "}")}


@functools.cache
def enum_keywords(enum_type: type) -> dict[str, object]:
    """Each case of a spec enum by its keyword (the first case with it, as `from_keyword`
    finds it); built once per enum, since parsers look keywords up per op."""
    table: dict[str, object] = {}
    for member in enum_type:  # type: ignore[attr-defined]
        table.setdefault(member.keyword, member)
    return table


#: One `EnumAttr` per enum case, by (enum, case): the members are IntEnums, and cases of
#: two enums with the same number are equal, so the enum is part of the key.
_ENUM_ATTRS: dict[tuple[type, object], EnumAttr] = {}


def enum_attr(case: object) -> EnumAttr:
    """The attribute holding `case`, one shared object per case: attributes are immutable,
    and the parsers make one per op."""
    key = (type(case), case)
    attr = _ENUM_ATTRS.get(key)
    if attr is None:  # (threads racing here all get the one `setdefault` keeps)
        attr = _ENUM_ATTRS.setdefault(key, EnumAttr(case))  # type: ignore[arg-type]
    return attr


def enum_case(enum_type: type, keyword: str):
    """The case of `enum_type` spelled `keyword`; KeyError when none is (as `from_keyword`)."""
    return enum_keywords(enum_type)[keyword]



#: Runs of ``Nx`` dimensions (``N`` decimal of at most 19 digits), and with ``?x`` too.
_STATIC_RUN = re.compile(r"(?:[0-9]{1,19}x)+")
_DYNAMIC_RUN = re.compile(r"(?:(?:[0-9]{1,19}|\?)x)+")

#: Decimal literals longer than this are past every integer type (and past what Python
#: converts without raising): `literal_int` refuses them without converting.
MAX_DECIMAL_DIGITS = 1000


def literal_int(spelling: str) -> int | None:
    """The value of an integer token's spelling (decimal, or ``0x`` hex); None for a
    decimal literal of more than `MAX_DECIMAL_DIGITS` digits."""
    if spelling.startswith("0x"):
        return int(spelling, 16)
    if len(spelling) > MAX_DECIMAL_DIGITS:
        return None
    return int(spelling, 10)

class BaseParser:
    """A token cursor over one source text, with MLIR's parsing primitives."""

    def __init__(self, text: str, filename: str | None = None, first_line: int = 1) -> None:
        self.source = Source(text, filename, first_line)
        self.lexer = Lexer(self.source)
        self.prev_end = 0
        #: What MLIR's OpAsmParser::emitError puts before a message: ``custom op 'x' ``
        #: while a custom op's own syntax is parsed, empty elsewhere.
        self.asm_prefix = ""
        self.token = self._lex()

    # ---- cursor --------------------------------------------------

    def _lex(self) -> Token:
        try:
            return self.lexer.next()
        except LexError as exc:
            raise self.error_at(exc.offset, exc.message) from None

    def advance(self) -> Token:
        """Consume the current token and return it (`_lex` inlined: this runs per token)."""
        token = self.token
        self.prev_end = token.offset + len(token.spelling)
        try:
            self.token = self.lexer.next()
        except LexError as exc:
            raise self.error_at(exc.offset, exc.message) from None
        return token

    def rewind(self, offset: int) -> None:
        """Re-lex from `offset` (splits tokens such as ``x4xf32``; skips a remembered
        type)."""
        self.lexer.pos = offset
        self.token = self._lex()

    def at_end(self) -> bool:
        return self.token.kind is EOF

    # ---- diagnostics --------------------------------------------------

    def error_at(self, offset: int, message: str) -> ParseError:
        return ParseError(error(message, self.source.location(offset)))

    def asm_error(self, offset: int, message: str) -> ParseError:
        """An error reported through MLIR's AsmParser (prefixed inside a custom op)."""
        return self.error_at(offset, self.asm_prefix + message)

    @contextmanager
    def asm_context(self, prefix: str) -> Iterator[None]:
        """Parse with `prefix` before AsmParser errors (a custom op, or none)."""
        saved, self.asm_prefix = self.asm_prefix, prefix
        try:
            yield
        finally:
            self.asm_prefix = saved

    def error_here(self, message: str) -> ParseError:
        """An error at the current token."""
        return self.error_at(self.token.offset, message)

    def wrong_token(self, message: str) -> ParseError:
        """MLIR's emitWrongTokenError: reported right after the text before the current
        token (blanks, line ends and end-of-line comments skipped), where the expected
        token belongs."""
        original = self.token.offset
        if self.token.kind is EOF and self.source.text[-1:].isspace():
            original -= 1
        before = self.source.text[:original]
        while True:
            before = before.rstrip(" \t")
            if not before:
                return self.error_at(original, message)
            if before[-1] not in "\n\r":
                return self.error_at(len(before), message)
            before = before[:-1]
            line_start = max(before.rfind("\n"), before.rfind("\r"), 0)
            comment = before.find("//", line_start)
            if comment != -1:
                before = before[:comment]

    def fail(self, message: str) -> NoReturn:
        raise self.error_here(message)

    # ---- punctuation and keywords --------------------------------------------------

    def consume_punct(self, spelling: str) -> bool:
        """Consume `spelling` if it is next (MLIR parseOptional<Punct>)."""
        token = self.token
        if token.spelling == spelling and token.kind is PUNCT:
            self.advance()
            return True
        return False

    def expect_punct(self, spelling: str, context: str = "") -> None:
        """Consume `spelling` or fail with ``expected '<spelling>'`` (MLIR parseToken;
        `consume_punct` inlined: this runs per token)."""
        token = self.token
        if token.spelling != spelling or token.kind is not PUNCT:
            raise self.wrong_token(f"expected '{spelling}'{context}")
        self.advance()

    def consume_keyword(self, keyword: str) -> bool:
        """Consume the bare identifier `keyword` if it is next."""
        token = self.token
        if token.spelling == keyword and token.kind is BARE_IDENTIFIER:
            self.advance()
            return True
        return False

    def expect_keyword(self, keyword: str, context: str = "") -> None:
        """Consume `keyword` or fail (MLIR AsmParser::parseKeyword(keyword, msg))."""
        if not self.consume_keyword(keyword):
            raise self.asm_error(self.token.offset, f"expected '{keyword}'{context}")

    def parse_keyword(self) -> str:
        """Any bare identifier (MLIR AsmParser::parseKeyword)."""
        if self.token.kind is not BARE_IDENTIFIER:
            raise self.asm_error(self.token.offset, "expected valid keyword")
        return self.advance().spelling

    def balanced_angle(self, message: str) -> str:
        """The text of a ``<...>`` group (nested brackets included) starting at the current
        ``<``; used to keep constructs of other dialects by their spelling."""
        start = self.token.offset
        depth = 0
        while True:
            token = self.advance()
            if token.kind is EOF:
                raise self.error_at(token.offset, message)
            if token.is_punct("<"):
                depth += 1
            elif token.is_punct(">"):
                depth -= 1
                if depth == 0:
                    return self.source.text[start:token.end]

    # ---- integers --------------------------------------------------

    def literal_value(self, offset: int, spelling: str) -> int:
        """The value of an integer token's `spelling` (decimal or ``0x`` hex); a decimal
        literal too long for Python to convert (none of its length fits any integer type)
        is "integer value too large" at `offset`."""
        value = literal_int(spelling)
        if value is None:
            raise self.asm_error(offset, "integer value too large")
        return value

    def parse_optional_integer(self, bits: int = 64, signed: bool = True) -> int | None:
        """An optionally negated integer literal (or true/false), range-checked like MLIR."""
        start = self.token.offset
        if self.token.is_keyword("true") or self.token.is_keyword("false"):
            value = int(self.advance().spelling == "true")
        elif self.token.kind is INTEGER or self.token.is_punct("-"):
            negative = self.consume_punct("-")
            if self.token.kind is not INTEGER:
                raise self.wrong_token("expected integer value")
            token = self.advance()
            value = self.literal_value(token.offset, token.spelling)
            value = -value if negative else value
        else:
            return None
        low = -(1 << (bits - 1)) if signed else 0
        high = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        if not low <= value <= high:
            raise self.asm_error(start, "integer value too large")
        return value

    def parse_integer(self, bits: int = 64, signed: bool = True) -> int:
        """An integer of `bits` bits (MLIR AsmParser::parseInteger)."""
        offset = self.token.offset
        value = self.parse_optional_integer(bits, signed)
        if value is None:
            raise self.asm_error(offset, "expected integer value")
        return value

    # ---- lists --------------------------------------------------

    def parse_comma_list(self, element: Callable[[], T], delimiter: str | None = None,
                         context: str = "") -> list[T]:
        """Elements separated by commas, optionally inside a delimiter pair (may be empty)."""
        suffix = f" in {context}" if context else ""
        items: list[T] = []
        if delimiter is not None:
            open_, close = _DELIMITERS[delimiter]
            self.expect_punct(open_, suffix)
            if self.consume_punct(close):
                return items
        items.append(element())
        while self.consume_punct(","):
            items.append(element())
        if delimiter is not None:
            self.expect_punct(close, suffix)
        return items

    def _x_in_dimension_list(self) -> None:
        token = self.token
        if token.kind is not BARE_IDENTIFIER or not token.spelling.startswith("x"):
            raise self.wrong_token("expected 'x' in dimension list")
        if len(token.spelling) > 1:
            self.prev_end = token.offset + 1
            self.rewind(token.offset + 1)
        else:
            self.advance()

    def _dimension(self, allow_dynamic: bool) -> int | None:
        token = self.token
        if token.is_punct("?"):
            if not allow_dynamic:
                self.fail("expected static shape")
            self.advance()
            return None
        if token.kind is not INTEGER:
            self.fail("invalid dimension")
        if len(token.spelling) > 1 and token.spelling[1] == "x":
            # A hexadecimal-looking literal: `0x4` in a shape is `0`, `x`, `4`.
            self.prev_end = token.offset + 1
            self.rewind(token.offset + 1)
            return 0
        value = literal_int(token.spelling)
        if value is None or value > (1 << 63) - 1:
            self.fail("invalid dimension")
        self.advance()
        return value

    def _dimension_run(self, dims: list[int | None], allow_dynamic: bool) -> bool:
        """Read a run of ``Nx`` (and ``?x`` when `allow_dynamic`) straight from the text,
        appending to `dims`; whether any was read.  Token by token, each ``x8x8x...`` would
        be lexed as one identifier to its end and split after one ``x``: quadratic in the
        dimension count.  Whatever this declines (spaces, a dimension past 2**63 - 1) the
        token-by-token reading takes, giving the same dimensions and errors."""
        pattern = _DYNAMIC_RUN if allow_dynamic else _STATIC_RUN
        match = pattern.match(self.source.text, self.token.offset)
        if match is None:
            return False
        values = [None if d == "?" else int(d) for d in match.group().split("x")[:-1]]
        if any(v is not None and v > (1 << 63) - 1 for v in values):
            return False
        dims.extend(values)
        self.prev_end = match.end()
        self.rewind(match.end())
        return True

    def parse_dimension_list(self, allow_dynamic: bool,
                             with_trailing_x: bool = True) -> list[int | None]:
        """``4x?x8x`` (MLIR parseDimensionList); without trailing x: ``4x8``."""
        dims: list[int | None] = []

        def at_dimension() -> bool:
            return self.token.kind is INTEGER or self.token.is_punct("?")

        if with_trailing_x:
            while at_dimension():
                if self._dimension_run(dims, allow_dynamic):
                    continue
                dims.append(self._dimension(allow_dynamic))
                self._x_in_dimension_list()
            return dims
        if at_dimension():
            dims.append(self._dimension(allow_dynamic))
            while self.token.kind is BARE_IDENTIFIER and self.token.spelling.startswith("x"):
                self._x_in_dimension_list()
                dims.append(self._dimension(allow_dynamic))
        return dims
