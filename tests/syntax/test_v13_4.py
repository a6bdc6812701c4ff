"""The 13.4 text syntax: what NVIDIA's 13.4 tileirdisasm prints parses, verifies clean and
prints back byte for byte.

The documents below are tileirdisasm 13.4 output for bytecode files made with cuTile's
encoder (the oracle corpus of the 13.4 research notes), copied verbatim.
"""

from __future__ import annotations

import pytest

from tileir import parse
from tileir.diagnostics import ParseError
from tileir.enums import PointerAttribute, RoundingMode
from tileir.ops import lookup
from tileir.syntax.type_parser import parse_type
from tileir.types import F32, F8E5M3FNU, PointerType, TensorViewType, element_type

_PV = "partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>"

#: tileirdisasm 13.4 documents, one per 13.4 change.
ORACLE = {
    "fnv8E5M3FNU constants": (
        "entry @f8e5m3fnu_const() {\n"
        "  %cst_fnv8E5M3FNU = constant <fnv8E5M3FNU: 3.906250e-03> : tile<4xfnv8E5M3FNU>\n"
        "  %cst_0_fnv8E5M3FNU = constant <fnv8E5M3FNU: 0.000000e+00> : tile<fnv8E5M3FNU>\n"
        "  return\n"
        "}\n"),
    "fnv8E5M3FNU conversions": (
        "entry @f8e5m3fnu_types() {\n"
        "  %cst_f32 = constant <f32: 1.500000e+00> : tile<16xf32>\n"
        "  %0 = ftof %cst_f32  : tile<16xf32> -> tile<16xfnv8E5M3FNU>\n"
        "  %1 = ftof %0  : tile<16xfnv8E5M3FNU> -> tile<16xf32>\n"
        "  %cst_fnv8E5M3FNU = constant <fnv8E5M3FNU: 3.906250e-03> : tile<4xfnv8E5M3FNU>\n"
        "  return\n"
        "}\n"),
    "ftof nearest_away widening": (
        "entry @ftof_f16_f32_nearest_away() {\n"
        "  %cst_1_f16 = constant <f16: 1.000000e+00> : tile<16xf16>\n"
        "  %0 = ftof %cst_1_f16 rounding<nearest_away> : tile<16xf16> -> tile<16xf32>\n"
        "  return\n"
        "}\n"),
    "ftof nearest_away f32 to tf32": (
        "entry @ftof_f32_tf32_nearest_away() {\n"
        "  %cst_f32 = constant <f32: 1.500000e+00> : tile<16xf32>\n"
        "  %0 = ftof %cst_f32 rounding<nearest_away> : tile<16xf32> -> tile<16xtf32>\n"
        "  return\n"
        "}\n"),
    "ftof zero narrowing": (
        "entry @ftof_f32_f16_zero() {\n"
        "  %cst_f32 = constant <f32: 1.500000e+00> : tile<16xf32>\n"
        "  %0 = ftof %cst_f32 rounding<zero> : tile<16xf32> -> tile<16xf16>\n"
        "  return\n"
        "}\n"),
    "ftoi saturating": (
        "entry @ftoi_variants() {\n"
        "  %cst_f32 = constant <f32: 1.500000e+00> : tile<16xf32>\n"
        "  %0 = ftoi %cst_f32 signed  : tile<16xf32> -> tile<16xi32>\n"
        "  %1 = ftoi %cst_f32 signed  saturating : tile<16xf32> -> tile<16xi32>\n"
        "  %2 = ftoi %cst_f32 unsigned  : tile<16xf32> -> tile<16xi32>\n"
        "  %3 = ftoi %cst_f32 unsigned  saturating : tile<16xf32> -> tile<16xi32>\n"
        "  %cst_f32_0 = constant <f32: 1.500000e+00> : tile<f32>\n"
        "  %4 = ftoi %cst_f32_0 signed  saturating : tile<f32> -> tile<i8>\n"
        "  return\n"
        "}\n"),
    "inbounds": (
        "entry @inbounds_variants(%arg0: tile<ptr<f32>>) {\n"
        "  %tview = make_tensor_view %arg0, shape = [64, 64], strides = [64, 1] : "
        "tensor_view<64x64xf32, strides=[64,1]>\n"
        f"  %pview = make_partition_view %tview : {_PV}\n"
        "  %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
        "  %0 = make_token : token\n"
        "  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32] token = %0 "
        f": {_PV}, tile<i32> -> tile<16x16xf32>, token\n"
        "  %tile_0, %result_token_1 = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32] "
        f"token = %0 inbounds = [true, false] : {_PV}, tile<i32> -> tile<16x16xf32>, token\n"
        "  %tile_2, %result_token_3 = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32] "
        f"inbounds = [true, false] : {_PV}, tile<i32> -> tile<16x16xf32>, token\n"
        "  %tile_4, %result_token_5 = load_view_tko relaxed device %pview[%cst_0_i32, "
        f"%cst_0_i32] token = %0 inbounds = [false, true] : {_PV}, tile<i32> -> "
        "tile<16x16xf32>, token\n"
        "  %1 = store_view_tko weak %tile_2, %pview[%cst_0_i32, %cst_0_i32] token = %0 : "
        f"tile<16x16xf32>, {_PV}, tile<i32> -> token\n"
        "  %2 = store_view_tko weak %tile_2, %pview[%cst_0_i32, %cst_0_i32] inbounds = "
        f"[false, true] : tile<16x16xf32>, {_PV}, tile<i32> -> token\n"
        "  %3 = store_view_tko release device %tile_2, %pview[%cst_0_i32, %cst_0_i32] "
        f"inbounds = [true, false] : tile<16x16xf32>, {_PV}, tile<i32> -> token\n"
        "  return\n"
        "}\n"),
    "inbounds after optimization_hints": (
        "entry @inbounds_opthints(%arg0: tile<ptr<f32>>) {\n"
        "  %tview = make_tensor_view %arg0, shape = [64], strides = [1] : "
        "tensor_view<64xf32, strides=[1]>\n"
        "  %pview = make_partition_view %tview : partition_view<tile=(16), "
        "tensor_view<64xf32, strides=[1]>>\n"
        "  %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
        "  %0 = make_token : token\n"
        "  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32] token = %0 "
        "optimization_hints = <sm_100 = {latency = 3}> inbounds = [true] : partition_view<"
        "tile=(16), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token\n"
        "  %1 = store_view_tko weak %tile, %pview[%cst_0_i32] token = %0 optimization_hints = "
        "<sm_100 = {latency = 3}> inbounds = [true] : tile<16xf32>, partition_view<tile=(16), "
        "tensor_view<64xf32, strides=[1]>>, tile<i32> -> token\n"
        "  return\n"
        "}\n"),
    "ptr_attr": (
        "entry @ptr_attr(%arg0: tile<ptr<f32, <none>>>, %arg1: tile<ptr<f32>>) {\n"
        "  %tview = make_tensor_view %arg0, shape = [16], strides = [1] : tile<ptr<f32, "
        "<none>>> -> tensor_view<16xf32, strides=[1], #cuda_tile.ptr_attr<none>>\n"
        "  %tview_0 = make_tensor_view %arg1, shape = [16], strides = [1] : "
        "tensor_view<16xf32, strides=[1]>\n"
        "  return\n"
        "}\n"),
    "ptr_attr through ops": (
        "entry @ptr_attr_ops(%arg0: tile<ptr<f32, <none>>>, %arg1: tile<i32>, %arg2:"
        " tile<ptr<f32>>) {\n"
        "  %tview = make_tensor_view %arg0, shape = [%arg1, 16], strides = [%arg1, 1] :"
        " tile<ptr<f32, <none>>>, tile<i32> -> tensor_view<?x16xf32, strides=[?,1],"
        " #cuda_tile.ptr_attr<none>>\n"
        "  %pview = make_partition_view %tview : partition_view<tile=(8x8),"
        " padding_value = zero, tensor_view<?x16xf32, strides=[?,1],"
        " #cuda_tile.ptr_attr<none>>>\n"
        "  %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
        "  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32] :"
        " partition_view<tile=(8x8), padding_value = zero, tensor_view<?x16xf32,"
        " strides=[?,1], #cuda_tile.ptr_attr<none>>>, tile<i32> -> tile<8x8xf32>, token\n"
        "  %reshape = reshape %arg0 : tile<ptr<f32, <none>>> -> tile<1xptr<f32, <none>>>\n"
        "  %bcast = broadcast %reshape : tile<1xptr<f32, <none>>> -> tile<4xptr<f32,"
        " <none>>>\n"
        "  %cst_1_i32 = constant <i32: 1> : tile<4xi32>\n"
        "  %0 = offset %bcast, %cst_1_i32 : tile<4xptr<f32, <none>>>, tile<4xi32> ->"
        " tile<4xptr<f32, <none>>>\n"
        "  %result, %result_token_0 = load_ptr_tko weak %0 : tile<4xptr<f32, <none>>> ->"
        " tile<4xf32>, token\n"
        "  %1 = ptr_to_int %0 : tile<4xptr<f32, <none>>> -> tile<4xi64>\n"
        "  %2 = int_to_ptr %1 : tile<4xi64> -> tile<4xptr<f32, <none>>>\n"
        "  %3 = ptr_to_ptr %arg0 : tile<ptr<f32, <none>>> -> tile<ptr<f32>>\n"
        "  %4 = ptr_to_ptr %arg2 : tile<ptr<f32>> -> tile<ptr<f32, <none>>>\n"
        "  %5 = ptr_to_ptr %arg0 : tile<ptr<f32, <none>>> -> tile<ptr<f16, <none>>>\n"
        "  return\n"
        "}\n"),
    "fpowf (13.4 name of pow)": (
        "entry @pow(%arg0: tile<ptr<f32>>) {\n"
        "  %cst_3_f32 = constant <f32: 3.000000e+00> : tile<16xf32>\n"
        "  %0 = fpowf %cst_3_f32, %cst_3_f32 : tile<16xf32>\n"
        "  return\n"
        "}\n"),
    "fpowi and insert": (
        "entry @insert_2d() {\n"
        "  %cst_f32 = constant <f32: 1.500000e+00> : tile<16x16xf32>\n"
        "  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<4x8xf32>\n"
        "  %cst_1_i32 = constant <i32: 1> : tile<i32>\n"
        "  %cst_0_i32 = constant <i32: 0> : tile<i32>\n"
        "  %0 = insert %cst_2_f32, %cst_f32[%cst_1_i32, %cst_0_i32] : tile<4x8xf32>, "
        "tile<16x16xf32>\n"
        "  %cst_f32_0 = constant <f32: 1.500000e+00> : tile<f32>\n"
        "  %1 = insert %cst_f32_0, %cst_f32_0[] : tile<f32>, tile<f32>\n"
        "  %cst_2_i8 = constant <i8: 2> : tile<16x16xi8>\n"
        "  %2 = fpowi %cst_f32, %cst_2_i8 : tile<16x16xf32>, tile<16x16xi8>\n"
        "  return\n"
        "}\n"),
    "return inside loop": (
        "entry @loop_return() {\n"
        "  loop {\n"
        "    return\n"
        "  }\n"
        "  return\n"
        "}\n"),
    "mmaf_scaled with fnv8E5M3FNU scales": (
        "entry @mms_f4_e5m3fnu_v16() {\n"
        "  %cst_0_f4E2M1FN = constant <f4E2M1FN: 0.000000e+00> : tile<16x64xf4E2M1FN>\n"
        "  %cst_0_f4E2M1FN_0 = constant <f4E2M1FN: 0.000000e+00> : tile<64x16xf4E2M1FN>\n"
        "  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<16x16xf32>\n"
        "  %cst_fnv8E5M3FNU = constant <fnv8E5M3FNU: 3.906250e-03> : "
        "tile<16x4xfnv8E5M3FNU>\n"
        "  %cst_fnv8E5M3FNU_1 = constant <fnv8E5M3FNU: 3.906250e-03> : "
        "tile<4x16xfnv8E5M3FNU>\n"
        "  %0 = mmaf_scaled %cst_0_f4E2M1FN, %cst_0_f4E2M1FN_0, %cst_0_f32, %cst_fnv8E5M3FNU, "
        "%cst_fnv8E5M3FNU_1 : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, "
        "tile<16x4xfnv8E5M3FNU>, tile<4x16xfnv8E5M3FNU>\n"
        "  %cst_fnv8E5M3FNU_2 = constant <fnv8E5M3FNU: 3.906250e-03> : "
        "tile<16x2xfnv8E5M3FNU>\n"
        "  %cst_fnv8E5M3FNU_3 = constant <fnv8E5M3FNU: 3.906250e-03> : "
        "tile<2x16xfnv8E5M3FNU>\n"
        "  %1 = mmaf_scaled %cst_0_f4E2M1FN, %cst_0_f4E2M1FN_0, %cst_0_f32, "
        "%cst_fnv8E5M3FNU_2, %cst_fnv8E5M3FNU_3 : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, "
        "tile<16x16xf32>, tile<16x2xfnv8E5M3FNU>, tile<2x16xfnv8E5M3FNU>\n"
        "  return\n"
        "}\n"),
}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_tileirdisasm_13_4_text_round_trips(name: str, tally) -> None:
    """Each document parses, verifies with no diagnostic and prints back identically."""
    text = ORACLE[name]
    assert parse(text, name).format() == text
    tally("13.4 tileirdisasm documents printed byte-identically", 1)


# ---- fnv8E5M3FNU ---------------------------------------------------------------------


def test_e5m3_prints_as_fnv8E5M3FNU() -> None:
    assert str(F8E5M3FNU) == "fnv8E5M3FNU"
    assert element_type("fnv8E5M3FNU") is F8E5M3FNU


def test_e5m3_older_spelling_is_read_and_printed_anew() -> None:
    assert element_type("f8E5M3FNU") is F8E5M3FNU
    assert str(parse_type("!cuda_tile.tile<4xf8E5M3FNU>")) == "!cuda_tile.tile<4xfnv8E5M3FNU>"
    text = ("entry @k() {\n"
            "  %cst_0_f8E5M3FNU = constant <f8E5M3FNU: 0.0> : tile<4xf8E5M3FNU>\n"
            "  return\n}\n")
    assert parse(text).format() == (
        "entry @k() {\n"
        "  %cst_0_fnv8E5M3FNU = constant <fnv8E5M3FNU: 0.000000e+00> : tile<4xfnv8E5M3FNU>\n"
        "  return\n}\n")


# ---- rounding<nearest_away> ------------------------------------------------------------


def test_nearest_away_is_rounding_mode_7() -> None:
    assert RoundingMode.from_keyword("nearest_away") == 7


def test_nearest_away_is_not_an_ieee_rounding_keyword_of_addf() -> None:
    text = ("cuda_tile.module @m {\n  testing$func @f(%a: tile<4xf32>) {\n"
            "    %0 = addf %a, %a rounding<nearest_away> : tile<4xf32>\n    return\n  }\n}\n")
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.diagnostics[0].message == (
        "custom op 'cuda_tile.addf' expected rounding mode to be one of: 'nearest_even', "
        "'zero', 'negative_inf', 'positive_inf', got: 'nearest_away'")


# ---- pow / fpowf -----------------------------------------------------------------------


def test_pow_is_fpowf_in_13_4() -> None:
    assert lookup("fpowf") is lookup("pow") is lookup("cuda_tile.pow")
    assert lookup("fpowf").name == "fpowf" and lookup("fpowf").opcode == 0x54


_POW = ("cuda_tile.module @m {\n  testing$func @f(%a: tile<2xf32>) {\n"
        "    %0 = {op} %a, %a : tile<2xf32>\n    return\n  }}\n}}\n")


@pytest.mark.parametrize("written, printed", [
    ("pow", "pow"), ("cuda_tile.pow", "pow"), ("fpowf", "fpowf"),
    ("cuda_tile.fpowf", "fpowf")])
def test_pow_keeps_the_spelling_it_was_written_with(written: str, printed: str) -> None:
    text = ("cuda_tile.module @m {\n  testing$func @f(%a: tile<2xf32>) {\n"
            f"    %0 = {written} %a, %a : tile<2xf32>\n    return\n  }}\n}}\n")
    module = parse(text)
    assert module.format() == (
        "cuda_tile.module @m {\n  testing$func @f(%arg0: tile<2xf32>) {\n"
        f"    %0 = {printed} %arg0, %arg0 : tile<2xf32>\n    return\n  }}\n}}\n")
    generic = module.format(generic=True)
    assert f'"cuda_tile.{printed}"(' in generic
    assert parse(generic).format(generic=True) == generic


# ---- inbounds ------------------------------------------------------------------------


def test_all_false_inbounds_is_not_printed() -> None:
    text = ORACLE["inbounds"].replace("inbounds = [true, false] : tile<16x16xf32>",
                                      "inbounds = [false, false] : tile<16x16xf32>")
    assert text != ORACLE["inbounds"]
    printed = parse(text).format()
    assert "inbounds = [false, false]" not in printed
    assert printed == text.replace(" inbounds = [false, false]", "")


def test_inbounds_is_an_i1_dense_array_in_generic_form() -> None:
    generic = parse(ORACLE["inbounds after optimization_hints"]).format(generic=True)
    assert generic.count("inbounds = array<i1: true>") == 2
    assert parse(generic).format(generic=True) == generic


# ---- ptr_attr ------------------------------------------------------------------------


@pytest.mark.parametrize("text, printed", [
    ("!cuda_tile.ptr<f32, <none>>", "!cuda_tile.ptr<f32, <none>>"),
    ("!cuda_tile.ptr<f32, #cuda_tile.ptr_attr<none>>", "!cuda_tile.ptr<f32, <none>>"),
    ("tile<ptr<f32, #cuda_tile.ptr_attr<none>>>", "!cuda_tile.tile<ptr<f32, <none>>>"),
    ("tensor_view<4xf32, strides=[1], #cuda_tile.ptr_attr<none>>",
     "!cuda_tile.tensor_view<4xf32, strides=[1], #cuda_tile.ptr_attr<none>>"),
    ("tensor_view<f32, #cuda_tile.ptr_attr<none>>",
     "!cuda_tile.tensor_view<f32, #cuda_tile.ptr_attr<none>>"),
])
def test_ptr_attr_types(text: str, printed: str) -> None:
    assert str(parse_type(text)) == printed


def test_ptr_attr_is_part_of_the_type() -> None:
    assert parse_type("ptr<f32, <none>>") == PointerType(F32, PointerAttribute.NONE)
    assert parse_type("ptr<f32, <none>>") != PointerType(F32)
    view = parse_type("tensor_view<4xf32, strides=[1], #cuda_tile.ptr_attr<none>>")
    assert view == TensorViewType(F32, (4,), (1,), PointerAttribute.NONE)
