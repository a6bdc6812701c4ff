"""Pieces of the lowering compiled on their own, to measure them against NumPy
(tools/exp_accuracy.py, tests/jit): the float64 values the compiled `exp` and the
other unary math functions round."""

from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np

from .cache import machine_code
from .emitter import Emitter
from .lower import _LIBM, _Lowering

#: (input pointer, output pointer, count)
_PROBE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
_kept: list[Any] = []       # the execution engines of the probes made (their code lives on)


def exp_f64_probe() -> Callable[[np.ndarray], np.ndarray]:
    """A function mapping an f32 array to the float64 exp the compiled engine computes
    for each element (before rounding it to f32): `_Lowering._exp_f64`, compiled alone."""
    return math_f64_probe("exp")


def math_f64_probe(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A function mapping an f32 array to the float64 value the compiled engine rounds
    for unary math op `name` (``exp``: `_Lowering._exp_f64`; the others of
    `lower._LIBM`: the C library's function), compiled alone."""
    lowering = _Lowering.__new__(_Lowering)
    e = lowering.e = Emitter()
    if name != "exp":
        e.declare(f"double @{_LIBM[name]}(double)")
    with e.loop("%n") as i:
        at = e.op(f"getelementptr float, ptr %in, i64 {i}")
        x = e.op(f"fpext float {e.op(f'load float, ptr {at}')} to double")
        y = lowering._exp_f64(x) if name == "exp" else \
            e.op(f"call double @{_LIBM[name]}(double {x})")
        e.do(f"store double {y}, ptr {e.op(f'getelementptr double, ptr %out, i64 {i}')}")
    e.do("ret void")
    body = "\n".join(e.lines)
    ir = "\n".join(e.globals) + ("\n\ndefine void @probe(ptr noalias %in, ptr noalias %out, "
                                 f"i64 %n) {{\nentry:\n{body}\n}}\n")
    engine, address = machine_code(ir, "probe")
    _kept.append(engine)
    function = _PROBE(address)

    def run(x: np.ndarray) -> np.ndarray:
        """The compiled float64 value of every element of f32 array `x`."""
        source = np.ascontiguousarray(x, np.float32)
        out = np.empty(source.shape, np.float64)
        function(source.ctypes.data, out.ctypes.data, source.size)
        return out
    return run


#: (first operand pointer, second operand pointer, output pointer, count)
_PROBE2 = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.c_int64)


def binary_f64_probe(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A function mapping two arrays to the float64 value the compiled engine rounds for
    two-operand math op `name` of `lower._LIBM` (``atan2``, ``fpowf``: f32 and f32;
    ``fpowi``: f32 and i32), compiled alone (tools/pair_accuracy.py)."""
    lowering = _Lowering.__new__(_Lowering)
    e = lowering.e = Emitter()
    second = "i32" if name == "fpowi" else "float"
    e.declare(f"double @{_LIBM[name]}(double, double)")
    with e.loop("%n") as i:
        xs = [lowering._to_f64(e.op(f"load {ty}, ptr {e.op(f'getelementptr {ty}, ptr {at}, i64 {i}')}"),
                               ty) for at, ty in (("%a", "float"), ("%b", second))]
        y = e.op(f"call double @{_LIBM[name]}(double {xs[0]}, double {xs[1]})")
        e.do(f"store double {y}, ptr {e.op(f'getelementptr double, ptr %out, i64 {i}')}")
    e.do("ret void")
    body = "\n".join(e.lines)
    ir = "\n".join(e.globals) + ("\n\ndefine void @probe(ptr noalias %a, ptr noalias %b, "
                                 f"ptr noalias %out, i64 %n) {{\nentry:\n{body}\n}}\n")
    engine, address = machine_code(ir, "probe")
    _kept.append(engine)
    function = _PROBE2(address)

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The compiled float64 value of every pair of elements of `a` and `b`."""
        first = np.ascontiguousarray(a, np.float32)
        other = np.ascontiguousarray(b, np.int32 if second == "i32" else np.float32)
        out = np.empty(first.shape, np.float64)
        function(first.ctypes.data, other.ctypes.data, out.ctypes.data, first.size)
        return out
    return run


__all__ = ["binary_f64_probe", "exp_f64_probe", "math_f64_probe"]
