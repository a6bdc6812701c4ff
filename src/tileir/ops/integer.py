"""Integer ops (spec group "Integer")."""

from .registry import op

G = "Integer"
_T = " attr-dict `:` custom<CudaTileType>(type($result))"
_OVF = " (`overflow` `` $overflow^)?"
PURE = "Pure Elementwise SameOperandsAndResultType"


def _binary(name: str, opcode: int, middle: str = "", attrs: str = "",
            lhs: str = "lhs", rhs: str = "rhs") -> None:
    op(name, "13.1", opcode, G, operands=f"{lhs}:iN {rhs}:iN", results="result:iN",
       attrs=attrs, traits=PURE, format=f"${lhs} `,` ${rhs}{middle}" + _T,
       same=f"{lhs},{rhs},result")


op("absi", "13.1", 0x01, G, operands="source:iN", results="result:iN", traits=PURE,
   format="$source" + _T, same="source,result")
_binary("addi", 0x03, _OVF, "overflow:overflow=none")
op("cmpi", "13.1", 0x0F, G, operands="lhs:iN rhs:iN", results="result:i1",
   attrs="comparison_predicate:cmp_pred signedness:signedness",
   traits="Pure Elementwise SameTypeOperands",
   format="custom<ComparisonPredicate>($comparison_predicate) $lhs `,` $rhs `,` "
          "custom<Signedness>($signedness) attr-dict `:` custom<CudaTileType>(type($lhs)) "
          "`->` custom<CudaTileType>(type($result))", same="lhs,rhs")
_binary("divi", 0x15, " custom<Signedness>($signedness) (`rounding` `` $rounding^)?",
        "signedness:signedness rounding:rounding=zero")
_binary("maxi", 0x46, " custom<Signedness>($signedness)", "signedness:signedness")
_binary("mini", 0x48, " custom<Signedness>($signedness)", "signedness:signedness")
op("mmai", "13.1", 0x4A, G, operands="lhs:i8 rhs:i8 acc:i32", results="result:i32",
   attrs="signedness_lhs:signedness signedness_rhs:signedness", traits="Pure",
   format="$lhs `,` $rhs `,` $acc custom<Signedness>($signedness_lhs) "
          "custom<Signedness>($signedness_rhs) attr-dict `:` custom<CudaTileType>(type($lhs)) "
          "`,` custom<CudaTileType>(type($rhs)) `,` custom<CudaTileType>(type($acc))",
   same="acc,result")
_binary("mulhii", 0x4D, lhs="x", rhs="y")
_binary("muli", 0x4E, _OVF, "overflow:overflow=none")
op("negi", "13.1", 0x50, G, operands="source:iN", results="result:iN",
   attrs="overflow:overflow=none@13.2", traits=PURE, format="$source" + _OVF + _T,
   same="source,result")
_binary("remi", 0x5A, " custom<Signedness>($signedness)", "signedness:signedness")
_binary("shli", 0x60, _OVF, "overflow:overflow=none")
_binary("shri", 0x61, " custom<Signedness>($signedness)", "signedness:signedness")
_binary("subi", 0x68, _OVF, "overflow:overflow=none")
