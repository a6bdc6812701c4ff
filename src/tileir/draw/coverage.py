"""Which tile index covers each element of a tensor seen through a tiled view (spec 5.6).

The spec's view types are separable: tile dimension ``t`` of the tile at index ``I`` runs
along tensor dimension ``dim_map[t]`` over ``[start, start + tile_shape[t])``, where
`tile_start` gives ``start`` (partition view: ``I[t] * tile_shape[t]``; strided view:
``I[t] * traversal_strides[t]``; gather/scatter view: the index itself along a dense
dimension, the gather index tile's elements along ``sparse_dim``).  The step between
consecutive indices is the interpreter's own (`interp.semantics.views`, which loads and
stores through views with it): a drawing cannot disagree with what a kernel does.  This
package sits above the interpreter and below the command line.  An element is covered
by index ``I`` exactly when every one of its coordinates lies in the matching range, so
the coverage of a tensor is the product of one `Axis` per tensor dimension: for each
coordinate, the indices along that axis whose range holds it.  The index space itself
(`TiledView.index_space_shape`) is tileir's own (types.py).

Coordinates past the tensor's edge that some tile still reaches are the padding cells of
that edge tile (loads give the padding value there, stores are masked).  Only the first
`MAX_CELLS` coordinates of each axis and the first `MAX_SLICES` 2-D slices are ever
computed, so a huge tensor or index space costs no more than a small one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice, product
from math import prod
from typing import Iterator, Sequence

from ..interp.semantics.views import START_STEP
from ..types import GatherScatterViewType, TiledView

#: Most coordinates drawn along one tensor dimension (padding cells included).
MAX_CELLS = 64
#: Most 2-D slices drawn of a tensor of rank 3 or more.
MAX_SLICES = 8
#: Most tile indices a cell lists by name; more are shown as a count.
MAX_LISTED = 2



class CoverageError(ValueError):
    """A request that names no drawable coverage (wrong shape, missing gather indices)."""


def tile_start(view: TiledView, t: int, index: int) -> int:
    """Where tile dimension `t` of the tile at `index` starts along its tensor dimension,
    by the interpreter's step (spec 5.6: a partition view's tiles abut, a strided view's
    start every traversal stride; a gather/scatter view's dense indices, and any view
    without a step there, name the first element themselves)."""
    step = START_STEP.get(type(view))
    return index * (step(view, t, view.tile_shape[t]) if step is not None else 1)


def target_dim(view: TiledView, t: int) -> int:
    """The tensor dimension tile dimension `t` runs along (``dim_map[t]``; identity for a
    gather/scatter view, which has no dim_map)."""
    dim_map = getattr(view, "dim_map", None)
    return dim_map[t] if dim_map else t


@dataclass(frozen=True)
class Axis:
    """One tensor dimension as drawn: its extent, how far the tiles reach along it, and,
    for each drawn coordinate, the labels of the indices covering it (None: a dense
    gather/scatter dimension, covered but not labelled)."""

    dim: int
    extent: int
    reach: int
    covers: tuple[tuple[int | None, ...], ...]

    @property
    def length(self) -> int:
        """Coordinates there are to draw: the tensor's, and the padding cells past it."""
        return max(self.extent, self.reach)

    @property
    def drawn(self) -> int:
        """Coordinates actually drawn (at most `MAX_CELLS`)."""
        return len(self.covers)


def _axis(dim: int, extent: int, spans: Iterator[tuple[int | None, int, int]],
          reach: int, cap: int) -> Axis:
    """An `Axis` from (label, start, size) spans, each covering ``[start, start + size)``;
    `spans` must start in ascending order so that those past the drawn part end it."""
    drawn = min(max(extent, reach), cap)
    covers: list[list[int | None]] = [[] for _ in range(drawn)]
    for label, start, size in spans:
        if start >= drawn:
            break
        for c in range(start, min(start + size, drawn)):
            covers[c].append(label)
    return Axis(dim, extent, reach, tuple(tuple(c) for c in covers))


def _grid_axis(view: TiledView, t: int, count: int, extent: int, cap: int) -> Axis:
    """Tile dimension `t` of a partition or strided view: indices ``0..count-1``."""
    size = view.tile_shape[t]
    spans = ((k, tile_start(view, t, k), size) for k in range(count))
    return _axis(target_dim(view, t), extent, spans, tile_start(view, t, count - 1) + size,
                 cap)


def _gather_axis(view: GatherScatterViewType, t: int, gather: Sequence[int],
                 index: int, extent: int, cap: int) -> Axis:
    """Tile dimension `t` of one gather/scatter load: along ``sparse_dim`` element p of the
    gather index tile names its coordinate (label p); along a dense dimension the tile
    covers ``tile_shape[t]`` elements from `index`."""
    if t == view.sparse_dim:
        spans = sorted(((p, g, 1) for p, g in enumerate(gather)), key=lambda s: s[1])
        return _axis(t, extent, iter(spans), max(gather) + 1, cap)
    start = tile_start(view, t, index)
    return _axis(t, extent, iter([(None, start, view.tile_shape[t])]),
                 start + view.tile_shape[t], cap)


@dataclass(frozen=True)
class Cell:
    """One drawn element position: its coordinates, what it is (``tile``: an element some
    tile covers; ``padding``: past the tensor's edge, inside a tile; ``none``: an element
    no tile covers; ``outside``: past the edge and in no tile), how many indices cover it
    and the first few of them."""

    coord: tuple[int, ...]
    kind: str
    count: int
    indices: tuple[tuple[int, ...], ...]

    @property
    def label(self) -> str:
        """The cell's text: ``(0,1)``, ``(0|1)`` for two indices, ``(x4)`` for more, ``( )``
        for no tile; padding cells in brackets (``[0,1]``); empty outside."""
        if self.kind == "outside":
            return ""
        if self.count == 0:
            return "( )"
        inner = ("|".join(index_text(i) for i in self.indices) if self.count <= MAX_LISTED
                 else f"x{self.count}")
        return f"[{inner}]" if self.kind == "padding" else f"({inner})"


def index_text(index: tuple[int, ...]) -> str:
    """A tile index as the spec's tables write it inside parentheses: ``0,1``."""
    return ",".join(str(i) for i in index)


@dataclass(frozen=True)
class Grid:
    """One 2-D picture: the cells of the last two dimensions (one row for a rank-1
    tensor) at fixed leading coordinates `lead`, whose extents are `lead_extents`."""

    lead: tuple[int, ...]
    lead_extents: tuple[int, ...]
    rows: Axis | None
    cols: Axis
    cells: tuple[tuple[Cell, ...], ...]

    @property
    def past_edge(self) -> bool:
        """Whether the slice lies past the tensor's edge (every cell padding or outside)."""
        return any(c >= n for c, n in zip(self.lead, self.lead_extents))

    @property
    def title(self) -> str:
        """The slice's name, ``[1, :, :]`` (empty for rank 1 and 2)."""
        if not self.lead:
            return ""
        text = "[" + ", ".join(str(c) for c in self.lead) + ", :, :]"
        return text + (" (past the tensor's edge)" if self.past_edge else "")


@dataclass(frozen=True)
class Coverage:
    """The coverage map of `view` over a tensor of `shape`: one `Axis` per tensor
    dimension, and the index space (for a gather/scatter view: the one load drawn, given
    by its `gather` index tile and dense `index`)."""

    view: TiledView
    shape: tuple[int, ...]
    index_space: tuple[int, ...]
    axes: tuple[Axis, ...]
    gather: tuple[int, ...] | None = None
    index: tuple[int, ...] | None = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    def covers(self, coord: Sequence[int]) -> Iterator[tuple[int, ...]]:
        """Every tile index covering the element at `coord` (a drawn coordinate), in
        index-space order; a gather/scatter load's labels are tile positions along
        ``sparse_dim``."""
        parts = [self.axes[target_dim(self.view, t)].covers[coord[target_dim(self.view, t)]]
                 for t in range(self.rank)]
        for combo in product(*parts):
            yield tuple(k for k in combo if k is not None)

    def count(self, coord: Sequence[int]) -> int:
        """How many tile indices cover the element at `coord`."""
        return prod(len(self.axes[d].covers[c]) for d, c in enumerate(coord))

    def cell(self, coord: tuple[int, ...]) -> Cell:
        """The `Cell` at drawn coordinates `coord`."""
        count = self.count(coord)
        inside = all(c < n for c, n in zip(coord, self.shape))
        kind = ("tile" if count else "none") if inside else ("padding" if count else "outside")
        listed = tuple(islice(self.covers(coord), MAX_LISTED))
        return Cell(coord, kind, count, listed)

    def grids(self) -> list[Grid]:
        """The 2-D slices to draw (at most `MAX_SLICES`), leading coordinates in order."""
        cols = self.axes[-1]
        rows = self.axes[-2] if self.rank >= 2 else None
        leads = islice(product(*(range(a.drawn) for a in self.axes[:-2])), MAX_SLICES)
        out = []
        for lead in leads:
            row_range = range(rows.drawn) if rows else [None]
            cells = tuple(tuple(self.cell(lead + ((r,) if r is not None else ()) + (c,))
                                for c in range(cols.drawn)) for r in row_range)
            out.append(Grid(lead, self.shape[:-2], rows, cols, cells))
        return out

    def slice_count(self) -> int:
        """How many 2-D slices there are to draw in all (capped ones included)."""
        return prod(a.length for a in self.axes[:-2])

    def notes(self) -> list[str]:
        """What was left out of the picture, one sentence each."""
        notes = [f"dimension {a.dim}: drawing coordinates 0-{a.drawn - 1} of {a.length} "
                 f"({a.extent} in the tensor); the rest is left out"
                 for a in self.axes if a.drawn < a.length]
        drawn = min(prod(a.drawn for a in self.axes[:-2]), MAX_SLICES)
        if self.rank >= 3 and drawn < self.slice_count():
            notes.append(f"drawing the first {drawn} of {self.slice_count()} slices")
        return notes


def coverage_map(view: TiledView, shape: Sequence[int] | None = None, *,
             gather: Sequence[int] | None = None, index: Sequence[int] | None = None,
             cap: int = MAX_CELLS) -> Coverage:
    """The coverage map of `view` over a tensor of `shape` (default: the view's static
    shape).  A gather/scatter view draws one load: `gather` is its index tile along
    ``sparse_dim`` and `index` the indices of the other dimensions (default 0)."""
    extents = _extents(view, shape)
    space = tuple(int(n) for n in view.index_space_shape(extents))
    if isinstance(view, GatherScatterViewType):
        gather_t, index_t = _gather_args(view, extents, gather, index)
        dense = iter(index_t)
        axes = tuple(_gather_axis(view, t, gather_t,
                                  0 if t == view.sparse_dim else next(dense), extents[t], cap)
                     for t in range(view.index_rank))
        return Coverage(view, extents, space, axes, gather_t, index_t)
    if gather is not None or index is not None:
        raise CoverageError("gather indices and an index are for a gather_scatter_view only")
    by_dim = {target_dim(view, t): _grid_axis(view, t, space[t], extents[target_dim(view, t)],
                                              cap) for t in range(view.index_rank)}
    return Coverage(view, extents, space, tuple(by_dim[d] for d in range(len(extents))))


def _extents(view: TiledView, shape: Sequence[int] | None) -> tuple[int, ...]:
    """The tensor's extents: `shape`, or the view's own static shape."""
    extents = tuple(view.tensor_view.shape if shape is None else shape)
    if len(extents) != view.tensor_view.rank:
        raise CoverageError(f"expected {view.tensor_view.rank} extents, got {len(extents)}")
    if any(n is None for n in extents):
        raise CoverageError("the tensor's shape has dynamic extents ('?') without values")
    if any(n <= 0 for n in extents):
        raise CoverageError(f"tensor extents must be strictly positive, got "
                            f"{list(extents)}")
    return tuple(int(n) for n in extents)


def _gather_args(view: GatherScatterViewType, extents: tuple[int, ...],
                 gather: Sequence[int] | None, index: Sequence[int] | None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A gather/scatter load's index tile and dense indices, checked as the spec asks:
    ``tile_shape[sparse_dim]`` non-negative gather indices (they may lie out of bounds),
    and dense indices inside the index space (the tensor's shape)."""
    size = view.tile_shape[view.sparse_dim]
    if gather is None or len(gather) != size:
        got = "none" if gather is None else str(len(gather))
        raise CoverageError(f"a gather_scatter_view load takes {size} gather indices along "
                            f"sparse_dim {view.sparse_dim}, got {got}")
    if any(g < 0 for g in gather):
        raise CoverageError(f"gather indices are unsigned, got {list(gather)}")
    dense_dims = [d for d in range(view.index_rank) if d != view.sparse_dim]
    index_t = tuple(index) if index is not None else (0,) * len(dense_dims)
    if len(index_t) != len(dense_dims):
        raise CoverageError(f"expected {len(dense_dims)} indices for dimensions "
                            f"{dense_dims}, got {len(index_t)}")
    for d, i in zip(dense_dims, index_t):
        if not 0 <= i < extents[d]:
            raise CoverageError(f"index {i} of dimension {d} is outside the index space "
                                f"{list(extents)}")
    return tuple(int(g) for g in gather), index_t


__all__ = ["Axis", "Cell", "Coverage", "CoverageError", "Grid", "MAX_CELLS", "MAX_SLICES",
           "coverage_map", "index_text", "target_dim", "tile_start"]
