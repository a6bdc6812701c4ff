"""Miscellaneous ops (spec group "Misc"): assume, print, and the 13.4 launch-dependency ops."""

from .naming import assume_name
from .registry import op

G = "Misc"
_GDC = "(`token` `=` $token^)? attr-dict `->` custom<CudaTileType>(type($result_token))"

op("assume", "13.1", 0x06, G, operands="value:any", results="result:any",
   attrs="predicate:assume", traits="AllTypesMatch(value,result) AsmNames", names=assume_name,
   format="custom<AssumePredicate>($predicate) `,` $value attr-dict `:` "
          "custom<CudaTileType>(type($value))")
op("print_tko", "13.1", 0x55, G, operands="args:tile* token:token?@13.2",
   results="result_token:token@13.2", attrs="str:str", traits="AttrSizedOperandSegments",
   format="$str (`,` $args^)? (`token` `` `=` `` $token^)? attr-dict "
          "(`:` custom<CudaTileType>(type($args))^)? `->` "
          "custom<CudaTileType>(type($result_token))")
op("gdc_launch_dependents_tko", "13.4", 119, G, operands="token:token?",
   results="result_token:token",
   format=_GDC,
   summary="signal that programmatic-dependent-launch dependents may start")
op("gdc_wait_tko", "13.4", 120, G, operands="token:token?", results="result_token:token",
   format=_GDC,
   summary="wait for the predecessor kernel (acquire)")
