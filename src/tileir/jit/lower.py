"""Lowering of one entry kernel to one LLVM function that runs a span of tile blocks.

``i32 @run_span(i64 begin, i64 end, ptr args, ptr scratch)`` runs tile blocks ``begin``
to ``end - 1`` (numbered x fastest, as `launch.block_order` numbers them) and returns 0,
or 1 as soon as a check fails (then the launcher reruns the kernel on the reference
engine from memory as it was).  ``args`` holds i64 words: the grid's three extents, then
one word per scalar parameter (its bits) and four per pointer parameter (its address, and
the first address, end address and host address of the buffer it points into).  Rank-0
tiles are LLVM values; larger tiles are loop nests over their elements, held in
``scratch`` (a slot per op result), or a global constant, or a splat held as one value.

Only the ops and types listed in `SUPPORTED` lower; anything else raises `Unsupported`
with a one-line reason, and the launcher falls back.  Float ops are IEEE operations in
the element type with no fast-math flag (no contraction), NaN results replaced by the
reference's canonical NaN, exactly as `interp.semantics.floating_point` does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..enums import (ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
                     MemoryOrderingSemantics, RoundingMode, Signedness)
from ..ir import BlockArgument, Operation
from ..numerics import float_format, numpy_dtype
from ..types import (F32, F64, I1, I32, I64, PartitionViewType, PointerType, TensorViewType,
                     TileType)
from ..interp.semantics.core import dense_values
from ..interp.semantics.registry import short_name
from ..interp.semantics.views import padding_code
from .emitter import Emitter


class Unsupported(Exception):
    """The kernel uses something the compiled engine does not compile (the message says
    what, in one line)."""


#: The element types the engine compiles, as LLVM types.
LLVM_TYPES = {F32: "float", F64: "double", I1: "i1", I32: "i32", I64: "i64"}
#: Bytes per element in scratch and memory.
SIZES = {F32: 4, F64: 8, I1: 1, I32: 4, I64: 8}
#: Element types memory accesses compile for.
MEMORY_TYPES = (F32, F64, I32, I64)
#: The canonical NaN bits the reference engine gives NaN results (`_CANONICAL_NAN`).
CANONICAL_NAN = {F32: 0x7FFFFFFF, F64: 0x7FFFFFFFFFFFFFFF}
#: Integer type holding each float type's bits.
BITS = {F32: "i32", F64: "i64"}
#: Views are checked to reach less than this address (so i64 arithmetic never wraps).
REACH_LIMIT = 1 << 62
#: Tensor view extents and strides the engine accepts (larger: the check fails).
EXTENT_LIMIT = 1 << 40

_FLOAT_BINARY = {"addf": "fadd", "subf": "fsub", "mulf": "fmul", "divf": "fdiv"}
_INT_BINARY = {"addi": "add", "subi": "sub", "muli": "mul", "andi": "and", "ori": "or",
               "xori": "xor"}
_FCMP = {ComparisonPredicate.EQUAL: "eq", ComparisonPredicate.NOT_EQUAL: "ne",
         ComparisonPredicate.LESS_THAN: "lt", ComparisonPredicate.LESS_THAN_OR_EQUAL: "le",
         ComparisonPredicate.GREATER_THAN: "gt",
         ComparisonPredicate.GREATER_THAN_OR_EQUAL: "ge"}
_ICMP = {ComparisonPredicate.EQUAL: ("eq", "eq"), ComparisonPredicate.NOT_EQUAL: ("ne", "ne"),
         ComparisonPredicate.LESS_THAN: ("slt", "ult"),
         ComparisonPredicate.LESS_THAN_OR_EQUAL: ("sle", "ule"),
         ComparisonPredicate.GREATER_THAN: ("sgt", "ugt"),
         ComparisonPredicate.GREATER_THAN_OR_EQUAL: ("sge", "uge")}
#: Every op the engine lowers.
SUPPORTED = frozenset({
    "constant", *_FLOAT_BINARY, "negf", "absf", "maxf", "minf", *_INT_BINARY, "cmpf", "cmpi",
    "select", "get_tile_block_id", "get_num_tile_blocks", "make_token", "join_tokens",
    "make_tensor_view", "make_partition_view", "load_view_tko", "store_view_tko", "return"})
#: The attributes each op may carry (any other one: the op is not compiled).
_ALLOWED_ATTRS = {
    **{n: {"rounding_mode", "flush_to_zero"} for n in _FLOAT_BINARY},
    "maxf": {"propagate_nan", "flush_to_zero"}, "minf": {"propagate_nan", "flush_to_zero"},
    **{n: {"overflow"} for n in ("addi", "subi", "muli")},
    "cmpf": {"comparison_predicate", "comparison_ordering"},
    "cmpi": {"comparison_predicate", "signedness"},
    "constant": {"value"}, "make_tensor_view": {"operandSegmentSizes"},
    "load_view_tko": {"memory_ordering_semantics", "optimization_hints", "inbounds",
                      "operandSegmentSizes"},
    "store_view_tko": {"memory_ordering_semantics", "optimization_hints", "inbounds",
                       "operandSegmentSizes"},
}


@dataclass(frozen=True)
class Scalar:
    """A rank-0 tile: an LLVM value (or literal) of LLVM type `ty`."""

    name: str
    ty: str


@dataclass(frozen=True)
class Tile:
    """A tile of `count` elements of LLVM type `ty` at pointer `ptr` (row-major)."""

    ptr: str
    count: int
    ty: str


@dataclass(frozen=True)
class Splat:
    """A tile of `count` copies of one scalar."""

    value: Scalar
    count: int


@dataclass(frozen=True)
class View:
    """A rank-1 tensor view over a pointer parameter's buffer, maybe partitioned."""

    param: int                  # the pointer parameter its base is
    base: str                   # i64 values: address, extent and stride in elements
    shape: str
    stride: str
    element: Any                # its element type
    uniform: bool = True        # whether its stride is the same in every tile block
    tile: int | None = None     # a partition view's tile size
    padding: int | None = None  # the padding value's bits (None: zero, or no padding)


@dataclass(frozen=True)
class Access:
    """A memory access the race checks need to know about: the pointer parameter it goes
    through, whether it writes, and which tile block id component (0, 1, 2) its tile index
    is, when it is exactly one."""

    param: int
    write: bool
    block_dim: int | None
    #: Whether the view's stride is the same in every tile block (static, or a parameter).
    uniform: bool = True


@dataclass
class Lowered:
    """A kernel as LLVM IR text, with what the runner needs to call it."""

    ir: str
    params: tuple[str, ...]          # per parameter: "pointer" or the scalar's LLVM type
    scratch_bytes: int
    accesses: tuple[Access, ...] = field(default=())
    #: Why the kernel cannot run compiled with checks on (ops whose UB check is not
    #: compiled: it runs with checks off, where the reference computes the same wrap).
    unchecked: tuple[str, ...] = field(default=())


_TOKEN = object()       # the value of a token (the compiled engine orders ops as written)


def _element(t: Any, what: str) -> str:
    """The LLVM type of element type `t`, or `Unsupported`."""
    ty = LLVM_TYPES.get(t)
    if ty is None:
        raise Unsupported(f"{what} has element type {t}")
    return ty


class _Lowering:
    """The state of one kernel's lowering."""

    def __init__(self, kernel: Operation) -> None:
        self.kernel = kernel
        self.e = Emitter()
        self.values: dict[Any, Any] = {}
        self.scratch = 0
        self.accesses: list[Access] = []
        self.block_ids: dict[Any, int] = {}   # get_tile_block_id results -> component
        self.fail = "fail"
        self.params: list[str] = []
        self.overflow_flags: list[str] = []

    # ---- whole kernel ------------------------------------------------------------

    def run(self) -> Lowered:
        """The kernel's LLVM module text."""
        e = self.e
        blocks = self.kernel.regions[0].blocks if self.kernel.regions else []
        if len(blocks) != 1:
            raise Unsupported("the kernel has more than one block")
        block = blocks[0]
        word = 3
        words: list[tuple[BlockArgument, int, str]] = []
        for arg in block.arguments:
            t = arg.type
            if not isinstance(t, TileType) or t.rank != 0:
                raise Unsupported(f"parameter {arg.index} has type {t} (only scalars and "
                                  "pointers are compiled)")
            if isinstance(t.element_type, PointerType):
                if t.element_type.ptr_attr is not None:
                    raise Unsupported(f"parameter {arg.index} is a {t.element_type} pointer")
                words.append((arg, word, "pointer"))
                self.params.append("pointer")
                word += 4
            else:
                ty = _element(t.element_type, f"parameter {arg.index}")
                words.append((arg, word, ty))
                self.params.append(ty)
                word += 1
        self.grid = [self._word(k) for k in range(3)]
        for arg, at, kind in words:
            if kind == "pointer":
                self.values[arg] = ("pointer", arg.index,
                                    *(self._word(at + k) for k in range(4)))
            else:
                self.values[arg] = Scalar(self._from_word(self._word(at), kind), kind)
        count = e.op("sub i64 %end, %begin", "count")
        with e.loop(count, "blk") as i:
            n = e.op(f"add i64 %begin, {i}", "n")
            gx, gy, _ = self.grid
            bx = e.op(f"urem i64 {n}, {gx}", "bx")
            rest = e.op(f"udiv i64 {n}, {gx}", "rest")
            by = e.op(f"urem i64 {rest}, {gy}", "by")
            bz = e.op(f"udiv i64 {rest}, {gy}", "bz")
            self.block_id = [bx, by, bz]
            for op in block:
                self.lower(op)
        e.do("ret i32 0")
        e.start(self.fail)
        e.do("ret i32 1")
        body = "\n".join(e.lines)
        ir = "\n".join(e.globals) + (
            "\n\ndefine i32 @run_span(i64 %begin, i64 %end, ptr noalias %args, "
            f"ptr noalias %scratch) {{\nentry:\n{body}\n}}\n")
        return Lowered(ir, tuple(self.params), self.scratch, tuple(self.accesses),
                       tuple(self.overflow_flags))

    def _word(self, k: int) -> str:
        """Load word `k` of the argument block."""
        at = self.e.op(f"getelementptr i64, ptr %args, i64 {k}", "at")
        return self.e.op(f"load i64, ptr {at}", "w")

    def _from_word(self, w: str, ty: str) -> str:
        """A scalar parameter of LLVM type `ty` from its i64 word."""
        e = self.e
        if ty == "i64":
            return w
        if ty == "double":
            return e.op(f"bitcast i64 {w} to double")
        narrow = e.op(f"trunc i64 {w} to {'i32' if ty == 'float' else ty}")
        return e.op(f"bitcast i32 {narrow} to float") if ty == "float" else narrow

    # ---- ops ---------------------------------------------------------------------

    def lower(self, op: Operation) -> None:
        """Lower one op (its results recorded in `values`)."""
        name = short_name(op)
        if name not in SUPPORTED or op.regions:
            raise Unsupported(f"op '{op.name}' is not compiled")
        extra = set(op.attributes) - _ALLOWED_ATTRS.get(name, set())
        if extra:
            raise Unsupported(f"'{op.name}' has attribute {sorted(extra)[0]}, which is not "
                              "compiled")
        results = getattr(self, "_" + name)(op)
        if results is None:
            return
        if not isinstance(results, tuple):
            results = (results,)
        for value, result in zip(results, op.results):
            self.values[result] = value

    def _get(self, value: Any) -> Any:
        """The lowered value of an IR value."""
        return self.values[value]

    def _return(self, op: Operation) -> None:
        if op.operands:
            raise Unsupported("the kernel returns values")

    def _make_token(self, op: Operation) -> Any:
        return _TOKEN

    def _join_tokens(self, op: Operation) -> Any:
        return _TOKEN

    def _get_tile_block_id(self, op: Operation) -> tuple[Scalar, ...]:
        out = []
        for k, result in enumerate(op.results):
            self.block_ids[result] = k
            out.append(Scalar(self.e.op(f"trunc i64 {self.block_id[k]} to i32"), "i32"))
        return tuple(out)

    def _get_num_tile_blocks(self, op: Operation) -> tuple[Scalar, ...]:
        return tuple(Scalar(self.e.op(f"trunc i64 {g} to i32"), "i32") for g in self.grid)

    def _constant(self, op: Operation) -> Any:
        t = op.results[0].type
        ty = _element(t.element_type, "a constant")
        values = dense_values(op.attr("value"))
        bits = values.reshape(-1).view(_unsigned_dtype(t.element_type))
        if t.rank == 0 or len(op.attr("value").values) == 1:
            scalar = Scalar(self._literal(int(bits[0]), t.element_type), ty)
            return scalar if t.rank == 0 else Splat(scalar, t.num_elements)
        name = self.e.global_name()
        word = BITS.get(t.element_type, ty)
        if ty == "i1":
            word = "i8"
        items = ", ".join(f"{word} {_signed(int(b), bits.itemsize * 8)}" for b in bits)
        self.e.globals.append(f"{name} = private unnamed_addr constant "
                              f"[{bits.size} x {word}] [{items}], align 16")
        return Tile(name, int(bits.size), ty)

    def _literal(self, bits: int, t: Any) -> str:
        """A scalar of element type `t` with exactly these bits."""
        if t in BITS:
            return self.e.op(f"bitcast {BITS[t]} {_signed(bits, SIZES[t] * 8)} to "
                             f"{LLVM_TYPES[t]}", "k")
        if t == I1:
            return "true" if bits & 1 else "false"
        return str(_signed(bits, SIZES[t] * 8))

    # elementwise ops: rank 0 on LLVM values, larger tiles as a loop over the elements

    def _elementwise(self, op: Operation, compute: Callable[[list[str]], str]) -> Any:
        """Lower an elementwise op whose result element is `compute(operand elements)`."""
        result = op.results[0].type
        ty = _element(result.element_type, f"'{op.name}'")
        for operand in op.operands:
            _element(operand.type.element_type, f"an operand of '{op.name}'")
        operands = [self._get(v) for v in op.operands]
        if result.rank == 0:
            return Scalar(compute([v.name for v in operands]), ty)
        count = result.num_elements
        out = self._slot(count, result.element_type)
        e = self.e
        with e.loop(str(count)) as i:
            elements = [self._element_of(v, i) for v in operands]
            value = compute(elements)
            at = e.op(f"getelementptr {ty}, ptr {out}, i64 {i}", "at")
            e.do(f"store {ty} {value}, ptr {at}")
        return Tile(out, count, ty)

    def _element_of(self, value: Any, i: str) -> str:
        """Element `i` of a tile (a splat's or a scalar's value)."""
        if isinstance(value, Splat):
            return value.value.name
        if isinstance(value, Scalar):
            return value.name
        at = self.e.op(f"getelementptr {value.ty}, ptr {value.ptr}, i64 {i}", "at")
        return self.e.op(f"load {value.ty}, ptr {at}", "x")

    def _slot(self, count: int, t: Any) -> str:
        """A pointer to a fresh scratch slot of `count` elements of `t` (64-byte aligned)."""
        offset = self.scratch
        self.scratch += -(-count * SIZES[t] // 64) * 64
        return self.e.op(f"getelementptr i8, ptr %scratch, i64 {offset}", "slot")

    def _float_type(self, op: Operation) -> Any:
        """The float element type of `op`'s result, after checking its numerics flags."""
        t = op.results[0].type.element_type
        if t not in CANONICAL_NAN:
            raise Unsupported(f"'{op.name}' on {t} (only f32 and f64 are compiled)")
        if op.has_flag("flush_to_zero"):
            raise Unsupported(f"'{op.name}' has flush_to_zero")
        mode = op.enum("rounding_mode")
        if mode not in (None, RoundingMode.NEAREST_EVEN):
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        return t

    def _canonical(self, value: str, t: Any) -> str:
        """`value` with a NaN replaced by the canonical NaN."""
        e, ty = self.e, LLVM_TYPES[t]
        nan = e.op(f"fcmp uno {ty} {value}, {value}", "nan")
        canon = e.op(f"bitcast {BITS[t]} {_signed(CANONICAL_NAN[t], SIZES[t] * 8)} to {ty}",
                     "canon")
        return e.op(f"select i1 {nan}, {ty} {canon}, {ty} {value}")

    def _binary_float(self, op: Operation) -> Any:
        t = self._float_type(op)
        ty, instruction = LLVM_TYPES[t], _FLOAT_BINARY[short_name(op)]
        return self._elementwise(op, lambda x: self._canonical(
            self.e.op(f"{instruction} {ty} {x[0]}, {x[1]}"), t))

    _addf = _subf = _mulf = _divf = _binary_float

    def _sign_bit(self, op: Operation, keep: bool) -> Any:
        """negf (flip the sign bit) or absf (clear it), on the bits (NaN included)."""
        t = op.results[0].type.element_type
        if t not in CANONICAL_NAN:
            raise Unsupported(f"'{op.name}' on {t} (only f32 and f64 are compiled)")
        ty, word, width = LLVM_TYPES[t], BITS[t], SIZES[t] * 8
        sign = _signed(1 << (width - 1), width)
        instruction = "xor" if keep else "and"
        mask = sign if keep else _signed((1 << (width - 1)) - 1, width)

        def compute(x: list[str]) -> str:
            bits = self.e.op(f"bitcast {ty} {x[0]} to {word}")
            changed = self.e.op(f"{instruction} {word} {bits}, {mask}")
            return self.e.op(f"bitcast {word} {changed} to {ty}")
        return self._elementwise(op, compute)

    def _negf(self, op: Operation) -> Any:
        return self._sign_bit(op, True)

    def _absf(self, op: Operation) -> Any:
        return self._sign_bit(op, False)

    def _min_max(self, op: Operation) -> Any:
        """maxf / minf as `_pick` in the reference: the one that wins, -0 below +0; with a
        NaN, the canonical NaN (propagate_nan) or the other operand."""
        t = self._float_type(op)
        ty, word, e = LLVM_TYPES[t], BITS[t], self.e
        is_max = short_name(op) == "maxf"
        propagate = op.has_flag("propagate_nan")

        def compute(x: list[str]) -> str:
            a, b = x
            beats = e.op(f"fcmp {'ogt' if is_max else 'olt'} {ty} {a}, {b}")
            equal = e.op(f"fcmp oeq {ty} {a}, {b}")
            sa = e.op(f"icmp slt {word} {e.op(f'bitcast {ty} {a} to {word}')}, 0")
            sb = e.op(f"icmp slt {word} {e.op(f'bitcast {ty} {b} to {word}')}, 0")
            # (equal values: max keeps a unless a is -0 and b +0; min unless a +0, b -0)
            other = e.op(f"xor i1 {sb if is_max else sa}, true")
            b_wins_tie = e.op(f"and i1 {sa if is_max else sb}, {other}")
            keep_tie = e.op(f"xor i1 {b_wins_tie}, true")
            tie = e.op(f"and i1 {equal}, {keep_tie}")
            left = e.op(f"or i1 {beats}, {tie}")
            out = e.op(f"select i1 {left}, {ty} {a}, {ty} {b}")
            if propagate:
                either = e.op(f"fcmp uno {ty} {a}, {b}")
                nan = e.op(f"bitcast {word} {_signed(CANONICAL_NAN[t], SIZES[t] * 8)} to {ty}")
                out = e.op(f"select i1 {either}, {ty} {nan}, {ty} {out}")
            else:
                nan_a = e.op(f"fcmp uno {ty} {a}, {a}")
                nan_b = e.op(f"fcmp uno {ty} {b}, {b}")
                out = e.op(f"select i1 {nan_b}, {ty} {a}, {ty} {out}")
                out = e.op(f"select i1 {nan_a}, {ty} {b}, {ty} {out}")
            return self._canonical(out, t)
        return self._elementwise(op, compute)

    _maxf = _minf = _min_max

    def _binary_int(self, op: Operation) -> Any:
        t = op.results[0].type.element_type
        if t not in (I32, I64):
            raise Unsupported(f"'{op.name}' on {t} (only i32 and i64 are compiled)")
        flag = op.enum("overflow") if "overflow" in op.attributes else None
        if flag not in (None, IntegerOverflow.NONE):
            self.overflow_flags.append(f"'{op.name}' has overflow flag {flag.keyword}, "
                                       "whose check is not compiled")
        ty, instruction = LLVM_TYPES[t], _INT_BINARY[short_name(op)]
        return self._elementwise(op, lambda x: self.e.op(f"{instruction} {ty} {x[0]}, {x[1]}"))

    _addi = _subi = _muli = _andi = _ori = _xori = _binary_int

    def _cmpf(self, op: Operation) -> Any:
        t = op.operands[0].type.element_type
        if t not in CANONICAL_NAN:
            raise Unsupported(f"'{op.name}' on {t} (only f32 and f64 are compiled)")
        ordering = op.enum("comparison_ordering")
        if ordering not in (ComparisonOrdering.ORDERED, ComparisonOrdering.UNORDERED):
            raise Unsupported(f"'{op.name}' without a comparison ordering")
        prefix = "o" if ordering == ComparisonOrdering.ORDERED else "u"
        code = prefix + _FCMP[op.enum("comparison_predicate")]
        ty = LLVM_TYPES[t]
        return self._elementwise(op, lambda x: self.e.op(f"fcmp {code} {ty} {x[0]}, {x[1]}"))

    def _cmpi(self, op: Operation) -> Any:
        t = op.operands[0].type.element_type
        if t not in (I32, I64):
            raise Unsupported(f"'{op.name}' on {t} (only i32 and i64 are compiled)")
        signed, unsigned = _ICMP[op.enum("comparison_predicate")]
        code = signed if op.enum("signedness") == Signedness.SIGNED else unsigned
        ty = LLVM_TYPES[t]
        return self._elementwise(op, lambda x: self.e.op(f"icmp {code} {ty} {x[0]}, {x[1]}"))

    def _select(self, op: Operation) -> Any:
        ty = _element(op.results[0].type.element_type, f"'{op.name}'")
        return self._elementwise(op, lambda x: self.e.op(
            f"select i1 {x[0]}, {ty} {x[1]}, {ty} {x[2]}"))

    # views and memory

    def _make_tensor_view(self, op: Operation) -> View:
        t = op.results[0].type
        if not isinstance(t, TensorViewType) or len(t.shape) != 1:
            raise Unsupported("a tensor view of rank other than 1")
        if t.element_type not in MEMORY_TYPES:
            raise Unsupported(f"a tensor view of {t.element_type}")
        groups = {name: (s, n) for name, s, n in _slices(op)}
        base_start, base_end = groups.get("base", (0, 0))
        if base_end - base_start != 1:
            raise Unsupported("a tensor view without a base pointer")
        base_value = op.operands[base_start]
        pointer = self.values.get(base_value)
        if not (isinstance(base_value, BlockArgument) and isinstance(pointer, tuple)):
            raise Unsupported("a tensor view whose base is not a pointer parameter")
        _, param, address, first, end, host = pointer
        dynamic = [op.operands[i] for i in range(*groups["dynamicShape"])] + \
            [op.operands[i] for i in range(*groups["dynamicStrides"])]
        it = iter(dynamic)
        shape = self._extent(t.shape[0], it)
        uniform = t.strides[0] is not None or isinstance(dynamic[-1], BlockArgument)
        stride = self._extent(t.strides[0], it)
        e, size = self.e, SIZES[t.element_type]
        # Checked here whatever `checks` says (a failure reruns on the reference engine,
        # which decides): positive extent and stride, an aligned base, and a reach that
        # i64 arithmetic computes without wrapping.
        for value in (shape, stride):
            e.check(e.op(f"icmp ne i64 {value}, 0"), self.fail)
            e.check(e.op(f"icmp ult i64 {value}, {EXTENT_LIMIT}"), self.fail)
        e.check(e.op(f"icmp eq i64 {e.op(f'urem i64 {address}, {size}')}, 0"), self.fail)
        last = e.op(f"sub i64 {shape}, 1")
        reach = e.op(f"mul i128 {e.op(f'zext i64 {last} to i128')}, "
                     f"{e.op(f'zext i64 {stride} to i128')}")
        reach = e.op(f"mul i128 {reach}, {size}")
        reach = e.op(f"add i128 {reach}, {e.op(f'zext i64 {address} to i128')}")
        e.check(e.op(f"icmp ult i128 {reach}, {REACH_LIMIT}"), self.fail)
        return View(param, address, shape, stride, t.element_type, uniform)

    def _extent(self, static: int | None, dynamic: Any) -> str:
        """An extent or stride as an unsigned i64: the static one, or the next operand."""
        if static is not None:
            return str(int(static))
        value = next(dynamic)
        scalar = self._get(value)
        t = value.type.element_type
        if t == I32:
            return self.e.op(f"zext i32 {scalar.name} to i64")
        if t == I64:
            return scalar.name
        raise Unsupported(f"a tensor view extent of type {t}")

    def _make_partition_view(self, op: Operation) -> View:
        t = op.results[0].type
        view = self._get(op.operands[0])
        if not isinstance(t, PartitionViewType) or len(t.tile_shape) != 1 or \
                (t.dim_map is not None and tuple(t.dim_map) != (0,)):
            raise Unsupported("a partition view other than rank 1")
        padding = None
        if t.padding_value is not None and t.tensor_view.element_type in CANONICAL_NAN:
            padding = padding_code(t.padding_value, float_format(t.tensor_view.element_type))
            if padding is None:
                raise Unsupported(f"padding value {t.padding_value.keyword}")
        return View(view.param, view.base, view.shape, view.stride, view.element,
                    view.uniform, int(t.tile_shape[0]), padding)

    def _access(self, op: Operation, store: bool) -> Any:
        """load_view_tko / store_view_tko through a rank-1 partition view."""
        order = op.enum("memory_ordering_semantics")
        if order != MemoryOrderingSemantics.WEAK:
            raise Unsupported(f"'{op.name}' is not weak")
        groups = {name: (s, n) for name, s, n in _slices(op)}
        view = self._get(op.operands[groups["view"][0]])
        if not isinstance(view, View) or view.tile is None:
            raise Unsupported(f"'{op.name}' through a view other than a partition view")
        start, end = groups["index"]
        if end - start != 1:
            raise Unsupported(f"'{op.name}' with {end - start} indices")
        index_value = op.operands[start]
        tile_type = (op.operands[0] if store else op.results[0]).type
        t = tile_type.element_type
        if t != view.element or tile_type.num_elements != view.tile:
            raise Unsupported(f"'{op.name}' of a tile unlike its view's")
        self.accesses.append(Access(view.param, store, self.block_ids.get(index_value),
                                    view.uniform))
        inbounds = _inbounds(op)
        e, ty, size, tile = self.e, LLVM_TYPES[t], SIZES[t], view.tile
        index_type = index_value.type.element_type
        index = self._get(index_value).name
        if index_type == I32:
            index = e.op(f"zext i32 {index} to i64")
        elif index_type != I64:
            raise Unsupported(f"'{op.name}' with an index of type {index_type}")
        # an index outside the index space: undefined with checks on; rerun either way
        tiles = e.op(f"udiv i64 {e.op(f'add i64 {view.shape}, {tile - 1}')}, {tile}")
        e.check(e.op(f"icmp ult i64 {index}, {tiles}"), self.fail)
        _, _, _, first, last, host = self.values[self._param_value(view.param)]
        first_coord = e.op(f"mul i64 {index}, {tile}")
        source = None if not store else self._get(op.operands[0])
        out = None if store else self._slot(tile, t)
        with e.loop(str(tile)) as k:
            coord = e.op(f"add i64 {first_coord}, {k}", "coord")
            inside = e.op(f"icmp ult i64 {coord}, {view.shape}", "inside")
            if not store:
                at = e.op(f"getelementptr {ty}, ptr {out}, i64 {k}", "at")
                pad = self._literal(view.padding, t) if view.padding is not None else \
                    ("0.0" if t in CANONICAL_NAN else "0")
                e.do(f"store {ty} {pad}, ptr {at}")
            if inbounds:
                e.check(inside, self.fail)
            with e.when(inside):
                offset = e.op(f"mul i64 {e.op(f'mul i64 {coord}, {view.stride}')}, {size}")
                address = e.op(f"add i64 {view.base}, {offset}", "addr")
                low = e.op(f"icmp uge i64 {address}, {first}")
                e.check(low, self.fail)
                high = e.op(f"icmp ule i64 {e.op(f'add i64 {address}, {size}')}, {last}")
                e.check(high, self.fail)
                place = e.op(f"add i64 {host}, {e.op(f'sub i64 {address}, {first}')}")
                pointer = e.op(f"inttoptr i64 {place} to ptr", "p")
                if store:
                    value = self._element_of(source, k)
                    e.do(f"store {ty} {value}, ptr {pointer}, align 1")
                else:   # (align 1: a caller's array need not be aligned in host memory)
                    loaded = e.op(f"load {ty}, ptr {pointer}, align 1", "x")
                    e.do(f"store {ty} {loaded}, ptr {at}")
        if store:
            return _TOKEN
        return Tile(out, tile, ty), _TOKEN

    def _load_view_tko(self, op: Operation) -> Any:
        return self._access(op, False)

    def _store_view_tko(self, op: Operation) -> Any:
        return self._access(op, True)

    def _param_value(self, index: int) -> Any:
        """The IR value of parameter `index`."""
        return self.kernel.regions[0].blocks[0].arguments[index]


def _slices(op: Operation) -> tuple[tuple[str, int, int], ...]:
    """(name, start, end) of each declared operand group of `op`."""
    from ..interp.semantics.common import operand_slices
    return operand_slices(op)


def _inbounds(op: Operation) -> bool:
    """Whether the access marks its (only) dimension ``inbounds``."""
    attr = op.attributes.get("inbounds")
    flags = getattr(attr, "values", None) or getattr(attr, "elements", None) or ()
    return any(bool(getattr(flag, "value", flag)) for flag in flags)


def _signed(bits: int, width: int) -> int:
    """`bits` of a `width`-bit word as a signed integer (how LLVM text spells it)."""
    bits &= (1 << width) - 1
    return bits - (1 << width) if bits >> (width - 1) else bits


def _unsigned_dtype(t: Any) -> np.dtype:
    """The unsigned NumPy dtype as wide as element type `t`'s storage."""
    return np.dtype(f"u{np.dtype(numpy_dtype(t)).itemsize}")


def lower(kernel: Operation) -> Lowered:
    """The LLVM IR of entry `kernel` (`Unsupported` when it uses anything not compiled)."""
    return _Lowering(kernel).run()


__all__ = ["Access", "Lowered", "SUPPORTED", "Unsupported", "lower"]
