"""Memory ops (spec group "Memory"): pointer loads and stores, tokens, alloca, fences."""

from .naming import fixed
from .registry import op

G = "Memory"
_TOKEN = " (`token` `` `=` `` $token^)?"
_HINTS = " (`optimization_hints` `=` $optimization_hints^)?"

op("alloca", "13.3", 0x71, G, results="result:s_ptr",
   attrs="num_elem:i64min0 alignment:i64min0 global:unit",
   format="`num_elem` `=` $num_elem `,` `alignment` `=` $alignment (`global` $global^)? "
          "attr-dict `:` custom<CudaTileType>(type($result))")
op("join_tokens", "13.1", 0x3C, G, operands="tokens:token*", results="result:token",
   traits="Pure", format="$tokens attr-dict `:` custom<CudaTileType>(type($result))")
op("make_token", "13.1", 0x44, G, results="result:token", traits="Pure",
   format="attr-dict `:` custom<CudaTileType>(type($result))")
op("load_ptr_tko", "13.1", 0x3D, G,
   operands="source:ptr mask:i1? paddingValue:num? token:token?",
   results="result:tile result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? "
         "optimization_hints:hints?",
   traits="AttrSizedOperandSegments TypesMatchWith(result,source,pointer_of) "
          "OptionalTypesMatchWith(source,mask,same_shape) "
          "OptionalTypesMatchWith(result,paddingValue,same_tile) AsmNames",
   names=fixed("result", "result_token"),
   format="$memory_ordering_semantics ($memory_scope^)? $source (`,` $mask^)? "
          "(`,` $paddingValue^)?" + _TOKEN + _HINTS + " attr-dict `:` "
          "custom<CudaTileType>(type($source)) (`,` custom<CudaTileType>(type($mask))^)? "
          "(`,` custom<CudaTileType>(type($paddingValue))^)? `->` "
          "custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")
op("store_ptr_tko", "13.1", 0x65, G,
   operands="destination:ptr value:tile mask:i1? token:token?", results="result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? "
         "optimization_hints:hints?",
   traits="AttrSizedOperandSegments TypesMatchWith(value,destination,pointer_of) "
          "OptionalTypesMatchWith(mask,destination,same_shape)",
   format="$memory_ordering_semantics ($memory_scope^)? $destination `,` $value "
          "(`,` $mask^)?" + _TOKEN + _HINTS + " attr-dict `:` "
          "custom<CudaTileType>(type($destination)) `,` custom<CudaTileType>(type($value)) "
          "(`,` custom<CudaTileType>(type($mask))^)? `->` "
          "custom<CudaTileType>(type($result_token))")
op("memory_fence_alias_tko", "13.4", 122, G, operands="token:token",
   results="result_token:token",
   format="$token attr-dict",
   summary="orders accesses to one memory through different virtual aliases")
