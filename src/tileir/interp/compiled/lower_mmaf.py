"""Lowering of ``mmaf`` (f32 or f16 operands, f32 accumulator, rank 2), a mixin of
`lower._Lowering`: one f64 sum of exact products per element with an error bound,
a closer look (TwoSum and an exact-sum test) at the elements the bound leaves undecided,
and the reference's own semantics for what is left (docs/compiled-engine.md, "mmaf")."""

from __future__ import annotations

from typing import Any, Callable

from ...ir import Operation
from ...types import F16, F32, F64, I8, I32
from .host import has_feature
from . import lower as L     # (lower.py imports this module: names read at run time)

#: The longest K (lhs columns) mmaf compiles: its error bound (`_mmaf`) assumes K <= 2**14.
MMAF_MAX_K = 1 << 14
def mmaf_closer_scale(k: int) -> float:
    """c such that c A_c, computed in f64, bounds |hi + lo - D_ref| for the double-f64
    sum (hi, lo) of acc and K exact products with TwoSum (Ogita, Rump and Oishi's Sum2:
    |hi + lo - X| <= gamma_K**2 A for K + 1 terms), A_c = sum of their magnitudes as
    computed (A <= A_c / (1 - gamma_K)), plus the reference's error; doubled (it also
    covers the rounding of c A_c)."""
    gamma = (k + 1) * _U64 / (1.0 - (k + 1) * _U64)
    return 2.0 * (gamma * gamma + MMAF_REFERENCE_ERROR) / (1.0 - gamma)


#: The lowest-set-bit exponent a zero has in mmaf's exact-sum test (far above any
#: term's: sums of it stay far above too).
_NO_BITS = 1 << 20
#: mmaf's sums of products: lanes per vector, and vectors per row held at once
#: (`_Lowering._sum_products`).
MMAF_LANES = 8
MMAF_GROUP = 4
MMAF_ROWS = 2
#: The unit roundoff of f64.
_U64 = 2.0 ** -53
#: |D_ref - X| <= this times A for the reference's mmaf (f32 operands, K <= 2**14): its
#: double-float64 sums round only in their low part (docs/compiled-engine.md: 2**-76 A
#: at most; this leaves a factor 64).
MMAF_REFERENCE_ERROR = 2.0 ** -70


def mmaf_error_scale(k: int) -> float:
    """c such that c A_c, computed in f64, bounds |S - D_ref| for the compiled code's f64
    sum S of acc and K exact products and A_c = |acc| + ||a_i|| ||b_j|| as computed:
    |S - X| <= gamma_(K+1) A, |D_ref - X| <= MMAF_REFERENCE_ERROR A, A <= A_c (1 +
    gamma_(K+4)) (A_c's K-term sums, two square roots, a product and a sum round);
    doubled (it also covers the rounding of c A_c)."""
    gamma = (k + 4) * _U64 / (1.0 - (k + 4) * _U64)
    return 2.0 * (gamma + MMAF_REFERENCE_ERROR) * (1.0 + gamma)


def mmaf_decision_scale(k: int) -> float:
    """`mmaf_error_scale` plus ``2**-49``: ``fl(S -+ fl(c A_c))`` with this c lies beyond
    ``S -+ c' A_c`` (c' the error scale), whatever the subtraction rounds, so the ends
    need no pushing outwards (`_rounds_alike`): its rounding error is at most
    ``2**-53 (|S| + fl(c A_c))``, |S| <= 1.01 A_c (K <= 2**14), so at most ``2**-51 A_c``,
    below the extra ``2**-49 A_c`` less the roundings of the two products; and no end is
    subnormal (A_c is 0, or at least 2**-298: the ends are then at least 2**-345 from 0,
    or exact, Sterbenz).  A_c = 0 (every term a zero) gives ends of one sign of zero:
    +0 decided, -0 left undecided (+0 and -0 differ) for the closer look."""
    return mmaf_error_scale(k) + 2.0 ** -49


class MmafLowering:
    """mmaf, certified to the reference's rounding (`_mmaf`)."""

    def _mmaf(self, op: Operation) -> Any:
        """f32 (or f16, widened exactly) lhs and rhs, f32 acc, rank 2
        (docs/compiled-engine.md has the argument).
        The reference's element is the f32 rounding (nearest even) of a value D_ref within
        `MMAF_REFERENCE_ERROR` A of the exact X = acc + sum_k a_k b_k, A = |acc| +
        sum_k |a_k b_k|.  The compiled code sums acc and the products (each exact in f64)
        in one f64 S, k = 0, 1, ... (row by row: loops LLVM vectorizes), so |S - X| <=
        gamma_(K+1) A, and bounds A by |acc| + ||a_i|| ||b_j|| (Cauchy and Schwarz; the
        squares are exact in f64 too).  It rounds S minus and plus that bound (widened for
        every rounding in computing it) to f32: where both ends give the same bits, every
        real between them rounds to them, D_ref included: that is the reference's result.
        A tile with an element left undecided (near a midpoint, an inexact or exact
        cancellation to 0), or with an input not finite, is settled by the reference's
        own mmaf semantics (`_settle`)."""
        lhs_t, rhs_t, acc_t = (v.type for v in op.operands)
        kinds = (lhs_t.element_type, rhs_t.element_type, acc_t.element_type)
        if kinds not in ((F32, F32, F32), (F16, F16, F32)):
            raise L.Unsupported(f"'{op.name}' with {kinds[0]} operands and a {kinds[2]} "
                              "accumulator (only f32 or f16 operands into f32 are compiled)")
        narrow = kinds[0] == F16
        if acc_t.rank != 2:
            raise L.Unsupported(f"'{op.name}' on tiles of rank {acc_t.rank} (only rank 2 is "
                              "compiled)")
        m, k = (int(n) for n in lhs_t.shape)
        n = int(rhs_t.shape[1])
        if k > MMAF_MAX_K:
            raise L.Unsupported(f"'{op.name}' with K = {k} (at most {MMAF_MAX_K} compiled)")
        # (the certified sum is one function per shape, called by every mmaf of that
        # shape with its operand tiles: a kernel with two pays LLVM for one)
        tiles = []
        for value, t in zip(op.operands, (lhs_t, rhs_t, acc_t)):
            tile = self._get(value)
            if not isinstance(tile, L.Tile):
                slot = self._slot(t.num_elements, t.element_type)
                self._copy(tile, slot, t.num_elements, L.LLVM_TYPES[t.element_type])
                tile = L.Tile(slot, t.num_elements, L.LLVM_TYPES[t.element_type])
            tiles.append(tile)
        out = self._slot(m * n, F32)
        key = (m, k, n, narrow)
        function = self.mmaf_functions.get(key)
        if function is None:
            function = self.mmaf_functions[key] = self.e.global_name("mmaf")
            self._outline(function, "ptr %lhs, ptr %rhs, ptr %acc, ptr %out, i64 %index",
                          lambda: self._mmaf_body(op, m, k, n, narrow))
        e = self.e
        status = e.op(f"call i32 {function}(ptr %args, ptr %scratch, "
                      f"{', '.join(f'ptr {t.ptr}' for t in tiles)}, ptr {out}, "
                      f"i64 {len(self.settles)})")
        self.settles.append(self.idents[op])
        e.check(e.op(f"icmp eq i32 {status}, 0"), self.fail)
        return L.Tile(out, m * n, "float")

    def _mmaf_body(self, op: Operation, m: int, k: int, n: int, narrow: bool) -> None:
        """The body of the function `_mmaf` calls: the certified sum of tiles ``%lhs``
        (m x k), ``%rhs`` (k x n) and ``%acc`` into ``%out``, each row-major (f16
        operands where `narrow`), settling with index ``%index`` where undecided."""
        lhs_t, rhs_t, acc_t = (v.type for v in op.operands)
        lhs, rhs, acc = (L.Tile(f"%{name}", t.num_elements, L.LLVM_TYPES[t.element_type])
                         for name, t in zip(("lhs", "rhs", "acc"), (lhs_t, rhs_t, acc_t)))
        out = "%out"
        e = self.e
        e.declare("double @llvm.fabs.f64(double)")
        e.declare("double @llvm.sqrt.f64(double)")
        scale = L._f64(mmaf_decision_scale(k))
        wide_lhs, wide_rhs = self._slot(m * k, F64), self._slot(k * n, F64)
        sums, row_norms, col_norms = self._slot(m * n, F64), self._slot(m, F64), self._slot(n, F64)
        unsettled = e.fresh("unsettled")       # (an element left undecided: settle the tile)
        doubtful = e.fresh("doubtful")         # (an element the f64 sum leaves undecided)
        e.entry += [f"  {unsettled} = alloca i1", f"  {doubtful} = alloca i1"]
        doubts = self._slot(m * n, I8)

        def flag(bad: str) -> None:
            """Mark the tile for settling where i1 `bad` holds (an or-reduction)."""
            seen = e.op(f"load i1, ptr {unsettled}")
            e.do(f"store i1 {e.op(f'or i1 {seen}, {bad}')}, ptr {unsettled}")

        # (x86's F16C converts f16 in one instruction; elsewhere LLVM's `fpext half`
        # may be a library call: the integer conversion instead)
        half = narrow and has_feature("f16c")

        def widen(x: Any, at: str) -> str:
            """Element `at` of lhs or rhs as f64 (f16 and f32 exactly; f16 by the CPU's
            conversion where it has one, F16C: exact, and a NaN, whose bits it may change,
            makes the sums it reaches NaN, which settles the tile: below)."""
            value = self._element_of(x, at)
            if half:
                return e.op(f"fpext half {e.op(f'bitcast i16 {value} to half')} to double")
            if narrow:
                value = self._f16_to_f32(value)
            return e.op(f"fpext float {value} to double")

        def get(slot: str, at: str) -> str:
            return e.op(f"load double, ptr {e.op(f'getelementptr double, ptr {slot}, i64 {at}')}")

        e.do(f"store i1 false, ptr {unsettled}")
        e.do(f"store i1 false, ptr {doubtful}")
        with e.loop(str(m * k), "q") as q:
            self._store("double", widen(lhs, q), wide_lhs, q)
        with e.loop(str(k * n), "q") as q:
            self._store("double", widen(rhs, q), wide_rhs, q)
        # ||a_i||**2 and ||b_j||**2 (every square exact; the sums round)
        self._row_norms(m, k, wide_lhs, row_norms)
        with e.loop(str(n), "col") as j:
            self._store("double", "0.0", col_norms, j)
        with e.loop(str(k), "k") as kk:
            with e.loop(str(n), "col") as j:
                b = get(wide_rhs, e.op(f"add i64 {e.op(f'mul i64 {kk}, {n}')}, {j}"))
                total = e.op(f"fadd double {get(col_norms, j)}, {e.op(f'fmul double {b}, {b}')}")
                self._store("double", total, col_norms, j)
        with e.loop(str(n), "col") as j:      # ||b_j||, once per column
            self._store("double", e.op(f"call double @llvm.sqrt.f64(double {get(col_norms, j)})"),
                        col_norms, j)
        self._sum_products(m, k, n, wide_lhs, wide_rhs, sums, acc.ptr)
        with e.loop(str(m), "row") as i:
            row = e.op(f"mul i64 {i}, {n}")
            length_a = e.op(f"call double @llvm.sqrt.f64(double {get(row_norms, i)})")
            self._store("double", length_a, row_norms, i)       # (kept for `_mmaf_exact`)
            with e.loop(str(n), "col") as j:
                at = e.op(f"add i64 {row}, {j}")
                y = get(sums, at)
                length_b = get(col_norms, j)
                c = e.op(f"fpext float {self._element_of(acc, at)} to double")
                # an input not finite: the tile is settled.  Finite inputs give a finite
                # sum (at most 2**270), and one not finite reaches a sum (a NaN or
                # infinity of a row of lhs every sum of that row, of rhs or acc one), so
                # a sum not finite says so for the whole tile
                flag(e.op(f"fcmp une double {e.op(f'fsub double {y}, {y}')}, 0.0"))
                size = e.op(f"fadd double {e.op(f'call double @llvm.fabs.f64(double {c})')}, "
                            f"{e.op(f'fmul double {length_a}, {length_b}')}")
                width = e.op(f"fmul double {size}, {scale}")
                low, same = self._rounds_alike(y, width, pushed=False)
                unsure = e.op(f"xor i1 {same}, true")
                self._store("i8", e.op(f"zext i1 {unsure} to i8"), doubts, at)
                seen = e.op(f"load i1, ptr {doubtful}")
                e.do(f"store i1 {e.op(f'or i1 {seen}, {unsure}')}, ptr {doubtful}")
                self._store("float", low, out, at)
        with e.when(e.op(f"load i1, ptr {doubtful}")):
            e.do(f"store i1 false, ptr {doubtful}")
            self._mmaf_exact(m, k, n, wide_lhs, wide_rhs, sums, row_norms, col_norms, doubts,
                             doubtful, out, acc)
            with e.when(e.op(f"load i1, ptr {doubtful}")):
                self._mmaf_closer(m, k, n, wide_lhs, wide_rhs, sums, doubts, out, flag, acc)
        with e.when(e.op(f"load i1, ptr {unsettled}")):
            self._call_settle(op, [lhs.ptr, rhs.ptr, acc.ptr], out, "%index")

    def _row_norms(self, m: int, k: int, lhs: str, norms: str) -> None:
        """norms[i] = the sum of lhs[i, kk]**2 over kk (every square exact, the sums
        round: in any order, within the bound `mmaf_error_scale` allows)."""
        e = self.e
        self._fold_rows(m, k, lhs, norms, "double", "0.0",
                        lambda acc, x, ty: e.op(f"fadd {ty} {acc}, {e.op(f'fmul {ty} {x}, {x}')}"),
                        lambda a, b: e.op(f"fadd double {a}, {b}"))

    def _row_lowest_bits(self, m: int, k: int, lhs: str, lows: str) -> None:
        """lows[i] = the least `_lowest_bit` of row i of lhs."""
        e = self.e
        e.declare("i32 @llvm.smin.i32(i32, i32)")

        def least(acc: str, x: str, ty: str) -> str:
            lanes = 1 if ty == "double" else MMAF_LANES
            ints = "i32" if lanes == 1 else f"<{lanes} x i32>"
            name = "i32" if lanes == 1 else f"v{lanes}i32"
            e.declare(f"{ints} @llvm.smin.{name}({ints}, {ints})")
            return e.op(f"call {ints} @llvm.smin.{name}({ints} {acc}, "
                        f"{ints} {self._lowest_bit(x, lanes)})")
        self._fold_rows(m, k, lhs, lows, "i32", str(_NO_BITS), least,
                        lambda a, b: e.op(f"call i32 @llvm.smin.i32(i32 {a}, i32 {b})"))

    def _fold_rows(self, m: int, k: int, lhs: str, out: str, ty: str, start: str,
                   step: Callable[[str, str, str], str], join: Callable[[str, str], str]
                   ) -> None:
        """out[i] (of LLVM type `ty`) = `step` folded over row i of lhs (f64, row-major),
        from `start`: ``step(so far, x, x's type)``.  Where k is a multiple of
        `MMAF_LANES`, in that many partial results per row (a vector: x is then a vector
        of as many of the row's elements), combined at the end by `join`: one row's fold
        is a chain of dependent operations, which a scalar loop waits on.  (The order of
        the fold must not matter: a minimum, or a sum whose bound holds in any order.)"""
        e = self.e
        lanes = MMAF_LANES if k % MMAF_LANES == 0 else 1
        vector, kind = ("double", ty) if lanes == 1 else \
            (f"<{lanes} x double>", f"<{lanes} x {ty}>")
        partial = e.fresh("partial")
        e.entry.append(f"  {partial} = alloca {kind}")
        first_value = start if lanes == 1 else f"splat ({ty} {start})"
        with e.loop(str(m), "row") as i:
            e.do(f"store {kind} {first_value}, ptr {partial}")
            first = e.op(f"mul i64 {i}, {k}")
            with e.loop(str(k // lanes), "chunk") as c:
                offset = e.op(f"add i64 {first}, {e.op(f'mul i64 {c}, {lanes}')}")
                at = e.op(f"getelementptr double, ptr {lhs}, i64 {offset}")
                x = e.op(f"load {vector}, ptr {at}, align 8")
                e.do(f"store {kind} {step(e.op(f'load {kind}, ptr {partial}'), x, vector)}, "
                     f"ptr {partial}")
            total = e.op(f"load {kind}, ptr {partial}")
            if lanes > 1:
                folded = total
                total = e.op(f"extractelement {kind} {folded}, i64 0")
                for lane in range(1, lanes):
                    total = join(total, e.op(f"extractelement {kind} {folded}, i64 {lane}"))
            self._store(ty, total, out, i)

    def _lowest_bit(self, x: str, lanes: int = 1) -> str:
        """The exponent (i32) of f64 `x`'s lowest set bit (x normal: a widened f32 or f16
        value), `_NO_BITS` for a zero; lane by lane where `x` is a vector of `lanes`."""
        e = self.e

        def of(scalar: str) -> str:          # (the type: a scalar, or a vector of lanes)
            return scalar if lanes == 1 else f"<{lanes} x {scalar}>"

        def const(scalar: str, value: Any) -> str:
            return str(value) if lanes == 1 else f"splat ({scalar} {value})"
        cttz = "i64" if lanes == 1 else f"v{lanes}i64"
        e.declare(f"{of('i64')} @llvm.cttz.{cttz}({of('i64')}, i1)")
        bits = e.op(f"bitcast {of('double')} {x} to {of('i64')}")
        shifted = e.op(f"lshr {of('i64')} {bits}, {const('i64', 52)}")
        biased = e.op(f"and {of('i64')} {shifted}, {const('i64', 2047)}")
        fraction = e.op(f"and {of('i64')} {bits}, {const('i64', (1 << 52) - 1)}")
        whole = e.op(f"or {of('i64')} {fraction}, {const('i64', 1 << 52)}")
        zeros = e.op(f"call {of('i64')} @llvm.cttz.{cttz}({of('i64')} {whole}, i1 true)")
        exponent = e.op(f"sub {of('i64')} {biased}, {const('i64', 1075)}")
        low = e.op(f"add {of('i64')} {exponent}, {zeros}")
        zero = e.op(f"fcmp oeq {of('double')} {x}, {const('double', '0.0')}")
        narrow = e.op(f"trunc {of('i64')} {low} to {of('i32')}")
        return e.op(f"select {of('i1')} {zero}, {of('i32')} {const('i32', _NO_BITS)}, "
                    f"{of('i32')} {narrow}")

    def _exact_below(self, size: str, g: str) -> str:
        """i1: whether 32 `size` < 2**(53 + g) (g i32 >= -298): then every sum of terms that
        are multiples of 2**g, of magnitudes summing to at most twice `size`, is exact in
        f64 (docs/compiled-engine.md, "mmaf")."""
        e = self.e
        e.declare("i32 @llvm.smin.i32(i32, i32)")
        power = e.op(f"call i32 @llvm.smin.i32(i32 {e.op(f'add i32 {g}, 1076')}, i32 2046)")
        wide = e.op(f"zext i32 {power} to i64")
        limit = e.op(f"bitcast i64 {e.op(f'shl i64 {wide}, 52')} to double")
        return e.op(f"fcmp olt double {e.op(f'fmul double {size}, 32.0')}, {limit}")

    def _mmaf_exact(self, m: int, k: int, n: int, lhs: str, rhs: str, sums: str,
                    row_lengths: str, col_lengths: str, doubts: str, doubtful: str, out: str,
                    acc: Any) -> None:
        """The elements `_mmaf` left undecided (i8 `doubts`) whose f64 sum is exact, decided
        in one pass (over groups of 8 elements, passing over those with no doubt): every
        product a_k b_j is a multiple of 2**(g_i + h_j), g_i the lowest set bit of row i
        of lhs and h_j of column j of rhs, acc's element of its own lowest bit; where 32 A_c is below 2**(53 + that), every partial sum of the f64 sum
        (at most A <= 2 A_c) is exact, so the sum is X itself, rounded to nearest even as
        the reference rounds it (+0 for a zero, as `_mmaf_closer`).  (f16 operands have
        such sums: an exact midpoint of two f32 is then no rarity.)  Those left are marked
        in `doubts` again, and i1 `doubtful` set."""
        e = self.e
        e.declare("i32 @llvm.smin.i32(i32, i32)")
        e.declare("double @llvm.fabs.f64(double)")
        row_low, col_low = self._slot(m, I32), self._slot(n, I32)

        def lowest(slot: str, count: int, at: str) -> str:
            return self._element_of(L.Tile(slot, count, "i32"), at)

        self._row_lowest_bits(m, k, lhs, row_low)
        with e.loop(str(n), "col") as j:
            self._store("i32", str(_NO_BITS), col_low, j)
        with e.loop(str(k), "k") as kk:
            first = e.op(f"mul i64 {kk}, {n}")
            with e.loop(str(n), "col") as j:
                b = self._element_of(L.Tile(rhs, k * n, "double"), e.op(f"add i64 {first}, {j}"))
                least = e.op(f"call i32 @llvm.smin.i32(i32 {lowest(col_low, n, j)}, "
                             f"i32 {self._lowest_bit(b)})")
                self._store("i32", least, col_low, j)
        # the elements in groups of `width` (a power of two dividing m n): a group with
        # no doubt (one word of its doubt bytes 0) is passed over at once
        width = min(8, m * n)
        word = f"i{8 * width}"
        with e.loop(str(m * n // width), "group") as group:
            first = e.op(f"mul i64 {group}, {width}")
            bytes_at = e.op(f"getelementptr i8, ptr {doubts}, i64 {first}")
            with e.when(e.op(f"icmp ne {word} {e.op(f'load {word}, ptr {bytes_at}')}, 0")):
                with e.loop(str(width), "lane", defer=False) as lane:
                    at = e.op(f"add i64 {first}, {lane}")
                    doubts_of = L.Tile(doubts, m * n, "i8")
                    with e.when(e.op(f"icmp ne i8 {self._element_of(doubts_of, at)}, 0")):
                        i, j = e.op(f"udiv i64 {at}, {n}"), e.op(f"urem i64 {at}, {n}")
                        length_a = self._element_of(L.Tile(row_lengths, m, "double"), i)
                        c = e.op(f"fpext float {self._element_of(acc, at)} to double")
                        length_b = self._element_of(L.Tile(col_lengths, n, "double"), j)
                        size = e.op(f"fadd double {e.op(f'call double @llvm.fabs.f64(double {c})')}, "
                                    f"{e.op(f'fmul double {length_a}, {length_b}')}")
                        g_sum = e.op(f"add i32 {lowest(row_low, m, i)}, {lowest(col_low, n, j)}")
                        g = e.op(f"call i32 @llvm.smin.i32(i32 {self._lowest_bit(c)}, i32 {g_sum})")
                        exact = self._exact_below(size, g)
                        y = self._element_of(L.Tile(sums, m * n, "double"), at)
                        plus = e.op(f"fptrunc double {e.op(f'fadd double {y}, 0.0')} to float")
                        with e.when(exact):
                            self._store("float", plus, out, at)
                            self._store("i8", "0", doubts, at)
                        seen = e.op(f"load i1, ptr {doubtful}")
                        left = e.op(f"xor i1 {exact}, true")
                        e.do(f"store i1 {e.op(f'or i1 {seen}, {left}')}, ptr {doubtful}")

    def _rounds_alike(self, y: str, width: str, pushed: bool = True) -> tuple[str, str]:
        """Whether every real within f64 `width` of f64 `y` rounds to one f32: the ends
        ``y -+ width`` rounded to f32 and compared bit for bit (rounding to nearest is
        monotonic: every real between two reals rounding alike rounds so too).  Where
        `pushed`, the ends are pushed outwards by ``2**-51`` of their magnitude and
        ``2**-1000`` first, so that they hold the interval whatever ``y -+ width``
        rounded; else the caller's width already covers that rounding
        (`mmaf_decision_scale`).  (the lower end's f32, i1 alike)"""
        e = self.e
        e.declare("double @llvm.fabs.f64(double)")
        ends = []
        for instr in ("fsub", "fadd"):
            end = e.op(f"{instr} double {y}, {width}")
            if pushed:
                step = e.op(f"fmul double {e.op(f'call double @llvm.fabs.f64(double {end})')}, "
                            f"{L._f64(2.0 ** -51)}")
                end = e.op(f"{instr} double {end}, {step}")
                end = e.op(f"{instr} double {end}, {L._f64(2.0 ** -1000)}")
            ends.append(e.op(f"fptrunc double {end} to float"))
        same = e.op(f"icmp eq i32 {e.op(f'bitcast float {ends[0]} to i32')}, "
                    f"{e.op(f'bitcast float {ends[1]} to i32')}")
        return ends[0], same

    def _mmaf_closer(self, m: int, k: int, n: int, lhs: str, rhs: str, sums: str,
                     doubts: str, out: str, flag: Callable[[str], None], acc: Any) -> None:
        """The elements `_mmaf` left undecided (i8 `doubts`), looked at closer: acc and the
        products added with TwoSum into a double-f64 (hi, lo), |hi + lo - X| <= gamma_(K+1)
        (K + 1) u A, A summed exactly as it is defined (`mmaf_closer_scale`); decided as
        `_mmaf` decides, on that far narrower interval.  Those still undecided are flagged
        for settling."""
        e = self.e
        scale = L._f64(mmaf_closer_scale(k))

        def fabs(x: str) -> str:
            return e.op(f"call double @llvm.fabs.f64(double {x})")

        def two_sum(x: str, y: str) -> tuple[str, str]:
            total = e.op(f"fadd double {x}, {y}")
            back = e.op(f"fsub double {total}, {x}")
            front = e.op(f"fsub double {total}, {back}")
            error = e.op(f"fadd double {e.op(f'fsub double {x}, {front}')}, "
                         f"{e.op(f'fsub double {y}, {back}')}")
            return total, error

        parts = [e.fresh("part") for _ in range(3)]        # hi, lo, A (promoted)
        lowest = e.fresh("lowest")                          # g (promoted)
        e.entry += [f"  {p} = alloca double" for p in parts] + [f"  {lowest} = alloca i32"]

        with e.loop(str(m * n), "q", defer=False) as q:
            doubt = self._element_of(L.Tile(doubts, m * n, "i8"), q)
            with e.when(e.op(f"icmp ne i8 {doubt}, 0")):
                i, j = e.op(f"udiv i64 {q}, {n}"), e.op(f"urem i64 {q}, {n}")
                c = e.op(f"fpext float {self._element_of(acc, q)} to double")
                for part, value in zip(parts, (c, "0.0", fabs(c))):
                    e.do(f"store double {value}, ptr {part}")
                e.do(f"store i32 {self._lowest_bit(c)}, ptr {lowest}")
                with e.loop(str(k), "k", defer=False) as kk:
                    a = self._element_of(L.Tile(lhs, m * k, "double"),
                                         e.op(f"add i64 {e.op(f'mul i64 {i}, {k}')}, {kk}"))
                    b = self._element_of(L.Tile(rhs, k * n, "double"),
                                         e.op(f"add i64 {e.op(f'mul i64 {kk}, {n}')}, {j}"))
                    product = e.op(f"fmul double {a}, {b}")
                    hi, error = two_sum(e.op(f"load double, ptr {parts[0]}"), product)
                    lo = e.op(f"fadd double {e.op(f'load double, ptr {parts[1]}')}, {error}")
                    size = e.op(f"fadd double {e.op(f'load double, ptr {parts[2]}')}, "
                                f"{fabs(product)}")
                    for part, value in zip(parts, (hi, lo, size)):
                        e.do(f"store double {value}, ptr {part}")
                    term = e.op(f"add i32 {self._lowest_bit(a)}, {self._lowest_bit(b)}")
                    so_far = e.op(f"load i32, ptr {lowest}")
                    e.do(f"store i32 {e.op(f'call i32 @llvm.smin.i32(i32 {so_far}, i32 {term})')}, "
                         f"ptr {lowest}")
                hi, lo, size = (e.op(f"load double, ptr {p}") for p in parts)
                # exact: every term a multiple of 2**g and 32 A_c < 2**(53 + g), so every
                # partial sum, the reference's (its slices are multiples of their values'
                # lowest bits) and hi's, is exact: X = hi, rounded to nearest even (+0 for
                # an exact zero), as the reference rounds it
                exact = self._exact_below(size, e.op(f"load i32, ptr {lowest}"))
                y, r = two_sum(hi, lo)          # y + r = hi + lo exactly
                bound = e.op(f"fmul double {size}, {scale}")
                width = e.op(f"fmul double {e.op(f'fadd double {fabs(r)}, {bound}')}, "
                             f"{L._f64(1.0 + 2.0 ** -50)}")
                low, same = self._rounds_alike(y, width)
                flag(e.op(f"xor i1 {e.op(f'or i1 {same}, {exact}')}, true"))
                plus = e.op(f"fptrunc double {e.op(f'fadd double {hi}, 0.0')} to float")
                self._store("float", e.op(f"select i1 {exact}, float {plus}, float {low}"),
                            out, q)

    def _sum_products(self, m: int, k: int, n: int, lhs: str, rhs: str, sums: str,
                      acc: str) -> None:
        """sums[i, j] = acc[i, j] + lhs[i, kk] * rhs[kk, j] for kk = 0, 1, ..., k - 1 in
        order (f64 slots, row-major; acc f32, widened exactly).  Where n is a multiple of
        `MMAF_LANES`, the sums of `MMAF_ROWS` rows (or one) are held in `MMAF_GROUP` (or
        fewer) vectors of that many lanes each across the kk loop (in registers: only rhs
        is loaded, once for the rows; acc read into them first), else a scalar loop."""
        e = self.e
        lanes = MMAF_LANES
        group = next((g for g in (MMAF_GROUP, 2, 1) if n % (lanes * g) == 0), 0)
        vector = f"<{lanes} x double>"
        if not group:
            with e.loop(str(m * n), "q") as q:
                start = self._element_of(L.Tile(acc, m * n, "float"), q)
                self._store("double", e.op(f"fpext float {start} to double"), sums, q)
            with e.loop(str(m), "row") as i:
                row = e.op(f"mul i64 {i}, {n}")
                with e.loop(str(k), "k") as kk:
                    a = self._element_of(L.Tile(lhs, m * k, "double"),
                                         e.op(f"add i64 {e.op(f'mul i64 {i}, {k}')}, {kk}"))
                    first = e.op(f"mul i64 {kk}, {n}")
                    with e.loop(str(n), "col") as j:
                        at = e.op(f"add i64 {row}, {j}")
                        b = self._element_of(L.Tile(rhs, k * n, "double"),
                                             e.op(f"add i64 {first}, {j}"))
                        total = e.op("fadd double "
                                     f"{self._element_of(L.Tile(sums, m * n, 'double'), at)}, "
                                     f"{e.op(f'fmul double {a}, {b}')}")
                        self._store("double", total, sums, at)
            return
        e.declare(f"{vector} @llvm.fmuladd.v{lanes}f64({vector}, {vector}, {vector})")
        rows = MMAF_ROWS if m % MMAF_ROWS == 0 else 1
        cells = [[e.fresh("cell") for _ in range(group)] for _ in range(rows)]
        e.entry += [f"  {c} = alloca {vector}" for line in cells for c in line]
        with e.loop(str(m // rows), "rows") as ib:
            with e.loop(str(n // (lanes * group)), "block") as jb:
                column = e.op(f"mul i64 {jb}, {lanes * group}")
                places = []
                for r, line in enumerate(cells):
                    i = e.op(f"add i64 {e.op(f'mul i64 {ib}, {rows}')}, {r}")
                    start = e.op(f"add i64 {e.op(f'mul i64 {i}, {n}')}, {column}")
                    offsets = [e.op(f"add i64 {start}, {g * lanes}") for g in range(group)]
                    places.append([e.op(f"getelementptr double, ptr {sums}, i64 {at}")
                                   for at in offsets])
                    for c, at in zip(line, offsets):
                        first = e.op(f"getelementptr float, ptr {acc}, i64 {at}")
                        narrow = e.op(f"load <{lanes} x float>, ptr {first}, align 4")
                        e.do(f"store {vector} {e.op(f'fpext <{lanes} x float> {narrow} to {vector}')}, "
                             f"ptr {c}")
                with e.loop(str(k), "k") as kk:
                    base = e.op(f"add i64 {e.op(f'mul i64 {kk}, {n}')}, {column}")
                    bs = []
                    for g in range(group):
                        at = e.op(f"getelementptr double, ptr {rhs}, "
                                  f"i64 {e.op(f'add i64 {base}, {g * lanes}')}")
                        bs.append(e.op(f"load {vector}, ptr {at}, align 8"))
                    for r, line in enumerate(cells):
                        i = e.op(f"add i64 {e.op(f'mul i64 {ib}, {rows}')}, {r}")
                        a = self._element_of(L.Tile(lhs, m * k, "double"),
                                             e.op(f"add i64 {e.op(f'mul i64 {i}, {k}')}, {kk}"))
                        one = e.op(f"insertelement {vector} poison, double {a}, i64 0")
                        splat = e.op(f"shufflevector {vector} {one}, {vector} poison, "
                                     f"<{lanes} x i32> zeroinitializer")
                        for c, b in zip(line, bs):
                            # (a b is exact in f64: fused or not, the same sum)
                            total = e.op(f"call {vector} @llvm.fmuladd.v{lanes}f64({vector} "
                                         f"{splat}, {vector} {b}, {vector} "
                                         f"{e.op(f'load {vector}, ptr {c}')})")
                            e.do(f"store {vector} {total}, ptr {c}")
                for line, line_places in zip(cells, places):
                    for c, place in zip(line, line_places):
                        e.do(f"store {vector} {e.op(f'load {vector}, ptr {c}')}, ptr {place}, "
                             "align 8")


__all__ = ["MMAF_MAX_K", "MmafLowering", "mmaf_closer_scale", "mmaf_decision_scale",
           "mmaf_error_scale"]
