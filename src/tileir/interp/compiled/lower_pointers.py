"""Tiles of pointers in the compiled engine: ``offset``, ``load_ptr_tko``,
``store_ptr_tko``, ``atomic_rmw_tko`` and ``atomic_cas_tko`` (a mixin of `lower._Lowering`);
also ``atomic_red_view_tko``, whose update is an atomic's, through a view's element loops
(`lower._Lowering._access`).

A pointer tile element is an i64 address in the launch's virtual address space.  Each
pointer tile is traced statically back to the one pointer parameter it was derived from
(its *provenance*: ``offset``, ``broadcast``, ``reshape``, ``select``... of that
parameter; anything else is not compiled), and every lane an op accesses is checked
against that parameter's buffer (its ``first`` / ``end`` / ``host`` argument words) and
for alignment, whatever `checks` says: a pointer outside it stops the run and the
reference reruns the launch (a pointer stays in its allocation's region, as ``offset``
checks, so outside that buffer means outside the buffer of its region: the reference's
"outside every mapped buffer").  Masked-off lanes are neither accessed nor checked, as
`interp.semantics.memory` does.  ``offset`` stops the run where a pointer would leave its
allocation's region (the reference's wrap and region checks, and more: the reference
decides).

Races cannot be ruled out statically for pointer accesses: where a check is needed
(`pointer_races.py`) each block writes the address of every active lane of every
pointer access to its row of a log (the argument word after the parameters'; masked lanes write 0), and
the runner checks the log with NumPy after the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ...enums import AtomicRMWMode, MemoryOrderingSemantics
from ...ir import BlockArgument, Operation
from ...types import F16, F32, F64, I32, I64, PointerType, TileType
from ..memory import REGION_BITS
from ..semantics.registry import short_name

#: Element types pointer accesses compile for.
POINTER_ELEMENTS = (F16, F32, F64, I32, I64)
#: Bytes per element of those types.
_BYTES = {F16: 2, F32: 4, F64: 8, I32: 4, I64: 8}
#: Ops whose pointer result has the provenance of their pointer operands (by index).
_PROVENANCE = {"assume": (0,), "reshape": (0,), "broadcast": (0,), "permute": (0,),
               "extract": (0,), "offset": (0,), "select": (1, 2), "cat": (0, 1)}
#: The integer atomic modes whose updates commute (any order of blocks gives one memory).
COMMUTING = frozenset({AtomicRMWMode.AND, AtomicRMWMode.OR, AtomicRMWMode.XOR,
                       AtomicRMWMode.ADD, AtomicRMWMode.MAX, AtomicRMWMode.MIN,
                       AtomicRMWMode.UMAX, AtomicRMWMode.UMIN})
#: Integer atomic updates: the LLVM instruction, or the icmp predicate picking the
#: operand over the old value.
_INT_UPDATE = {AtomicRMWMode.AND: ("and", None), AtomicRMWMode.OR: ("or", None),
               AtomicRMWMode.XOR: ("xor", None), AtomicRMWMode.ADD: ("add", None),
               AtomicRMWMode.MAX: (None, "sgt"), AtomicRMWMode.MIN: (None, "slt"),
               AtomicRMWMode.UMAX: (None, "ugt"), AtomicRMWMode.UMIN: (None, "ult")}
#: The bits of each float type, for compare-and-swap's bit comparison.
_FLOAT_BITS = {"float": "i32", "double": "i64", "i16": "i16"}


@dataclass(frozen=True)
class PointerAccess:
    """A pointer access op, as the runner's race and order checks need it: the pointer
    parameter its lanes derive from, whether it writes, whether it is atomic, its element
    bytes, where its lanes sit in a block's log row, whether it is inside a ``for``, the
    pointer accesses a token chain orders it after, and (atomics) whether its updates
    commute and its old values go unused."""

    param: int
    write: bool
    atomic: bool
    size: int
    column: int
    lanes: int
    repeated: bool = False
    after: tuple[int, ...] = ()
    commutes: bool = False
    mode: int = -1


@dataclass(frozen=True)
class ViewUpdate:
    """What makes a view store an atomic reduction (`lower._Lowering._access`): the new
    element from the old one and the operand's, the mode's value, and whether its updates
    commute (an integer mode of `COMMUTING`: no old value is ever returned)."""

    update: Callable[[str, str], str]
    mode: int
    commutes: bool


class PointerLowering:
    """The pointer-tile ops of `lower._Lowering` (which provides the emitter and values)."""

    def _init_pointers(self) -> None:
        """The pointer accesses met so far, by op, and the log columns they take."""
        self.pointer_accesses: list[PointerAccess] = []
        self.pointer_ops: dict[int, int] = {}
        self.log_columns = 0

    # ---- provenance and tokens ---------------------------------------------------

    def _provenance(self, value: Any) -> int:
        """The pointer parameter a tile of pointers derives from (`Unsupported` when it is
        not exactly one)."""
        from .lower import Unsupported
        if isinstance(value, BlockArgument) and value.owner is self.kernel.regions[0].blocks[0]:
            return value.index
        owner = getattr(value, "owner", None)
        name = short_name(owner) if isinstance(owner, Operation) else None
        if name not in _PROVENANCE:
            raise Unsupported("a tile of pointers not derived from one pointer parameter "
                              f"(through '{name}')")
        found = {self._provenance(owner.operands[i]) for i in _PROVENANCE[name]}
        if len(found) != 1:
            raise Unsupported("a tile of pointers derived from more than one pointer "
                              "parameter")
        return found.pop()

    # ---- ops -----------------------------------------------------------------------

    def _offset(self, op: Operation) -> Any:
        """``ptr + offset * size`` (the offset read signed) in i128; a result outside the
        pointer's allocation region stops the run (the reference decides: its wrap and
        region checks)."""
        from .lower import Unsupported
        pointee = op.results[0].type.element_type.pointee
        size = _BYTES.get(pointee)
        if size is None:
            raise Unsupported(f"'{op.name}' of a pointer to {pointee}")
        t = op.operands[1].type.element_type
        if t not in (I32, I64):
            raise Unsupported(f"'{op.name}' by {t} (only i32 and i64 are compiled)")
        self._provenance(op.results[0])
        e, wide = self.e, "i32" if t == I32 else "i64"

        def compute(x: list[str]) -> str:
            base = e.op(f"zext i64 {x[0]} to i128")
            n = e.op(f"sext {wide} {x[1]} to i128")
            moved = e.op(f"add i128 {base}, {e.op(f'mul i128 {n}, {size}')}")
            same = e.op(f"icmp eq i128 {e.op(f'ashr i128 {moved}, {REGION_BITS}')}, "
                        f"{e.op(f'lshr i128 {base}, {REGION_BITS}')}")
            e.check(same, self.fail)
            return e.op(f"trunc i128 {moved} to i64")
        return self._elementwise(op, compute)

    def _pointer_access(self, op: Operation, pointers: str, write: bool, atomic: bool,
                        t: Any) -> tuple[Any, PointerAccess, str, str, str]:
        """What every pointer access op shares: its checks on the op, its record (the
        lanes' place in the log), and the buffer words (first, end, host) of the
        parameter its pointers derive from."""
        from .lower import Unsupported
        if t not in POINTER_ELEMENTS:
            raise Unsupported(f"'{op.name}' of {t}")
        pointer_value = op.operand_group(pointers)[0]
        param = self._provenance(pointer_value)
        after = {self.pointer_ops[id(o)] for o in self.order.get(op, ())
                 if id(o) in self.pointer_ops}     # (`tokens.token_order`)
        lanes = pointer_value.type.num_elements
        mode = op.enum("mode") if "mode" in op.attributes else None
        commutes = atomic and mode in COMMUTING and t in (I32, I64) and \
            not self.users.get(op.results[0])
        record = PointerAccess(param, write, atomic, _BYTES[t], self.log_columns, lanes,
                               self.loops > 0, tuple(sorted(after)), commutes,
                               -1 if mode is None else int(mode.value))
        self.log_columns += lanes
        self.pointer_ops[id(op)] = len(self.pointer_accesses)
        self.pointer_accesses.append(record)
        _, _, _, first, end, host = self.values[self._param_value(param)]
        return self._whole(pointer_value), record, first, end, host

    def _lanes(self, op: Operation, record: PointerAccess, first: str, end: str,
               host: str, pointer: Any, mask: Any, body: Any, masked: Any) -> None:
        """A loop over the lanes in row-major order: an active lane's pointer checked
        against its buffer and alignment (else the run stops), logged, and handed to
        `body(i, host_pointer)`; a masked-off lane to `masked(i)`."""
        e = self.e
        size = record.size
        logging = e.op(f"icmp ne i64 {self.pointer_log}, 0")
        # access k's lanes of block n: entries blocks * column + n * lanes + i
        row = e.op(f"add i64 {e.op(f'mul i64 {self.blocks}, {record.column}')}, "
                   f"{e.op(f'mul i64 {self.block_number}, {record.lanes}')}")
        log_ptr = e.op(f"inttoptr i64 {self.pointer_log} to ptr")
        with e.loop(str(record.lanes), defer=False) as i:
            active = "true" if mask is None else self._element_of(mask, i)
            p = self._element_of(pointer, i)
            with e.when(logging):
                at = e.op(f"getelementptr i64, ptr {log_ptr}, i64 {e.op(f'add i64 {row}, {i}')}")
                e.do(f"store i64 {e.op(f'select i1 {active}, i64 {p}, i64 0')}, ptr {at}")
            then, other, after = e.label("lane"), e.label("masked"), e.label("next")
            e.do(f"br i1 {active}, label %{then}, label %{other}")
            e.start(then)
            e.check(e.op(f"icmp uge i64 {p}, {first}"), self.fail)
            e.check(e.op(f"icmp ule i64 {e.op(f'add i64 {p}, {size}')}, {end}"), self.fail)
            e.check(e.op(f"icmp eq i64 {e.op(f'urem i64 {p}, {size}')}, 0"), self.fail)
            delta = e.op(f"sub i64 {p}, {first}")
            place = e.op(f"inttoptr i64 {e.op(f'add i64 {host}, {delta}')} to ptr")
            body(i, place)
            e.branch(after)
            e.start(other)
            masked(i)
            e.branch(after)
            e.start(after)

    def _weak_only(self, op: Operation) -> None:
        """Loads and stores through pointers compile when weak (others may order blocks)."""
        from .lower import Unsupported
        if op.enum("memory_ordering_semantics") != MemoryOrderingSemantics.WEAK:
            raise Unsupported(f"'{op.name}' is not weak")

    def _optional(self, op: Operation, name: str) -> Any:
        """The lowered value of operand group `name` (None when absent), computed whole
        where computing it checks values (`_whole`)."""
        values = op.values_named(name)
        return self._whole(values[0]) if values else None

    def _whole(self, value: Any) -> Any:
        """The lowered value of a tile operand; a lazy one whose elements check values is
        computed into a slot first (a lane loop reads only some elements, and the
        reference checks them all)."""
        from .lower import Lazy
        found = self._get(value)
        if isinstance(found, Lazy) and found.checked:
            return self._materialize(found, value.type.element_type)
        return found

    def _load_ptr_tko(self, op: Operation) -> Any:
        """Every active lane loaded from its pointer; a masked lane gets the padding (0
        without one), as `semantics.memory.load_ptr_tko` fills it."""
        from .lower import LLVM_TYPES, Scalar, Tile
        self._weak_only(op)
        result = op.results[0].type
        t = result.element_type
        pointer, record, first, end, host = self._pointer_access(op, "source", False, False, t)
        ty = LLVM_TYPES[t]
        mask, padding = self._optional(op, "mask"), self._optional(op, "paddingValue")
        out = self._slot(record.lanes, t)
        zero = "0.0" if ty in ("float", "double") else "0"
        self._lanes(op, record, first, end, host, pointer, mask,
                    lambda i, place: self._store(ty, self.e.op(f"load {ty}, ptr {place}, align 1"),
                                                 out, i),
                    lambda i: self._store(ty, zero if padding is None else
                                          self._element_of(padding, i), out, i))
        if result.rank == 0:
            return Scalar(self._element_of(Tile(out, 1, ty), "0"), ty), _token()
        return Tile(out, record.lanes, ty), _token()

    def _store_ptr_tko(self, op: Operation) -> Any:
        """Every active lane's value stored at its pointer, lanes in row-major order (the
        last of several lanes at one address wins, as `Memory.store` does)."""
        from .lower import LLVM_TYPES
        self._weak_only(op)
        t = op.operands[1].type.element_type
        pointer, record, first, end, host = self._pointer_access(op, "destination", True,
                                                                 False, t)
        ty = LLVM_TYPES[t]
        value, mask = self._whole(op.operands[1]), self._optional(op, "mask")
        self._lanes(op, record, first, end, host, pointer, mask,
                    lambda i, place: self.e.do(
                        f"store {ty} {self._element_of(value, i)}, ptr {place}, align 1"),
                    lambda i: None)
        return _token()

    def _atomic_update(self, op: Operation, mode: AtomicRMWMode, t: Any
                       ) -> Callable[[str, str], str]:
        """The new memory element from the old one and the operand's, for atomic `mode`
        on `t` (`Unsupported` where not compiled).  A float sum that is NaN stops the run
        (its payload is the reference's to choose); inside an element loop at its exit."""
        from .lower import LLVM_TYPES, Unsupported
        ty = LLVM_TYPES.get(t)
        floating = t in (F32, F64)
        if not (mode == AtomicRMWMode.XCHG and t in POINTER_ELEMENTS) and \
                not (mode in _INT_UPDATE and t in (I32, I64)) and \
                not (mode in (AtomicRMWMode.ADD, AtomicRMWMode.ADDF) and floating):
            raise Unsupported(f"'{op.name}' {mode.name.lower()} on {t}")
        e = self.e

        def update(old: str, x: str) -> str:
            if mode == AtomicRMWMode.XCHG:
                return x
            if floating:
                new = e.op(f"fadd {ty} {old}, {x}")
                e.check_value(e.op(f"fcmp ord {ty} {new}, 0.0"), self.fail)
                return new
            code, pick = _INT_UPDATE[mode]
            if code is not None:
                return e.op(f"{code} {ty} {old}, {x}")
            return e.op(f"select i1 {e.op(f'icmp {pick} {ty} {x}, {old}')}, {ty} {x}, {ty} {old}")
        return update

    def _atomic_rmw_tko(self, op: Operation) -> Any:
        """Each active lane in row-major order: old = memory, memory = mode(old, arg)
        (the reference's rounds give each address its lanes in that order); the old
        values (a masked lane: 0)."""
        t = op.results[0].type.element_type
        update = self._atomic_update(op, op.enum("mode"), t)
        pointer, record, first, end, host = self._pointer_access(op, "pointers", True, True, t)
        arg, mask = self._whole(op.operands[1]), self._optional(op, "mask")
        zero = "0.0" if t in (F32, F64) else "0"
        return self._read_modify_write(op, record, first, end, host, pointer, mask, t,
                                       lambda old, i: update(old, self._element_of(arg, i)),
                                       lambda i: zero)

    def _atomic_red_view_tko(self, op: Operation) -> Any:
        """Each element of the view's tile inside the tensor, in row-major order: memory =
        mode(memory, value), as the reference's rounds apply them; the view access's
        checks (index space, ``inbounds``, the corners inside the buffer) are a store's."""
        t = op.operand_group("value")[0].type.element_type
        mode = op.enum("mode")
        update = self._atomic_update(op, mode, t)
        return self._access(op, True, ViewUpdate(update, int(mode.value),
                                                 mode in COMMUTING and t in (I32, I64)))

    def _atomic_cas_tko(self, op: Operation) -> Any:
        """Each active lane in row-major order: memory equal bit for bit to ``cmp`` gets
        ``val``; the old values (a masked lane: its ``cmp``, as the spec says)."""
        from .lower import LLVM_TYPES
        t = op.results[0].type.element_type
        pointer, record, first, end, host = self._pointer_access(op, "pointers", True, True, t)
        ty = LLVM_TYPES.get(t)
        cmp, val = self._whole(op.operands[1]), self._whole(op.operands[2])
        mask = self._optional(op, "mask")
        e = self.e
        bits = _FLOAT_BITS.get(ty, ty)

        def swap(old: str, i: str) -> str:
            expected = self._element_of(cmp, i)
            as_bits = (lambda v: v) if bits == ty else \
                (lambda v: e.op(f"bitcast {ty} {v} to {bits}"))
            same = e.op(f"icmp eq {bits} {as_bits(old)}, {as_bits(expected)}")
            return e.op(f"select i1 {same}, {ty} {self._element_of(val, i)}, {ty} {old}")
        return self._read_modify_write(op, record, first, end, host, pointer, mask, t, swap,
                                       lambda i: self._element_of(cmp, i))

    def _read_modify_write(self, op: Operation, record: PointerAccess, first: str,
                           end: str, host: str, pointer: Any, mask: Any, t: Any,
                           update: Any, masked: Any) -> Any:
        """An atomic's lane loop: old value loaded, `update(old, i)` stored, old kept as
        result element i; a masked lane's result is `masked(i)`."""
        from .lower import LLVM_TYPES, Scalar, Tile
        ty = LLVM_TYPES[t]
        out = self._slot(record.lanes, t)
        e = self.e

        def body(i: str, place: str) -> None:
            old = e.op(f"load {ty}, ptr {place}, align 1")
            e.do(f"store {ty} {update(old, i)}, ptr {place}, align 1")
            self._store(ty, old, out, i)
        self._lanes(op, record, first, end, host, pointer, mask, body,
                    lambda i: self._store(ty, masked(i), out, i))
        if op.results[0].type.rank == 0:
            return Scalar(self._element_of(Tile(out, 1, ty), "0"), ty), _token()
        return Tile(out, record.lanes, ty), _token()


def _token() -> Any:
    """The lowered value of a token (`lower._TOKEN`; `lower` imports this module, so it
    is looked up when first needed)."""
    from .lower import _TOKEN
    return _TOKEN


def pointer_type(t: Any) -> bool:
    """Whether `t` is a tile of pointers (an element type of pointer)."""
    return isinstance(t, PointerType) or (isinstance(t, TileType) and
                                          isinstance(t.element_type, PointerType))


__all__ = ["COMMUTING", "PointerAccess", "PointerLowering", "ViewUpdate", "pointer_type"]
