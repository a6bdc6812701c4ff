"""Lowering of bf16 conversions and of the ops that only move or relabel bits (`bitcast`,
`pack`, `unpack`, `insert`) and the programmatic-dependent-launch ops, a mixin of
`lower._Lowering`.

bf16 values are held as their 16 bits (LLVM ``i16``), as f16 ones are: moved unchanged
and converted by integer code only.  bf16 is f32's upper half, so f32 -> bf16 rounds by
looking at the 16 bits dropped (any rounding mode the reference takes: a table), and
bf16 -> f32 is exact (the bits shifted up).  i8 and i16 tiles use the integer lowering of
`lower.py` (their types are in its tables).  Exactness is the reference's
(`interp/semantics/conversion.py`, `core.py`, `misc.py`): the tests compare bytes."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...enums import RoundingMode
from ...ir import Operation
from ...numerics import convert_float, to_words
from ...types import BF16, F16, F32, F64, I1, I32
from . import lower as L        # (read at call time: lower.py imports this module)

#: Elementwise ops of this mixin (they fuse, and may sit in a reduce body).
TYPE_SCALAR_OPS = frozenset({"bitcast"})
#: Every op this mixin lowers.
TYPE_OPS = frozenset({*TYPE_SCALAR_OPS, "pack", "unpack", "insert", "gdc_wait_tko",
                      "gdc_launch_dependents_tko"})
#: The bf16 bits the reference gives a NaN result of ftof (`numerics.convert_float`).
CANONICAL_NAN_BF16 = int(to_words(convert_float(np.array(np.nan, np.float32), F32, BF16),
                                  BF16))
#: f32 bits of the smallest infinity and of its magnitude mask.
_F32_INFINITY, _F32_MAGNITUDE = 0x7F800000, 0x7FFFFFFF
#: Per rounding mode (the two the verifier allows a narrowing ftof): whether f32 -> bf16
#: rounds the kept magnitude up by one, from (emitter, the 16 dropped bits as i32, the
#: kept magnitude's lowest bit as i1).  An up that carries into the exponent is right (to
#: the next binade, or from the largest finite value to infinity).
_BF16_UP: dict[RoundingMode, Callable[[Any, str, str], str]] = {
    RoundingMode.NEAREST_EVEN: lambda e, r, odd: e.op(
        f"or i1 {e.op(f'icmp ugt i32 {r}, 32768')}, "
        f"{e.op('and i1 ' + odd + ', ' + e.op(f'icmp eq i32 {r}, 32768'))}"),
    RoundingMode.ZERO: lambda e, r, odd: "false",
}


class TypesLowering:
    """bf16 ftof, bitcast, pack, unpack, insert, and the gdc token ops."""

    # ---- bf16 conversions --------------------------------------------------------

    def _ftof_bf16(self: Any, op: Operation) -> Any:
        """ftof to or from bf16: f32 (or f16, widened exactly first) -> bf16 in any
        rounding mode of `_BF16_UP`; bf16 -> f32 and f64 (exact, any mode); bf16 -> f16
        to nearest even (through f32: one rounding of the exact value).  NaN: the
        target's canonical NaN, as `numerics.convert_float` gives."""
        source, target = op.operands[0].type.element_type, op.results[0].type.element_type
        mode = op.enum("rounding_mode")
        mode = RoundingMode.NEAREST_EVEN if mode is None else mode
        e = self.e
        widen: dict[Any, Callable[[str], str]] = {
            F32: lambda x: x, F16: self._f16_to_f32}
        if target == BF16 and source in widen and mode in _BF16_UP:
            return self._elementwise(op, lambda x: self._f32_to_bf16(widen[source](x[0]),
                                                                     mode))
        if source == BF16 and target == F32:
            return self._elementwise(op, lambda x: self._bf16_to_f32(x[0]))
        if source == BF16 and target == F64:
            return self._elementwise(op, lambda x: self._canonical(
                e.op(f"fpext float {self._bf16_to_f32(x[0])} to double"), F64))
        if (source, target) == (BF16, F16) and mode == RoundingMode.NEAREST_EVEN:
            return self._elementwise(op, lambda x: self._f32_to_f16(self._bf16_to_f32(x[0])))
        raise L.Unsupported(f"'{op.name}' from {source} to {target} rounding {mode.keyword} "
                            "(bf16: from f32 or f16 in any mode, to f32 or f64, to f16 "
                            "nearest even)")

    def _bf16_to_f32(self: Any, h: str) -> str:
        """The f32 value of bf16 bits `h` (i16): the bits shifted up (exact); a NaN the
        canonical f32 NaN."""
        e = self.e
        w = e.op(f"shl i32 {e.op(f'zext i16 {h} to i32')}, 16")
        nan = e.op(f"icmp ugt i32 {e.op(f'and i32 {w}, {_F32_MAGNITUDE}')}, {_F32_INFINITY}")
        bits = e.op(f"select i1 {nan}, i32 {L.CANONICAL_NAN[F32]}, i32 {w}")
        return e.op(f"bitcast i32 {bits} to float")

    def _f32_to_bf16(self: Any, x: str, mode: RoundingMode) -> str:
        """f32 `x` rounded to bf16 bits (i16) in `mode`: the upper 16 bits of the
        magnitude, plus one where `_BF16_UP` says (subnormals alike: bf16 has f32's
        exponent range), and the sign; a NaN the canonical bf16 NaN."""
        e = self.e
        w = e.op(f"bitcast float {x} to i32")
        a = e.op(f"and i32 {w}, {_F32_MAGNITUDE}")
        kept = e.op(f"lshr i32 {a}, 16")
        dropped = e.op(f"and i32 {a}, 65535")
        odd = e.op(f"trunc i32 {kept} to i1")
        up = _BF16_UP[mode](e, dropped, odd)
        magnitude = e.op(f"add i32 {kept}, {e.op(f'zext i1 {up} to i32')}")
        sign = e.op(f"lshr i32 {e.op(f'and i32 {w}, -2147483648')}, 16")
        bits = e.op(f"or i32 {sign}, {magnitude}")
        bits = e.op(f"select i1 {e.op(f'icmp ugt i32 {a}, {_F32_INFINITY}')}, "
                    f"i32 {CANONICAL_NAN_BF16}, i32 {bits}")
        return e.op(f"trunc i32 {bits} to i16")

    # ---- bits relabelled ---------------------------------------------------------

    def _bitcast(self: Any, op: Operation) -> Any:
        """The same bits read as another type of the same width (NaN payloads kept: no
        float operation touches them)."""
        source = L._element(op.operands[0].type.element_type, f"an operand of '{op.name}'")
        target = L._element(op.results[0].type.element_type, f"'{op.name}'")
        if source == target:        # (f16, bf16 and i16 are all i16 here)
            return self._elementwise(op, lambda x: x[0])
        return self._elementwise(op, lambda x: self.e.op(f"bitcast {source} {x[0]} to {target}"))

    def _bytes_of(self: Any, op: Operation) -> Any:
        """The operand of pack / unpack as a tile in a slot (its bytes little-endian and
        row-major in scratch, as the reference lays them out), after checking the types:
        whole bytes (not i1 or sub-byte types)."""
        for value in (op.operands[0], op.results[0]):
            t = value.type.element_type
            L._element(t, f"'{op.name}'")
            if t == I1:
                raise L.Unsupported(f"'{op.name}' of i1 (packed as bits)")
        t = op.operands[0].type
        source = self._get(op.operands[0])
        if isinstance(source, L.Tile):
            return source
        ty = L.LLVM_TYPES[t.element_type]
        slot = self._slot(t.num_elements, t.element_type)
        self._copy(source, slot, t.num_elements, ty)
        return L.Tile(slot, t.num_elements, ty)

    def _pack(self: Any, op: Operation) -> Any:
        """A rank-1 tile as its bytes (i8), little-endian: the slot it lies in, read as
        bytes (shared, as reshape shares: never written again while the value lives)."""
        source = self._bytes_of(op)
        result = op.results[0].type
        return L.Tile(source.ptr, result.num_elements, L.LLVM_TYPES[result.element_type],
                      source.lies)

    _unpack = _pack

    # ---- subtiles ----------------------------------------------------------------

    def _insert(self: Any, op: Operation) -> Any:
        """`destination` with subtile number `indices` (read unsigned; one naming no
        subtile stops the run, as extract: undefined with checks on, and with checks off
        the reference's wrap decides) replaced by `source`; a rank-0 source fills it."""
        e = self.e
        source, destination = (self._get(v) for v in op.operands[:2])
        part, whole = (tuple(v.type.shape) for v in op.operands[:2])
        result = op.results[0].type
        ty = L._element(result.element_type, f"'{op.name}'")
        if not part:
            return source if not whole else L.Splat(source, result.num_elements)
        firsts = []
        for d, value in enumerate(op.operands[2:]):
            if value.type.element_type != I32:
                raise L.Unsupported(f"'{op.name}' with an index of type "
                                    f"{value.type.element_type}")
            index = e.op(f"zext i32 {self._get(value).name} to i64")
            e.check(e.op(f"icmp ult i64 {index}, {whole[d] // part[d]}"), self.fail)
            firsts.append(e.op(f"mul i64 {index}, {part[d]}"))

        def place(c: list[str]) -> str:
            inside, offsets = "true", []
            for x, first, extent in zip(c, firsts, part):
                offset = e.op(f"sub i64 {x}, {first}")
                inside = e.op(f"and i1 {inside}, {e.op(f'icmp ult i64 {offset}, {extent}')}")
                offsets.append(offset)
            # (outside the subtile its coordinates are kept at 0: never read past it)
            kept = [e.op(f"select i1 {inside}, i64 {x}, i64 0") for x in offsets]
            new = self._element_of(source, self._at(kept, part))
            old = self._element_of(destination, self._at(c, whole))
            return e.op(f"select i1 {inside}, {ty} {new}, {ty} {old}")
        return self._gather(op, place)

    # ---- programmatic dependent launch -------------------------------------------

    def _gdc(self: Any, op: Operation) -> Any:
        """gdc_wait_tko / gdc_launch_dependents_tko: one kernel runs at a time here, so
        there is nothing to wait for or signal; the token passes (the reference's)."""
        return L._TOKEN

    _gdc_wait_tko = _gdc_launch_dependents_tko = _gdc


__all__ = ["CANONICAL_NAN_BF16", "TYPE_OPS", "TYPE_SCALAR_OPS", "TypesLowering"]
