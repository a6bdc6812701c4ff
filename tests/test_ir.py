"""The IR core and the Builder: programs build modules that print in the reference syntax."""

from __future__ import annotations

import pytest

from tileir import ParseError, VerificationError, parse
from tileir.attributes import DenseElementsAttr
from tileir.enums import RoundingMode
from tileir.ir import Builder, Module
from tileir.ops import all_ops, lookup
from tileir.types import F32, I1, PointerType, TileType


def test_every_op_is_declared_once_with_an_opcode() -> None:
    public = [d for d in all_ops() if not d.name.startswith(("testing$", "preview$"))]
    assert len(public) == 108
    opcodes = [d.opcode for d in public]
    assert len(set(opcodes)) == 108
    # 13.5's preview ops: the call has an opcode; the two functions are function records.
    assert {d.name: d.opcode for d in all_ops() if d.name.startswith("preview$")} == {
        "preview$func": None, "preview$extern_impl": None, "preview$call": 16386}
    assert lookup("fpowi").opcode == 121 and str(lookup("fpowi").since) == "13.4"
    assert [(lookup(n).opcode, str(lookup(n).since)) for n in (
        "multimem_load_reduce_view_tko", "multimem_reduce_view_tko",
        "multimem_store_view_tko")] == [(123, "13.5"), (124, "13.5"), (125, "13.5")]
    assert lookup("cuda_tile.atan2") is lookup("atan2")


def test_builder_makes_a_kernel_that_prints_like_cuda_tile_opt() -> None:
    module = Module("kernels")
    b = Builder.at_end(module.body)
    tile = TileType((4,), F32)
    kernel = b.entry("add", [TileType((), PointerType(F32))])
    body = Builder.at_end(kernel.regions[0].block)
    c = body.create("constant", result_types=[tile],
                    attributes={"value": DenseElementsAttr(tile, (0x3F800000,))})
    s = body.create("addf", [c.result, c.result], [tile],
                    {"rounding_mode": RoundingMode.ZERO})
    body.create("negf", [s.result], [tile])
    body.create("return")
    assert module.format() == (
        "cuda_tile.module @kernels {\n"
        "  entry @add(%arg0: tile<ptr<f32>>) {\n"
        "    %cst_1_f32 = constant <f32: 1.000000e+00> : tile<4xf32>\n"
        "    %0 = addf %cst_1_f32, %cst_1_f32 rounding<zero> : tile<4xf32>\n"
        "    %1 = negf %0 : tile<4xf32>\n"
        "    return\n"
        "  }\n"
        "}\n")
    assert [op.name for op in module.entries] == ["cuda_tile.entry"]
    assert module.lookup("add") is kernel


def test_named_accessors_follow_the_declaration() -> None:
    module = parse("cuda_tile.module @m {\n"
                   "  testing$func @f(%a: tile<8xi32>, %b: tile<8xi32>) {\n"
                   "    %c = cmpi less_than %a, %b, signed : tile<8xi32> -> tile<8xi1>\n"
                   "  }\n"
                   "}\n")
    func = module.functions[0]
    cmpi = func.regions[0].block.operations[0]
    assert type(cmpi).__name__ == "Cmpi"
    assert cmpi.lhs is func.regions[0].block.arguments[0]
    assert cmpi.signedness.value.keyword == "signed"
    assert cmpi.result.type == TileType((8,), I1)
    assert func.regions[0].block.operations[-1].name == "cuda_tile.return"


def test_double_space_of_an_empty_directive_is_kept() -> None:
    # tileirdisasm prints `ftof %x  : ...` (the rounding directive printed nothing).
    text = ("entry @k(%arg0: tile<f32>) {\n"
            "  %0 = ftof %arg0  : tile<f32> -> tile<f16>\n"
            "  return\n"
            "}\n")
    assert parse(text).format() == text


def test_parse_errors_have_locations() -> None:
    with pytest.raises(ParseError) as info:
        parse("cuda_tile.module @m {\n  testing$func @f() {\n    %0 = bogus_op\n  }\n}\n",
              "in.mlir")
    diagnostic = info.value.diagnostics[0]
    assert (diagnostic.location.line, diagnostic.location.column) == (3, 10)
    assert diagnostic.message == ("custom op 'bogus_op' is unknown "
                                  "(tried 'cuda_tile.bogus_op' as well)")


def test_parse_verifies_by_default() -> None:
    # entry arguments are rank-0 tiles (spec: kernel parameters are scalars or pointers)
    text = "entry @k(%arg0: tile<4xf32>) {\n  return\n}\n"
    with pytest.raises(VerificationError) as info:
        parse(text, "k.mlir")
    [diagnostic] = info.value.diagnostics
    assert diagnostic.message == ("'cuda_tile.entry' op entry op must have scalar types "
                                  "(rank 0 !cuda_tile.tile)")
    assert (diagnostic.location.line, diagnostic.location.column) == (1, 1)
    assert parse(text, "k.mlir", verify=False).format() == text


def _nested_ifs(depth: int) -> str:
    body = "return"
    for i in range(depth):
        body = f"%c{i} = constant <i1: true> : tile<i1>\nif %c{i} {{\n{body}\n}}"
    return f"cuda_tile.module @m {{\n entry @k() {{\n{body}\n return\n }}\n}}\n"


def test_deep_nesting_parses_verifies_and_prints() -> None:
    # 150 nested ifs need more than Python's default 1000 frames in the parser
    module = parse(_nested_ifs(150))
    assert parse(module.format()).format() == module.format()
    with pytest.raises(ParseError) as info:
        parse(_nested_ifs(250))
    assert info.value.diagnostics[0].message == "operations nest more than 200 deep"


def test_clone_copies_regions_and_remaps_values() -> None:
    """`Operation.clone`: a detached deep copy whose nested uses point at the copy's own
    values, its text the original's; without regions, the regions are there but empty."""
    import tileir
    text = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for %i in (%zero to %one, step %one) : tile<i32> iter_values(%a = %zero) -> (tile<i32>) {
      %n = addi %a, %i : tile<i32>
      continue %n : tile<i32>
    }
    return
  }
}"""
    module = tileir.parse(text)
    module.spelling = "bare"
    copy = module.clone()
    assert copy.format() == module.format() and copy.spelling == "bare"
    originals = {id(v) for op in module.walk() for v in op.results}
    for op in copy.walk():
        assert all(id(v) not in originals for v in op.operands)
    loop = next(op for op in module.walk() if op.name == "cuda_tile.for")
    bare = loop.clone(regions=False)
    assert bare.parent is None and len(bare.regions) == 1 and not bare.regions[0].blocks
    assert bare.operands == loop.operands


def test_encloses_tells_values_defined_inside_an_op() -> None:
    import tileir
    module = tileir.parse("""cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = for %i in (%zero to %one, step %one) : tile<i32> iter_values(%a = %zero) -> (tile<i32>) {
      %n = addi %a, %i : tile<i32>
      continue %n : tile<i32>
    }
    return
  }
}""")
    entry = module.entries[0]
    loop = next(op for op in entry.walk() if op.name == "cuda_tile.for")
    add = next(op for op in entry.walk() if op.name == "cuda_tile.addi")
    zero = entry.regions[0].block.operations[0].results[0]
    assert loop.encloses(add.results[0]) and loop.encloses(loop.regions[0].block.arguments[0])
    assert not loop.encloses(loop.results[0]) and not loop.encloses(zero)
    assert entry.encloses(zero) and module.encloses(add.results[0])
    assert not loop.encloses(entry.regions[0].block.arguments[0])
