"""The 13.4 verifier rules.  Expected messages are NVIDIA's 13.4 tileirdisasm verifier's
(its [OBS-VERIFY] output for bytecode we made), except where a test says the 13.3 suite
fixes them."""

from __future__ import annotations

import pytest

_PV2 = "partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>"


def _func(args: str, *body: str) -> str:
    """A module holding one test function with arguments `args` and the lines `body`."""
    lines = "".join(f"    {line}\n" for line in body)
    return (f"cuda_tile.module @m {{\n  testing$func @f({args}) {{\n{lines}"
            "    return\n  }\n}\n")


def _t(spec: str) -> str:
    return f"!cuda_tile.tile<{spec}>"


# ---- ftof rounding (13.4: nearest_away; zero on narrowing to standard types) ------------


def _ftof(src: str, dst: str, mode: str) -> str:
    return _func(f"%a: {_t(src)}", f"%0 = ftof %a rounding<{mode}> : tile<{src}> -> tile<{dst}>")


@pytest.mark.parametrize("src, dst, mode", [
    ("16xf16", "16xf32", "nearest_away"),     # strict widening
    ("16xf32", "16xtf32", "nearest_away"),
    ("16xf32", "16xf16", "zero"),             # narrowing to a standard type
    ("16xf32", "16xf16", "nearest_even"),
    ("16xf32", "16xf8E8M0FNU", "positive_inf"),
])
def test_ftof_accepted_rounding(diagnose, src: str, dst: str, mode: str) -> None:
    assert diagnose(_ftof(src, dst, mode)) == []


def test_ftof_narrowing_rejects_nearest_away(diagnose) -> None:
    assert diagnose(_ftof("16xf32", "16xf16", "nearest_away")) == [
        "error: 'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' and "
        "'zero' are supported for narrowing conversions to standard types"]


def test_ftof_widening_keeps_the_13_3_message(diagnose, monkeypatch) -> None:
    # NVIDIA's 13.3 suite (invalid.mlir): f32 -> f64 with negative_inf, when tileir stands
    # in for that build (13.5 accepts it: test_verify_v13_5_wording).
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", "13.1 13.2 13.3")
    assert diagnose(_ftof("2x2xf32", "2x2xf64", "negative_inf")) == [
        "error: 'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' is "
        "supported"]


def test_ftof_to_e8m0_rejects_nearest_away(diagnose) -> None:
    assert diagnose(_ftof("16xf32", "16xf8E8M0FNU", "nearest_away")) == [
        "error: 'cuda_tile.ftof' op invalid rounding mode specified for conversion to "
        "f8E8M0FNU. Only 'zero' and 'positive_inf' are supported"]


# ---- nearest_away elsewhere: generic form, since the custom syntax refuses it -----------


def _generic(name: str, operands: int, ty: str, attrs: str, result: str | None = None) -> str:
    args = ", ".join(f"%a{i}: {ty}" for i in range(operands))
    uses = ", ".join(f"%a{i}" for i in range(operands))
    types = ", ".join([ty] * operands)
    return _func(args, f'%0 = "cuda_tile.{name}"({uses}) <{{{attrs}}}> : ({types}) -> '
                       f"{result or ty}")


_NA = "rounding_mode = #cuda_tile.rounding<nearest_away>"
_IEEE = "[nearest_even, zero, negative_inf, positive_inf]"


@pytest.mark.parametrize("name, operands, expected", [
    ("addf", 2, _IEEE), ("subf", 2, _IEEE), ("mulf", 2, _IEEE), ("fma", 3, _IEEE),
    ("divf", 2, "[nearest_even, zero, negative_inf, positive_inf, approx, full]"),
    ("sqrt", 1, "[nearest_even, zero, negative_inf, positive_inf, approx]"),
    ("exp", 1, "[approx, full]"), ("tanh", 1, "[approx, full]"),
])
def test_nearest_away_rejected_by_float_ops(diagnose, name: str, operands: int,
                                            expected: str) -> None:
    assert diagnose(_generic(name, operands, _t("16xf32"), _NA)) == [
        f"error: 'cuda_tile.{name}' op invalid rounding mode specified, expect one of "
        f"{expected}"]


def test_itof_rejects_nearest_away(diagnose) -> None:
    attrs = _NA + ", signedness = #cuda_tile.signedness<signed>"
    assert diagnose(_generic("itof", 1, _t("16xi32"), attrs, _t("16xf32"))) == [
        "error: 'cuda_tile.itof' op invalid rounding mode specified. Only 'nearest_even' is "
        "supported"]


@pytest.mark.parametrize("mode", ["nearest_away", "nearest_even", "zero", "negative_inf",
                                  "positive_inf", "approx", "full"])
def test_ftoi_only_nearest_int_to_zero(diagnose, mode: str) -> None:
    attrs = (f"rounding_mode = #cuda_tile.rounding<{mode}>, "
             "signedness = #cuda_tile.signedness<signed>")
    assert diagnose(_generic("ftoi", 1, _t("16xf32"), attrs, _t("16xi32"))) == [
        "error: 'cuda_tile.ftoi' op invalid rounding mode specified. Only "
        "'nearest_int_to_zero' is supported"]


def test_ftoi_saturating_verifies(diagnose) -> None:
    assert diagnose(_func("%a: tile<f32>",
                          "%0 = ftoi %a signed  saturating : tile<f32> -> tile<i8>")) == []


# ---- fpowi ---------------------------------------------------------------------------


def test_fpowi_exponent_must_be_a_narrow_integer(diagnose) -> None:
    assert diagnose(_func("%a: tile<4x8xf32>, %b: tile<4x8xi64>",
                          "%0 = fpowi %a, %b : tile<4x8xf32>, tile<4x8xi64>")) == [
        "error: 'cuda_tile.fpowi' op operand #1 must be tile of i1 or i8 or i16 or i32 values, "
        "but got '!cuda_tile.tile<4x8xi64>'"]


def test_fpowi_base_must_be_a_float(diagnose) -> None:
    assert diagnose(_func("%a: tile<4xi32>, %b: tile<4xi32>",
                          "%0 = fpowi %a, %b : tile<4xi32>, tile<4xi32>")) == [
        "error: 'cuda_tile.fpowi' op operand #0 must be tile of f16 or bf16 or f32 or f64 "
        "values, but got '!cuda_tile.tile<4xi32>'"]


def test_fpowi_shapes_must_match(diagnose) -> None:
    assert diagnose(_func("%a: tile<4x8xf32>, %b: tile<8x4xi32>",
                          "%0 = fpowi %a, %b : tile<4x8xf32>, tile<8x4xi32>")) == [
        "error: 'cuda_tile.fpowi' op failed to verify that all of {source, exponent} have "
        "same shape"]


# ---- insert --------------------------------------------------------------------------


def test_insert_needs_one_index_per_destination_dimension(diagnose) -> None:
    assert diagnose(_func("%s: tile<4xf32>, %d: tile<16xf32>, %i: tile<i32>",
                          "%0 = insert %s, %d[%i, %i] : tile<4xf32>, tile<16xf32>")) == [
        "error: 'cuda_tile.insert' op expected 1 indices, but got 2"]


def test_insert_source_rank_must_be_the_destinations(diagnose) -> None:
    assert diagnose(_func("%s: tile<f32>, %d: tile<8xf32>, %i: tile<i32>",
                          "%0 = insert %s, %d[%i] : tile<f32>, tile<8xf32>")) == [
        "error: 'cuda_tile.insert' op source and result must have the same rank"]


def test_insert_indices_are_i32(diagnose) -> None:
    s, d, i = _t("4xf32"), _t("16xf32"), _t("i64")
    assert diagnose(_func(f"%s: {s}, %d: {d}, %i: {i}",
                          f'%0 = "cuda_tile.insert"(%s, %d, %i) : ({s}, {d}, {i}) -> {d}')) == [
        "error: 'cuda_tile.insert' op operand #2 must be variadic of 0D tile of i32 values, "
        "but got '!cuda_tile.tile<i64>'"]


def test_insert_verifies(diagnose) -> None:
    assert diagnose(_func("%s: tile<2xi1>, %d: tile<8xi1>, %i: tile<i32>",
                          "%0 = insert %s, %d[%i] : tile<2xi1>, tile<8xi1>")) == []


# ---- mmaf_scaled with fnv8E5M3FNU scales ---------------------------------------------


def _mmaf_scaled(element: str, scale: str, scale_k: int) -> str:
    lhs, rhs, acc = f"16x64x{element}", f"64x16x{element}", "16x16xf32"
    ls, rs = f"16x{scale_k}x{scale}", f"{scale_k}x16x{scale}"
    types = ", ".join(f"tile<{t}>" for t in (lhs, rhs, acc, ls, rs))
    args = ", ".join(f"%{n}: tile<{t}>" for n, t in zip("abcde", (lhs, rhs, acc, ls, rs)))
    return _func(args, f"%0 = mmaf_scaled %a, %b, %c, %d, %e : {types}")


@pytest.mark.parametrize("scale_k", [4, 2])   # block scale factor 16 and 32
def test_f4_with_fnv8E5M3FNU_scales_verifies(diagnose, scale_k: int) -> None:
    assert diagnose(_mmaf_scaled("f4E2M1FN", "fnv8E5M3FNU", scale_k)) == []


@pytest.mark.parametrize("element", ["f8E4M3FN", "f8E5M2"])
def test_fnv8E5M3FNU_scales_need_f4_operands(diagnose, element: str) -> None:
    assert diagnose(_mmaf_scaled(element, "fnv8E5M3FNU", 2)) == [
        "error: 'cuda_tile.mmaf_scaled' op unsupported combination of element types. Scale "
        f"type 'fnv8E5M3FNU' expects lhs and rhs element types to be 'f4E2M1FN', but got "
        f"'{element}'"]


def test_fnv8E5M3FNU_is_not_an_mmaf_scaled_operand(diagnose) -> None:
    assert diagnose(_mmaf_scaled("fnv8E5M3FNU", "f8E8M0FNU", 2)) == [
        "error: 'cuda_tile.mmaf_scaled' op operand #0 must be mmaf_scaled operand tile type of "
        "f8E4M3FN or f8E5M2 or f4E2M1FN values, but got '!cuda_tile.tile<16x64xfnv8E5M3FNU>'"]


# ---- inbounds ------------------------------------------------------------------------


def _view_access(clause: str, store: bool = False) -> str:
    lines = ["%tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : "
             "tensor_view<64x64xf32, strides=[64,1]>",
             f"%pv = make_partition_view %tv : {_PV2}",
             "%c = constant <i32: 0> : tile<i32>",
             f"%t, %tok = load_view_tko weak %pv[%c, %c]{'' if store else clause} : {_PV2}, "
             "tile<i32> -> tile<16x16xf32>, token"]
    if store:
        lines.append(f"%s = store_view_tko weak %t, %pv[%c, %c]{clause} : tile<16x16xf32>, "
                     f"{_PV2}, tile<i32> -> token")
    return _func("%p: tile<ptr<f32>>", *lines)


@pytest.mark.parametrize("clause, store, size, op", [
    (" inbounds = []", False, 0, "load_view_tko"),
    (" inbounds = [true]", False, 1, "load_view_tko"),
    (" inbounds = [true, false, true]", True, 3, "store_view_tko"),
])
def test_inbounds_size_must_match_the_indices(diagnose, clause: str, store: bool, size: int,
                                              op: str) -> None:
    assert diagnose(_view_access(clause, store)) == [
        f"error: 'cuda_tile.{op}' op inbounds size ({size}) must match the number of index "
        "dimensions (2)"]


@pytest.mark.parametrize("store", [False, True])
def test_inbounds_of_index_rank_verifies(diagnose, store: bool) -> None:
    assert diagnose(_view_access(" inbounds = [true, false]", store)) == []


# ---- ptr_attr ------------------------------------------------------------------------


def test_make_tensor_view_must_keep_the_bases_ptr_attr(diagnose) -> None:
    assert diagnose(_func("%p: tile<ptr<f32, <none>>>",
                          "%v = make_tensor_view %p, shape = [16], strides = [1] : "
                          "tile<ptr<f32, <none>>> -> tensor_view<16xf32, strides=[1]>")) == [
        "error: 'cuda_tile.make_tensor_view' op tensor_view must preserve ptr_attr from base "
        "pointer (#cuda_tile.ptr_attr<none>)"]


def test_make_tensor_view_cannot_add_a_ptr_attr(diagnose) -> None:
    assert diagnose(_func("%p: tile<ptr<f32>>",
                          "%v = make_tensor_view %p, shape = [16], strides = [1] : "
                          "tensor_view<16xf32, strides=[1], #cuda_tile.ptr_attr<none>>")) == [
        "error: 'cuda_tile.make_tensor_view' op pointer base without ptr_attr cannot produce "
        "tensor_view with ptr_attr"]


# ---- return inside loop ----------------------------------------------------------------


def test_return_may_end_a_loop(diagnose) -> None:
    assert diagnose("cuda_tile.module @m {\n  entry @k() {\n    loop {\n      return\n"
                    "    }\n    return\n  }\n}\n") == []


def test_return_in_a_loop_matches_the_function_results(diagnose) -> None:
    text = ("cuda_tile.module @m {\n  testing$func @f(%a: tile<f32>) -> tile<f32> {\n"
            "    loop {\n      return\n    }\n    return %a : tile<f32>\n  }\n}\n")
    assert diagnose(text) == [
        "error: 'cuda_tile.return' op has 0 operands, but enclosing function (@f) returns 1"]
