"""Compiling lowered kernels with llvmlite, once per key, kept in memory.

The key is (hash of the module's text, entry name, parameter types, LLVM version, host
CPU and its features): the lowering reads nothing else, and the code is made for this
CPU, so a kernel launched again (or parsed again from the same text) reuses its machine
code.  `compilations` counts the times LLVM actually compiled,
so tests can tell a cache hit from a compile without timing anything."""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from ...ir import Module, Operation
from .lower import Lowered, Unsupported, lower
from .settle import Settler

#: The C signature of ``run_span``: (begin, end, args, scratch) -> 0 ran, 1 a check failed.
SPAN_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_int64,
                                 ctypes.c_void_p, ctypes.c_void_p)

_lock = threading.Lock()
_cache: dict[tuple, "Compiled | str"] = {}
_keys: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()
_compilations = 0


@dataclass
class Compiled:
    """A kernel's machine code: `run_span` to call, and its lowering's facts."""

    lowered: Lowered
    run_span: Any
    engine: Any                 # the llvmlite execution engine that owns the code
    settler: Settler            # the function the code calls for undecided mmaf tiles


def llvm() -> Any:
    """llvmlite's binding module (ImportError when llvmlite is not installed)."""
    return importlib.import_module("llvmlite.binding")


_host: tuple[str, str] | None = None


def host_cpu() -> tuple[str, str]:
    """This machine's CPU name and feature string as LLVM names them (worked out once)."""
    global _host
    if _host is None:
        binding = llvm()
        binding.initialize_native_target()
        _host = (binding.get_host_cpu_name(), binding.get_host_cpu_features().flatten())
    return _host


def compilations() -> int:
    """How many kernels LLVM has compiled in this process (cache misses that compiled)."""
    return _compilations


def clear() -> None:
    """Forget every compiled kernel (tests)."""
    with _lock:
        _cache.clear()
        _keys.clear()


def _module_text(kernel: Operation) -> str:
    """The generic text of the module holding `kernel` (`Unsupported` if none does)."""
    top = kernel
    while top.parent_op is not None:
        top = top.parent_op
    if not isinstance(top, Module):
        raise Unsupported("the kernel is not in a module")
    return top.format(generic=True)


def key_of(plan: Any, binding: Any) -> tuple:
    """The cache key of a kernel plan (worked out once per plan: a plan is made anew
    whenever its kernel changes)."""
    key = _keys.get(plan)
    if key is None:
        kernel = plan.kernel
        digest = hashlib.sha256(_module_text(kernel).encode()).hexdigest()
        signature = tuple(str(t) for t in plan.params or ())
        key = (digest, kernel.symbol, signature, binding.llvm_version_info, host_cpu())
        _keys[plan] = key
    return key


def lookup(plan: Any) -> "Compiled | str | None":
    """The compiled kernel of `plan` (or why it cannot be) if it is in the cache already,
    else None (nothing is compiled; ImportError when llvmlite is missing)."""
    binding = llvm()
    try:
        key = key_of(plan, binding)
    except Unsupported as exc:
        return str(exc)
    with _lock:
        return _cache.get(key)


def compiled(plan: Any) -> "Compiled | str":
    """The compiled kernel of `plan`, or why it cannot be compiled (ImportError when
    llvmlite is missing)."""
    binding = llvm()
    try:
        key = key_of(plan, binding)
    except Unsupported as exc:
        return str(exc)
    with _lock:
        found = _cache.get(key)
        if found is None:
            try:
                found = _compile(lower(plan.kernel), binding)
            except Unsupported as exc:
                found = str(exc)
            except Exception as exc:    # (a bug here must not stop the launch: it falls back)
                found = f"compiling failed: {type(exc).__name__}: {exc}".splitlines()[0]
            _cache[key] = found
    return found


def _compile(lowered: Lowered, binding: Any) -> Compiled:
    """Machine code for `lowered` (counted in `compilations`)."""
    global _compilations
    engine, address = machine_code(lowered.ir, "run_span")
    _compilations += 1
    return Compiled(lowered, SPAN_FUNCTION(address), engine, Settler(lowered.settles))


def machine_code(ir: str, name: str) -> tuple[Any, int]:
    """Compile LLVM IR text for this CPU's vector units: (the execution engine owning the
    code, the address of function `name`).  Optimized at -O2: no fast-math flag is ever
    emitted, and the target's default fusion allows only the `fmuladd` intrinsic, never
    emitted, so every float operation keeps its IEEE result and nothing is contracted."""
    binding = llvm()
    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    cpu, features = host_cpu()
    # (a target machine of its own: the execution engine takes ownership of it)
    machine = binding.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=2, jit=True)
    module = binding.parse_assembly(ir)
    module.verify()
    options = binding.create_pipeline_tuning_options(speed_level=2)
    passes = binding.create_pass_builder(machine, options)
    passes.getModulePassManager().run(module, passes)
    engine = binding.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    return engine, engine.get_function_address(name)


__all__ = ["Compiled", "clear", "compilations", "compiled", "host_cpu", "llvm", "lookup",
           "machine_code"]
