"""NVIDIA's -verify-diagnostics files, chunk by chunk: every invalid program is rejected with
the reference's diagnostics (location, message, notes, nothing else), and every chunk that
expects no error verifies."""

from __future__ import annotations

import pytest
import verify_chunks
from conftest import CONFORMANCE, require

FILES = verify_chunks.verify_files() if CONFORMANCE.is_dir() else []


def test_the_suite_has_its_verifier_files() -> None:
    require(CONFORMANCE)
    # 13 files under test/Dialect; debuginfo_update_symbol_names_fail needs a C++ test pass
    assert len(FILES) == 13


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES] or None)
def test_every_chunk(path, tally) -> None:
    require(CONFORMANCE)
    result = verify_chunks.tally_file(path)
    assert result.failures == []
    assert (result.strict, result.rejected) == (result.error_chunks, result.error_chunks)
    assert result.clean_pass == result.clean_chunks
    tally("suite -verify-diagnostics chunks: error chunks passing strictly", result.strict)
    tally("suite -verify-diagnostics chunks: clean chunks verified", result.clean_pass)
