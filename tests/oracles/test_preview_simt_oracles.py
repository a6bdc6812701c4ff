"""13.5's `--preview=simt` content (`preview$func`, `preview$call`, `preview$extern_impl`,
the `preview$` attributes and types) read, printed and written as tileirdisasm 13.5 does.

Every file here is built by hand from the format as found by probing tileirdisasm 13.5
(black box), with only the framing helpers of tests/bytecode/mutators.py and the byte
builders below, never tileir's writer.  The expected text of each file is tileirdisasm's
(`--preview=simt`), pinned when the case was written: it is the oracle.  For each file:

* tileirdisasm prints it as pinned;
* tileir reads it and prints the same text (in process, and through the CLI, which wraps it
  in `cuda_tile.module @kernels { ... }` as cuda-tile-translate does);
* tileir writes what it read back to the same bytes (the files use the layout tileir's
  writer keeps for a file it read: Func, Type, String sections, tables in file order);
* the pinned text parsed by tileir and written by it is a file tileirdisasm prints the same.

Files tileirdisasm refuses are refused by tileir with one diagnostic.  Skipped when
tileirdisasm (the `oracles` extra) is missing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable

import pytest

import corpus
import tileir
from tileir.bytecode import BytecodeError, MAGIC, from_bytecode, to_bytecode
from tileir.cli import translate
from tileir.diagnostics import TileIRError

sys.path.insert(0, str(Path(__file__).parents[1] / "bytecode"))
from mutators import Section, encode_varint, join_sections, offset_table  # noqa: E402

pytestmark = pytest.mark.skipif(corpus.tool_path("tileirdisasm") is None,
                                reason="NVIDIA's tileirdisasm is not installed "
                                       "(pip install -e '.[oracles]')")

PREVIEW = ("simt",)

# ---- byte builders (independent of tileir) --------------------------------------------

v = encode_varint


def _tag(tag: int) -> bytes:
    """A self-contained attribute (or type) tag: a varint (0xd1 is `d1 01`)."""
    return v(tag)


def zigzag(n: int) -> int:
    return n << 1 if n >= 0 else ((-n) << 1) - 1


# Builtin and preview type blobs that refer to nothing.
I32, I64, F32, TOKEN = b"\x03", b"\x04", b"\x07", b"\x11"
INDEX, DATATYPE, SHAPE, STRING = _tag(0xD6), _tag(0xD3), _tag(0xD4), _tag(0xD5)

# Expression tags.
MUL, DIV, ADD, SUB, FDIV, CDIV = 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xDA
ACCESS = {"in": 0, "out": 1, "inout": 2}
SYNC = {"none": 0, "warp": 1, "warpgroup": 2, "cta": 3}
#: A dynamic extent in a fragment's concrete shape cache.
DYN = -(1 << 63)


def I(n: int) -> bytes:                     # noqa: E743 (expr_int)
    return _tag(0xD1) + v(zigzag(n))


def BIN(tag: int, lhs: bytes, rhs: bytes) -> bytes:
    return _tag(tag) + lhs + rhs


def NEG(x: bytes) -> bytes:
    return _tag(0xDC) + x


def TUP(*xs: bytes) -> bytes:
    return _tag(0xD8) + v(len(xs)) + b"".join(xs)


def LAY(shapes: list[bytes], strides: list[bytes]) -> bytes:
    return _tag(0xD9) + v(len(shapes)) + b"".join(shapes) + v(len(strides)) + b"".join(strides)


def MEMSPACE(n: int) -> bytes:
    return _tag(0xDD) + bytes([n])


def SYNCH(name: str) -> bytes:
    return _tag(0xDE) + bytes([SYNC[name]])


def ACC(name: str) -> bytes:
    return _tag(0xDF) + bytes([ACCESS[name]])


def SCRATCH(size: bytes, alignment: bytes) -> bytes:
    return _tag(0xE0) + size + alignment


def ARRAY(*xs: bytes) -> bytes:
    """A tagged ArrayAttr."""
    return b"\x06" + v(len(xs)) + b"".join(xs)


def LIST(*xs: bytes) -> bytes:
    """An untagged array payload (count, elements)."""
    return v(len(xs)) + b"".join(xs)


def i64s(dims: list[int]) -> bytes:
    return v(len(dims)) + b"".join((d & (1 << 64) - 1).to_bytes(8, "little") for d in dims)


class Bc:
    """One file: a string table and a type table numbered in order of first use."""

    def __init__(self) -> None:
        self.strings: list[bytes] = []
        self.types: list[bytes] = []

    def s(self, text: str) -> bytes:
        """The varint index of string `text`."""
        blob = text.encode()
        if blob not in self.strings:
            self.strings.append(blob)
        return v(self.strings.index(blob))

    def t(self, blob: bytes) -> bytes:
        """The varint index of the type encoded as `blob`."""
        if blob not in self.types:
            self.types.append(blob)
        return v(self.types.index(blob))

    # types
    def tile(self, element: bytes, *dims: int) -> bytes:
        return b"\x0d" + self.t(element) + i64s(list(dims))

    def fn(self, inputs: list[bytes], results: list[bytes]) -> bytes:
        return (b"\x10" + v(len(inputs)) + b"".join(self.t(x) for x in inputs) +
                v(len(results)) + b"".join(self.t(x) for x in results))

    def sym_t(self, name: str) -> bytes:
        return _tag(0xD1) + self.var(name)

    def fragment(self, shape: list[bytes], cache: list[int], element: bytes = I32,
                 smem: bool = False, mem_layout: bytes | None = None,
                 fragmap: bytes | None = None, alignment: int = 1) -> bytes:
        mem_layout = mem_layout or LAY([I(4)], [I(1)])
        fragmap = fragmap or LAY([I(1), I(1), I(4)], [I(0), I(0), I(1)])
        return (_tag(0xD2) + TUP(*shape) + i64s(cache) + self.t(element) + bytes([smem]) +
                mem_layout + fragmap + I(alignment))

    # attributes needing the tables
    def var(self, name: str) -> bytes:
        return _tag(0xD2) + self.s(name)

    def cstr(self, text: str) -> bytes:
        return _tag(0xE4) + self.s(text)

    def builtin(self, name: str, type_: bytes = INDEX) -> bytes:
        return _tag(0xE3) + self.s(name) + self.t(type_)

    def ctype(self, type_: bytes) -> bytes:
        return _tag(0xDB) + self.t(type_)

    def cparam(self, name: str, type_: bytes) -> bytes:
        return _tag(0xE2) + self.s(name) + self.t(type_)

    def string(self, text: str) -> bytes:
        return b"\x05" + self.s(text)

    def dict(self, *entries: tuple[str, bytes]) -> bytes:
        """A tagged DictionaryAttr (keys as given; give them sorted)."""
        return b"\x0a" + self.udict(*entries)

    def udict(self, *entries: tuple[str, bytes]) -> bytes:
        return v(len(entries)) + b"".join(self.s(k) + a for k, a in entries)

    def access(self, kind: str, *more: tuple[str, bytes]) -> bytes:
        return self.dict(("cuda_tile.preview$access", ACC(kind)), *more)

    # function records
    def entry(self, signature: bytes, body: bytes, name: str = "k") -> bytes:
        return (self.s(name) + self.t(signature) + bytes([0x02, 0, 0x0B, 0, 0x06, 0]) +
                v(len(body)) + body)

    def func(self, signature: bytes, arg_attrs: list[bytes], const_params: list[bytes] = (),
             name: str = "f", flags: int = 0x01) -> bytes:
        """An extern `preview$func` (private, plain form, bodiless)."""
        return (self.s(name) + self.t(signature) + bytes([flags, 0]) + ARRAY(*arg_attrs) +
                v(0) + ARRAY(*const_params))

    def impl(self, signature: bytes, arg_attrs: list[bytes] | None, name: str = "g",
             implements: str = "f", const_params: list[bytes] | None = None,
             const_args: list[bytes] | None = None, scratch: tuple[bytes, bytes] | None = None,
             arch: list[str] | None = None, frontend_abi: list[tuple[str, bytes]] | None = None,
             sync: str | None = None, score: int | None = None, body_length: int = 0,
             flags: int = 0x05) -> bytes:
        """A `preview$extern_impl` record: the op encoding of its attributes (flags bit per
        optional attribute), one empty region, body length."""
        present = [const_params, const_args, arg_attrs, None, scratch, None, arch,
                   frontend_abi, sync, score]
        opflags = sum(1 << i for i, x in enumerate(present) if x is not None)
        out = v(opflags) + self.s(name) + self.s(implements)
        if const_params is not None:
            out += LIST(*const_params)
        if const_args is not None:
            out += LIST(*const_args)
        out += self.t(signature)
        if arg_attrs is not None:
            out += LIST(*arg_attrs)
        if scratch is not None:
            out += scratch[0] + scratch[1]
        if arch is not None:
            out += LIST(*[self.string(a) for a in arch])
        if frontend_abi is not None:
            out += self.udict(*frontend_abi)
        if sync is not None:
            out += v(SYNC[sync])
        if score is not None:
            out += v(score & (1 << 64) - 1)
        out += bytes([1, 0])                  # one region, no blocks
        return (self.s(name) + self.t(signature) + bytes([flags, 0]) + out + v(body_length))

    def call(self, callee: str, operands: list[int], results: list[bytes] = (),
             const_args: list[bytes] = (), arg_attrs: list[bytes] | None = None,
             res_attrs: list[bytes] | None = None) -> bytes:
        """A `preview$call` op (opcode 16386)."""
        flags = (arg_attrs is not None) | (res_attrs is not None) << 1
        out = v(16386) + LIST(*[self.t(r) for r in results]) + v(flags) + self.s(callee)
        out += LIST(*const_args)
        if arg_attrs is not None:
            out += LIST(*arg_attrs)
        if res_attrs is not None:
            out += LIST(*res_attrs)
        return out + LIST(*[v(o) for o in operands])

    def file(self, *functions: bytes) -> bytes:
        payload = v(len(functions)) + b"".join(functions)
        sections = [Section(2, 8, payload + b"\xcb" * (-len(payload) % 8)),
                    Section(5, 4, offset_table(self.types, 4)),
                    Section(1, 4, offset_table(self.strings, 4))]
        return join_sections(MAGIC + bytes([13, 5, 1, 0]), sections)


RETURN = bytes([92, 0, 0])


def _empty_entry(b: Bc) -> bytes:
    return b.entry(b.fn([], []), RETURN)


def _tile_i32(b: Bc) -> bytes:
    return b.tile(I32)


def _calling(b: Bc, func: bytes, call: bytes, entry_inputs: int = 1) -> bytes:
    """Entry `k(tile<i32> x entry_inputs)` holding `call` then return, and `func`."""
    t = _tile_i32(b)
    return b.file(b.entry(b.fn([t] * entry_inputs, []), call + RETURN), func)


# ---- preview$func -----------------------------------------------------------------------

def func_access(kind: str) -> Callable[[Bc], bytes]:
    def build(b: Bc) -> bytes:
        t = _tile_i32(b)
        results = [] if kind == "in" else [t]
        func = b.func(b.fn([t], results), [b.access(kind)])
        return _calling(b, func, b.call("f", [0], results))
    return build


def func_two_args(b: Bc) -> bytes:
    t = _tile_i32(b)
    func = b.func(b.fn([t, t], [t]), [b.access("in"), b.access("out")])
    return _calling(b, func, b.call("f", [0, 1], [t]), entry_inputs=2)


def func_const_params(b: Bc) -> bytes:
    t = _tile_i32(b)
    cps = [b.cparam("N", INDEX), b.cparam("M", SHAPE), b.cparam("k", STRING),
           b.cparam("f", DATATYPE)]
    return b.file(_empty_entry(b), b.func(b.fn([t], []), [b.access("in")], cps))


def func_const_param(type_: bytes) -> Callable[[Bc], bytes]:
    def build(b: Bc) -> bytes:
        t = _tile_i32(b)
        return b.file(_empty_entry(b), b.func(b.fn([t], []), [b.access("in")],
                                              [b.cparam("N", type_)]))
    return build


def func_sym_t(result: bool, dims: tuple[int, ...] = ()) -> Callable[[Bc], bytes]:
    def build(b: Bc) -> bytes:
        t = b.tile(b.sym_t("N"), *dims)
        sig = b.fn([t], [t] if result else [])
        func = b.func(sig, [b.access("inout" if result else "in")],
                      [b.cparam("N", DATATYPE)])
        return b.file(_empty_entry(b), func)
    return build


# ---- preview$call -----------------------------------------------------------------------

def call_const_args(param_types: list[bytes], args: Callable[[Bc], list[bytes]]
                    ) -> Callable[[Bc], bytes]:
    """A call of `f` (one `in` tile<i32> arg) whose const params N0, N1, ... have
    `param_types`, with const args `args(b)`."""
    def build(b: Bc) -> bytes:
        t = _tile_i32(b)
        cps = [b.cparam(f"N{i}", ty) for i, ty in enumerate(param_types)]
        func = b.func(b.fn([t], []), [b.access("in")], cps)
        return _calling(b, func, b.call("f", [0], const_args=args(b)))
    return build


INDEX_EXPRS = [
    lambda b: I(4),
    lambda b: BIN(ADD, I(2), I(3)),
    lambda b: I(-1),
    lambda b: BIN(MUL, BIN(ADD, I(2), I(3)), I(4)),
    lambda b: BIN(ADD, BIN(MUL, I(2), BIN(SUB, I(3), I(4))), I(-1)),
    lambda b: NEG(I(2)),
    lambda b: NEG(BIN(ADD, I(2), I(3))),
    lambda b: BIN(FDIV, I(7), I(2)),
    lambda b: BIN(CDIV, I(7), I(2)),
    lambda b: BIN(SUB, I(3), BIN(SUB, I(4), I(5))),
    lambda b: BIN(ADD, I(3), BIN(MUL, I(4), I(5))),
]

SHAPE_EXPRS = [
    lambda b: TUP(I(2), I(3)),
    lambda b: TUP(BIN(ADD, I(2), I(3)), I(4)),
    lambda b: TUP(TUP(I(2), I(3)), I(4)),
    lambda b: TUP(I(4)),
    lambda b: TUP(TUP(I(4))),
    lambda b: TUP(I(-1)),
    lambda b: TUP(I(0)),
    lambda b: TUP(BIN(FDIV, I(7), I(2))),
]

DATATYPES = [I32, F32, INDEX, TOKEN]


def call_datatypes(b: Bc) -> bytes:
    t = _tile_i32(b)
    kinds = DATATYPES + [t]
    cps = [b.cparam(f"N{i}", DATATYPE) for i in range(len(kinds))]
    func = b.func(b.fn([t], []), [b.access("in")], cps)
    return _calling(b, func, b.call("f", [0], const_args=[b.ctype(k) for k in kinds]))


def call_builtins(b: Bc) -> bytes:
    t = _tile_i32(b)
    cps = [b.cparam("N", INDEX), b.cparam("M", INDEX), b.cparam("S", SHAPE)]
    tid = b.builtin("context.tid")
    func = b.func(b.fn([t], []), [b.access("in")], cps)
    call = b.call("f", [0], const_args=[tid, BIN(ADD, tid, I(1)), TUP(tid)])
    return _calling(b, func, call)


def call_attrs(arg_attrs: Callable[[Bc], list[bytes]] | None,
               res_attrs: Callable[[Bc], list[bytes]] | None = None) -> Callable[[Bc], bytes]:
    def build(b: Bc) -> bytes:
        t = _tile_i32(b)
        results = [] if res_attrs is None else [t]
        func = b.func(b.fn([t], results), [b.access("in" if res_attrs is None else "out")])
        call = b.call("f", [0], results, arg_attrs=None if arg_attrs is None else arg_attrs(b),
                      res_attrs=None if res_attrs is None else res_attrs(b))
        return _calling(b, func, call)
    return build


def call_sym_t(b: Bc) -> bytes:
    t = _tile_i32(b)
    ts = b.tile(b.sym_t("T"))
    func = b.func(b.fn([ts], [ts]), [b.access("inout")], [b.cparam("T", DATATYPE)])
    return _calling(b, func, b.call("f", [0], [t], const_args=[b.ctype(I32)]))


# ---- attributes in an argument's attribute dictionary -------------------------------------

def func_arg_attrs(entries: Callable[[Bc], list[tuple[str, bytes]]]) -> Callable[[Bc], bytes]:
    """`f`'s argument dictionary: the access key, then `entries` (keys `x.*`, sorted)."""
    def build(b: Bc) -> bytes:
        t = _tile_i32(b)
        more = sorted(entries(b))
        return b.file(_empty_entry(b), b.func(b.fn([t], []), [b.access("in", *more)]))
    return build


def every_mnemonic(b: Bc) -> list[tuple[str, bytes]]:
    n, m = b.var("N"), b.var("M")
    return [
        ("x.a_expr_int", I(-3)),
        ("x.b_expr_var", n),
        ("x.c_expr_mul", BIN(MUL, n, I(2))),
        ("x.d_expr_div", BIN(DIV, n, I(2))),
        ("x.e_expr_add", BIN(ADD, n, m)),
        ("x.f_expr_sub", BIN(SUB, n, I(1))),
        ("x.g_expr_floor_div", BIN(FDIV, n, I(2))),
        ("x.h_symbolic_tuple", TUP(I(1), TUP(n))),
        ("x.i_layout", LAY([I(2), I(3)], [I(1), I(2)])),
        ("x.j_expr_ceil_div", BIN(CDIV, n, I(2))),
        ("x.k_concrete_type", b.ctype(I32)),
        ("x.l_expr_neg", NEG(I(3))),
        ("x.m_memory_space", MEMSPACE(1)),
        ("x.n_synchronization", SYNCH("warp")),
        ("x.o_access", ACC("inout")),
        ("x.p_scratch_request", SCRATCH(I(4), I(2))),
        ("x.q_const_param", b.cparam("P", INDEX)),
        ("x.r_expr_builtin", b.builtin("context.tid")),
        ("x.s_expr_const_str", b.cstr("hello")),
    ]


def more_types(b: Bc) -> list[tuple[str, bytes]]:
    return [
        ("x.a", b.ctype(b.sym_t("N"))),
        ("x.b", b.ctype(b.tile(b.sym_t("N")))),
        ("x.c", b.ctype(DATATYPE)),
        ("x.d", MEMSPACE(0)),
        ("x.e", SYNCH("none")),
        ("x.f", SYNCH("cta")),
        ("x.g", ACC("out")),
        ("x.h", TUP()),
        ("x.i", b.ctype(SHAPE)),
    ]


def layout_structures(b: Bc) -> list[tuple[str, bytes]]:
    return [
        ("x.a", LAY([I(4)], [I(1)])),
        ("x.b", LAY([TUP(I(2), I(3)), I(4)], [TUP(I(1), I(2)), I(6)])),
        ("x.c", LAY([TUP(TUP(I(2))), I(4)], [TUP(TUP(I(1))), I(6)])),
        ("x.d", LAY([], [])),
        ("x.e", LAY([TUP()], [TUP()])),
        ("x.f", LAY([TUP(I(2), I(3))], [TUP(I(1), I(2))])),
        ("x.g", LAY([TUP(I(2))], [TUP(I(1))])),
        ("x.h", LAY([I(2)], [I(0)])),
    ]


def layout_precedence(b: Bc) -> list[tuple[str, bytes]]:
    n, y = b.var("N"), b.var("y")
    exprs = [
        BIN(ADD, BIN(ADD, n, y), I(3)),
        BIN(ADD, I(3), BIN(ADD, n, y)),
        BIN(ADD, I(3), BIN(MUL, n, y)),
        BIN(MUL, BIN(ADD, n, y), I(3)),
        BIN(FDIV, BIN(MUL, n, y), I(3)),
        BIN(MUL, I(3), BIN(FDIV, n, y)),
        BIN(CDIV, BIN(CDIV, n, y), I(3)),
        BIN(CDIV, I(3), BIN(CDIV, n, y)),
        BIN(SUB, I(3), BIN(SUB, n, y)),
        BIN(SUB, BIN(SUB, n, y), I(3)),
    ]
    return [(f"x.{chr(97 + i)}", LAY([e], [I(1)])) for i, e in enumerate(exprs)]


def layout_negation(b: Bc) -> list[tuple[str, bytes]]:
    n, y = b.var("N"), b.var("y")
    tid = b.builtin("context.tid")
    exprs = [
        NEG(n),
        NEG(tid),
        NEG(BIN(ADD, n, y)),
        NEG(NEG(n)),
        BIN(ADD, n, NEG(y)),
        BIN(SUB, n, NEG(y)),
        BIN(MUL, NEG(n), y),
        BIN(MUL, NEG(BIN(ADD, n, y)), I(3)),
        BIN(MUL, I(3), NEG(BIN(ADD, n, y))),
        BIN(SUB, I(3), NEG(NEG(n))),
        BIN(ADD, n, I(-3)),
        BIN(SUB, n, I(-3)),
        BIN(ADD, I(-3), n),
        BIN(ADD, tid, I(1)),
    ]
    return [(f"x.{chr(97 + i)}", LAY([e], [I(1)])) for i, e in enumerate(exprs)]


def layout_generic(b: Bc) -> list[tuple[str, bytes]]:
    n = b.var("N")
    return [
        ("x.a", LAY([BIN(DIV, n, I(2))], [I(1)])),
        ("x.b", LAY([BIN(ADD, n, NEG(I(3)))], [I(1)])),
        ("x.c", LAY([TUP(BIN(ADD, n, I(1)), I(3))], [TUP(I(1), b.cstr("s"))])),
    ]


# ---- preview$extern_impl ------------------------------------------------------------------

def impl_file(b: Bc, fragments: list[bytes], func_cps: list[bytes] = (),
              func_tile: bytes | None = None, accesses: list[str] | None = None,
              **impl) -> bytes:
    """Entry `k()`, extern `f(tile<4xi32>...)` and `g`, an extern_impl of `f` whose args are
    `fragments` (access `in` unless `accesses` says)."""
    accesses = accesses or ["in"] * len(fragments)
    t = func_tile or b.tile(I32, 4)
    outs = [t for a in accesses if a != "in"]
    func = b.func(b.fn([t] * len(fragments), outs), [b.access(a) for a in accesses],
                  list(func_cps))
    record = b.impl(b.fn(fragments, []), [b.access(a) for a in accesses], **impl)
    return b.file(_empty_entry(b), func, record)


def FRAG(b: Bc, **kw) -> bytes:
    kw.setdefault("shape", [I(4)])
    kw.setdefault("cache", [4])
    return b.fragment(**kw)


def impl_minimal(b: Bc) -> bytes:
    return impl_file(b, [FRAG(b)], const_params=[])


def impl_no_const_params(b: Bc) -> bytes:
    return impl_file(b, [FRAG(b)])


def impl_const_args(b: Bc) -> bytes:
    fcps = [b.cparam("N", DATATYPE), b.cparam("M", INDEX)]
    return impl_file(b, [FRAG(b)], fcps, const_params=[b.cparam("N", DATATYPE),
                                                         b.cparam("M", INDEX)],
                     const_args=[b.var("N"), b.var("M")])


def impl_wildcard(b: Bc) -> bytes:
    fcps = [b.cparam("N", DATATYPE), b.cparam("M", INDEX)]
    return impl_file(b, [FRAG(b)], fcps, const_params=[b.cparam("?", DATATYPE),
                                                         b.cparam("M", INDEX)],
                     const_args=[b.var("?"), b.var("M")])


def impl_all_attrs(b: Bc) -> bytes:
    return impl_file(b, [FRAG(b)], const_params=[], sync="cta", arch=["sm_90"],
                     scratch=(I(16), I(8)), frontend_abi=[("g", b.string("sm_90"))], score=7)


def impl_attrs_edge(b: Bc) -> bytes:
    tid = b.builtin("context.tid")
    return impl_file(b, [FRAG(b)], sync="none", arch=[], scratch=(BIN(MUL, tid, I(2)), I(1)),
                     frontend_abi=[], score=(1 << 63) + 5)


def impl_warp(b: Bc) -> bytes:
    fm = LAY([I(1), I(32), I(4)], [I(0), I(4), I(1)])
    return impl_file(b, [FRAG(b, fragmap=fm)], func_tile=b.tile(I32, 128), sync="warp")


def impl_fragments(b: Bc) -> bytes:
    """Two args: smem with alignment 4, and a 2x2 f32 one with a nested mem_layout (out)."""
    a = FRAG(b, smem=True, alignment=4)
    c = FRAG(b, shape=[I(2), I(2)], cache=[2, 2], element=F32,
             mem_layout=LAY([TUP(I(2), I(2))], [TUP(I(1), I(2))]))
    return impl_file(b, [a, c], accesses=["in", "out"])


def impl_symbolic(b: Bc) -> bytes:
    """A 4x[N] fragment (N an impl const param) whose fragmap footprint is 4 * N."""
    n = b.var("N")
    frag = FRAG(b, shape=[I(4), n], cache=[4, DYN],
                mem_layout=LAY([I(4), n], [I(1), I(4)]),
                fragmap=LAY([I(1), I(1), BIN(MUL, I(4), n)], [I(0), I(0), I(1)]))
    fcps = [b.cparam("N", INDEX)]
    return impl_file(b, [frag], fcps, const_params=[b.cparam("N", INDEX)], const_args=[n])


def impl_symbolic_exprs(b: Bc) -> bytes:
    """A [N]x[M+1] i32 fragment, and one of [N+-3] elements of sym_t N with alignment 2."""
    n, m = b.var("N"), b.var("M")
    f1 = FRAG(b, shape=[n, BIN(ADD, m, I(1))], cache=[DYN, DYN],
              mem_layout=LAY([n, BIN(ADD, m, I(1))], [I(1), n]),
              fragmap=LAY([I(1), I(1), BIN(MUL, n, BIN(ADD, m, I(1)))], [I(0), I(0), I(1)]))
    fcps = [b.cparam("N", INDEX), b.cparam("M", INDEX)]
    return impl_file(b, [f1], fcps, const_params=[b.cparam("N", INDEX), b.cparam("M", INDEX)],
                     const_args=[n, m])


def impl_sym_t_element(b: Bc) -> bytes:
    """A fragment of `preview$sym_t<T>` elements (T a Datatype const param of both)."""
    frag = FRAG(b, element=b.sym_t("T"))
    return impl_file(b, [frag], [b.cparam("T", DATATYPE)],
                     const_params=[b.cparam("T", DATATYPE)], const_args=[b.var("T")])


def impl_first(b: Bc) -> bytes:
    """The extern_impl record before the preview$func it implements."""
    t = b.tile(I32, 4)
    record = b.impl(b.fn([FRAG(b)], []), [b.access("in")], const_params=[])
    func = b.func(b.fn([t], []), [b.access("in")])
    return b.file(_empty_entry(b), record, func)


# ---- the table -------------------------------------------------------------------------------

CASES: dict[str, Callable[[Bc], bytes]] = {
    "func_in": func_access("in"),
    "func_out": func_access("out"),
    "func_inout": func_access("inout"),
    "func_two_args": func_two_args,
    "func_const_params": func_const_params,
    "func_const_param_index": func_const_param(INDEX),
    "func_const_param_shape": func_const_param(SHAPE),
    "func_const_param_string": func_const_param(STRING),
    "func_const_param_datatype": func_const_param(DATATYPE),
    "func_sym_t_arg": func_sym_t(False),
    "func_sym_t_result": func_sym_t(True, (4, 8)),
    "call_const_index": call_const_args([INDEX] * len(INDEX_EXPRS),
                                        lambda b: [e(b) for e in INDEX_EXPRS]),
    "call_const_shapes": call_const_args([SHAPE] * len(SHAPE_EXPRS),
                                         lambda b: [e(b) for e in SHAPE_EXPRS]),
    "call_const_string": call_const_args([STRING], lambda b: [b.cstr("hello")]),
    "call_const_mixed": call_const_args([DATATYPE, INDEX], lambda b: [b.ctype(I32), I(8)]),
    "call_const_datatypes": call_datatypes,
    "call_const_builtins": call_builtins,
    "call_sym_t": call_sym_t,
    "call_arg_attrs_access": call_attrs(lambda b: [b.access("in")]),
    "call_arg_attrs_empty_dict": call_attrs(lambda b: [b.dict()]),
    "call_arg_attrs_empty": call_attrs(lambda b: []),
    "call_arg_and_res_attrs": call_attrs(lambda b: [b.dict(("hello", I(1)))],
                                         lambda b: [b.dict(("hello", I(2)))]),
    "attrs_every_mnemonic": func_arg_attrs(every_mnemonic),
    "attrs_more_types": func_arg_attrs(more_types),
    "attrs_layout_structures": func_arg_attrs(layout_structures),
    "attrs_layout_precedence": func_arg_attrs(layout_precedence),
    "attrs_layout_negation": func_arg_attrs(layout_negation),
    "attrs_layout_generic": func_arg_attrs(layout_generic),
    "impl_minimal": impl_minimal,
    "impl_no_const_params": impl_no_const_params,
    "impl_const_args": impl_const_args,
    "impl_wildcard": impl_wildcard,
    "impl_all_attrs": impl_all_attrs,
    "impl_attrs_edge": impl_attrs_edge,
    "impl_warp": impl_warp,
    "impl_fragments": impl_fragments,
    "impl_symbolic": impl_symbolic,
    "impl_symbolic_exprs": impl_symbolic_exprs,
    "impl_sym_t_element": impl_sym_t_element,
    "impl_first": impl_first,
}

#: tileirdisasm 13.5 --preview=simt's output for each file (the oracle).
EXPECTED: dict[str, str] = {
    "func_in": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "func_out": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  %0 = preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>\n"
        "  return\n}\npreview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<out>>}) -> tile<i32> \n"),
    "func_inout": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  %0 = preview$call @f(%arg0) : (!cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>\n"
        "  return\n}\npreview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<inout>>}) -> tile<i32> \n"),
    "func_two_args": (
        "entry @k(%arg0: tile<i32>, %arg1: tile<i32>) {\n"
        "  %0 = preview$call @f(%arg0, %arg1) : (!cuda_tile.tile<i32>, "
        "!cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}, %arg1: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<out>>}) -> tile<i32> \n"),
    "func_const_params": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: index, M: !cuda_tile<preview$shape>, k: "
        "!cuda_tile<preview$string>, f: !cuda_tile<preview$Datatype>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "func_const_param_index": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: index]>(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "func_const_param_shape": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$shape>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "func_const_param_string": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$string>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "func_const_param_datatype": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$Datatype>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "func_sym_t_arg": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$Datatype>]>(%arg0: "
        "tile<preview$sym_t<N>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "func_sym_t_result": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$Datatype>]>(%arg0: "
        "tile<4x8xpreview$sym_t<N>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<inout>>}) -> tile<4x8xpreview$sym_t<N>> \n"),
    "call_const_index": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f<[4, 2+3, -1, (2+3)*4, 2*(3-4)+-1, -2, -(2+3), 7/2, 7/+2, "
        "3-(4-5), 3+4*5]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f<[N0: index, N1: index, N2: index, N3: index, N4: index, "
        "N5: index, N6: index, N7: index, N8: index, N9: index, N10: index]>(%arg0: "
        "tile<i32> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "call_const_shapes": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f<[(2, 3), (2+3, 4), ((2, 3), 4), (4,), ((4,),), (-1,), (0,), "
        "(7/2,)]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f<[N0: !cuda_tile<preview$shape>, N1: "
        "!cuda_tile<preview$shape>, N2: !cuda_tile<preview$shape>, N3: "
        "!cuda_tile<preview$shape>, N4: !cuda_tile<preview$shape>, N5: "
        "!cuda_tile<preview$shape>, N6: !cuda_tile<preview$shape>, N7: "
        "!cuda_tile<preview$shape>]>(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "call_const_string": (
        "entry @k(%arg0: tile<i32>) {\n"
        '  preview$call @f<["hello"]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n'
        "preview$func extern @f<[N0: !cuda_tile<preview$string>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "call_const_mixed": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f<[i32, 8]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f<[N0: !cuda_tile<preview$Datatype>, N1: index]>(%arg0: "
        "tile<i32> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "call_const_datatypes": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f<[i32, f32, index, !cuda_tile.token, "
        "!cuda_tile.tile<i32>]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f<[N0: !cuda_tile<preview$Datatype>, N1: "
        "!cuda_tile<preview$Datatype>, N2: !cuda_tile<preview$Datatype>, N3: "
        "!cuda_tile<preview$Datatype>, N4: !cuda_tile<preview$Datatype>]>(%arg0: tile<i32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "call_const_builtins": (
        "entry @k(%arg0: tile<i32>) {\n"
        '  preview$call @f<[#cuda_tile<preview$expr_builtin<"context.tid", index>>, '
        '#cuda_tile<preview$expr_add<#cuda_tile<preview$expr_builtin<"context.tid", '
        "index>>, #cuda_tile<preview$expr_int<1>>>>, "
        '#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_builtin<"context.tid", '
        "index>>]>>]>(%arg0) : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f<[N: index, M: index, S: !cuda_tile<preview$shape>]>(%arg0: "
        "tile<i32> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"),
    "call_sym_t": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  %0 = preview$call @f<[i32]>(%arg0) : (!cuda_tile.tile<i32>) -> "
        "!cuda_tile.tile<i32>\n  return\n}\n"
        "preview$func extern @f<[T: !cuda_tile<preview$Datatype>]>(%arg0: "
        "tile<preview$sym_t<T>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<inout>>}) -> tile<preview$sym_t<T>> \n"),
    "call_arg_attrs_access": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f(%arg0) {arg_attrs = [{cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}]} : (!cuda_tile.tile<i32>) -> ()\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "call_arg_attrs_empty_dict": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f(%arg0) {arg_attrs = [{}]} : (!cuda_tile.tile<i32>) -> ()\n"
        "  return\n}\npreview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "call_arg_attrs_empty": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  preview$call @f(%arg0) {arg_attrs = []} : (!cuda_tile.tile<i32>) -> ()\n"
        "  return\n}\npreview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
    "call_arg_and_res_attrs": (
        "entry @k(%arg0: tile<i32>) {\n"
        "  %0 = preview$call @f(%arg0) {arg_attrs = [{hello = "
        "#cuda_tile<preview$expr_int<1>>}], res_attrs = [{hello = "
        "#cuda_tile<preview$expr_int<2>>}]} : (!cuda_tile.tile<i32>) -> "
        "!cuda_tile.tile<i32>\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<out>>}) -> tile<i32> \n"),
    "attrs_every_mnemonic": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a_expr_int = #cuda_tile<preview$expr_int<-3>>, "
        'x.b_expr_var = #cuda_tile<preview$expr_var<"N">>, x.c_expr_mul = '
        '#cuda_tile<preview$expr_mul<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<2>>>>, x.d_expr_div = "
        '#cuda_tile<preview$expr_div<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<2>>>>, x.e_expr_add = "
        '#cuda_tile<preview$expr_add<#cuda_tile<preview$expr_var<"N">>, '
        '#cuda_tile<preview$expr_var<"M">>>>, x.f_expr_sub = '
        '#cuda_tile<preview$expr_sub<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<1>>>>, x.g_expr_floor_div = "
        '#cuda_tile<preview$expr_floor_div<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<2>>>>, x.h_symbolic_tuple = "
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_int<1>>, "
        '#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_var<"N">>]>>]>>, '
        "x.i_layout = #cuda_tile<preview$layout<(2, 3):(1, 2)>>, x.j_expr_ceil_div = "
        '#cuda_tile<preview$expr_ceil_div<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<2>>>>, x.k_concrete_type = "
        "#cuda_tile<preview$concrete_type<i32>>, x.l_expr_neg = "
        "#cuda_tile<preview$expr_neg<#cuda_tile<preview$expr_int<3>>>>, x.m_memory_space = "
        "#cuda_tile<preview$memory_space<smem>>, x.n_synchronization = "
        "#cuda_tile<preview$synchronization<warp>>, x.o_access = "
        "#cuda_tile<preview$access<inout>>, x.p_scratch_request = "
        "#cuda_tile<preview$scratch_request<smem.size = #cuda_tile<preview$expr_int<4>>, "
        "smem.alignment = #cuda_tile<preview$expr_int<2>>>>, x.q_const_param = "
        '#cuda_tile<preview$const_param<name = "P", type = index>>, x.r_expr_builtin = '
        '#cuda_tile<preview$expr_builtin<"context.tid", index>>, x.s_expr_const_str = '
        '#cuda_tile<preview$expr_const_str<"hello">>}) \n'),
    "attrs_more_types": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a = "
        "#cuda_tile<preview$concrete_type<!cuda_tile<preview$sym_t<N>>>>, x.b = "
        "#cuda_tile<preview$concrete_type<!cuda_tile.tile<preview$sym_t<N>>>>, x.c = "
        "#cuda_tile<preview$concrete_type<!cuda_tile<preview$Datatype>>>, x.d = "
        "#cuda_tile<preview$memory_space<local>>, x.e = "
        "#cuda_tile<preview$synchronization<none>>, x.f = "
        "#cuda_tile<preview$synchronization<cta>>, x.g = #cuda_tile<preview$access<out>>, "
        "x.h = #cuda_tile<preview$symbolic_tuple<[]>>, x.i = "
        "#cuda_tile<preview$concrete_type<!cuda_tile<preview$shape>>>}) \n"),
    "attrs_layout_structures": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a = #cuda_tile<preview$layout<(4):(1)>>, x.b = "
        "#cuda_tile<preview$layout<((2, 3), 4):((1, 2), 6)>>, x.c = "
        "#cuda_tile<preview$layout<(((2,),), 4):(((1,),), 6)>>, x.d = "
        "#cuda_tile<preview$layout<():()>>, x.e = #cuda_tile<preview$layout<(()):(())>>, "
        "x.f = #cuda_tile<preview$layout<((2, 3)):((1, 2))>>, x.g = "
        "#cuda_tile<preview$layout<((2,)):((1,))>>, x.h = "
        "#cuda_tile<preview$layout<(2):(0)>>}) \n"),
    "attrs_layout_precedence": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a = #cuda_tile<preview$layout<(N + y + "
        "3):(1)>>, x.b = #cuda_tile<preview$layout<(3 + (N + y)):(1)>>, x.c = "
        "#cuda_tile<preview$layout<(3 + N * y):(1)>>, x.d = #cuda_tile<preview$layout<((N "
        "+ y) * 3):(1)>>, x.e = #cuda_tile<preview$layout<(N * y / 3):(1)>>, x.f = "
        "#cuda_tile<preview$layout<(3 * (N / y)):(1)>>, x.g = #cuda_tile<preview$layout<(N "
        "/+ y /+ 3):(1)>>, x.h = #cuda_tile<preview$layout<(3 /+ (N /+ y)):(1)>>, x.i = "
        "#cuda_tile<preview$layout<(3 - (N - y)):(1)>>, x.j = #cuda_tile<preview$layout<(N "
        "- y - 3):(1)>>}) \n"),
    "attrs_layout_negation": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a = #cuda_tile<preview$layout<(-N):(1)>>, x.b = "
        "#cuda_tile<preview$layout<(-context.tid):(1)>>, x.c = "
        "#cuda_tile<preview$layout<(-(N + y)):(1)>>, x.d = "
        "#cuda_tile<preview$layout<(-(-N)):(1)>>, x.e = #cuda_tile<preview$layout<(N + "
        "-y):(1)>>, x.f = #cuda_tile<preview$layout<(N - -y):(1)>>, x.g = "
        "#cuda_tile<preview$layout<(-N * y):(1)>>, x.h = #cuda_tile<preview$layout<(-(N + "
        "y) * 3):(1)>>, x.i = #cuda_tile<preview$layout<(3 * -(N + y)):(1)>>, x.j = "
        "#cuda_tile<preview$layout<(3 - -(-N)):(1)>>, x.k = #cuda_tile<preview$layout<(N + "
        "-3):(1)>>, x.l = #cuda_tile<preview$layout<(N - -3):(1)>>, x.m = "
        "#cuda_tile<preview$layout<(-3 + N):(1)>>, x.n = "
        "#cuda_tile<preview$layout<(context.tid + 1):(1)>>}) \n"),
    "attrs_layout_generic": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<i32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>, x.a = #cuda_tile<preview$layout<shapes = "
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_div<#cuda_tile<previe"
        'w$expr_var<"N">>, #cuda_tile<preview$expr_int<2>>>>]>>, strides = '
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_int<1>>]>>>>, x.b = "
        "#cuda_tile<preview$layout<shapes = "
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_add<#cuda_tile<previe"
        'w$expr_var<"N">>, '
        "#cuda_tile<preview$expr_neg<#cuda_tile<preview$expr_int<3>>>>>>]>>, strides = "
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$expr_int<1>>]>>>>, x.c = "
        "#cuda_tile<preview$layout<shapes = "
        "#cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$symbolic_tuple<[#cuda_tile"
        '<preview$expr_add<#cuda_tile<preview$expr_var<"N">>, '
        "#cuda_tile<preview$expr_int<1>>>>, #cuda_tile<preview$expr_int<3>>]>>]>>, strides "
        "= #cuda_tile<preview$symbolic_tuple<[#cuda_tile<preview$symbolic_tuple<[#cuda_tile"
        '<preview$expr_int<1>>, #cuda_tile<preview$expr_const_str<"s">>]>>]>>>>}) \n'),
    "impl_minimal": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[]> implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>})\n"),
    "impl_no_const_params": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>})\n"),
    "impl_const_args": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$Datatype>, M: index]>(%arg0: "
        "tile<4xi32> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[N: !cuda_tile<preview$Datatype>, M: index]> implements "
        "@f<[N, M]> (%arg0: preview$fragment<4xi32, local, mem_layout = <(4):(1)>, fragmap "
        "= <(1, 1, 4):(0, 0, 1)>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>})\n"),
    "impl_wildcard": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: !cuda_tile<preview$Datatype>, M: index]>(%arg0: "
        "tile<4xi32> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[?, M: index]> implements @f<[?, M]> (%arg0: "
        "preview$fragment<4xi32, local, mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, "
        "0, 1)>> {cuda_tile.preview$access = #cuda_tile<preview$access<in>>})\n"),
    "impl_all_attrs": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[]> implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) synchronization = "
        '#cuda_tile<preview$synchronization<cta>> arch = ["sm_90"] scratch {smem.size = '
        "#cuda_tile<preview$expr_int<16>>, smem.alignment = "
        '#cuda_tile<preview$expr_int<8>>} {frontendABI = {g = "sm_90"}, provider_score = 7 '
        ": i64}\n"),
    "impl_attrs_edge": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) synchronization = "
        "#cuda_tile<preview$synchronization<none>> arch = [] scratch {smem.size = "
        '#cuda_tile<preview$expr_mul<#cuda_tile<preview$expr_builtin<"context.tid", '
        "index>>, #cuda_tile<preview$expr_int<2>>>>, smem.alignment = "
        "#cuda_tile<preview$expr_int<1>>} {frontendABI = {}, provider_score = "
        "-9223372036854775803 : i64}\n"),
    "impl_warp": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<128xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 32, 4):(0, 4, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) synchronization = "
        "#cuda_tile<preview$synchronization<warp>>\n"),
    "impl_fragments": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}, %arg1: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<out>>}) -> tile<4xi32> \n"
        "preview$extern_impl @g implements @f (%arg0: preview$fragment<4xi32, smem, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>, alignment = 4> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}, %arg1: "
        "preview$fragment<2x2xf32, local, mem_layout = <((2, 2)):((1, 2))>, fragmap = <(1, "
        "1, 4):(0, 0, 1)>> {cuda_tile.preview$access = #cuda_tile<preview$access<out>>})\n"),
    "impl_symbolic": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: index]>(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[N: index]> implements @f<[N]> (%arg0: "
        "preview$fragment<4x[N]xi32, local, mem_layout = <(4, N):(1, 4)>, fragmap = <(1, "
        "1, 4 * N):(0, 0, 1)>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>})\n"),
    "impl_symbolic_exprs": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[N: index, M: index]>(%arg0: tile<4xi32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[N: index, M: index]> implements @f<[N, M]> (%arg0: "
        "preview$fragment<[N]x[M+1]xi32, local, mem_layout = <(N, M + 1):(1, N)>, fragmap "
        "= <(1, 1, N * (M + 1)):(0, 0, 1)>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>})\n"),
    "impl_sym_t_element": (
        "entry @k() {\n  return\n}\n"
        "preview$func extern @f<[T: !cuda_tile<preview$Datatype>]>(%arg0: tile<4xi32> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>}) \n"
        "preview$extern_impl @g<[T: !cuda_tile<preview$Datatype>]> implements @f<[T]> "
        "(%arg0: preview$fragment<4xpreview$sym_t<T>, local, mem_layout = <(4):(1)>, "
        "fragmap = <(1, 1, 4):(0, 0, 1)>> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>})\n"),
    "impl_first": (
        "entry @k() {\n  return\n}\n"
        "preview$extern_impl @g<[]> implements @f (%arg0: preview$fragment<4xi32, local, "
        "mem_layout = <(4):(1)>, fragmap = <(1, 1, 4):(0, 0, 1)>> "
        "{cuda_tile.preview$access = #cuda_tile<preview$access<in>>})\n"
        "preview$func extern @f(%arg0: tile<4xi32> {cuda_tile.preview$access = "
        "#cuda_tile<preview$access<in>>}) \n"),
}


def build(name: str) -> bytes:
    return CASES[name](Bc())


# ---- tests ------------------------------------------------------------------------------------


def _disasm(data: bytes, tmp_path: Path, name: str = "k"):
    path = tmp_path / f"{name}.tileirbc"
    path.write_bytes(data)
    return corpus.run_tool("tileirdisasm", "--preview=simt", str(path))


def _bare(module) -> str:
    module.spelling = "bare"
    return module.format()


def _wrapped(text: str) -> str:
    """`text` as cuda-tile-translate prints a module: inside `cuda_tile.module @kernels`."""
    body = "".join("  " + line + "\n" for line in text.splitlines())
    return "cuda_tile.module @kernels {\n" + body + "}\n"


def _first_difference(expected: bytes, actual: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(expected, actual)) if x != y),
              min(len(expected), len(actual)))
    return (f"first difference at byte {at}: expected {expected[at:at + 16].hex(' ')}, "
            f"got {actual[at:at + 16].hex(' ')} (lengths {len(expected)}, {len(actual)})")


def test_every_case_is_pinned() -> None:
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tileirdisasm_prints_the_pinned_text(tmp_path: Path, name: str) -> None:
    done = _disasm(build(name), tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_tileir_prints_what_tileirdisasm_prints(name: str) -> None:
    module = from_bytecode(build(name), preview=PREVIEW)
    assert _bare(module) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_translate_cli_prints_the_same_module(tmp_path: Path, capsys, name: str) -> None:
    path = tmp_path / "k.tileirbc"
    path.write_bytes(build(name))
    assert translate.main(["-cudatilebc-to-mlir", "--preview=simt", str(path)]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (_wrapped(EXPECTED[name]), "")


@pytest.mark.parametrize("name", sorted(CASES))
def test_tileir_writes_back_the_same_bytes(name: str) -> None:
    data = build(name)
    written = to_bytecode(from_bytecode(data, preview=PREVIEW), "13.5")
    assert written == data, _first_difference(data, written)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pinned_text_written_by_tileir_prints_the_same(tmp_path: Path, name: str) -> None:
    written = to_bytecode(tileir.parse(EXPECTED[name]), "13.5")
    done = _disasm(written, tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == EXPECTED[name]


# ---- refusals ---------------------------------------------------------------------------------

def _refused_public_func(b: Bc) -> bytes:
    t = _tile_i32(b)
    return _calling(b, b.func(b.fn([t], []), [b.access("in")], flags=0x00),
                    b.call("f", [0]))


def _refused_access_3(b: Bc) -> bytes:
    t = _tile_i32(b)
    bad = b.dict(("cuda_tile.preview$access", _tag(0xDF) + b"\x03"))
    return _calling(b, b.func(b.fn([t], []), [bad]), b.call("f", [0]))


def _refused_impl_body(b: Bc) -> bytes:
    return impl_file(b, [FRAG(b)], const_params=[], body_length=1)


def _refused_layout_rank(b: Bc) -> bytes:
    return func_arg_attrs(lambda b: [("x.a", LAY([I(2)], []))])(b)


def _refused_dotted_var(b: Bc) -> bytes:
    return func_arg_attrs(lambda b: [("x.a", b.var("a.b"))])(b)


def _refused_impl_public(b: Bc) -> bytes:
    return impl_file(b, [FRAG(b)], const_params=[], flags=0x04)


def _refused_impl_wrong_access(b: Bc) -> bytes:
    t = b.tile(I32, 4)
    func = b.func(b.fn([t], []), [b.access("in")])
    record = b.impl(b.fn([FRAG(b)], []), [b.access("out")], const_params=[])
    return b.file(_empty_entry(b), func, record)


VERIFY_FAILED = "verification failed for deserialized cuda_tile::ModuleOp"

#: name -> (builder, the error lines tileirdisasm writes to stderr before its closing
#: `error: failed to read provided Tile IR bytecode` (it exits with 3), less the nested
#: "failed to parse ..." context lines of a read error: the message, then VERIFY_FAILED for
#: a verifier error).  Its offsets count from the function record, tileir's from the file
#: start, so tileir is held to the words after `error at offset N: `.
REFUSALS: dict[str, tuple[Callable[[Bc], bytes], list[str]]] = {
    "public_func": (_refused_public_func, [
        "'cuda_tile.preview$func' op symbol declaration cannot have public visibility",
        VERIFY_FAILED]),
    "access_3": (_refused_access_3, [
        "error at offset 34: invalid enum value for value: 3"]),
    "impl_body_length": (_refused_impl_body, [
        "error at offset 47: extern implementation entry has non-zero body length (1); "
        "bodiless extern implementations must have body length 0"]),
    "impl_public": (_refused_impl_public, [
        "'cuda_tile.preview$extern_impl' op symbol declaration cannot have public visibility",
        VERIFY_FAILED]),
    "impl_access_mismatch": (_refused_impl_wrong_access, [
        "'cuda_tile.preview$extern_impl' op simt-path impl argument 0 access (out) must "
        "match extern function argument access (in)", VERIFY_FAILED]),
    "layout_rank": (_refused_layout_rank, [
        "error at offset 33: shapes and strides must have the same rank, got 1 vs 0"]),
    "dotted_var": (_refused_dotted_var, [
        "error at offset 29: expression variable name cannot contain '.'; dotted names are "
        "reserved for builtins"]),
}


#: Refusals tileir reports while reading the record (tileir's IR holds no visibility for
#: these bodiless functions: the flag is checked where it is read), with the verifier's words.
READ_TIME = ("public_func", "impl_public")


def _words(message: str) -> str:
    return re.sub(r"^error at offset \d+: ", "", message)


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_tileirdisasm_refuses(tmp_path: Path, name: str) -> None:
    builder, messages = REFUSALS[name]
    done = _disasm(builder(Bc()), tmp_path)
    assert (done.returncode, done.stdout) == (3, "")
    lines = done.stderr.splitlines()
    assert lines[-1] == "error: failed to read provided Tile IR bytecode"
    assert lines[:len(messages)] == ["error: " + m for m in messages]


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_tileir_refuses_as_tileirdisasm_does(tmp_path: Path, capsys, name: str) -> None:
    """One error (and the reference's `verification failed` line after a verifier error),
    with tileirdisasm's words; the CLI prints those lines and exits with 1."""
    builder, messages = REFUSALS[name]
    data = builder(Bc())
    with pytest.raises(TileIRError) as caught:
        from_bytecode(data, preview=PREVIEW)
    expected = [_words(m) for m in messages if name not in READ_TIME or m != VERIFY_FAILED]
    assert [_words(d.message) for d in caught.value.diagnostics] == expected
    path = tmp_path / "k.tileirbc"
    path.write_bytes(data)
    assert translate.main(["-cudatilebc-to-mlir", "--preview=simt", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert [_words(line.removeprefix("error: ")) for line in err.splitlines()] == expected


def test_preview_content_is_not_written_at_13_4() -> None:
    module = from_bytecode(build("func_in"), preview=PREVIEW)
    with pytest.raises(BytecodeError):
        to_bytecode(module, "13.4")
