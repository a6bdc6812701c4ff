"""Atomic ops (spec group "Atomics")."""

from .naming import fixed
from .registry import op

G = "Atomics"
_ORDER = "memory_ordering_semantics:mem_order memory_scope:mem_scope"
_TOKEN = " (`token` `` `=` `` $token^)?"

op("atomic_cas_tko", "13.1", 0x07, G,
   operands="pointers:ptr cmp:tile val:tile mask:i1? token:token?",
   results="result:tile result_token:token", attrs=_ORDER,
   traits="AllShapesMatch(pointers,cmp,val,result) AllTypesMatch(cmp,val,result) "
          "AttrSizedOperandSegments AsmNames",
   names=fixed("result", "result_token"),
   format="$memory_ordering_semantics $memory_scope $pointers `,` $cmp `,` $val "
          "(`,` $mask^)?" + _TOKEN + " attr-dict `:` custom<CudaTileType>(type($pointers)) "
          "`,` custom<CudaTileType>(type($val)) (`,` custom<CudaTileType>(type($mask))^)? `->` "
          "custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")
op("atomic_rmw_tko", "13.1", 0x08, G,
   operands="pointers:ptr arg:tile mask:i1? token:token?",
   results="result:tile result_token:token", attrs=_ORDER + " mode:rmw_mode",
   traits="AllShapesMatch(pointers,arg,result) AllTypesMatch(arg,result) "
          "AttrSizedOperandSegments AsmNames", names=fixed("result", "result_token"),
   format="$memory_ordering_semantics $memory_scope $pointers `,` $mode `,` $arg "
          "(`,` $mask^)?" + _TOKEN + " attr-dict `:` custom<CudaTileType>(type($pointers)) "
          "`,` custom<CudaTileType>(type($arg)) (`,` custom<CudaTileType>(type($mask))^)? `->` "
          "custom<CudaTileType>(type($result)) `,` custom<CudaTileType>(type($result_token))")
op("atomic_red_view_tko", "13.3", 0x75, G,
   operands="view:view index:iN* value:tile token:token?", results="result_token:token",
   attrs=_ORDER + " mode:rmw_mode inbounds:boolarr?@13.5", traits="AttrSizedOperandSegments",
   custom="atomic_red_view")
