"""The 13.5 text syntax: what NVIDIA's 13.5 tileirdisasm prints parses, verifies clean and
prints back byte for byte, and goes through 13.5 bytecode and back unchanged.

The documents below are tileirdisasm 13.5 output, copied verbatim, for bytecode made with
cuTile Python 1.7.0's 13.5 encoders (``cuda/tile/_bytecode/encodings.py``) or, for the
unicast one, with tileir's writer.  The multimem ops print their reduction in the attribute
dictionary when it is not ``add``, and an empty slot (two spaces) where neither token nor
inbounds is printed.
"""

from __future__ import annotations

import pytest

from tileir import from_bytecode, parse
from tileir.attributes import DISubprogramAttr
from tileir.diagnostics import ParseError
from tileir.enums import MultimemReductionKind, PointerAttribute

#: tileirdisasm 13.5 documents (the module's items, as tileirdisasm prints them).
ORACLE = {
    'multimem on f32': (
        'entry @k(%arg0: tile<ptr<f32, <multicast>>>) {\n'
        '  %tview = make_tensor_view %arg0, shape = [64], strides = [1] : tile<ptr<f32, <multicast'
        '>>> -> tensor_view<64xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>\n'
        '  %pview = make_partition_view %tview : partition_view<tile=(16), tensor_view<64xf32, str'
        'ides=[1], #cuda_tile.ptr_attr<multicast>>>\n'
        '  %cst_0_i32 = constant <i32: 0> : tile<i32>\n'
        '  %reduced_values, %result_token = multimem_load_reduce_view_tko weak %pview[%cst_0_i32] '
        ' : partition_view<tile=(16), tensor_view<64xf32, strides=[1], #cuda_tile.ptr_attr<multica'
        'st>>>, tile<i32> -> tile<16xf32>, token\n'
        '  %reduced_values_0, %result_token_1 = multimem_load_reduce_view_tko relaxed device %pvie'
        'w[%cst_0_i32] token = %result_token inbounds = [true] : partition_view<tile=(16), tensor_'
        'view<64xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<i32>, token -> tile<16xf'
        '32>, token\n'
        '  %0 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32]  : partit'
        'ion_view<tile=(16), tensor_view<64xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, ti'
        'le<16xf32>, tile<i32> -> token\n'
        '  %1 = multimem_store_view_tko weak %pview, %reduced_values_0[%cst_0_i32] token = %0  : p'
        'artition_view<tile=(16), tensor_view<64xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>'
        '>, tile<16xf32>, tile<i32>, token -> token\n'
        '  %2 = multimem_store_view_tko relaxed tl_blk %pview, %reduced_values_0[%cst_0_i32] inbou'
        'nds = [true] : partition_view<tile=(16), tensor_view<64xf32, strides=[1], #cuda_tile.ptr_'
        'attr<multicast>>>, tile<16xf32>, tile<i32> -> token\n'
        '  return\n'
        '}\n'
    ),
    'multimem reductions on i32': (
        'entry @k(%arg0: tile<ptr<i32, <multicast>>>) {\n'
        '  %tview = make_tensor_view %arg0, shape = [64], strides = [1] : tile<ptr<i32, <multicast'
        '>>> -> tensor_view<64xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>\n'
        '  %pview = make_partition_view %tview : partition_view<tile=(16), tensor_view<64xi32, str'
        'ides=[1], #cuda_tile.ptr_attr<multicast>>>\n'
        '  %cst_0_i32 = constant <i32: 0> : tile<i32>\n'
        '  %reduced_values, %result_token = multimem_load_reduce_view_tko weak %pview[%cst_0_i32] '
        ' attributes {reduction = #cuda_tile.multimem_reduction_kind<min>} : partition_view<tile=('
        '16), tensor_view<64xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile'
        '<16xi32>, token\n'
        '  %reduced_values_0, %result_token_1 = multimem_load_reduce_view_tko acquire device %pvie'
        'w[%cst_0_i32] token = %result_token inbounds = [true] attributes {reduction = #cuda_tile.'
        'multimem_reduction_kind<umax>} : partition_view<tile=(16), tensor_view<64xi32, strides=[1'
        '], #cuda_tile.ptr_attr<multicast>>>, tile<i32>, token -> tile<16xi32>, token\n'
        '  %reduced_values_2, %result_token_3 = multimem_load_reduce_view_tko relaxed device %pvie'
        'w[%cst_0_i32] token = %result_token  attributes {reduction = #cuda_tile.multimem_reductio'
        'n_kind<xor>} : partition_view<tile=(16), tensor_view<64xi32, strides=[1], #cuda_tile.ptr_'
        'attr<multicast>>>, tile<i32>, token -> tile<16xi32>, token\n'
        '  %0 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32] token = %'
        'result_token_3 inbounds = [true] attributes {reduction = #cuda_tile.multimem_reduction_ki'
        'nd<and>} : partition_view<tile=(16), tensor_view<64xi32, strides=[1], #cuda_tile.ptr_attr'
        '<multicast>>>, tile<16xi32>, tile<i32>, token -> token\n'
        '  %1 = multimem_reduce_view_tko release sys %pview, %reduced_values[%cst_0_i32]  attribut'
        'es {reduction = #cuda_tile.multimem_reduction_kind<or>} : partition_view<tile=(16), tenso'
        'r_view<64xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<16xi32>, tile<i32> -> '
        'token\n'
        '  %2 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32] token = %'
        'result_token_3  attributes {reduction = #cuda_tile.multimem_reduction_kind<umin>} : parti'
        'tion_view<tile=(16), tensor_view<64xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, t'
        'ile<16xi32>, tile<i32>, token -> token\n'
        '  %3 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32] inbounds '
        '= [true] attributes {reduction = #cuda_tile.multimem_reduction_kind<max>} : partition_vie'
        'w<tile=(16), tensor_view<64xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<16xi'
        '32>, tile<i32> -> token\n'
        '  %4 = multimem_reduce_view_tko relaxed sys %pview, %reduced_values[%cst_0_i32] token = %'
        'result_token_3 inbounds = [true] : partition_view<tile=(16), tensor_view<64xi32, strides='
        '[1], #cuda_tile.ptr_attr<multicast>>>, tile<16xi32>, tile<i32>, token -> token\n'
        '  return\n'
        '}\n'
    ),
    'multimem on a 2-d f16 view': (
        'entry @k(%arg0: tile<ptr<f16, <multicast>>>) {\n'
        '  %tview = make_tensor_view %arg0, shape = [64, 64], strides = [64, 1] : tile<ptr<f16, <m'
        'ulticast>>> -> tensor_view<64x64xf16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>\n'
        '  %pview = make_partition_view %tview : partition_view<tile=(16x8), tensor_view<64x64xf16'
        ', strides=[64,1], #cuda_tile.ptr_attr<multicast>>>\n'
        '  %cst_0_i32 = constant <i32: 0> : tile<i32>\n'
        '  %cst_0_i64 = constant <i64: 0> : tile<i64>\n'
        '  %reduced_values, %result_token = multimem_load_reduce_view_tko weak %pview[%cst_0_i32, '
        '%cst_0_i32] inbounds = [false, true] attributes {reduction = #cuda_tile.multimem_reductio'
        'n_kind<max>} : partition_view<tile=(16x8), tensor_view<64x64xf16, strides=[64,1], #cuda_t'
        'ile.ptr_attr<multicast>>>, tile<i32> -> tile<16x8xf16>, token\n'
        '  %reduced_values_0, %result_token_1 = multimem_load_reduce_view_tko weak %pview[%cst_0_i'
        '32, %cst_0_i32] token = %result_token  : partition_view<tile=(16x8), tensor_view<64x64xf1'
        '6, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32>, token -> tile<16x8xf16>, '
        'token\n'
        '  %0 = multimem_store_view_tko release sys %pview, %reduced_values_0[%cst_0_i64, %cst_0_i'
        '64] inbounds = [true, true] : partition_view<tile=(16x8), tensor_view<64x64xf16, strides='
        '[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<16x8xf16>, tile<i64> -> token\n'
        '  %1 = multimem_reduce_view_tko relaxed device %pview, %reduced_values_0[%cst_0_i64, %cst'
        '_0_i64] token = %result_token_1  : partition_view<tile=(16x8), tensor_view<64x64xf16, str'
        'ides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<16x8xf16>, tile<i64>, token -> token'
        '\n'
        '  return\n'
        '}\n'
    ),
    'atomic_red_view_tko inbounds': (
        'entry @k(%arg0: tile<ptr<i32>>) {\n'
        '  %tview = make_tensor_view %arg0, shape = [64], strides = [1] : tensor_view<64xi32, stri'
        'des=[1]>\n'
        '  %pview = make_partition_view %tview : partition_view<tile=(16), tensor_view<64xi32, str'
        'ides=[1]>>\n'
        '  %cst_0_i32 = constant <i32: 0> : tile<i32>\n'
        '  %cst_0_i32_0 = constant <i32: 0> : tile<16xi32>\n'
        '  %0 = atomic_red_view_tko relaxed device %pview[%cst_0_i32], add, %cst_0_i32_0 inbounds '
        '= [true] : tile<16xi32>, partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>, til'
        'e<i32> -> token\n'
        '  %1 = atomic_red_view_tko relaxed device %pview[%cst_0_i32], add, %cst_0_i32_0 : tile<16'
        'xi32>, partition_view<tile=(16), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token\n'
        '  return\n'
        '}\n'
    ),
    'unicast pointers, inbounds with a token': (
        'entry @k(%arg0: tile<ptr<i32, <unicast>>>) {\n'
        '  %tview = make_tensor_view %arg0, shape = [64, 64], strides = [64, 1] : tile<ptr<i32, <u'
        'nicast>>> -> tensor_view<64x64xi32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>\n'
        '  %pview = make_partition_view %tview : partition_view<tile=(16x16), tensor_view<64x64xi3'
        '2, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>\n'
        '  %cst_0_i32 = constant <i32: 0> : tile<i32>\n'
        '  %cst_0_i32_0 = constant <i32: 0> : tile<16x16xi32>\n'
        '  %0 = make_token : token\n'
        '  %1 = atomic_red_view_tko relaxed device %pview[%cst_0_i32, %cst_0_i32], add, %cst_0_i32'
        '_0 token = %0 inbounds = [false, true] : tile<16x16xi32>, partition_view<tile=(16x16), te'
        'nsor_view<64x64xi32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>, tile<i32> -> token\n'
        '  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32] token = %1 inb'
        'ounds = [true, false] : partition_view<tile=(16x16), tensor_view<64x64xi32, strides=[64,1'
        '], #cuda_tile.ptr_attr<unicast>>>, tile<i32> -> tile<16x16xi32>, token\n'
        '  return\n'
        '}\n'
    ),
}

#: `tileirdisasm -g` of a cuTile export whose DISubprogram has the 13.5 flags bit set.
DEBUG_ORACLE = (
    'entry @vector_add_Kt2_A1f32_1i16t1_p16_A1f32_1i16t1_p16_A1f32_1i16t1_p16_I16(%arg0: tile<ptr<'
    'f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: ti'
    'le<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<defau'
    'lt = {}> {\n'
    '  %0 = make_token : token loc(#loc10)\n'
    '  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>> loc(#loc11)\n'
    '  %assume_0 = assume div_by<16>, %arg1 : tile<i32> loc(#loc11)\n'
    '  %assume_1 = assume div_by<16>, %arg3 : tile<ptr<f32>> loc(#loc12)\n'
    '  %assume_2 = assume div_by<16>, %arg4 : tile<i32> loc(#loc12)\n'
    '  %assume_3 = assume div_by<16>, %arg6 : tile<ptr<f32>> loc(#loc13)\n'
    '  %assume_4 = assume div_by<16>, %arg7 : tile<i32> loc(#loc13)\n'
    '  %cst_1_i32 = constant <i32: 1> : tile<i32> loc(#loc10)\n'
    '  %cst_1_i32_5 = constant <i32: 1> : tile<i32> loc(#loc10)\n'
    '  %cst_1_i32_6 = constant <i32: 1> : tile<i32> loc(#loc10)\n'
    '  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32> loc(#loc10)\n'
    '  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32> loc(#loc10)\n'
    '  %tview = make_tensor_view %assume, shape = [%assume_assume_assume], strides = [1] : tile<i3'
    '2> -> tensor_view<?xf32, strides=[1]> loc(#loc10)\n'
    '  %assume_assume_7 = assume bounded<0, ?>, %assume_2 : tile<i32> loc(#loc10)\n'
    '  %assume_assume_assume_8 = assume div_by<16>, %assume_assume_7 : tile<i32> loc(#loc10)\n'
    '  %tview_9 = make_tensor_view %assume_1, shape = [%assume_assume_assume_8], strides = [1] : t'
    'ile<i32> -> tensor_view<?xf32, strides=[1]> loc(#loc10)\n'
    '  %assume_assume_10 = assume bounded<0, ?>, %assume_4 : tile<i32> loc(#loc10)\n'
    '  %assume_assume_assume_11 = assume div_by<16>, %assume_assume_10 : tile<i32> loc(#loc10)\n'
    '  %tview_12 = make_tensor_view %assume_3, shape = [%assume_assume_assume_11], strides = [1] :'
    ' tile<i32> -> tensor_view<?xf32, strides=[1]> loc(#loc10)\n'
    '  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32> loc(#loc14)\n'
    '  %pview = make_partition_view %tview : partition_view<tile=(16), tensor_view<?xf32, strides='
    '[1]>> loc(#loc15)\n'
    '  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<ti'
    'le=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token loc(#loc15)\n'
    '  %pview_13 = make_partition_view %tview_9 : partition_view<tile=(16), tensor_view<?xf32, str'
    'ides=[1]>> loc(#loc16)\n'
    '  %tile_14, %result_token_15 = load_view_tko weak %pview_13[%blockId_x] token = %0 : partitio'
    'n_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token loc(#loc'
    '16)\n'
    '  %1 = addf %tile, %tile_14  : tile<16xf32> loc(#loc17)\n'
    '  %pview_16 = make_partition_view %tview_12 : partition_view<tile=(16), tensor_view<?xf32, st'
    'rides=[1]>> loc(#loc18)\n'
    '  %2 = store_view_tko weak %1, %pview_16[%blockId_x] token = %0 : tile<16xf32>, partition_vie'
    'w<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token loc(#loc18)\n'
    '  return loc(#loc9)\n'
    '} loc(#loc10)\n'
    '#di_file = #cuda_tile.di_file<"kernels.py" in "/work/main/tests/oracles">\n'
    '#loc = loc("/work/main/tests/oracles/kernels.py":95:0)\n'
    '#loc1 = loc("/work/main/tests/oracles/kernels.py":95:15)\n'
    '#loc2 = loc("/work/main/tests/oracles/kernels.py":95:18)\n'
    '#loc3 = loc("/work/main/tests/oracles/kernels.py":95:21)\n'
    '#loc4 = loc("/work/main/tests/oracles/kernels.py":97:8)\n'
    '#loc5 = loc("/work/main/tests/oracles/kernels.py":98:8)\n'
    '#loc6 = loc("/work/main/tests/oracles/kernels.py":99:8)\n'
    '#loc7 = loc("/work/main/tests/oracles/kernels.py":100:22)\n'
    '#loc8 = loc("/work/main/tests/oracles/kernels.py":100:4)\n'
    '#loc9 = loc(unknown)\n'
    '#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>\n'
    '#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 94, name = "vector_add", li'
    'nkageName = "vector_add_Kt2_A1f32_1i16t1_p16_A1f32_1i16t1_p16_A1f32_1i16t1_p16_I16", compileU'
    'nit = #di_compile_unit, scopeLine = 94, flags = declaration>\n'
    '#loc10 = #cuda_tile.di_loc<#loc in #di_subprogram>\n'
    '#loc11 = #cuda_tile.di_loc<#loc1 in #di_subprogram>\n'
    '#loc12 = #cuda_tile.di_loc<#loc2 in #di_subprogram>\n'
    '#loc13 = #cuda_tile.di_loc<#loc3 in #di_subprogram>\n'
    '#loc14 = #cuda_tile.di_loc<#loc4 in #di_subprogram>\n'
    '#loc15 = #cuda_tile.di_loc<#loc5 in #di_subprogram>\n'
    '#loc16 = #cuda_tile.di_loc<#loc6 in #di_subprogram>\n'
    '#loc17 = #cuda_tile.di_loc<#loc7 in #di_subprogram>\n'
    '#loc18 = #cuda_tile.di_loc<#loc8 in #di_subprogram>\n'
)


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_tileirdisasm_text_parses_and_prints_back(name: str) -> None:
    text = ORACLE[name]
    module = parse(text)
    assert module.format() == text


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_tileirdisasm_text_through_13_5_bytecode(name: str) -> None:
    module = from_bytecode(parse(ORACLE[name]).to_bytecode("13.5"))
    module.spelling = "bare"
    assert module.format() == ORACLE[name]


def test_multimem_attributes_as_parsed() -> None:
    module = parse(ORACLE["multimem reductions on i32"])
    ops = [op for op in module.walk() if op.name.startswith("cuda_tile.multimem")]
    # (the default, add, is left out of the attributes as it is of the text)
    reductions = [op.attributes.get("reduction", op.opdef.attr_default("reduction")).value
                  for op in ops]
    assert reductions == [MultimemReductionKind.MIN, MultimemReductionKind.UMAX,
                          MultimemReductionKind.XOR, MultimemReductionKind.AND,
                          MultimemReductionKind.OR, MultimemReductionKind.UMIN,
                          MultimemReductionKind.MAX, MultimemReductionKind.ADD]
    argument = module.items[0].regions[0].block.arguments[0]
    assert argument.type.element_type.ptr_attr is PointerAttribute.MULTICAST


def test_default_reduction_is_not_printed() -> None:
    text = ORACLE["multimem on f32"].replace(
        "%pview[%cst_0_i32]  :",
        "%pview[%cst_0_i32]  attributes {reduction = #cuda_tile.multimem_reduction_kind<add>} :",
        1)
    assert parse(text).format() == ORACLE["multimem on f32"]


def test_subprogram_flags() -> None:
    module = parse(DEBUG_ORACLE)
    assert module.format(debuginfo=True) == DEBUG_ORACLE
    subprograms = {op.location.scope for op in module.items}
    assert [s.flags for s in subprograms if isinstance(s, DISubprogramAttr)] == [1]


def test_unknown_subprogram_flag() -> None:
    with pytest.raises(ParseError) as info:
        parse(DEBUG_ORACLE.replace("flags = declaration", "flags = definition"))
    assert "unknown di_subprogram flag 'definition', expected one of: declaration" in \
        str(info.value)


def test_unknown_ptr_attr_lists_the_13_5_kinds() -> None:
    with pytest.raises(ParseError) as info:
        parse(ORACLE["multimem on f32"].replace("<multicast>>>) {", "<broadcast>>>) {", 1))
    assert "unknown ptr_attr kind 'broadcast', expected one of: none, unicast, multicast" in \
        str(info.value)
