"""What the transforms tests share (a support module, not a test file): the shipped
kernels' folder, a module around one function's text, the printed form the pass tests
compare (runs of spaces made one: the printer's spacing after an elided rounding mode is
not what they are about), and cuda-tile-opt run in-process on a file."""

from __future__ import annotations

import re
from pathlib import Path

import tileir
from tileir.cli.opt import main

#: The kernels shipped in the package (src/tileir/examples/kernels/*.mlir).
KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"


#: A module with one empty entry, as cuda-tile-opt reads it.
ONE_ENTRY = "cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}\n"
#: Constants that are equal as floats but not in bits (0.0 and -0.0), or unequal as floats
#: (NaNs of two payloads), with one repeat (-0.0): what uniquing constants must keep apart.
BIT_DISTINCT_CONSTANTS = """
  testing$func @f() -> (tile<f32>, tile<f32>, tile<f32>, tile<f32>, tile<f32>) {
    %z = constant <f32: 0.0> : tile<f32>
    %n = constant <f32: -0.0> : tile<f32>
    %n2 = constant <f32: -0.0> : tile<f32>
    %p = constant <f32: 0x7FC00001> : tile<f32>
    %q = constant <f32: 0x7FC00002> : tile<f32>
    return %z, %n, %n2, %p, %q : tile<f32>, tile<f32>, tile<f32>, tile<f32>, tile<f32>
  }"""
#: `BIT_DISTINCT_CONSTANTS` with only the repeated -0.0 merged (as `expected` reads it).
BIT_DISTINCT_UNIQUED = """
  testing$func @f() -> (tile<f32>, tile<f32>, tile<f32>, tile<f32>, tile<f32>) {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
    %cst_f32 = constant <f32: -0.000000e+00> : tile<f32>
    %cst_NaN_f32 = constant <f32: 0x7FC00001> : tile<f32>
    %cst_NaN_f32_0 = constant <f32: 0x7FC00002> : tile<f32>
    return %cst_0_f32, %cst_f32, %cst_f32, %cst_NaN_f32, %cst_NaN_f32_0 : tile<f32>, \
      tile<f32>, tile<f32>, tile<f32>, tile<f32>
  }"""


def module_of(body: str) -> tileir.Module:
    """A module ``@m`` holding `body` (its functions' text)."""
    return tileir.parse("cuda_tile.module @m {\n" + body + "\n}\n")


def squeezed(text: str) -> str:
    """`text` with runs of spaces made one, stripped."""
    return re.sub(r" +", " ", text).strip()


def printed(module: tileir.Module) -> str:
    """`module`'s text, `squeezed`."""
    return squeezed(module.format())


def expected(body: str) -> str:
    """`body` (functions' text) as `printed` prints the module ``@m`` holding it."""
    return squeezed("cuda_tile.module @m {\n" + body.strip("\n") + "\n}")


def opt(tmp_path: Path, monkeypatch, capsys, text: str, *flags: str) -> tuple[int, str, str]:
    """cuda-tile-opt on `text` (the file ``in.mlir``, read from its own directory): its
    exit status, stdout and stderr."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.mlir").write_text(text)
    status = main(["in.mlir", *flags])
    out, err = capsys.readouterr()
    return status, out, err


__all__ = ["BIT_DISTINCT_CONSTANTS", "BIT_DISTINCT_UNIQUED", "KERNELS", "ONE_ENTRY",
           "expected", "module_of", "opt", "printed", "squeezed"]
