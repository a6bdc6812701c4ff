"""Integer ops (spec group "Integer")."""

from .registry import op

G = "Integer"
_T = " attr-dict `:` custom<CudaTileType>(type($result))"
_OVF = " (`overflow` `` $overflow^)?"


def _binary(name: str, opcode: int, middle: str = "", attrs: str = "",
            lhs: str = "lhs", rhs: str = "rhs", purity: str = "Pure",
            traits: str = "") -> None:
    op(name, "13.1", opcode, G, operands=f"{lhs}:iN {rhs}:iN", results="result:iN",
       attrs=attrs, traits=traits or f"{purity} AllTypesMatch({lhs},{rhs},result)",
       format=f"${lhs} `,` ${rhs}{middle}" + _T)


op("absi", "13.1", 0x01, G, operands="source:iN", results="result:iN",
   traits="Pure SameOperandsAndResultShape AllTypesMatch(source,result)",
   format="$source" + _T)
_binary("addi", 0x03, _OVF, "overflow:overflow=none")
op("cmpi", "13.1", 0x0F, G, operands="lhs:iN rhs:iN", results="result:i1",
   attrs="comparison_predicate:cmp_pred signedness:signedness",
   traits="Pure AllTypesMatch(lhs,rhs) TypesMatchWith(lhs,result,i1_same_shape)",
   format="custom<ComparisonPredicate>($comparison_predicate) $lhs `,` $rhs `,` "
          "custom<Signedness>($signedness) attr-dict `:` custom<CudaTileType>(type($lhs)) "
          "`->` custom<CudaTileType>(type($result))")
_binary("divi", 0x15, " custom<Signedness>($signedness) (`rounding` `` $rounding^)?",
        "signedness:signedness rounding:rounding=zero", purity="NoMemoryEffect")
_binary("maxi", 0x46, " custom<Signedness>($signedness)", "signedness:signedness")
_binary("mini", 0x48, " custom<Signedness>($signedness)", "signedness:signedness")
op("mmai", "13.1", 0x4A, G, operands="lhs:mmai_in rhs:mmai_in acc:mmai_acc",
   results="result:mmai_res", attrs="signedness_lhs:signedness signedness_rhs:signedness",
   traits="Pure AllTypesMatch(acc,result) AllElementTypeMatch(lhs,rhs) "
          "AllRanksMatch(lhs,rhs,acc)",
   format="$lhs `,` $rhs `,` $acc custom<Signedness>($signedness_lhs) "
          "custom<Signedness>($signedness_rhs) attr-dict `:` custom<CudaTileType>(type($lhs)) "
          "`,` custom<CudaTileType>(type($rhs)) `,` custom<CudaTileType>(type($acc))")
_binary("mulhii", 0x4D, lhs="x", rhs="y")
_binary("muli", 0x4E, _OVF, "overflow:overflow=none")
op("negi", "13.1", 0x50, G, operands="source:iN", results="result:iN",
   attrs="overflow:overflow=none@13.2", traits="Pure AllTypesMatch(source,result)",
   format="$source" + _OVF + _T)
_binary("remi", 0x5A, " custom<Signedness>($signedness)", "signedness:signedness",
        traits="Pure AllTypesMatch(result,lhs,rhs) AllShapesMatch(result,lhs,rhs)")
_binary("shli", 0x60, _OVF, "overflow:overflow=none")
_binary("shri", 0x61, " custom<Signedness>($signedness)", "signedness:signedness")
_binary("subi", 0x68, _OVF, "overflow:overflow=none")
