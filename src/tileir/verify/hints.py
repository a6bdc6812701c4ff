"""Optimization hints on entries and memory ops (the reference's OptimizationHintsAttr
checks in Attributes.cpp): the structure is always checked; unknown architectures, keys and
values only under ``-Wunsupported-hints`` (warnings) and ``-Werr-hints`` (then an error)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..attributes import BoolAttr, DictAttr, IntegerAttr, OptimizationHintsAttr
from ..types import IntegerType
from .registry import Context, op_error

#: The architectures hints may name (sm_107: 13.5, whose tileiras targets it).
KNOWN_ARCHS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103",
               "sm_107", "sm_110", "sm_120", "sm_121", "default")
SINGLE_CTA_ARCHS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89")

#: The hint keys each op accepts.
HINT_KEYS: dict[str, tuple[str, ...]] = {
    "entry": ("num_cta_in_cga", "num_worker_warps_per_cta", "occupancy"),
    "load_view_tko": ("latency", "allow_tma"), "store_view_tko": ("latency", "allow_tma"),
    "load_ptr_tko": ("latency",), "store_ptr_tko": ("latency",),
}


def _hint_int(value: Any) -> int | None:
    """An integer hint value (MLIR's IntegerAttr, which includes booleans), else None."""
    if isinstance(value, BoolAttr):
        return -1 if value.value else 0
    if isinstance(value, IntegerAttr):
        if value.type == IntegerType(1):
            return -1 if value.value else 0
        return value.value
    return None


def _is_pow2_at_most(value: int, limit: int) -> bool:
    """A power of two in [1, limit]."""
    return 0 < value <= limit and value & (value - 1) == 0


def _num_cta_in_cga(value: Any, arch: str) -> str | None:
    """CTAs per cluster: a power of two up to 16, exactly 1 on the archs without clusters."""
    number = _hint_int(value)
    if number is None:
        return f"integer value expected for {arch}.num_cta_in_cga"
    number &= (1 << 64) - 1  # the reference reads it as unsigned
    if arch.startswith(SINGLE_CTA_ARCHS) and number != 1:
        return f"expected 1 for {arch}.num_cta_in_cga"
    if not _is_pow2_at_most(number, 16):
        return f"expected power-of-two ≤ 16 for {arch}.num_cta_in_cga"
    return None


def _num_worker_warps(value: Any, arch: str) -> str | None:
    """Warps per CTA: a power of two up to 32."""
    number = _hint_int(value)
    if number is None:
        return f"integer value expected for {arch}.num_worker_warps_per_cta"
    if not _is_pow2_at_most(number, 32):
        return f"expected power-of-two ≤ 32 for {arch}.num_worker_warps_per_cta"
    return None


def _allow_tma(value: Any, arch: str) -> str | None:
    """allow_tma is a boolean."""
    if isinstance(value, BoolAttr) or (isinstance(value, IntegerAttr)
                                       and value.type == IntegerType(1)):
        return None
    return f"boolean value expected for {arch}.allow_tma"


def _ranged(key: str, low: int, high: int) -> Callable[[Any, str], str | None]:
    """The check of an integer hint that must lie in [low, high]."""
    def check(value: Any, arch: str) -> str | None:
        number = _hint_int(value)
        if number is None:
            return f"integer value expected for {arch}.{key}"
        if not low <= number <= high:
            return f"integer value in the range [{low}, {high}] is expected for {arch}.{key}"
        return None
    return check


#: Per hint key, the check of its value: the message when invalid, else None.
HINT_VALUE_CHECKS: dict[str, Callable[[Any, str], str | None]] = {
    "num_cta_in_cga": _num_cta_in_cga,
    "num_worker_warps_per_cta": _num_worker_warps,
    "allow_tma": _allow_tma,
    "latency": _ranged("latency", 1, 10),
    "occupancy": _ranged("occupancy", 1, 32),
}


def hint_problems(arch: str, params: DictAttr, keys: Sequence[str]) -> list[str]:
    """The warnings one architecture's hint dictionary gets (verifyParamWithContext)."""
    if arch not in KNOWN_ARCHS:
        return [f"unknown hint key {arch}"]
    problems = []
    for key, value in params:
        if keys and key not in keys:
            problems.append(f"{key} is not known hint for current Operation")
            continue
        check = HINT_VALUE_CHECKS.get(key)
        message = check(value, arch) if check is not None else f"unknown param {key} for {arch}"
        if message is not None:
            problems.append(message)
    return problems


def verify_optimization_hints(op: Any, ctx: Context) -> None:
    """verifyOptHintsCommon: dictionaries per architecture always; unknown architectures,
    keys and values are warnings under -Wunsupported-hints, failures with -Werr-hints."""
    hints = op.attributes.get("optimization_hints")
    if not isinstance(hints, OptimizationHintsAttr) or not hints.entries:
        return
    keys = HINT_KEYS.get(op.opdef.name, ())
    for arch, params in hints.entries:
        if not isinstance(params, DictAttr):
            raise op_error(op, "expected dictionary attribute for optimization_hints entry "
                               f"`{arch}` got value={params.format()}")
        if not ctx.options.warn_hints:
            continue
        problems = hint_problems(arch, params, keys)
        for message in problems:
            ctx.warn(op, message)
        if problems and ctx.options.error_hints:
            raise op_error(op, "Optimization hints verification failed")

