"""The coverage map as terminal text: a grid of tile-index labels, one ANSI 256-colour
background per tile index (or plain text), then a legend.

The colours are xterm-256 codes, and `xterm_rgb` turns one into the RGB the SVG and PNG
pictures use, so every picture of a view shows the same colours.
"""

from __future__ import annotations

from string import ascii_lowercase

from .coverage import Cell, Coverage, Grid, index_text

#: Light backgrounds (xterm-256 codes) that black text reads well on, cycled by tile index.
PALETTE: tuple[int, ...] = (153, 223, 194, 218, 229, 152, 181, 189, 158, 217, 187, 195)
#: Backgrounds of the cells that are not one tile's: padding, overlap (several tiles).
PADDING_COLOUR = 252
OVERLAP_COLOUR = 209
#: The intensities of the xterm-256 colour cube's six levels.
CUBE_LEVELS = (0, 95, 135, 175, 215, 255)
RESET = "\x1b[0m"


def colour_slot(index: tuple[int, ...]) -> int:
    """The palette slot of a tile index: ``sum(index[t] * 5**(n-1-t)) mod len(PALETTE)``, so
    that indices one apart in any dimension (5**m is never a multiple of 12) never share a
    colour."""
    weight = sum(i * 5 ** (len(index) - 1 - t) for t, i in enumerate(index))
    return weight % len(PALETTE)


def tile_colour(index: tuple[int, ...]) -> int:
    """The xterm-256 background of the cells tile `index` covers alone."""
    return PALETTE[colour_slot(index)]


def cell_colour(cell: Cell) -> int | None:
    """The xterm-256 background of `cell` (None: the terminal's own)."""
    if cell.kind == "padding":
        return PADDING_COLOUR
    if cell.kind != "tile":
        return None
    return tile_colour(cell.indices[0]) if cell.count == 1 else OVERLAP_COLOUR


def xterm_rgb(code: int) -> tuple[int, int, int]:
    """The RGB of an xterm-256 colour of the 6x6x6 cube (16-231) or the grey ramp (232-255)."""
    if code >= 232:
        level = 8 + 10 * (code - 232)
        return level, level, level
    code -= 16
    return CUBE_LEVELS[code // 36], CUBE_LEVELS[code // 6 % 6], CUBE_LEVELS[code % 6]


def _paint(text: str, colour: int | None) -> str:
    """`text` on xterm-256 background `colour`, in black (unchanged for None)."""
    return text if colour is None else f"\x1b[48;5;{colour}m\x1b[30m{text}{RESET}"


def cell_width(grids: list[Grid]) -> int:
    """The width of every cell: its longest label or column number."""
    labels = [len(c.label) for g in grids for row in g.cells for c in row]
    return max(labels + [len(str(grids[0].cols.drawn - 1)), 3])


def _grid_lines(grid: Grid, width: int, colour: bool) -> list[str]:
    """The header of column numbers, then one line per row (row number first)."""
    label_width = len(str(grid.rows.drawn - 1)) if grid.rows else 0
    pad = " " if colour else ""
    gap = "" if colour else " "
    lead = " " * label_width + (" " if grid.rows else "")
    header = lead + gap.join(f"{pad}{c:^{width}}{pad}" for c in range(grid.cols.drawn))
    lines = [grid.title] if grid.title else []
    lines.append(header.rstrip())
    for r, row in enumerate(grid.cells):
        head = f"{r:>{label_width}} " if grid.rows else ""
        cells = gap.join(_paint(f"{pad}{c.label:^{width}}{pad}", None if not colour
                                else cell_colour(c)) for c in row)
        lines.append((head + cells).rstrip())
    return lines


def summary(cov: Coverage) -> str:
    """One line on the tensor and its index space (or the gather/scatter load drawn)."""
    shape = "x".join(str(n) for n in cov.shape)
    tensor = f"tensor {shape}x{cov.view.element_type}"
    tile = cov.view.tile_type.format(qualified=False)
    if cov.gather is None:
        space = "x".join(str(n) for n in cov.index_space)
        return f"{tensor}: index space {space}, each index loads a {tile}"
    view = cov.view
    dense = [d for d in range(cov.rank) if d != view.sparse_dim]
    others = "".join(f", index {i} in dimension {d}" for d, i in zip(dense, cov.index))
    return (f"{tensor}: one load of a {tile} with gather indices {list(cov.gather)} along "
            f"dimension {view.sparse_dim}{others}")


def legend(cov: Coverage, grids: list[Grid]) -> list[tuple[str, str]]:
    """(sample label, meaning) for each kind of cell drawn, in a fixed order."""
    kinds = {c.kind for g in grids for row in g.cells for c in row}
    overlap = any(c.count > 1 for g in grids for row in g.cells for c in row)
    sample = index_text(tuple(ascii_lowercase[8:8 + cov.rank])) if cov.gather is None else "p"
    padding = cov.view.padding_value
    loads = (f"loads give {padding.keyword} (padding_value)" if padding is not None
             else "loads give unspecified values (no padding_value)")
    covered = (f"the element tile index ({sample}) covers" if cov.gather is None else
               f"the element loaded into position p of the tile along dimension "
               f"{cov.view.sparse_dim} (gather index p)")
    table = [
        ("tile", f"({sample})", covered),
        ("padding", f"[{sample}]",
         f"past the tensor's edge, in that tile: {loads}, stores are masked"),
        ("none", "( )", "an element no tile covers" if cov.gather is None
         else "an element the load does not touch"),
        ("overlap", "(a|b)", "covered by two tile indices a and b; (xn): by n"),
    ]
    if overlap:
        kinds.add("overlap")
    return [(text, meaning) for kind, text, meaning in table if kind in kinds]


def _colour_key(grids: list[Grid], limit: int = 24) -> list[str]:
    """The tile indices drawn, each in its colour (at most `limit`, then a count)."""
    seen: dict[tuple[int, ...], None] = {}
    for g in grids:
        for row in g.cells:
            for c in row:
                if c.kind == "tile" and c.count == 1:
                    seen.setdefault(c.indices[0], None)
    shown = [_paint(f" ({index_text(i)}) ", tile_colour(i)) for i in list(seen)[:limit]]
    more = f" and {len(seen) - limit} more" if len(seen) > limit else ""
    return ["colours: " + "".join(shown) + more] if shown else []


def render(cov: Coverage, colour: bool = False) -> str:
    """The whole terminal picture: the view, a summary, each slice's grid, what was left
    out, and the legend; `colour` adds ANSI 256-colour backgrounds."""
    grids = cov.grids()
    width = cell_width(grids)
    lines = [str(cov.view), summary(cov)]
    for grid in grids:
        lines += [""] + _grid_lines(grid, width, colour)
    notes = cov.notes()
    lines += [""] + [f"note: {n}" for n in notes] + ["legend:"]
    entries = legend(cov, grids)
    key_width = max(len(text) for text, _ in entries)
    lines += [f"  {text:<{key_width}}  {meaning}" for text, meaning in entries]
    if colour:
        lines += _colour_key(grids)
    return "\n".join(lines) + "\n"


__all__ = ["OVERLAP_COLOUR", "PADDING_COLOUR", "PALETTE", "cell_colour", "colour_slot",
           "legend", "render", "summary", "tile_colour", "xterm_rgb"]
