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

_BYTECODE_FILES = ""

XFAIL: dict[str, str] = {
    **{f"Bytecode/{name}.mlir": BYTECODE for name in _BYTECODE_FILES.split()},
}
