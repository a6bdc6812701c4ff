"""Compiling lowered kernels with llvmlite, once per key, kept in memory and on disk.

The key is (hash of the module's text, entry name, parameter types, LLVM version, host
CPU and its features, a hash of tileir's own sources): the lowering reads nothing else,
the code is made for this CPU, and no version of the engine uses another's code; so a
kernel launched again (or parsed again from the same text, in this process or another:
`disk.py`) reuses its machine code.  `compilations` counts the times LLVM
actually compiled and `loads` the kernels read from disk, so tests can tell a cache hit
from a compile without timing anything."""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
import weakref
from pathlib import Path
from dataclasses import dataclass
from typing import Any

from ...ir import Module, Operation
from . import disk
from .host import host_cpu, llvm
from .lower import Lowered, Unsupported, lower

#: The C signature of ``run_span``: (begin, end, args, scratch) -> 0 ran, 1 a check failed.
SPAN_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_int64,
                                 ctypes.c_void_p, ctypes.c_void_p)

_lock = threading.Lock()
_cache: dict[tuple, "Compiled | str"] = {}
_keys: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()
_compilations = 0
_loads = 0


@dataclass
class Compiled:
    """A kernel's machine code: `run_span` to call, and its lowering's facts."""

    lowered: Lowered
    run_span: Any
    engine: Any                 # the llvmlite execution engine that owns the code
    #: ``check_span`` where the code has one (`precheck.py`), else None.
    check_span: Any = None


_fingerprint: str | None = None


def engine_fingerprint() -> str:
    """SHA-256 of every Python source file of the installed tileir package (worked out
    once): part of every cache key, so machine code made by one version of the engine
    (its lowering, or the semantics it mirrors) is never used by another."""
    global _fingerprint
    if _fingerprint is None:
        root = Path(__file__).resolve().parents[2]
        digest = hashlib.sha256()
        try:
            sources = sorted(root.rglob("*.py"))
            for path in sources:
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                digest.update(path.read_bytes())
        except OSError:
            sources = []
        # (sources that cannot be read, as from a zip: a fingerprint of this process
        # alone, so no file on disk from another version is ever taken for this one's)
        _fingerprint = digest.hexdigest() if sources else "process " + os.urandom(16).hex()
    return _fingerprint


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
        key = (digest, kernel.symbol, signature, binding.llvm_version_info, host_cpu(),
               engine_fingerprint())
        _keys[plan] = key
    return key


def compiled(plan: Any) -> "Compiled | str":
    """The compiled kernel of `plan`, or why it cannot be compiled (ImportError when
    llvmlite is missing): from memory, else from the disk cache (`disk.py`), else
    lowered and compiled now (and kept on disk)."""
    global _compilations, _loads
    binding = llvm()
    try:
        key = key_of(plan, binding)
    except Unsupported as exc:
        return str(exc)
    with _lock:
        found = _cache.get(key)
        if found is None:
            try:
                kept = disk.load(key)
                if kept is not None:
                    found = _made(kept[0], *load_object(kept[1], "run_span"))
                    _loads += 1
                else:
                    lowered = lower(plan.kernel)
                    code = object_code(lowered.ir)
                    found = _made(lowered, *load_object(code, "run_span"))
                    _compilations += 1
                    disk.save(key, lowered, code)
            except Unsupported as exc:
                found = str(exc)
            except Exception as exc:    # (a bug here must not stop the launch: it falls back)
                found = f"compiling failed: {type(exc).__name__}: {exc}".splitlines()[0]
            _cache[key] = found
    return found


def _made(lowered: Lowered, engine: Any, address: int) -> Compiled:
    """A compiled kernel from its lowering and its loaded code."""
    check = engine.get_function_address("check_span")     # (0: the module has none)
    return Compiled(lowered, SPAN_FUNCTION(address), engine,
                    SPAN_FUNCTION(check) if check else None)


def _target_machine() -> Any:
    """A target machine for this CPU's vector units (a fresh one: an execution engine
    takes ownership of the one it is given)."""
    binding = llvm()
    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    cpu, features = host_cpu()
    return binding.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=2, jit=True)


def object_code(ir: str) -> bytes:
    """LLVM IR text compiled to an object file for this CPU's vector units.  Optimized at
    -O2: no fast-math flag is ever emitted, and the target's default fusion allows only
    the `fmuladd` intrinsic, emitted only where fusing cannot change the result, so every
    float operation keeps its IEEE result."""
    binding = llvm()
    machine = _target_machine()
    module = binding.parse_assembly(ir)
    module.verify()
    options = binding.create_pipeline_tuning_options(speed_level=2)
    # (no unrolling: unrolling cost a quarter of the compile time and measured no faster
    # on the bench kernels; no interleaving but where the IR asks, `Emitter.interleave`:
    # interleaving every loop cost attention 15% of its compile time, and only loops as
    # long in latency as an exp's measured faster for it)
    options.loop_unrolling = False
    options.loop_interleaving = False
    passes = binding.create_pass_builder(machine, options)
    passes.getModulePassManager().run(module, passes)
    return machine.emit_object(module)


def load_object(code: bytes, name: str) -> tuple[Any, int]:
    """Object code loaded into memory: (the execution engine owning it, the address of
    function `name`)."""
    binding = llvm()
    engine = binding.create_mcjit_compiler(binding.parse_assembly(""), _target_machine())
    engine.add_object_file(binding.ObjectFileRef.from_data(code))
    engine.finalize_object()
    address = engine.get_function_address(name)
    if not address:
        raise RuntimeError(f"the object code has no function {name}")
    return engine, address


def machine_code(ir: str, name: str) -> tuple[Any, int]:
    """Compile LLVM IR text and load it: (the execution engine owning the code, the
    address of function `name`)."""
    return load_object(object_code(ir), name)


def loads() -> int:
    """How many kernels were loaded from the disk cache in this process."""
    return _loads


__all__ = ["Compiled", "clear", "compilations", "compiled", "host_cpu", "llvm", "load_object",
           "loads", "machine_code", "object_code"]
