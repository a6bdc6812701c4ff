"""The coverage map as a dependency-free SVG picture, and the layout the PNG shares.

`layout` places everything once (titles, axis numbers, one box per cell, the tensor's
outline per slice, notes and legend); `render` writes it as SVG text: cells are rects
filled with their tile's colour (the terminal's xterm-256 colours), padding cells hatched,
each with its label (and the padding value, when the view has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

from .coverage import Cell, Coverage, Grid
from .terminal import cell_colour, legend, summary, xterm_rgb

#: Pixel sizes: a character of the 12px monospace font (for sizing only), a cell's
#: height, the margin, one line of text.
CHAR_W = 8
CELL_H = 32
MARGIN = 12
LINE_H = 18
#: Fills of cells that are not one tile's, and of the hatching over padding cells.
NONE_FILL = "#ffffff"
PADDING_FILL = "#e4e4e4"
HATCH_STROKE = "#a8a8a8"


def fill_of(cell: Cell) -> str:
    """A cell's fill: its tile's colour, the overlap colour, white for no tile; padding
    cells are hatched (`PADDING_FILL` under grey lines)."""
    code = cell_colour(cell)
    if cell.kind == "padding":
        return "url(#padding)"
    if code is None:
        return NONE_FILL
    return "#%02x%02x%02x" % xterm_rgb(code)


@dataclass(frozen=True)
class Box:
    """A drawn cell: where it is and what it shows."""

    x: int
    y: int
    w: int
    h: int
    cell: Cell


@dataclass(frozen=True)
class Text:
    """A line of text: its anchor point, the text, and its style (``title``, ``axis``,
    ``label``, ``small``, ``legend``); ``anchor`` is ``start``, ``middle`` or ``end``."""

    x: float
    y: float
    text: str
    style: str
    anchor: str = "start"


@dataclass(frozen=True)
class Layout:
    """Everything drawn and where: picture size, cell boxes, the tensor's outline in each
    slice, and the texts."""

    width: int
    height: int
    boxes: tuple[Box, ...]
    outlines: tuple[tuple[int, int, int, int], ...]
    texts: tuple[Text, ...]


def layout(cov: Coverage) -> Layout:
    """Place the picture of `cov`: title and summary, then each slice (its title, column
    numbers above, row numbers at the left, the cells), then notes and legend."""
    grids = cov.grids()
    value = cov.view.padding_value
    padding = value.keyword if value is not None else None
    longest = max([len(c.label) for g in grids for row in g.cells for c in row]
                  + [len(str(grids[0].cols.drawn - 1)), len(padding or "")])
    cell_w = longest * CHAR_W + 10
    rows = grids[0].rows
    left = MARGIN + (len(str(rows.drawn - 1)) * CHAR_W + 8 if rows else 0)
    texts = [Text(MARGIN, MARGIN + 12, str(cov.view), "title"),
             Text(MARGIN, MARGIN + 12 + LINE_H, summary(cov), "legend")]
    boxes: list[Box] = []
    outlines: list[tuple[int, int, int, int]] = []
    y = MARGIN + 2 * LINE_H + 8
    for grid in grids:
        y = _place_grid(grid, cov, left, y, cell_w, boxes, outlines, texts, padding)
    lines = [f"note: {n}" for n in cov.notes()] + ["legend:"] + [
        f"  {text}  {meaning}" for text, meaning in legend(cov, grids)]
    for line in lines:
        y += LINE_H
        texts.append(Text(MARGIN, y, line, "legend"))
    width = max([left + grids[0].cols.drawn * cell_w + MARGIN]
                + [len(t.text) * CHAR_W + 2 * MARGIN for t in texts if t.style != "label"])
    return Layout(width, y + MARGIN, tuple(boxes), tuple(outlines), tuple(texts))


def _place_grid(grid: Grid, cov: Coverage, left: int, y: int, cell_w: int, boxes: list[Box],
                outlines: list[tuple[int, int, int, int]], texts: list[Text],
                padding: str | None) -> int:
    """Place one slice from height `y`; the height after it."""
    if grid.title:
        texts.append(Text(MARGIN, y + 12, grid.title, "legend"))
        y += LINE_H
    for c in range(grid.cols.drawn):
        texts.append(Text(left + c * cell_w + cell_w / 2, y + 12, str(c), "axis", "middle"))
    top = y + LINE_H
    for r, row in enumerate(grid.cells):
        ry = top + r * CELL_H
        if grid.rows:
            texts.append(Text(left - 6, ry + CELL_H / 2 + 4, str(r), "axis", "end"))
        for c, cell in enumerate(row):
            if cell.kind == "outside":
                continue
            x = left + c * cell_w
            boxes.append(Box(x, ry, cell_w, CELL_H, cell))
            _place_label(cell, x + cell_w / 2, ry, padding, texts)
    if not grid.past_edge:
        height = min(grid.rows.extent, grid.rows.drawn) if grid.rows else 1
        outlines.append((left, top, min(grid.cols.extent, grid.cols.drawn) * cell_w,
                         height * CELL_H))
    return top + len(grid.cells) * CELL_H + 8


def _place_label(cell: Cell, cx: float, y: int, padding: str | None,
                 texts: list[Text]) -> None:
    """A cell's label at its centre; a padding cell's padding value under it."""
    if cell.kind == "padding" and padding is not None:
        texts.append(Text(cx, y + 14, cell.label, "label", "middle"))
        texts.append(Text(cx, y + 26, padding, "small", "middle"))
    else:
        texts.append(Text(cx, y + CELL_H / 2 + 4, cell.label, "label", "middle"))


STYLE = ("text{font-family:monospace;font-size:12px;fill:#000}"
         ".title{font-weight:bold}.axis{fill:#555}.small{font-size:9px;fill:#444}"
         "rect.cell{stroke:#888;stroke-width:1}rect.edge{fill:none;stroke:#000;"
         "stroke-width:2}")


def render(cov: Coverage) -> str:
    """The SVG document of `cov`."""
    lay = layout(cov)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{lay.width}" '
           f'height="{lay.height}" viewBox="0 0 {lay.width} {lay.height}">',
           f"<style>{STYLE}</style>",
           '<defs><pattern id="padding" width="6" height="6" patternUnits="userSpaceOnUse" '
           f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{PADDING_FILL}"/>'
           f'<line x1="0" y1="0" x2="0" y2="6" stroke="{HATCH_STROKE}" stroke-width="2"/>'
           "</pattern></defs>",
           f'<rect width="{lay.width}" height="{lay.height}" fill="#ffffff"/>']
    for b in lay.boxes:
        out.append(f'<rect class="cell {b.cell.kind}" x="{b.x}" y="{b.y}" width="{b.w}" '
                   f'height="{b.h}" fill="{fill_of(b.cell)}"/>')
    for x, y, w, h in lay.outlines:
        out.append(f'<rect class="edge" x="{x}" y="{y}" width="{w}" height="{h}"/>')
    for t in lay.texts:
        anchor = "" if t.anchor == "start" else f' text-anchor="{t.anchor}"'
        space = ' xml:space="preserve"' if t.style == "legend" else ""
        out.append(f'<text class="{t.style}" x="{t.x:g}" y="{t.y:g}"{anchor}{space}>'
                   f"{escape(t.text)}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["Box", "Layout", "Text", "fill_of", "layout", "render"]
