"""Kernels for the reducer's tests: a small core planted in a big generated kernel."""

from __future__ import annotations

import tileir
from tileir.attributes import TypeAttr
from tileir.generate import generate
from tileir.ir import Module
from tileir.reducer.reductions import count_ops
from tileir.types import FunctionType

#: The out-of-bounds extract warning of ``tileir check`` (spec warnings on).
EXTRACT_CORE = """\
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 5> : tile<i32>
    %e = extract %c[%i] : tile<8xf32> -> tile<2xf32>
    return
  }
}
"""
#: What the reducer leaves of `EXTRACT_CORE` in any kernel: the warning needs the
#: extract of a source tile (its index past the last tile), nothing else.
EXTRACT_MINIMAL = """\
cuda_tile.module @kernels {
  entry @kernel() {
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<1xf32>
    %cst_5_i32 = constant <i32: 5> : tile<i32>
    %0 = extract %cst_0_f32[%cst_5_i32] : tile<1xf32> -> tile<1xf32>
    return
  }
}
"""
#: A negi whose value reaches memory (the op the engine test makes wrong when batched).
NEGI_CORE = """\
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<i32>>, %q: tile<ptr<i32>>) {
    %x, %t = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token
    %y = negi %x : tile<i32>
    %t2 = store_ptr_tko weak %q, %y : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""
NEGI_MINIMAL = """\
cuda_tile.module @kernels {
  entry @kernel(%arg0: tile<ptr<i32>>) {
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %0 = negi %cst_0_i32 : tile<i32>
    %1 = store_ptr_tko weak %arg0, %0 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""
#: docs/nvidia-tools.md: tileiras 13.5 dies with SIGILL on this widening ftof.
FTOF_CRASH_CORE = """\
cuda_tile.module @kernels {
  entry @k(%a: tile<ptr<f8E4M3FN>>, %b: tile<ptr<bf16>>) {
    %x, %t = load_ptr_tko weak %a : tile<ptr<f8E4M3FN>> -> tile<f8E4M3FN>, token
    %y = ftof %x rounding<nearest_away> : tile<f8E4M3FN> -> tile<bf16>
    %t2 = store_ptr_tko weak %b, %y : tile<ptr<bf16>>, tile<bf16> -> token
    return
  }
}
"""


def planted(core: str, seed: int, ops: int = 50) -> Module:
    """The kernel `tileir.generate` makes of `seed` with the ops of `core`'s entry (its
    arguments appended to the kernel's) inserted in the middle of its body."""
    big = generate(seed, ops=ops)
    entry = big.entries[0]
    block = entry.regions[0].blocks[0]
    small = tileir.parse(core).entries[0].regions[0].blocks[0]
    mapping = {a: block.add_argument(a.type) for a in small.arguments}
    at = len(block.operations) // 2
    for op in small.operations[:-1]:
        copy = op.clone(mapping)
        block.operations.insert(at, copy)
        copy.parent = block
        at += 1
    entry.attributes["function_type"] = TypeAttr(FunctionType(
        tuple(a.type for a in block.arguments), ()))
    module = tileir.parse(big.format())
    assert count_ops(module) >= 200
    return module
