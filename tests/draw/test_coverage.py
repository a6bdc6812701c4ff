"""The coverage map of `tileir.draw.coverage`, checked two ways.

1. Against the spec's own drawings: every table of spec 5.6 ("Type System", 13.5) that
   shows which tile covers which element is encoded below by hand, row by row as the
   spec draws it (`(0,1)` a tile index, `(   )` an element no tile covers), and the map
   must equal it over the part the spec draws.
2. Against the interpreter: each tile index of a view is loaded through
   ``load_view_tko`` on a tensor whose elements hold their own element index (padding
   NaN), and the elements each tile brings back, and how many padded ones, must be
   exactly those the map gives.
"""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import re
from dataclasses import replace
from math import prod

import numpy as np
import pytest

from tileir import parse_type
from tileir.draw.coverage import (MAX_CELLS, Coverage, CoverageError, coverage_map,
                                  tile_start)
from tileir.enums import PaddingValue
from tileir.interp import launch
from tileir.types import TensorViewType
from conftest import entry_module as kernel


def spec_rows(drawing: str) -> list[list[tuple[int, ...] | None]]:
    """A spec table as rows of tile indices: ``(0,1)`` is (0, 1), ``(   )`` is None."""
    rows = []
    for line in drawing.strip().splitlines():
        cells = re.findall(r"\(([^)]*)\)", line)
        rows.append([tuple(int(p) for p in c.split(",")) if c.strip() else None
                     for c in cells])
    return rows


def drawn(cov: Coverage, rows: int, cols: int) -> list[list[tuple[int, ...] | None]]:
    """The map's top-left corner in the same form (an element several tiles cover fails)."""
    out = []
    for r in range(rows):
        row = []
        for c in range(cols):
            covers = list(cov.covers((r, c)))
            assert len(covers) <= 1, f"element ({r}, {c}) is covered by {covers}"
            row.append(covers[0] if covers else None)
        out.append(row)
    return out


def row_of(cov: Coverage) -> list[list[tuple[int, ...]]]:
    """A rank-1 map: for each drawn coordinate, every index covering it."""
    return [list(cov.covers((c,))) for c in range(cov.axes[0].drawn)]


# ---- the spec's drawings (5.6.2 partition_view, 5.6.4 strided_view) ------------------

# 5.6.2 example (1), !pv_1d, and 5.6.4 example (1), !sv_1d_tra2 ("identical to
# PartitionView"): the table under each.
PV_1D = "(0) (0) (1) (1) (2) (2) (3) (3) (4) (4) (5) (5) (6) (6) (7) (7)"


@pytest.mark.parametrize("text", [
    "partition_view<tile=(2), tensor_view<16xf32, strides=[1]>>",
    "strided_view<tile=(2), traversal_strides=[2], tensor_view<16xf32, strides=[1]>>",
])
def test_spec_1d_tables(text):
    cov = coverage_map(parse_type(text))
    assert row_of(cov) == [[i] for i in spec_rows(PV_1D)[0]]
    assert cov.index_space == (8,)


# 5.6.2 example (2), !pv_2d: the first 9 rows and 10 columns the spec draws.
PV_2D = """
(0,0) (0,0) (0,1) (0,1) (0,2) (0,2) (0,3) (0,3) (0,4) (0,4)
(0,0) (0,0) (0,1) (0,1) (0,2) (0,2) (0,3) (0,3) (0,4) (0,4)
(0,0) (0,0) (0,1) (0,1) (0,2) (0,2) (0,3) (0,3) (0,4) (0,4)
(0,0) (0,0) (0,1) (0,1) (0,2) (0,2) (0,3) (0,3) (0,4) (0,4)
(1,0) (1,0) (1,1) (1,1) (1,2) (1,2) (1,3) (1,3) (1,4) (1,4)
(1,0) (1,0) (1,1) (1,1) (1,2) (1,2) (1,3) (1,3) (1,4) (1,4)
(1,0) (1,0) (1,1) (1,1) (1,2) (1,2) (1,3) (1,3) (1,4) (1,4)
(1,0) (1,0) (1,1) (1,1) (1,2) (1,2) (1,3) (1,3) (1,4) (1,4)
(2,0) (2,0) (2,1) (2,1) (2,2) (2,2) (2,3) (2,3) (2,4) (2,4)
"""
# 5.6.2 example (3), !pv_2d_transposed (dim_map=[1, 0]): 6 rows, 10 columns drawn.
PV_2D_TRANSPOSED = """
(0,0) (0,0) (0,0) (0,0) (1,0) (1,0) (1,0) (1,0) (2,0) (2,0)
(0,0) (0,0) (0,0) (0,0) (1,0) (1,0) (1,0) (1,0) (2,0) (2,0)
(0,1) (0,1) (0,1) (0,1) (1,1) (1,1) (1,1) (1,1) (2,1) (2,1)
(0,1) (0,1) (0,1) (0,1) (1,1) (1,1) (1,1) (1,1) (2,1) (2,1)
(0,2) (0,2) (0,2) (0,2) (1,2) (1,2) (1,2) (1,2) (2,2) (2,2)
(0,2) (0,2) (0,2) (0,2) (1,2) (1,2) (1,2) (1,2) (2,2) (2,2)
"""
# 5.6.4 example (4), !sv_2d (traversal strides [4,3]: a one-column gap): 9 x 10 drawn.
SV_2D = """
(0,0) (0,0) (   ) (0,1) (0,1) (   ) (0,2) (0,2) (   ) (0,3)
(0,0) (0,0) (   ) (0,1) (0,1) (   ) (0,2) (0,2) (   ) (0,3)
(0,0) (0,0) (   ) (0,1) (0,1) (   ) (0,2) (0,2) (   ) (0,3)
(0,0) (0,0) (   ) (0,1) (0,1) (   ) (0,2) (0,2) (   ) (0,3)
(1,0) (1,0) (   ) (1,1) (1,1) (   ) (1,2) (1,2) (   ) (1,3)
(1,0) (1,0) (   ) (1,1) (1,1) (   ) (1,2) (1,2) (   ) (1,3)
(1,0) (1,0) (   ) (1,1) (1,1) (   ) (1,2) (1,2) (   ) (1,3)
(1,0) (1,0) (   ) (1,1) (1,1) (   ) (1,2) (1,2) (   ) (1,3)
(2,0) (2,0) (   ) (2,1) (2,1) (   ) (2,2) (2,2) (   ) (2,3)
"""
# 5.6.4 example (5), !sv_2d_transposed (dim_map=[1, 0]: a one-row gap): 9 x 10 drawn.
SV_2D_TRANSPOSED = """
(0,0) (0,0) (0,0) (0,0) (1,0) (1,0) (1,0) (1,0) (2,0) (2,0)
(0,0) (0,0) (0,0) (0,0) (1,0) (1,0) (1,0) (1,0) (2,0) (2,0)
(   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   )
(0,1) (0,1) (0,1) (0,1) (1,1) (1,1) (1,1) (1,1) (2,1) (2,1)
(0,1) (0,1) (0,1) (0,1) (1,1) (1,1) (1,1) (1,1) (2,1) (2,1)
(   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   )
(0,2) (0,2) (0,2) (0,2) (1,2) (1,2) (1,2) (1,2) (2,2) (2,2)
(0,2) (0,2) (0,2) (0,2) (1,2) (1,2) (1,2) (1,2) (2,2) (2,2)
(   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   ) (   )
"""
TV_64X16 = "tensor_view<64x16xf32, strides=[16, 1]>"


@pytest.mark.parametrize("text, drawing, space", [
    (f"partition_view<tile=(4x2), {TV_64X16}>", PV_2D, (16, 8)),
    (f"partition_view<tile=(4x2), {TV_64X16}, dim_map=[1, 0]>", PV_2D_TRANSPOSED, (4, 32)),
    # (the spec's text lacks the comma after traversal_strides, which NVIDIA's parser
    # rejects; docs/types-and-numerics.md)
    (f"strided_view<tile=(4x2), traversal_strides=[4,3], {TV_64X16}>", SV_2D, (16, 6)),
    (f"strided_view<tile=(4x2), traversal_strides=[4,3], {TV_64X16}, dim_map=[1, 0]>",
     SV_2D_TRANSPOSED, (4, 22)),
], ids=["pv_2d", "pv_2d_transposed", "sv_2d", "sv_2d_transposed"])
def test_spec_2d_tables(text, drawing, space):
    cov = coverage_map(parse_type(text))
    expected = spec_rows(drawing)
    assert drawn(cov, len(expected), len(expected[0])) == expected
    assert cov.index_space == space


# 5.6.2 example (4), !pv_2d_padded, and 5.6.4 example (6), !sv_2d_padded: an 8x2 tensor
# in 1x4 tiles; "the right half of the below table consists of padded NaN values" (the
# spec's trailing ", >" is dropped: NVIDIA's parser rejects it).
PADDED = """
(0,0) (0,0) (0,0) (0,0)
(1,0) (1,0) (1,0) (1,0)
(2,0) (2,0) (2,0) (2,0)
(3,0) (3,0) (3,0) (3,0)
(4,0) (4,0) (4,0) (4,0)
"""


@pytest.mark.parametrize("text", [
    "partition_view<tile=(1x4), padding_value = nan, tensor_view<8x2xf32, strides=[2,1]>>",
    "strided_view<tile=(1x4), traversal_strides=[1,4], padding_value = nan, "
    "tensor_view<8x2xf32, strides=[2,1]>>",
], ids=["pv_2d_padded", "sv_2d_padded"])
def test_spec_padded_tables(text):
    cov = coverage_map(parse_type(text))
    assert drawn(cov, 5, 4) == spec_rows(PADDED)
    kinds = [[cov.cell((r, c)).kind for c in range(4)] for r in range(8)]
    assert kinds == [["tile", "tile", "padding", "padding"]] * 8
    assert (cov.axes[0].drawn, cov.axes[1].drawn) == (8, 4)


# 5.6.4 example (2), !sv_1d_tra3: "one out of three elements are skipped ... tile 5 is
# partially out of bounds": 17 cells, the last past the 16-element tensor.
SV_1D_TRA3 = "(0) (0) ( ) (1) (1) ( ) (2) (2) ( ) (3) (3) ( ) (4) (4) ( ) (5) (5)"


def test_spec_strided_gap_table():
    cov = coverage_map(parse_type(
        "strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>"))
    assert row_of(cov) == [[i] if i else [] for i in spec_rows(SV_1D_TRA3)[0]]
    assert [cov.cell((c,)).kind for c in (2, 15, 16)] == ["none", "tile", "padding"]
    assert cov.index_space == (6,)


# 5.6.4 example (3), !sv_1d_tra1: overlapping tiles; "the second row indicates overlap,
# not a second dimension", shifted one element right; tile 7 is partially out of bounds.
SV_1D_TRA1 = ["(0) (0) (2) (2) (4) (4) (6) (6)",
              "    (1) (1) (3) (3) (5) (5) (7) (7)"]


def test_spec_strided_overlap_table():
    cov = coverage_map(parse_type(
        "strided_view<tile=(2), traversal_strides=[1], tensor_view<8xf32, strides=[1]>>"))
    expected: list[list[tuple[int, ...]]] = [[] for _ in range(9)]
    for shift, line in enumerate(SV_1D_TRA1):
        for c, index in enumerate(spec_rows(line)[0]):
            expected[c + shift].append(index)
    assert row_of(cov) == [sorted(e) for e in expected]
    assert cov.cell((1,)).label == "(0|1)"
    assert cov.cell((8,)).kind == "padding"


# 5.6.1 examples (1) and (2), !gsv_1d and !gsv_2d: one load with
# gather_indices=[6, 1, 4, 3] (resp. [5, 1, 7, 3] and col_idx=0); each element shows its
# position in the loaded tile (the result row), ( ) the elements not gathered.
GSV_1D = "( ) (1) ( ) (3) (2) ( ) (0) ( )"
GSV_2D = """
( ) ( ) ( ) ( ) ( ) ( ) ( ) ( )
(1) (1) (1) (1) ( ) ( ) ( ) ( )
( ) ( ) ( ) ( ) ( ) ( ) ( ) ( )
(3) (3) (3) (3) ( ) ( ) ( ) ( )
( ) ( ) ( ) ( ) ( ) ( ) ( ) ( )
(0) (0) (0) (0) ( ) ( ) ( ) ( )
( ) ( ) ( ) ( ) ( ) ( ) ( ) ( )
(2) (2) (2) (2) ( ) ( ) ( ) ( )
"""


def test_spec_gather_tables():
    gsv_1d = parse_type("gather_scatter_view<tile=(4), tensor_view<8xf32, strides=[1]>, "
                        "sparse_dim=0>")
    cov = coverage_map(gsv_1d, gather=[6, 1, 4, 3])
    assert row_of(cov) == [[i] if i else [] for i in spec_rows(GSV_1D)[0]]
    assert cov.index_space == (8,)
    gsv_2d = parse_type("gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, "
                        "strides=[8, 1]>, sparse_dim=0>")
    cov = coverage_map(gsv_2d, gather=[5, 1, 7, 3], index=[0])
    assert drawn(cov, 8, 8) == spec_rows(GSV_2D)
    assert cov.index_space == (8, 8)


# ---- against the interpreter ---------------------------------------------------------

def _dense_strides(shape: tuple[int, ...]) -> list[int]:
    return [prod(shape[d + 1:]) for d in range(len(shape))]


def _tv(shape: tuple[int, ...]) -> str:
    return (f"tensor_view<{'x'.join(map(str, shape))}xf32, "
            f"strides=[{','.join(map(str, _dense_strides(shape)))}]>")


def _make_tv(name: str, ptr: str, shape: tuple[int, ...]) -> str:
    return (f"    {name} = make_tensor_view {ptr}, shape = [{', '.join(map(str, shape))}], "
            f"strides = [{', '.join(map(str, _dense_strides(shape)))}] : {_tv(shape)}")


def _nan_view(text: str, shape: tuple[int, ...]):
    """The view of `text` over a dense f32 tensor of `shape`, padded with NaN."""
    view = parse_type(text)
    tensor = TensorViewType(view.element_type, shape, tuple(_dense_strides(shape)))
    return replace(view, tensor_view=tensor, padding_value=PaddingValue.NAN)


def load_and_store(view, shape: tuple[int, ...], setup: list[str], indices: list[str],
                   index_types: str, out: tuple[int, ...], slots: list[str],
                   grid: tuple[int, ...]) -> np.ndarray:
    """Launch a kernel that loads the tile of `view` (over a dense f32 tensor of `shape`
    holding its own element indices) at `indices` (SSA values the lines `setup` make;
    their types as the load spells them, `index_types`), and stores it at tile index
    `slots` of a partition view over an `out`-shaped output; the output."""
    vt = view.format(qualified=False)
    tile = view.tile_shape
    tile_t = f"tile<{'x'.join(map(str, tile))}xf32>"
    opv = f"partition_view<tile=({'x'.join(map(str, tile))}), {_tv(out)}>"
    body = "\n".join([
        _make_tv("%tv", "%src", shape),
        f"    %v = make_{vt.split('<')[0]} %tv : {vt}",
        *setup,
        f"    %t, %tok = load_view_tko weak %v[{', '.join(indices)}] : {vt}, {index_types} "
        f"-> {tile_t}, token",
        _make_tv("%ov", "%dst", out),
        f"    %op = make_partition_view %ov : {opv}",
        f"    %s = store_view_tko weak %t, %op[{', '.join(slots)}] : {tile_t}, {opv}, "
        "tile<i32> -> token",
    ])
    src = np.arange(prod(shape), dtype=np.float32)
    dst = np.full(prod(out), -1.0, np.float32)
    launch(kernel(body, "%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>"), "k", grid, [src, dst])
    return dst.reshape(out)


def interpreter_tiles(text: str, shape: tuple[int, ...]) -> dict[tuple[int, ...], np.ndarray]:
    """Each tile index of a partition or strided view mapped to the tile
    ``load_view_tko`` gives on a tensor holding its own element indices (NaN padding):
    one tile block per index, each storing its tile to its own slot of the output."""
    view = _nan_view(text, shape)
    space, tile = view.index_space_shape(), view.tile_shape
    rank = len(tile)
    out = tuple(n * t for n, t in zip(space, tile))
    ids = [f"%b{k}" for k in range(rank)]
    dst = load_and_store(view, shape, ["    %b0, %b1, %b2 = get_tile_block_id : tile<i32>"],
                         ids, "tile<i32>", out, ids, tuple(space) + (1,) * (3 - rank))
    return {index: dst[tuple(slice(i * t, (i + 1) * t) for i, t in zip(index, tile))]
            for index in np.ndindex(*space)}


def interpreter_map(tiles: dict, shape: tuple[int, ...]
                    ) -> tuple[dict[tuple[int, ...], list], dict[tuple[int, ...], int]]:
    """From loaded tiles: each element's covering tile keys, and each key's padded count."""
    covers: dict[tuple[int, ...], list] = {c: [] for c in np.ndindex(*shape)}
    padded = {}
    for key, values in tiles.items():
        padded[key] = int(np.isnan(values).sum())
        for v in values[~np.isnan(values)].astype(np.int64):
            covers[tuple(int(i) for i in np.unravel_index(v, shape))].append(key)
    return covers, padded


def coverage_padding(cov: Coverage) -> dict[tuple[int, ...], int]:
    """How many padding cells the map gives each tile index (cells past the edge)."""
    counts: dict[tuple[int, ...], int] = {}
    for coord in np.ndindex(*(a.drawn for a in cov.axes)):
        if any(c >= n for c, n in zip(coord, cov.shape)):
            for index in cov.covers(coord):
                counts[index] = counts.get(index, 0) + 1
    return counts


INTERPRETER_CASES = [
    ("partition_view<tile=(4x4), tensor_view<4x6xf32, strides=[6,1]>>", (5, 6)),
    ("partition_view<tile=(2x4), tensor_view<4x6xf32, strides=[6,1]>, dim_map=[1, 0]>",
     (5, 7)),
    ("partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>", (10,)),
    ("strided_view<tile=(2), traversal_strides=[3], tensor_view<4xf32, strides=[1]>>", (16,)),
    ("strided_view<tile=(2x2), traversal_strides=[1,1], tensor_view<4x4xf32, strides=[4,1]>>",
     (3, 5)),
    ("strided_view<tile=(2x4), traversal_strides=[3,2], tensor_view<4x4xf32, strides=[4,1]>, "
     "dim_map=[1, 0]>", (6, 7)),
    ("partition_view<tile=(2x2x4), tensor_view<4x4x4xf32, strides=[16,4,1]>, "
     "dim_map=[2, 0, 1]>", (3, 6, 3)),
]


@pytest.mark.parametrize("text, shape", INTERPRETER_CASES)
def test_map_agrees_with_the_interpreter(text, shape):
    tiles = interpreter_tiles(text, shape)
    covers, padded = interpreter_map(tiles, shape)
    cov = coverage_map(parse_type(text), shape)
    assert {c: sorted(cov.covers(c)) for c in np.ndindex(*shape)} == \
        {c: sorted(k) for c, k in covers.items()}
    mine = coverage_padding(cov)
    assert {k: n for k, n in padded.items() if n} == mine


def interpreter_gather(text: str, shape: tuple[int, ...], gather: list[int],
                       index: list[int]) -> np.ndarray:
    """The tile one ``load_view_tko`` through a gather/scatter view gives (NaN padding)."""
    view = _nan_view(text, shape)
    dense = iter(index)
    names, types, consts = [], [], []
    for d in range(len(view.tile_shape)):
        if d == view.sparse_dim:
            consts.append(f"    %g = constant <i32: {gather}> : tile<{len(gather)}xi32>")
            names.append("%g")
            types.append(f"tile<{len(gather)}xi32>")
        else:
            consts.append(f"    %i{d} = constant <i32: {next(dense)}> : tile<i32>")
            names.append(f"%i{d}")
            types.append("tile<i32>")
    consts.append("    %z = constant <i32: 0> : tile<i32>")
    return load_and_store(view, shape, consts, names, ", ".join(types), view.tile_shape,
                          ["%z"] * len(view.tile_shape), (1,))


GATHER_CASES = [
    ("gather_scatter_view<tile=(4), tensor_view<8xf32, strides=[1]>, sparse_dim=0>", (8,),
     [6, 1, 6, 9], []),
    ("gather_scatter_view<tile=(2x4), tensor_view<4x6xf32, strides=[6,1]>, sparse_dim=0>",
     (4, 6), [3, 5], [4]),
    ("gather_scatter_view<tile=(2x4), tensor_view<4x6xf32, strides=[6,1]>, sparse_dim=1>",
     (3, 6), [0, 7, 2, 2], [1]),
]


@pytest.mark.parametrize("text, shape, gather, index", GATHER_CASES)
def test_gather_map_agrees_with_the_interpreter(text, shape, gather, index):
    values = interpreter_gather(text, shape, gather, index)
    view = parse_type(text)
    positions = np.indices(values.shape)[view.sparse_dim]      # each element's label p
    covers, padded = interpreter_map({(int(p),): values[positions == p]
                                      for p in range(len(gather))}, shape)
    cov = coverage_map(view, shape, gather=gather, index=index)
    assert {c: sorted(cov.covers(c)) for c in np.ndindex(*shape)} == \
        {c: sorted(k) for c, k in covers.items()}
    assert {k: n for k, n in padded.items() if n} == coverage_padding(cov)


@pytest.mark.parametrize("text, steps", [
    ("partition_view<tile=(4x2), tensor_view<64x16xf32, strides=[16,1]>>", (4, 2)),
    ("strided_view<tile=(4x2), traversal_strides=[4,3], tensor_view<64x16xf32, "
     "strides=[16,1]>>", (4, 3)),
    ("gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, sparse_dim=0>",
     (1, 1)),
])
def test_tile_start_steps(text, steps):
    view = parse_type(text)
    assert [tile_start(view, t, 5) for t in range(2)] == [5 * s for s in steps]


# ---- bounds -------------------------------------------------------------------------

def test_huge_tensor_draws_only_the_cap():
    view = parse_type("strided_view<tile=(1024x1024), traversal_strides=[1,1], "
                      "tensor_view<?x?xf32, strides=[?,1]>>")
    cov = coverage_map(view, (1 << 40, 1 << 40))
    assert [a.drawn for a in cov.axes] == [MAX_CELLS, MAX_CELLS]
    assert cov.index_space == (1 << 40, 1 << 40)
    assert cov.count((63, 10)) == 64 * 11
    assert cov.cell((63, 10)).label == "(x704)"
    assert cov.notes() == [
        f"dimension {d}: drawing coordinates 0-63 of {(1 << 40) + 1023} ({1 << 40} in the "
        "tensor); the rest is left out" for d in (0, 1)]


def test_rank_3_draws_capped_slices():
    view = parse_type("partition_view<tile=(1x2x2), tensor_view<20x4x4xf32, "
                      "strides=[16,4,1]>>")
    cov = coverage_map(view)
    grids = cov.grids()
    assert [g.lead for g in grids] == [(i,) for i in range(8)]
    assert grids[2].title == "[2, :, :]"
    assert cov.notes() == ["drawing the first 8 of 20 slices"]


def test_leading_padding_slice_is_marked():
    view = parse_type("partition_view<tile=(2x2x2), tensor_view<3x2x2xf32, "
                      "strides=[4,2,1]>>")
    grids = coverage_map(view).grids()
    assert [g.title for g in grids] == ["[0, :, :]", "[1, :, :]", "[2, :, :]",
                                        "[3, :, :] (past the tensor's edge)"]
    assert {c.kind for row in grids[3].cells for c in row} == {"padding"}


@pytest.mark.parametrize("kwargs, message", [
    (dict(shape=(4,)), "expected 2 extents, got 1"),
    (dict(shape=(0, 4)), "tensor extents must be strictly positive, got [0, 4]"),
    (dict(gather=[1, 2]), "gather indices and an index are for a gather_scatter_view only"),
])
def test_bad_requests(kwargs, message):
    view = parse_type("partition_view<tile=(2x2), tensor_view<4x4xf32, strides=[4,1]>>")
    with pytest.raises(CoverageError) as info:
        coverage_map(view, **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("kwargs, message", [
    (dict(), "a gather_scatter_view load takes 4 gather indices along sparse_dim 0, got none"),
    (dict(gather=[1, 2]), "a gather_scatter_view load takes 4 gather indices along "
                          "sparse_dim 0, got 2"),
    (dict(gather=[0, 1, 2, 3], index=[8]),
     "index 8 of dimension 1 is outside the index space [8, 8]"),
    (dict(gather=[0, 1, 2, 3], index=[0, 0]), "expected 1 indices for dimensions [1], got 2"),
])
def test_bad_gather_requests(kwargs, message):
    view = parse_type("gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, "
                      "sparse_dim=0>")
    with pytest.raises(CoverageError) as info:
        coverage_map(view, **kwargs)
    assert str(info.value) == message
