"""An MLIR-compatible lexer: the token kinds and spelling rules NVIDIA's tools use.

Tokens keep their byte offset; `Source` turns offsets into line and column for
diagnostics.  The lexer can be rewound to any offset, which the dimension-list
parser needs to split ``8x4xf32`` into ``8``, ``x``, ``4``, ``x``, ``f32``.
"""

from __future__ import annotations

import bisect
import enum
import functools
import re
from typing import NamedTuple

from ..diagnostics import Location


class Kind(enum.Enum):
    """Token kinds, named after MLIR's."""

    EOF = "end of file"
    BARE_IDENTIFIER = "identifier"
    AT_IDENTIFIER = "@-identifier"
    HASH_IDENTIFIER = "#-identifier"
    PERCENT_IDENTIFIER = "%-identifier"
    CARET_IDENTIFIER = "^-identifier"
    EXCLAMATION_IDENTIFIER = "!-identifier"
    INTEGER = "integer"
    FLOAT = "float"
    STRING = "string"
    PUNCT = "punctuation"


#: Each kind as a module constant, for the code that tests kinds per token: in Python 3.11,
#: reading an enum member through its class (``Kind.PUNCT``) costs about eight times as
#: much as reading a global.
EOF = Kind.EOF
BARE_IDENTIFIER = Kind.BARE_IDENTIFIER
AT_IDENTIFIER = Kind.AT_IDENTIFIER
HASH_IDENTIFIER = Kind.HASH_IDENTIFIER
PERCENT_IDENTIFIER = Kind.PERCENT_IDENTIFIER
CARET_IDENTIFIER = Kind.CARET_IDENTIFIER
EXCLAMATION_IDENTIFIER = Kind.EXCLAMATION_IDENTIFIER
INTEGER = Kind.INTEGER
FLOAT = Kind.FLOAT
STRING = Kind.STRING
PUNCT = Kind.PUNCT


class Token(NamedTuple):
    """One token: its kind, its exact spelling, and its offset in the source text.

    A named tuple rather than a dataclass: the lexer makes one per token, and a tuple is
    built several times faster (the fields, equality and hashing are the same)."""

    kind: Kind
    spelling: str
    offset: int

    def is_punct(self, spelling: str) -> bool:
        """Whether this is the punctuation `spelling`."""
        return self.kind is PUNCT and self.spelling == spelling

    def is_keyword(self, spelling: str | None = None) -> bool:
        """A bare identifier (optionally a given one): MLIR keywords are bare identifiers."""
        return self.kind is BARE_IDENTIFIER and (spelling is None or self.spelling == spelling)

    @property
    def end(self) -> int:
        """The offset just after the token."""
        return self.offset + len(self.spelling)


class Source:
    """Text with a file name; maps offsets to 1-based line and column."""

    def __init__(self, text: str, filename: str | None = None, first_line: int = 1) -> None:
        self.text = text
        self.filename = filename
        self.first_line = first_line
        self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def location(self, offset: int) -> Location:
        """Where `offset` is: file, line and column."""
        return Location(self.filename, *self.line_column(offset))

    def line_column(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of `offset`."""
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + self.first_line, offset - self._line_starts[index] + 1


_ID_CHARS = r"[A-Za-z0-9_$.]"
_SUFFIX_ID = r"(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
_TOKEN_RES = [
    (FLOAT, re.compile(r"[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?")),
    (INTEGER, re.compile(r"0x[0-9A-Fa-f]+|[0-9]+")),
    (BARE_IDENTIFIER, re.compile(r"[A-Za-z_]" + _ID_CHARS + "*")),
    (PERCENT_IDENTIFIER, re.compile(r"%" + _SUFFIX_ID)),
    (CARET_IDENTIFIER, re.compile(r"\^" + _SUFFIX_ID)),
    (HASH_IDENTIFIER, re.compile(r"#" + _SUFFIX_ID)),
    (EXCLAMATION_IDENTIFIER, re.compile(r"!" + _SUFFIX_ID)),
    (AT_IDENTIFIER, re.compile(r"@(?:[A-Za-z_$.][A-Za-z0-9_$.]*)")),
]
_PUNCTS = ("...", "->", "::", ":", ",", "=", ">", "<", "{", "}", "(", ")", "[",
           "]", "?", "+", "-", "*", "|")
_HEX_PAIR_RE = re.compile(r"[0-9A-Fa-f]{2}")
#: MLIR's error for a prefix character not followed by a valid suffix-id.
_PREFIX_ERRORS = {"#": "invalid attribute name", "%": "invalid SSA name",
                  "^": "invalid block name", "!": "invalid type identifier"}
_SPACE_RE = re.compile(r"(?:\s+|//[^\n]*)+")


def _fast_pattern() -> tuple[re.Pattern, tuple[Kind | None, ...]]:
    """One regex for blanks then any token but strings, each kind in its own group; with
    the kind of each group.  Where two rules can start with the same character, their
    alternatives keep `Lexer._general`'s order (``{-#`` before ``{``, ``#-}`` before
    ``#``-identifiers, floats before integers), so the first that matches is the same;
    the others are disjoint by first character and go most common first.  The blanks are
    an atomic group: a failed match must not back into a comment and find a token there."""
    rules = dict((kind, pattern.pattern) for kind, pattern in _TOKEN_RES)
    alternatives = [(PUNCT, r"\{-\#|\#-\}")]
    alternatives += [(kind, rules[kind]) for kind in (PERCENT_IDENTIFIER,
                                                      BARE_IDENTIFIER)]
    alternatives.append((PUNCT, "|".join(re.escape(p) for p in _PUNCTS)))
    alternatives += [(kind, rules[kind]) for kind in (
        FLOAT, INTEGER, HASH_IDENTIFIER, AT_IDENTIFIER,
        CARET_IDENTIFIER, EXCLAMATION_IDENTIFIER)]
    assert len(alternatives) == len(_TOKEN_RES) + 2
    body = "|".join(f"({pattern})" for _, pattern in alternatives)
    kinds = (None,) + tuple(kind for kind, _ in alternatives)
    return re.compile(r"(?>(?:\s+|//[^\n]*)*)(?:" + body + ")"), kinds


_FAST, _FAST_KINDS = _fast_pattern()
_FAST_RE = _FAST.match
#: Builds a `Token` from (kind, spelling, offset) without the named tuple's Python-level
#: constructor (the lexer makes one per token).
_new_token = functools.partial(tuple.__new__, Token)


class LexError(Exception):
    """A character sequence that is no token; carries the offset and message."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class Lexer:
    """Produces tokens on demand from a `Source`, and can be rewound.

    Each token is matched where the lexer stands, when it is asked for, by one compiled
    scanner (`_FAST`: blanks, then any token but strings); anything else (strings, the
    end of the text, errors) goes rule by rule (`_general`).  Nothing is read ahead, so a
    parser that skips text it has already seen (the type memo) never pays for its tokens,
    and errors are raised only when lexing reaches them.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self.text = source.text
        self.pos = 0

    def reset(self, offset: int) -> None:
        """Continue lexing at `offset` (used to split tokens such as ``x4xf32``)."""
        self.pos = offset

    def next(self) -> Token:
        """The next token."""
        match = _FAST_RE(self.text, self.pos)
        if match is None:
            return self._general()
        group = match.lastindex
        start, self.pos = match.span(group)
        return _new_token((_FAST_KINDS[group], match.group(group), start))

    def _general(self) -> Token:
        """The next token, tried rule by rule in MLIR's order (and errors raised)."""
        text = self.source.text
        space = _SPACE_RE.match(text, self.pos)
        if space:
            self.pos = space.end()
        start = self.pos
        if start >= len(text):
            return Token(EOF, "", start)
        char = text[start]
        if char == '"':
            return self._emit(STRING, self._string_end(start + 1))
        if char == "@" and start + 1 < len(text) and text[start + 1] == '"':
            return self._emit(AT_IDENTIFIER, self._string_end(start + 2))
        for punct in ("{-#", "#-}"):
            if text.startswith(punct, start):
                return self._emit(PUNCT, start + len(punct))
        for kind, pattern in _TOKEN_RES:
            match = pattern.match(text, start)
            if match:
                return self._emit(kind, match.end())
        for punct in _PUNCTS:
            if text.startswith(punct, start):
                return self._emit(PUNCT, start + len(punct))
        if char in _PREFIX_ERRORS:
            raise LexError(start, _PREFIX_ERRORS[char])
        if char == "@":
            raise LexError(start + 1, "@ identifier expected to start with letter or '_'")
        raise LexError(start, "unexpected character")

    def _string_end(self, pos: int) -> int:
        """The offset after the closing quote of a string whose body starts at `pos`
        (MLIR lexString: escapes are \\" \\\\ \\n \\t or two hex digits)."""
        text = self.source.text
        start = pos
        while True:
            if pos >= len(text) or text[pos] in "\n\v\f":
                raise LexError(pos, "expected '\"' in string literal")
            char = text[pos]
            pos += 1
            if char == '"':
                if "\\" in text[start:pos] and _escaped_bytes(text[start - 1:pos]) is None:
                    raise LexError(start - 1, "string literal escapes bytes that are not "
                                   "UTF-8 text")
                return pos
            if char == "\\":
                if text[pos:pos + 1] in ('"', "\\", "n", "t"):
                    pos += 1
                elif _HEX_PAIR_RE.match(text, pos):
                    pos += 2
                else:
                    raise LexError(pos - 1, "unknown escape in string literal")

    def _emit(self, kind: Kind, end: int) -> Token:
        token = Token(kind, self.source.text[self.pos:end], self.pos)
        self.pos = end
        return token


def unescape_string(spelling: str) -> str:
    """The value of a string literal token (MLIR escapes: \\n \\t \\" \\\\ and \\XX hex, each
    \\XX one byte of the string's UTF-8: ``"\\C3\\A9"`` is é, as the printer writes it)."""
    if "\\" not in spelling:
        return spelling[1:-1]
    value = _escaped_bytes(spelling)
    if value is None:       # (the lexer refuses such a literal: only text made elsewhere)
        raise ValueError(f"string literal {spelling} escapes bytes that are not UTF-8 text")
    return value


def _escaped_bytes(spelling: str) -> str | None:
    """The text a string literal's escapes spell, read as UTF-8 bytes; None when they are
    not UTF-8."""
    body, out, i = spelling[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out += char.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in '"\\':
            out += nxt.encode()
            i += 2
        elif nxt == "n":
            out += b"\n"
            i += 2
        elif nxt == "t":
            out += b"\t"
            i += 2
        else:
            out.append(int(body[i + 1:i + 3], 16))
            i += 3
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None
