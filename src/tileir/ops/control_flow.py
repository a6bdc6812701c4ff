"""Control-flow ops (spec group "Control Flow")."""

from .naming import first, for_block_args
from .registry import op

G = "ControlFlow"
_TERM = "attr-dict ($operands^ `:` custom<CudaTileType>(type($operands)))?"

op("assert", "13.1", 0x05, G, operands="condition:i1", attrs="message:str",
   format="$condition `,` $message attr-dict `:` custom<CudaTileType>(type($condition))")
#: The terminators: their operands' constraint and traits, as the reference declares them.
_TERMINATORS = (
    ("break", 0x0A, "ct_any", "ReturnLike Terminator ParentOneOf(if,loop)"),
    ("continue", 0x11, "ct_any", "Terminator ParentOneOf(for,if,loop)"),
    # 13.4: a loop may end with return (NVIDIA's 13.4 tools accept it in 13.3 files too).
    ("return", 0x5C, "any", "ParentOneOf(entry,if,loop,testing$func) ReturnLike Terminator"),
    ("yield", 0x6D, "ct_any", "Pure ReturnLike Terminator ParentOneOf(if,reduce,scan)"),
)
for _name, _opcode, _code, _traits in _TERMINATORS:
    op(_name, "13.1", _opcode, G, operands=f"operands:{_code}*", traits=_traits, format=_TERM)
op("for", "13.1", 0x29, G,
   operands="lowerBound:s_i upperBound:s_i step:s_i initValues:any*",
   results="resultValues:any*", attrs="unsignedCmp:unit@13.2", regions="region:sized",
   traits="AutomaticAllocationScope AllTypesMatch(lowerBound,upperBound,step) "
          "AllTypesMatch(initValues,resultValues) RecursiveMemoryEffects SingleBlock "
          "SingleBlockImplicitTerminator(continue) AsmNames", custom="for", names=first("for"),
   arg_names=for_block_args, default_dialect=True)
op("if", "13.1", 0x32, G, operands="condition:s_i1", results="results:any*",
   regions="thenRegion:sized elseRegion:max",
   traits="NoRegionArguments AsmNames RecursiveMemoryEffects SingleBlock "
          "SingleBlockImplicitTerminator(yield,break,continue,return)", default_dialect=True,
   format="$condition (`->` `(` custom<CudaTileType>(type($results))^ `)`)? "
          "custom<IfOpRegion>($thenRegion) (`else` custom<IfOpRegion>($elseRegion)^)? "
          "attr-dict")
op("loop", "13.1", 0x41, G, operands="initValues:any*", results="resultValues:any*",
   regions="region:sized",
   traits="AutomaticAllocationScope AsmNames RecursiveMemoryEffects SingleBlock "
          "SingleBlockImplicitTerminator(continue,break,return)", custom="loop",
   default_dialect=True)
