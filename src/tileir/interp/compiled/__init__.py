"""The compiled engine: entry kernels lowered to native code through LLVM (llvmlite),
bit for bit the reference engine's results, falling back to it whenever in doubt.

`run_compiled` is what `launch(engine="compiled")` calls; `compilations` counts LLVM
compiles (the cache's misses), `loads` the kernels read from the disk cache,
`settlements` the mmaf tiles settled by the reference's
semantics.  See docs/compiled-engine.md."""

from .cache import clear, compilations, loads
from .lower import SUPPORTED, Unsupported, lower
from .runner import Outcome, run_compiled
from .settle import settlements

__all__ = ["Outcome", "SUPPORTED", "Unsupported", "clear", "compilations", "loads", "lower",
           "run_compiled", "settlements"]
