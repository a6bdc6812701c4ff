# ruff: noqa: E501 (Tile IR text lines in these kernels are long by nature)
"""The text layer's fast paths give what their slow paths give, on the same input.

Each fast path (the one-regex scanner, the type memo, shared element types and enum
attributes, remembered float literals and constant names, the verifier's per-declaration
plan and specialised trait checks, the single-group shortcuts of the verifier, the IR and
the printer, the printer's resolved format steps, the stack-based walk) is run next to
the general code it stands in for, and the two results compared exactly: tokens, types,
bits, texts, messages and locations.
"""

from __future__ import annotations

import pytest

from tileir import ParseError, parse
from tileir.diagnostics import VerificationError
from tileir.ops.base import VARIADIC
from tileir.ops.naming import _float_integral_suffix
from tileir.syntax import printer
from tileir.syntax.floats import FloatLiteralError, parse_float_literal
from tileir.syntax.lexer import EOF, Kind, Lexer, LexError, Source
from tileir.syntax.type_parser import TypeParser
from tileir.types import FloatType
from tileir.verify import engine, traits

#: Every kind of token the one-regex scanner matches, and some it leaves to the rules.
TOKENS_TEXT = """\
// a comment
{-# x #-} %a#1 %0 ^bb0 !alias @sym @"quoted sym" #cuda_tile.div_by<16>
1.5 1.5e+3 2. 0x1F 17 ... -> :: : , = > < { } ( ) [ ] ? + - * |
tile<4x?x8xf32> "a \\"string\\"\\n" x4xf32 // trailing comment
"""

BENCH_BODY = """\
cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %bid, %by, %bz = get_tile_block_id : tile<i32>
    %c = constant <f32: 1.500000e+00> : tile<64xf32>
    %a = addf %c, %c rounding<zero> : tile<64xf32>
    %x = cmpf less_than ordered %a, %c : tile<64xf32> -> tile<64xi1>
    %s = select %x, %a, %c : tile<64xi1>, tile<64xf32>
    %t, %k = load_view_tko weak %pv[%bid] token = %tok : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %w = store_view_tko weak %s, %pv[%bid] token = %k : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
}
"""


def _rule_by_rule(text: str) -> list[tuple[Kind, str, int]]:
    """The tokens of `text` read by the lexer's general rules only (the slow path)."""
    lexer = Lexer(Source(text))
    tokens = []
    while True:
        token = lexer._general()
        if token.kind is EOF:
            return tokens
        tokens.append(tuple(token))


def _scanned(text: str) -> list[tuple[Kind, str, int]]:
    """The tokens of `text` as the parser reads them (the one-regex scanner first)."""
    lexer = Lexer(Source(text))
    tokens = []
    while (token := lexer.next()).kind is not EOF:
        tokens.append(tuple(token))
    return tokens


@pytest.mark.parametrize("text", [TOKENS_TEXT, BENCH_BODY], ids=["kinds", "kernel"])
def test_scanner_gives_the_rules_tokens(text: str) -> None:
    assert _scanned(text) == _rule_by_rule(text)
    assert len(_scanned(text)) > 40


@pytest.mark.parametrize("text, offset, message", [
    ("%a % ", 3, "invalid SSA name"), ("x @1", 3, "@ identifier expected to start with "
                                                 "letter or '_'"),
    ("a ` b", 2, "unexpected character"), ('a "unterminated', 15, "expected '\"' in string "
                                                                  "literal")])
def test_scanner_leaves_errors_to_the_rules(text: str, offset: int, message: str) -> None:
    for read in (_scanned, _rule_by_rule):
        with pytest.raises(LexError) as info:
            read(text)
        assert (info.value.offset, info.value.message) == (offset, message)


# ---- the type memo --------------------------------------------------


KNOWN = "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>"
VARIANTS = [
    "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>",      # the same: recalled
    "partition_view<tile=(64), tensor_view<?xf32, strides=[2]>>",      # one character
    "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>",       # one '>' short
    "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>x",     # extended
    "partition_view<tile=(64),\n  tensor_view<?xf32, strides=[1]>>",   # split across lines
    "partition_view<tile=(64), // c\n tensor_view<?xf32, strides=[1]>>",  # a comment inside
    "partition_view<tile=(64), tensor_view<?xf33, strides=[1]>>",      # bad element type
    "partition_view<tile=(64), tensor_view<?xf32, strides=[1",         # ends inside
]


def _type_or_error(parser: TypeParser) -> object:
    """The next type and where the parser stands after it, or the error's text."""
    try:
        parsed = parser.parse_cuda_tile_type()
    except ParseError as exc:
        return [str(d) for d in exc.diagnostics]
    return parsed, parser.token.offset, parser.token.spelling


@pytest.mark.parametrize("variant", VARIANTS)
def test_memoized_type_then_a_variant(variant: str) -> None:
    """After `KNOWN` was parsed (and remembered), `variant` reads exactly as a parser that
    never saw `KNOWN` reads it at the same offset."""
    text = KNOWN + " " + variant + " ,"
    warm = TypeParser(text, "t.mlir")
    first = warm.parse_cuda_tile_type()
    cold = TypeParser(" " * (len(KNOWN) + 1) + variant + " ,", "t.mlir")
    assert _type_or_error(warm) == _type_or_error(cold)
    assert str(first) == "!cuda_tile." + KNOWN


# ---- remembered pure conversions --------------------------------------------------


@pytest.mark.parametrize("name", ["f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2"])
def test_remembered_float_literals(name: str) -> None:
    t = FloatType(name)
    for text in ("1.5", "-2.0e-3", "1.500000e+00", "0x7C00", "3.4028234663852886e+38"):
        try:
            expected: object = parse_float_literal.__wrapped__(text, t)
        except FloatLiteralError as exc:
            expected = str(exc)
        for _ in range(2):  # computed, then remembered
            try:
                assert parse_float_literal(text, t) == expected
            except FloatLiteralError as exc:
                assert str(exc) == expected
    with pytest.raises(FloatLiteralError, match="unexpected decimal integer literal"):
        parse_float_literal("12", t)
    with pytest.raises(FloatLiteralError, match="unexpected decimal integer literal"):
        parse_float_literal("12", t)


def test_remembered_constant_name_suffixes() -> None:
    f32 = FloatType("f32")
    for bits in (0x3FC00000, 0x40000000, 0x80000000, 0x7FC00000, 0x4F800000, 0):
        assert _float_integral_suffix(bits, f32) == _float_integral_suffix.__wrapped__(bits, f32)
    assert _float_integral_suffix(0x40000000, f32) == "2"
    assert _float_integral_suffix(0x80000000, f32) is None   # negative zero


# ---- the verifier's plan and the single-group shortcuts -----------------------------------


def _slow_type_of(op, name: str) -> object:
    """`traits._type_of` without its single-group shortcut (nor `values_named`'s)."""
    decl = op.opdef.value_def(name)
    if decl is None:
        attr = op.attributes.get(name)
        return getattr(attr, "type", traits._ABSENT) if attr is not None else traits._ABSENT
    group = _split_group(op, name)
    if decl.arity == VARIADIC:
        return tuple(v.type for v in group)
    return group[0].type if group else traits._ABSENT


def _split_group(op, name: str) -> list:
    """Group `name` of `op`'s operands or results as the whole split cuts it."""
    is_operand, index, _ = op.opdef.value_position(name)
    split = op.opdef.split_operands if is_operand else op.opdef.split_results
    return split(op)[index]


def _ops():
    """Every op of the kernel above (load and store have optional and variadic groups)."""
    return list(parse(BENCH_BODY).walk())


def test_type_of_shortcut_matches_the_groups() -> None:
    checked = 0
    for op in _ops():
        if op.opdef is None:
            continue
        for decl in op.opdef.operands + op.opdef.results:
            assert traits._type_of(op, decl.name) == _slow_type_of(op, decl.name)
            checked += 1
    assert checked > 20


def test_printer_types_of_shortcut_matches_the_groups() -> None:
    """`printer.types_of` and `Operation.values_named` (each with a single-group
    shortcut) give the groups of the whole split."""
    checked = 0
    for op in _ops():
        if op.opdef is None:
            continue
        for decl in op.opdef.operands + op.opdef.results:
            group = _split_group(op, decl.name)
            assert op.values_named(decl.name) == group
            assert printer.types_of(op, decl.name) == [v.type for v in group]
            checked += 1
    assert checked > 20


def _failure(step, *args) -> str | None:
    """The message `step(*args)` fails with, or None."""
    try:
        step(*args)
    except engine.Failure as failure:
        return failure.diagnostic.message
    return None


def test_single_values_step_matches_the_grouped_check() -> None:
    module = parse(BENCH_BODY)
    addf = next(op for op in module.walk() if op.name == "cuda_tile.addf")
    select = next(op for op in module.walk() if op.name == "cuda_tile.select")
    addf.operands[1] = select.operands[0]                  # an i1 tile into addf
    for op in (addf, select):
        opdef = op.opdef
        for what, declared, split in (("operand", opdef.operands, opdef.split_operands),
                                      ("result", opdef.results, opdef.split_results)):
            checks = tuple((d.constraint.accepts, d.constraint) for d in declared)
            fast = _failure(engine._single_values_step, op, (what, checks))
            slow = _failure(engine._check_values, op, what, declared, split(op))
            assert fast == slow
    checks = tuple((d.constraint.accepts, d.constraint) for d in addf.opdef.operands)
    assert _failure(engine._single_values_step, addf, ("operand", checks)) == (
        "'cuda_tile.addf' op operand #1 must be tile of f16 or bf16 or f32 or f64 values, but "
        "got '!cuda_tile.tile<64xi1>'")


def test_plan_follows_a_changed_declaration() -> None:
    """The verifier's plan is kept per declaration and dropped when a field changes."""
    module = parse(BENCH_BODY)
    module.verify()
    addf = next(op for op in module.walk() if op.name == "cuda_tile.addf")
    opdef = addf.opdef
    plan = opdef.derived["verify"]
    saved = opdef.trait_list
    try:
        opdef.trait_list = saved + (("SameOperandsShape", ()),)
        assert "verify" not in opdef.derived
        module.verify()
        assert opdef.derived["verify"] is not plan
    finally:
        opdef.trait_list = saved


def test_use_before_definition_in_the_same_block() -> None:
    """The dominance shortcut for values of the same block reports as the general walk."""
    text = BENCH_BODY.replace("    %c = constant", "    %z = addf %a, %a : tile<64xf32>\n"
                              "    %c = constant")
    with pytest.raises(VerificationError) as info:
        parse(text, "t.mlir")
    found = [(d.location.line, d.location.column, d.message)
             for diag in info.value.diagnostics for d in (diag, *diag.notes)]
    assert found == [(7, 10, "operand #0 does not dominate this use"),
                     (9, 10, "operand defined here (op in the same block)")]


def test_value_group_matches_the_split() -> None:
    """One group cut alone (`OpDef.value_group`) is that group of the whole split, with
    segment sizes that fit and with ones that do not (then the declaration decides)."""
    from tileir.attributes import DenseArrayAttr
    from tileir.types import IntegerType
    ops = [op for op in _ops() if op.opdef is not None and op.opdef.shape.operand_variable]
    assert {op.name for op in ops} >= {"cuda_tile.load_view_tko", "cuda_tile.store_view_tko"}
    for op in ops:
        opdef = op.opdef
        segments = op.attributes.get("operandSegmentSizes")
        for sizes in (segments, DenseArrayAttr(IntegerType(32), (1,) * len(opdef.operands)),
                      None):
            if sizes is None:
                op.attributes.pop("operandSegmentSizes", None)
            else:
                op.attributes["operandSegmentSizes"] = sizes
            groups = opdef.split_operands(op)
            for index, decl in enumerate(opdef.operands):
                assert opdef.value_group(op, True, index) == groups[index]
                assert op.values_named(decl.name) == groups[index]
            for index, decl in enumerate(opdef.results):
                assert opdef.value_group(op, False, index) == opdef.split_results(op)[index]


def test_enum_attributes_are_shared_per_case() -> None:
    from tileir.enums import RoundingMode, Signedness
    from tileir.syntax.base import enum_attr
    assert enum_attr(RoundingMode.ZERO) is enum_attr(RoundingMode.ZERO)
    assert enum_attr(RoundingMode.ZERO).value is RoundingMode.ZERO
    first = next(iter(Signedness))
    twin = RoundingMode(int(first))          # the same number in another enum
    assert enum_attr(first).value is first and enum_attr(twin).value is twin


def _format_vars(elements) -> list[str]:
    """The names of the ``$name`` variables of a format, optional groups included."""
    from tileir.syntax.format import Optional_, Var
    names = []
    for element in elements:
        if isinstance(element, Var):
            names.append(element.name)
        elif isinstance(element, Optional_):
            names += _format_vars(element.elements)
    return names


def test_resolved_print_steps_print_as_the_printer_decides() -> None:
    """A ``$name`` resolved when the format is compiled (attribute or operand group)
    prints what the printer's general `_var` prints for it."""
    from tileir.syntax.compiled import VAR, _var_print_step
    module = parse(BENCH_BODY)
    p = printer.Printer()
    p.names = printer.SSANames(module, False)
    resolved = 0
    for op in module.walk():
        if op.opdef is None or op.opdef.custom is not None or op.opdef.parsed_format is None:
            continue
        for name in _format_vars(op.opdef.parsed_format):
            kind, _, argument = _var_print_step(name, op.opdef, "")
            if kind != VAR:
                resolved += 1
                assert printer._SPACED[kind](p, op, argument) == p._var(op, name)
    assert resolved >= 9


def test_plans_follow_a_changed_format() -> None:
    """The parse and print plans are kept with the declaration and rebuilt when its
    format changes."""
    module = parse(BENCH_BODY)
    text = module.format()
    addf = next(op for op in module.walk() if op.name == "cuda_tile.addf").opdef
    saved = addf.parsed_format
    assert "print plan" in addf.derived and "parse plan" in addf.derived
    try:
        addf.parsed_format = None       # parsed again from `format` on next use
        assert "print plan" not in addf.derived
        assert module.format() == text and parse(text).format() == text
        assert addf.derived["print plan"][0] is addf.parsed_format
    finally:
        addf.parsed_format = saved


def _recursive_walk(op, post_order: bool):
    """`Operation.walk` as a recursive generator (the general form it stands for)."""
    if not post_order:
        yield op
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield from _recursive_walk(child, post_order)
    if post_order:
        yield op


@pytest.mark.parametrize("kernel", ["flash_attention", "custom_reduce", "while_break_print",
                                    "cumsum"])
def test_walk_orders_match_the_recursive_walk(kernel: str) -> None:
    from pathlib import Path

    import tileir
    path = Path(tileir.__file__).parent / "examples" / "kernels" / f"{kernel}.mlir"
    module = parse(path.read_text())
    for post_order in (False, True):
        walked = list(module.walk(post_order))
        assert walked == list(_recursive_walk(module, post_order))
        assert len(walked) > 10 and any(op.regions for op in walked[1:-1])
    for op in module.walk():       # the walk reads regions as it reaches them
        if op.name == "cuda_tile.entry":
            op.regions[0].blocks[0].operations[:] = []
    assert [op.name for op in module.walk()] == ["cuda_tile.module", "cuda_tile.entry"]


def test_compiled_type_match_traits_report_as_the_general_check() -> None:
    """``AllTypesMatch`` and kin, specialised to a declaration of single groups, pass and
    fail as the general check does: as parsed, with an operand of another type, and with
    the results gone (absent values)."""
    compiled = failed = 0
    for mutate in (None, "operand", "results"):
        ops = {op.name: op for op in parse(BENCH_BODY).walk()}
        i1_tile = ops["cuda_tile.cmpf"].results[0]
        for name in ("cuda_tile.addf", "cuda_tile.select", "cuda_tile.cmpf",
                     "cuda_tile.constant"):
            op = ops[name]
            if mutate == "operand" and op.operands:
                op.operands[-1] = i1_tile
            elif mutate == "results":
                op.results[:] = []
            for trait, args in op.opdef.trait_list:
                if trait not in traits.PREDICATES:
                    continue
                general = traits.PREDICATES[trait]
                step, argument = traits.compiled(traits.PREDICATES, trait, args, op.opdef)
                compiled += step is not general
                expected = _failure(general, op, args)
                failed += expected is not None
                assert _failure(step, op, argument) == expected
    assert compiled >= 12 and failed >= 3


def test_parsed_element_types_are_the_shared_ones() -> None:
    """A parsed element type is the object `tileir.types` defines, equal to the one the
    general constructor builds (and a type the spec does not list is still built)."""
    from tileir import types
    from tileir.syntax.type_parser import parse_type
    for spelling in ("f32", "bf16", "i1", "i32", "f8E4M3FN", "tf32"):
        tile = parse_type(f"tile<4x{spelling}>")
        fresh = types.IntegerType(int(spelling[1:])) if spelling[0] == "i" \
            else types.FloatType(spelling)
        shared = next(t for t in types.ELEMENT_INFO if t == fresh)
        assert tile.element_type == fresh and tile.element_type is shared
    assert TypeParser("i7", "t").parse_type() == types.IntegerType(7)


# ---- whole-op readers --------------------------------------------------

#: The kernel's ops a second time, renamed: the first of each kind is read token by token
#: (which teaches the parser the op's name and the type memo its types), these by the
#: readers; the mutations below change only this part.
SECOND = """\
    %c2 = constant <f32: 1.500000e+00> : tile<64xf32>
    %a2 = addf %c2, %c2 rounding<zero> : tile<64xf32>
    %m2 = mulf %a2, %c2 flush_to_zero : tile<64xf32>
    %x2 = cmpf less_than ordered %a2, %c2 : tile<64xf32> -> tile<64xi1>
    %s2 = select %x2, %a2, %c2 : tile<64xi1>, tile<64xf32>
    %t2, %k2 = load_view_tko weak %pv[%bid] token = %tok : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %e2 = exp %t2 rounding<approx> : tile<64xf32>
    %w2 = store_view_tko weak %e2, %pv[%bid] token = %k2 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
"""
TWICE = BENCH_BODY.replace("  }\n}\n", SECOND + "  }\n}\n")
#: (text in `SECOND`, its replacement): ops the readers accept, ops they decline, and
#: errors found by the token-by-token reader, by the resolution after a read op, and at
#: the end of the text.
MUTATIONS = [
    ("rounding<zero>", "rounding<zeroo>"), ("rounding<zero>", "rounding<approx>"),
    ("rounding<zero>", "rounding <zero"), ("rounding<zero>", "rounding<\n zero >"),
    ("rounding<zero>", "rounding<zero> flush_to_zero"), ("rounding<zero>", "flush_to_zero"),
    ("rounding<zero>", "flush_to_zero rounding<zero>"), ("rounding<zero>", "{a = 1}"),
    ("rounding<zero>", "// c\n"), ("rounding<zero>", "rounding<zero>x"),
    ("addf %c2, %c2", "addf %c2, %s"), ("addf %c2, %c2", "addf %c2, %x"),
    ("addf %c2, %c2", "addf %c2, %zz"), ("addf %c2, %c2", "addf %c2#1, %c2"),
    ("addf %c2, %c2", "addf %c2,%c2"), ("addf %c2, %c2", "addf %c2 %c2"),
    ("%a2 = addf", "%a2:2 = addf"), ("%a2 = addf", "%a = addf"),
    ("%a2 = addf", "%a2 = cuda_tile.addf"), ("%a2 = addf", "%a2, %b2 = addf"),
    ("less_than ordered", "less_than orderedd"), ("less_than ordered", "lesss_than ordered"),
    ("less_than ordered", "ordered less_than"), ("-> tile<64xi1>", "-> tile<64xi8>"),
    ("-> tile<64xi1>", "->tile<64xi1>"), ("-> tile<64xi1>", ":: tile<64xi1>"),
    ("<f32: 1.500000e+00>", "<f32: -1.5>"), ("<f32: 1.500000e+00>", "<f32: - 2.5e-3>"),
    ("<f32: 1.500000e+00>", "<f32: 1>"), ("<f32: 1.500000e+00>", "<f32: 0x3FC00000>"),
    ("<f32: 1.500000e+00>", "<i32: 7>"), ("<f32: 1.500000e+00>", "<f32: 1e5>"),
    ("<f32: 1.500000e+00>", "<f32:: 1.5>"), ("<f32: 1.500000e+00>", "<f32: [1.5]>"),
    ("<f32: 1.500000e+00>", "<f32: 1.5e99>"), ("<f32: 1.500000e+00>", "<tile<f32>: 1.5>"),
    ("weak %pv[%bid] token", "relaxed device %pv[%bid] token"),
    ("weak %pv[%bid] token", "weak device %pv[%bid] token"),
    ("weak %pv[%bid] token", "relaxed devicee %pv[%bid] token"),
    ("weak %pv[%bid] token", "weakk %pv[%bid] token"),
    ("weak %pv[%bid] token", "weak %pv[%bid, %bid] token"),
    ("weak %pv[%bid] token", "weak %pv[] token"),
    ("weak %pv[%bid] token", "weak %pv[%bid,] token"),
    ("weak %pv[%bid] token", "weak %pv[%bid] inbounds = [true] token"),
    ("token = %tok :", ":"), ("token = %tok :", "token = %zz :"),
    ("token = %tok :", "token = %x2 :"), ("token = %tok :", "token %tok :"),
    ("token = %tok :", "token = %tok attributes {a} :"),
    (">>, tile<i32> -> tile<64xf32>, token", ">> -> tile<64xf32>, token"),
    (">>, tile<i32> -> tile<64xf32>, token", ">>, tile<i32>, tile<i32> -> tile<64xf32>, token"),
    (">>, tile<i32> -> tile<64xf32>, token", ">>, tile<i64> -> tile<64xf32>, token"),
    (">>, tile<i32> -> tile<64xf32>, token", ">>, tile<i32> -> tile<64xf32>"),
    ("store_view_tko weak %e2, %pv", "store_view_tko relaxed tl_blk %e2, %pv"),
    ("store_view_tko weak %e2, %pv", "store_view_tko weak %e2 %pv"),
    ("store_view_tko weak %e2, %pv", "store_view_tko weak %x2, %pv"),
    ("%w2 = store_view_tko", "%w2, %w3 = store_view_tko"),
    ("%w2 = store_view_tko", "store_view_tko"),
    ("-> token\n", "-> token loc(\"here\":3:4)\n"), ("-> token\n", "-> token `\n"),
    ("-> token\n", "-> tokenx\n"), ("-> token\n", "-> token // end\n"),
    ("rounding<approx> : tile<64xf32>", "rounding<approx> : tile<64xf32> loc(#l)"),
    ("%e2 = exp %t2", "%e2 = exp %t2#0"), ("%e2 = exp %t2", "%e2 = \"cuda_tile.exp\"(%t2)"),
]


def _parse_outcome(text: str, enabled: bool) -> object:
    """The module read from `text` (generic text with locations), or its diagnostics
    rendered with their notes, with the whole-op readers on or off."""
    from tileir.syntax import fast
    saved, fast.ENABLED = fast.ENABLED, enabled
    try:
        module = parse(text, "t.mlir", verify=False)
    except ParseError as exc:
        return [d.render({"t.mlir": text}) for d in exc.diagnostics]
    finally:
        fast.ENABLED = saved
    return module.format(generic=True, debuginfo=True)


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the ops the whole-op readers read (a spy on `OpParser._read_whole`)."""
    from tileir.syntax.parser import OpParser
    names: list[str] = []
    original = OpParser._read_whole

    def spy(self, default_dialect: str):
        read = original(self, default_dialect)
        if read is not None:
            names.append(read[0].name)
        return read
    monkeypatch.setattr(OpParser, "_read_whole", spy)
    return names


def test_whole_op_readers_read_the_kernel_ops(taken: list[str]) -> None:
    """The readers take the second copy's ops of kinds read before (the first of a kind is
    read token by token), and the module is the one read token by token, locations
    included."""
    assert _parse_outcome(TWICE, True) == _parse_outcome(TWICE, False)
    # (mulf and exp are new in the second copy: their first is read token by token)
    assert taken == ["cuda_tile.constant", "cuda_tile.addf", "cuda_tile.cmpf",
                     "cuda_tile.select", "cuda_tile.load_view_tko", "cuda_tile.store_view_tko"]


@pytest.mark.parametrize("old, new", MUTATIONS)
def test_whole_op_readers_then_a_mutation(old: str, new: str) -> None:
    """A changed op reads (or fails, message, location and notes) exactly as token by
    token."""
    assert old in SECOND
    text = TWICE.replace(SECOND, SECOND.replace(old, new, 1))
    assert _parse_outcome(text, True) == _parse_outcome(text, False)


@pytest.mark.parametrize("kernel, read", [
    ("flash_attention", 19), ("layernorm", 13), ("softmax", 2), ("matmul_f32", 1),
    ("cumsum", 0), ("int_bits", 34), ("math_ops", 31), ("shape_ops", 11)])
def test_whole_op_readers_on_example_kernels(kernel: str, read: int,
                                             taken: list[str]) -> None:
    """Each example kernel reads the same with the readers as token by token, the readers
    reading `read` of its ops (in cumsum none: only the token-by-token reader is compared)."""
    from pathlib import Path

    import tileir
    path = Path(tileir.__file__).parent / "examples" / "kernels" / f"{kernel}.mlir"
    text = path.read_text(encoding="utf-8")
    assert _parse_outcome(text, True) == _parse_outcome(text, False)
    assert len(taken) == read


def test_whole_op_reader_dump_is_readable() -> None:
    """`fast.describe` prints what a format compiled to: patterns, actions, memo types."""
    from tileir.ops import registry
    from tileir.syntax import fast
    parse(BENCH_BODY)
    text = fast.describe(registry.lookup("cuda_tile.addf"))
    assert text.splitlines()[0] == "cuda_tile.addf:"
    assert "then rounding $rounding_mode" in text and "type of $result from the memo" in text
    assert "no reader" in fast.describe(registry.lookup("cuda_tile.for"))
    assert "weak %v[%i]" in fast.describe(registry.lookup("cuda_tile.load_view_tko"))


def test_type_plans_match_the_general_resolution() -> None:
    """For every declarative op with a reader and a type plan, the plan gives each operand
    and result the type the general resolution (`_resolve_groups`, `_result_types`) gives
    it, from the same given types (one distinct marker type per group the text types)."""
    from tileir.ops.registry import all_ops
    from tileir.syntax import fast
    from tileir.syntax.format import parse_format
    from tileir.syntax.parser import OpParser, OpState, Use
    from tileir.types import IntegerType

    class Marked:
        """A resolved value: the type it was resolved with."""

        def __init__(self, type_: object) -> None:
            self.type = type_

    parser = OpParser("")
    parser.resolve = lambda use, expected: Marked(expected)  # type: ignore[method-assign]
    planned = 0
    for opdef in all_ops():
        if opdef.custom is not None or opdef.format is None:
            continue
        if opdef.parsed_format is None:
            opdef.parsed_format = parse_format(opdef.format)
        reader = fast.reader_for(opdef)
        if reader is None or reader.types is None:
            continue
        typed = [s.type_of for s in reader.segments if s.type_of and s.type_of[0] != " "]
        markers = {name: IntegerType(100 + i) for i, name in enumerate(typed)}

        def state() -> OpState:
            made = OpState(opdef, 0, name=opdef.full_name)
            made.uses = {o.name: [Use(o.name, 0, 0)] for o in opdef.operands}
            made.types = {name: [marker] for name, marker in markers.items()}
            return made
        general = state()
        groups = parser._resolve_groups(general)
        expected = ([v.type for g in groups for v in g], parser._result_types(general, groups))
        fast_state = state()
        parser._resolve_planned(fast_state, reader.types)
        assert ([v.type for v in fast_state.resolved_operands], fast_state.result_types) \
            == expected, opdef.full_name
        planned += 1
    assert planned >= 50


INTEGER_TWICE = """\
cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %a = addi %n, %n overflow<no_wrap> : tile<i32>
    %b = muli %a, %n : tile<i32>
    %c = divi %b, %a signed rounding<zero> : tile<i32>
    %a2 = addi %n, %n overflow<no_signed_wrap> : tile<i32>
    %b2 = muli %a2, %n overflow<none> : tile<i32>
    %c2 = divi %b2, %a2 unsigned : tile<i32>
  }
}
"""


@pytest.mark.parametrize("old, new", [
    ("", ""), ("overflow<no_signed_wrap>", "overflow<bad>"),
    ("overflow<no_signed_wrap>", "overflow no_wrap"), ("overflow<no_signed_wrap>", "overflow<>"),
    ("overflow<no_signed_wrap>", "overflow < no_wrap >"), ("overflow<none>", "overflow<x"),
    ("overflow<none>", "<none>"), ("divi %b2, %a2 unsigned", "divi %b2, %a2 signed rounding<x>"),
    ("divi %b2, %a2 unsigned", "divi %b2, %a2 unsigned rounding<positive_inf>"),
    ("divi %b2, %a2 unsigned", "divi %b2, %a2"), ("divi %b2, %a2 unsigned", "divi %b2, %a2 uns"),
])
def test_whole_op_readers_on_enum_attributes(old: str, new: str) -> None:
    """Enums in ``<...>`` after a keyword (``overflow<no_wrap>``) read as token by token."""
    second = INTEGER_TWICE.split("%a2 = ")[1]
    text = INTEGER_TWICE.replace(second, second.replace(old, new, 1))
    assert _parse_outcome(text, True) == _parse_outcome(text, False)


def test_whole_op_readers_read_the_enum_ops(taken: list[str]) -> None:
    """The readers take the second ``addi``, ``muli`` and ``divi`` above (so the mutations
    of them compare the readers with the token-by-token reader)."""
    assert _parse_outcome(INTEGER_TWICE, True) == _parse_outcome(INTEGER_TWICE, False)
    assert taken == ["cuda_tile.addi", "cuda_tile.muli", "cuda_tile.divi"]
