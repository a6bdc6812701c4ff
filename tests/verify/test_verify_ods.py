"""The checks the reference generates from its ODS declarations (Ops.td, Types.td): counts,
attribute, operand/result type and region constraints, predicate traits, native and
structural traits, with MLIR's exact messages and in MLIR's order."""

from __future__ import annotations

import pytest

from tileir.ops.registry import all_ops
from tileir.versions import V13_3
from conftest import function_module as _func, tile_type as _t


@pytest.fixture
def build_13_3(monkeypatch) -> None:
    """Stand in for NVIDIA's 13.3 build, whose ODS declarations these summaries are (13.5's
    add fnv8E5M3FNU: tests/verify/test_verify_v13_5_wording.py)."""
    monkeypatch.setenv("TILEIR_BYTECODE_VERSIONS", "13.1 13.2 13.3")


def _error(op: str, message: str) -> list[str]:
    """The one diagnostic an emitOpError of `op` gives."""
    return [f"error: 'cuda_tile.{op}' op {message}"]


INTS = "i1 or i8 or i16 or i32 or i64"
TILE_FLOATS = "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN"


# ---- counts --------------------------------------------------


def test_result_count_is_checked_before_operand_count(diagnose) -> None:
    # ODS adds the result-count trait before the operand-count trait.
    assert diagnose(_func("", '"cuda_tile.absf"() : () -> ()')) == \
        _error("absf", "requires one result")


def test_single_operand_count_message(diagnose) -> None:
    ty = _t("f32")
    assert diagnose(_func("", f'%0 = "cuda_tile.absf"() : () -> {ty}')) == \
        _error("absf", "requires a single operand")


def test_fixed_operand_count_message(diagnose) -> None:
    ty = _t("i32")
    assert diagnose(_func(f"%a: {ty}", f'%0 = "cuda_tile.addi"(%a) : ({ty}) -> {ty}')) == \
        _error("addi", "expected 2 operands, but found 1")


# ---- operand and result type constraints --------------------------------------------------


def test_integer_operand_summary(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f'%0 = "cuda_tile.addi"(%a, %a) : ({ty}, {ty}) -> {ty}')
    assert diagnose(text) == _error(
        "addi", f"operand #0 must be tile of {INTS} values, but got '{ty}'")


def test_float_tile_summary_lists_the_reference_types(diagnose, build_13_3) -> None:
    src, dst = _t("2xf32"), _t("2xi32")
    text = _func(f"%a: {src}", f'%0 = "cuda_tile.ftof"(%a) : ({src}) -> {dst}')
    assert diagnose(text) == _error(
        "ftof", f"result #0 must be tile of {TILE_FLOATS} values, but got '{dst}'")


def test_number_tile_summary_lists_integers_first(diagnose, build_13_3) -> None:
    src, dst = _t("2xptr<f32>"), _t("2xi32")
    text = _func(f"%a: {src}", f'%0 = "cuda_tile.bitcast"(%a) : ({src}) -> {dst}')
    assert diagnose(text) == _error(
        "bitcast", f"operand #0 must be tile of {INTS} or {TILE_FLOATS} values, but got '{src}'")


def test_mmai_operand_summary(diagnose) -> None:
    lhs, acc = _t("2x2xi16"), _t("2x2xi32")
    text = _func(f"%a: {lhs}, %c: {acc}",
                 f'%0 = "cuda_tile.mmai"(%a, %a, %c) <{{signedness_lhs = '
                 f'#cuda_tile.signedness<signed>, signedness_rhs = '
                 f'#cuda_tile.signedness<signed>}}> : ({lhs}, {lhs}, {acc}) -> {acc}')
    assert diagnose(text) == _error(
        "mmai", f"operand #0 must be mmai operand tile type of i8 values, but got '{lhs}'")


def test_mmaf_acc_summary(diagnose) -> None:
    lhs, acc = _t("2x2xf16"), _t("2x2xbf16")
    text = _func(f"%a: {lhs}, %c: {acc}",
                 f'%0 = "cuda_tile.mmaf"(%a, %a, %c) : ({lhs}, {lhs}, {acc}) -> {acc}')
    assert diagnose(text) == _error(
        "mmaf", "operand #2 must be mmaf acc/result tile type of f16 or f32 or f64 values, "
                f"but got '{acc}'")


def test_variadic_scalar_summary(diagnose) -> None:
    src, idx, res = _t("8xf32"), _t("i64"), _t("4xf32")
    text = _func(f"%a: {src}, %i: {idx}",
                 f'%0 = "cuda_tile.extract"(%a, %i) : ({src}, {idx}) -> {res}')
    assert diagnose(text) == _error(
        "extract", f"operand #1 must be variadic of 0D tile of i32 values, but got '{idx}'")


def test_variadic_token_summary(diagnose) -> None:
    ty = _t("i32")
    text = _func(f"%a: {ty}",
                 f'%0 = "cuda_tile.join_tokens"(%a) : ({ty}) -> !cuda_tile.token')
    assert diagnose(text) == _error(
        "join_tokens", f"operand #0 must be variadic of cuda tile token type, but got '{ty}'")


def test_view_index_takes_any_integer_tile(diagnose) -> None:
    # load_view_tko's index is Variadic<CudaTile_IntTileType>: a float index is refused
    # with that summary (rank is the op's own check).
    view = ("!cuda_tile.partition_view<tile=(4), "
            "!cuda_tile.tensor_view<8xf32, strides=[1]>>")
    idx = _t("f32")
    text = _func(f"%v: {view}, %i: {idx}",
                 f'%0, %1 = "cuda_tile.load_view_tko"(%v, %i) <{{memory_ordering_semantics = '
                 f'0 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}}> : ({view}, {idx}) -> '
                 f'({_t("4xf32")}, !cuda_tile.token)')
    assert diagnose(text) == _error(
        "load_view_tko", f"operand #1 must be variadic of tile of {INTS} values, but got '{idx}'")


# ---- attribute constraints --------------------------------------------------


def test_i64_attribute_constraint(diagnose) -> None:
    ty = _t("4xf32")
    text = _func(f"%a: {ty}", f'%0 = "cuda_tile.cat"(%a, %a) <{{dim = 0 : i32}}> : '
                              f'({ty}, {ty}) -> {_t("8xf32")}')
    assert diagnose(text) == _error(
        "cat", "attribute 'dim' failed to satisfy constraint: 64-bit signless integer "
               "attribute")


def test_non_negative_dim_constraint(diagnose) -> None:
    ty, res = _t("8xf32"), _t("f32")
    text = _func(f"%a: {ty}",
                 f"%0 = cuda_tile.reduce %a dim=-1 identities=[0.000000e+0 : f32] : {ty} -> {res}"
                 f"\n    (%x : {res}, %y : {res}) {{\n      cuda_tile.yield %x : {res}\n    }}")
    assert diagnose(text) == _error(
        "reduce", "attribute 'dim' failed to satisfy constraint: 32-bit signless integer "
                  "attribute whose value is non-negative")


def test_minimum_value_constraint(diagnose) -> None:
    text = _func("", "%0 = cuda_tile.alloca num_elem = -1, alignment = 16 : "
                     "!cuda_tile.tile<!cuda_tile.ptr<f32>>")
    assert diagnose(text) == _error(
        "alloca", "attribute 'num_elem' failed to satisfy constraint: 64-bit signless "
                  "integer attribute whose minimum value is 0")


# ---- region constraints --------------------------------------------------


def test_sized_region_constraint(diagnose) -> None:
    text = ('cuda_tile.module @m {\n  "cuda_tile.testing$func"() ({ }) '
            '{function_type = () -> (), sym_name = "foo"} : () -> ()\n}')
    assert diagnose(text) == _error(
        "testing$func", "region #0 ('body') failed to verify constraint: region with 1 blocks")


# ---- predicate traits --------------------------------------------------


def test_all_types_match(diagnose) -> None:
    a, b = _t("4xi32"), _t("4xi64")
    text = _func(f"%a: {a}, %b: {b}",
                 f'%0 = "cuda_tile.addi"(%a, %b) : ({a}, {b}) -> {a}')
    assert diagnose(text) == _error(
        "addi", "failed to verify that all of {lhs, rhs, result} have same type")


def test_all_element_type_match(diagnose) -> None:
    a, b = _t("4xf32"), _t("4xi32")
    text = _func(f"%a: {a}, %b: {b}", f'%0 = "cuda_tile.cat"(%a, %b) <{{dim = 0 : i64}}> : '
                                      f'({a}, {b}) -> {_t("8xf32")}')
    assert diagnose(text) == _error(
        "cat", "failed to verify that all of {lhs, rhs, result} have the same element type")


def test_predicate_traits_run_in_declared_order(diagnose) -> None:
    # permute: AllElementTypeMatch<[source, result]> before AllRanksMatch<[source, result]>.
    a, b = _t("2x4xf32"), _t("8xi32")
    text = _func(f"%a: {a}", f'%0 = "cuda_tile.permute"(%a) <{{permutation = '
                             f'array<i32: 1, 0>}}> : ({a}) -> {b}')
    assert diagnose(text) == _error(
        "permute", "failed to verify that all of {source, result} have the same element type")


def test_all_ranks_match(diagnose) -> None:
    a, b = _t("2x4xf32"), _t("8xf32")
    text = _func(f"%a: {a}", f'%0 = "cuda_tile.permute"(%a) <{{permutation = '
                             f'array<i32: 1, 0>}}> : ({a}) -> {b}')
    assert diagnose(text) == _error(
        "permute", "failed to verify that all of {source, result} have same rank")


def test_all_shapes_match(diagnose) -> None:
    a, b = _t("4xi32"), _t("8xf32")
    text = _func(f"%a: {a}", f'%0 = "cuda_tile.bitcast"(%a) : ({a}) -> {b}')
    assert diagnose(text) == _error(
        "bitcast", "failed to verify that all of {source, result} have same shape")


def test_type_constraint_precedes_types_match_with(diagnose) -> None:
    ty, res = _t("4xi32"), _t("4xi16")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.cmpi equal %a, %a, signed : {ty} -> {res}")
    assert diagnose(text) == _error(
        "cmpi", f"result #0 must be tile of i1 values, but got '{res}'")


def test_types_match_with_i1_same_shape(diagnose) -> None:
    ty, res = _t("4xi32"), _t("2xi1")
    text = _func(f"%a: {ty}", f"%0 = cuda_tile.cmpi equal %a, %a, signed : {ty} -> {res}")
    assert diagnose(text) == _error(
        "cmpi", "failed to verify that Result type has i1 element type and same shape as "
                "operands")


def test_types_match_with_pointer_of(diagnose) -> None:
    ptr, val = _t("16x32xptr<f32>"), _t("16x32xf16")
    text = _func(f"%p: {ptr}, %v: {val}",
                 "%t = store_ptr_tko weak %p, %v : tile<16x32xptr<f32>>, tile<16x32xf16> "
                 "-> token")
    assert diagnose(text) == _error(
        "store_ptr_tko", "failed to verify that `destination` type is expected a pointer type "
                         "of `value` type")


def test_optional_types_match_with_mask(diagnose) -> None:
    ptr, val, mask = _t("16x32xptr<f32>"), _t("16x32xf32"), _t("16x64xi1")
    text = _func(f"%p: {ptr}, %v: {val}, %m: {mask}",
                 "%t = store_ptr_tko weak %p, %v, %m : tile<16x32xptr<f32>>, tile<16x32xf32>, "
                 "tile<16x64xi1> -> token")
    assert diagnose(text) == _error(
        "store_ptr_tko", "failed to verify that shape of 'destination' must match the shape "
                         "of 'mask'")


# ---- native traits --------------------------------------------------


def test_same_operands_and_result_shape(diagnose) -> None:
    # offset: AllTypesMatch<[result, ptr]> holds, SameOperandsAndResultShape does not.
    ptr, off = _t("4xptr<f32>"), _t("8xi32")
    text = _func(f"%p: {ptr}, %o: {off}",
                 f'%0 = "cuda_tile.offset"(%p, %o) : ({ptr}, {off}) -> {ptr}')
    assert diagnose(text) == _error(
        "offset", "requires the same shape for all operands and results")


def test_same_operands_and_result_element_type(diagnose) -> None:
    a, b = _t("1x4xf32"), _t("4x4xi32")
    text = _func(f"%a: {a}", f'%0 = "cuda_tile.broadcast"(%a) : ({a}) -> {b}')
    assert diagnose(text) == _error(
        "broadcast", "requires the same element type for all operands and results")


# ---- structural traits --------------------------------------------------


def test_parent_one_of(diagnose) -> None:
    assert diagnose("cuda_tile.continue") == _error(
        "continue", "expects parent op to be one of 'cuda_tile.for, cuda_tile.if, "
                    "cuda_tile.loop'")


def test_implicit_terminator_kind(diagnose) -> None:
    # MLIR checks the terminator's kind only after the body verified (verifyRegionTrait),
    # so a misplaced yield reports first, and a block without one fails the block check
    cond, ty = _t("i1"), _t("f32")
    constant = f'%x = "cuda_tile.constant"() <{{value = dense<1.0> : {ty}}}> : () -> {ty}'
    text = _func(f"%c: {cond}",
                 f'"cuda_tile.if"(%c) ({{\n      "cuda_tile.yield"() : () -> ()\n'
                 f'      {constant}\n    }}, {{\n    }}) : ({cond}) -> ()')
    assert diagnose(text) == [
        "error: 'cuda_tile.yield' op must be the last operation in the parent block"]
    text = _func(f"%c: {cond}", f'"cuda_tile.if"(%c) ({{\n      {constant}\n'
                                f'    }}, {{\n    }}) : ({cond}) -> ()')
    assert diagnose(text) == ["error: block with no terminator, has 'cuda_tile.constant' op"]


# ---- declarations --------------------------------------------------


def test_every_declared_trait_argument_names_a_field_or_relation() -> None:
    """Each trait argument names an operand, result or attribute (or a known relation)."""
    from tileir.verify.traits import TYPE_RELATIONS
    for opdef in all_ops():
        fields = {d.name for d in opdef.operands + opdef.results + opdef.attrs}
        for name, args in opdef.trait_list:
            if name in ("TypesMatchWith", "OptionalTypesMatchWith"):
                assert args[2] in TYPE_RELATIONS, (opdef.name, name)
                args = args[:2]
            if name.startswith("All") or name.endswith("TypesMatchWith"):
                assert set(args) <= fields, (opdef.name, name, args)


@pytest.mark.parametrize("name,summary", [
    ("ftoi", "tile of " + TILE_FLOATS + " values"),
    ("int_to_ptr", "tile of i64 values"),
    ("mmaf_scaled", "mmaf_scaled operand tile type of f8E4M3FN or f8E5M2 or f4E2M1FN values"),
    ("get_global", None),
])
def test_first_operand_summaries(name: str, summary: str | None) -> None:
    opdef = next(d for d in all_ops() if d.name == name)
    if summary is None:
        assert opdef.operands == ()
    else:
        assert opdef.operands[0].constraint.summary_at(V13_3) == summary


# ---- more generated invariants --------------------------------------------------


def test_optional_group_holds_at_most_one_value(diagnose) -> None:
    ptr, mask = _t("4xptr<f32>"), _t("4xi1")
    text = _func(f"%p: {ptr}, %m: {mask}",
                 f'%0, %1 = "cuda_tile.load_ptr_tko"(%p, %m, %m) <{{memory_ordering_semantics = '
                 f'0 : i32, operandSegmentSizes = array<i32: 1, 2, 0, 0>}}> : '
                 f'({ptr}, {mask}, {mask}) -> ({_t("4xf32")}, !cuda_tile.token)')
    assert diagnose(text) == _error(
        "load_ptr_tko", "operand group starting at #1 requires 0 or 1 element, but found 2")


def test_single_block_is_structural(diagnose) -> None:
    # SingleBlock runs before the generated invariants (and so before SizedRegion<1>).
    text = ('cuda_tile.module @m {\n  "cuda_tile.testing$func"() ({\n  ^bb0:\n'
            '    "cuda_tile.return"() : () -> ()\n  ^bb1:\n'
            '    "cuda_tile.return"() : () -> ()\n  }) '
            '{function_type = () -> (), sym_name = "foo"} : () -> ()\n}')
    assert diagnose(text) == _error("testing$func", "expects region #0 to have 0 or 1 blocks")


def test_same_operands_shape(diagnose) -> None:
    a, b, r = _t("8xf32"), _t("4xf32"), _t("f32")
    text = _func(f"%a: {a}, %b: {b}",
                 f"%0:2 = cuda_tile.reduce %a, %b dim=0 identities=[0.000000e+0 : f32, "
                 f"0.000000e+0 : f32] : {a}, {b} -> {r}, {r}\n"
                 f"    (%x : {r}, %y : {r}, %z : {r}, %w : {r}) {{\n"
                 f"      cuda_tile.yield %x, %z : {r}, {r}\n    }}")
    assert diagnose(text) == _error("reduce", "requires the same shape for all operands")
