"""The three pictures of a coverage map: terminal text (plain and ANSI colour), SVG, PNG.

Expected texts are written by hand from the spec's rules (which tile covers which
element, which cells lie past the tensor's edge) in the format docs/view.md describes;
colours are the xterm-256 palette's, worked out from xterm's definition of its colour
cube (levels 0, 95, 135, 175, 215, 255) and grey ramp (8 + 10 k).
"""
# ruff: noqa: E501  (expected terminal lines are as long as the tool prints them)

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

from tileir import parse_type
from tileir.draw import png, svg, terminal
from tileir.draw.coverage import coverage_map

# A 3x3 tensor in 2x2 tiles with zero padding: index space 2x2; tile (0,0) covers rows
# 0-1 and columns 0-1, tile (0,1) column 2 and the padding column 3, tile (1,0) row 2
# and the padding row 3, tile (1,1) element (2,2) and three padding cells.
PV_3X3 = "partition_view<tile=(2x2), padding_value = zero, tensor_view<3x3xf32, strides=[3,1]>>"

PV_3X3_TEXT = """\
!cuda_tile.partition_view<tile=(2x2), padding_value = zero, tensor_view<3x3xf32, strides=[3,1]>>
tensor 3x3xf32: index space 2x2, each index loads a tile<2x2xf32>

    0     1     2     3
0 (0,0) (0,0) (0,1) [0,1]
1 (0,0) (0,0) (0,1) [0,1]
2 (1,0) (1,0) (1,1) [1,1]
3 [1,0] [1,0] [1,1] [1,1]

legend:
  (i,j)  the element tile index (i,j) covers
  [i,j]  past the tensor's edge, in that tile: loads give zero (padding_value), stores are masked
"""


def test_plain_text_of_a_padded_partition_view():
    assert terminal.render(coverage_map(parse_type(PV_3X3))) == PV_3X3_TEXT


# Spec 5.6.4 example (2), !sv_1d_tra3: the spec's own table, with the padding cell of
# tile 5 in brackets.
SV_1D_TRA3_TEXT = """\
!cuda_tile.strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>
tensor 16xf32: index space 6, each index loads a tile<2xf32>

 0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16
(0) (0) ( ) (1) (1) ( ) (2) (2) ( ) (3) (3) ( ) (4) (4) ( ) (5) [5]

legend:
  (i)  the element tile index (i) covers
  [i]  past the tensor's edge, in that tile: loads give unspecified values (no padding_value), stores are masked
  ( )  an element no tile covers
"""


def test_plain_text_of_the_spec_strided_gap_example():
    view = parse_type("strided_view<tile=(2), traversal_strides=[3], "
                      "tensor_view<16xf32, strides=[1]>>")
    assert terminal.render(coverage_map(view)) == SV_1D_TRA3_TEXT


def test_plain_text_shows_overlap_and_the_cap():
    view = parse_type("strided_view<tile=(4), traversal_strides=[1], "
                      "tensor_view<100xf32, strides=[1]>>")
    text = terminal.render(coverage_map(view))
    cells = text.splitlines()[4].split()
    assert cells[:5] == ["(0)", "(0|1)", "(x3)", "(x4)", "(x4)"] and len(cells) == 64
    assert "note: dimension 0: drawing coordinates 0-63 of 103 (100 in the tensor); the " \
           "rest is left out" in text
    assert "  (a|b)  covered by two tile indices a and b; (xn): by n" in text


# A rank-3 tensor of 3 elements along dimension 0 in tiles of 2: one slice per leading
# coordinate; slice 3 lies past the edge, inside tile (1,0,0).
RANK_3_TEXT = """\
!cuda_tile.partition_view<tile=(2x1x1), tensor_view<3x1x1xf32, strides=[1,1,1]>>
tensor 3x1x1xf32: index space 2x1x1, each index loads a tile<2x1x1xf32>

[0, :, :]
     0
0 (0,0,0)

[1, :, :]
     0
0 (0,0,0)

[2, :, :]
     0
0 (1,0,0)

[3, :, :] (past the tensor's edge)
     0
0 [1,0,0]

legend:
  (i,j,k)  the element tile index (i,j,k) covers
  [i,j,k]  past the tensor's edge, in that tile: loads give unspecified values (no padding_value), stores are masked
"""


def test_plain_text_of_rank_3_slices():
    view = parse_type("partition_view<tile=(2x1x1), tensor_view<3x1x1xf32, "
                      "strides=[1,1,1]>>")
    assert terminal.render(coverage_map(view)) == RANK_3_TEXT


def _on(colour: int, text: str) -> str:
    return f"\x1b[48;5;{colour}m\x1b[30m{text}\x1b[0m"


def test_colour_text_paints_each_tile_and_padding():
    view = parse_type("partition_view<tile=(2), tensor_view<3xf32, strides=[1]>>")
    got = terminal.render(coverage_map(view), colour=True)
    # tile 0 takes the palette's first colour (153), tile 1 its second (223), padding 252
    row = _on(153, " (0) ") * 2 + _on(223, " (1) ") + _on(252, " [1] ")
    assert got.splitlines()[3:5] == ["  0    1    2    3", row]
    assert got.splitlines()[-1] == "colours: " + _on(153, " (0) ") + _on(223, " (1) ")


@pytest.mark.parametrize("code, rgb", [
    (16, (0, 0, 0)), (231, (255, 255, 255)), (196, (255, 0, 0)), (153, (175, 215, 255)),
    (232, (8, 8, 8)), (252, (208, 208, 208)), (255, (238, 238, 238)),
])
def test_xterm_colours(code, rgb):
    assert terminal.xterm_rgb(code) == rgb


def test_neighbouring_tiles_never_share_a_colour():
    for i in range(30):
        for j in range(30):
            here = terminal.tile_colour((i, j))
            assert here != terminal.tile_colour((i + 1, j))
            assert here != terminal.tile_colour((i, j + 1))
            assert terminal.tile_colour((i, j, 0)) != terminal.tile_colour((i, j, 1))


SVG_NS = "{http://www.w3.org/2000/svg}"


def test_svg_structure():
    root = ET.fromstring(svg.render(coverage_map(parse_type(PV_3X3))))
    rects = root.findall(f"{SVG_NS}rect")
    by_class: dict[str, list] = {}
    for r in rects:
        by_class.setdefault(r.get("class"), []).append(r)
    # 9 elements, 7 padding cells (column 3, row 3), one tensor outline, one background
    assert {k: len(v) for k, v in by_class.items()} == {
        None: 1, "cell tile": 9, "cell padding": 7, "edge": 1}
    fills = {r.get("fill") for r in by_class["cell tile"]}
    # tiles (0,0), (0,1), (1,0), (1,1): palette slots 0, 1, 5, 6 (index i*5 + j mod 12)
    assert fills == {"#afd7ff", "#ffd7af", "#afd7d7", "#d7afaf"}
    assert {r.get("fill") for r in by_class["cell padding"]} == {"url(#padding)"}
    first = by_class["cell tile"][0]
    assert (first.get("fill"), first.get("width"), first.get("height")) == ("#afd7ff", "50",
                                                                           "32")
    texts = [t.text for t in root.findall(f"{SVG_NS}text")]
    assert texts.count("(0,0)") == 4 and texts.count("[1,1]") == 3
    assert texts.count("zero") == 7                     # the padding value, per padding cell
    assert texts[0] == str(parse_type(PV_3X3))
    axis = [t.text for t in root.findall(f"{SVG_NS}text") if t.get("class") == "axis"]
    assert axis == ["0", "1", "2", "3"] * 2             # column numbers, then row numbers
    outline = by_class["edge"][0]
    assert (outline.get("width"), outline.get("height")) == (str(3 * 50), str(3 * 32))


def test_svg_escapes_the_type_text():
    text = svg.render(coverage_map(parse_type(PV_3X3)))
    assert "tensor_view&lt;3x3xf32" in text and "tensor_view<3x3" not in text


def test_png_cell_colours():
    image_module = pytest.importorskip("PIL.Image",
                                       reason="PNG output needs Pillow (the draw extra)")
    cov = coverage_map(parse_type(PV_3X3))
    data = png.render(cov)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = image_module.open(io.BytesIO(data))
    assert image.size == (svg.layout(cov).width, svg.layout(cov).height)
    boxes = {b.cell.coord: b for b in svg.layout(cov).boxes}
    for coord, rgb in [((0, 0), (175, 215, 255)), ((2, 2), (215, 175, 175)),
                       ((3, 3), (0xe4, 0xe4, 0xe4))]:
        box = boxes[coord]            # (a point inside the cell, clear of its label)
        assert image.getpixel((box.x + 3, box.y + 3)) == rgb


def test_png_without_pillow_says_how_to_install(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(png.PillowMissing) as info:
        png.render(coverage_map(parse_type(PV_3X3)))
    assert str(info.value) == ("PNG output needs Pillow: install the draw extra (pip install "
                               "'tileir[draw]', or pip install -e '.[draw]' in a checkout)")
