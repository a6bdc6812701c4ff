"""The enumerations of the Tile IR spec, with the integer values bytecode stores.

Member names are the spec keywords upper-cased (``RoundingMode.NEAREST_EVEN`` is
``nearest_even``); `keyword` and `from_keyword` convert between the two.
"""

from __future__ import annotations

import enum

from .versions import V13_1, V13_4, V13_5, Version


class SpecEnum(enum.IntEnum):
    """An enum whose members print as lower-case spec keywords."""

    @property
    def keyword(self) -> str:
        """The spelling used in Tile IR text, e.g. ``nearest_even``."""
        return self.name.lower()

    @property
    def since(self) -> Version:
        """The release that introduced this case."""
        return _SINCE.get((type(self).__name__, self.name), V13_1)

    @classmethod
    def from_keyword(cls, keyword: str):
        """The member spelled `keyword`; raises KeyError naming the valid ones."""
        for member in cls:
            if member.keyword == keyword:
                return member
        raise KeyError(f"{keyword!r} is not one of: " + ", ".join(cls.keywords()))

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        """Every case's spelling, in value order."""
        return tuple(m.keyword for m in cls)

    def __str__(self) -> str:
        return self.keyword


class Signedness(SpecEnum):
    """How an op interprets signless integer operands."""

    UNSIGNED = 0
    SIGNED = 1


class IntegerOverflow(SpecEnum):
    """What an integer op may assume about wrap-around (violations are undefined behaviour)."""

    NONE = 0
    NO_SIGNED_WRAP = 1
    NO_UNSIGNED_WRAP = 2
    NO_WRAP = 3


class RoundingMode(SpecEnum):
    """Rounding of a float result (or of a float-to-int conversion)."""

    NEAREST_EVEN = 0
    ZERO = 1
    NEGATIVE_INF = 2
    POSITIVE_INF = 3
    APPROX = 4
    FULL = 5
    NEAREST_INT_TO_ZERO = 6
    NEAREST_AWAY = 7


class ComparisonOrdering(SpecEnum):
    """Whether a float comparison involving NaN is true (unordered) or false (ordered)."""

    UNORDERED = 0
    ORDERED = 1


class ComparisonPredicate(SpecEnum):
    """The relation a comparison tests."""

    EQUAL = 0
    NOT_EQUAL = 1
    LESS_THAN = 2
    LESS_THAN_OR_EQUAL = 3
    GREATER_THAN = 4
    GREATER_THAN_OR_EQUAL = 5


class AtomicRMWMode(SpecEnum):
    """The modification an atomic read-modify-write applies."""

    AND = 0
    OR = 1
    XOR = 2
    ADD = 3
    ADDF = 4
    MAX = 5
    MIN = 6
    UMAX = 7
    UMIN = 8
    XCHG = 9


class MemoryScope(SpecEnum):
    """Which threads may access a location concurrently."""

    TL_BLK = 0
    DEVICE = 1
    SYS = 2


class MemoryOrderingSemantics(SpecEnum):
    """The memory-model ordering of a load, store or atomic."""

    WEAK = 0
    RELAXED = 1
    ACQUIRE = 2
    RELEASE = 3
    ACQ_REL = 4


class PaddingValue(SpecEnum):
    """The value an out-of-bounds view load yields."""

    ZERO = 0
    NEG_ZERO = 1
    NAN = 2
    POS_INF = 3
    NEG_INF = 4


class PointerAttribute(SpecEnum):
    """The ``ptr_attr`` a pointer or tensor_view type may carry (13.4, which defines only
    ``none``; 13.5 adds unicast and multicast, the memory the multimem ops address)."""

    NONE = 0
    UNICAST = 1
    MULTICAST = 2


class MultimemReductionKind(SpecEnum):
    """The reduction a multimem load-reduce or reduce applies across the multicast
    destinations (13.5)."""

    ADD = 0
    MIN = 1
    MAX = 2
    AND = 3
    OR = 4
    XOR = 5
    UMIN = 6
    UMAX = 7


class SymbolVisibility(SpecEnum):
    """Visibility of a global symbol."""

    PUBLIC = 0
    PRIVATE = 1


# Cases introduced after 13.1, keyed by (enum name, member name).
_SINCE: dict[tuple[str, str], Version] = {
    # Round to nearest, ties away from zero: used by 13.4 producers (cuTile Python 1.6,
    # cutile-rs) for ftof, e.g. f32 -> tf32 as cvt.rna does.
    ("RoundingMode", "NEAREST_AWAY"): V13_4,
    ("PointerAttribute", "NONE"): V13_4,
    ("PointerAttribute", "UNICAST"): V13_5,
    ("PointerAttribute", "MULTICAST"): V13_5,
    **{("MultimemReductionKind", name): V13_5 for name in
       ("ADD", "MIN", "MAX", "AND", "OR", "XOR", "UMIN", "UMAX")},
}
