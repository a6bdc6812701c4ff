"""Lowering of ``loop`` (with ``break`` and ``continue``, also inside nested ``if``s),
``print_tko`` and ``assert`` for the compiled engine: a mixin of `lower._Lowering`.

A ``loop`` keeps its iteration values in scratch slots of their own and its results in
homes of their own (a cell or a slot each): a ``continue`` copies its values into the
slots (in two steps: a value may be another one's slot) and jumps to the loop's head, a
``break`` copies its values into the homes and jumps past the loop.  The reference runs a
``loop`` until it breaks, with no bound (Ctrl-C stops it); so the compiled loop calls the
settle function (`settle.py`) every `POLL_CYCLES` processor cycles or so, which answers
"stop" once the launch's stop flag is set: by the launching thread, waiting while the
span runs on a thread of its own, when Ctrl-C reaches it (the launch stops, memory put
back, `KeyboardInterrupt` raised), or when another thread failed.

``print_tko`` hands its operand tiles to the settle function, which formats them with the
reference's own semantics into the run's buffer; the runner writes that text only when the
whole compiled run succeeded (a failed run is rerun by the reference, which prints it
again), and runs a printing kernel on one thread, in grid order.  ``assert`` stops the
run where an element is false: the reference reruns the kernel and reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...ir import Operation
from ...types import TileType, TokenType
from ..semantics.registry import short_name
from . import lower as base     # (lower.py imports this module: names read at run time)
from .settle import POLLING

#: Iterations of loops between two reads of the processor's cycle counter.
POLL_STRIDE = 64
#: Cycles (about a few milliseconds) after which a loop calls the settle function to let
#: Python see Ctrl-C (or another thread's failure).
POLL_CYCLES = 1 << 24
#: Reads of the cycle counter after which the settle function is called anyway (where the
#: counter does not advance: some targets read it as 0).
POLL_ROUNDS = 1 << 14
#: The ops whose lowering calls the settle function with no rounding to settle: the runner
#: gives a kernel holding one a settle function of its own per launch.
HOSTED = frozenset({*POLLING, "print_tko"})


@dataclass
class _LoopState:
    """What a ``break`` or ``continue`` of one ``loop`` needs: where its iteration values
    and results live (None for a token) and the blocks to jump to."""

    carried: list[Any]          # per iteration value: (slot, type, LLVM type) or None
    homes: list[Any]            # per result: ("cell", ptr, ty), ("slot", ptr, n, ty), None
    head: str
    exit: str


class ControlLowering:
    """``loop``, ``break``, ``continue``, ``print_tko`` and ``assert``, for `_Lowering`
    (which supplies `e`, `fail`, `loops`, `_get`, `_slot`, `_copy`, `_element_of`,
    `_carried`, `_call_settle`, `_literal`)."""

    e: Any
    fail: str
    loops: int

    # ---- loop ----------------------------------------------------------------------

    def _loop_states(self) -> dict[int, _LoopState]:
        """The state of every ``loop`` being lowered, by the op's id."""
        return self.__dict__.setdefault("_control_loops", {})

    def _loop(self, op: Operation) -> Any:
        """The body run again after each ``continue`` (with its values as the next
        iteration values) until a ``break`` (whose values are the results)."""
        e = self.e
        blocks = op.regions[0].blocks
        if len(blocks) != 1:
            raise base.Unsupported(f"'{op.name}' with {len(blocks)} blocks")
        body = blocks[0]
        ops = list(body)
        last = short_name(ops[-1]) if ops else None
        if last not in ("continue", "break") and (op.operands or op.results):
            raise base.Unsupported(f"'{op.name}' whose body does not end in a continue or break")
        carried: list[Any] = []
        for value, argument in zip(op.operands, body.arguments):
            carried.append(self._iteration_slot(op, argument.type, self._get(value)))
        homes = [self._home(op, result.type) for result in op.results]
        state = _LoopState(carried, homes, e.label("loop.head"), e.label("loop.exit"))
        self._loop_states()[id(op)] = state
        e.branch(state.head)
        e.start(state.head)
        self._poll(op)
        for argument, c in zip(body.arguments, carried):
            self.values[argument] = base._TOKEN if c is None else self._carried(c)
        self.loops += 1     # (a store in the body may run more than once per block)
        for inner in ops:
            self.lower(inner)
        self.loops -= 1
        e.branch(state.head)    # (a body with no terminator and no values runs again)
        e.start(state.exit)
        del self._loop_states()[id(op)]
        out = []
        for home in homes:
            if home is None:
                out.append(base._TOKEN)
            elif home[0] == "cell":
                out.append(base.Scalar(e.op(f"load {home[2]}, ptr {home[1]}"), home[2]))
            else:
                out.append(base.Tile(home[1], home[2], home[3]))
        return tuple(out)

    def _iteration_slot(self, op: Operation, t: Any, init: Any) -> Any:
        """A slot holding one iteration value of type `t`, filled with `init` (None for
        a token)."""
        if not isinstance(t, TileType):
            if isinstance(t, TokenType) and init is base._TOKEN:
                return None
            raise base.Unsupported(f"'{op.name}' carrying a {t}")
        ty = base._element(t.element_type, f"a value '{op.name}' carries")
        slot = self._slot(t.num_elements, t.element_type)
        self._copy(init, slot, t.num_elements, ty)
        return (slot, t, ty)

    def _home(self, op: Operation, t: Any) -> Any:
        """Where a result of `op` is kept: a cell for a scalar, a slot for a tile, None
        for a token."""
        if not isinstance(t, TileType):
            if isinstance(t, TokenType):
                return None
            raise base.Unsupported(f"'{op.name}' with a result of type {t}")
        ty = base._element(t.element_type, f"a result of '{op.name}'")
        if t.rank == 0:
            cell = self.e.fresh("cell")
            self.e.entry.append(f"  {cell} = alloca {ty}")
            return ("cell", cell, ty)
        return ("slot", self._slot(t.num_elements, t.element_type), t.num_elements, ty)

    def _owner(self, op: Operation) -> _LoopState:
        """The state of the ``loop`` a ``break`` or ``continue`` ends an iteration of (the
        nearest enclosing one past any ``if``s)."""
        parent = op.parent_op
        while parent is not None and short_name(parent) == "if":
            parent = parent.parent_op
        state = self._loop_states().get(id(parent)) if parent is not None else None
        if state is None:
            where = "nothing" if parent is None else f"'{parent.name}'"
            raise base.Unsupported(f"'{op.name}' ending an iteration of {where}")
        return state

    def _continue(self, op: Operation) -> None:
        """Copy the values into the loop's iteration slots, then go to its head."""
        state = self._owner(op)
        values = [self._get(v) for v in op.operands]
        if len(values) != len(state.carried):
            raise base.Unsupported(f"'{op.name}' with {len(values)} values for "
                               f"{len(state.carried)} iteration values")
        self._carry(values, state.carried)
        self._jump(state.head)

    def _carry(self, values: list[Any], carried: list[Any]) -> None:
        """Copy a ``continue``'s values (of a ``loop`` or a ``for``) into their iteration
        slots (`carried`: per value its (slot, type, LLVM type), or None for a token).  In
        two steps, since a value may be another one's slot or computed from one (a lazy
        value); a tile in a slot of its own (not a carried one) is copied just once."""
        slots = {c[0] for c in carried if c is not None}
        staged = []
        for value, c in zip(values, carried):
            if c is None or isinstance(value, (base.Scalar, base.Splat)) or \
                    (isinstance(value, base.Tile) and value.ptr not in slots):
                staged.append(value)
                continue
            slot, t, ty = c
            temp = self._slot(t.num_elements, t.element_type)
            self._copy(value, temp, t.num_elements, ty)
            staged.append(base.Tile(temp, t.num_elements, ty))
        for value, c in zip(staged, carried):
            if c is not None:
                self._copy(value, c[0], c[1].num_elements, c[2])

    def _break(self, op: Operation) -> None:
        """Copy the values into the loop's result homes, then leave it."""
        state = self._owner(op)
        values = [self._get(v) for v in op.operands]
        if len(values) != len(state.homes):
            raise base.Unsupported(f"'{op.name}' with {len(values)} values for "
                               f"{len(state.homes)} results")
        for value, home in zip(values, state.homes):
            if home is None:
                continue
            if home[0] == "cell":
                self.e.do(f"store {home[2]} {self._element_of(value, '0')}, ptr {home[1]}")
            else:
                self._copy(value, home[1], home[2], home[3])
        self._jump(state.exit)

    def _jump(self, label: str) -> None:
        """Branch to `label`; what the caller writes next goes to a block nothing
        reaches (LLVM drops it)."""
        self.e.branch(label)
        self.e.start(self.e.label("after.jump"))

    def _poll(self, op: Operation) -> None:
        """Every `POLL_STRIDE` iterations of any loop, read the cycle counter; past
        `POLL_CYCLES` since the last call (or `POLL_ROUNDS` reads), call the settle
        function for `op`, which stops the run on Ctrl-C or another thread's failure."""
        e = self.e
        count, last, rounds = self._poll_cells()
        left = e.op(f"sub i32 {e.op(f'load i32, ptr {count}')}, 1")
        e.do(f"store i32 {left}, ptr {count}")
        with e.when(e.op(f"icmp eq i32 {left}, 0")):
            e.do(f"store i32 {POLL_STRIDE}, ptr {count}")
            now = e.op("call i64 @llvm.readcyclecounter()", "now")
            spent = e.op(f"sub i64 {now}, {e.op(f'load i64, ptr {last}')}")
            read = e.op(f"add i32 {e.op(f'load i32, ptr {rounds}')}, 1")
            e.do(f"store i32 {read}, ptr {rounds}")
            late = e.op(f"or i1 {e.op(f'icmp uge i64 {spent}, {POLL_CYCLES}')}, "
                        f"{e.op(f'icmp uge i32 {read}, {POLL_ROUNDS}')}")
            with e.when(late):
                e.do(f"store i64 {now}, ptr {last}")
                e.do(f"store i32 0, ptr {rounds}")
                self._call_settle(op, [], "null")

    def _poll_cells(self) -> tuple[str, str, str]:
        """The function's poll state (made once): iterations left before the next read
        of the cycle counter, the count at the last call, reads since then."""
        cells = self.__dict__.get("_control_poll")
        if cells is None:
            e = self.e
            e.declare("i64 @llvm.readcyclecounter()")
            count, last, rounds = e.fresh("poll.count"), e.fresh("poll.last"), \
                e.fresh("poll.rounds")
            start = e.fresh("poll.start")
            e.entry += [f"  {count} = alloca i32", f"  store i32 {POLL_STRIDE}, ptr {count}",
                        f"  {last} = alloca i64",
                        f"  {start} = call i64 @llvm.readcyclecounter()",
                        f"  store i64 {start}, ptr {last}",
                        f"  {rounds} = alloca i32", f"  store i32 0, ptr {rounds}"]
            cells = self.__dict__["_control_poll"] = (count, last, rounds)
        return cells

    # ---- print and assert ------------------------------------------------------------

    def _print_tko(self, op: Operation) -> Any:
        """Hand every operand tile (written out where it is not in memory) to the settle
        function, which formats them as the reference does into the run's output."""
        e = self.e
        args = op.operand_group("args")
        pointers = []
        for value in args:
            t = value.type
            if not isinstance(t, TileType):
                raise base.Unsupported(f"'{op.name}' of a {t}")
            ty = base._element(t.element_type, f"an operand of '{op.name}'")
            tile = self._get(value)
            if not isinstance(tile, base.Tile):
                slot = self._slot(t.num_elements, t.element_type)
                self._copy(tile, slot, t.num_elements, ty)
                tile = base.Tile(slot, t.num_elements, ty)
            pointers.append(tile.ptr)
        table = "null"
        if pointers:
            table = e.fresh("printed")
            e.entry.append(f"  {table} = alloca [{len(pointers)} x ptr]")
            for k, pointer in enumerate(pointers):
                at = e.op(f"getelementptr ptr, ptr {table}, i64 {k}", "at")
                e.do(f"store ptr {pointer}, ptr {at}")
        self._call_settle(op, [table], "null")
        return tuple(base._TOKEN for _ in op.results)

    def _assert(self, op: Operation) -> None:
        """Stop the run where any element of the condition is false (the reference then
        reruns the kernel and reports which)."""
        e = self.e
        condition = self._get(op.operands[0])
        t = op.operands[0].type
        if isinstance(condition, (base.Scalar, base.Splat)):
            e.check(self._element_of(condition, "0"), self.fail)
            return
        with e.loop(str(t.num_elements)) as i:
            e.check_value(self._element_of(condition, i), self.fail)


__all__ = ["ControlLowering", "HOSTED", "POLL_CYCLES"]
