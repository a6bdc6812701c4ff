"""Op-specific verifiers of the arithmetic, math, bitwise and conversion ops, with the
reference verifier's exact messages (CudaTile.cpp and SharedVerifiers.h)."""

from __future__ import annotations

import pytest
from conftest import function_module as _func



def _t(spec: str) -> str:
    """``!cuda_tile.tile<spec>``."""
    return f"!cuda_tile.tile<{spec}>"


def _generic_unary(name: str, ty: str, attrs: str) -> str:
    """One generic-form op with a single operand %a of type `ty`."""
    return _func(f"%a: {ty}",
                 f'%0 = "cuda_tile.{name}"(%a) <{{{attrs}}}> : ({ty}) -> {ty}')


def _generic_binary(name: str, ty: str, attrs: str) -> str:
    """One generic-form op with two operands of type `ty`."""
    return _func(f"%a: {ty}, %b: {ty}",
                 f'%0 = "cuda_tile.{name}"(%a, %b) <{{{attrs}}}> : ({ty}, {ty}) -> {ty}')


# ---- rounding modes and f32-only modifiers --------------------------------------------

IEEE = "invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, " \
       "positive_inf]"


@pytest.mark.parametrize("name", ["addf", "subf", "mulf"])
@pytest.mark.parametrize("mode", ["approx", "full"])
def test_ieee_binary_rejects_non_ieee_rounding(diagnose, name: str, mode: str) -> None:
    text = _generic_binary(name, _t("4xf32"), f"rounding_mode = #cuda_tile.rounding<{mode}>")
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' op {IEEE}"]


def test_fma_rejects_non_ieee_rounding(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f'%0 = "cuda_tile.fma"(%a, %a, %a) <{{rounding_mode = '
                              f'#cuda_tile.rounding<approx>}}> : ({ty}, {ty}, {ty}) -> {ty}')
    assert diagnose(text) == [f"error: 'cuda_tile.fma' op {IEEE}"]


@pytest.mark.parametrize("name", ["addf", "subf", "mulf", "divf"])
def test_flush_to_zero_needs_f32(diagnose, name: str) -> None:
    ty = _t("4xf16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.{name} %a, %a rounding<nearest_even> "
                              f"flush_to_zero : {ty}")
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' op flush_to_zero modifier only "
                              f"supported for f32 data type, but got: 'f16'"]


def test_fma_flush_to_zero_needs_f32(diagnose) -> None:
    ty = _t("4xbf16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.fma %a, %a, %a rounding<zero> flush_to_zero "
                              f": {ty}")
    assert diagnose(text) == ["error: 'cuda_tile.fma' op flush_to_zero modifier only "
                              "supported for f32 data type, but got: 'bf16'"]


@pytest.mark.parametrize("name", ["maxf", "minf"])
def test_maxf_minf_flush_to_zero_needs_f32(diagnose, name: str) -> None:
    ty = _t("4xf64")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.{name} %a, %a flush_to_zero : {ty}")
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' op flush_to_zero modifier only "
                              f"supported for f32 data type, but got: 'f64'"]


@pytest.mark.parametrize("name", ["exp2", "rsqrt"])
def test_unary_flush_to_zero_needs_f32(diagnose, name: str) -> None:
    ty = _t("4xf16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.{name} %a flush_to_zero : {ty}")
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' op flush_to_zero modifier only "
                              f"supported for f32 data type, but got: 'f16'"]


def test_flush_to_zero_on_f32_verifies(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.addf %a, %a rounding<zero> flush_to_zero "
                              f": {ty}\n    %1 = cuda_tile.exp2 %a flush_to_zero : {ty}")
    assert diagnose(text) == []


def test_divf_rounding_whitelist(diagnose) -> None:
    text = _generic_binary("divf", _t("4xf32"),
                           "rounding_mode = #cuda_tile.rounding<nearest_int_to_zero>")
    assert diagnose(text) == ["error: 'cuda_tile.divf' op invalid rounding mode specified, "
                              "expect one of [nearest_even, zero, negative_inf, "
                              "positive_inf, approx, full]"]


@pytest.mark.parametrize("mode", ["approx", "full"])
def test_divf_approx_and_full_need_f32(diagnose, mode: str) -> None:
    text = _generic_binary("divf", _t("4xf64"), f"rounding_mode = #cuda_tile.rounding<{mode}>")
    assert diagnose(text) == [f"error: 'cuda_tile.divf' op {mode} modifier only supported "
                              f"for f32 data type, but got: 'f64'"]


def test_divf_flush_to_zero_checked_before_approx(diagnose) -> None:
    text = _generic_binary("divf", _t("4xf16"),
                           "rounding_mode = #cuda_tile.rounding<approx>, flush_to_zero")
    assert diagnose(text) == ["error: 'cuda_tile.divf' op flush_to_zero modifier only "
                              "supported for f32 data type, but got: 'f16'"]


def test_divf_approx_and_full_on_f32_verify(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.divf %a, %a rounding<approx> : {ty}\n"
                              f"    %1 = cuda_tile.divf %a, %a rounding<full> : {ty}")
    assert diagnose(text) == []


def test_sqrt_rounding_whitelist(diagnose) -> None:
    text = _generic_unary("sqrt", _t("4xf32"), "rounding_mode = #cuda_tile.rounding<full>")
    assert diagnose(text) == ["error: 'cuda_tile.sqrt' op invalid rounding mode specified, "
                              "expect one of [nearest_even, zero, negative_inf, "
                              "positive_inf, approx]"]


def test_sqrt_approx_needs_f32(diagnose) -> None:
    text = _generic_unary("sqrt", _t("4xf16"), "rounding_mode = #cuda_tile.rounding<approx>")
    assert diagnose(text) == ["error: 'cuda_tile.sqrt' op approx modifier only supported for "
                              "f32 data type, but got: 'f16'"]


@pytest.mark.parametrize("name", ["exp", "tanh"])
def test_exp_tanh_approx_needs_f32(diagnose, name: str) -> None:
    ty = _t("4xbf16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.{name} %a rounding<approx> : {ty}")
    assert diagnose(text) == [f"error: 'cuda_tile.{name}' op approx modifier only supported "
                              f"for f32 data type, but got: 'bf16'"]


@pytest.mark.parametrize("name", ["exp", "tanh"])
def test_exp_tanh_full_allowed_on_any_float(diagnose, name: str) -> None:
    ty = _t("4xf16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.{name} %a rounding<full> : {ty}")
    assert diagnose(text) == []


def test_exp_rounding_whitelist(diagnose) -> None:
    text = _generic_unary("exp", _t("4xf32"), "rounding_mode = #cuda_tile.rounding<zero>")
    assert diagnose(text) == ["error: 'cuda_tile.exp' op invalid rounding mode specified, "
                              "expect one of [approx, full]"]


def test_tanh_bad_rounding_does_not_stop_verification(diagnose) -> None:
    # TanHOp::verify reports the mode but does not fail, so the next op is still checked.
    ty = _t("4xf16")
    text = _func(f"%a: {ty}",
                 f'%0 = "cuda_tile.tanh"(%a) <{{rounding_mode = #cuda_tile.rounding<zero>}}> '
                 f": ({ty}) -> {ty}\n"
                 f"    %1 = cuda_tile.exp2 %a flush_to_zero : {ty}")
    assert diagnose(text) == [
        "error: 'cuda_tile.tanh' op invalid rounding mode specified, expect one of "
        "[approx, full]",
        "error: 'cuda_tile.exp2' op flush_to_zero modifier only supported for f32 data type, "
        "but got: 'f16'"]


# ---- comparisons --------------------------------------------------


@pytest.mark.parametrize("result", ["2xi1", "4x4xi1"])
def test_cmpi_result_is_i1_of_operand_shape(diagnose, result: str) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.cmpi equal %a, %a, signed : {ty} -> "
                              f"{_t(result)}")
    assert diagnose(text) == ["error: 'cuda_tile.cmpi' op failed to verify that Result type "
                              "has i1 element type and same shape as operands"]


def test_cmpf_result_is_i1_of_operand_shape(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.cmpf less_than ordered %a, %a : {ty} -> "
                              f"{_t('8xi1')}")
    assert diagnose(text) == ["error: 'cuda_tile.cmpf' op failed to verify that Result type "
                              "has i1 element type and same shape as operands"]


# ---- integer ops --------------------------------------------------


def test_divi_unsigned_floor_rejected(diagnose) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.divi %a, %a unsigned rounding<negative_inf> "
                              f": {ty}")
    assert diagnose(text) == ["error: 'cuda_tile.divi' op rounding mode 'negative_inf' is not "
                              "allowed with 'unsigned' flag"]


def test_divi_signed_floor_and_unsigned_ceil_verify(diagnose) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.divi %a, %a signed rounding<negative_inf> "
                              f": {ty}\n    %1 = cuda_tile.divi %a, %a unsigned "
                              f"rounding<positive_inf> : {ty}")
    assert diagnose(text) == []


def test_divi_rounding_whitelist(diagnose) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f'%0 = "cuda_tile.divi"(%a, %a) <{{rounding = '
                              f'#cuda_tile.rounding<nearest_even>, signedness = '
                              f'#cuda_tile.signedness<signed>}}> : ({ty}, {ty}) -> {ty}')
    assert diagnose(text) == ["error: 'cuda_tile.divi' op invalid rounding mode specified, "
                              "expect one of [zero, negative_inf, positive_inf]"]


def test_negi_no_unsigned_wrap_rejected(diagnose) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.negi %a overflow<no_unsigned_wrap> : {ty}")
    assert diagnose(text) == ["error: 'cuda_tile.negi' op 'no_unsigned_wrap' overflow flag is "
                              "not supported"]


def test_negi_no_signed_wrap_verifies(diagnose) -> None:
    ty = _t("4xi32")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.negi %a overflow<no_signed_wrap> : {ty}")
    assert diagnose(text) == []


# ---- mma --------------------------------------------------


def _mmaf(lhs: str, rhs: str, acc: str) -> str:
    """A function applying mmaf to arguments of the given tile types."""
    a, b, c = _t(lhs), _t(rhs), _t(acc)
    return _func(f"%a: {a}, %b: {b}, %c: {c}",
                 f"%0 = cuda_tile.mmaf %a, %b, %c : {a}, {b}, {c}")


def test_mmaf_inner_dims_must_match(diagnose) -> None:
    # The reference's message for M/N/K dims has a leading space after "op ".
    assert diagnose(_mmaf("4x16xf16", "8x16xf16", "4x16xf32")) == [
        "error: 'cuda_tile.mmaf' op  shape error: dim 1 of lhs (16) and dim 0 of rhs (8) must "
        "match, but got lhs shape (4, 16) and rhs shape (8, 16)"]


def test_mmaf_rows_must_match_acc(diagnose) -> None:
    assert diagnose(_mmaf("16x8xf16", "8x16xf16", "4x16xf32")) == [
        "error: 'cuda_tile.mmaf' op  shape error: dim 0 of lhs (16) and dim 0 of acc (4) must "
        "match, but got lhs shape (16, 8) and acc shape (4, 16)"]


def test_mmaf_cols_must_match_acc(diagnose) -> None:
    assert diagnose(_mmaf("4x8xf16", "8x16xf16", "4x32xf32")) == [
        "error: 'cuda_tile.mmaf' op  shape error: dim 1 of rhs (16) and dim 1 of acc (32) must "
        "match, but got rhs shape (8, 16) and acc shape (4, 32)"]


def test_mmaf_batch_dims_must_match(diagnose) -> None:
    assert diagnose(_mmaf("2x4x8xf16", "4x8x16xf16", "2x4x16xf32")) == [
        "error: 'cuda_tile.mmaf' op shape error: dim 0 of lhs (2) and dim 0 of rhs (4) must "
        "match, but got lhs shape (2, 4, 8) and rhs shape (4, 8, 16)"]


def test_mmaf_operands_are_2d_or_3d(diagnose) -> None:
    assert diagnose(_mmaf("8xf16", "8xf16", "8xf32")) == [
        "error: 'cuda_tile.mmaf' op operands must be 2D or 3D tiles"]


@pytest.mark.parametrize("lhs, acc, allowed", [
    ("f8E4M3FN", "f64", "'f16', 'f32'"),
    ("f16", "f64", "'f16', 'f32'"),
    ("bf16", "f16", "'f32'"),
    ("tf32", "f16", "'f32'"),
    ("f32", "f64", "'f32'"),
    ("f64", "f32", "'f64'"),
])
def test_mmaf_element_type_combinations(diagnose, lhs: str, acc: str, allowed: str) -> None:
    assert diagnose(_mmaf(f"4x8x{lhs}", f"8x16x{lhs}", f"4x16x{acc}")) == [
        f"error: 'cuda_tile.mmaf' op unsupported combination of element types. Input type "
        f"'{lhs}' expects accumulator/result type to be one of {{{allowed}}}, but got '{acc}'"]


def test_mmaf_valid_verifies(diagnose) -> None:
    assert diagnose(_mmaf("2x4x8xf8E5M2", "2x8x16xf8E5M2", "2x4x16xf16")) == []


def test_mmai_shapes(diagnose) -> None:
    a, b, c = _t("4x16xi8"), _t("8x16xi8"), _t("4x16xi32")
    text = _func(f"%a: {a}, %b: {b}, %c: {c}",
                 f"%0 = cuda_tile.mmai %a, %b, %c signed unsigned : {a}, {b}, {c}")
    assert diagnose(text) == [
        "error: 'cuda_tile.mmai' op  shape error: dim 1 of lhs (16) and dim 0 of rhs (8) must "
        "match, but got lhs shape (4, 16) and rhs shape (8, 16)"]


def _scaled(elem: str, lhs: str, rhs: str, scale: str, lhs_scale: str, rhs_scale: str,
            acc: str = "128x128") -> str:
    """A function applying mmaf_scaled to tiles of the given shapes and element types."""
    types = [_t(f"{lhs}x{elem}"), _t(f"{rhs}x{elem}"), _t(f"{acc}xf32"),
             _t(f"{lhs_scale}x{scale}"), _t(f"{rhs_scale}x{scale}")]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    return _func(args, "%0 = cuda_tile.mmaf_scaled %a0, %a1, %a2, %a3, %a4 : "
                       + ", ".join(types))


def test_mmaf_scaled_valid_verifies(diagnose) -> None:
    assert diagnose(_scaled("f4E2M1FN", "128x128", "128x128", "f8E8M0FNU",
                            "128x4", "4x128")) == []


def test_mmaf_scaled_lhs_scale_rows(diagnose) -> None:
    assert diagnose(_scaled("f8E4M3FN", "128x128", "128x128", "f8E8M0FNU",
                            "64x4", "4x128")) == [
        "error: 'cuda_tile.mmaf_scaled' op shape error: dim 0 of lhs (128) and dim 0 of "
        "lhs_scale (64) must match, but got lhs shape (128, 128) and lhs_scale shape (64, 4)"]


def test_mmaf_scaled_rhs_scale_cols(diagnose) -> None:
    assert diagnose(_scaled("f8E4M3FN", "128x128", "128x128", "f8E8M0FNU",
                            "128x4", "4x64")) == [
        "error: 'cuda_tile.mmaf_scaled' op shape error: dim 1 of rhs (128) and dim 1 of "
        "rhs_scale (64) must match, but got rhs shape (128, 128) and rhs_scale shape (4, 64)"]


def test_mmaf_scaled_batch_of_scale(diagnose) -> None:
    assert diagnose(_scaled("f8E4M3FN", "4x128x128", "4x128x128", "f8E8M0FNU",
                            "2x128x4", "4x4x128", acc="4x128x128")) == [
        "error: 'cuda_tile.mmaf_scaled' op shape error: dim 0 of lhs (4) and dim 0 of "
        "lhs_scale (2) must match, but got lhs shape (4, 128, 128) and lhs_scale shape "
        "(2, 128, 4)"]


def test_mmaf_scaled_scales_agree_on_k(diagnose) -> None:
    assert diagnose(_scaled("f4E2M1FN", "128x128", "128x128", "f8E8M0FNU",
                            "128x8", "4x128")) == [
        "error: 'cuda_tile.mmaf_scaled' op shape error: dim 1 of lhs_scale (8) and dim 0 of "
        "rhs_scale (4) must match, but got lhs_scale shape (128, 8) and rhs_scale shape "
        "(4, 128)"]


def test_mmaf_scaled_e4m3_scale_needs_f4(diagnose) -> None:
    assert diagnose(_scaled("f8E5M2", "128x128", "128x128", "f8E4M3FN",
                            "128x4", "4x128")) == [
        "error: 'cuda_tile.mmaf_scaled' op unsupported combination of element types. Scale "
        "type 'f8E4M3FN' expects lhs and rhs element types to be 'f4E2M1FN', but got "
        "'f8E5M2'"]


def test_mmaf_scaled_scale_must_divide_k(diagnose) -> None:
    assert diagnose(_scaled("f8E5M2", "128x32", "32x128", "f8E8M0FNU",
                            "128x64", "64x128")) == [
        "error: 'cuda_tile.mmaf_scaled' op shape error: dim 1 of lhs_scale (64) must be a "
        "divisor of dim 1 of lhs (32), but got lhs_scale shape (128, 64) and lhs shape "
        "(128, 32)"]


@pytest.mark.parametrize("elem, scale, k_scale, message", [
    ("f8E4M3FN", "f8E8M0FNU", 8,
     "f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, "
     "but got 16"),
    ("f4E2M1FN", "f8E8M0FNU", 16,
     "f4E2M1FN element type with f8E8M0FNU scales requires block scale factor of lhs_scale "
     "and rhs_scale to be 16 or 32, but got 8"),
    ("f4E2M1FN", "f8E4M3FN", 16,
     "f4E2M1FN element type with f8E4M3FN scales requires block scale factor of lhs_scale "
     "and rhs_scale to be 16, but got 8"),
])
def test_mmaf_scaled_block_scale_factor(diagnose, elem: str, scale: str, k_scale: int,
                                        message: str) -> None:
    assert diagnose(_scaled(elem, "128x128", "128x128", scale, f"128x{k_scale}",
                            f"{k_scale}x128")) == [
        f"error: 'cuda_tile.mmaf_scaled' op shape error: {message}"]


# ---- conversions --------------------------------------------------


def _convert(name: str, src: str, dst: str, middle: str = "") -> str:
    """A function applying conversion `name` to an argument of tile type `src`."""
    a, b = _t(src), _t(dst)
    return _func(f"%a: {a}", f"%0 = cuda_tile.{name} %a{middle} : {a} -> {b}")


def test_bitcast_needs_equal_widths(diagnose) -> None:
    assert diagnose(_convert("bitcast", "i32", "i16")) == [
        "error: 'cuda_tile.bitcast' op types must be equal width, cannot convert "
        "'!cuda_tile.tile<i32>' of width 32 to type '!cuda_tile.tile<i16>' of width 16"]


def test_bitcast_counts_tf32_as_19_bits(diagnose) -> None:
    # MLIR's getIntOrFloatBitWidth gives tf32 19 bits, so tf32 <-> i32 is not a bitcast.
    assert diagnose(_convert("bitcast", "4xtf32", "4xi32")) == [
        "error: 'cuda_tile.bitcast' op types must be equal width, cannot convert "
        "'!cuda_tile.tile<4xtf32>' of width 19 to type '!cuda_tile.tile<4xi32>' of width 32"]


def test_bitcast_equal_widths_verify(diagnose) -> None:
    assert diagnose(_convert("bitcast", "4xf32", "4xi32")) == []


@pytest.mark.parametrize("src, dst", [("4xi32", "4xi16"), ("4xi32", "4xi32")])
def test_exti_must_widen(diagnose, src: str, dst: str) -> None:
    assert diagnose(_convert("exti", src, dst, " signed")) == [
        "error: 'cuda_tile.exti' op extending to smaller or identical integer"]


@pytest.mark.parametrize("src, dst", [("4xi16", "4xi32"), ("4xi16", "4xi16")])
def test_trunci_must_narrow(diagnose, src: str, dst: str) -> None:
    assert diagnose(_convert("trunci", src, dst)) == [
        "error: 'cuda_tile.trunci' op truncating to larger or identical integer"]


def test_width_changes_verify(diagnose) -> None:
    a, b = _t("4xi4"), _t("4xi64")
    text = _func(f"%a: {a}", f"%0 = cuda_tile.exti %a unsigned : {a} -> {b}\n"
                             f"    %1 = cuda_tile.trunci %0 : {b} -> {a}")
    assert diagnose(text) == []


def test_ftof_no_op_rejected(diagnose) -> None:
    assert diagnose(_convert("ftof", "4xf32", "4xf32")) == [
        "error: 'cuda_tile.ftof' op converting tiles must not be a no-op"]


def test_ftof_rounding_only_nearest_even(diagnose, monkeypatch) -> None:
    # widening f32 -> f64 as NVIDIA's 13.3 build words it (13.5 accepts it: see
    # test_verify_v13_5_wording; 13.4 allows zero when narrowing to f16: test_verify_v13_4)
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", "13.1 13.2 13.3")
    assert diagnose(_convert("ftof", "4xf32", "4xf64", " rounding<negative_inf>")) == [
        "error: 'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' is "
        "supported"]


def test_ftof_to_e8m0_rounding(diagnose) -> None:
    assert diagnose(_convert("ftof", "4xf32", "4xf8E8M0FNU")) == [
        "error: 'cuda_tile.ftof' op invalid rounding mode specified for conversion to "
        "f8E8M0FNU. Only 'zero' and 'positive_inf' are supported"]


def test_ftof_to_e8m0_with_positive_inf_verifies(diagnose) -> None:
    assert diagnose(_convert("ftof", "4xf32", "4xf8E8M0FNU", " rounding<positive_inf>")) == []


def test_ftoi_rounding_only_nearest_int_to_zero(diagnose) -> None:
    a, b = _t("4xf32"), _t("4xi32")
    text = _func(f"%a: {a}", f'%0 = "cuda_tile.ftoi"(%a) <{{rounding_mode = '
                             f'#cuda_tile.rounding<nearest_even>, signedness = '
                             f'#cuda_tile.signedness<signed>}}> : ({a}) -> {b}')
    assert diagnose(text) == [
        "error: 'cuda_tile.ftoi' op invalid rounding mode specified. Only "
        "'nearest_int_to_zero' is supported"]


def test_itof_to_e8m0_rejected(diagnose) -> None:
    assert diagnose(_convert("itof", "4xi32", "4xf8E8M0FNU", " signed")) == [
        "error: 'cuda_tile.itof' op integer to f8E8M0FNU conversion is not supported, please "
        "first convert to another float type"]


def test_itof_rounding_only_nearest_even(diagnose) -> None:
    assert diagnose(_convert("itof", "4xi32", "4xf32", " signed rounding<zero>")) == [
        "error: 'cuda_tile.itof' op invalid rounding mode specified. Only 'nearest_even' is "
        "supported"]
