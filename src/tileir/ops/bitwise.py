"""Bitwise ops (spec group "Bitwise")."""

from .registry import op

for _name, _opcode in (("andi", 0x04), ("ori", 0x52), ("xori", 0x6C)):
    op(_name, "13.1", _opcode, "Bitwise", operands="lhs:iN rhs:iN", results="result:iN",
       traits="Pure AllTypesMatch(lhs,rhs,result)",
       format="$lhs `,` $rhs attr-dict `:` custom<CudaTileType>(type($result))")
