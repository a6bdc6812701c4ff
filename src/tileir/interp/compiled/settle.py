"""The settle function compiled code calls where it left a rounding undecided.

The compiled mmaf and exp decide nearly every element's rounding from an interval around
a value of their own (docs/compiled-engine.md); where the interval straddles a midpoint
between two f32 values they cannot tell the reference's result.  Rather than stop the
launch, the code calls back here: for mmaf with the op's operand tiles, and the
reference's own mmaf semantics computes the whole tile, exactly as the reference engine
does for that tile block; for exp with the one element, and the reference's exp
semantics computes it (elementwise: each element alone as in the whole tile).  Their
bits replace the compiled ones.

The same function serves ops that have nothing to settle (`lower_control.HOSTED`): a
``print_tko`` hands over its operand tiles, formatted by the reference's print semantics
into `Settler.output` (written by the runner only once the run succeeded), and a ``loop``
calls it now and then to learn whether the run must stop (`Settler.stop`: Ctrl-C, or
another thread's failure); a kernel holding one gets a settler of its own per launch."""

from __future__ import annotations

import ctypes
import io
import math
import threading
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...ir import Operation
from ...numerics import numpy_dtype
from ..semantics.registry import SEMANTICS, short_name
from ..step import Step

#: The ops whose lowering polls through the settle function (a kernel with one runs its
#: spans on a worker thread, so the launching thread sees Ctrl-C and sets the stop flag
#: the poll reads).
POLLING = frozenset({"loop", "for"})

#: The C signature: (op index, operand, operand, operand, result) -> 0 settled, 1 not
#: (mmaf: lhs, rhs and acc tiles; exp: one element and two null pointers; print_tko: a
#: table of pointers to its operand tiles; loop: nothing).
SETTLE_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p,
                                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


_settled = 0


def settlements() -> int:
    """How many mmaf tiles the settle functions have settled in this process (so tests
    tell a settled tile from a decided one without timing anything)."""
    return _settled


@dataclass(frozen=True)
class _Step:
    """What the mmaf semantics reads of the step it runs: the op and its result types."""

    op: Operation

    def result_type(self, index: int) -> Any:
        return self.op.results[index].type


def _tile(address: int, element: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The row-major tile of `element`s and `shape` at `address`, as the reference engine
    holds it (a view: no copy)."""
    dtype = np.dtype(numpy_dtype(element))
    count = math.prod(shape)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype).reshape(shape)


class Settler:
    """The settle function of one compiled kernel: `function` is what the code calls;
    an interrupt (Ctrl-C) met inside is kept in `interrupted` for the runner to raise."""

    def __init__(self, ops: Sequence[Operation]) -> None:
        self.ops = tuple(ops)
        self.interrupted: BaseException | None = None
        #: What the kernel printed in this run (`print_tko`), for the runner to write.
        self.output = io.StringIO()
        #: Set when the run must stop (Ctrl-C, or another thread's failure): a loop's
        #: call then returns 1.
        self.stop = threading.Event()
        self.function = SETTLE_FUNCTION(self._settle)
        self.address = ctypes.cast(self.function, ctypes.c_void_p).value or 0

    def _settle(self, index: int, lhs: int, rhs: int, acc: int, out: int) -> int:
        """Write the reference's result at `out` (0), or give up (1)."""
        global _settled
        try:
            op = self.ops[index]
            name = short_name(op)
            if name in POLLING:                 # (a poll: Ctrl-C is raised in here)
                return 1 if self.stop.is_set() else 0
            if name == "print_tko":
                self._print(op, lhs)
                return 0
            if name == "mmaf":        # the whole tile
                shapes = [tuple(v.type.shape) for v in (*op.operands, op.results[0])]
            else:                               # one element
                shapes = [()] * (len(op.operands) + 1)
            operands = [_tile(address, value.type.element_type, shape) for address, value, shape
                        in zip((lhs, rhs, acc), op.operands, shapes)]
            result = SEMANTICS[short_name(op)](_Step(op), *operands)
            target = _tile(out, op.results[0].type.element_type, shapes[-1])
            target[...] = np.asarray(result, target.dtype)
            _settled += 1
            return 0
        except Exception:               # (the launch then reruns on the other engines)
            return 1
        except BaseException as exc:    # (Ctrl-C: the runner raises it after the call)
            self.interrupted = exc
            self.stop.set()
            return 1

    def _print(self, op: Operation, table: int) -> None:
        """Run the reference's print semantics on the operand tiles whose addresses lie
        in `table`, into `output`."""
        args = op.operand_group("args")
        addresses = (ctypes.c_void_p * len(args)).from_address(table) if args else ()
        tiles: list[Any] = [_tile(address or 0, value.type.element_type,
                                  tuple(value.type.shape))
                            for address, value in zip(addresses, args)]
        tiles += [None] * (len(op.operands) - len(args))    # (the token)
        SEMANTICS["print_tko"](Step(op, machine=_Printer(self.output)), *tiles)


@dataclass(frozen=True)
class _Printer:
    """What the print semantics reads of a machine: where it writes."""

    stream: io.StringIO

    def output(self) -> io.StringIO:
        """The run's output buffer."""
        return self.stream


__all__ = ["SETTLE_FUNCTION", "Settler", "settlements"]
