"""Testing-only ops the conformance suite uses (NVIDIA builds them with TILE_IR_INCLUDE_TESTS)."""

from .registry import op

G = "Testing"

op("testing$func", "250.0", 0x3001, G,
   attrs="sym_name:sym function_type:type arg_attrs:dicts? res_attrs:dicts?",
   regions="body:sized",
   traits="IsolatedFromAbove FunctionOpInterface Symbol SingleBlock AsmNames "
          "SingleBlockImplicitTerminator(return)",
   custom="function", default_dialect=True)
op("testing$bytecode_test_new_attribute", "250.0", 0x3000, G,
   attrs="new_flag:unit@250.1 new_param:i32=42@250.1",
   format="(`new_flag` $new_flag^)? (`new_param` `=` $new_param^)? attr-dict")
op("testing$bytecode_test_evolution", "250.0", 0x3002, G,
   operands="inputs:tile* optional_token:token?@250.1", results="result_token:token@250.1",
   attrs="new_attr:i32?@250.1", traits="AttrSizedOperandSegments",
   format="`(` $inputs `:` type($inputs) `)` (`new_attr` `=` $new_attr^)? "
          "(`token` `=` $optional_token^ `:` custom<CudaTileType>(type($optional_token)))? "
          "`->` custom<CudaTileType>(type($result_token)) attr-dict",
   summary="the reference's versioning test op, without its testing-only priority and "
           "test_attr attributes")
