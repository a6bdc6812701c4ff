"""Run-time values that are not tiles: tensor views, tiled views and tokens.

A tile is a NumPy array (see `tileir.interp.semantics.registry`); the other run-time
values are small frozen objects:

* `TensorView`: ``(base address, shape, strides)`` with every ``?`` resolved, and the
  element type.  Shape and strides count elements, as the spec's ``tensor_view`` does.
* `TiledView`: a tensor view seen through a ``partition_view``, ``strided_view`` or
  ``gather_scatter_view`` type (whose static parameters stay in the type).
* `RegionExit`: raised by a terminator to end the region that runs it (see `machine`).
* `Token`: the set of memory accesses (ids in the tile block's access log) that are
  ordered before any operation consuming the token, held as a bitmask (a Python int).
  ``make_token`` is the empty set; an operation taking token T and performing access A
  returns ``T | {A}``; ``join_tokens`` is the union.  With checks off nothing is logged
  and tokens stay empty.  Because each token carries every access before it, "ordered before"
  is the transitive relation the memory model defines, checked by set membership.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any, Sequence

from ..types import Type


@dataclass(frozen=True)
class TensorView:
    """A strided tensor in global memory (element counts, not bytes)."""

    base: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    element_type: Type


@dataclass(frozen=True)
class TiledView:
    """A tensor view seen as a space of tiles, as its view type (`type`) describes."""

    tensor: TensorView
    type: Type

    @property
    def index_space_shape(self) -> tuple[int, ...]:
        """The shape of the space of valid indices (spec: per view type)."""
        return tuple(int(n) for n in self.type.index_space_shape(self.tensor.shape))


@dataclass(frozen=True)
class Token:
    """A memory-ordering token: the ids of the accesses ordered before its consumers, as a
    bitmask (bit i set: access i is ordered before), so a token costs one int and joining
    two is an OR.  An iterable of ids is accepted too and turned into the mask."""

    after: int = 0

    def __post_init__(self) -> None:
        """Accept a set of access ids as well as a mask."""
        if not isinstance(self.after, int):
            mask = 0
            for ident in self.after:
                mask |= 1 << int(ident)
            object.__setattr__(self, "after", mask)

    def orders(self, ident: int) -> bool:
        """Whether access `ident` is ordered before this token's consumers."""
        return bool((self.after >> ident) & 1)

    def with_access(self, ident: int) -> "Token":
        """The token an access `ident` ordered after this one returns."""
        return Token(self.after | (1 << ident))

    def join(self, other: "Token") -> "Token":
        """The token ordered after everything either token is ordered after."""
        return Token(self.after | other.after)


#: The token ``make_token`` produces: ordered after nothing.
FRESH_TOKEN = Token()


class RegionExit(Exception):
    """A terminator ran: `kind` is its op's short name, `values` its operands' values."""

    def __init__(self, kind: str, values: Sequence[Any]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.values = list(values)


__all__ = ["FRESH_TOKEN", "RegionExit", "TensorView", "TiledView", "Token"]
