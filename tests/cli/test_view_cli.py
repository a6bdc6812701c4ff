"""``tileir view`` run as a subprocess (``python -m tileir view ...``) on real inputs.

Expected outputs are written by hand from the spec's tables (5.6) and the kernels' own
types; every bad input must give exactly one line on stderr, with its location where it
has one, a non-zero status and no traceback.
"""
# ruff: noqa: E501  (Tile IR text lines are as long as the types they spell)

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CUSTOM_REDUCE = "src/tileir/examples/kernels/custom_reduce.mlir"


def view(*args: str, stdin: str | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """Run ``python -m tileir view ARGS`` (stdout a pipe, so plain text by default)."""
    return subprocess.run([sys.executable, "-m", "tileir", "view", *args], cwd=cwd,
                          capture_output=True, text=True, input=stdin)


def one_error_line(done: subprocess.CompletedProcess, status: int = 2) -> str:
    """The single stderr line of a failed run (and nothing on stdout)."""
    assert done.returncode == status
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


# Spec 5.6.2 example (4), !pv_2d_padded (without the trailing ", >" NVIDIA's parser
# rejects): 8 rows of tile (r,0); columns 2 and 3 padded with NaN.
PV_2D_PADDED = "!cuda_tile.partition_view<tile=(1x4), padding_value = nan, tensor_view<8x2xf32, strides=[2,1]>>"
PV_2D_PADDED_TEXT = f"""\
{PV_2D_PADDED}
tensor 8x2xf32: index space 8x1, each index loads a tile<1x4xf32>

    0     1     2     3
0 (0,0) (0,0) [0,0] [0,0]
1 (1,0) (1,0) [1,0] [1,0]
2 (2,0) (2,0) [2,0] [2,0]
3 (3,0) (3,0) [3,0] [3,0]
4 (4,0) (4,0) [4,0] [4,0]
5 (5,0) (5,0) [5,0] [5,0]
6 (6,0) (6,0) [6,0] [6,0]
7 (7,0) (7,0) [7,0] [7,0]

legend:
  (i,j)  the element tile index (i,j) covers
  [i,j]  past the tensor's edge, in that tile: loads give nan (padding_value), stores are masked
"""


@pytest.mark.parametrize("text", [PV_2D_PADDED, PV_2D_PADDED.removeprefix("!cuda_tile.")])
def test_spec_padded_example_as_plain_text(text):
    done = view(text)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == PV_2D_PADDED_TEXT


# Line 13 of the shipped custom_reduce kernel: partition_view<tile=(4x8)> over a ?x8
# tensor; with 6 rows, tile (0,0) covers rows 0-3, tile (1,0) rows 4-5 and padding rows
# 6-7.
CUSTOM_REDUCE_TEXT = """\
!cuda_tile.partition_view<tile=(4x8), tensor_view<?x8xf32, strides=[8,1]>>
tensor 6x8xf32: index space 2x1, each index loads a tile<4x8xf32>

    0     1     2     3     4     5     6     7
""" + "".join(f"{r} " + " ".join(["(0,0)"] * 8) + "\n" for r in range(4)) + \
    "".join(f"{r} " + " ".join(["(1,0)"] * 8) + "\n" for r in (4, 5)) + \
    "".join(f"{r} " + " ".join(["[1,0]"] * 8) + "\n" for r in (6, 7)) + """
legend:
  (i,j)  the element tile index (i,j) covers
  [i,j]  past the tensor's edge, in that tile: loads give unspecified values (no padding_value), stores are masked
"""


def test_op_in_a_shipped_kernel_with_its_dynamic_shape():
    done = view("--op", f"{CUSTOM_REDUCE}:13", "--shape", "6,8")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == CUSTOM_REDUCE_TEXT


def test_op_with_a_missing_dynamic_extent():
    # line 13 is "    %px = make_partition_view ...": the op starts at column 11
    assert one_error_line(view("--op", f"{CUSTOM_REDUCE}:13")) == (
        f"{CUSTOM_REDUCE}:13:11: error: the extent of dimension 0 of the tensor_view is '?': "
        "give the tensor's shape with --shape D0,D1")


KERNEL = """\
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %sv = make_strided_view %tv : strided_view<tile=(2), traversal_strides=[1], tensor_view<?xf32, strides=[1]>>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(4), padding_value = zero, tensor_view<?xf32, strides=[1]>, sparse_dim=0>
    return
  }
}
"""


def test_op_strided_and_gather_views_in_a_file(tmp_path):
    (tmp_path / "k.mlir").write_text(KERNEL)
    # spec 5.6.4 example (3), !sv_1d_tra1, over 8 elements: tile k covers elements k and
    # k+1, so every element but the first is in two tiles; tile 7 reaches past the edge.
    done = view("--op", "k.mlir:4", "--shape", "8", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines()[4] == \
        " (0)  (0|1) (1|2) (2|3) (3|4) (4|5) (5|6) (6|7)  [7]"
    # spec 5.6.1 example (1), !gsv_1d: gather_indices=[6, 1, 4, 3] over 8 elements.
    done = view("--op", "k.mlir:5", "--shape", "8", "--gather", "6,1,4,3", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines()[1:5] == [
        "tensor 8xf32: one load of a tile<4xf32> with gather indices [6, 1, 4, 3] along "
        "dimension 0", "", " 0   1   2   3   4   5   6   7",
        "( ) (1) ( ) (3) (2) ( ) (0) ( )"]


def test_color_is_forced_or_off():
    text = "partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>"
    assert "\x1b[" not in view(text).stdout                  # a pipe: plain by default
    assert "\x1b[" not in view(text, "--no-color").stdout
    colour = view(text, "--color").stdout
    assert colour.splitlines()[4] == "\x1b[48;5;153m\x1b[30m (0) \x1b[0m" * 2


def test_svg_file(tmp_path):
    done = view(PV_2D_PADDED, "-o", str(tmp_path / "v.svg"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    root = ET.parse(tmp_path / "v.svg").getroot()
    classes = [r.get("class") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    # 16 elements, 16 padding cells, the tensor's outline; the background; the hatch tile
    assert (classes.count("cell tile"), classes.count("cell padding"),
            classes.count("edge"), len(classes)) == (16, 16, 1, 35)


def test_png_file(tmp_path):
    image_module = pytest.importorskip("PIL.Image",
                                       reason="PNG output needs Pillow (the draw extra)")
    done = view(PV_2D_PADDED, "-o", str(tmp_path / "v.png"))
    assert (done.returncode, done.stderr) == (0, "")
    image = image_module.open(tmp_path / "v.png")
    assert image.format == "PNG" and image.mode == "RGB"


def test_png_without_pillow():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['PIL'] = None; "
         "from tileir.cli.main import main; sys.exit(main())", "view", PV_2D_PADDED, "-o",
         "x.png"], cwd=REPO, capture_output=True, text=True)
    assert one_error_line(done) == (
        "error: PNG output needs Pillow: install the draw extra (pip install 'tileir[draw]', "
        "or pip install -e '.[draw]' in a checkout)")
    assert not (REPO / "x.png").exists()


@pytest.mark.parametrize("args, line", [
    (["partition_view<tile=(3), tensor_view<3xf32, strides=[1]>>"],
     "<type>:1:15: error: tile shape dimensions must have power of two length but got [3]"),
    (["tile<4xf32>"], "error: expected a partition_view, strided_view or gather_scatter_view "
                      "type, got '!cuda_tile.tile<4xf32>'"),
    ([PV_2D_PADDED, "-o", "picture.jpg"],
     "error: cannot write a picture to 'picture.jpg': the file name must end in .svg or .png"),
    (["partition_view<tile=(2x2), tensor_view<?x?xf32, strides=[?,1]>>"],
     "error: the extent of dimensions 0 and 1 of the tensor_view is '?': give the tensor's "
     "shape with --shape D0,D1"),
    ([PV_2D_PADDED, "--shape", "8,3"],
     "error: --shape gives 3 for dimension 1, whose extent is 2 in the tensor_view"),
    ([PV_2D_PADDED, "--shape", "8"],
     "error: --shape gives 1 extents for a tensor_view of rank 2"),
    ([PV_2D_PADDED, "--shape", "eight,2"],
     "error: --shape takes non-negative integers separated by commas (e.g. --shape 4,6), "
     "got 'eight,2'"),
    (["partition_view<tile=(2), tensor_view<?xf32, strides=[1]>>", "--shape", "0"],
     "error: tensor extents must be strictly positive, got [0]"),
    # (digits str.isdigit takes and int() does not; numbers past i64 or past int()'s
    # 4,300 digits: each a traceback once)
    (["partition_view<tile=(2), tensor_view<?xf32, strides=[1]>>", "--shape", "\u00b2"],
     "error: --shape takes non-negative integers separated by commas (e.g. --shape 4,6), "
     "got '\u00b2'"),
    (["partition_view<tile=(2), tensor_view<?xf32, strides=[1]>>", "--shape",
      str(1 << 63)],
     f"error: --shape takes numbers of at most 2**63 - 1 (i64 values), got '{1 << 63}'"),
    (["gather_scatter_view<tile=(2), tensor_view<8xf32, strides=[1]>, sparse_dim=0>",
      "--gather", "1," + "9" * 5000],
     "error: --gather takes numbers of at most 2**63 - 1 (i64 values), got "
     f"'1,{'9' * 5000}'"),
    ([], "error: give either a view TYPE or --op FILE:LINE"),
    ([PV_2D_PADDED, "--op", f"{CUSTOM_REDUCE}:13"],
     "error: give either a view TYPE or --op FILE:LINE, not both"),
    (["--op", f"{CUSTOM_REDUCE}:12"],
     f"{CUSTOM_REDUCE}:12: error: no make_partition_view, make_strided_view or "
     "make_gather_scatter_view op on this line"),
    (["--op", CUSTOM_REDUCE], f"error: --op takes FILE:LINE (e.g. kernel.mlir:12), got "
                              f"'{CUSTOM_REDUCE}'"),
    (["--op", "missing.mlir:3"], "error: cannot read 'missing.mlir': No such file or directory"),
    (["gather_scatter_view<tile=(4), tensor_view<8xf32, strides=[1]>, sparse_dim=0>"],
     "error: a gather_scatter_view load takes 4 gather indices along sparse_dim 0, got none "
     "(give them with --gather)"),
    (["gather_scatter_view<tile=(2x2), tensor_view<8x8xf32, strides=[8,1]>, sparse_dim=0>",
      "--gather", "1,2", "--index", "8"],
     "error: index 8 of dimension 1 is outside the index space [8, 8]"),
])
def test_bad_input_is_one_line(args, line):
    assert one_error_line(view(*args)) == line


def test_the_largest_i64_extent_is_drawn():
    done = view("partition_view<tile=(2), tensor_view<?xf32, strides=[1]>>", "--shape",
                str((1 << 63) - 1))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1] == (
        f"tensor {(1 << 63) - 1}xf32: index space {1 << 62}, each index loads a tile<2xf32>")


def test_bad_kernel_file_reports_its_location(tmp_path):
    (tmp_path / "bad.mlir").write_text("cuda_tile.module @m {\n  nonsense\n}\n")
    assert one_error_line(view("--op", "bad.mlir:2", cwd=tmp_path)) == (
        "bad.mlir:2:3: error: custom op 'nonsense' is unknown (tried 'cuda_tile.nonsense' "
        "as well)")


def test_unwritable_output_path(tmp_path):
    target = tmp_path / "no-such-dir" / "v.svg"
    assert one_error_line(view(PV_2D_PADDED, "-o", str(target)), status=1) == (
        f"tileir: cannot write '{target}': No such file or directory")


def test_help_names_every_option():
    done = subprocess.run([sys.executable, "-m", "tileir", "view", "--help"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0
    for option, words in [("TYPE", "a partition_view, strided_view or gather_scatter_view"),
                          ("--op FILE:LINE", "draw instead the view made by"),
                          ("--shape D0,D1,...", "the tensor's extents"),
                          ("--gather I0,I1,...", "gather_scatter_view: the load's gather"),
                          ("--index I,...", "gather_scatter_view: the load's index"),
                          ("-o FILE, --output FILE", "write a picture instead of printing"),
                          ("--color", "colour the terminal output"),
                          ("--no-color", "plain text, each cell holding")]:
        assert option in done.stdout and words in done.stdout
    listing = subprocess.run([sys.executable, "-m", "tileir", "--help"], cwd=REPO,
                             capture_output=True, text=True).stdout
    assert "draw which tile index covers each element of a view's tensor" in listing
