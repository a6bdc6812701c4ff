"""Lowering of one entry kernel to one LLVM function that runs a span of tile blocks.

``i32 @run_span(i64 begin, i64 end, ptr args, ptr scratch)`` runs tile blocks ``begin``
to ``end - 1`` (numbered x fastest, as `launch.block_order` numbers them) and returns 0,
or 1 as soon as a check fails (then the launcher reruns the kernel on the reference
engine from memory as it was).  ``args`` holds i64 words: the grid's three extents, then
one word per scalar parameter (its bits) and four per pointer parameter (its address, and
the first address, end address and host address of the buffer it points into), then the
two address logs' and the in-place word (bit p: parameter p's buffer is not written by
the launch, so its tiles may be read where they lie: `_in_place`).  Rank-0
tiles are LLVM values; larger tiles (rank 1 to 3) are loop nests over their elements,
held row-major in ``scratch`` (a slot per op result), or a global constant, or a splat
held as one value.  ``for`` loops keep their iteration values in slots of their own;
``reduce`` combines in the reference's pairwise tree (`_reduce`).

Only the ops and types listed in `SUPPORTED` lower; anything else raises `Unsupported`
with a one-line reason, and the launcher falls back.  Float ops are IEEE operations in
the element type with no fast-math flag (no contraction), NaN results replaced by the
reference's canonical NaN, exactly as `interp.semantics.floating_point` does."""

from __future__ import annotations

import math
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, Callable, Iterator

import numpy as np

from ...enums import (ComparisonOrdering, ComparisonPredicate, IntegerOverflow,
                     MemoryOrderingSemantics, RoundingMode, Signedness)
from ...attributes import BoundedAttr, DivByAttr
from ...ir import BlockArgument, Operation
from ...numerics import float_format, numpy_dtype
from ...types import (BF16, F16, F32, F64, I1, I8, I16, I32, I64, PartitionViewType, PointerType,
                     TensorViewType, TileType)
from ..semantics.common import OVERFLOW_PROMISES, element_array
from ..semantics.core import dense_values
from ..semantics.registry import short_name
from ..semantics.views import inbounds_flags, padding_code
from .emitter import Emitter
from .lower_control import ControlLowering
from .lower_mmaf import MmafLowering
from .lower_pointers import PointerAccess, PointerLowering, ViewUpdate
from .lower_types import TYPE_OPS, TYPE_SCALAR_OPS, TypesLowering
from .tokens import token_order


class Unsupported(Exception):
    """The kernel uses something the compiled engine does not compile (the message says
    what, in one line)."""


#: The element types the engine compiles, as LLVM types.  f16 values are held as their
#: i16 bits: they are only moved (loads, stores, select, broadcast, ...) and converted
#: (`ftof`, `mmaf`) by integer code, never by LLVM's half type (whose conversions are
#: library calls on some targets).
LLVM_TYPES = {F16: "i16", BF16: "i16", F32: "float", F64: "double", I1: "i1", I8: "i8",
              I16: "i16", I32: "i32", I64: "i64"}
#: Bytes per element in scratch and memory (i8 also: scratch flags).
SIZES = {F16: 2, BF16: 2, F32: 4, F64: 8, I1: 1, I8: 1, I16: 2, I32: 4, I64: 8}
#: Element types memory accesses compile for.
MEMORY_TYPES = (F16, BF16, F32, F64, I8, I16, I32, I64)
#: The float types a padding value is encoded for.
PADDED_FLOATS = (F16, BF16, F32, F64)
#: The integer types integer arithmetic, comparisons and conversions compile for.
INTEGERS = (I8, I16, I32, I64)
#: The canonical NaN f16 results of ftof get (`numerics.convert._canonical_nan`).
CANONICAL_NAN_F16 = 0x7FFF
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
#: The rounding modes ops that round to nearest even may name.
_NEAREST = (None, RoundingMode.NEAREST_EVEN)
#: LLVM's overflow-reporting intrinsic (after "s"/"u") of each flagged integer op.
_WITH_OVERFLOW = {"addi": "add", "subi": "sub", "muli": "mul"}
#: Per reading (signed?): the extension that undoes a truncation, the shift that undoes shl.
_EXTEND = {True: "sext", False: "zext"}
_SHIFT_BACK = {True: "ashr", False: "lshr"}
_FCMP = {ComparisonPredicate.EQUAL: "eq", ComparisonPredicate.NOT_EQUAL: "ne",
         ComparisonPredicate.LESS_THAN: "lt", ComparisonPredicate.LESS_THAN_OR_EQUAL: "le",
         ComparisonPredicate.GREATER_THAN: "gt",
         ComparisonPredicate.GREATER_THAN_OR_EQUAL: "ge"}
_ICMP = {ComparisonPredicate.EQUAL: ("eq", "eq"), ComparisonPredicate.NOT_EQUAL: ("ne", "ne"),
         ComparisonPredicate.LESS_THAN: ("slt", "ult"),
         ComparisonPredicate.LESS_THAN_OR_EQUAL: ("sle", "ule"),
         ComparisonPredicate.GREATER_THAN: ("sgt", "ugt"),
         ComparisonPredicate.GREATER_THAN_OR_EQUAL: ("sge", "uge")}
#: The float-to-integer rounding of each rounding mode ftoi compiles (an LLVM intrinsic on
#: f64, as `numerics.convert._TO_INTEGRAL` rounds the float64 value).
_TO_INTEGRAL = {RoundingMode.NEAREST_INT_TO_ZERO: "trunc", RoundingMode.ZERO: "trunc",
                RoundingMode.NEAREST_EVEN: "roundeven", RoundingMode.NEGATIVE_INF: "floor",
                RoundingMode.POSITIVE_INF: "ceil", RoundingMode.NEAREST_AWAY: "round"}
#: The fewest lanes (elements of a reduce's result) laid out innermost (`_reduce`).
REDUCE_MINOR_LANES = 8
#: The C library function computing each math op the compiled code rounds from f64.
_LIBM = {**{n: n for n in ("exp2", "log", "log2", "sin", "cos", "tan", "sinh", "cosh",
                           "tanh")}, "fpowf": "pow", "fpowi": "pow", "atan2": "atan2"}
#: Ops computing rank-0 values and nothing else, which a ``reduce`` body may hold.
_SCALAR_OPS = frozenset({"constant", *_FLOAT_BINARY, "negf", "absf", "maxf", "minf",
                         *_INT_BINARY, "cmpf", "cmpi", "select", "itof", "ftoi", "rsqrt",
                         "exp", "ftof", "divi", "remi", "shli", "shri", "mulhii", "fma",
                         "maxi", "mini", "negi", "absi", "exti", "trunci", "sqrt",
                         "floor", "ceil", *_LIBM, *TYPE_SCALAR_OPS})
#: Ops that read each element of their tile operands once, in one pass: a result with
#: one such user (in the same block) is computed inside the user's loop (`Lazy`).
_STREAMING = frozenset({*(_SCALAR_OPS - {"constant"}), "store_view_tko", "reduce", "scan"})
#: Elementwise ops whose lowering checks values (`Emitter.check_value`): undefined
#: behaviour for some elements, which the reference finds in every element of the tile.
_CHECKED = frozenset({"ftoi", "divi", "remi", "shli", "shri"})
#: Ops with a region the engine lowers (their bodies are lowered op by op).
_REGION_OPS = frozenset({"for", "reduce", "if", "scan", "loop"})
#: exp's f32 result is taken as decided when every f64 within this many bit patterns of
#: the C library's f64 exp rounds to the same f32: the reference's (NumPy's) f64 exp is
#: among them as long as each lies within half as many ulps of the exact value (they are
#: within a few: NumPy's SIMD exp and glibc's differ by at most 1 ulp here).
EXP_BAND = 64
#: The f64 biased exponents of the f32 normal range (2**-126 up to below 2**128), where
#: f32 values are the f64 patterns whose low 29 bits are 0, so the midpoints between two
#: of them (where rounding to nearest turns) are the patterns whose low 29 bits are 2**28:
#: there |y|'s pattern more than `EXP_BAND` from such a midpoint is decided without
#: rounding the band's ends (`_rounded_f64`).
_F32_NORMAL_EXPONENTS = (1023 - 126, 1023 + 127)
#: The most f64 ulps (bit patterns) `_Lowering._exp_f64` lies from NumPy's float64 exp on
#: any f32 input (tools/exp_accuracy.py measures it over every one): below EXP_BAND, so
#: a decided rounding is NumPy's.
EXP_ULPS = 4
#: Cody and Waite's split of ln 2 (the high part's 32 significant bits make k * high
#: exact for |k| < 2**21) and 1 / ln 2, for `_exp_f64`.
_LN2_HI = float.fromhex("0x1.62e42feep-1")
_LN2_LO = 1.9082149292705877e-10
_INV_LN2 = 1.4426950408889634
#: `_exp_f64`'s reduction: x = (64 m + j) ln2 / 64 + r, |r| <= ln2 / 128, so exp(x) =
#: 2**m * 2**(j/64) * exp(r), the 64 values 2**(j/64) in a table and exp(r) by its
#: Taylor polynomial of degree 5 (remainder below 2**-54 of it).
_EXP_TABLE_BITS = 6
_EXP_DEGREE = 5


#: The most dimensions a tile or view may have.
MAX_RANK = 3
#: Every op the engine lowers.
SUPPORTED = frozenset({
    *_SCALAR_OPS, *_REGION_OPS, "get_tile_block_id", "get_num_tile_blocks", "make_token",
    "join_tokens", "make_tensor_view", "make_partition_view", "get_index_space_shape",
    "load_view_tko", "store_view_tko", "broadcast", "reshape", "iota", "mmaf", "return",
    "permute", "cat", "extract", "assume", "offset", "load_ptr_tko", "store_ptr_tko",
    "atomic_rmw_tko", "atomic_cas_tko", "atomic_red_view_tko", "break", "continue",
    "print_tko", "assert", *TYPE_OPS})
#: The attributes each op may carry (any other one: the op is not compiled).
_ALLOWED_ATTRS = {
    **{n: {"rounding_mode", "flush_to_zero"} for n in (*_FLOAT_BINARY, "fma")},
    "maxi": {"signedness"}, "mini": {"signedness"}, "negi": {"overflow"},
    "exti": {"signedness"}, "trunci": {"overflow"},
    "maxf": {"propagate_nan", "flush_to_zero"}, "minf": {"propagate_nan", "flush_to_zero"},
    **{n: {"overflow"} for n in ("addi", "subi", "muli", "shli")},
    "divi": {"signedness", "rounding"}, "remi": {"signedness"}, "shri": {"signedness"},
    "cmpf": {"comparison_predicate", "comparison_ordering"},
    "cmpi": {"comparison_predicate", "signedness"},
    "constant": {"value"}, "make_tensor_view": {"operandSegmentSizes"},
    "itof": {"signedness", "rounding_mode"}, "ftof": {"rounding_mode"},
    "ftoi": {"signedness", "rounding_mode", "saturating"},
    "rsqrt": {"flush_to_zero"}, "exp": {"rounding_mode"}, "for": {"unsignedCmp"},
    "reduce": {"dim", "identities"}, "permute": {"permutation"}, "cat": {"dim"},
    "assume": {"predicate"}, "scan": {"dim", "reverse", "identities"},
    "print_tko": {"str", "operandSegmentSizes"}, "assert": {"message"},
    **{n: {"rounding_mode", "flush_to_zero"} for n in ("exp2", "log", "log2", "sin", "cos",
                                                        "tan", "sinh", "cosh", "tanh", "sqrt",
                                                        "fpowf")},
    "load_view_tko": {"memory_ordering_semantics", "optimization_hints", "inbounds",
                      "operandSegmentSizes"},
    "store_view_tko": {"memory_ordering_semantics", "optimization_hints", "inbounds",
                       "operandSegmentSizes"},
    **{n: {"memory_ordering_semantics", "memory_scope", "optimization_hints",
           "operandSegmentSizes"} for n in ("load_ptr_tko", "store_ptr_tko")},
    "atomic_rmw_tko": {"memory_ordering_semantics", "memory_scope", "mode",
                       "operandSegmentSizes"},
    "atomic_cas_tko": {"memory_ordering_semantics", "memory_scope", "operandSegmentSizes"},
    "atomic_red_view_tko": {"memory_ordering_semantics", "memory_scope", "mode", "inbounds",
                            "operandSegmentSizes"},
}


@dataclass(frozen=True)
class Scalar:
    """A rank-0 tile: an LLVM value (or literal) of LLVM type `ty`."""

    name: str
    ty: str


@dataclass(frozen=True)
class Tile:
    """A tile of `count` elements of LLVM type `ty` at pointer `ptr` (row-major).
    `lies`: a loaded tile that may lie in the caller's memory (`_Lowering._in_place`),
    whose element loads are in `IN_PLACE_SCOPE`."""

    ptr: str
    count: int
    ty: str
    lies: bool = False


#: Scoped alias metadata (the module's): loads of a tile read in place are in the scope
#: list ``!7002``, and stores into scratch slots are marked ``noalias`` with it, so LLVM
#: needs no run-time overlap check to vectorize a loop reading the one and writing the
#: other (a tile read in place is in a buffer the launch never writes; a copied one is
#: written only by its own copy, whose stores are not so marked).
IN_PLACE_SCOPE = "!7002"
_ALIAS_METADATA = ('!7000 = distinct !{!7000, !"tileir"}',
                   '!7001 = distinct !{!7001, !7000, !"tiles read in place"}',
                   f"{IN_PLACE_SCOPE} = !{{!7001}}")


@dataclass(frozen=True)
class Splat:
    """A tile of `count` copies of one scalar."""

    value: Scalar
    count: int


@dataclass(frozen=True)
class Lazy:
    """A tile held nowhere: its element at flat index ``i`` is computed where its one
    user reads it (`element` writes the instructions there).  Elementwise chains fuse
    this way into the loop of the op that consumes them."""

    element: Callable[[str], str]
    count: int
    ty: str
    #: Whether computing an element may check its value (`_CHECKED`): such a tile must
    #: be computed whole (a store of a partial tile reads only some elements, and the
    #: reference checks them all).
    checked: bool = False


@dataclass(frozen=True)
class View:
    """A tensor view (rank 1 to 3) over a pointer parameter's buffer, maybe partitioned
    (identity dim_map)."""

    param: int                  # the pointer parameter its base is
    base: str                   # i64 values: address, extents and strides in elements
    shape: tuple[str, ...]
    stride: tuple[str, ...]
    element: Any                # its element type
    #: whether its strides (and, above rank 1, its extents) are the same in every block
    uniform: bool = True
    tile: tuple[int, ...] | None = None     # a partition view's tile shape
    padding: int | None = None  # the padding value's bits (None: zero, or no padding)
    #: its geometry (`Access.view`): base parameter, extents, strides, tile shape
    key: str = ""


@dataclass(frozen=True)
class Access:
    """A memory access the race proof (`races.py`) needs to know about: the pointer
    parameter it goes through, whether it writes, the view it goes through and its tile
    index, and which accesses a token chain orders before it."""

    param: int
    write: bool
    #: The partition view's geometry: equal keys reach equal elements for equal indices
    #: (`_Lowering._value_key` names the values its extents and strides come from).
    view: str
    #: Per component of the tile index: "b<d>" (tile block id component d), "c<n>" (the
    #: constant n), or another value's key (equal keys: equal values within a block).
    index: tuple[str, ...]
    #: Whether the view's strides (and, above rank 1, its extents) are the same in every
    #: tile block (static, or parameters).
    uniform: bool = True
    #: Whether the op is inside a loop (so it may run more than once per block).
    repeated: bool = False
    #: The op's number in the kernel's walk, and those of the once-per-block ops its
    #: token is ordered after (`tokens.token_order`).
    ident: int = -1
    after: tuple[int, ...] = ()
    #: The first of the index log's columns holding its tile index per block (-1: not
    #: logged, being inside a loop); see `Lowered.index_columns`.
    column: int = -1
    #: An atomic reduction (``atomic_red_view_tko``): two atomics never race; its mode's
    #: value, and whether its updates commute (any order of blocks gives one memory).
    atomic: bool = False
    mode: int = -1
    commutes: bool = False
    #: The element's bytes (atomics of two widths on one buffer do not commute).
    size: int = 0

    @property
    def block_dims(self) -> tuple[int | None, ...]:
        """For each index component, the tile block id component it is, or None."""
        return tuple(int(k[1:]) if k.startswith("b") else None for k in self.index)


@dataclass
class Lowered:
    """A kernel as LLVM IR text, with what the runner needs to call it."""

    ir: str
    params: tuple[str, ...]          # per parameter: "pointer" or the scalar's LLVM type
    scratch_bytes: int
    accesses: tuple[Access, ...] = field(default=())
    #: The ops the code calls the settle function for (`settle.py`: an undecided rounding,
    #: a print, a loop's poll), by their position in the kernel's walk: the runner finds
    #: them in the launching kernel (the code is shared by every kernel of one text).
    settles: tuple[int, ...] = field(default=())
    pointers: tuple[PointerAccess, ...] = field(default=())
    #: The index log's columns: when the argument block's word after the pointer log's
    #: is not 0, it is the address of an i64 array of `index_columns` columns of one row
    #: per tile block, and each view access outside loops writes there its tile index
    #: (`races.index_conflict` checks them after the run where the race proof cannot).
    index_columns: int = 0


_TOKEN = object()       # the value of a token (the compiled engine orders ops as written)


def _element(t: Any, what: str) -> str:
    """The LLVM type of element type `t` (a pointer: its i64 address), or `Unsupported`."""
    ty = "i64" if isinstance(t, PointerType) else LLVM_TYPES.get(t)
    if ty is None:
        raise Unsupported(f"{what} has element type {t}")
    return ty


class _Lowering(ControlLowering, PointerLowering, MmafLowering, TypesLowering):
    """The state of one kernel's lowering (control flow, pointer tiles, math ops, mmaf
    and the narrow types in mixins)."""

    def __init__(self, kernel: Operation, dry: frozenset[Operation] | None = None,
                 counter: int = 0) -> None:
        self.kernel = kernel
        self.e = Emitter(counter)
        #: A dry lowering (`precheck.py`) lowers only these ops, and its view accesses
        #: check their addresses without moving data; None: a whole lowering.
        self.dry = dry
        self.function = "run_span" if dry is None else "check_span"
        #: How many checks each op's lowering wrote (`Emitter.checks`).
        self.check_counts: dict[Operation, int] = {}
        self.definition = ""        # the function's text, and those it calls (`run`)
        #: Functions the kernel's function calls (`_outline`), and mmaf's by shape.
        self.functions: list[str] = []
        self.mmaf_functions: dict[tuple, str] = {}
        self.values: dict[Any, Any] = {}
        self.scratch = 0
        self.accesses: list[Access] = []
        self.block_ids: dict[Any, int] = {}   # get_tile_block_id results -> component
        self.fail = "fail"
        self.params: list[str] = []
        self.loops = 0                          # how many ``for`` bodies enclose the op
        self.settles: list[int] = []    # ops calling the settle function (walk positions)
        self.users: dict[Any, list[Operation]] = {}   # IR value -> the ops reading it
        self.idents: dict[Operation, int] = {}        # op -> its number in the walk
        self._init_pointers()
        for inner in kernel.walk():
            self.idents[inner] = len(self.idents)
            for value in inner.operands:
                self.users.setdefault(value, []).append(inner)
        self.order = token_order(kernel)
        self.keys: dict[Any, str] = {}                # value -> `_value_key`

    # ---- whole kernel ------------------------------------------------------------

    def run(self) -> Lowered:
        """The kernel's LLVM module text."""
        e = self.e
        blocks = self.kernel.regions[0].blocks if self.kernel.regions else []
        if len(blocks) != 1:
            raise Unsupported("the kernel has more than one block")
        block = blocks[0]
        word = 4
        words: list[tuple[BlockArgument, int, str]] = []
        for arg in block.arguments:
            t = arg.type
            if not isinstance(t, TileType) or t.rank != 0:
                raise Unsupported(f"parameter {arg.index} has type {t} (only scalars and "
                                  "pointers are compiled)")
            if t.element_type in (F16, BF16):
                raise Unsupported(f"parameter {arg.index} has type {t} (f16 and bf16 scalars "
                                  "are not compiled)")
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
        self.index_columns = 0
        for arg, at, kind in words:
            if kind == "pointer":
                self.values[arg] = ("pointer", arg.index,
                                    *(self._word(at + k) for k in range(4)))
            else:
                self.values[arg] = Scalar(self._from_word(self._word(at), kind), kind)
        # the address logs after the parameters' words (or 0): pointer accesses', then
        # the view accesses' tile indices; then the in-place word (`_in_place`)
        self.pointer_log, self.index_log = self._word(word), self._word(word + 1)
        self.in_place_word = self._word(word + 2)
        e.globals += _ALIAS_METADATA
        self.blocks = e.op(f"mul i64 {e.op(f'mul i64 {self.grid[0]}, {self.grid[1]}')}, "
                           f"{self.grid[2]}")
        count = e.op("sub i64 %end, %begin", "count")
        with e.loop(count, "blk", defer=False) as i:
            n = e.op(f"add i64 %begin, {i}", "n")
            self.block_number = n
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
        body = "\n".join(e.entry + e.lines)
        self.definition = (
            f"\n\ndefine i32 @{self.function}(i64 %begin, i64 %end, ptr noalias %args, "
            f"ptr noalias %scratch) {{\nentry:\n{body}\n}}\n") + "".join(self.functions)
        ir = "\n".join(e.globals) + self.definition
        return Lowered(ir, tuple(self.params), self.scratch, tuple(self.accesses),
                       tuple(self.settles), tuple(self.pointer_accesses),
                       self.index_columns)

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
        if name not in SUPPORTED or (op.regions and name not in _REGION_OPS):
            raise Unsupported(f"op '{op.name}' is not compiled")
        for value in (*op.operands, *op.results):
            t = value.type
            if isinstance(t, TileType) and t.rank > MAX_RANK:
                raise Unsupported(f"'{op.name}' on a tile of rank {t.rank}")
        extra = set(op.attributes) - _ALLOWED_ATTRS.get(name, set())
        if extra:
            raise Unsupported(f"'{op.name}' has attribute {sorted(extra)[0]}, which is not "
                              "compiled")
        if self.dry is not None and op not in self.dry:
            return
        checks = self.e.checks
        results = getattr(self, "_" + name)(op)
        self.check_counts[op] = self.e.checks - checks
        if results is None:
            return
        if not isinstance(results, tuple):
            results = (results,)
        for value, result in zip(results, op.results):
            self.values[result] = value

    def _get(self, value: Any) -> Any:
        """The lowered value of an IR value (a pointer parameter's: its address)."""
        found = self.values[value]
        if isinstance(found, tuple) and found and found[0] == "pointer":
            return Scalar(found[2], "i64")
        return found

    def _return(self, op: Operation) -> None:
        if op.parent_op is not self.kernel:
            raise Unsupported(f"'{op.name}' inside a region")
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
        if all(isinstance(v, Splat) for v in operands):   # (the same value everywhere)
            return Splat(Scalar(compute([v.value.name for v in operands]), ty), count)
        checked = short_name(op) in _CHECKED or bool(_promises(op)) or \
            any(isinstance(v, Lazy) and v.checked for v in operands)
        lazy = Lazy(lambda i: compute([self._element_of(v, i) for v in operands]), count, ty,
                    checked)
        return lazy if self._fused(op) else self._materialize(lazy, result.element_type)

    def _fused(self, op: Operation) -> bool:
        """Whether `op`'s result is left `Lazy`: it has one user, in the same block, which
        reads each element once (`_STREAMING`).  (Recomputing it for several users, or
        in a loop, would multiply the work; and a slot read later is never rewritten
        before then: only ``continue`` rewrites slots, and it is not such a user.)"""
        users = self.users.get(op.results[0], [])
        return len(users) == 1 and short_name(users[0]) in _STREAMING and \
            users[0].parent is op.parent

    def _materialize(self, lazy: Lazy, t: Any) -> Tile:
        """A lazy tile computed into a slot of its own."""
        out = self._slot(lazy.count, t)
        with self.e.loop(str(lazy.count)) as i:
            self._store(lazy.ty, lazy.element(i), out, i)
        return Tile(out, lazy.count, lazy.ty)

    def _element_of(self, value: Any, i: str) -> str:
        """Element `i` of a tile (a splat's or a scalar's value; a lazy tile's computed
        here)."""
        if isinstance(value, Splat):
            return value.value.name
        if isinstance(value, Scalar):
            return value.name
        if isinstance(value, Lazy):
            return value.element(i)
        at = self.e.op(f"getelementptr {value.ty}, ptr {value.ptr}, i64 {i}", "at")
        if value.ty == "i1":        # (a byte, read as a byte: a vector of them loads whole)
            return self.e.op(f"icmp ne i8 {self.e.op(f'load i8, ptr {at}', 'x')}, 0", "x")
        scope = f", !alias.scope {IN_PLACE_SCOPE}" if value.lies else ""
        return self.e.op(f"load {value.ty}, ptr {at}{scope}", "x")

    def _store(self, ty: str, value: str, ptr: str, i: str, own: bool = False) -> None:
        """Store `value` as element `i` of the slot at `ptr` (an i1 as the byte 0 or 1, as
        LLVM stores it: written as a byte, so that a vector of them is stored whole).
        Not read by a tile read in place (`IN_PLACE_SCOPE`), unless `own`: the copy of
        such a tile into its own slot."""
        at = self.e.op(f"getelementptr {ty}, ptr {ptr}, i64 {i}", "at")
        if ty == "i1":
            value = self.e.op(f"zext i1 {value} to i8")
            ty = "i8"
        self.e.do(f"store {ty} {value}, ptr {at}" + ("" if own else f", !noalias {IN_PLACE_SCOPE}"))

    def _copy(self, value: Any, ptr: str, count: int, ty: str) -> None:
        """Copy the `count` elements of a tile (or a splat's) into the slot at `ptr`."""
        with self.e.loop(str(count)) as i:
            self._store(ty, self._element_of(value, i), ptr, i)

    @contextmanager
    def _nest(self, shape: tuple[int, ...]) -> Iterator[tuple[list[str], str]]:
        """Loops over every element of `shape` in row-major order: yields the index per
        dimension and the flat (row-major) index."""
        e = self.e
        with ExitStack() as stack:
            coords: list[str] = []
            flat = "0"
            for extent in shape:
                k = stack.enter_context(e.loop(str(extent)))
                coords.append(k)
                flat = e.op(f"add i64 {e.op(f'mul i64 {flat}, {extent}')}, {k}", "flat")
            yield coords, flat

    def _slot(self, count: int, t: Any) -> str:
        """A pointer to a fresh scratch slot of `count` elements of `t` (64-byte aligned)."""
        offset = self.scratch
        self.scratch += -(-count * (8 if isinstance(t, PointerType) else SIZES[t]) // 64) * 64
        return self.e.op(f"getelementptr i8, ptr %scratch, i64 {offset}", "slot")

    def _float_type(self, op: Operation,
                    modes: tuple[RoundingMode | None, ...] | None = _NEAREST) -> Any:
        """The float element type (f32, f64) of `op`'s result, after checking its
        numerics: no ``flush_to_zero``, and a rounding mode among `modes` (None: any, as
        where the reference ignores it)."""
        t = op.results[0].type.element_type
        if t not in CANONICAL_NAN:
            raise Unsupported(f"'{op.name}' on {t} (only f32 and f64 are compiled)")
        if op.has_flag("flush_to_zero"):
            raise Unsupported(f"'{op.name}' has flush_to_zero")
        mode = op.enum("rounding_mode")
        if modes is not None and mode not in modes:
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        return t

    def _canonical(self, value: str, t: Any) -> str:
        """`value` with a NaN replaced by the canonical NaN, on its bits: LLVM treats NaN
        payloads as unspecified, so a float ``select(isnan(x), NaN, x)`` may be folded to
        ``x`` (it was, after ``llvm.sqrt``); an integer test and select may not."""
        e, ty, word = self.e, LLVM_TYPES[t], BITS[t]
        width = SIZES[t] * 8
        bits = e.op(f"bitcast {ty} {value} to {word}")
        magnitude = e.op(f"and {word} {bits}, {_signed((1 << (width - 1)) - 1, width)}")
        infinity = (1 << (width - 1)) - (1 << float_format(t).mantissa_bits)
        nan = e.op(f"icmp ugt {word} {magnitude}, {infinity}", "nan")
        canon = _signed(CANONICAL_NAN[t], width)
        return e.op(f"bitcast {word} {e.op(f'select i1 {nan}, {word} {canon}, {word} {bits}')} "
                    f"to {ty}")

    def _binary_float(self, op: Operation) -> Any:
        t = self._float_type(op)
        ty, instruction = LLVM_TYPES[t], _FLOAT_BINARY[short_name(op)]
        return self._elementwise(op, lambda x: self._canonical(
            self.e.op(f"{instruction} {ty} {x[0]}, {x[1]}"), t))

    _addf = _subf = _mulf = _divf = _binary_float

    def _fma(self, op: Operation) -> Any:
        """lhs * rhs + acc rounded once to nearest even: LLVM's `fma` intrinsic, IEEE's
        fused multiply-add (an instruction where the CPU has one, else the C library's
        correctly rounded fma), NaN made canonical, as the reference's."""
        t = self._float_type(op)
        ty = LLVM_TYPES[t]
        name = f"@llvm.fma.{'f32' if t == F32 else 'f64'}"
        self.e.declare(f"{ty} {name}({ty}, {ty}, {ty})")
        return self._elementwise(op, lambda x: self._canonical(
            self.e.op(f"call {ty} {name}({ty} {x[0]}, {ty} {x[1]}, {ty} {x[2]})"), t))

    def _min_max_int(self, op: Operation) -> Any:
        """x where x >= y (maxi) or x <= y (mini) in the chosen reading, else y."""
        t, ty = self._int_type(op)
        signed = op.enum("signedness") == Signedness.SIGNED
        predicate = ("s" if signed else "u") + ("ge" if short_name(op) == "maxi" else "le")
        e = self.e
        return self._elementwise(op, lambda x: e.op(
            f"select i1 {e.op(f'icmp {predicate} {ty} {x[0]}, {x[1]}')}, {ty} {x[0]}, "
            f"{ty} {x[1]}"))

    _maxi = _mini = _min_max_int

    def _check_wrap(self, op: Operation, lost: Callable[[bool], str]) -> None:
        """Stop the run where a reading the op's ``overflow`` flag promises wraps
        (`lost(signed)`: the i1 that says so): undefined with checks on; with checks off
        the reference wraps, and decides."""
        for signed in _promises(op):
            self.e.check_value(self.e.op(f"xor i1 {lost(signed)}, true"), self.fail)

    def _with_overflow(self, op: Operation, ty: str, a: str, b: str) -> str:
        """addi / subi / muli of `a` and `b` wrapped, checking the readings the op's
        ``overflow`` flag promises do not wrap (LLVM's ``*.with.overflow``)."""
        e, name = self.e, _WITH_OVERFLOW[short_name(op)]
        pairs = {}
        for signed in (True, False):
            function = f"@llvm.{'s' if signed else 'u'}{name}.with.overflow.{ty}"
            e.declare(f"{{{ty}, i1}} {function}({ty}, {ty})")
            if signed in _promises(op):
                pairs[signed] = e.op(f"call {{{ty}, i1}} {function}({ty} {a}, {ty} {b})")
        self._check_wrap(op, lambda signed: e.op(f"extractvalue {{{ty}, i1}} "
                                                 f"{pairs[signed]}, 1"))
        return e.op(f"{_INT_BINARY[short_name(op)]} {ty} {a}, {b}")

    def _negi(self, op: Operation) -> Any:
        """0 - x modulo 2**N."""
        t, ty = self._int_type(op)
        minimum = -(1 << (SIZES[t] * 8 - 1))

        def negated(x: list[str]) -> str:
            self._check_wrap(op, lambda signed: self.e.op(f"icmp eq {ty} {x[0]}, {minimum}"))
            return self.e.op(f"sub {ty} 0, {x[0]}")
        return self._elementwise(op, negated)

    def _absi(self, op: Operation) -> Any:
        """|x| of the signed reading modulo 2**N (the minimum stays itself: 2**(N-1) read
        unsigned)."""
        t, ty = self._int_type(op)
        name = f"@llvm.abs.{ty}"
        self.e.declare(f"{ty} {name}({ty}, i1)")
        return self._elementwise(op, lambda x: self.e.op(f"call {ty} {name}({ty} {x[0]}, "
                                                         "i1 false)"))

    def _exti(self, op: Operation) -> Any:
        """Sign extension (signed: i1's 1 reads -1) or zero extension."""
        source = _element(op.operands[0].type.element_type, f"an operand of '{op.name}'")
        t = op.results[0].type.element_type
        ty = _element(t, f"'{op.name}'")
        if source not in ("i1", "i8", "i16", "i32") or ty not in ("i8", "i16", "i32", "i64"):
            raise Unsupported(f"'{op.name}' from {source} to {ty}")
        extend = "sext" if op.enum("signedness") == Signedness.SIGNED else "zext"
        return self._elementwise(op, lambda x: self.e.op(f"{extend} {source} {x[0]} to {ty}"))

    def _trunci(self, op: Operation) -> Any:
        """The low bits."""
        source = _element(op.operands[0].type.element_type, f"an operand of '{op.name}'")
        ty = _element(op.results[0].type.element_type, f"'{op.name}'")
        if source not in ("i16", "i32", "i64") or ty not in ("i1", "i8", "i16", "i32"):
            raise Unsupported(f"'{op.name}' from {source} to {ty}")
        e = self.e

        def truncated(x: list[str]) -> str:
            low = e.op(f"trunc {source} {x[0]} to {ty}")
            self._check_wrap(op, lambda signed: e.op(
                f"icmp ne {source} {e.op(f'{_EXTEND[signed]} {ty} {low} to {source}')}, "
                f"{x[0]}"))
            return low
        return self._elementwise(op, truncated)

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
        bitwise = short_name(op) in ("andi", "ori", "xori")
        if t not in ((I1, *INTEGERS) if bitwise else INTEGERS):
            raise Unsupported(f"'{op.name}' on {t} (only i8 to i64 are compiled"
                              f"{', and i1 for bitwise ops' if bitwise else ''})")
        ty, instruction = LLVM_TYPES[t], _INT_BINARY[short_name(op)]
        if _promises(op):
            return self._elementwise(op, lambda x: self._with_overflow(op, ty, x[0], x[1]))
        return self._elementwise(op, lambda x: self.e.op(f"{instruction} {ty} {x[0]}, {x[1]}"))

    _addi = _subi = _muli = _andi = _ori = _xori = _binary_int

    def _int_type(self, op: Operation) -> tuple[Any, str]:
        """The integer element type (i8 to i64) of `op`'s result and its LLVM type."""
        t = op.results[0].type.element_type
        if t not in INTEGERS:
            raise Unsupported(f"'{op.name}' on {t} (only i8 to i64 are compiled)")
        return t, LLVM_TYPES[t]

    def _divi(self, op: Operation) -> Any:
        """The quotient of the readings rounded toward zero (no attribute), -inf or +inf.
        Division by zero and the signed minimum by -1 stop the run (undefined with checks
        on; with checks off the reference's result decides): the division itself is made
        by 1 there, which LLVM defines."""
        t, ty = self._int_type(op)
        signed = op.enum("signedness") == Signedness.SIGNED
        mode = op.enum("rounding")
        if mode not in (None, RoundingMode.ZERO, RoundingMode.NEGATIVE_INF,
                        RoundingMode.POSITIVE_INF):
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        e, low = self.e, _signed(1 << (SIZES[t] * 8 - 1), SIZES[t] * 8)

        def compute(x: list[str]) -> str:
            a, b = x
            bad = e.op(f"icmp eq {ty} {b}, 0")
            if signed:
                overflow = e.op(f"and i1 {e.op(f'icmp eq {ty} {a}, {low}')}, "
                                f"{e.op(f'icmp eq {ty} {b}, -1')}")
                bad = e.op(f"or i1 {bad}, {overflow}")
            e.check_value(e.op(f"xor i1 {bad}, true"), self.fail)
            safe = e.op(f"select i1 {bad}, {ty} 1, {ty} {b}")
            q = e.op(f"{'sdiv' if signed else 'udiv'} {ty} {a}, {safe}")
            if mode in (None, RoundingMode.ZERO):
                return q
            rest = e.op(f"{'srem' if signed else 'urem'} {ty} {a}, {safe}")
            inexact = e.op(f"icmp ne {ty} {rest}, 0")
            if signed:      # (the exact quotient's sign)
                negative = e.op(f"icmp ne i1 {e.op(f'icmp slt {ty} {a}, 0')}, "
                                f"{e.op(f'icmp slt {ty} {safe}, 0')}")
            else:
                negative = "false"
            if mode == RoundingMode.NEGATIVE_INF:
                step = e.op(f"and i1 {inexact}, {negative}")
                return e.op(f"sub {ty} {q}, {e.op(f'zext i1 {step} to {ty}')}")
            step = e.op(f"and i1 {inexact}, {e.op(f'xor i1 {negative}, true')}")
            return e.op(f"add {ty} {q}, {e.op(f'zext i1 {step} to {ty}')}")
        return self._elementwise(op, compute)

    def _remi(self, op: Operation) -> Any:
        """x - trunc(x / y) * y of the readings (signed: the dividend's sign; by -1: 0).
        A remainder by zero stops the run (the reference decides)."""
        t, ty = self._int_type(op)
        signed = op.enum("signedness") == Signedness.SIGNED
        e = self.e

        def compute(x: list[str]) -> str:
            a, b = x
            zero = e.op(f"icmp eq {ty} {b}, 0")
            e.check_value(e.op(f"xor i1 {zero}, true"), self.fail)
            one = e.op(f"or i1 {zero}, {e.op(f'icmp eq {ty} {b}, -1')}") if signed else zero
            safe = e.op(f"select i1 {one}, {ty} 1, {ty} {b}")
            return e.op(f"{'srem' if signed else 'urem'} {ty} {a}, {safe}")
        return self._elementwise(op, compute)

    def _shift(self, op: Operation, compute: Callable[[str, str, str], str]) -> Any:
        """A shift by y read unsigned: y of N or more stops the run (undefined with checks
        on; with checks off the reference's result decides); LLVM shifts by y only below
        N (else poison), so the amount given it is clamped."""
        t, ty = self._int_type(op)
        e, width = self.e, SIZES[t] * 8

        def shifted(x: list[str]) -> str:
            a, b = x
            past = e.op(f"icmp uge {ty} {b}, {width}")
            e.check_value(e.op(f"xor i1 {past}, true"), self.fail)
            return compute(ty, a, e.op(f"select i1 {past}, {ty} 0, {ty} {b}"))
        return self._elementwise(op, shifted)

    def _shli(self, op: Operation) -> Any:
        """x << y, where (`overflow` flag) shifting back must give x in each reading the
        flag promises."""
        e = self.e

        def shifted(ty: str, a: str, b: str) -> str:
            out = e.op(f"shl {ty} {a}, {b}")
            self._check_wrap(op, lambda signed: e.op(
                f"icmp ne {ty} {e.op(f'{_SHIFT_BACK[signed]} {ty} {out}, {b}')}, {a}"))
            return out
        return self._shift(op, shifted)

    def _shri(self, op: Operation) -> Any:
        instruction = "ashr" if op.enum("signedness") == Signedness.SIGNED else "lshr"
        return self._shift(op, lambda ty, a, b: self.e.op(f"{instruction} {ty} {a}, {b}"))

    def _mulhii(self, op: Operation) -> Any:
        """The high N bits of the 2N-bit product of the unsigned readings."""
        t, ty = self._int_type(op)
        e, width = self.e, SIZES[t] * 8
        wide = f"i{2 * width}"

        def compute(x: list[str]) -> str:
            a, b = (e.op(f"zext {ty} {v} to {wide}") for v in x)
            high = e.op(f"lshr {wide} {e.op(f'mul {wide} {a}, {b}')}, {width}")
            return e.op(f"trunc {wide} {high} to {ty}")
        return self._elementwise(op, compute)

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
        if t not in INTEGERS:
            raise Unsupported(f"'{op.name}' on {t} (only i8 to i64 are compiled)")
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
        if not isinstance(t, TensorViewType) or not 1 <= len(t.shape) <= MAX_RANK:
            raise Unsupported(f"a tensor view of rank other than 1 to {MAX_RANK}")
        if t.element_type not in MEMORY_TYPES:
            raise Unsupported(f"a tensor view of {t.element_type}")
        bases = op.values_named("base") or []
        if len(bases) != 1:
            raise Unsupported("a tensor view without a base pointer")
        base_value = bases[0]
        pointer = self.values.get(base_value)      # (a parameter, or an assume of one)
        if not (isinstance(pointer, tuple) and pointer[0] == "pointer"):
            raise Unsupported("a tensor view whose base is not a pointer parameter")
        _, param, address, first, end, host = pointer
        dynamic_shape = op.operand_group("dynamicShape")
        dynamic_strides = op.operand_group("dynamicStrides")
        it = iter(dynamic_shape + dynamic_strides)
        shape = tuple(self._extent(n, it) for n in t.shape)
        stride = tuple(self._extent(s, it) for s in t.strides)
        # (the same in every tile block: static, or parameters of the kernel)
        uniform = all(self._is_parameter(v) for v in dynamic_strides) and \
            (len(shape) == 1 or all(self._is_parameter(v) for v in dynamic_shape))
        e, size = self.e, SIZES[t.element_type]
        # Checked here whatever `checks` says (a failure reruns on the reference engine,
        # which decides): positive extents and strides, an aligned base, and a reach that
        # i64 arithmetic computes without wrapping.
        for value in (*shape, *stride):
            e.check(e.op(f"icmp ne i64 {value}, 0"), self.fail)
            e.check(e.op(f"icmp ult i64 {value}, {EXTENT_LIMIT}"), self.fail)
        e.check(e.op(f"icmp eq i64 {e.op(f'urem i64 {address}, {size}')}, 0"), self.fail)
        reach = "0"
        for n, s in zip(shape, stride):
            last = e.op(f"zext i64 {e.op(f'sub i64 {n}, 1')} to i128")
            term = e.op(f"mul i128 {last}, {e.op(f'zext i64 {s} to i128')}")
            reach = e.op(f"add i128 {reach}, {term}")
        reach = e.op(f"mul i128 {reach}, {size}")
        reach = e.op(f"add i128 {reach}, {e.op(f'zext i64 {address} to i128')}")
        e.check(e.op(f"icmp ult i128 {reach}, {REACH_LIMIT}"), self.fail)
        static = [*t.shape, *t.strides]
        names = iter([self._value_key(v) for v in dynamic_shape + dynamic_strides])
        key = f"p{param}:" + ",".join(f"s{n}" if n is not None else next(names)
                                       for n in static)
        return View(param, address, shape, stride, t.element_type, uniform, key=key)

    def _value_key(self, value: Any) -> str:
        """A name for `value` equal to another's where both are surely equal within a
        tile block: "c<n>" for a constant of unsigned reading n (as indices and extents
        are read), "a<i>" for parameter i, "b<d>" for tile block id component d, else one
        per SSA value (seen through ``assume``, which gives its operand)."""
        owner = getattr(value, "owner", None)
        while isinstance(owner, Operation) and short_name(owner) == "assume":
            value = owner.operands[0]
            owner = getattr(value, "owner", None)
        if isinstance(owner, Operation) and short_name(owner) == "constant" and \
                value.type.rank == 0:
            bits = dense_values(owner.attr("value")).reshape(-1)[:1]
            return f"c{int(bits.view(_unsigned_dtype(value.type.element_type))[0])}"
        if self._is_parameter(value):
            return f"a{value.index}"
        if value in self.block_ids:
            return f"b{self.block_ids[value]}"
        return self.keys.setdefault(value, f"v{len(self.keys)}")

    def _is_parameter(self, value: Any) -> bool:
        """Whether `value` is a parameter of the kernel, or an ``assume`` of one (the same
        in every tile block)."""
        owner = getattr(value, "owner", None)
        if isinstance(owner, Operation) and short_name(owner) == "assume":
            return self._is_parameter(owner.operands[0])
        return isinstance(value, BlockArgument) and \
            self._param_value(value.index) is value

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
        rank = len(view.shape)
        if not isinstance(t, PartitionViewType) or len(t.tile_shape) != rank or \
                tuple(t.dim_map) != tuple(range(rank)):
            raise Unsupported("a partition view whose dim_map is not the identity")
        padding = None
        if t.padding_value is not None and t.tensor_view.element_type in PADDED_FLOATS:
            padding = padding_code(t.padding_value, float_format(t.tensor_view.element_type))
            if padding is None:
                raise Unsupported(f"padding value {t.padding_value.keyword}")
        tile = tuple(int(n) for n in t.tile_shape)
        return View(view.param, view.base, view.shape, view.stride, view.element,
                    view.uniform, tile, padding, f"{view.key}|t{tile}")

    def _tiles(self, view: View, k: int) -> str:
        """The extent of a partition view's index space in dimension `k` (i64)."""
        tile = view.tile[k]
        return self.e.op(f"udiv i64 {self.e.op(f'add i64 {view.shape[k]}, {tile - 1}')}, "
                         f"{tile}")

    def _get_index_space_shape(self, op: Operation) -> tuple[Scalar, ...]:
        view = self._get(op.operands[0])
        if not isinstance(view, View) or view.tile is None:
            raise Unsupported(f"'{op.name}' of a view other than a partition view")
        out = []
        for k, result in enumerate(op.results):
            ty = _element(result.type.element_type, f"'{op.name}'")
            if ty not in ("i32", "i64"):
                raise Unsupported(f"'{op.name}' giving {result.type.element_type}")
            tiles = self._tiles(view, k)    # (from_integers: its low bits)
            out.append(Scalar(tiles if ty == "i64" else
                              self.e.op(f"trunc i64 {tiles} to {ty}"), ty))
        return tuple(out)

    def _check_injective(self, view: View) -> None:
        """Stop unless distinct in-bounds coordinates of `view` reach distinct elements: for
        some order of its dimensions, each stride exceeds the farthest offset of the
        dimensions before it (the race proof needs each block's tile to be its own)."""
        e = self.e
        if len(view.shape) == 1:
            return                          # (a positive stride)
        spans = [(e.op(f"zext i64 {s} to i128"),
                  e.op(f"zext i64 {e.op(f'sub i64 {n}, 1')} to i128"))
                 for n, s in zip(view.shape, view.stride)]
        found = "false"
        for order in permutations(range(len(spans))):
            ok, reach = "true", "0"
            for i, d in enumerate(order):
                stride, last = spans[d]
                if i:
                    ok = e.op(f"and i1 {ok}, {e.op(f'icmp ugt i128 {stride}, {reach}')}")
                reach = e.op(f"add i128 {reach}, {e.op(f'mul i128 {stride}, {last}')}")
            found = e.op(f"or i1 {found}, {ok}")
        e.check(found, self.fail)

    def _access(self, op: Operation, store: bool, atomic: ViewUpdate | None = None) -> Any:
        """load_view_tko / store_view_tko (and, given `atomic`, atomic_red_view_tko: a store
        of each element's update) through a partition view (identity dim_map): tile
        dimension k runs from index[k] * tile[k]; elements past the tensor's extent in any
        dimension are padded (loads) or skipped (stores), as `tile_coordinates` does."""
        order = op.enum("memory_ordering_semantics")
        if order != MemoryOrderingSemantics.WEAK and atomic is None:
            raise Unsupported(f"'{op.name}' is not weak")
        view = self._get(op.operand_group("view")[0])
        if not isinstance(view, View) or view.tile is None:
            raise Unsupported(f"'{op.name}' through a view other than a partition view")
        rank = len(view.tile)
        index_values = op.operand_group("index")
        if len(index_values) != rank:
            raise Unsupported(f"'{op.name}' with {len(index_values)} indices")
        stored = op.operand_group("value" if atomic else "tile")[0] if store else None
        tile_type = (stored if store else op.results[0]).type
        t = tile_type.element_type
        if t != view.element or tuple(tile_type.shape) != view.tile:
            raise Unsupported(f"'{op.name}' of a tile unlike its view's")
        e, ty, size = self.e, LLVM_TYPES[t], SIZES[t]
        indices = []
        for value in index_values:
            index_type = value.type.element_type
            index = self._get(value).name
            if index_type == I32:       # (read unsigned, as `views._unsigned` does)
                index = e.op(f"zext i32 {index} to i64")
            elif index_type != I64:
                raise Unsupported(f"'{op.name}' with an index of type {index_type}")
            indices.append(index)
        column = -1 if self.loops else self._log_index(indices)
        self.accesses.append(Access(
            view.param, store, view.key, tuple(self._value_key(v) for v in index_values),
            view.uniform, self.loops > 0, self.idents[op],
            tuple(sorted(self.idents[o] for o in self.order.get(op, ()))), column,
            *((True, atomic.mode, atomic.commutes) if atomic else (False, -1, False)),
            SIZES[t]))
        inbounds = inbounds_flags(op, rank)
        firsts = []
        for k, index in enumerate(indices):
            # an index outside the index space: undefined with checks on; rerun either way
            e.check(e.op(f"icmp ult i64 {index}, {self._tiles(view, k)}"), self.fail)
            first_coord = e.op(f"mul i64 {index}, {view.tile[k]}")
            firsts.append(first_coord)
            if inbounds[k]:     # no element of the tile past the extent along dimension k
                past = e.op(f"add i64 {first_coord}, {view.tile[k]}")
                e.check(e.op(f"icmp ule i64 {past}, {view.shape[k]}"), self.fail)
        if store:
            self._check_injective(view)
        _, _, _, first, last, host = self.values[self._param_value(view.param)]
        # The elements inside the tensor: coordinates first .. first + inside - 1 along
        # each dimension (at least one: the index lies in the index space).  Strides are
        # positive, so the lowest and highest addresses are those of the corner elements:
        # one check of the two against the buffer checks every element.
        insides, low, high = [], "0", "0"
        for k in range(rank):
            left = e.op(f"sub i64 {view.shape[k]}, {firsts[k]}")
            small = e.op(f"icmp ult i64 {left}, {view.tile[k]}")
            inside = e.op(f"select i1 {small}, i64 {left}, i64 {view.tile[k]}", "inside")
            insides.append(inside)
            low = e.op(f"add i64 {low}, {e.op(f'mul i64 {firsts[k]}, {view.stride[k]}')}")
            end_coord = e.op(f"add i64 {firsts[k]}, {e.op(f'sub i64 {inside}, 1')}")
            high = e.op(f"add i64 {high}, {e.op(f'mul i64 {end_coord}, {view.stride[k]}')}")
        lowest = e.op(f"add i64 {view.base}, {e.op(f'mul i64 {low}, {size}')}")
        beyond = e.op(f"add i64 {view.base}, {e.op(f'mul i64 {high}, {size}')}")
        e.check(e.op(f"icmp uge i64 {lowest}, {first}"), self.fail)
        e.check(e.op(f"icmp ule i64 {e.op(f'add i64 {beyond}, {size}')}, {last}"), self.fail)
        if self.dry is not None:    # (a dry lowering: the checks only, no data moved)
            return _TOKEN if store else (Tile("null", math.prod(view.tile), ty), _TOKEN)
        # (the view's base lies in its buffer: it is the parameter's own address)
        delta = e.op(f"sub i64 {view.base}, {first}")
        origin = e.op(f"inttoptr i64 {e.op(f'add i64 {host}, {delta}')} to ptr", "origin")
        source = None if not store else self._get(stored)
        if isinstance(source, Lazy) and source.checked:     # (every element checked)
            source = self._materialize(source, t)
        count = math.prod(view.tile)
        out = None if store else self._slot(count, t)
        in_place = None
        with ExitStack() as copying:
            if not store:
                pad = self._literal(view.padding, t) if view.padding is not None else \
                    ("0.0" if t in CANONICAL_NAN else "0")
                partial = "false"
                for k in range(rank):
                    partial = e.op(f"or i1 {partial}, "
                                   f"{e.op(f'icmp ult i64 {insides[k]}, {view.tile[k]}')}")
                in_place = self._in_place(view, t, partial, origin, low)
                if in_place is not None:    # (else the tile is copied into its slot)
                    copying.enter_context(e.when(e.op(f"xor i1 {in_place[0]}, true")))
                with e.when(partial):       # (a tile reaching past the tensor: padded first)
                    with e.loop(str(count)) as i:
                        self._store(ty, pad, out, i, own=True)
            self._move(view, store, atomic, source, stored, rank, insides, firsts, origin,
                       ty, out)
        if store:
            return _TOKEN
        if in_place is not None:
            out = e.op(f"select i1 {in_place[0]}, ptr {in_place[1]}, ptr {out}", "tile")
        return Tile(out, count, ty, in_place is not None), _TOKEN

    def _in_place(self, view: View, t: Any, partial: str, origin: str, low: str
                  ) -> tuple[str, str] | None:
        """Whether a loaded tile may be read where it lies in memory rather than copied
        into its slot (i1), and its first element's address there: where this launch
        writes nothing of the parameter's buffer (its bit in the argument block's
        in-place word: `runner.in_place_mask`, so nothing changes it while the tile is
        used, in this block or another), the tile lies wholly inside the tensor (no
        padding), its elements are one contiguous run in row-major order (the innermost
        stride 1, each stride of a dimension longer than 1 the size of the tile's
        dimensions inside it) and its address is aligned to the element.  None: never
        (i1 elements, whose bytes the copy reads as LLVM's i1; a parameter past the
        word's 63 bits)."""
        if t == I1 or view.param >= 63:
            return None
        e = self.e
        allowed = e.op(f"icmp ne i64 {e.op(f'and i64 {self.in_place_word}, {1 << view.param}')}, 0")
        ok = e.op(f"and i1 {allowed}, {e.op(f'xor i1 {partial}, true')}")
        inner = 1
        for k in range(len(view.tile) - 1, -1, -1):
            if view.tile[k] > 1 or k == len(view.tile) - 1:
                if view.stride[k] != str(inner):
                    ok = e.op(f"and i1 {ok}, {e.op(f'icmp eq i64 {view.stride[k]}, {inner}')}")
            inner *= view.tile[k]
        first = e.op(f"getelementptr {LLVM_TYPES[t]}, ptr {origin}, i64 {low}", "inplace")
        address = e.op(f"ptrtoint ptr {first} to i64")
        aligned = e.op(f"icmp eq i64 {e.op(f'and i64 {address}, {SIZES[t] - 1}')}, 0")
        return e.op(f"and i1 {ok}, {aligned}"), first

    def _move(self, view: View, store: bool, atomic: ViewUpdate | None, source: Any,
              stored: Any, rank: int, insides: list[str], firsts: list[str], origin: str,
              ty: str, out: str | None) -> None:
        """The elements of a view access inside the tensor, moved: stored from `source`,
        or loaded into slot `out`."""
        e = self.e
        with ExitStack() as stack:
            flat, offset = "0", "0"
            for k in range(rank - 1):
                lane = stack.enter_context(e.loop(insides[k]))
                flat = e.op(f"add i64 {e.op(f'mul i64 {flat}, {view.tile[k]}')}, {lane}",
                            "flat")
                coord = e.op(f"add i64 {firsts[k]}, {lane}", "coord")
                offset = e.op(f"add i64 {offset}, "
                              f"{e.op(f'mul i64 {coord}, {view.stride[k]}')}", "off")
            flat = e.op(f"mul i64 {flat}, {view.tile[-1]}", "row")
            start = e.op(f"mul i64 {firsts[-1]}, {view.stride[-1]}")
            offset = e.op(f"add i64 {offset}, {start}", "off")
            row = e.op(f"getelementptr {ty}, ptr {origin}, i64 {offset}", "rowp")
            unit = e.op(f"icmp eq i64 {view.stride[-1]}, 1")
            # the innermost run of elements, contiguous (a loop LLVM vectorizes) or strided
            # (not made where the stride is 1 in the view's type)
            for contiguous in (True,) if view.stride[-1] == "1" else (True, False):
                with e.when(unit if contiguous else e.op(f"xor i1 {unit}, true")):
                    with e.loop(insides[-1]) as lane:
                        step = lane if contiguous else \
                            e.op(f"mul i64 {lane}, {view.stride[-1]}")
                        pointer = e.op(f"getelementptr {ty}, ptr {row}, i64 {step}", "p")
                        at = e.op(f"add i64 {flat}, {lane}", "flat")
                        if store:
                            checks = e.value_checks
                            value = self._element_of(source, at)
                            if e.value_checks != checks:    # (see `Lazy.checked`)
                                raise Unsupported("internal: a value check in a store of "
                                                  "part of a tile")
                            if atomic is not None:      # (lanes in row-major order)
                                old = e.op(f"load {ty}, ptr {pointer}, align 1", "old")
                                value = atomic.update(old, value)
                            e.do(f"store {ty} {value}, ptr {pointer}, align 1")
                        else:   # (align 1: a caller's array need not be aligned in host memory)
                            loaded = e.op(f"load {ty}, ptr {pointer}, align 1", "x")
                            self._store(ty, loaded, out, at, own=True)

    def _log_index(self, indices: list[str]) -> int:
        """Write the tile index (i64 components) to the index log, when there is one, in
        columns of their own; the first column."""
        e, first = self.e, self.index_columns
        self.index_columns += len(indices)
        with e.when(e.op(f"icmp ne i64 {self.index_log}, 0")):
            for k, index in enumerate(indices):
                cell = e.op(f"add i64 {e.op(f'mul i64 {first + k}, {self.blocks}')}, "
                            f"{self.block_number}")
                at = e.op(f"add i64 {self.index_log}, {e.op(f'mul i64 {cell}, 8')}")
                e.do(f"store i64 {index}, ptr {e.op(f'inttoptr i64 {at} to ptr')}, align 8")
        return first

    def _load_view_tko(self, op: Operation) -> Any:
        return self._access(op, False)

    def _store_view_tko(self, op: Operation) -> Any:
        return self._access(op, True)

    # shape changes

    def _broadcast(self, op: Operation) -> Any:
        """Every size-1 dimension repeated to the result's extent."""
        source = self._get(op.operands[0])
        before, after = op.operands[0].type, op.results[0].type
        ty = _element(after.element_type, f"'{op.name}'")
        if isinstance(source, Scalar):
            return source
        count = after.num_elements
        if isinstance(source, Splat):
            return Splat(source.value, count)
        if source.count == 1:
            return Splat(Scalar(self._element_of(source, "0"), ty), count)
        out = self._slot(count, after.element_type)
        strides = _row_major_strides(tuple(before.shape))
        with self._nest(tuple(after.shape)) as (coords, flat):
            at = "0"
            for k, (n, m, stride) in enumerate(zip(before.shape, after.shape, strides)):
                if n == m:
                    at = self.e.op(f"add i64 {at}, {self.e.op(f'mul i64 {coords[k]}, {stride}')}")
            self._store(ty, self._element_of(source, at), out, flat)
        return Tile(out, count, ty)

    def _reshape(self, op: Operation) -> Any:
        """The same elements in row-major order (a tile's slot is shared: never written
        again while the value lives)."""
        source = self._get(op.operands[0])
        after = op.results[0].type
        ty = _element(after.element_type, f"'{op.name}'")
        if after.rank == 0:
            if isinstance(source, Splat):
                return source.value
            if isinstance(source, Tile):
                return Scalar(self._element_of(source, "0"), ty)
            return source
        count = after.num_elements
        if isinstance(source, Scalar):
            return Splat(source, count)
        if isinstance(source, Splat):
            return Splat(source.value, count)
        return Tile(source.ptr, count, ty, source.lies)     # (the same memory)

    def _gather(self, op: Operation, place: Callable[[list[str]], str]) -> Any:
        """A tile whose element at coordinates c is `place(c)` (the value, computed from
        its operands' elements), row-major, in a slot of its own."""
        after = op.results[0].type
        ty = _element(after.element_type, f"'{op.name}'")
        out = self._slot(after.num_elements, after.element_type)
        with self._nest(tuple(after.shape)) as (coords, flat):
            self._store(ty, place(coords), out, flat)
        return Tile(out, after.num_elements, ty)

    def _at(self, coords: list[str], shape: tuple[int, ...]) -> str:
        """The row-major flat index of `coords` in a tile of `shape`."""
        at = "0"
        for c, stride in zip(coords, _row_major_strides(shape)):
            at = self.e.op(f"add i64 {at}, {self.e.op(f'mul i64 {c}, {stride}')}")
        return at

    def _permute(self, op: Operation) -> Any:
        """Result dimension i is source dimension ``permutation[i]``."""
        source = self._get(op.operands[0])
        shape = tuple(op.operands[0].type.shape)
        order = [int(p) for p in op.attr("permutation").values]
        if isinstance(source, (Scalar, Splat)):
            return source
        return self._gather(op, lambda c: self._element_of(source, self._at(
            [c[order.index(k)] for k in range(len(shape))], shape)))

    def _cat(self, op: Operation) -> Any:
        """`lhs` then `rhs` along dimension ``dim``."""
        e = self.e
        lhs, rhs = (self._get(v) for v in op.operands)
        left, right = (tuple(v.type.shape) for v in op.operands)
        dim = int(op.enum("dim"))
        ty = _element(op.results[0].type.element_type, f"'{op.name}'")

        def place(c: list[str]) -> str:
            first = e.op(f"icmp ult i64 {c[dim]}, {left[dim]}")
            # (each index kept inside its own operand: the other side's is not read)
            own = e.op(f"select i1 {first}, i64 {c[dim]}, i64 0")
            other = e.op(f"select i1 {first}, i64 0, i64 {e.op(f'sub i64 {c[dim]}, {left[dim]}')}")
            a = self._element_of(lhs, self._at([own if k == dim else x for k, x in enumerate(c)], left))
            b = self._element_of(rhs, self._at([other if k == dim else x for k, x in enumerate(c)], right))
            return e.op(f"select i1 {first}, {ty} {a}, {ty} {b}")
        return self._gather(op, place)

    def _extract(self, op: Operation) -> Any:
        """Subtile number `indices` (read unsigned; one naming no subtile stops the run:
        undefined with checks on, and with checks off the reference's wrap decides)."""
        e = self.e
        source = self._get(op.operands[0])
        whole, part = tuple(op.operands[0].type.shape), tuple(op.results[0].type.shape)
        if not part:
            return source if isinstance(source, Scalar) else \
                Scalar(self._element_of(source, "0"), _element(op.results[0].type.element_type, "extract"))
        firsts = []
        for d, value in enumerate(op.operands[1:]):
            if value.type.element_type != I32:
                raise Unsupported(f"'{op.name}' with an index of type {value.type.element_type}")
            index = e.op(f"zext i32 {self._get(value).name} to i64")
            e.check(e.op(f"icmp ult i64 {index}, {whole[d] // part[d]}"), self.fail)
            firsts.append(e.op(f"mul i64 {index}, {part[d]}"))
        if isinstance(source, Splat):
            return Splat(source.value, math.prod(part))
        return self._gather(op, lambda c: self._element_of(source, self._at(
            [e.op(f"add i64 {f}, {x}") for f, x in zip(firsts, c)], whole)))

    def _iota(self, op: Operation) -> Tile:
        result = op.results[0].type
        t = result.element_type
        if t not in (I32, I64):
            raise Unsupported(f"'{op.name}' of {t} (only i32 and i64 are compiled)")
        n = result.shape[0]
        if n - 1 >= 1 << (SIZES[t] * 8):
            raise Unsupported(f"'{op.name}' longer than {t} counts")
        ty = LLVM_TYPES[t]
        out = self._slot(n, t)
        with self.e.loop(str(n)) as i:
            value = i if ty == "i64" else self.e.op(f"trunc i64 {i} to {ty}")
            self._store(ty, value, out, i)
        return Tile(out, n, ty)

    # conversions and math

    def _itof(self, op: Operation) -> Any:
        """The integer (read with the op's signedness) rounded once to nearest even: LLVM's
        sitofp / uitofp round to nearest even, as IEEE conversions do."""
        source, target = op.operands[0].type.element_type, op.results[0].type.element_type
        if source not in INTEGERS or target not in CANONICAL_NAN:
            raise Unsupported(f"'{op.name}' from {source} to {target}")
        mode = op.enum("rounding_mode")
        if mode not in (None, RoundingMode.NEAREST_EVEN):
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        signed = op.enum("signedness") == Signedness.SIGNED
        instruction = "sitofp" if signed else "uitofp"
        ty, to = LLVM_TYPES[source], LLVM_TYPES[target]
        return self._elementwise(op, lambda x: self.e.op(f"{instruction} {ty} {x[0]} to {to}"))

    def _ftof(self, op: Operation) -> Any:
        """f16 <-> f32 and f32 <-> f64, rounded once to nearest even (widening is exact);
        a NaN becomes the target's canonical NaN, as `numerics.convert_float` gives."""
        source, target = op.operands[0].type.element_type, op.results[0].type.element_type
        if BF16 in (source, target):
            return self._ftof_bf16(op)
        mode = op.enum("rounding_mode")
        if mode not in (None, RoundingMode.NEAREST_EVEN):
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        e = self.e
        if (source, target) == (F16, F32):
            return self._elementwise(op, lambda x: self._f16_to_f32(x[0]))
        if (source, target) == (F32, F16):
            return self._elementwise(op, lambda x: self._f32_to_f16(x[0]))
        if (source, target) == (F32, F64):
            return self._elementwise(op, lambda x: self._canonical(
                e.op(f"fpext float {x[0]} to double"), F64))
        if (source, target) == (F64, F32):
            return self._elementwise(op, lambda x: self._canonical(
                e.op(f"fptrunc double {x[0]} to float"), F32))
        raise Unsupported(f"'{op.name}' from {source} to {target} (only f16 <-> f32 and "
                          "f32 <-> f64 are compiled)")

    def _f16_to_f32(self, h: str) -> str:
        """The f32 value of f16 bits `h` (i16): exact; NaN the canonical f32 NaN."""
        e = self.e
        w = e.op(f"zext i16 {h} to i32")
        sign = e.op(f"shl i32 {e.op(f'and i32 {w}, 32768')}, 16")
        exponent = e.op(f"and i32 {e.op(f'lshr i32 {w}, 10')}, 31")
        mantissa = e.op(f"and i32 {w}, 1023")
        rebiased = e.op(f"shl i32 {e.op(f'add i32 {exponent}, 112')}, 23")
        high = e.op(f"shl i32 {mantissa}, 13")
        normal = e.op(f"or i32 {sign}, {e.op(f'or i32 {rebiased}, {high}')}")
        tiny = e.op(f"fmul float {e.op(f'uitofp i32 {mantissa} to float')}, {_f64(2.0 ** -24)}")
        tiny = e.op(f"or i32 {sign}, {e.op(f'bitcast float {tiny} to i32')}")   # (exact)
        special = e.op(f"select i1 {e.op(f'icmp eq i32 {mantissa}, 0')}, i32 "
                       f"{e.op(f'or i32 {sign}, 2139095040')}, i32 {CANONICAL_NAN[F32]}")
        bits = e.op(f"select i1 {e.op(f'icmp eq i32 {exponent}, 0')}, i32 {tiny}, i32 {normal}")
        bits = e.op(f"select i1 {e.op(f'icmp eq i32 {exponent}, 31')}, i32 {special}, "
                    f"i32 {bits}")
        return e.op(f"bitcast i32 {bits} to float")

    def _f32_to_f16(self, x: str) -> str:
        """f32 `x` rounded to f16 bits (i16), nearest even: from 65520 up infinity; below
        2**-14 the multiple of 2**-24 (an exact scaling, then roundeven); else the bits
        shifted down with the carry of nearest even.  NaN: 0x7fff."""
        e = self.e
        e.declare("float @llvm.roundeven.f32(float)")
        w = e.op(f"bitcast float {x} to i32")
        sign = e.op(f"lshr i32 {e.op(f'and i32 {w}, -2147483648')}, 16")
        a = e.op(f"and i32 {w}, 2147483647")
        shifted = e.op(f"sub i32 {a}, 939524096")                 # (0x38000000: rebias)
        odd = e.op(f"and i32 {e.op(f'lshr i32 {shifted}, 13')}, 1")
        carry = e.op(f"add i32 4095, {odd}")
        normal = e.op(f"lshr i32 {e.op(f'add i32 {shifted}, {carry}')}, 13")
        scaled = e.op(f"fmul float {e.op(f'bitcast i32 {a} to float')}, {_f64(2.0 ** 24)}")
        rounded = e.op(f"call float @llvm.roundeven.f32(float {scaled})")
        tiny = e.op(f"fptoui float {rounded} to i32")
        bits = e.op(f"select i1 {e.op(f'icmp ult i32 {a}, 947912704')}, i32 {tiny}, "
                    f"i32 {normal}")                             # (0x38800000 = 2**-14)
        bits = e.op(f"select i1 {e.op(f'icmp uge i32 {a}, 1199566848')}, i32 31744, "
                    f"i32 {bits}")                               # (0x477ff000 = 65520)
        bits = e.op(f"or i32 {sign}, {bits}")
        bits = e.op(f"select i1 {e.op(f'icmp ugt i32 {a}, 2139095040')}, i32 "
                    f"{CANONICAL_NAN_F16}, i32 {bits}")
        return e.op(f"trunc i32 {bits} to i16")

    def _ftoi(self, op: Operation) -> Any:
        """As `numerics.float_to_int`: the float64 value rounded to an integral value, then
        NaN 0 and values out of range clamped; without ``saturating`` a NaN, infinite or
        out-of-range element stops the run (undefined with checks on: the reference
        decides)."""
        source, target = op.operands[0].type.element_type, op.results[0].type.element_type
        if source not in CANONICAL_NAN or target not in INTEGERS:
            raise Unsupported(f"'{op.name}' from {source} to {target}")
        mode = op.enum("rounding_mode")     # (not `or`: NEAREST_EVEN is enum value 0)
        if mode is None:
            mode = RoundingMode.NEAREST_INT_TO_ZERO
        if mode not in _TO_INTEGRAL:
            raise Unsupported(f"'{op.name}' rounds {mode.keyword}")
        signed = op.enum("signedness") == Signedness.SIGNED
        saturating = op.has_flag("saturating")
        e, ty, width = self.e, LLVM_TYPES[target], SIZES[target] * 8
        low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else \
            (0, (1 << width) - 1)
        rounding = f"llvm.{_TO_INTEGRAL[mode]}.f64"
        e.declare(f"double @{rounding}(double)")

        def compute(x: list[str]) -> str:
            wide = x[0] if source == F64 else e.op(f"fpext float {x[0]} to double")
            r = e.op(f"call double @{rounding}(double {wide})")
            # (hi + 1 and lo are powers of two, exact in f64; the hex is their f64 bits)
            over = e.op(f"fcmp oge double {r}, {_f64(float(high + 1))}")
            under = e.op(f"fcmp olt double {r}, {_f64(float(low))}")
            nan = e.op(f"fcmp uno double {r}, {r}")
            if not saturating:
                bad = e.op(f"or i1 {nan}, {e.op(f'or i1 {over}, {under}')}")
                e.check_value(e.op(f"xor i1 {bad}, true"), self.fail)
            # (out of range the conversion is poison, but never selected then)
            value = e.op(f"{'fptosi' if signed else 'fptoui'} double {r} to {ty}")
            value = e.op(f"select i1 {under}, {ty} {_signed(low, width)}, {ty} {value}")
            value = e.op(f"select i1 {over}, {ty} {_signed(high, width)}, {ty} {value}")
            return e.op(f"select i1 {nan}, {ty} 0, {ty} {value}")
        return self._elementwise(op, compute)

    def _rsqrt(self, op: Operation) -> Any:
        """As the reference: ``1.0 / sqrt(x)`` in f64 (two IEEE operations), rounded once
        to the type (nearest even), NaN canonical."""
        t = self._float_type(op, None)
        e = self.e
        e.declare("double @llvm.sqrt.f64(double)")

        def compute(x: list[str]) -> str:
            wide = x[0] if t == F64 else e.op(f"fpext float {x[0]} to double")
            root = e.op(f"call double @llvm.sqrt.f64(double {wide})")
            value = e.op(f"fdiv double 1.0, {root}")
            if t == F32:
                value = e.op(f"fptrunc double {value} to float")
            return self._canonical(value, t)
        return self._elementwise(op, compute)

    def _exp(self, op: Operation) -> Any:
        """f32 only: NumPy's float64 exp rounded once, from a float64 exp of the compiled
        code's own (`_exp_f64`, vectorized, within `EXP_ULPS` ulps of NumPy's on every f32
        input), as `_rounded_f64` decides and settles."""
        return self._rounded_f64(op, lambda x: self._exp_f64(x[0]))

    def _libm(self, op: Operation) -> Any:
        """f32 only: NumPy's float64 function rounded once, from the C library's float64
        function (`_LIBM`: a call per element; the unary ones within 3 ulps of NumPy's on
        every finite f32 input, NaN and infinities alike: tools/exp_accuracy.py
        --function; fpowf, fpowi and atan2 on random pairs: tools/pair_accuracy.py), as
        `_rounded_f64` decides and settles.  fpowi's exponent is read signed (i1's 1 is
        -1) as f64; C pow's special cases are NumPy's (pow(x, 0) is 1, even for NaN x)."""
        name = _LIBM[short_name(op)]
        arity = len(op.operands)
        self.e.declare(f"double @{name}({', '.join(['double'] * arity)})")
        return self._rounded_f64(op, lambda x: self.e.op(
            f"call double @{name}({', '.join(f'double {v}' for v in x)})"))

    _exp2 = _log = _log2 = _sin = _cos = _tan = _sinh = _cosh = _tanh = _libm
    _fpowf = _fpowi = _atan2 = _libm

    def _exact_unary(self, op: Operation) -> Any:
        """sqrt (rounded to nearest: ``approx`` and ``full`` read so, as the reference
        reads them), floor and ceil: IEEE operations whose result is the correctly
        rounded (for floor and ceil, exact) value in the type itself, as the reference's
        float64 computation rounded once gives (an f32 square root correctly rounded in
        f64 rounds again to the correctly rounded f32); NaN canonical."""
        name = short_name(op)
        t = self._float_type(op, (*_NEAREST, RoundingMode.APPROX, RoundingMode.FULL))
        ty = LLVM_TYPES[t]
        intrinsic = f"@llvm.{name}.{'f32' if t == F32 else 'f64'}"
        self.e.declare(f"{ty} {intrinsic}({ty})")
        return self._elementwise(op, lambda x: self._canonical(
            self.e.op(f"call {ty} {intrinsic}({ty} {x[0]})"), t))

    _sqrt = _floor = _ceil = _exact_unary

    def _rounded_f64(self, op: Operation, f64_of: Callable[[list[str]], str]) -> Any:
        """A unary math op on f32 whose reference is NumPy's float64 function rounded
        once to f32 (nearest even, whatever its ``rounding_mode``): `f64_of` gives a
        float64 value of the function, and its rounding is taken where every f64 within
        `EXP_BAND` bit patterns of its magnitude rounds to the same f32 (so does the
        reference's value, as long as the two lie within that many patterns: rounding to
        nearest is symmetric in the sign).  Else (near a midpoint between two f32 values)
        the element is settled by the reference's own semantics (`_call_settle`): tiles
        are computed in one loop that notes such elements and their inputs, then settled
        one by one.  (f64: the result would be NumPy's function itself, not reproduced.)
        An integer operand (fpowi's exponent) is read signed, as f64 (`_to_f64`)."""
        t = op.results[0].type.element_type
        if t != F32:
            raise Unsupported(f"'{op.name}' on {t} (only f32 is compiled: the reference's "
                              "result is NumPy's own float64 function)")
        self._float_type(op, None)  # (any rounding_mode: the reference rounds to nearest)
        e = self.e
        infinity = 0x7FF0000000000000

        def magnitude(y: str) -> str:
            return e.op(f"and i64 {e.op(f'bitcast double {y} to i64')}, "
                        f"{infinity | (infinity - 1)}")

        def exact(y: str) -> str:
            """i1: every f64 within `EXP_BAND` patterns of |y| rounds to one f32 (the two
            ends rounded and compared; NaN: decided)."""
            bits = magnitude(y)
            low = e.op(f"select i1 {e.op(f'icmp ult i64 {bits}, {EXP_BAND}')}, i64 0, "
                       f"i64 {e.op(f'sub i64 {bits}, {EXP_BAND}')}")
            high = e.op(f"add i64 {bits}, {EXP_BAND}")
            high = e.op(f"select i1 {e.op(f'icmp ugt i64 {high}, {infinity}')}, "
                        f"i64 {infinity}, i64 {high}")
            ends = [e.op(f"fptrunc double {e.op(f'bitcast i64 {b} to double')} to float")
                    for b in (low, high)]
            same = e.op(f"fcmp oeq float {ends[0]}, {ends[1]}")
            return e.op(f"or i1 {same}, {e.op(f'fcmp uno double {y}, {y}')}")

        def fast(y: str) -> str:
            """i1: `exact`'s answer where it is cheap to give (`_FAST_DECISION`), else
            false (the element is looked at again, rarely)."""
            bits = magnitude(y)
            exponent = e.op(f"lshr i64 {bits}, 52")
            normal = e.op(f"and i1 {e.op(f'icmp uge i64 {exponent}, {_F32_NORMAL_EXPONENTS[0]}')}, "
                          f"{e.op(f'icmp ule i64 {exponent}, {_F32_NORMAL_EXPONENTS[1]}')}")
            below = e.op(f"and i64 {bits}, {(1 << 29) - 1}")
            gap = e.op(f"sub i64 {below}, {1 << 28}")
            far = e.op(f"icmp ugt i64 {e.op(f'call i64 @llvm.abs.i64(i64 {gap}, i1 false)')}, "
                       f"{EXP_BAND}")
            return e.op(f"and i1 {normal}, {far}")
        e.declare("i64 @llvm.abs.i64(i64, i1)")

        def rounded(y: str) -> str:
            return self._canonical(e.op(f"fptrunc double {y} to float"), t)

        def f64_from(xs: list[str]) -> str:
            e.interleave()      # (a long chain of latency: vector iterations overlap)
            return f64_of([self._to_f64(x, ty) for x, ty in zip(xs, types)])

        for operand in op.operands:
            if operand.type.element_type not in (F32, I1, *INTEGERS):
                raise Unsupported(f"'{op.name}' with an operand of {operand.type.element_type}")
        types = [LLVM_TYPES[v.type.element_type] for v in op.operands]
        sources = [self._get(v) for v in op.operands]
        result = op.results[0].type
        if result.rank == 0:
            cells = [e.fresh("cell") for _ in range(len(sources) + 1)]   # inputs, result
            e.entry += [f"  {c} = alloca {ty}" for c, ty in zip(cells, [*types, "float"])]
            y = f64_from([x.name for x in sources])
            for x, cell, ty in zip(sources, cells, types):
                e.do(f"store {ty} {x.name}, ptr {cell}")
            e.do(f"store float {rounded(y)}, ptr {cells[-1]}")
            with e.when(e.op(f"xor i1 {exact(y)}, true")):
                self._call_settle(op, cells[:-1], cells[-1])
            return Scalar(e.op(f"load float, ptr {cells[-1]}"), "float")
        count = result.num_elements
        out = self._slot(count, F32)
        cells = [e.fresh("cell") for _ in sources]      # (a doubtful element's inputs)
        e.entry += [f"  {c} = alloca {ty}" for c, ty in zip(cells, types)]
        doubtful = e.fresh("doubtful")
        e.entry += [f"  {doubtful} = alloca i1"]
        e.do(f"store i1 false, ptr {doubtful}")
        with e.loop(str(count)) as i:           # (vectorized: the cheap decision only)
            y = f64_from([self._element_of(x, i) for x in sources])
            unsure = e.op(f"xor i1 {fast(y)}, true")
            self._store("float", rounded(y), out, i)
            seen = e.op(f"load i1, ptr {doubtful}")
            e.do(f"store i1 {e.op(f'or i1 {seen}, {unsure}')}, ptr {doubtful}")
        # Rarely: every element computed again (the tiles its inputs come from still hold
        # them), and those the cheap test leaves open decided exactly, else settled.
        with e.when(e.op(f"load i1, ptr {doubtful}")):
            with e.loop(str(count), "q", defer=False) as q:
                xs = [self._element_of(x, q) for x in sources]
                y = f64_from(xs)
                with e.when(e.op(f"xor i1 {e.op(f'or i1 {fast(y)}, {exact(y)}')}, true")):
                    for x, cell, ty in zip(xs, cells, types):
                        e.do(f"store {ty} {x}, ptr {cell}")
                    self._call_settle(op, cells,
                                      e.op(f"getelementptr float, ptr {out}, i64 {q}"))
        return Tile(out, count, "float")

    def _to_f64(self, x: str, ty: str) -> str:
        """An f32 or integer (read signed: i1's 1 is -1) value `x` of LLVM type `ty` as
        f64 (exact, or rounded to nearest even past 2**53, as NumPy's astype)."""
        return self.e.op(f"fpext float {x} to double" if ty == "float" else
                         f"sitofp {ty} {x} to double")

    def _exp_f64(self, x: str) -> str:
        """exp of an f64 `x` that is an f32 value, in straight-line f64 code LLVM
        vectorizes: x = k ln2 / 64 + r (Cody and Waite: k ln2/64's high part exact,
        |r| <= ln2/128), exp(r) by its Taylor polynomial of degree 5 (Horner), times
        2**(j/64) from a table (j = k mod 64) and 2**m made from its bits (m = k div 64).
        Beyond [-110, 90] the f32 result is 0 or infinity whatever the rounding: 0.0 or
        infinity; NaN stays NaN.  (tools/exp_accuracy.py bounds its distance from NumPy's
        f64 exp over every f32 input by `EXP_ULPS`.)"""
        e = self.e
        e.declare("double @llvm.roundeven.f64(double)")
        size = 1 << _EXP_TABLE_BITS
        table = self.__dict__.get("_exp_table")
        if table is None:
            table = self.__dict__["_exp_table"] = e.global_name("exp.table")
            values = ", ".join(f"double {_f64(2.0 ** (j / size))}" for j in range(size))
            e.globals.append(f"{table} = private unnamed_addr constant [{size} x double] "
                             f"[{values}]")
        nan = e.op(f"fcmp uno double {x}, {x}")
        big = e.op(f"fcmp ogt double {x}, {_f64(90.0)}")
        small = e.op(f"fcmp olt double {x}, {_f64(-110.0)}")
        outside = e.op(f"or i1 {nan}, {e.op(f'or i1 {big}, {small}')}")
        xc = e.op(f"select i1 {outside}, double 0.0, double {x}")
        k = e.op(f"call double @llvm.roundeven.f64(double "
                 f"{e.op(f'fmul double {xc}, {_f64(_INV_LN2 * size)}')})")
        r = e.op(f"fsub double {xc}, {e.op(f'fmul double {k}, {_f64(_LN2_HI / size)}')}")
        r = e.op(f"fsub double {r}, {e.op(f'fmul double {k}, {_f64(_LN2_LO / size)}')}")
        poly = _f64(1.0 / math.factorial(_EXP_DEGREE))
        for n in range(_EXP_DEGREE - 1, -1, -1):
            poly = e.op(f"fadd double {e.op(f'fmul double {poly}, {r}')}, "
                        f"{_f64(1.0 / math.factorial(n))}")
        whole = e.op(f"fptosi double {k} to i64")
        j = e.op(f"and i64 {whole}, {size - 1}")
        entry = e.op(f"load double, ptr {e.op(f'getelementptr [{size} x double], ptr {table}, i64 0, i64 {j}')}")
        m = e.op(f"ashr i64 {whole}, {_EXP_TABLE_BITS}")
        power = e.op(f"shl i64 {e.op(f'add i64 {m}, 1023')}, 52")
        y = e.op(f"fmul double {e.op(f'fmul double {poly}, {entry}')}, "
                 f"{e.op(f'bitcast i64 {power} to double')}")
        y = e.op(f"select i1 {small}, double 0.0, double {y}")
        y = e.op(f"select i1 {big}, double {_f64(math.inf)}, double {y}")
        return e.op(f"select i1 {nan}, double {x}, double {y}")

    def _call_settle(self, op: Operation, pointers: list[str], out: str,
                     index: str | None = None) -> None:
        """Call the settle function (argument word 3) for `op` on its operands at
        `pointers` (mmaf: its three tiles; an elementwise op: one element each) and its
        result at `out`: it writes the reference's result there, or returns non-zero
        (then the run stops).  Rare: only where a rounding was left undecided.  `index`:
        the i64 value naming the op to the settle function, in a function shared by
        several ops (its callers record the ops), else the op's own, recorded here."""
        e = self.e
        function = e.op(f"inttoptr i64 {self._word(3)} to ptr", "settle")
        given = [f"ptr {p}" for p in pointers] + ["ptr null"] * (3 - len(pointers))
        if index is None:
            index = str(len(self.settles))
            self.settles.append(self.idents[op])
        status = e.op(f"call i32 {function}(i64 {index}, {', '.join(given)}, ptr {out})")
        e.check(e.op(f"icmp eq i32 {status}, 0"), self.fail)

    def _outline(self, name: str, params: str, body: Callable[[], None]) -> None:
        """Write function `name` (``i32 (ptr %args, ptr %scratch, params)``, 0 or 1 as
        ``run_span``), whose instructions `body` writes with this lowering, into the
        module (`functions`); LLVM keeps it out of line, so callers share its code.  Its
        slots are its own, shared by its calls (one runs at a time)."""
        outer = self.e
        self.e = inner = Emitter(outer.counter)
        try:
            body()
        finally:
            self.e = outer
        inner.do("ret i32 0")
        inner.start(self.fail)
        inner.do("ret i32 1")
        outer.skip_to(inner.counter)
        for line in inner.globals:
            if line.startswith("declare "):
                outer.declare(line[len("declare "):])
            elif line not in outer.globals:     # (shared metadata is defined once)
                outer.globals.append(line)
        self.functions.append(
            f"\ndefine internal i32 {name}(ptr noalias %args, ptr noalias %scratch, "
            f"{params}) noinline {{\nentry:\n" + "\n".join(inner.entry + inner.lines) + "\n}\n")

    # regions

    def _reduce(self, op: Operation) -> Any:
        """Every input reduced along `dim` in the reference's order (`semantics.regions`):
        a pairwise tree, at each level element 2k+1 (the body's ``elem``) combined into
        element 2k (its ``acc``); the length is a power of two (a tile's), so no level is
        padded.  Two slots per input, each level reading one and writing the other.  With
        `REDUCE_MINOR_LANES` lanes or more, element j of lane o lies at ``j * lanes + o``
        and each level loops over the lanes innermost (contiguous: LLVM vectorizes it
        across lanes); with fewer, lane by lane at ``o * length + j`` (LLVM vectorizes
        the pairs of one lane)."""
        e = self.e
        inputs = [self._get(v) for v in op.operands]
        shape = tuple(op.operands[0].type.shape)
        types = [v.type.element_type for v in op.operands]
        tys = [_element(t, f"an operand of '{op.name}'") for t in types]
        dim = int(op.attr("dim").value)
        length = shape[dim]
        if length & (length - 1):
            raise Unsupported(f"'{op.name}' along a dimension of {length} (not a power of two)")
        before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
        lanes = before * after
        _, body, ops = self._combiner(op, types)      # (no level is padded: no identity)
        pairs = [(self._slot(length * lanes, t), self._slot(length * lanes, t)) for t in types]
        minor = lanes >= REDUCE_MINOR_LANES

        @contextmanager
        def each(count: int) -> Iterator[tuple[str, str]]:
            """Loops over element j < count of every lane o, lanes innermost where
            `minor`: yields (j, o, j's place in o's lane)."""
            with ExitStack() as stack:
                if minor:
                    j = stack.enter_context(e.loop(str(count), "j")) if count > 1 else "0"
                    o = stack.enter_context(e.loop(str(lanes), "lane"))
                    place = e.op(f"add i64 {e.op(f'mul i64 {j}, {lanes}')}, {o}")
                else:
                    o = stack.enter_context(e.loop(str(lanes), "lane")) if lanes > 1 else "0"
                    j = stack.enter_context(e.loop(str(count), "j")) if count > 1 else "0"
                    place = e.op(f"add i64 {e.op(f'mul i64 {o}, {length}')}, {j}")
                yield j, o, place

        with each(length) as (j, o, place):
            outer = e.op(f"udiv i64 {o}, {after}")
            inner_at = e.op(f"urem i64 {o}, {after}")
            first = e.op(f"add i64 {e.op(f'mul i64 {outer}, {length * after}')}, {inner_at}")
            at = e.op(f"add i64 {first}, {e.op(f'mul i64 {j}, {after}')}")
            for x, (slot, _), ty in zip(inputs, pairs, tys):
                self._store(ty, self._element_of(x, at), slot, place)
        step = lanes if minor else 1        # (from element j of a lane to element j + 1)
        half, turn = length // 2, 0
        while half:
            with each(half) as (k, o, place):
                even = e.op(f"add i64 {place}, {e.op(f'mul i64 {k}, {step}')}")   # (2k)
                odd = e.op(f"add i64 {even}, {step}")                             # (2k + 1)
                lanes_of = [Tile(pair[turn], length * lanes, ty) for pair, ty in zip(pairs, tys)]
                combined = self._combine(
                    body, ops, [Scalar(self._element_of(x, odd), x.ty) for x in lanes_of],
                    [Scalar(self._element_of(x, even), x.ty) for x in lanes_of])
                for value, pair, ty in zip(combined, pairs, tys):
                    self._store(ty, value.name, pair[1 - turn], place)
            half, turn = half // 2, 1 - turn
        results = []
        for result, pair, t, ty in zip(op.results, pairs, types, tys):
            if minor or lanes == 1:         # (element 0 of every lane: the first row)
                tile = Tile(pair[turn], lanes, ty)
            else:
                tile = Tile(self._slot(lanes, t), lanes, ty)
                with e.loop(str(lanes), "lane") as o:
                    self._store(ty, self._element_of(
                        Tile(pair[turn], length * lanes, ty),
                        e.op(f"mul i64 {o}, {length}")), tile.ptr, o)
            results.append(Scalar(self._element_of(tile, "0"), ty)
                           if result.type.rank == 0 else tile)
        return tuple(results)

    def _combiner(self, op: Operation, types: list[Any]) -> tuple[list[int], Any, list]:
        """A reduce's or scan's identities (bits) and its body (block, ops), checked: the
        body holds rank-0 ops of `_SCALAR_OPS` and ends in a yield of one value per
        input."""
        identities = []
        for attr, t in zip(op.attr("identities").elements, types):
            raw = getattr(attr, "bits", getattr(attr, "value", 0))
            bits = element_array([raw], t).reshape(-1).view(_unsigned_dtype(t))
            identities.append(int(bits[0]))
        body = op.regions[0].blocks[0]
        ops = list(body)
        if not ops or short_name(ops[-1]) != "yield" or len(ops[-1].operands) != len(types):
            raise Unsupported(f"'{op.name}' whose body does not end in a yield")
        for inner in ops[:-1]:
            if short_name(inner) not in _SCALAR_OPS or any(
                    not isinstance(r.type, TileType) or r.type.rank for r in inner.results):
                raise Unsupported(f"'{op.name}' whose body holds '{inner.name}'")
        for value, t in zip(ops[-1].operands, types):
            if value.type != TileType((), t):
                raise Unsupported(f"'{op.name}' whose body yields {value.type}")
        return identities, body, ops

    def _combine(self, body: Any, ops: list, elements: list[Scalar], accumulators: list[Scalar]
                 ) -> list[Scalar]:
        """The body run on (element, accumulator) pairs: its yielded scalars."""
        for i, (x, a) in enumerate(zip(elements, accumulators)):
            self.values[body.arguments[2 * i]] = x
            self.values[body.arguments[2 * i + 1]] = a
        for inner in ops[:-1]:
            self.lower(inner)
        return [self._get(v) for v in ops[-1].operands]

    def _scan(self, op: Operation) -> Any:
        """The inclusive prefix of every input along `dim` in the reference's order
        (`semantics.regions.scan`): element 0 combined with the identity, then
        Hillis-Steele: for distance 1, 2, 4, ..., element j >= distance becomes
        body(element j, element j - distance) of the level before (two slots per input,
        read one, write the other); ``reverse`` runs it from the end."""
        e = self.e
        inputs = [self._get(v) for v in op.operands]
        shape = tuple(op.operands[0].type.shape)
        types = [v.type.element_type for v in op.operands]
        tys = [_element(t, f"an operand of '{op.name}'") for t in types]
        dim = int(op.attr("dim").value)
        reverse = bool(op.attr("reverse").value)
        length = shape[dim]
        before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
        identities, body, ops = self._combiner(op, types)
        outs = [self._slot(math.prod(shape), t) for t in types]
        pairs = [(self._slot(length, t), self._slot(length, t)) for t in types]
        with e.loop(str(before * after), "lane") as o:
            outer = e.op(f"udiv i64 {o}, {after}")
            inner_at = e.op(f"urem i64 {o}, {after}")
            first = e.op(f"add i64 {e.op(f'mul i64 {outer}, {length * after}')}, {inner_at}")

            def position(j: str) -> str:
                """Where lane element j (counted from the scan's start) lies in the tile."""
                k = e.op(f"sub i64 {length - 1}, {j}") if reverse else j
                return e.op(f"add i64 {first}, {e.op(f'mul i64 {k}, {after}')}")
            with e.loop(str(length)) as j:
                at = position(j)
                for x, (lane, _), ty in zip(inputs, pairs, tys):
                    self._store(ty, self._element_of(x, at), lane, j)
            heads = [Scalar(self._element_of(Tile(lane, length, ty), "0"), ty)
                     for (lane, _), ty in zip(pairs, tys)]
            starts = [Scalar(self._literal(bits, t), ty)
                      for bits, t, ty in zip(identities, types, tys)]
            for value, (lane, _), ty in zip(self._combine(body, ops, heads, starts), pairs, tys):
                self._store(ty, value.name, lane, "0")
            distance, turn = 1, 0
            while distance < length:
                with e.loop(str(length)) as j:
                    late = e.op(f"icmp uge i64 {j}, {distance}")
                    back = e.op(f"select i1 {late}, i64 {e.op(f'sub i64 {j}, {distance}')}, i64 0")
                    here = [Scalar(self._element_of(Tile(pair[turn], length, ty), j), ty)
                            for pair, ty in zip(pairs, tys)]
                    earlier = [Scalar(self._element_of(Tile(pair[turn], length, ty), back), ty)
                               for pair, ty in zip(pairs, tys)]
                    combined = self._combine(body, ops, here, earlier)
                    for value, old, pair, ty in zip(combined, here, pairs, tys):
                        keep = e.op(f"select i1 {late}, {ty} {value.name}, {ty} {old.name}")
                        self._store(ty, keep, pair[1 - turn], j)
                distance, turn = distance * 2, 1 - turn
            with e.loop(str(length)) as j:
                at = position(j)
                for out, pair, ty in zip(outs, pairs, tys):
                    self._store(ty, self._element_of(Tile(pair[turn], length, ty), j), out, at)
        return tuple(Tile(out, math.prod(shape), ty) for out, ty in zip(outs, tys))

    def _for(self, op: Operation) -> Any:
        """The body run for iv = lower, lower + step, ... while iv < upper, compared as
        the reference does (bounds signed unless ``unsignedCmp``, the step signed, in
        i128: nothing wraps); a non-positive step stops the run (the reference decides).
        Iteration values live in slots of their own, copied at each ``continue``."""
        e = self.e
        t = op.operands[0].type.element_type
        if t not in (I32, I64):
            raise Unsupported(f"'{op.name}' counting in {t} (only i32 and i64 are compiled)")
        ty = LLVM_TYPES[t]
        widen = "zext" if op.has_flag("unsignedCmp") else "sext"
        lower, upper, step = (self._get(v).name for v in op.operands[:3])
        start = e.op(f"{widen} {ty} {lower} to i128")
        end = e.op(f"{widen} {ty} {upper} to i128")
        by = e.op(f"sext {ty} {step} to i128")
        e.check(e.op(f"icmp sgt i128 {by}, 0"), self.fail)
        body = op.regions[0].blocks[0]
        ops = list(body)
        carried: list[Any] = []          # per iteration value: (slot, count, type) or None
        for value, result in zip(op.operands[3:], op.results):
            init = self._get(value)
            if init is _TOKEN:
                carried.append(None)
                continue
            rt = result.type
            if not isinstance(rt, TileType):
                raise Unsupported(f"'{op.name}' carrying a {rt}")
            vty = _element(rt.element_type, f"a value '{op.name}' carries")
            slot = self._slot(rt.num_elements, rt.element_type)
            self._copy(init, slot, rt.num_elements, vty)
            carried.append((slot, rt, vty))
        terminator = ops[-1] if ops and short_name(ops[-1]) == "continue" else None
        if terminator is None and carried:
            raise Unsupported(f"'{op.name}' whose body does not end in a continue")
        with e.counted(start, end, by) as iv:
            self._poll(op)          # (a long loop stays interruptible: Ctrl-C)
            self.values[body.arguments[0]] = \
                Scalar(e.op(f"trunc i128 {iv} to {ty}", "iv"), ty)
            for argument, c in zip(body.arguments[1:], carried):
                self.values[argument] = _TOKEN if c is None else self._carried(c)
            self.loops += 1
            for inner in ops if terminator is None else ops[:-1]:
                self.lower(inner)
            self.loops -= 1
            if terminator is not None:
                self._carry([self._get(v) for v in terminator.operands], carried)
        return tuple(_TOKEN if c is None else self._carried(c) for c in carried)

    def _if(self, op: Operation) -> Any:
        """The then or the else region, as the i1 condition says; each ends in a
        ``yield`` (or, with no results, may be empty), whose values are copied to the
        results' homes: a cell for a scalar, a slot for a tile."""
        e = self.e
        condition = self._get(op.operands[0])
        if not isinstance(condition, Scalar) or condition.ty != "i1":
            raise Unsupported(f"'{op.name}' on a condition other than a scalar i1")
        homes: list[Any] = []
        for result in op.results:
            t = result.type
            if not isinstance(t, TileType):
                homes.append(None)              # (a token)
                continue
            ty = _element(t.element_type, f"a result of '{op.name}'")
            if t.rank == 0:
                cell = e.fresh("cell")
                e.entry.append(f"  {cell} = alloca {ty}")
                homes.append(("cell", cell, ty))
            else:
                homes.append(("slot", self._slot(t.num_elements, t.element_type),
                              t.num_elements, ty))
        if len(op.regions) != 2:
            raise Unsupported(f"'{op.name}' with {len(op.regions)} regions")
        labels = [e.label("then"), e.label("else")]
        join = e.label("endif")
        e.do(f"br i1 {condition.name}, label %{labels[0]}, label %{labels[1]}")
        for region, label in zip(op.regions, labels):
            e.start(label)
            ops = list(region.blocks[0]) if region.blocks else []
            end = ops[-1] if ops and short_name(ops[-1]) == "yield" else None
            if ops and end is None and short_name(ops[-1]) == "return":
                raise Unsupported(f"'{op.name}' whose region ends in '{ops[-1].name}'")
            # (a region ending in break or continue jumps out: `lower_control`)
            leaves = bool(ops) and short_name(ops[-1]) in ("continue", "break")
            if end is None and op.results and not leaves:
                raise Unsupported(f"'{op.name}' whose region yields nothing")
            for inner in (ops[:-1] if end is not None else ops):
                self.lower(inner)
            values = [self._get(v) for v in end.operands] if end is not None else []
            for value, home in zip(values, homes):
                if home is None:
                    continue
                if home[0] == "cell":
                    e.do(f"store {home[2]} {self._element_of(value, '0')}, ptr {home[1]}")
                else:
                    self._copy(value, home[1], home[2], home[3])
            e.branch(join)
        e.start(join)
        out = []
        for home in homes:
            if home is None:
                out.append(_TOKEN)
            elif home[0] == "cell":
                out.append(Scalar(e.op(f"load {home[2]}, ptr {home[1]}"), home[2]))
            else:
                out.append(Tile(home[1], home[2], home[3]))
        return tuple(out)

    def _assume(self, op: Operation) -> Any:
        """The value itself, on a scalar integer or a pointer parameter, after checking
        its ``div_by<N>`` or ``bounded<lo, hi>`` predicate on the value read signed (a
        pointer: its address): a value that breaks it, or is negative, stops the run
        whatever `checks` says (with checks on the reference reports it; off, it ignores
        it).  Other predicates and operands are not compiled."""
        e = self.e
        value = self.values[op.operands[0]]
        predicate = op.attr("predicate")
        t = op.operands[0].type
        if isinstance(value, tuple) and value[0] == "pointer":
            number, ty = value[2], "i64"
        elif isinstance(value, Scalar) and value.ty in ("i32", "i64"):
            number, ty = value.name, value.ty
        else:
            raise Unsupported(f"'{op.name}' on {t}")
        if isinstance(predicate, DivByAttr) and predicate.every is None:
            holds = e.op(f"icmp eq {ty} {e.op(f'srem {ty} {number}, {predicate.divisor}')}, 0")
        elif isinstance(predicate, BoundedAttr) and not (isinstance(value, tuple)):
            holds = "true"
            for bound, compare in ((predicate.lower, "sge"), (predicate.upper, "sle")):
                if bound is not None:
                    holds = e.op(f"and i1 {holds}, {e.op(f'icmp {compare} {ty} {number}, {bound}')}")
        else:
            raise Unsupported(f"'{op.name}' with predicate {predicate.format_stripped()}")
        holds = e.op(f"and i1 {holds}, {e.op(f'icmp sge {ty} {number}, 0')}")
        e.check_value(holds, self.fail)
        return (value,)     # (a pointer is itself a tuple)

    def _carried(self, c: tuple[str, Any, str]) -> Any:
        """The value an iteration slot holds (rank 0: loaded now)."""
        slot, rt, vty = c
        tile = Tile(slot, rt.num_elements, vty)
        return Scalar(self._element_of(tile, "0"), vty) if rt.rank == 0 else tile

    def _param_value(self, index: int) -> Any:
        """The IR value of parameter `index`."""
        return self.kernel.regions[0].blocks[0].arguments[index]


def _promises(op: Operation) -> tuple[bool, ...]:
    """The readings (signed: True) the op's ``overflow`` flag promises do not wrap."""
    flag = op.enum("overflow") if "overflow" in op.attributes else None
    return OVERFLOW_PROMISES[flag if flag is not None else IntegerOverflow.NONE]


def _row_major_strides(shape: tuple[int, ...]) -> list[int]:
    """Elements between neighbours along each dimension of a row-major tile."""
    return [math.prod(shape[k + 1:]) for k in range(len(shape))]


def _f64(value: float) -> str:
    """An f64 literal as LLVM text (its bits in hex: exact)."""
    return "0x" + np.float64(value).view(np.uint64).item().to_bytes(8, "big").hex().upper()


def _signed(bits: int, width: int) -> int:
    """`bits` of a `width`-bit word as a signed integer (how LLVM text spells it)."""
    bits &= (1 << width) - 1
    return bits - (1 << width) if bits >> (width - 1) else bits


def _unsigned_dtype(t: Any) -> np.dtype:
    """The unsigned NumPy dtype as wide as element type `t`'s storage."""
    return np.dtype(f"u{np.dtype(numpy_dtype(t)).itemsize}")


def lower(kernel: Operation) -> Lowered:
    """The LLVM IR of entry `kernel` (`Unsupported` when it uses anything not compiled),
    with its precheck function where it has one (`precheck.py`)."""
    from .precheck import add_precheck
    lowering = _Lowering(kernel)
    return add_precheck(lowering, lowering.run())


__all__ = ["Access", "Lowered", "SUPPORTED", "Unsupported", "lower"]
