"""The verifier never crashes: any IR the parser accepts gets diagnostics, never a Python
exception.

Two fuzzers feed it.  The generator writes one op of every registered kind in MLIR's generic
form with operands, results, attributes and regions drawn at random from pools of types and
attributes of every kind (usually ones meeting the op's declared constraints, so that checks
deep in the op's verifier run), inside a function that accepts them all.  The mutator takes
documents (the valid hand-written modules below, and the suite's documents, positive and
negative, when ../shared is present), mutates the IR once or a few times (an attribute
replaced by one of another kind or dropped, an operand dropped or duplicated, a value's type
changed, a result added or dropped, a region or block added or dropped, a terminator or a
block's ops removed, an op moved into another block, a location swapped), prints it in
generic form and parses the text back.  A ParseError is fine; `verify` is called directly,
so any exception other than its diagnostics fails the test.

``python tests/verify/test_verify_robust.py N`` runs a longer campaign of N cases per
fuzzer and prints every distinct crash.
"""

from __future__ import annotations

import random
import sys
import traceback
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tileir.attributes import ENUM_MNEMONICS, Attribute, EnumAttr, IntegerAttr, TypeAttr
from tileir.diagnostics import ParseError, Severity
from tileir.enums import (AtomicRMWMode, ComparisonOrdering, ComparisonPredicate,
                          IntegerOverflow, MemoryOrderingSemantics, MemoryScope, RoundingMode,
                          Signedness, SymbolVisibility)
from tileir.ir import Block, Operation, Region
from tileir.ops.registry import all_ops
from tileir.syntax.parser import parse_document
from tileir.syntax.printer import Printer
from tileir.types import IntegerType
from tileir.verify import Options, verify
from tileir.verify.attr_kinds import constraint_of

# ---- pools --------------------------------------------------------------------------------

#: Types of every kind: tiles of several ranks and element types, pointers, views, tokens,
#: builtin scalars.
TYPES: tuple[str, ...] = (
    "!cuda_tile.tile<f32>", "!cuda_tile.tile<4xf32>", "!cuda_tile.tile<2x4xf32>",
    "!cuda_tile.tile<4x2xf32>", "!cuda_tile.tile<2x2x2xf32>", "!cuda_tile.tile<i1>",
    "!cuda_tile.tile<4xi1>", "!cuda_tile.tile<i32>", "!cuda_tile.tile<4xi32>",
    "!cuda_tile.tile<2x4xi32>", "!cuda_tile.tile<i64>", "!cuda_tile.tile<4xi64>",
    "!cuda_tile.tile<4x8xi8>", "!cuda_tile.tile<8x4xi8>", "!cuda_tile.tile<4xf16>",
    "!cuda_tile.tile<f64>", "!cuda_tile.tile<4xf8E4M3FN>", "!cuda_tile.tile<4xi4>",
    "!cuda_tile.tile<!cuda_tile.ptr<f32>>", "!cuda_tile.tile<4x!cuda_tile.ptr<f32>>",
    "!cuda_tile.tile<2x4x!cuda_tile.ptr<i32>>", "!cuda_tile.ptr<f32>", "!cuda_tile.token",
    "!cuda_tile.tensor_view<f32>", "!cuda_tile.tensor_view<8x4xf32, strides=[4,1]>",
    "!cuda_tile.tensor_view<?x4xf32, strides=[4,1]>",
    "!cuda_tile.partition_view<tile=(2x4), !cuda_tile.tensor_view<8x4xf32, strides=[4,1]>>",
    "!cuda_tile.partition_view<tile=(4), !cuda_tile.tensor_view<?xf32, strides=[1]>>",
    "!cuda_tile.strided_view<tile=(2x2), traversal_strides=[2,1], "
    "!cuda_tile.tensor_view<8x4xf32, strides=[4,1]>>",
    "!cuda_tile.tile<4x4xf32>", "!cuda_tile.tile<4x4xi32>", "!cuda_tile.tile<2x4x8xf32>",
    "!cuda_tile.tile<4x32xf8E4M3FN>", "!cuda_tile.tile<32x4xf8E4M3FN>",
    "!cuda_tile.tile<4x32xf4E2M1FN>", "!cuda_tile.tile<4x1xf8E8M0FNU>",
    "!cuda_tile.tile<1x4xf8E8M0FNU>", "!cuda_tile.tile<4x2xf8E4M3FN>",
    "!cuda_tile.tile<2x4xf8E4M3FN>",
    "i32", "f32", "i1", "index",
)

#: Attribute values of every kind, spelled as the generic form writes them.
ATTRS: tuple[str, ...] = (
    "0 : i32", "-1 : i32", "3 : i32", "5 : i64", "-2 : i64", "7 : i8", "100 : i16", "true",
    "false", "1.5 : f32", "2.0 : f64", '"s"', '"sm_100"', "unit", "[]", "[0 : i32]",
    "[1 : i64, 2 : i64]", '["a", 1 : i32]', "[{}]", "[{a = 1 : i32}]",
    "array<i32: 1, 0>", "array<i32: 0>", "array<i32>", "array<i64: 1, 0>", "array<i32: 5, -1>",
    "dense<1.000000e+00> : !cuda_tile.tile<4xf32>", "dense<1> : !cuda_tile.tile<i32>",
    "dense<[1, 2]> : !cuda_tile.tile<2xi64>", "dense<true> : !cuda_tile.tile<i1>",
    "#cuda_tile.rounding<zero>", "#cuda_tile.rounding<approx>",
    "#cuda_tile.signedness<signed>", "#cuda_tile.signedness<unsigned>",
    "#cuda_tile.overflow<no_wrap>", "#cuda_tile.comparison_predicate<equal>",
    "#cuda_tile.comparison_ordering<ordered>", "#cuda_tile.symbol_visibility<private>",
    "#cuda_tile.div_by<4>", "#cuda_tile.div_by<1, every 4 along 0>",
    "#cuda_tile.bounded<0, 4>", "#cuda_tile.same_elements<[1]>",
    "#cuda_tile.optimization_hints<sm_100 = {num_cta_in_cga = 2}>",
    "#cuda_tile.optimization_hints<sm_120 = {}>", "@f", "@nowhere",
    "!cuda_tile.tile<4xf32>", "!cuda_tile.token", "() -> ()", "(!cuda_tile.tile<f32>) -> ()",
    "{}", "{a = 1 : i32}", "42 : index",
)

#: Attribute names that are not declared by any op, and a few that are by many.
EXTRA_ATTR_NAMES = ("dim", "rounding_mode", "signedness", "overflow", "value", "mode",
                    "memory_scope", "memory_ordering_semantics", "flush_to_zero",
                    "optimization_hints", "operandSegmentSizes", "identities", "permutation",
                    "sym_name", "function_type", "name", "predicate", "bogus")

#: Enum types whose cases the IR mutator also puts in any attribute.
ENUMS = (AtomicRMWMode, ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
         MemoryOrderingSemantics, MemoryScope, RoundingMode, Signedness, SymbolVisibility)


def _attr_objects() -> tuple[Attribute, ...]:
    """Attributes of every kind: each pool text parsed, enum cases, type attributes."""
    enums = tuple(EnumAttr(member) for enum in ENUMS for member in list(enum)[:2])
    return enums + tuple(_parsed_attrs(ATTRS)) + tuple(
        TypeAttr(t) for t in _types()[:4]) + (IntegerAttr(3, IntegerType(32)),)


def _types() -> list:
    """`TYPES`, parsed."""
    from tileir.syntax import parse_type
    return [parse_type(text) for text in TYPES]


# ---- seeds --------------------------------------------------------------------------------

#: Valid modules written for this test, covering the common op families (custom syntax).
SEEDS: tuple[str, ...] = (
    """cuda_tile.module @m {
      cuda_tile.global @g <f32: [1.0, 2.0]> : tile<2xf32>
      cuda_tile.entry @k(%p: tile<ptr<f32>>, %n: tile<i32>) {
        %a = cuda_tile.constant <f32: 1.0> : tile<4xf32>
        %b = cuda_tile.addf %a, %a rounding<nearest_even> : tile<4xf32>
        %c = cuda_tile.mulf %b, %a rounding<zero> flush_to_zero : tile<4xf32>
        %d = cuda_tile.negf %c : tile<4xf32>
        %e = cuda_tile.reshape %d : tile<4xf32> -> tile<2x2xf32>
        %f = cuda_tile.permute %e [1, 0] : tile<2x2xf32> -> tile<2x2xf32>
        %g = cuda_tile.cmpf greater_than ordered %a, %b : tile<4xf32> -> tile<4xi1>
        %h = cuda_tile.select %g, %a, %b : tile<4xi1>, tile<4xf32>
        %i = cuda_tile.constant <i32: 3> : tile<4xi32>
        %j = cuda_tile.addi %i, %i overflow<no_wrap> : tile<4xi32>
        %k = cuda_tile.divi %j, %i signed rounding<zero> : tile<4xi32>
        %l = cuda_tile.cmpi less_than %j, %k, signed : tile<4xi32> -> tile<4xi1>
        %m = cuda_tile.exti %i signed : tile<4xi32> -> tile<4xi64>
        %o = cuda_tile.itof %i signed : tile<4xi32> -> tile<4xf32>
        %q = cuda_tile.ftof %o : tile<4xf32> -> tile<4xf16>
        %n1 = cuda_tile.reshape %n : tile<i32> -> tile<1xi32>
        %r = cuda_tile.broadcast %n1 : tile<1xi32> -> tile<4xi32>
        %s = cuda_tile.iota : tile<4xi32>
        %t = cuda_tile.offset %p, %n : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
        cuda_tile.return
      }
    }""",
    """cuda_tile.module @m {
      cuda_tile.entry @k(%p: tile<ptr<f32>>) {
        %v = cuda_tile.make_tensor_view %p, shape = [8, 4], strides = [4, 1]
            : tensor_view<8x4xf32, strides=[4,1]>
        %pv = cuda_tile.make_partition_view %v : partition_view<tile=(2x4), tensor_view<8x4xf32,
            strides=[4,1]>>
        %i = cuda_tile.constant <i32: 0> : tile<i32>
        %t, %tok = cuda_tile.load_view_tko weak %pv[%i, %i] : partition_view<tile=(2x4),
            tensor_view<8x4xf32, strides=[4,1]>>, tile<i32> -> tile<2x4xf32>, token
        %s = cuda_tile.reduce %t dim=1 identities=[0.000000e+00 : f32] : tile<2x4xf32>
            -> tile<2xf32>
        (%a: tile<f32>, %b: tile<f32>) {
          %x = cuda_tile.addf %a, %b rounding<nearest_even> : tile<f32>
          cuda_tile.yield %x : tile<f32>
        }
        %tok2 = cuda_tile.store_view_tko weak %t, %pv[%i, %i] token = %tok : tile<2x4xf32>,
            partition_view<tile=(2x4), tensor_view<8x4xf32, strides=[4,1]>>, tile<i32> -> token
        %lb = cuda_tile.constant <i32: 0> : tile<i32>
        %ub = cuda_tile.constant <i32: 4> : tile<i32>
        %r = cuda_tile.for %iv in (%lb to %ub, step %ub) : tile<i32> iter_values(%acc = %i)
            -> (tile<i32>) {
          %n = cuda_tile.addi %acc, %iv : tile<i32>
          cuda_tile.continue %n : tile<i32>
        }
        %c = cuda_tile.cmpi equal %r, %i, signed : tile<i32> -> tile<i1>
        %y = cuda_tile.if %c -> (tile<i32>) {
          cuda_tile.yield %r : tile<i32>
        } else {
          cuda_tile.yield %i : tile<i32>
        }
        cuda_tile.assert %c, "msg" : tile<i1>
        cuda_tile.return
      }
    }""",
    """cuda_tile.module @m {
      cuda_tile.global @gl <i32: [1, 2]> : tile<2xi32>
      cuda_tile.entry @k(%p: tile<ptr<i32>>, %q: tile<ptr<f32>>) {
        %t = cuda_tile.make_token : token
        %v, %t1 = cuda_tile.load_ptr_tko weak %p token = %t : tile<ptr<i32>> -> tile<i32>, token
        %t2 = cuda_tile.store_ptr_tko weak %p, %v token = %t1 : tile<ptr<i32>>, tile<i32> -> token
        %o, %t3 = cuda_tile.atomic_rmw_tko relaxed device %p, add, %v : tile<ptr<i32>>,
            tile<i32> -> tile<i32>, token
        %c, %t4 = cuda_tile.atomic_cas_tko relaxed device %p, %v, %o : tile<ptr<i32>>,
            tile<i32> -> tile<i32>, token
        %j = cuda_tile.join_tokens %t2, %t3, %t4 : token
        %a = cuda_tile.constant <f32: 1.0> : tile<4x8xf32>
        %b = cuda_tile.constant <f32: 2.0> : tile<8x4xf32>
        %acc = cuda_tile.constant <f32: 0.0> : tile<4x4xf32>
        %m = cuda_tile.mmaf %a, %b, %acc : tile<4x8xf32>, tile<8x4xf32>, tile<4x4xf32>
        %e = cuda_tile.exp %m : tile<4x4xf32>
        %x = cuda_tile.maxf %e, %m : tile<4x4xf32>
        %f = cuda_tile.fma %x, %x, %x rounding<zero> : tile<4x4xf32>
        %s = cuda_tile.sqrt %f rounding<approx> : tile<4x4xf32>
        %cat = cuda_tile.cat %s, %s dim = 0 : tile<4x4xf32>, tile<4x4xf32> -> tile<8x4xf32>
        %sc = cuda_tile.scan %cat dim=0 reverse=false identities=[0.000000e+00 : f32]
            : tile<8x4xf32> -> tile<8x4xf32>
        (%l: tile<f32>, %r: tile<f32>) {
          %y = cuda_tile.addf %l, %r rounding<nearest_even> : tile<f32>
          cuda_tile.yield %y : tile<f32>
        }
        %i8 = cuda_tile.trunci %v : tile<i32> -> tile<i8>
        %sh = cuda_tile.shli %v, %v : tile<i32>
        %an = cuda_tile.andi %sh, %v : tile<i32>
        %pi = cuda_tile.ptr_to_int %q : tile<ptr<f32>> -> tile<i64>
        %ip = cuda_tile.int_to_ptr %pi : tile<i64> -> tile<ptr<i8>>
        %as = cuda_tile.assume #cuda_tile.div_by<16>, %p : tile<ptr<i32>>
        %g = cuda_tile.get_global @gl : tile<ptr<i32>>
        %bx, %by, %bz = cuda_tile.get_tile_block_id : tile<i32>
        %nx, %ny, %nz = cuda_tile.get_num_tile_blocks : tile<i32>
        %pt = cuda_tile.print_tko "x: %i", %bx : tile<i32> -> token
        %lp = cuda_tile.loop : tile<i32> {
          cuda_tile.break %an : tile<i32>
        }
        cuda_tile.return
      }
    }""",
)


def suite_documents() -> list[str]:
    """The suite's documents, when ../shared has them (else none): the positive ones, and
    the chunks of the negative files (mutants of invalid IR reach other paths)."""
    tests = Path(__file__).parents[1]
    sys.path[:0] = [str(tests), str(tests / "syntax")]
    try:
        from test_suite_roundtrip import DOCS, SUITE  # type: ignore[import-not-found]

        from tileir.cli.opt import split_chunks
    except ImportError:  # pragma: no cover - the suite is optional
        return []
    finally:
        del sys.path[:2]
    negative = [chunk for path in sorted(SUITE.rglob("*invalid*.mlir"))
                for chunk, _ in split_chunks(path.read_text(encoding="utf-8"))]
    return [chunk for _, _, chunk, _ in DOCS] + negative


# ---- running one case ---------------------------------------------------------------------


def parse_generic(text: str) -> list[Operation] | None:
    """The ops of `text`, or None when the parser rejects it (a proper diagnostic)."""
    try:
        return parse_document(text, "fuzz", allow_unregistered=True)
    except ParseError:
        return None


def run_case(text: str, options: Options | None = None) -> None:
    """Parse and verify `text`; only the verifier's diagnostics may come out."""
    ops = parse_generic(text)
    for op in ops or ():
        for diagnostic in verify(op, options):
            assert diagnostic.severity in (Severity.ERROR, Severity.WARNING, Severity.NOTE)
            assert "internal error" not in diagnostic.message


# ---- the generator ------------------------------------------------------------------------


def _attr_text(rng: random.Random, name: str) -> str:
    """`name` set to any pool attribute, whatever its kind."""
    return f"{name} = {rng.choice(ATTRS)}"


#: Per attribute declaration (by kind and constraint), the pool texts meeting it.
_GOOD_ATTRS: dict[tuple[str, str | None], list[str]] = {}


def _enum_texts(enum_type: type) -> list[str]:
    """Every case of `enum_type` as the generic form spells it."""
    mnemonic = ENUM_MNEMONICS.get(enum_type)
    if mnemonic is None:
        return [f"{int(m)} : i32" for m in enum_type]
    return [f"#cuda_tile.{mnemonic}<{m.keyword}>" for m in enum_type]


def _good_attr_text(rng: random.Random, decl) -> str:
    """An attribute for `decl` that meets its ODS constraint (when the pools hold one)."""
    constraint = constraint_of(decl)
    key = (decl.kind.name, constraint.summary if constraint is not None else None)
    if key not in _GOOD_ATTRS:
        enum_type = getattr(decl.kind, "enum_type", None)
        if enum_type is not None:
            _GOOD_ATTRS[key] = _enum_texts(enum_type)
        else:
            texts = ATTRS + ("0 : i64", "1 : i64", "1 : i32", "2 : i32", "array<i32: 0, 1>")
            _GOOD_ATTRS[key] = [t for t, a in zip(texts, _parsed_attrs(texts))
                                if constraint is None or constraint.accepts(a)]
    good = _GOOD_ATTRS[key]
    return f"{decl.name} = {rng.choice(good)}" if good else _attr_text(rng, decl.name)


def _parsed_attrs(texts: tuple[str, ...]) -> list[Attribute]:
    """Each attribute text, parsed."""
    ops = parse_document('"cuda_tile.x"() {' + ", ".join(
        f"a{i} = {text}" for i, text in enumerate(texts)) + "} : () -> ()",
        allow_unregistered=True)
    return [ops[0].attributes[f"a{i}"] for i in range(len(texts))]


def _pick_value(rng: random.Random, decl, values: list[str], types: list[str],
                previous: list[tuple[str, str]]) -> tuple[str, str] | None:
    """A value for operand `decl`: usually one whose type meets its constraint, often of
    the type of the operand before it (ops whose operands share a type)."""
    if not values:
        return None
    if previous and rng.random() < 0.6:
        same = [i for i, t in enumerate(types) if t == previous[-1][1]]
        if same and decl.constraint.accepts(_type_of(previous[-1][1])):
            i = rng.choice(same)
            return values[i], types[i]
    if rng.random() < 0.85:
        fitting = [i for i, t in enumerate(types) if decl.constraint.accepts(_type_of(t))]
        if fitting:
            i = rng.choice(fitting)
            return values[i], types[i]
    i = rng.randrange(len(values))
    return values[i], types[i]


def _pick_type(rng: random.Random, decl, operand_types: list[str]) -> str:
    """A type for result `decl`: often an operand's, usually one meeting its constraint."""
    if rng.random() < 0.85:
        same = [t for t in operand_types if decl.constraint.accepts(_type_of(t))]
        if same and rng.random() < 0.6:
            return same[0]
        fitting = [t for t in TYPES if decl.constraint.accepts(_type_of(t))]
        if fitting:
            return rng.choice(fitting)
    return rng.choice(TYPES)


_TYPE_CACHE: dict[str, object] = {}


def _type_of(text: str):
    """The type spelled `text` (parsed once)."""
    if text not in _TYPE_CACHE:
        from tileir.syntax import parse_type
        _TYPE_CACHE[text] = parse_type(text)
    return _TYPE_CACHE[text]


def _region_text(rng: random.Random, depth: int) -> str:
    """A region: empty, or blocks holding a random op or nothing, with or without a
    terminator."""
    shape = rng.randrange(6)
    if shape == 0:
        return "{\n}"
    arg_types = [rng.choice(TYPES) for _ in range(rng.randrange(3))]
    args = ", ".join(f"%b{depth}_{i}: {t}" for i, t in enumerate(arg_types))
    header = f"^bb0({args}):\n" if args else ""
    body = []
    if shape >= 2 and depth < 2:
        body.append(_op_text(rng, rng.choice(_OPDEFS), depth + 1,
                             [f"%b{depth}_{i}" for i in range(len(arg_types))], arg_types))
    terminator = rng.choice(("yield", "continue", "break", "return", None, None))
    if terminator is not None and shape != 3:
        operands = [f"%b{depth}_{i}" for i in range(len(arg_types))][:rng.randrange(2)]
        types = arg_types[:len(operands)]
        body.append(f'"cuda_tile.{terminator}"({", ".join(operands)}) : '
                    f'({", ".join(types)}) -> ()')
    extra = ""
    if shape == 5:
        extra = '^bb1:\n"cuda_tile.return"() : () -> ()\n'
    return "{\n" + header + "\n".join(body) + "\n" + extra + "}"


def _op_text(rng: random.Random, opdef, depth: int, values: list[str],
             types: list[str]) -> str:
    """One op of kind `opdef` in generic form, its operands drawn from `values`."""
    operands: list[tuple[str, str]] = []
    sizes: list[int] = []
    for decl in opdef.operands:
        count = 1 if decl.arity == "single" else rng.randrange(3)
        sizes.append(0)
        for _ in range(count):
            picked = _pick_value(rng, decl, values, types, operands)
            if picked is not None:
                operands.append(picked)
                sizes[-1] += 1
    if rng.random() < 0.05 and operands:
        operands.pop(rng.randrange(len(operands)))
    if rng.random() < 0.05 and values:
        i = rng.randrange(len(values))
        operands.append((values[i], types[i]))
    results = []
    for decl in opdef.results:
        count = 1 if decl.arity == "single" else rng.randrange(3)
        results.extend(_pick_type(rng, decl, [t for _, t in operands]) for _ in range(count))
    if rng.random() < 0.05:
        results = results[:-1] if results and rng.random() < 0.5 else results + [
            rng.choice(TYPES)]
    attrs = [_good_attr_text(rng, decl) if rng.random() < 0.8 else _attr_text(rng, decl.name)
             for decl in opdef.attrs if rng.random() < 0.85]
    if rng.random() < 0.3:
        attrs.append(_attr_text(rng, rng.choice(EXTRA_ATTR_NAMES)))
    if opdef.needs_segments and rng.random() < 0.95:
        if rng.random() < 0.15:
            sizes = [rng.randrange(3) for _ in opdef.operands]
        attrs.append("operandSegmentSizes = array<i32: " + ", ".join(map(str, sizes)) + ">")
    unique = {a.split(" = ")[0]: a for a in attrs}
    props = " <{" + ", ".join(sorted(unique.values())) + "}>" if unique else ""
    nregions = opdef.regions + (rng.choice((-1, 1)) if rng.random() < 0.05 else 0)
    regions = [_region_text(rng, depth) for _ in range(max(nregions, 0))]
    region_text = " (" + ", ".join(regions) + ")" if regions else ""
    head = ""
    if results:
        head = f"%r{depth}_{rng.randrange(10 ** 6)}:{len(results)} = " if len(results) > 1 \
            else f"%r{depth}_{rng.randrange(10 ** 6)} = "
    result_types = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    return (f'{head}"{opdef.full_name}"({", ".join(v for v, _ in operands)}){props}'
            f'{region_text} : ({", ".join(t for _, t in operands)}) -> {result_types}')


_OPDEFS = [d for d in all_ops() if d.name not in ("module",)]


def generated_module(rng: random.Random, opdef) -> str:
    """A module holding a function whose arguments are one value of every pool type, and
    in it one random op of kind `opdef` (or the op at module level)."""
    values = [f"%a{i}" for i in range(len(TYPES))]
    op = _op_text(rng, opdef, 0, values, list(TYPES))
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(TYPES))
    fn_type = "(" + ", ".join(TYPES) + ") -> ()"
    if opdef.name in ("entry", "global", "testing$func") and rng.random() < 0.5:
        return f'"cuda_tile.module"() <{{sym_name = "m"}}> ({{\n{op}\n}}) : () -> ()'
    return (f'"cuda_tile.module"() <{{sym_name = "m"}}> ({{\n'
            f'"cuda_tile.testing$func"() <{{function_type = {fn_type}, sym_name = "f"}}> ({{\n'
            f"^bb0({args}):\n{op}\n"
            f'"cuda_tile.return"() : () -> ()\n}}) : () -> ()\n}}) : () -> ()')


# ---- the mutator --------------------------------------------------------------------------

_ATTR_OBJECTS: tuple[Attribute, ...] = ()
_TYPE_OBJECTS: list = []


def _pools() -> tuple[tuple[Attribute, ...], list]:
    """The attribute and type pools as IR objects (built once)."""
    global _ATTR_OBJECTS, _TYPE_OBJECTS
    if not _ATTR_OBJECTS:
        _ATTR_OBJECTS, _TYPE_OBJECTS = _attr_objects(), _types()
    return _ATTR_OBJECTS, _TYPE_OBJECTS


def _mutate_attr(rng: random.Random, op: Operation) -> None:
    """Replace one of `op`'s attributes (declared, present, or any name) by a pool
    attribute of any kind, or drop it."""
    attrs, _ = _pools()
    names = list(op.attributes) + ([d.name for d in op.opdef.attrs] if op.opdef else [])
    name = rng.choice(names + [rng.choice(EXTRA_ATTR_NAMES)])
    if name in op.attributes and rng.random() < 0.25:
        del op.attributes[name]
    else:
        op.attributes[name] = rng.choice(attrs)


def _mutate_operands(rng: random.Random, op: Operation) -> None:
    """Drop one of `op`'s operands, or duplicate one."""
    if op.operands and rng.random() < 0.5:
        op.operands.pop(rng.randrange(len(op.operands)))
    elif op.operands:
        op.operands.insert(rng.randrange(len(op.operands) + 1), rng.choice(op.operands))


def _mutate_type(rng: random.Random, op: Operation) -> None:
    """Change the type of a result or block argument of `op` (often to a type of the same
    kind: another shape or element type), so every use sees the new type."""
    _, types = _pools()
    values = list(op.results) + [a for r in op.regions for b in r.blocks for a in b.arguments]
    if values:
        value = rng.choice(values)
        same_kind = [t for t in types if type(t) is type(value.type) and t != value.type]
        value.type = rng.choice(same_kind if same_kind and rng.random() < 0.6 else types)


def _mutate_results(rng: random.Random, op: Operation) -> None:
    """Drop `op`'s last result, or add one of a pool type."""
    from tileir.ir import OpResult
    _, types = _pools()
    if op.results and rng.random() < 0.5:
        op.results.pop()
    else:
        op.results.append(OpResult(rng.choice(types), op, len(op.results)))


def _mutate_regions(rng: random.Random, op: Operation) -> None:
    """Drop or add a region, drop or add a block, drop a terminator, or empty a block."""
    choice = rng.randrange(6)
    if choice == 0 and op.regions:
        op.regions.pop(rng.randrange(len(op.regions)))
    elif choice == 1:
        region = Region(op)
        if rng.random() < 0.5:
            region.add_block()
        op.regions.append(region)
    elif op.regions:
        region = rng.choice(op.regions)
        if choice == 2 and region.blocks:
            region.blocks.pop(rng.randrange(len(region.blocks)))
        elif choice == 3:
            region.add_block(Block())
        elif choice == 4 and region.blocks and region.blocks[-1].operations:
            region.blocks[-1].operations.pop()
        elif region.blocks:
            region.blocks[0].operations.clear()


def _mutate_place(rng: random.Random, op: Operation) -> None:
    """Move `op`, or an unregistered op put in its place, to another block: ops in parents
    they do not allow, terminators in the middle, uses out of their definition's scope."""
    inside = {id(nested) for nested in op.walk()}
    blocks = [b for top in _root(op).walk() if id(top) not in inside
              for r in top.regions for b in r.blocks]
    if not blocks:
        return
    block = rng.choice(blocks)
    if rng.random() < 0.3:
        op = Operation("test.unknown", list(op.operands)[:1], [r.type for r in op.results][:1])
    elif op.parent is not None and any(o is op for o in op.parent.operations):
        op.parent.operations.remove(op)
    op.parent = block
    block.operations.insert(rng.randrange(len(block.operations) + 1), op)


def _mutate_location(rng: random.Random, op: Operation) -> None:
    """Give `op` the location of another op of the document (another function's debug
    scope, a global's, a call site...)."""
    ops = list(_root(op).walk())
    op.location = rng.choice(ops).location


def _root(op: Operation) -> Operation:
    """The top-level op holding `op`."""
    while op.parent_op is not None:
        op = op.parent_op
    return op


MUTATIONS: tuple[Callable[[random.Random, Operation], None], ...] = (
    _mutate_attr, _mutate_attr, _mutate_attr, _mutate_operands, _mutate_type, _mutate_type,
    _mutate_results, _mutate_regions, _mutate_place, _mutate_location,
)


def mutated_text(rng: random.Random, text: str) -> str | None:
    """`text` parsed, mutated once or a few times at random ops, printed in generic form."""
    ops = parse_generic(text)
    if not ops:
        return None
    candidates = [nested for op in ops for nested in op.walk()]
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        rng.choice(MUTATIONS)(rng, rng.choice(candidates))
    try:
        return Printer(generic=True, debuginfo=rng.random() < 0.5).print_top(ops)
    except Exception:  # the printer may refuse IR no parser makes; not the verifier's case
        return None


# ---- the tests ----------------------------------------------------------------------------

_FAST = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{i}" for i in range(len(SEEDS))])
def test_seeds_verify_clean(seed: str) -> None:
    """The hand-written seeds are valid, so mutants start one step from valid IR."""
    ops = parse_document(seed, "seed")
    assert [str(d) for op in ops for d in verify(op)] == []


@_FAST
@given(st.integers(0, 2 ** 32))
def test_generated_ops_never_crash(seed: int) -> None:
    """Every op kind, with random operands, attributes and regions, gets diagnostics."""
    rng = random.Random(seed)
    run_case(generated_module(rng, rng.choice(_OPDEFS)), random_options(rng))


def test_every_op_kind_generated() -> None:
    """Each registered op, generated a few times, gets diagnostics (no crash)."""
    rng = random.Random(1)
    for opdef in _OPDEFS:
        for _ in range(3):
            run_case(generated_module(rng, opdef))


@_FAST
@given(st.integers(0, 2 ** 32))
def test_mutated_seeds_never_crash(seed: int) -> None:
    """One or two random mutations of a valid seed get diagnostics (no crash)."""
    rng = random.Random(seed)
    text = mutated_text(rng, rng.choice(SEEDS))
    if text is not None:
        run_case(text, random_options(rng))


_SUITE_DOCS: list[str] = []


@_FAST
@given(st.integers(0, 2 ** 32))
def test_mutated_suite_documents_never_crash(seed: int) -> None:
    """Mutants of the suite's documents (positive and negative) get diagnostics."""
    from conftest import CONFORMANCE, require
    if not _SUITE_DOCS:
        _SUITE_DOCS.extend(suite_documents())
    require(CONFORMANCE)
    rng = random.Random(seed)
    text = mutated_text(rng, rng.choice(_SUITE_DOCS))
    if text is not None:
        run_case(text, random_options(rng))


# ---- attributes of the wrong kind: the ODS constraint rejects them first -----------------

_FUNC = """cuda_tile.module @m {
  cuda_tile.global @g <f32: 1.0> : !cuda_tile.tile<1xf32>
  cuda_tile.testing$func @f(%a: !cuda_tile.tile<4xf32>, %i: !cuda_tile.tile<4xi32>,
                            %p: !cuda_tile.tile<4x!cuda_tile.ptr<i32>>) {
    BODY
  }
}"""


def _constraint_error(op: str, attr: str, summary: str) -> list[str]:
    """The one diagnostic MLIR's generated attribute check emits."""
    return [f"error: 'cuda_tile.{op}' op attribute '{attr}' failed to satisfy constraint: "
            f"{summary}"]


#: (op written in generic form, its attribute, ODS summary of that attribute's constraint).
WRONG_KIND = [
    ('%0 = "cuda_tile.addf"(%a, %a) <{rounding_mode = #cuda_tile.signedness<signed>}> : '
     '(!cuda_tile.tile<4xf32>, !cuda_tile.tile<4xf32>) -> !cuda_tile.tile<4xf32>',
     "addf", "rounding_mode", "rounding mode"),
    ('%0 = "cuda_tile.addf"(%a, %a) <{flush_to_zero = 1 : i32, rounding_mode = '
     '#cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<4xf32>) '
     '-> !cuda_tile.tile<4xf32>', "addf", "flush_to_zero", "unit attribute"),
    ('%0 = "cuda_tile.divi"(%i, %i) <{signedness = "signed"}> : (!cuda_tile.tile<4xi32>, '
     '!cuda_tile.tile<4xi32>) -> !cuda_tile.tile<4xi32>', "divi", "signedness", "signedness"),
    ('%0 = "cuda_tile.addi"(%i, %i) <{overflow = #cuda_tile.rounding<zero>}> : '
     '(!cuda_tile.tile<4xi32>, !cuda_tile.tile<4xi32>) -> !cuda_tile.tile<4xi32>',
     "addi", "overflow", "integer overflow"),
    ('%0 = "cuda_tile.cmpi"(%i, %i) <{comparison_predicate = #cuda_tile.comparison_ordering'
     '<ordered>, signedness = #cuda_tile.signedness<signed>}> : (!cuda_tile.tile<4xi32>, '
     '!cuda_tile.tile<4xi32>) -> !cuda_tile.tile<4xi1>',
     "cmpi", "comparison_predicate", "cmp_predicate"),
    ('%0 = "cuda_tile.cmpf"(%a, %a) <{comparison_ordering = unit, comparison_predicate = '
     '#cuda_tile.comparison_predicate<equal>}> : (!cuda_tile.tile<4xf32>, '
     '!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<4xi1>',
     "cmpf", "comparison_ordering", "comparison_ordering"),
    ('%0:2 = "cuda_tile.atomic_rmw_tko"(%p, %i) <{memory_ordering_semantics = 1 : i32, '
     'memory_scope = 1 : i32, mode = 42 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>'
     ' : (!cuda_tile.tile<4x!cuda_tile.ptr<i32>>, !cuda_tile.tile<4xi32>) -> '
     '(!cuda_tile.tile<4xi32>, !cuda_tile.token)',
     "atomic_rmw_tko", "mode", "allowed 32-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, "
     "7, 8, 9"),
    ('%0:2 = "cuda_tile.atomic_rmw_tko"(%p, %i) <{memory_ordering_semantics = "relaxed", '
     'memory_scope = 1 : i32, mode = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>'
     ' : (!cuda_tile.tile<4x!cuda_tile.ptr<i32>>, !cuda_tile.tile<4xi32>) -> '
     '(!cuda_tile.tile<4xi32>, !cuda_tile.token)',
     "atomic_rmw_tko", "memory_ordering_semantics", "memory ordering semantics"),
    ('%0:2 = "cuda_tile.atomic_rmw_tko"(%p, %i) <{memory_ordering_semantics = 1 : i32, '
     'memory_scope = [], mode = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>'
     ' : (!cuda_tile.tile<4x!cuda_tile.ptr<i32>>, !cuda_tile.tile<4xi32>) -> '
     '(!cuda_tile.tile<4xi32>, !cuda_tile.token)',
     "atomic_rmw_tko", "memory_scope", "memory scope"),
    ('%0 = "cuda_tile.get_global"() <{name = "g"}> : () -> '
     '!cuda_tile.tile<!cuda_tile.ptr<f32>>', "get_global", "name",
     "flat symbol reference attribute"),
    ('%0 = "cuda_tile.constant"() <{value = 1 : i32}> : () -> !cuda_tile.tile<i32>',
     "constant", "value", "An Attribute containing a dense multi-dimensional array of values"),
    ('%0 = "cuda_tile.assume"(%i) <{predicate = 4 : i32}> : (!cuda_tile.tile<4xi32>) -> '
     '!cuda_tile.tile<4xi32>', "assume", "predicate", "AssumePredicateAttrInterface instance"),
    ('%0:2 = "cuda_tile.load_ptr_tko"(%p) <{memory_ordering_semantics = 0 : i32, '
     'operandSegmentSizes = array<i32: 1, 0, 0, 0>, optimization_hints = {}}> : '
     '(!cuda_tile.tile<4x!cuda_tile.ptr<i32>>) -> (!cuda_tile.tile<4xi32>, !cuda_tile.token)',
     "load_ptr_tko", "optimization_hints", ""),
]


@pytest.mark.parametrize("body, op, attr, summary", WRONG_KIND,
                         ids=[f"{op}.{attr}" for _, op, attr, _ in WRONG_KIND])
def test_attribute_of_wrong_kind(diagnose, body: str, op: str, attr: str,
                                 summary: str) -> None:
    """An attribute of another kind fails its ODS constraint, before any op verifier."""
    assert diagnose(_FUNC.replace("BODY", body)) == _constraint_error(op, attr, summary)


_MODULE_LEVEL = [
    ('"cuda_tile.module"() <{sym_name = 3 : i32}> ({\n}) : () -> ()',
     "module", "sym_name", "string attribute"),
    ('cuda_tile.module @m {\n"cuda_tile.global"() <{sym_name = "g", symbol_visibility = '
     '#cuda_tile.signedness<signed>, value = dense<1> : !cuda_tile.tile<1xi32>}> : () -> ()'
     '\n}', "global", "symbol_visibility", "symbol visibility"),
    ('cuda_tile.module @m {\n"cuda_tile.entry"() <{function_type = !cuda_tile.tile<f32>, '
     'sym_name = "e"}> ({\n"cuda_tile.return"() : () -> ()\n}) : () -> ()\n}',
     "entry", "function_type", "type attribute of function type"),
    ('cuda_tile.module @m {\n"cuda_tile.entry"() <{arg_attrs = [1 : i32], function_type = '
     '() -> (), sym_name = "e"}> ({\n"cuda_tile.return"() : () -> ()\n}) : () -> ()\n}',
     "entry", "arg_attrs", "Array of dictionary attributes"),
]


@pytest.mark.parametrize("text, op, attr, summary", _MODULE_LEVEL,
                         ids=[f"{op}.{attr}" for _, op, attr, _ in _MODULE_LEVEL])
def test_symbol_and_function_attributes_of_wrong_kind(diagnose, text: str, op: str,
                                                       attr: str, summary: str) -> None:
    """Module, global and entry attributes of another kind fail their ODS constraints."""
    assert diagnose(text) == _constraint_error(op, attr, summary)


def test_every_declared_attribute_is_constrained() -> None:
    """Every attribute an op declares has an ODS constraint the engine checks before any op
    verifier reads it, so verifiers may rely on its kind."""
    unconstrained = [f"{d.name}.{a.name} ({a.kind.name})" for d in all_ops() for a in d.attrs
                     if constraint_of(a) is None]
    assert unconstrained == []


# ---- operand segment sizes (MLIR's verifyValueSizeAttr) ------------------------------------

_LOAD = ('%0:2 = "cuda_tile.load_ptr_tko"(%p) <{memory_ordering_semantics = 0 : i32, '
         'operandSegmentSizes = SIZES}> : (!cuda_tile.tile<4x!cuda_tile.ptr<i32>>) -> '
         '(!cuda_tile.tile<4xi32>, !cuda_tile.token)')


@pytest.mark.parametrize("sizes, message", [
    ("array<i32: 2, -1, 0, 0>", "'operandSegmentSizes' attribute cannot have negative elements"),
    ("array<i64: 1, 0, 0, 0>", "requires dense i32 array attribute 'operandSegmentSizes'"),
    ('"1, 0, 0, 0"', "requires dense i32 array attribute 'operandSegmentSizes'"),
])
def test_operand_segment_sizes_of_wrong_kind(diagnose, sizes: str, message: str) -> None:
    """The segment sizes must be a dense i32 array without negative sizes."""
    text = _FUNC.replace("BODY", _LOAD.replace("SIZES", sizes))
    assert diagnose(text) == [f"error: 'cuda_tile.load_ptr_tko' op {message}"]


# ---- functions and symbol tables the generic form can misshape ----------------------------


def _module(body: str) -> str:
    """`body` inside a generic-form module."""
    return f'"cuda_tile.module"() <{{sym_name = "m"}}> ({{\n{body}\n}}) : () -> ()'


def _entry(signature: str, block: str, extra: str = "") -> str:
    """An entry of type `signature` whose body block starts with `block` (its label)."""
    return (f'"cuda_tile.entry"() <{{{extra}function_type = {signature}, sym_name = "e"}}> '
            f'({{\n{block}"cuda_tile.return"() : () -> ()\n}}) : () -> ()')


@pytest.mark.parametrize("entry, message", [
    (_entry("(!cuda_tile.tile<f32>) -> ()", ""),
     "entry block must have 1 arguments to match function signature"),
    (_entry("() -> ()", "^bb0(%a: !cuda_tile.tile<f32>):\n"),
     "entry block must have 0 arguments to match function signature"),
    (_entry("(!cuda_tile.tile<f32>, !cuda_tile.tile<i32>) -> ()",
            "^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):\n"),
     "type of entry block argument #1(!cuda_tile.tile<f32>) must match the type of the "
     "corresponding argument in function signature(!cuda_tile.tile<i32>)"),
    (_entry("(!cuda_tile.tile<f32>) -> ()", "^bb0(%a: !cuda_tile.tile<f32>):\n",
            "arg_attrs = [{}, {}], "),
     "expects argument attribute array to have the same number of elements as the number "
     "of function arguments, got 2, but expected 1"),
    (_entry("() -> ()", "", "res_attrs = [{}], "),
     "expects result attribute array to have the same number of elements as the number of "
     "function results, got 1, but expected 0"),
])
def test_function_signature_and_body(diagnose, entry: str, message: str) -> None:
    """FunctionOpInterface: attribute arrays and the body's arguments follow the signature."""
    assert diagnose(_module(entry)) == [f"error: 'cuda_tile.entry' op {message}"]


def test_symbol_table_needs_one_block(diagnose) -> None:
    """A module whose region has no block (the generic form allows it) is no symbol table."""
    assert diagnose('"cuda_tile.module"() <{sym_name = "m"}> ({\n}) : () -> ()') == [
        "error: 'cuda_tile.module' op Operations with a 'SymbolTable' must have exactly one "
        "block"]


def test_only_string_symbol_names_define_symbols(diagnose) -> None:
    """An op's ``sym_name`` defines a symbol only when it is a string; a discardable one
    counts too."""
    text = _module('"test.a"() {sym_name = 1 : i32} : () -> ()\n'
                   '"test.b"() {sym_name = 1 : i32} : () -> ()\n'
                   '"cuda_tile.global"() <{sym_name = "g", value = dense<1> : '
                   '!cuda_tile.tile<1xi32>}> : () -> ()\n'
                   '%t = "cuda_tile.make_token"() {sym_name = "g"} : () -> !cuda_tile.token')
    assert diagnose(text) == ["error: redefinition of symbol named 'g'",
                              "note: see existing symbol definition here"]


def test_single_operand_with_empty_segment(diagnose) -> None:
    """A segment size of 0 for a single operand (the base of make_tensor_view) is reported,
    not read past (found by the campaign)."""
    view = _FUNC.replace("BODY", '%0 = "cuda_tile.make_tensor_view"(%i) <{operandSegmentSizes = '
                         'array<i32: 0, 1, 0>}> : (!cuda_tile.tile<4xi32>) -> '
                         '!cuda_tile.tensor_view<?xf32, strides=[1]>')
    assert diagnose(view) == ["error: 'cuda_tile.make_tensor_view' op operand group starting "
                              "at #0 requires 1 element, but found 0"]


# ---- a longer campaign by hand ------------------------------------------------------------


def random_options(rng: random.Random) -> Options:
    """cuda-tile-opt's hint flags, at random (the hint checks run only under them)."""
    warn = rng.random() < 0.5
    return Options(warn_hints=warn, error_hints=warn and rng.random() < 0.5)


def campaign(count: int, seed: int = 0) -> dict[str, tuple[str, str]]:
    """Run `count` generated and `count` mutated cases; the distinct crashes, keyed by the
    exception and the frame it came from, with a reproducer."""
    rng = random.Random(seed)
    docs = list(SEEDS) + suite_documents()
    crashes: dict[str, tuple[str, str]] = {}
    for i in range(2 * count):
        if i % 2:
            text = mutated_text(rng, rng.choice(docs))
        else:
            text = generated_module(rng, rng.choice(_OPDEFS))
            if i % 3 == 0:  # and a third of those mutated as well
                text = mutated_text(rng, text)
        if text is None:
            continue
        try:
            run_case(text, random_options(rng))
        except Exception as exc:  # noqa: BLE001 - collecting crashes is the point
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            key = f"{type(exc).__name__} at {Path(frame.filename).name}:{frame.lineno}"
            crashes.setdefault(key, (text, traceback.format_exc()))
    return crashes


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    found = campaign(n, int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    for key, (text, trace) in sorted(found.items()):
        print("=" * 80, "\n", key, "\n", trace[-1500:], "\n", text[:3000])
    print(f"{len(found)} distinct crashes in {2 * n} cases")


def test_an_api_built_type_text_could_never_spell_is_refused() -> None:
    # (found by tools/oracle_campaign.py: a generated constant of three f4E2M1FN elements
    # verified, then its printed text did not parse)
    from tileir import VerificationError
    from tileir.attributes import DenseElementsAttr
    from tileir.ir import Builder, Module
    from tileir.types import F4E2M1FN, TileType
    module = Module()
    kernel = Builder.at_end(module.body).entry("k", [])
    b = Builder.at_end(kernel.regions[0].blocks[0])
    odd = TileType((1,), F4E2M1FN)
    b.create("constant", (), [odd], {"value": DenseElementsAttr(odd, (1,))})
    b.create("return")
    with pytest.raises(VerificationError) as caught:
        module.verify()
    assert caught.value.diagnostics[0].message == (
        "'cuda_tile.constant' op result #0 has an invalid type !cuda_tile.tile<1xf4E2M1FN>: "
        "F4E2M1FN tiles must have an even number of elements")
