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


def _modules(chunk: str, rel: str, first: int) -> list[Module]:
    """The cuda_tile modules of a document (inside its builtin.module wrapper, if any)."""
    ops = parse_document(chunk, rel, first_line=first)
    if len(ops) == 1 and ops[0].name == "builtin.module":
        ops = ops[0].regions[0].block.operations
    assert ops and all(isinstance(op, Module) for op in ops), f"{rel}:{first}"
    return ops


def _write(module: Module, where: str) -> tuple[bytes, str] | None:
    """The module written at the newest version that holds it, or None when its locations
    are of a kind bytecode cannot hold (checking the reference's message)."""
    for version in VERSIONS:
        try:
            return to_bytecode(module, version), version
        except BytecodeError as exc:
            if exc.message.startswith("unsupported location"):
                assert exc.message.endswith(", expected DILocAttr or CallSiteLoc"), where
                return None
    pytest.fail(f"{where} could not be written at any version")


@pytest.mark.parametrize("rel,first,chunk,unregistered", DOCS or [("(no suite)", 1, "", False)],
                         ids=[f"{d[0]}:{d[1]}" for d in DOCS] or ["no-suite"])
def test_suite_document_survives_bytecode(rel, first, chunk, unregistered, tally,
                                          monkeypatch) -> None:
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", WITH_TESTING)
    if not DOCS:
        pytest.skip("../shared is absent")
    for module in _modules(chunk, rel, first):
        written = _write(module, f"{rel}:{first}")
        if written is None:
            tally("suite modules refused for their location kinds, as the reference does", 1)
            continue
        data, version = written
        again = from_bytecode(data)
        for op in module.walk():   # discardable attributes are not in the format
            op.discardable.clear()
        expected = Printer().print_top([module]).replace(f"@{module.sym_name} ", "@kernels ", 1)
        expected = expected.replace(" = pow ", " = fpowf ")    # 13.4's name for opcode 84
        assert Printer().print_top([again]) == expected
        assert to_bytecode(again, version) == data
        assert to_bytecode(again, version, keep_layout=False) == data
        tally("suite modules through bytecode and back", 1)
