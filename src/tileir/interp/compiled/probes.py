"""Pieces of the lowering compiled on their own, to measure them against NumPy
(tools/exp_accuracy.py, tools/pair_accuracy.py, tests/jit): the float64 values the
compiled `exp` and the other math functions round."""

from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np

from .cache import machine_code
from .emitter import Emitter
from .lower import _LIBM, _Lowering

#: The NumPy dtype of each operand LLVM type a probe reads.
_DTYPES = {"float": np.float32, "i32": np.int32}
_kept: list[Any] = []       # the execution engines of the probes made (their code lives on)


def exp_f64_probe() -> Callable[[np.ndarray], np.ndarray]:
    """A function mapping an f32 array to the float64 exp the compiled engine computes
    for each element (before rounding it to f32): `_Lowering._exp_f64`, compiled alone."""
    return math_f64_probe("exp")


def math_f64_probe(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A function mapping an f32 array to the float64 value the compiled engine rounds
    for unary math op `name` (``exp``: `_Lowering._exp_f64`; the others of
    `lower._LIBM`: the C library's function), compiled alone."""
    return _probe(name, ("float",))


def binary_f64_probe(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A function mapping two arrays to the float64 value the compiled engine rounds for
    two-operand math op `name` of `lower._LIBM` (``atan2``, ``fpowf``: f32 and f32;
    ``fpowi``: f32 and i32), compiled alone (tools/pair_accuracy.py)."""
    return _probe(name, ("float", "i32" if name == "fpowi" else "float"))


def _probe(name: str, types: tuple[str, ...]) -> Callable[..., np.ndarray]:
    """The compiled float64 value of math op `name` on operands of LLVM types `types`,
    element by element, as a function of arrays."""
    lowering = _Lowering.__new__(_Lowering)
    e = lowering.e = Emitter()
    operands = [f"%in{k}" for k in range(len(types))]
    if name != "exp":
        e.declare(f"double @{_LIBM[name]}({', '.join(['double'] * len(types))})")
    with e.loop("%n") as i:
        xs = [lowering._to_f64(e.op(f"load {ty}, ptr "
                                    f"{e.op(f'getelementptr {ty}, ptr {at}, i64 {i}')}"), ty)
              for at, ty in zip(operands, types)]
        y = lowering._exp_f64(xs[0]) if name == "exp" else \
            e.op(f"call double @{_LIBM[name]}({', '.join(f'double {x}' for x in xs)})")
        e.do(f"store double {y}, ptr {e.op(f'getelementptr double, ptr %out, i64 {i}')}")
    e.do("ret void")
    parameters = ", ".join(f"ptr noalias {at}" for at in (*operands, "%out"))
    ir = "\n".join(e.globals) + (f"\n\ndefine void @probe({parameters}, i64 %n) {{\n"
                                 f"entry:\n" + "\n".join(e.lines) + "\n}\n")
    engine, address = machine_code(ir, "probe")
    _kept.append(engine)
    function = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * (len(types) + 1),
                                ctypes.c_int64)(address)

    def run(*arrays: np.ndarray) -> np.ndarray:
        """The compiled float64 value of every element (or pair of elements)."""
        inputs = [np.ascontiguousarray(a, _DTYPES[ty]) for a, ty in zip(arrays, types)]
        out = np.empty(inputs[0].shape, np.float64)
        function(*(a.ctypes.data for a in inputs), out.ctypes.data, inputs[0].size)
        return out
    return run


__all__ = ["binary_f64_probe", "exp_f64_probe", "math_f64_probe"]
