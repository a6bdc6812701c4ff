"""13.5's ``--preview=simt`` attributes and types, declared once.

Each ``preview$`` attribute and type is one row of a table: its bytecode tag, its
parameters (with their kinds) and how its body prints.  The text parser, the printer, the
bytecode reader and writer and the verifier read these rows; nothing else knows a preview
construct's layout.  NVIDIA documents none of this: every row was established by feeding
hand-built files to tileirdisasm 13.5 (docs/preview.md, tests/oracles).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .attributes import Attribute, quote_string
from .types import BuiltinType, Type

#: The enums preview attributes carry, their values in bytecode order.
ENUMS: dict[str, tuple[str, ...]] = {
    "access": ("in", "out", "inout"),
    "memory_space": ("local", "smem"),
    "synchronization": ("none", "warp", "warpgroup", "cta"),
}

#: Parameter kinds: how a value is held, written and read.
#:   int     a signed 64-bit integer (zigzag varint)
#:   var     a string naming a symbolic variable (no '.')
#:   builtin a string naming a builtin (``context.`` prefix)
#:   str     any string
#:   type    a type
#:   expr    a nested symbolic expression attribute
#:   tuple   a symbolic tuple: elements that are expressions or tuples (count, then each)
#:   enum    one byte, the value's position in `ENUMS[mnemonic]`
KINDS = ("int", "var", "builtin", "str", "type", "expr", "tuple", "enum")


@dataclass(frozen=True)
class Param:
    """One parameter of a preview attribute or type: its name (the reference's, used in
    messages), its kind, and the key it prints with (None: printed by position)."""

    name: str
    kind: str
    key: str | None = None
    #: The enum (a key of `ENUMS`) an "enum" parameter holds, when not the mnemonic's own.
    enum: str | None = None


@dataclass(frozen=True)
class PreviewAttrDef:
    """One ``preview$`` attribute: mnemonic, tag, parameters; `infix` is the operator a
    binary expression prints with inside a layout (None: it has no infix form)."""

    mnemonic: str
    tag: int
    params: tuple[Param, ...]
    infix: str | None = None

    @property
    def is_expr(self) -> bool:
        """Whether it is a symbolic expression (what expression parameters take)."""
        return self.mnemonic.startswith("expr_")


def _binary(mnemonic: str, tag: int, infix: str | None) -> PreviewAttrDef:
    return PreviewAttrDef(mnemonic, tag, (Param("lhs", "expr"), Param("rhs", "expr")), infix)


ATTRS: tuple[PreviewAttrDef, ...] = (
    PreviewAttrDef("expr_int", 0xD1, (Param("value", "int"),)),
    PreviewAttrDef("expr_var", 0xD2, (Param("name", "var"),)),
    _binary("expr_mul", 0xD3, "*"),
    _binary("expr_div", 0xD4, None),
    _binary("expr_add", 0xD5, "+"),
    _binary("expr_sub", 0xD6, "-"),
    _binary("expr_floor_div", 0xD7, "/"),
    PreviewAttrDef("symbolic_tuple", 0xD8, (Param("elements", "tuple"),)),
    PreviewAttrDef("layout", 0xD9, (Param("shapes", "tuple", "shapes"),
                                    Param("strides", "tuple", "strides"))),
    _binary("expr_ceil_div", 0xDA, "/+"),
    PreviewAttrDef("concrete_type", 0xDB, (Param("type", "type"),)),
    PreviewAttrDef("expr_neg", 0xDC, (Param("operand", "expr"),)),
    PreviewAttrDef("memory_space", 0xDD, (Param("value", "enum"),)),
    PreviewAttrDef("synchronization", 0xDE, (Param("value", "enum"),)),
    PreviewAttrDef("access", 0xDF, (Param("value", "enum"),)),
    PreviewAttrDef("scratch_request", 0xE0, (Param("size", "expr", "smem.size"),
                                             Param("alignment", "expr", "smem.alignment"))),
    PreviewAttrDef("const_param", 0xE2, (Param("name", "str", "name"),
                                         Param("type", "type", "type"))),
    PreviewAttrDef("expr_builtin", 0xE3, (Param("name", "builtin"), Param("type", "type"))),
    PreviewAttrDef("expr_const_str", 0xE4, (Param("value", "str"),)),
)
ATTR_BY_NAME: dict[str, PreviewAttrDef] = {d.mnemonic: d for d in ATTRS}
ATTR_BY_TAG: dict[int, PreviewAttrDef] = {d.tag: d for d in ATTRS}


@dataclass(frozen=True)
class PreviewAttr(Attribute):
    """``#cuda_tile<preview$mnemonic<...>>``: one value per parameter of its declaration
    (ints, strings, types, nested `PreviewAttr`, tuples of them, enum keywords)."""

    mnemonic: str
    values: tuple[Any, ...]

    @property
    def definition(self) -> PreviewAttrDef:
        return ATTR_BY_NAME[self.mnemonic]

    def __getitem__(self, name: str) -> Any:
        for param, value in zip(self.definition.params, self.values):
            if param.name == name:
                return value
        raise KeyError(name)

    def format(self) -> str:
        return f"#cuda_tile<preview${self.mnemonic}{self.body()}>"

    def body(self) -> str:
        """What follows the mnemonic: ``<...>``."""
        if self.mnemonic == "layout":
            pretty = layout_text(self)
            if pretty is not None:
                return f"<{pretty}>"
        parts = [_format_value(p, v, self.mnemonic) for p, v in
                 zip(self.definition.params, self.values)]
        return "<" + ", ".join(parts) + ">"


def _format_value(param: Param, value: Any, mnemonic: str) -> str:
    if param.kind == "tuple" and param.key is not None:
        text = PreviewAttr("symbolic_tuple", (value,)).format()
    else:
        text = format_param(param.kind, value)
    return text if param.key is None else f"{param.key} = {text}"


def format_param(kind: str, value: Any) -> str:
    """One parameter value as the reference prints it."""
    if kind == "int":
        return str(value)
    if kind in ("var", "builtin", "str"):
        return quote_string(value)
    if kind == "type":
        return value.format()
    if kind == "tuple":
        return "[" + ", ".join(v.format() for v in value) + "]"
    if kind == "enum":
        return value
    return value.format()


# ---- the infix forms of expressions ------------------------------------------------------
# tileirdisasm prints an expression three ways: in full (``#cuda_tile<preview$expr_...>``),
# spaced infix inside a layout (``(N + 2):(1)``) and compact infix in a call's constant
# arguments and a fragment's shape (``[N+2]``).  The infix forms share one precedence rule.

#: Binding strength of each infix operator (higher binds tighter).
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "/+": 2}
#: The expression each infix operator spells.
INFIX_MNEMONICS = {d.infix: d.mnemonic for d in ATTRS if d.infix is not None}


class _NoInfix(Exception):
    """An expression with no infix spelling in the form asked for."""


def layout_text(attr: PreviewAttr) -> str | None:
    """``(N + 2, (4,)):(1, (N,))``: a layout's shapes and strides in spaced infix, or None
    when a leaf has no such spelling (``expr_div``, ``expr_const_str``, the negation of an
    integer): the layout then prints by keyword."""
    try:
        return (f"{_tuple_text(attr['shapes'], True, True)}:"
                f"{_tuple_text(attr['strides'], True, True)}")
    except _NoInfix:
        return None


def compact_text(value: "PreviewAttr") -> str:
    """A call's constant argument as tileirdisasm prints it: compact infix (``(2+3)*4``,
    ``(4,)``), a string, a type; in full when it holds something compact infix cannot
    spell (a builtin, ``expr_div``)."""
    if "expr_builtin" in _mnemonics(value):
        return value.format()
    try:
        return _compact(value)
    except _NoInfix:
        return value.format()


def _mnemonics(value: Any) -> set[str]:
    """Every preview attribute mnemonic inside `value` (itself included)."""
    if not isinstance(value, PreviewAttr):
        return set()
    found = {value.mnemonic}
    for param, v in zip(value.definition.params, value.values):
        for item in (v if param.kind == "tuple" else (v,)):
            found |= _mnemonics(item)
    return found


def _compact(value: "PreviewAttr") -> str:
    m = value.mnemonic
    if m == "symbolic_tuple":
        return _tuple_text(value["elements"], False, False)
    if m == "concrete_type":
        return value["type"].format()
    if m == "expr_const_str":
        return quote_string(value["value"])
    if m == "expr_builtin":
        raise _NoInfix(m)
    return expr_text(value, spaced=False)


def _tuple_text(elements: tuple, spaced: bool, top: bool) -> str:
    """A tuple in parentheses; a nested one-element tuple keeps a trailing comma."""
    inner = ", ".join(_tuple_text(e["elements"], spaced, False) if e.mnemonic ==
                      "symbolic_tuple" else (expr_text(e, spaced) if spaced else _compact(e))
                      for e in elements)
    return f"({inner},)" if len(elements) == 1 and not top else f"({inner})"


def expr_text(expr: "PreviewAttr", spaced: bool = True) -> str:
    """An expression in infix form: a binary operand is parenthesised when it binds less
    tightly than its parent, or as tightly on its right (operators are left-associative);
    a negation's operand when it is a binary op or a negation."""
    m = expr.mnemonic
    if m == "expr_int":
        return str(expr["value"])
    if m in ("expr_var", "expr_builtin"):
        return expr["name"]
    if m == "expr_neg":
        operand = expr["operand"]
        if operand.mnemonic == "expr_int":
            if spaced:
                raise _NoInfix(m)
            return str(-operand["value"])
        text = expr_text(operand, spaced)
        wrap = operand.mnemonic == "expr_neg" or operand.definition.infix is not None
        return f"-({text})" if wrap else f"-{text}"
    definition = expr.definition
    if definition.infix is None:
        raise _NoInfix(m)
    own = PRECEDENCE[definition.infix]
    lhs, rhs = expr["lhs"], expr["rhs"]
    left, right = expr_text(lhs, spaced), expr_text(rhs, spaced)
    if _level(lhs) < own:
        left = f"({left})"
    if _level(rhs) <= own:
        right = f"({right})"
    sep = f" {definition.infix} " if spaced else definition.infix
    return f"{left}{sep}{right}"


def _level(expr: "PreviewAttr") -> int:
    """The binding strength of an expression as an operand (atoms and negations: 3)."""
    infix = expr.definition.infix
    return PRECEDENCE[infix] if infix is not None else 3


# ---- types --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviewTypeDef:
    """One ``preview$`` type (or a builtin type only preview files may hold): mnemonic, tag
    and parameters."""

    mnemonic: str
    tag: int
    params: tuple[Param, ...] = ()


TYPES: tuple[PreviewTypeDef, ...] = (
    PreviewTypeDef("sym_t", 0xD1, (Param("expr", "expr"),)),
    # The shape is written with its concrete cache (each extent, or INT64_MIN where it is
    # symbolic): derived from the shape, so not held.
    PreviewTypeDef("fragment", 0xD2, (
        Param("shape", "shape"), Param("element_type", "type"),
        Param("memory_space", "enum", enum="memory_space"),
        Param("mem_layout", "layout", "mem_layout"), Param("fragmap", "layout", "fragmap"),
        Param("alignment", "expr", "alignment"))),
    PreviewTypeDef("Datatype", 0xD3),
    PreviewTypeDef("shape", 0xD4),
    PreviewTypeDef("string", 0xD5),
)
TYPE_BY_NAME: dict[str, PreviewTypeDef] = {d.mnemonic: d for d in TYPES}
TYPE_BY_TAG: dict[int, PreviewTypeDef] = {d.tag: d for d in TYPES}
#: Builtin types with a preview tag: MLIR's ``index`` and ``none``.
BUILTIN_TAGS: dict[int, Type] = {0xD6: BuiltinType("index"), 0xD7: BuiltinType("none")}
INDEX = BUILTIN_TAGS[0xD6]


@dataclass(frozen=True)
class PreviewType(Type):
    """``!cuda_tile<preview$mnemonic>`` (with ``<...>`` parameters where it has any)."""

    mnemonic: str
    values: tuple[Any, ...] = ()

    @property
    def definition(self) -> PreviewTypeDef:
        return TYPE_BY_NAME[self.mnemonic]

    def format(self, qualified: bool = True) -> str:
        text = f"preview${self.mnemonic}{self.body()}"
        return f"!cuda_tile<{text}>" if qualified else text

    @property
    def parametric_element(self) -> bool:
        """A `sym_t` stands for a not-yet-resolved element type (tile<preview$sym_t<N>>)."""
        return self.mnemonic == "sym_t"

    def body(self) -> str:
        if not self.values:
            return ""
        if self.mnemonic == "sym_t":            # the variable's bare name: sym_t<N>
            return f"<{self.values[0]['name']}>"
        if self.mnemonic == "fragment":
            return f"<{fragment_text(self)}>"
        return "<" + ", ".join(format_param(p.kind, v) for p, v in
                               zip(self.definition.params, self.values)) + ">"


DATATYPE, SHAPE, STRING = (PreviewType(m) for m in ("Datatype", "shape", "string"))
#: The types a `const_param` may have, in the reference's message order.
CONST_PARAM_TYPES = (INDEX, SHAPE, DATATYPE, STRING)


# ---- rules --------------------------------------------------------------------------------


def param_error(param: Param, value: Any) -> str | None:
    """The reference's message when `value` cannot be `param` (a parse-time rule)."""
    if param.kind == "expr" and not (isinstance(value, PreviewAttr) and
                                     value.definition.is_expr):
        return (f"expected attribute implementing '::mlir::cuda_tile::SymbolicExprAttr' for "
                f"parameter '{param.name}', got {value.format()}")
    if param.kind == "tuple":
        for element in value:
            if not isinstance(element, PreviewAttr) or not (
                    element.definition.is_expr or element.mnemonic == "symbolic_tuple"):
                return (f"expected attribute implementing '::mlir::cuda_tile::SymbolicExprAttr'"
                        f" for parameter '{param.name}', got {element.format()}")
    return None


def attr_error(attr: PreviewAttr) -> str | None:
    """The first of `attr`'s own rules it breaks (its parameters' kinds hold)."""
    m = attr.mnemonic
    if m == "expr_var" and "." in attr["name"]:
        return "expression variable name cannot contain '.'; dotted names are reserved for " \
               "builtins"
    if m == "expr_builtin":
        if not attr["name"].startswith("context."):
            return "builtin expression name must be in the 'context.' namespace"
        if attr["type"] != INDEX:
            return f"builtin expression result type must be index, got '{attr['type'].format()}'"
    if m == "const_param" and attr["type"] not in CONST_PARAM_TYPES:
        return ("constant parameter type must be index, !cuda_tile.preview$shape, "
                "!cuda_tile.preview$Datatype, or !cuda_tile.preview$string, got "
                f"'{attr['type'].format()}'")
    if m == "layout":
        return _layout_error(attr["shapes"], attr["strides"])
    return None


def _layout_error(shapes: tuple, strides: tuple) -> str | None:
    if len(shapes) != len(strides):
        return f"shapes and strides must have the same rank, got {len(shapes)} vs {len(strides)}"
    for mode, (shape, stride) in enumerate(zip(shapes, strides)):
        nested = (shape.mnemonic == "symbolic_tuple", stride.mnemonic == "symbolic_tuple")
        if nested[0] != nested[1]:
            kinds = ["a tuple" if n else "an integer" for n in nested]
            return (f"shapes and strides must have the same nesting structure, but mode {mode} "
                    f"is {kinds[0]} in shapes and {kinds[1]} in strides")
        if nested[0]:
            inner = _layout_error(shape["elements"], stride["elements"])
            if inner is not None:
                return inner
        elif shape.mnemonic == "expr_int" and shape["value"] <= 0:
            return f"shape extents must be positive, but mode {mode} is {shape['value']}"
    return None


def fragment_text(t: PreviewType) -> str:
    """``4x[N]xi32, local, mem_layout = <(4):(1)>, fragmap = <...>[, alignment = 4]``."""
    shape, element, space, mem_layout, fragmap, alignment = t.values
    dims = "".join((str(d["value"]) if d.mnemonic == "expr_int" else f"[{compact_text(d)}]")
                   + "x" for d in shape)
    text = (f"{dims}{element.format(qualified=False)}, {space}, mem_layout = "
            f"{mem_layout.body()}, fragmap = {fragmap.body()}")
    if not (alignment.mnemonic == "expr_int" and alignment["value"] == 1):
        text += f", alignment = {compact_text(alignment)}"
    return text


#: The concrete extent a symbolic dimension has in a fragment's shape cache.
DYNAMIC = -(1 << 63)


def concrete_shape(shape: tuple) -> tuple[int, ...]:
    """A fragment's concrete shape cache: integer extents, `DYNAMIC` for the others."""
    return tuple(d["value"] if d.mnemonic == "expr_int" else DYNAMIC for d in shape)


def type_error(t: PreviewType) -> str | None:
    """The first of a preview type's own rules it breaks."""
    if t.mnemonic == "sym_t" and t.values[0].mnemonic != "expr_var":
        return (f"symbolic type expression must be a SymbolicExprVarAttr, got "
                f"{t.values[0].format()}")
    if t.mnemonic == "fragment":
        return _fragment_error(t)
    return None


_INTEGER_VALUED = ("expr_int", "expr_var", "expr_builtin", "expr_add", "expr_sub", "expr_mul",
                   "expr_neg")


def _fragment_error(t: PreviewType) -> str | None:
    shape, _, _, mem_layout, fragmap, alignment = t.values
    for i, d in enumerate(shape):
        if d.mnemonic not in _INTEGER_VALUED or not _integer_valued(d):
            return f"shape dimension {i} must be an integer-valued expression"
        if d.mnemonic == "expr_int" and d["value"] <= 0:
            return f"fragment shape dimension {i} must be positive, got {d['value']}"
    if alignment.mnemonic == "expr_int":
        value = alignment["value"]
        if value <= 0:
            return "fragment alignment must be a positive number of elements"
        if value & (value - 1):
            return f"fragment alignment must be a power of two number of elements, got {value}"
    return None


def _integer_valued(expr: PreviewAttr) -> bool:
    if expr.mnemonic not in _INTEGER_VALUED:
        return False
    return all(_integer_valued(v) for p, v in zip(expr.definition.params, expr.values)
               if p.kind == "expr")


# ---- constant arguments of a call ---------------------------------------------------------


def _variables(value: Any) -> list[str]:
    """The symbolic variables `value` (an attribute, a type) refers to, in order."""
    if isinstance(value, PreviewAttr):
        if value.mnemonic == "expr_var":
            return [value["name"]]
        found: list[str] = []
        for param, v in zip(value.definition.params, value.values):
            items = v if param.kind == "tuple" else (v,)
            for item in items:
                found += _variables(item)
        return found
    if isinstance(value, PreviewType) and value.mnemonic == "sym_t":
        return [value.values[0]["name"]]
    element = getattr(value, "element_type", None)
    return _variables(element) if element is not None else []


def _integer_problem(expr: PreviewAttr) -> str | None:
    """Why `expr` is no integer expression a call may pass (None when it is one)."""
    m = expr.mnemonic
    if m == "symbolic_tuple":
        return "expected integer expression, got tuple"
    if m == "concrete_type":
        return f"expected integer expression, got {expr['type'].format()}"
    if m == "expr_div":
        return "unsupported expression in integer context"
    if not expr.definition.is_expr or m == "expr_const_str":
        return "unknown expression in integer context"
    for param, v in zip(expr.definition.params, expr.values):
        if param.kind == "expr":
            problem = _integer_problem(v)
            if problem is not None:
                return problem
    return None


def _spelled(value: PreviewAttr) -> str:
    """How a 'got ...' message names a constant argument."""
    if value.mnemonic == "concrete_type":
        return value["type"].format()
    if value.mnemonic == "expr_const_str":
        return quote_string(value["value"])
    return value.format()


def _shape_problem(shape: PreviewAttr) -> str | None:
    """Why a (possibly nested) tuple is no shape a call may pass."""
    if not shape["elements"]:
        return "statically known; empty tuple is not supported"
    for element in shape["elements"]:
        if element.mnemonic == "symbolic_tuple":
            problem = _shape_problem(element)
        else:
            problem = _integer_problem(element)
            problem = None if problem is None else f"a valid shape expression: {problem}"
        if problem is not None:
            return problem
    return None


def const_arg_error(arg: Any, param_type: Type) -> str | None:
    """Why `arg` cannot be passed for a constant parameter of `param_type` (the message's
    tail after "constant argument #i for constant parameter 'N' "), or None."""
    if not isinstance(arg, PreviewAttr):
        return None
    names = _variables(arg)
    if names:
        return f"must be statically known; references symbolic variable '{names[0]}'"
    if param_type == INDEX:
        problem = _integer_problem(arg)
        return None if problem is None else f"must be a valid integer expression: {problem}"
    if param_type == SHAPE:
        if arg.mnemonic != "symbolic_tuple":
            return (f"must be a valid shape expression: expected tuple expression, got "
                    f"{arg.format()}")
        problem = _shape_problem(arg)
        return None if problem is None else f"must be {problem}"
    if param_type == STRING and arg.mnemonic != "expr_const_str":
        return (f"must be a valid string expression: expected string expression, got "
                f"{_spelled(arg)}")
    if param_type == DATATYPE and arg.mnemonic != "concrete_type":
        return (f"must be a valid datatype expression: expected datatype expression, got "
                f"{_spelled(arg)}")
    return None
