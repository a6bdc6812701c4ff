"""NVIDIA's bytecode files: the suite's fixtures and the tileirdisasm artifacts, read,
printed and written back byte for byte."""

from __future__ import annotations

import pytest

from conftest import CONFORMANCE, SHARED, require
from tileir import BytecodeError, parse
from tileir.bytecode import from_bytecode, to_bytecode

INPUTS = CONFORMANCE / "Bytecode" / "versioning" / "Inputs" / "13.1"
INVALID = CONFORMANCE / "Bytecode" / "invalid"
ARTIFACTS = SHARED / "reference" / "artifacts"
VALID_INPUTS = ["negi-op-13.1.tileirbc", "print-op-13.1.tileirbc"]
ARTIFACT_FILES = sorted(p.name for p in ARTIFACTS.glob("*.tileirbc")) \
    if ARTIFACTS.is_dir() else ["(no artifacts)"]


@pytest.mark.parametrize("name", VALID_INPUTS)
def test_13_1_fixture_is_reproduced_from_its_module(name: str, tally) -> None:
    data = require(INPUTS / name).read_bytes()
    module = from_bytecode(data)
    assert to_bytecode(module, "13.1") == data
    # the module behind the fixture, as text with no memory of the file's layout
    rebuilt = parse(str(module))
    assert to_bytecode(rebuilt, "13.1") == data
    tally("13.1 fixtures reproduced byte for byte from their text", 1)


def test_13_1_fixture_reads_as_the_suite_expects() -> None:
    text = str(from_bytecode(require(INPUTS / "negi-op-13.1.tileirbc").read_bytes()))
    assert text == ("cuda_tile.module @kernels {\n"
                    "  entry @basic() {\n"
                    "    %cst_i32 = constant <i32: [1, 2]> : tile<2xi32>\n"
                    "    %0 = negi %cst_i32 : tile<2xi32>\n"
                    "    %1 = negi %cst_i32 : tile<2xi32>\n"
                    "    return\n"
                    "  }\n"
                    "}\n")


def test_13_1_file_with_a_13_3_type_is_refused() -> None:
    data = require(INPUTS / "f4e2m1fn-in-13.1.tileirbc").read_bytes()
    with pytest.raises(BytecodeError) as info:
        from_bytecode(data)
    assert info.value.reason == ("type 'Float4E2M1FN' requires bytecode version 13.3+, file "
                                 "version is 13.1")


INVALID_CASES = [
    ("invalid_magic_number.tileirbc", "invalid magic number at position 0, got 126 expected "
                                      "127"),
    ("unsupported_version.tileirbc", "unsupported Tile version 18.0.0, this reader supports "
                                     "versions [13.1 - 13.5]"),
    ("invalid_section_id.tileirbc", "unknown section ID: 127"),
    ("excessive_section_length.tileirbc", "end section is not the last section"),
    ("invalid_dense_map_value.bc", "array contains unsupported value -2147483648"),
    ("invalid_attribute_name.bc", "invalid empty attribute name for DictionaryAttr element 0"),
]


@pytest.mark.parametrize("name,reason", INVALID_CASES)
def test_invalid_fixture_gets_the_reference_message(name: str, reason: str) -> None:
    with pytest.raises(BytecodeError) as info:
        from_bytecode(require(INVALID / name).read_bytes())
    assert info.value.reason == reason
    assert info.value.message == f"error at offset {info.value.offset}: {reason}"


@pytest.mark.parametrize("name", ARTIFACT_FILES)
def test_cutile_artifact_reads_as_tileirdisasm_prints_it(name: str, tally) -> None:
    path = require(ARTIFACTS / name)
    data = path.read_bytes()
    module = from_bytecode(data)
    module.spelling = "bare"                  # tileirdisasm prints the items only
    assert module.format() == path.with_suffix(".mlir").read_text()
    version = name.split(".v")[1][:4]
    assert to_bytecode(module, version) == data
    tally("cuTile artifacts read as tileirdisasm prints them and written back", 1)
