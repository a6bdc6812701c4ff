"""Conversion ops (spec group "Conversion")."""

from .registry import op

G = "Conversion"
_FT = (" attr-dict `:` custom<CudaTileType>(type($from)) `->` "
       "custom<CudaTileType>(type($to))")
_ST = (" attr-dict `:` custom<CudaTileType>(type($source)) `->` "
       "custom<CudaTileType>(type($result))")
#: The reference's traits: the source and result tiles have one shape.
SOURCE_RESULT = "Pure AllShapesMatch(source,result)"
FROM_TO = "Pure AllShapesMatch(from,to)"

op("bitcast", "13.1", 0x09, G, operands="source:num", results="result:num", traits=SOURCE_RESULT,
   format="$source" + _ST)
op("exti", "13.1", 0x25, G, operands="from:i4N", results="to:i4N",
   attrs="signedness:signedness", traits=FROM_TO,
   format="$from custom<Signedness>($signedness)" + _FT)
op("ftof", "13.1", 0x2A, G, operands="from:f", results="to:f",
   attrs="rounding_mode:rounding=nearest_even", traits=FROM_TO,
   format="$from custom<FToFRoundingMode>($rounding_mode)" + _FT)
op("ftoi", "13.1", 0x2B, G, operands="from:f", results="to:iN",
   attrs="signedness:signedness rounding_mode:rounding=nearest_int_to_zero "
         "saturating:unit@13.4", traits=FROM_TO,
   format="$from custom<Signedness>($signedness) custom<IntegerRoundingMode>($rounding_mode)"
          " (`saturating` $saturating^)?" + _FT)
op("int_to_ptr", "13.1", 0x33, G, operands="source:i64", results="result:ptr", traits=SOURCE_RESULT,
   format="$source" + _ST)
op("itof", "13.1", 0x3B, G, operands="from:iN", results="to:f",
   attrs="signedness:signedness rounding_mode:rounding=nearest_even", traits=FROM_TO,
   format="$from custom<Signedness>($signedness) custom<IEEERoundingMode>($rounding_mode)"
          + _FT)
op("ptr_to_int", "13.1", 0x56, G, operands="source:ptr", results="result:i64", traits=SOURCE_RESULT,
   format="$source" + _ST)
op("ptr_to_ptr", "13.1", 0x57, G, operands="source:ptr", results="result:ptr", traits=SOURCE_RESULT,
   format="$source" + _ST)
op("trunci", "13.1", 0x6B, G, operands="from:i4N", results="to:i4N",
   attrs="overflow:overflow=none", traits=FROM_TO,
   format="$from (`overflow` `` $overflow^)?" + _FT)
