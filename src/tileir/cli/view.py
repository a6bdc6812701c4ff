"""``tileir view``: draw which tile index covers each element of the tensor under a view.

The view is a type (``partition_view<...>``, ``strided_view<...>``,
``gather_scatter_view<...>``, with or without ``!cuda_tile.``) or the view a
``make_*_view`` op makes on a line of a Tile IR file (``--op FILE:LINE``).  The picture is
printed for a terminal (ANSI colours when stdout is one) or written as SVG or PNG (``-o``).
Every bad input ends with one line on stderr (``FILE:LINE:COL: error: ...`` where there is
a location) and exit status 2; an ``-o`` file or stdout that cannot be written, with one
line and exit status 1 (as every tileir command).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import Any, Callable

from ..api import parse
from ..bytecode import is_bytecode
from ..diagnostics import TileIRError
from ..draw import png, svg, terminal
from ..draw.coverage import MAX_CELLS, MAX_SLICES, Coverage, CoverageError, coverage_map
from ..ir import location_of
from ..syntax.type_parser import parse_type
from ..types import GatherScatterViewType, TiledView, Type
from .common import CliError, read_bytes, write_output

#: The ops whose result is a tiled view, as ``--op`` finds them.
VIEW_OPS = ("cuda_tile.make_partition_view", "cuda_tile.make_strided_view",
            "cuda_tile.make_gather_scatter_view")

DESCRIPTION = """\
Draw, for each element of the tensor under a tiled view, the tile index that covers it:
the index-space coordinates a load_view_tko / store_view_tko takes, as in the tables of
spec 5.6.  Cells past the tensor's edge that an edge tile still covers are drawn in
brackets ([0,1]): there loads give the padding value and stores are masked.  ( ) marks an
element no tile covers; (0|1) one two tiles cover; (x4) one four cover.  A tensor of rank
3 or more is drawn as 2-D slices of its last two dimensions.  At most {cells} coordinates
per dimension and {slices} slices are drawn.

examples:
  tileir view 'partition_view<tile=(2x4), tensor_view<3x6xf32, strides=[6,1]>>'
  tileir view 'strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>'
  tileir view --op kernel.mlir:12 --shape 100,16 -o view.svg
  tileir view 'gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, \
sparse_dim=0>' --gather 5,1,7,3
"""


class ViewError(Exception):
    """Bad input: one line, ``where: error: message`` (just ``error: message`` without a
    location)."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.line = f"{where}: error: {message}" if where else f"error: {message}"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``tileir view`` with its options on `subparsers` (build_parser's)."""
    p = subparsers.add_parser(
        "view", help="draw which tile index covers each element of a view's tensor",
        description=DESCRIPTION.format(cells=MAX_CELLS, slices=MAX_SLICES),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("type", nargs="?", metavar="TYPE",
                   help="a partition_view, strided_view or gather_scatter_view type "
                   "(with or without the !cuda_tile. prefix)")
    p.add_argument("--op", metavar="FILE:LINE",
                   help="draw instead the view made by the make_partition_view, "
                   "make_strided_view or make_gather_scatter_view op on line LINE of a "
                   "Tile IR text file")
    p.add_argument("--shape", metavar="D0,D1,...",
                   help="the tensor's extents, one per dimension: needed where the "
                   "tensor_view has a dynamic extent (?); static extents must match")
    p.add_argument("--gather", metavar="I0,I1,...",
                   help="gather_scatter_view: the load's gather index tile along "
                   "sparse_dim (tile_shape[sparse_dim] element indices, out of bounds "
                   "allowed)")
    p.add_argument("--index", metavar="I,...",
                   help="gather_scatter_view: the load's index in each other dimension, "
                   "in order (default 0)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write a picture instead of printing: FILE.svg (no dependencies) "
                   "or FILE.png (needs Pillow: the draw extra)")
    colour = p.add_mutually_exclusive_group()
    colour.add_argument("--color", dest="color", action="store_true", default=None,
                        help="colour the terminal output even when stdout is not a "
                        "terminal")
    colour.add_argument("--no-color", dest="color", action="store_false", default=None,
                        help="plain text, each cell holding its tile index label (the "
                        "default when stdout is not a terminal)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The ``view`` command: 0 when drawn, 2 (after one line on stderr) on bad input."""
    try:
        return _draw(args)
    except ViewError as exc:
        print(exc.line, file=sys.stderr)
        return 2


def _draw(args: argparse.Namespace) -> int:
    """Find the view, work out its coverage and draw it where asked."""
    writer = _writer(args.output)
    view, where = _view(args)
    shape = _shape(view, _ints(args.shape, "--shape"), where)
    try:
        cov = coverage_map(view, shape, gather=_ints(args.gather, "--gather"),
                           index=_ints(args.index, "--index"))
    except CoverageError as exc:
        raise ViewError(_hint(view, str(exc)), where) from None
    if writer is None:
        sys.stdout.write(terminal.render(cov, _colour(args.color)))
        return 0
    write_output(writer(cov), args.output)
    return 0


#: The renderer of each ``-o`` suffix, and the module it needs (None: none).
WRITERS: dict[str, tuple[Callable[[Coverage], str | bytes], str | None]] = {
    ".svg": (svg.render, None),
    ".png": (png.render, "PIL"),
}


def _writer(path: str | None) -> Callable[[Coverage], str | bytes] | None:
    """The renderer for an ``-o`` path by its suffix (None: print), checked before any
    work: an unknown suffix or a PNG without Pillow is an error."""
    if path is None:
        return None
    found = WRITERS.get(os.path.splitext(path)[1].lower())
    if found is None:
        raise ViewError(f"cannot write a picture to '{path}': the file name must end in "
                        f"{' or '.join(WRITERS)}")
    render, needs = found
    if needs is not None:
        try:
            importlib.import_module(needs)  # (only to say at once that it is missing)
        except ImportError:
            raise ViewError(png.INSTALL_HINT) from None
    return render


def _colour(flag: bool | None) -> bool:
    """Colour when asked, else when stdout is a terminal (and NO_COLOR is unset)."""
    if flag is not None:
        return flag
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


def _view(args: argparse.Namespace) -> tuple[TiledView, str | None]:
    """The tiled view type to draw and the location to report errors at."""
    if (args.type is None) == (args.op is None):
        raise ViewError("give either a view TYPE or --op FILE:LINE"
                        + (", not both" if args.op else ""))
    if args.op is not None:
        return _view_of_op(args.op)
    try:
        t = parse_type(args.type, "<type>")
    except TileIRError as exc:
        raise _diagnosed(exc) from None
    return _tiled(t, None), None


def _tiled(t: Type, where: str | None) -> TiledView:
    """`t` when it is a tiled view; an error naming what it is otherwise."""
    if not isinstance(t, TiledView):
        raise ViewError(f"expected a partition_view, strided_view or gather_scatter_view "
                        f"type, got '{t}'", where)
    return t


def _view_of_op(spec: str) -> tuple[TiledView, str]:
    """The view made by the view op on line LINE of FILE (``FILE:LINE``), and its location."""
    path, _, line_text = spec.rpartition(":")
    if not path or not line_text.isdigit() or int(line_text) < 1:
        raise ViewError(f"--op takes FILE:LINE (e.g. kernel.mlir:12), got '{spec}'")
    line = int(line_text)
    try:
        data = read_bytes(path)
    except CliError as exc:
        raise ViewError(str(exc)) from None
    if is_bytecode(data):
        raise ViewError(f"'{path}' is Tile IR bytecode: --op reads text (print it as text "
                        "with tileir show)")
    try:
        module = parse(data.decode("utf-8"), path)
    except UnicodeDecodeError as exc:
        raise ViewError(f"cannot read '{path}': not UTF-8 text (byte {exc.start})") from None
    except TileIRError as exc:
        raise _diagnosed(exc) from None
    ops = [op for op in module.walk() if op.name in VIEW_OPS
           and getattr(location_of(op), "line", None) == line]
    if len(ops) != 1:
        what = "no" if not ops else f"{len(ops)}"
        raise ViewError(f"{what} make_partition_view, make_strided_view or "
                        "make_gather_scatter_view op on this line"
                        + ("" if not ops else ": put the one to draw on a line of its own"),
                        f"{path}:{line}")
    where = str(location_of(ops[0]))
    return _tiled(ops[0].results[0].type, where), where


def _diagnosed(exc: TileIRError) -> ViewError:
    """The first diagnostic of `exc` as one line (``file:line:col: error: message``)."""
    diagnostic = exc.diagnostics[0]
    where = str(diagnostic.location) if diagnostic.location else None
    return ViewError(diagnostic.message, where)


#: The largest number an option takes: tensor extents and indices are i64 values.
MAX_INT = (1 << 63) - 1


def _ints(text: str | None, option: str) -> list[int] | None:
    """A comma-separated list of non-negative integers (``4,6``; ``4x6`` too) of at most
    `MAX_INT`, or None."""
    if text is None:
        return None
    items = [item.strip() for item in text.replace("x", ",").split(",")]
    if not all(re.fullmatch(r"[0-9]+", item) for item in items):  # (str.isdigit takes ²)
        raise ViewError(f"{option} takes non-negative integers separated by commas "
                        f"(e.g. {option} 4,6), got '{text}'")
    if any(len(item.lstrip("0")) > len(str(MAX_INT)) or int(item) > MAX_INT
           for item in items):        # (int() refuses more than 4,300 digits: not read)
        raise ViewError(f"{option} takes numbers of at most 2**63 - 1 (i64 values), got "
                        f"'{text}'")
    return [int(item) for item in items]


def _shape(view: TiledView, given: list[int] | None, where: str | None) -> list[int]:
    """The tensor's extents: the type's, with each ``?`` taken from `given` (--shape)."""
    declared = view.tensor_view.shape
    dynamic = [d for d, n in enumerate(declared) if n is None]
    if given is None:
        if dynamic:
            dims = ("dimension " if len(dynamic) == 1 else "dimensions ") + " and ".join(
                str(d) for d in dynamic)
            raise ViewError(f"the extent of {dims} of the tensor_view is '?': give "
                            f"the tensor's shape with --shape "
                            f"{','.join('D%d' % d for d in range(len(declared)))}", where)
        return list(declared)
    if len(given) != len(declared):
        raise ViewError(f"--shape gives {len(given)} extents for a tensor_view of rank "
                        f"{len(declared)}", where)
    for d, (n, g) in enumerate(zip(declared, given)):
        if n is not None and n != g:
            raise ViewError(f"--shape gives {g} for dimension {d}, whose extent is {n} in "
                            "the tensor_view", where)
    return given


def _hint(view: TiledView, message: str) -> str:
    """A coverage error, with the option that fixes it for a gather/scatter view."""
    if isinstance(view, GatherScatterViewType) and "gather indices along" in message:
        return message + " (give them with --gather)"
    return message


__all__ = ["add_parser", "run"]
