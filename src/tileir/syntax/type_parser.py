"""Parsing Tile IR types in the exact syntax NVIDIA's tools print.

Both spellings are accepted: the qualified ``!cuda_tile.tile<8x4xf32>`` and the
short ``tile<8x4xf32>`` that appears inside ``cuda_tile`` ops.  Each type is
verified as soon as it is built, innermost first, so the first diagnostic is the
one the reference would give, at the position of the type's ``<``.
"""

from __future__ import annotations

from typing import Callable

from ..diagnostics import ParseError
from ..enums import PaddingValue, PointerAttribute
from ..types import (DIALECT, ELEMENT_INFO, FLOAT_SPELLING_ALIASES, MLIR_FLOAT_WIDTHS, TOKEN,
                     BuiltinType,
                     FloatType, FunctionType, GatherScatterViewType, IntegerType,
                     PartitionViewType, PointerType, StridedViewType, TensorViewType, TileType,
                     Type, quoted)
from .base import BaseParser, enum_case
from .lexer import BARE_IDENTIFIER, EXCLAMATION_IDENTIFIER, HASH_IDENTIFIER

_I32_MAX = (1 << 31) - 1
#: Valid Tile IR types nest a few levels deep; this bound keeps hostile input from
#: exhausting Python's stack.
MAX_TYPE_NESTING = 64
# Builtin types spelled by a keyword followed by a bracketed body, kept verbatim.
_BRACKETED_BUILTINS = ("tensor", "vector", "memref", "complex", "tuple")
_INTEGER_PREFIXES = ("i", "si", "ui")
#: How many distinct texts the type memo keeps per leading keyword.
_MEMO_ENTRIES = 32
#: The spec's element types by spelling, each the one object `tileir.types` defines: a
#: parsed ``f32`` is then `types.F32` itself, which the verifier's constraint checks
#: (``t in (F16, BF16, F32)``) find by identity before comparing fields.
_ELEMENT_TYPES: dict[str, Type] = {
    **{t.name: t for t in ELEMENT_INFO if isinstance(t, FloatType)},
    **{f"i{t.width}": t for t in ELEMENT_INFO if isinstance(t, IntegerType)}}


class TypeParser(BaseParser):
    """Parses builtin and ``cuda_tile`` types; `aliases` resolves ``!name`` type aliases."""

    def __init__(self, text: str, filename: str | None = None, first_line: int = 1,
                 aliases: dict[str, Type] | None = None) -> None:
        super().__init__(text, filename, first_line)
        self.type_aliases: dict[str, Type] = aliases if aliases is not None else {}
        self._depth = 0
        self._short_memo: dict[str, list[tuple[str, Type]]] = {}
        self._general_memo: dict[str, list[tuple[str, Type]]] = {}
        self._dialect_parsers: dict[str, Callable[[int], Type]] = {
            "ptr": self._ptr, "tile": self._tile, "tensor_view": self._tensor_view,
            "partition_view": self._partition_view, "strided_view": self._strided_view,
            "gather_scatter_view": self._gather_scatter_view, "token": lambda _: TOKEN,
        }

    # ---- entry points --------------------------------------------------

    def parse_type(self) -> Type:
        """A type in MLIR's general syntax (dialect types qualified)."""
        return self._outermost(self._general_memo, self._general_type)

    def _general_type(self) -> Type:
        parsed = self.parse_optional_type()
        if parsed is None:
            self.fail("expected non-function type")
        return parsed

    def parse_optional_type(self) -> Type | None:
        token = self.token
        if token.kind is EXCLAMATION_IDENTIFIER:
            return self._extended_type()
        if token.is_punct("("):
            return self._function_type()
        if token.kind is BARE_IDENTIFIER:
            return self._builtin_type()
        return None

    def parse_cuda_tile_type(self) -> Type:
        """A type inside a ``cuda_tile`` construct: the short form is allowed too."""
        return self._outermost(self._short_memo, self._cuda_tile_type)

    def _outermost(self, memo, parse) -> Type:
        """`parse()` under the nesting bound; an outermost type is looked up in, and
        remembered in, `memo` by its text."""
        token = self.token
        outermost = self._depth == 0 and token.kind is BARE_IDENTIFIER
        if outermost:
            known = self._recall(memo, token)
            if known is not None:
                return known
        self._depth += 1
        try:
            if self._depth > MAX_TYPE_NESTING:
                self.fail(f"types nest more than {MAX_TYPE_NESTING} deep")
            parsed = parse()
        finally:
            self._depth -= 1
        if outermost:
            self._remember(memo, token, parsed)
        return parsed

    # ---- memo of outermost types --------------------------------------------------
    # Kernels spell the same few types over and over.  An outermost type that starts with
    # a keyword and was parsed without error is remembered with the exact text it took:
    # the same characters at the same nesting parse to the same (immutable) type, so they
    # are skipped.  Only texts that are one token, or end with ``>`` (a token no following
    # character can extend), are kept; texts naming a ``!alias`` are not (an alias may be
    # redefined).

    def _recall(self, memo: dict[str, list[tuple[str, Type]]], token) -> Type | None:
        """The remembered type spelled at `token`, with the cursor moved past it; or None."""
        found = self._memo_lookup(memo, token.spelling, token.offset)
        if found is None:
            return None
        self.prev_end = found[1]
        self.rewind(found[1])
        return found[0]

    def _memo_lookup(self, memo: dict[str, list[tuple[str, Type]]], first: str,
                     offset: int) -> tuple[Type, int] | None:
        """The remembered type whose text starts at `offset` with the keyword `first`, and
        where that text ends; None when `memo` holds none."""
        entries = memo.get(first)
        if entries:
            text = self.source.text
            for spelled, parsed in entries:
                if spelled == first or text.startswith(spelled, offset):
                    return parsed, offset + len(spelled)
        return None

    def _remember(self, memo: dict[str, list[tuple[str, Type]]], token, parsed: Type) -> None:
        """Keep the text `parsed` was read from (see above)."""
        spelled = self.source.text[token.offset:self.prev_end]
        if spelled != token.spelling and (not spelled.endswith(">") or "!" in spelled):
            return
        entries = memo.setdefault(token.spelling, [])
        if len(entries) < _MEMO_ENTRIES:
            entries.append((spelled, parsed))

    def _cuda_tile_type(self) -> Type:
        if self.consume_keyword("token"):
            return TOKEN
        parsed = self.parse_optional_type()
        if parsed is not None:
            return parsed
        if self.token.spelling.startswith("preview$"):
            from .preview import parse_preview_type
            return parse_preview_type(self, qualified=False)
        mnemonic = self.parse_keyword()
        parser = self._dialect_parsers.get(mnemonic)
        if parser is None:
            raise self.asm_error(self.token.offset, f"unknown type: {mnemonic}")
        return parser(self.token.offset)

    # ---- builtin types --------------------------------------------------

    def _builtin_type(self) -> Type | None:
        spelling = self.token.spelling
        spelling = FLOAT_SPELLING_ALIASES.get(spelling, spelling)
        if spelling in MLIR_FLOAT_WIDTHS:
            self.advance()
            return _ELEMENT_TYPES.get(spelling) or FloatType(spelling)
        for prefix in _INTEGER_PREFIXES:
            digits = spelling[len(prefix):]
            if spelling.startswith(prefix) and digits.isdigit() and not digits.startswith("0"):
                self.advance()
                if prefix == "i":
                    if len(digits) > 8:         # (MLIR's widths stop at 2**24 - 1)
                        self.fail("invalid integer width")
                    return _ELEMENT_TYPES.get(spelling) or IntegerType(int(digits))
                return BuiltinType(spelling)
        if spelling in ("index", "none"):
            self.advance()
            return BuiltinType(spelling)
        if spelling in _BRACKETED_BUILTINS:
            return BuiltinType(self._bracketed_spelling())
        return None

    def _bracketed_spelling(self) -> str:
        """Keep a builtin type such as ``tensor<4xf32>`` by its spelling."""
        keyword = self.advance().spelling
        if not self.token.is_punct("<"):
            raise self.wrong_token("expected '<'")
        return keyword + self.balanced_angle("unbalanced '<' in type")

    def _function_type(self) -> FunctionType:
        inputs = self.parse_comma_list(self.parse_type, "paren")
        self.expect_punct("->")
        if self.token.is_punct("("):
            results = self.parse_comma_list(self.parse_type, "paren")
        else:
            results = [self.parse_type()]
        return FunctionType(tuple(inputs), tuple(results))

    def _extended_type(self) -> Type:
        token = self.advance()
        name = token.spelling[1:]
        if name == DIALECT and self.token.is_punct("<"):
            self.advance()
            from .preview import parse_preview_type
            return parse_preview_type(self, qualified=True)
        dialect, dot, mnemonic = name.partition(".")
        if not dot:
            if name not in self.type_aliases:
                raise self.error_at(token.offset, f"undefined symbol alias id '{name}'")
            return self.type_aliases[name]
        if dialect != DIALECT:
            raise self.error_at(token.offset, f"dialect '{dialect}' is unknown")
        parser = self._dialect_parsers.get(mnemonic)
        if parser is None:
            raise self.error_at(token.offset + len(dialect) + 2,
                                f"unknown  type `{mnemonic}` in dialect `{DIALECT}`")
        with self.asm_context(""):
            return parser(self.token.offset)

    # ---- cuda_tile types -------------------------------------------------------------------

    def _checked(self, t: Type, offset: int) -> Type:
        # Nested types were checked as they were parsed: only this one's own rules remain.
        message = t.own_error()
        if message is not None:
            raise self.asm_error(offset, message)
        return t

    def _ptr(self, start: int) -> Type:
        """``ptr<E>``, or 13.4's ``ptr<E, <none>>`` (``ptr<E, #cuda_tile.ptr_attr<none>>``)."""
        self.expect_punct("<")
        pointee = self.parse_cuda_tile_type()
        ptr_attr = self._ptr_attr(short=True) if self.consume_punct(",") else None
        self.expect_punct(">")
        return self._checked(PointerType(pointee, ptr_attr), start)

    def _ptr_attr(self, short: bool) -> PointerAttribute:
        """A ``ptr_attr``: ``#cuda_tile.ptr_attr<kind>``, or ``<kind>`` where `short`."""
        token = self.token
        if token.kind is HASH_IDENTIFIER and token.spelling == f"#{DIALECT}.ptr_attr":
            self.advance()
        elif not (short and token.is_punct("<")):
            raise self.asm_error(token.offset, "expected ptr_attr")
        self.expect_punct("<")
        offset = self.token.offset
        keyword = self.parse_keyword()
        self.expect_punct(">")
        try:
            return enum_case(PointerAttribute, keyword)
        except KeyError:
            raise self.asm_error(offset, f"unknown ptr_attr kind '{keyword}', expected one "
                                 "of: " + ", ".join(PointerAttribute.keywords())) from None

    def _tile(self, start: int) -> Type:
        self.expect_punct("<")
        shape = self.parse_dimension_list(allow_dynamic=False)
        element = self.parse_cuda_tile_type()
        self.expect_punct(">")
        return self._checked(TileType(tuple(shape), element), start)  # type: ignore[arg-type]

    def _tensor_view(self, start: int) -> Type:
        self.expect_punct("<")
        shape = self.parse_dimension_list(allow_dynamic=True)
        element = self.parse_cuda_tile_type()
        strides: list[int | None] = []
        ptr_attr: PointerAttribute | None = None
        if not shape:
            if self.consume_punct(","):
                if self.consume_keyword("strides"):
                    raise self.asm_error(self.token.offset,
                                         "strides must not be provided for 0-d tiles")
                if self.token.kind is not HASH_IDENTIFIER:
                    raise self.asm_error(self.token.offset,
                                         "unexpected token after element type in 0-d "
                                         "tensor_view")
                ptr_attr = self._ptr_attr(short=False)
        else:
            if not self.consume_punct(","):
                raise self.asm_error(self.token.offset, "expected 'strides'")
            self.expect_keyword("strides")
            self.expect_punct("=")
            strides = self.parse_comma_list(self._stride, "square", "strides array")
            if self.consume_punct(","):
                ptr_attr = self._ptr_attr(short=False)
        self.expect_punct(">")
        return self._checked(TensorViewType(element, tuple(shape), tuple(strides), ptr_attr),
                             start)

    def _stride(self) -> int | None:
        if self.consume_punct("?"):
            return None
        offset = self.token.offset
        value = self.parse_optional_integer()
        if value is None:
            raise self.asm_error(self.token.offset,
                                 "expected either 64-bit integer or question mark")
        if value <= 0:
            raise self.asm_error(offset, f"expected strictly positive integer, got {value}")
        return value

    def _view_tile_shape(self, check_now: bool = True) -> tuple[list[int], int]:
        """``tile=(AxB)``; returns the dims and the offset of ``(`` for later range checks."""
        self.expect_keyword("tile")
        self.expect_punct("=")
        offset = self.token.offset
        self.expect_punct("(")
        dims = self.parse_dimension_list(allow_dynamic=False, with_trailing_x=False)
        self.expect_punct(")")
        if check_now:
            self._check_i32_dims(dims, offset)  # type: ignore[arg-type]
        return dims, offset  # type: ignore[return-value]

    def _check_i32_dims(self, dims: list[int], offset: int) -> None:
        for i, dim in enumerate(dims):
            if dim <= 0 or dim > _I32_MAX:
                raise self.asm_error(offset, f"tile dimension {i} exceeds i32 limitations (got "
                                    f"{dim}, expected strictly positive and less than or "
                                    f"equal to {_I32_MAX})")

    def _optional_padding(self) -> PaddingValue | None:
        if not self.consume_keyword("padding_value"):
            return None
        offset = self.token.offset
        self.expect_punct("=")
        keyword = self.parse_keyword()
        try:
            padding = enum_case(PaddingValue, keyword)
        except KeyError:
            raise self.asm_error(offset, 'invalid padding_value attribute specification. Got "'
                                f'{keyword}" but expect one of: '
                                + ", ".join(PaddingValue.keywords())) from None
        self.expect_punct(",")
        return padding

    def _view_tensor_view(self) -> TensorViewType:
        parsed = self.parse_cuda_tile_type()
        if not isinstance(parsed, TensorViewType):
            raise self.asm_error(self.token.offset,
                                 f"expected 'tensor_view' type, but got {quoted(parsed)}")
        return parsed

    def _optional_dim_map(self) -> tuple[int, ...] | None:
        if not self.consume_punct(","):
            return None
        self.expect_keyword("dim_map")
        self.expect_punct("=")
        return tuple(self.parse_comma_list(lambda: self.parse_integer(32), "square", "dim map"))

    def _partition_view(self, start: int) -> Type:
        self.expect_punct("<")
        tile_shape, _ = self._view_tile_shape()
        self.expect_punct(",")
        padding = self._optional_padding()
        tensor_view = self._view_tensor_view()
        dim_map = self._optional_dim_map()
        self.expect_punct(">")
        return self._checked(PartitionViewType(tuple(tile_shape), tensor_view, dim_map, padding),
                             start)

    def _strided_view(self, start: int) -> Type:
        self.expect_punct("<")
        tile_shape, _ = self._view_tile_shape()
        self.expect_punct(",")
        self.expect_keyword("traversal_strides")
        self.expect_punct("=")
        strides = self.parse_comma_list(lambda: self.parse_integer(32), "square")
        self.expect_punct(",")
        padding = self._optional_padding()
        tensor_view = self._view_tensor_view()
        dim_map = self._optional_dim_map()
        self.expect_punct(">")
        return self._checked(StridedViewType(tuple(tile_shape), tuple(strides), tensor_view,
                                             dim_map, padding), start)

    def _gather_scatter_view(self, start: int) -> Type:
        self.expect_punct("<")
        tile_shape, dims_offset = self._view_tile_shape(check_now=False)
        self.expect_punct(",")
        padding = self._optional_padding()
        tensor_view = self._view_tensor_view()
        self.expect_punct(",")
        self.expect_keyword("sparse_dim")
        self.expect_punct("=")
        sparse_dim = self.parse_integer(32, signed=False)
        self.expect_punct(">")
        self._check_i32_dims(tile_shape, dims_offset)
        return self._checked(GatherScatterViewType(tuple(tile_shape), tensor_view, sparse_dim,
                                                   padding), start)


def parse_type(text: str, filename: str | None = None) -> Type:
    """Parse and verify one type, qualified (``!cuda_tile.tile<4xf32>``) or short (``tile<4xf32>``).

    Raises `ParseError` for text that is not a type and `ParseError` with the
    verifier's message for a type that breaks the spec's rules; either carries a
    diagnostic with line and column.
    """
    parser = TypeParser(text, filename or "<type>")
    parsed = parser.parse_cuda_tile_type()
    if not parser.at_end():
        raise parser.error_here(
            f"found trailing characters: '{text[parser.token.offset:].strip()}'")
    return parsed


__all__ = ["ParseError", "TypeParser", "parse_type"]
