"""Core ops (spec group "Core"): module structure, constants, shapes, grid queries."""

from .naming import constant_name, first, fixed, reduce_block_args
from .registry import op

G = "Core"
_ST = (" attr-dict `:` custom<CudaTileType>(type($source)) `->` "
       "custom<CudaTileType>(type($result))")

op("module", "13.1", 0x4B, G, attrs="sym_name:sym producer:str?@13.3", regions="body:max",
   traits="IsolatedFromAbove AsmNames NoRegionArguments SingleBlock SymbolTable NoTerminator",
   format="$sym_name attr-dict-with-keyword $body", default_dialect=True)
op("entry", "13.1", 0x16, G,
   attrs="sym_name:sym function_type:type arg_attrs:dicts? res_attrs:dicts? "
         "optimization_hints:hints?", regions="body:sized",
   traits="FunctionOpInterface Symbol IsolatedFromAbove AsmNames SingleBlock "
          "SingleBlockImplicitTerminator(return)",
   custom="function", default_dialect=True)
op("global", "13.1", 0x31, G,
   attrs="sym_name:sym value:dense alignment:i64=0 constant:unit@13.3 "
         "symbol_visibility:visibility=public@13.3", traits="Symbol",
   format="custom<SymbolVisibility>($symbol_visibility) (`constant` $constant^)? $sym_name "
          "(`alignment` `=` $alignment^)? attr-dict "
          "custom<DenseTypedElementsAttrNoResult>($value)")
op("get_global", "13.1", 0x2C, G, results="result:s_ptr", attrs="name:symref",
   traits="Pure SymbolUserOpInterface",
   format="$name attr-dict `:` custom<CudaTileType>(type($result))")
op("constant", "13.1", 0x10, G, results="result:num", attrs="value:dense",
   traits="ConstantLike Pure AllTypesMatch(value,result) AsmNames", names=constant_name,
   format="custom<DenseTypedElementsAttr>($value, type($result)) attr-dict")
op("broadcast", "13.1", 0x0B, G, operands="source:tile", results="result:tile",
   traits="Pure SameOperandsAndResultElementType AllRanksMatch(source,result) AsmNames",
   names=fixed("bcast"), format="$source" + _ST)
op("cat", "13.1", 0x0C, G, operands="lhs:tile rhs:tile", results="result:tile",
   attrs="dim:i64",
   traits="Pure AllRanksMatch(lhs,rhs,result) AllElementTypeMatch(lhs,rhs,result)",
   format="$lhs `,` $rhs `dim` `=` $dim attr-dict `:` custom<CudaTileType>(type($lhs)) `,` "
          "custom<CudaTileType>(type($rhs)) `->` custom<CudaTileType>(type($result))")
op("extract", "13.1", 0x26, G, operands="source:tile indices:s_i32*", results="result:tile",
   traits="Pure AllRanksMatch(source,result)", format="$source `[` $indices `]`" + _ST)
op("insert", "13.4", 118, G, operands="source:tile destination:tile indices:s_i32*",
   results="result:tile", traits="Pure",
   format="$source `,` $destination `[` $indices `]` attr-dict `:` "
          "custom<CudaTileType>(type($source)) `,` custom<CudaTileType>(type($destination))",
   same="destination,result", summary="insert a subtile into a tile")
op("get_num_tile_blocks", "13.1", 0x2E, G,
   results="gridSize_x:s_i32 gridSize_y:s_i32 gridSize_z:s_i32", traits="Pure AsmNames",
   names=fixed("gridSize_x", "gridSize_y", "gridSize_z"),
   format="attr-dict `:` custom<CudaTileType>(type($gridSize_x))",
   same="gridSize_x,gridSize_y,gridSize_z")
op("get_tile_block_id", "13.1", 0x30, G,
   results="blockId_x:s_i32 blockId_y:s_i32 blockId_z:s_i32", traits="Pure AsmNames",
   names=fixed("blockId_x", "blockId_y", "blockId_z"),
   format="attr-dict `:` custom<CudaTileType>(type($blockId_x))",
   same="blockId_x,blockId_y,blockId_z")
op("iota", "13.1", 0x3A, G, results="result:iN", traits="Pure",
   format="attr-dict `:` custom<CudaTileType>(type($result))")
op("offset", "13.1", 0x51, G, operands="ptr:ptr offset:iN", results="result:ptr",
   traits="Pure Elementwise SameOperandsAndResultShape AllTypesMatch(result,ptr)",
   format="$ptr `,` $offset attr-dict `:` custom<CudaTileType>(type($ptr)) `,` "
          "custom<CudaTileType>(type($offset)) `->` custom<CudaTileType>(type($result))")
op("pack", "13.3", 0x6F, G, operands="source:num4", results="result:i8",
   traits="Pure AllRanksMatch(source,result)",
   format="$source" + _ST)
op("unpack", "13.3", 0x70, G, operands="source:i8", results="result:num4",
   traits="Pure AllRanksMatch(source,result)",
   format="$source" + _ST)
op("permute", "13.1", 0x53, G, operands="source:tile", results="result:tile",
   attrs="permutation:i32arr",
   traits="Pure AllElementTypeMatch(source,result) AllRanksMatch(source,result)",
   format="$source $permutation" + _ST)
op("reshape", "13.1", 0x5B, G, operands="source:tile", results="result:tile",
   traits="Pure SameOperandsAndResultElementType AsmNames", names=fixed("reshape"),
   format="$source" + _ST)
op("reduce", "13.1", 0x58, G, operands="operands:tile*", results="results:tile*",
   attrs="dim:i32nn identities:array", regions="body:sized",
   traits="InferTypeOpAdaptor RecursiveMemoryEffects SameOperandsShape SingleBlock "
          "SingleBlockImplicitTerminator(yield) AsmNames", names=first("reduce"),
   arg_names=reduce_block_args, default_dialect=True,
   format="$operands attr-dict ` ` `dim` `` `=` `` $dim `identities` `` `=` `` $identities "
          "`:` custom<CudaTileType>(type($operands)) `->` custom<CudaTileType>(type($results)) "
          "custom<ArgumentRegion>($body)")
op("scan", "13.1", 0x5E, G, operands="operands:tile*", results="results:tile*",
   attrs="dim:i32nn reverse:bool identities:array", regions="body:sized",
   traits="InferTypeOpAdaptor AsmNames RecursiveMemoryEffects SameOperandsShape SingleBlock "
          "SingleBlockImplicitTerminator(yield)", default_dialect=True,
   format="$operands attr-dict ` ` `dim` `` `=` `` $dim `reverse` `` `=` `` $reverse "
          "`identities` `` `=` `` $identities `:` custom<CudaTileType>(type($operands)) `->` "
          "custom<CudaTileType>(type($results)) custom<ArgumentRegion>($body)")
op("select", "13.1", 0x5F, G, operands="cond:i1 val_if_true:tile val_if_false:tile",
   results="result:tile",
   traits="Pure AllTypesMatch(val_if_true,val_if_false,result) "
          "AllShapesMatch(cond,val_if_true,val_if_false,result)",
   format="$cond `,` $val_if_true `,` $val_if_false attr-dict `:` "
          "custom<CudaTileType>(type($cond)) `,` custom<CudaTileType>(type($result))")
