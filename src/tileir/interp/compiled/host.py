"""The machine the compiled engine makes code for: llvmlite's binding module and this
CPU's name and features as LLVM names them (the lowering reads the features, the cache
keys its code by them)."""

from __future__ import annotations

import importlib
from typing import Any


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
        try:
            _host = (binding.get_host_cpu_name(), binding.get_host_cpu_features().flatten())
        except RuntimeError:    # (LLVM cannot tell the features here: baseline code)
            _host = ("generic", "")
    return _host


def has_feature(name: str) -> bool:
    """Whether this CPU has feature `name` (LLVM's spelling, such as ``f16c``)."""
    return f"+{name}" in host_cpu()[1].split(",")


__all__ = ["has_feature", "host_cpu", "llvm"]
