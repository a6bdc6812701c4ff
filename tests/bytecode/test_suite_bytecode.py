"""Every valid document of NVIDIA's suite goes through bytecode and back unchanged: written
at the newest version that holds it, read, printed, and written again to the same bytes."""

from __future__ import annotations

import pytest

from tileir import BytecodeError, Module
from tileir.bytecode import from_bytecode, to_bytecode
from tileir.syntax.parser import parse_document
from tileir.syntax.printer import Printer

from syntax.test_suite_roundtrip import DOCS

VERSIONS = ("13.4", "13.3", "13.2", "13.1", "250.1", "250.0")
#: Every release and the suite's testing versions, under which non-entry functions are
#: read back as ``testing$func`` (as NVIDIA's test build does).
WITH_TESTING = "13.1 13.2 13.3 13.4 250.0 250.1"


def _module(chunk: str, rel: str, first: int) -> Module | None:
    ops = parse_document(chunk, rel, first_line=first)
    if len(ops) != 1 or not isinstance(ops[0], Module):
        return None
    return ops[0]


@pytest.mark.parametrize("rel,first,chunk,unregistered", DOCS or [("(no suite)", 1, "", False)],
                         ids=[f"{d[0]}:{d[1]}" for d in DOCS] or ["no-suite"])
def test_suite_document_survives_bytecode(rel, first, chunk, unregistered, tally,
                                          monkeypatch) -> None:
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", WITH_TESTING)
    if not DOCS:
        pytest.skip("../shared is absent")
    module = _module(chunk, rel, first) if not unregistered else None
    if module is None or any(op.opdef is None or op.opdef.dialect != "cuda_tile"
                             for op in module.walk()):
        pytest.skip("not a single cuda_tile module of registered ops")
    for version in VERSIONS:
        try:
            data = to_bytecode(module, version)
        except BytecodeError as exc:
            if exc.message.startswith("unsupported location"):
                pytest.skip("has a location kind bytecode cannot hold (the reference refuses "
                            "it too)")
            continue            # uses a feature of a newer version: try the next one down
        break
    else:
        pytest.fail(f"{rel}:{first} could not be written at any version")
    again = from_bytecode(data)
    expected = Printer().print_top([module]).replace(f"@{module.sym_name} ", "@kernels ", 1)
    expected = expected.replace(" = pow ", " = fpowf ")    # 13.4's name for opcode 84
    assert Printer().print_top([again]) == expected
    assert to_bytecode(again, version) == data
    assert to_bytecode(again, version, keep_layout=False) == data
    tally("suite documents through bytecode and back", 1)
