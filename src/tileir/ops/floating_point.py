"""Floating-point ops (spec group "Floating Point"): arithmetic, math and mma."""

from .registry import op

G = "FloatingPoint"
_T = " attr-dict `:` custom<CudaTileType>(type($result))"
_UNARY = "$source" + _T
_BINARY = "$lhs `,` $rhs" + _T
_FTZ = " (`flush_to_zero` $flush_to_zero^)?"
#: The reference's traits of the unary and binary elementwise ops.
UNARY = "Pure AllTypesMatch(source,result)"
BINARY = "Pure AllTypesMatch(lhs,rhs,result)"


def _unary(name: str, opcode: int, since: str = "13.1", attrs: str = "",
           format: str = _UNARY, summary: str = "", traits: str = UNARY) -> None:
    op(name, since, opcode, G, operands="source:fB", results="result:fB", attrs=attrs,
       traits=traits, format=format, summary=summary)


def _rounded_binary(name: str, opcode: int, directive: str = "IEEERoundingMode") -> None:
    op(name, "13.1", opcode, G, operands="lhs:fB rhs:fB", results="result:fB",
       attrs="rounding_mode:rounding=nearest_even flush_to_zero:unit", traits=BINARY,
       format=f"$lhs `,` $rhs custom<{directive}>($rounding_mode)" + _FTZ + _T)


_unary("absf", 0x00, summary="absolute value",
       traits="Pure SameOperandsAndResultShape AllTypesMatch(source,result)")
_rounded_binary("addf", 0x02)
op("atan2", "13.2", 0x6E, G, operands="x:fB y:fB", results="result:fB",
   traits="Pure AllTypesMatch(x,y,result)",
   format="$x `,` $y" + _T)
_unary("ceil", 0x0D)
op("cmpf", "13.1", 0x0E, G, operands="lhs:fB rhs:fB", results="result:i1",
   attrs="comparison_predicate:cmp_pred comparison_ordering:cmp_order",
   traits="Pure AllTypesMatch(lhs,rhs) TypesMatchWith(lhs,result,i1_same_shape)",
   format="custom<ComparisonPredicate>($comparison_predicate) "
          "custom<ComparisonOrdering>($comparison_ordering) $lhs `,` $rhs attr-dict `:` "
          "custom<CudaTileType>(type($lhs)) `->` custom<CudaTileType>(type($result))")
_unary("cos", 0x12)
_unary("cosh", 0x13)
_rounded_binary("divf", 0x14, "DivFOpRoundingMode")
_unary("exp", 0x17, attrs="rounding_mode:rounding=full@13.3",
       format="$source custom<ExpOpRoundingMode>($rounding_mode)" + _T)
_unary("exp2", 0x18, attrs="flush_to_zero:unit", format="$source" + _FTZ + _T)
_unary("floor", 0x27)
op("fma", "13.1", 0x28, G, operands="lhs:fB rhs:fB acc:fB", results="result:fB",
   attrs="rounding_mode:rounding=nearest_even flush_to_zero:unit",
   traits="Pure AllTypesMatch(lhs,rhs,acc,result)",
   format="$lhs `,` $rhs `,` $acc custom<IEEERoundingMode>($rounding_mode)" + _FTZ + _T)
op("fpowi", "13.4", 121, G, operands="source:fB exponent:fpowi_exp", results="result:fB",
   traits="Pure Elementwise AllShapesMatch(source,exponent)",
   format="$source `,` $exponent attr-dict `:` "
   "custom<CudaTileType>(type($source)) `,` custom<CudaTileType>(type($exponent))",
   same="source,result", summary="x raised to a signed integer power")
_unary("log", 0x3F)
_unary("log2", 0x40)
for _name, _opcode in (("maxf", 0x45), ("minf", 0x47)):
    op(_name, "13.1", _opcode, G, operands="lhs:fB rhs:fB", results="result:fB",
       attrs="propagate_nan:unit flush_to_zero:unit", traits=BINARY,
       format="$lhs `,` $rhs oilist(`flush_to_zero` $flush_to_zero | "
              "`propagate_nan` $propagate_nan)" + _T)
op("mmaf", "13.1", 0x49, G, operands="lhs:mmaf_in rhs:mmaf_in acc:mmaf_acc",
   results="result:mmaf_acc", attrs="fast_acc:unit@13.3",
   traits="Pure AllTypesMatch(acc,result) AllElementTypeMatch(lhs,rhs) "
          "AllRanksMatch(lhs,rhs,acc)",
   format="$lhs `,` $rhs `,` $acc (`fast_acc` $fast_acc^)? attr-dict `:` "
          "custom<CudaTileType>(type($lhs)) `,` custom<CudaTileType>(type($rhs)) `,` "
          "custom<CudaTileType>(type($acc))")
op("mmaf_scaled", "13.3", 0x72, G,
   operands="lhs:scaled_in rhs:scaled_in acc:scaled_res lhs_scale:scale rhs_scale:scale",
   results="result:scaled_res",
   traits="Pure AllTypesMatch(acc,result) AllElementTypeMatch(lhs,rhs) "
          "AllElementTypeMatch(lhs_scale,rhs_scale) "
          "AllRanksMatch(lhs,rhs,acc,lhs_scale,rhs_scale)",
   format="$lhs `,` $rhs `,` $acc `,` $lhs_scale `,` $rhs_scale attr-dict `:` "
          "custom<CudaTileType>(type($lhs)) `,` custom<CudaTileType>(type($rhs)) `,` "
          "custom<CudaTileType>(type($acc)) `,` custom<CudaTileType>(type($lhs_scale)) `,` "
          "custom<CudaTileType>(type($rhs_scale))")
_rounded_binary("mulf", 0x4C)
_unary("negf", 0x4F)
# 13.4 renamed ``pow`` to ``fpowf`` (next to the new ``fpowi``): NVIDIA's 13.4 tools print
# ``fpowf``, even for 13.3 bytecode.  13.3 text spells it ``pow``, which still parses.
op("fpowf", "13.1", 0x54, G, operands="source:fB exponent:fB", results="result:fB",
   traits="Pure AllTypesMatch(result,source,exponent) AllRanksMatch(source,exponent,result)",
   format="$source `,` $exponent" + _T, aliases="pow")
op("remf", "13.1", 0x59, G, operands="lhs:fB rhs:fB", results="result:fB", traits=BINARY,
   format=_BINARY)
_unary("rsqrt", 0x5D, attrs="flush_to_zero:unit", format="$source" + _FTZ + _T)
_unary("sin", 0x62)
_unary("sinh", 0x63)
_unary("sqrt", 0x64, attrs="rounding_mode:rounding=nearest_even flush_to_zero:unit",
       format="$source custom<SqrtOpRoundingMode>($rounding_mode)" + _FTZ + _T)
_rounded_binary("subf", 0x67)
_unary("tan", 0x69)
_unary("tanh", 0x6A, attrs="rounding_mode:rounding=full@13.2",
       format="$source custom<TanHOpRoundingMode>($rounding_mode)" + _T)
