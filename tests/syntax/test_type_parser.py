"""Parsing and printing types exactly as NVIDIA's tools do.

Three oracles: the CHECK lines of the reference's own types.mlir, the expected-error
lines of its invalid tests, and every type example in the spec pages of ../shared/seeds
(their canonical spellings below are written by hand from the reference's printing rules).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, SEEDS, require
from tileir import ParseError, parse_type
from tileir.types import (F32, TOKEN, BuiltinType, FloatType, FunctionType, IntegerType,
                          TileType)

# ---------------------------------------------------------------------------------------
# Oracle 1: types.mlir, whose CHECK-SAME lines give the printed form of each argument type
# ---------------------------------------------------------------------------------------


def _balanced_type(text: str) -> str:
    """The type at the start of `text`, up to where its brackets close."""
    depth = 0
    for i, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char in ",)" and depth == 0:
            return text[:i]
    return text.strip()


def test_types_mlir_check_lines(tally):
    text = require(CONFORMANCE / "Dialect/CudaTile/types.mlir").read_text()
    pairs = re.findall(r"// CHECK-SAME: (.+)\n\s*%\w+: (.+)", text)
    assert len(pairs) == 21
    for expected, rest in pairs:
        parsed = parse_type(_balanced_type(rest))
        assert parsed.format(qualified=False) == expected.strip()
        # Printing is a fixed point: the canonical text parses back to the same type.
        assert parse_type(expected) == parsed
        assert parse_type(str(parsed)) == parsed
    tally("types.mlir types round-tripped", len(pairs))


# ---------------------------------------------------------------------------------------
# Oracle 2: `"use_type"() : () -> TYPE` lines with expected-error in the invalid tests
# ---------------------------------------------------------------------------------------

_USE_TYPE = re.compile(r'// expected-error(?:-re)? @below\s*\{\{(.+?)\}\}\n'
                       r'(?:%\w+ = )?"use_type"\(\) : \(\) -> (.+)')


def test_reference_type_errors(tally):
    cases = []
    for path in sorted(require(CONFORMANCE / "Dialect/CudaTile").glob("*.mlir")):
        for chunk in re.split(r"^// -----$", path.read_text(), flags=re.M):
            cases += [(path.name, m.group(1), m.group(2).strip())
                      for m in _USE_TYPE.finditer(chunk)]
    assert len(cases) == 31
    for name, message, text in cases:
        with pytest.raises(ParseError) as info:
            parse_type(text)
        diag = info.value.diagnostics[0]
        assert message in diag.message, (name, text, diag.message)
        assert diag.location.line == 1
    tally("reference type diagnostics matched", len(cases))


NUMBER = ("f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN "
          "or i1 or i8 or i16 or i32 or i64 or fnv8E5M3FNU")


@pytest.mark.parametrize("text, message, column", [
    # invalid.mlir: function argument types and op types
    ("!cuda_tile.tile<1x?x4xf32>", "expected static shape", 19),
    ("!cuda_tile.tile<1x0x2xf32>", "all dimensions must be positive constants, got 1, 0, 2", 16),
    ("!cuda_tile.tile<1x-1x4xf32>", "expected valid keyword", 19),
    ("tile<4x-4x4xf32>", "expected valid keyword", 8),
    ("!cuda_tile.tile<f4E2M1FN>", "F4E2M1FN tiles must have an even number of elements", 16),
    ("!cuda_tile.tile<3x3x3xf4E2M1FN>", "F4E2M1FN tiles must have an even number of elements", 16),
    ("!cuda_tile.tile<ptr<tile<2x2xf32>>>", "failed to verify 'pointeeType': " + NUMBER, 20),
    ("tile<1024x1024x1024xf32>", "tile would exceed the maximum of 16777216 elements", 5),
    ("gather_scatter_view<tile=(4x4), partition_view<tile=(4x4), tensor_view<16x16xf32, "
     "strides=[16,1]>>, sparse_dim=0>",
     "expected 'tensor_view' type, but got '!cuda_tile.partition_view<tile=(4x4), "
     "tensor_view<16x16xf32, strides=[16,1]>>'", 99),
    ("tensor_view<32x32xptr<f32>, strides=[32,1]>", "failed to verify 'elementType': " + NUMBER,
     12),
    # parser-level errors of our own making, in MLIR's words
    ("tile<4xf32", "expected '>'", 11),
    ("tile<4xf32> x", "found trailing characters: 'x'", 13),
    ("!cuda_tile.tensor<4xf32>", "unknown  type `tensor` in dialect `cuda_tile`", 12),
    ("!foo.bar", "dialect 'foo' is unknown", 1),
    ("!alias", "undefined symbol alias id 'alias'", 1),
    ("pluto<4>", "unknown type: pluto", 6),
    ("partition_view<tile=(2), padding_value = nope, tensor_view<16xf32, strides=[1]>>",
     'invalid padding_value attribute specification. Got "nope" but expect one of: zero, '
     "neg_zero, nan, pos_inf, neg_inf", 40),
    ("tile<4x4>", "expected 'x' in dimension list", 9),
    ("partition_view<tile=(4x), tensor_view<16x16xf32, strides=[16,1]>>", "invalid dimension",
     24),
    ("tensor_view<4xf32, strides=[9223372036854775808]>", "integer value too large", 29),
    ("gather_scatter_view<tile=(4), tensor_view<8xf32, strides=[1]>, sparse_dim=-1>",
     "integer value too large", 75),
    ("tile<4x\"f32\">", "expected valid keyword", 8),
    ("tile<4x#f32>", "expected valid keyword", 8),
    ("tile<4x`f32>", "unexpected character", 8),
])
def test_parse_errors(text, message, column):
    with pytest.raises(ParseError) as info:
        parse_type(text)
    diag = info.value.diagnostics[0]
    assert diag.message == message
    assert (diag.location.line, diag.location.column) == (1, column)


def test_missing_token_at_line_end_is_reported_on_that_line():
    # MLIR reports a missing token after the last token of a line, not on the next line.
    with pytest.raises(ParseError) as info:
        parse_type("partition_view<tile=(2), tensor_view<16xf32, strides=[1]>,\n>")
    assert info.value.diagnostics[0].message == "expected 'dim_map'"
    assert info.value.diagnostics[0].location.line == 2
    with pytest.raises(ParseError) as info:
        parse_type("strided_view<tile=(2), traversal_strides=[2]\n"
                   " tensor_view<16xf32, strides=[1]>>")
    assert info.value.diagnostics[0].message == "expected ','"
    assert info.value.diagnostics[0].location.line == 1


# ---------------------------------------------------------------------------------------
# Oracle 3: every type example on the spec pages in ../shared/seeds
# ---------------------------------------------------------------------------------------

Q = "!cuda_tile."
# Whitespace-normalized example -> its canonical (qualified) spelling, or ("error", message)
# where NVIDIA's parser rejects the example too.
SEED_EXAMPLES = {
    "tile<2x8xf32>": Q + "tile<2x8xf32>",
    "tile<f32>": Q + "tile<f32>",
    "tile<ptr<f32>>": Q + "tile<ptr<f32>>",
    "tile<4x8xptr<f32>>": Q + "tile<4x8xptr<f32>>",
    "tile<128x4xf32>": Q + "tile<128x4xf32>",
    "tile<4x2xf32>": Q + "tile<4x2xf32>",
    "tile<2x4xf32>": Q + "tile<2x4xf32>",
    "tile<64xf32>": Q + "tile<64xf32>",
    "!cuda_tile.tile<8x4xf32>": Q + "tile<8x4xf32>",
    "!cuda_tile.tile<4x!cuda_tile.ptr<i8>>": Q + "tile<4xptr<i8>>",
    "!cuda_tile.tensor_view<1024x1024xf16, strides=[1024,1]>":
        Q + "tensor_view<1024x1024xf16, strides=[1024,1]>",
    "!cuda_tile.tensor_view < 1024 x 1024 x f16, strides=[1024,1] >":
        Q + "tensor_view<1024x1024xf16, strides=[1024,1]>",
    "!cuda_tile.tensor_view<32x16x32xf16, strides=[512,1,16]>":
        Q + "tensor_view<32x16x32xf16, strides=[512,1,16]>",
    "!cuda_tile.tensor_view < 32 x 16 x 32 x f16, strides=[512,1,16] >":
        Q + "tensor_view<32x16x32xf16, strides=[512,1,16]>",
    "!cuda_tile.tensor_view<?x?xf16, strides=[?,1]>": Q + "tensor_view<?x?xf16, strides=[?,1]>",
    "!cuda_tile.tensor_view < ?x?xf16, strides=[?,1] >": Q + "tensor_view<?x?xf16, strides=[?,1]>",
    "!cuda_tile.tensor_view<?x16xf32, strides=[1,?]>": Q + "tensor_view<?x16xf32, strides=[1,?]>",
    "!cuda_tile.tensor_view < ?x16xf32, strides=[1,?] >":
        Q + "tensor_view<?x16xf32, strides=[1,?]>",
    "tensor_view<8192x128xf32, strides=[128,1]>": Q + "tensor_view<8192x128xf32, strides=[128,1]>",
    "tensor_view<2xf4E2M1FN, strides=[1]>": Q + "tensor_view<2xf4E2M1FN, strides=[1]>",
    "!cuda_tile.tensor_view<512x1024xf16, strides=[1024, 1]>":
        Q + "tensor_view<512x1024xf16, strides=[1024,1]>",
    "!cuda_tile.tensor_view<512x1024xf16, strides=[1, 512]>":
        Q + "tensor_view<512x1024xf16, strides=[1,512]>",
    "!cuda_tile.tensor_view<512x1024xf16, strides=[1, 1]>":
        Q + "tensor_view<512x1024xf16, strides=[1,1]>",
    "!cuda_tile.tensor_view<32x16x32xf16, strides=[512, 1, 16]>":
        Q + "tensor_view<32x16x32xf16, strides=[512,1,16]>",
    "!cuda_tile.tensor_view<?x?xf16, strides=[?, 1]>": Q + "tensor_view<?x?xf16, strides=[?,1]>",
    "!cuda_tile.tensor_view<?x16xf32, strides=[1, ?]>": Q + "tensor_view<?x16xf32, strides=[1,?]>",
    "!cuda_tile.gather_scatter_view< tile=(4), tensor_view<8xf32, strides=[1]>, sparse_dim=0 >":
        Q + "gather_scatter_view<tile=(4), tensor_view<8xf32, strides=[1]>, sparse_dim=0>",
    "!cuda_tile.gather_scatter_view< tile=(4x4), tensor_view<8x8xf32, strides=[8, 1]>, "
    "sparse_dim=0 >":
        Q + "gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, sparse_dim=0>",
    "!cuda_tile.gather_scatter_view< tile=(8x16), padding_value = zero, "
    "tensor_view<128x256xf32, strides=[256, 1]>, sparse_dim=0 >":
        Q + "gather_scatter_view<tile=(8x16), padding_value = zero, tensor_view<128x256xf32, "
            "strides=[256,1]>, sparse_dim=0>",
    "!cuda_tile.gather_scatter_view< tile=(8x16), tensor_view<128x256xf32, strides=[256, 1]>, "
    "sparse_dim=1 >":
        Q + "gather_scatter_view<tile=(8x16), tensor_view<128x256xf32, strides=[256,1]>, "
            "sparse_dim=1>",
    "!cuda_tile.partition_view< tile=(2), tensor_view<16xf32, strides=[1]> >":
        Q + "partition_view<tile=(2), tensor_view<16xf32, strides=[1]>>",
    "!cuda_tile.partition_view< tile=(4x2), tensor_view<64x16xf32, strides=[16, 1]> >":
        Q + "partition_view<tile=(4x2), tensor_view<64x16xf32, strides=[16,1]>>",
    "!cuda_tile.partition_view< tile=(4x2), tensor_view<64x16xf32, strides=[16, 1]>, "
    "dim_map=[1, 0] >":
        Q + "partition_view<tile=(4x2), tensor_view<64x16xf32, strides=[16,1]>, dim_map=[1, 0]>",
    "!cuda_tile.strided_view< tile=(2), traversal_strides=[2], tensor_view<16xf32, strides=[1]> >":
        Q + "strided_view<tile=(2), traversal_strides=[2], tensor_view<16xf32, strides=[1]>>",
    "!cuda_tile.strided_view< tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]> >":
        Q + "strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>",
    "!cuda_tile.strided_view< tile=(2), traversal_strides=[1], tensor_view<8xf32, strides=[1]> >":
        Q + "strided_view<tile=(2), traversal_strides=[1], tensor_view<8xf32, strides=[1]>>",
    "!cuda_tile.strided_view< tile=(4x2), traversal_strides=[4,3], tensor_view<64x16xf32, "
    "strides=[16, 1]>, dim_map=[1, 0] >":
        Q + "strided_view<tile=(4x2), traversal_strides=[4,3], tensor_view<64x16xf32, "
            "strides=[16,1]>, dim_map=[1, 0]>",
    # Typos on the 13.3 spec page: a comma too many before `>`, one missing before
    # tensor_view.  NVIDIA's parser rejects these texts with the same messages.
    "!cuda_tile.partition_view< tile=(1x4), padding_value = nan, tensor_view<8x2xf32, "
    "strides=[2,1]>, >": ("error", "expected 'dim_map'"),
    "!cuda_tile.strided_view< tile=(1x4), traversal_strides=[1,4], padding_value = nan, "
    "tensor_view<8x2xf32, strides=[2,1]>, >": ("error", "expected 'dim_map'"),
    "!cuda_tile.strided_view< tile=(4x2), traversal_strides=[4,3] tensor_view<64x16xf32, "
    "strides=[16, 1]> >": ("error", "expected ','"),
    # A pre-release draft of the spec (seeds 000 and 001) spelled partition views with
    # `view=` and a `masked` flag; no released tool has accepted that syntax.
    "!cuda_tile.partition_view< tile=(2), view=!cuda_tile.tensor_view<16xf32, strides=[1]> >":
        ("error", "unknown type: view"),
    "!cuda_tile.partition_view < tile=(2), view=!cuda_tile.tensor_view<16xf32, strides=[1] > >":
        ("error", "unknown type: view"),
    "!cuda_tile.partition_view< tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1]> >": ("error", "unknown type: view"),
    "!cuda_tile.partition_view < tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1] > >": ("error", "unknown type: view"),
    "!cuda_tile.partition_view< tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1]>, dim_map=[1, 0] >": ("error", "unknown type: view"),
    "!cuda_tile.partition_view < tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1] > , dim_map = [ 1 , 0 ] >": ("error", "unknown type: view"),
    "!cuda_tile.partition_view< masked tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1]>, >": ("error", "expected 'tile'"),
    "!cuda_tile.partition_view < masked tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, "
    "strides=[16,1] > , >": ("error", "expected 'tile'"),
}

# Schematic spellings the pages use to explain syntax, not types.
SCHEMATIC = {"ptr<E>", "tile<MxNxKxE>", "tile<ptr<E>>", "tile<NxKxE>",
             "partition_view<tile=(4x2), ..., dim_map=[1, 0]>",
             "partition_view<tile=(2x4), ..., dim_map=[0, 1]>",
             "strided_view<tile=(4x2), traversal_strides=[4,2], ..., // dim_map=[1, 0]>",
             "strided_view<tile=(2x4), traversal_strides=[2,4], ..., // dim_map=[0, 1]>"}

_TYPE_START = re.compile(r"(!cuda_tile\.(?:tile|ptr|tensor_view|partition_view|strided_view|"
                         r"gather_scatter_view)|(?<![\w.!])(?:tile|ptr|tensor_view|"
                         r"partition_view|strided_view|gather_scatter_view))\s*<")


def seed_examples() -> list[tuple[str, str]]:
    """Every type spelled on the seed pages: (page, example text as written)."""
    found = []
    for page in sorted(SEEDS.glob("*.txt")):
        text, end = page.read_text(), 0
        for match in _TYPE_START.finditer(text):
            if match.start() < end:
                continue  # nested inside the previous example
            depth, i = 0, text.index("<", match.start())
            for i in range(i, len(text)):
                depth += {"<": 1, ">": -1}.get(text[i], 0)
                if depth == 0:
                    break
            end = i + 1
            found.append((page.name, text[match.start():end]))
    return found


def test_every_seed_type_example(tally):
    require(SEEDS)
    examples = seed_examples()
    seen = set()
    for page, text in examples:
        key = " ".join(text.split())
        seen.add(key)
        if key in SCHEMATIC:
            continue
        assert key in SEED_EXAMPLES, f"{page}: example not covered by this test: {key}"
        expected = SEED_EXAMPLES[key]
        if isinstance(expected, tuple):
            with pytest.raises(ParseError) as info:
                parse_type(text)
            assert info.value.diagnostics[0].message == expected[1]
            continue
        parsed = parse_type(text)          # the example as written, newlines included
        assert str(parsed) == expected
        assert str(parse_type(expected)) == expected
        assert parse_type(parsed.format(qualified=False)) == parsed
    assert seen == set(SEED_EXAMPLES) | SCHEMATIC
    accepted = sum(1 for v in SEED_EXAMPLES.values() if isinstance(v, str))
    assert (len(examples), accepted, len(SEED_EXAMPLES) - accepted) == (75, 37, 11)
    tally("seed type examples round-tripped", accepted)
    tally("seed type examples rejected as the reference does", len(SEED_EXAMPLES) - accepted)


# ---------------------------------------------------------------------------------------
# Builtin types
# ---------------------------------------------------------------------------------------

def test_builtin_types():
    assert parse_type("i28") == IntegerType(28)
    assert parse_type("f80") == FloatType("f80")
    assert parse_type("index") == BuiltinType("index")
    assert parse_type("si32") == BuiltinType("si32")
    assert str(parse_type("tensor<4x?xf32>")) == "tensor<4x?xf32>"
    fn = parse_type("(!cuda_tile.tile<f32>, !cuda_tile.token) -> ()")
    assert fn == FunctionType((TileType((), F32), TOKEN), ())
    assert parse_type("() -> (i32, f32)") == FunctionType((), (IntegerType(32), F32))
    assert parse_type("token") == TOKEN == parse_type("!cuda_tile.token")


def test_whitespace_and_comments_are_insignificant():
    text = "!cuda_tile.partition_view<\n  tile=(4x2), // a comment\n  tensor_view<64x16xf32, " \
           "strides=[16, 1]>,\n  dim_map=[1, 0]\n>"
    assert str(parse_type(text)) == (
        "!cuda_tile.partition_view<tile=(4x2), tensor_view<64x16xf32, strides=[16,1]>, "
        "dim_map=[1, 0]>")


def test_hex_looking_dimensions_split_like_mlir():
    # MLIR reads `0x4xf32` in a shape as 0, x, 4, x, f32 (and then rejects the 0).
    with pytest.raises(ParseError) as info:
        parse_type("tile<0x4xf32>")
    assert info.value.diagnostics[0].message == \
        "all dimensions must be positive constants, got 0, 4"


@pytest.mark.parametrize("text", ["tile<" * 5000, "ptr<" * 300 + "f32" + ">" * 300, "(" * 3000,
                                  "!cuda_tile.ptr<" * 2000])
def test_hostile_nesting_is_a_diagnostic_not_a_crash(text):
    with pytest.raises(ParseError) as info:
        parse_type(text)
    assert info.value.diagnostics[0].message == "types nest more than 64 deep"


_PIECES = ["tile", "ptr", "tensor_view", "partition_view", "strided_view", "gather_scatter_view",
           "token", "!cuda_tile.", "<", ">", "(", ")", "[", "]", ",", "=", "?", "x", "-", "0",
           "1", "4", "16", "0x8", "99999999999999999999", "f32", "i4", "f4E2M1FN", "strides",
           "tile", "dim_map", "padding_value", "nan", "sparse_dim", "traversal_strides", " ",
           "\n", "->", "\"s\"", "#a", "%v", "@f", "//c\n", "\\", "é", "1.5"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_any_text_parses_or_gives_a_parse_error(text):
    try:
        parsed = parse_type(text)
    except ParseError as exc:
        diag = exc.diagnostics[0]
        assert diag.location.line >= 1 and diag.location.column >= 1 and diag.message
    else:
        assert parse_type(str(parsed)) == parsed
