"""The verifier's generic checks, driven by op declarations."""

from __future__ import annotations


def test_operand_type_constraint(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>) {
        %0 = cuda_tile.addi %a, %a : !cuda_tile.tile<2xf32>
      }
    }"""
    # addi takes integer tiles (the reference's CudaTile_IntTileType)
    assert diagnose(text) == [
        "error: 'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 "
        "values, but got '!cuda_tile.tile<2xf32>'"]


def test_valid_module_verifies_clean(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        %0 = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<2xf32>
        %1 = cuda_tile.addf %0, %0 : !cuda_tile.tile<2xf32>
        cuda_tile.return
      }
    }"""
    assert diagnose(text) == []


def test_generic_form_region_count(diagnose) -> None:
    # `if` has two regions (then, else); the generic form must spell both, even if empty
    text = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        %c = cuda_tile.constant <i1: true> : !cuda_tile.tile<i1>
        "cuda_tile.if"(%c) ({
          cuda_tile.yield
        }) : (!cuda_tile.tile<i1>) -> ()
        cuda_tile.return
      }
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.if' op expected 2 regions"]
    assert diagnose(text.replace("}) :", "}, {\n}) :")) == []


def test_dominance(diagnose) -> None:
    # a value used in the block before its definition (the generic form allows writing it)
    text = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        %0 = "cuda_tile.negf"(%1) : (!cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        %1 = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<f32>
        cuda_tile.return
      }
    }"""
    # MLIR's emitError (no op prefix) with a note saying where the operand is defined
    assert diagnose(text) == ["error: operand #0 does not dominate this use",
                              "note: operand defined here (op in the same block)"]
    nested = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        %c = cuda_tile.constant <i1: true> : !cuda_tile.tile<i1>
        cuda_tile.if %c {
          %0 = "cuda_tile.negf"(%1) : (!cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        }
        %1 = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<f32>
        cuda_tile.return
      }
    }"""
    assert diagnose(nested) == ["error: operand #0 does not dominate this use",
                                "note: operand defined here (op in a parent region)"]


def test_every_function_is_verified(diagnose) -> None:
    # functions are verified independently, as MLIR verifies isolated ops: both errors show
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>) {
        %0 = cuda_tile.addi %a, %a : !cuda_tile.tile<2xf32>
      }
      cuda_tile.testing$func @g(%a: !cuda_tile.tile<2xi32>) {
        %0 = cuda_tile.addf %a, %a : !cuda_tile.tile<2xi32>
      }
    }"""
    assert diagnose(text) == [
        "error: 'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 "
        "values, but got '!cuda_tile.tile<2xf32>'",
        "error: 'cuda_tile.addf' op operand #0 must be tile of f16 or bf16 or f32 or f64 "
        "values, but got '!cuda_tile.tile<2xi32>'"]


def test_region_constraint_names_the_ods_region(diagnose) -> None:
    # `loop`'s one region is called `region` in the reference (SizedRegion<1>:$region)
    text = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        "cuda_tile.loop"() ({
        }) : () -> ()
        cuda_tile.return
      }
    }"""
    assert diagnose(text) == ["error: 'cuda_tile.loop' op region #0 ('region') failed to "
                              "verify constraint: region with 1 blocks"]


_GENERIC_ENTRY = """cuda_tile.module @m {
  "cuda_tile.entry"() <{function_type = (!cuda_tile.tile<f32>) -> (), sym_name = "k"}> ({
  ^bb0(ARGS):
    cuda_tile.return
  }) : () -> ()
}"""


def test_entry_block_matches_the_signature(diagnose) -> None:
    # FunctionOpInterface: the body's arguments are the signature's inputs
    ok = _GENERIC_ENTRY.replace("ARGS", "%a: !cuda_tile.tile<f32>")
    assert diagnose(ok) == []
    assert diagnose(_GENERIC_ENTRY.replace("ARGS", "%a: !cuda_tile.tile<i32>")) == [
        "error: 'cuda_tile.entry' op type of entry block argument #0(!cuda_tile.tile<i32>) "
        "must match the type of the corresponding argument in function "
        "signature(!cuda_tile.tile<f32>)"]
    two = "%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>"
    assert diagnose(_GENERIC_ENTRY.replace("ARGS", two)) == [
        "error: 'cuda_tile.entry' op entry block must have 1 arguments to match function "
        "signature"]


def test_i1_integer_is_a_bool(diagnose) -> None:
    # in MLIR `1 : i1` and `true` are the same attribute (BoolAttr is an i1 IntegerAttr)
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<8xf32>) {
        %r = "cuda_tile.scan"(%a) <{dim = 0 : i32, reverse = 1 : i1, identities = [0.0 : f32]}> ({
        ^bb0(%x: !cuda_tile.tile<f32>, %y: !cuda_tile.tile<f32>):
          %s = cuda_tile.addf %x, %y : !cuda_tile.tile<f32>
          cuda_tile.yield %s : !cuda_tile.tile<f32>
        }) : (!cuda_tile.tile<8xf32>) -> !cuda_tile.tile<8xf32>
      }
    }"""
    assert diagnose(text) == []
    assert diagnose(text.replace("reverse = 1 : i1", "reverse = true")) == []


def test_only_some_enums_are_integers(diagnose) -> None:
    # the reference stores memory ordering, scope and atomic mode as i32; a rounding mode is
    # an enum attribute (#cuda_tile.rounding<...>), so an integer fails its constraint
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<8xf32>) {
        %r = "cuda_tile.addf"(%a, %a) <{rounding_mode = 1 : i32}> : (!cuda_tile.tile<8xf32>, !cuda_tile.tile<8xf32>) -> !cuda_tile.tile<8xf32>
      }
    }"""  # noqa: E501
    assert diagnose(text) == ["error: 'cuda_tile.addf' op attribute 'rounding_mode' failed to "
                              "satisfy constraint: rounding mode"]
    good = text.replace("1 : i32", "#cuda_tile.rounding<zero>")
    assert diagnose(good) == []
