"""The one table of lit files expected to fail, each with the later feature it waits for.

Keys are paths relative to the suite root (`../shared/conformance/cuda-tile/test`). lit.cfg.py
marks these files XFAIL; a file that starts passing shows as XPASS and fails the pytest run
until its line here is removed. Every file not listed must PASS.
"""

from __future__ import annotations

VERIFIER = "verifier (issue 4)"
BYTECODE = "bytecode (issue 5)"
PASSES = "passes"
FEATURES = (VERIFIER, BYTECODE, PASSES)

_ROUND_TRIP = f"{BYTECODE}: its %round_trip_test RUN line"
_TEST_PASS = f"{PASSES}: C++-only test pass --test-debuginfo-update-symbol-name"

_BYTECODE_FILES = ""

XFAIL: dict[str, str] = {
    **{f"Bytecode/{name}.mlir": BYTECODE for name in _BYTECODE_FILES.split()},
    "Dialect/CudaTile/canonicalize.mlir": f"{PASSES}: --canonicalize",
    "Dialect/CudaTile/debuginfo_update_symbol_names.mlir": _TEST_PASS,
    "Dialect/CudaTile/debuginfo_update_symbol_names_fail.mlir": _TEST_PASS,
    "Transforms/fuse-fma.mlir": f"{PASSES}: fuse-fma",
    "Transforms/loop_split.mlir": f"{PASSES}: loop-split",
    "Transforms/synthesize-debuginfo-scopes.mlir": f"{PASSES}: synthesize-debug-info-scopes",
}
