"""Control-flow ops (spec group "Control Flow")."""

from .naming import first, for_block_args
from .registry import op

G = "ControlFlow"
_TERM = "attr-dict ($operands^ `:` custom<CudaTileType>(type($operands)))?"

op("assert", "13.1", 0x05, G, operands="condition:i1", attrs="message:str",
   format="$condition `,` $message attr-dict `:` custom<CudaTileType>(type($condition))")
for _name, _opcode in (("break", 0x0A), ("continue", 0x11), ("return", 0x5C),
                       ("yield", 0x6D)):
    op(_name, "13.1", _opcode, G, operands="operands:any*", traits="Terminator Pure",
       format=_TERM)
op("for", "13.1", 0x29, G,
   operands="lowerBound:s_i upperBound:s_i step:s_i initValues:any*",
   results="resultValues:any*", attrs="unsignedCmp:unit@13.2", regions="body",
   traits="SingleBlock RecursiveMemoryEffects AsmNames", custom="for", names=first("for"),
   arg_names=for_block_args, default_dialect=True, terminator="continue")
op("if", "13.1", 0x32, G, operands="condition:s_i1", results="results:any*",
   regions="thenRegion elseRegion",
   traits="NoRegionArguments RecursiveMemoryEffects AsmNames", default_dialect=True,
   terminator="yield",
   format="$condition (`->` `(` custom<CudaTileType>(type($results))^ `)`)? "
          "custom<IfOpRegion>($thenRegion) (`else` custom<IfOpRegion>($elseRegion)^)? "
          "attr-dict")
op("loop", "13.1", 0x41, G, operands="initValues:any*", results="resultValues:any*",
   regions="body", traits="SingleBlock RecursiveMemoryEffects AsmNames", custom="loop",
   default_dialect=True, terminator="continue")
