"""What the compiled-engine tests share: the special values they feed kernels, the mmaf
kernel they launch, and what they assert of a launch's `Run`, in one place."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from typing import Any

import numpy as np

#: The repository's tools (the random campaigns the tests run a short stretch of).
TOOLS = pathlib.Path(__file__).parents[2] / "tools"


def load_tool(name: str) -> Any:
    """tools/`name`.py as a module (registered under `name`, which its dataclasses need)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module

#: f32 inputs for every special case: NaNs (payload, negative, signalling), infinities,
#: signed zeros, subnormals, extremes, ordinary values.
F32_SPECIAL = np.array([0x7FC00000, 0x7FC00001, 0xFFC00000, 0x7F800001, 0x7F800000,
                        0xFF800000, 0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
                        0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3EAAAAAB], np.uint32
                       ).view(np.float32)

#: The engines a launch hands a kernel to when the compiled engine stops or declines:
#: the batched engine where it applies, else one tile block at a time.
OTHER_ENGINES = ("batched", "blocks")


def assert_engine(run: Any, engine: str) -> None:
    """`run` ran on `engine`; ``"blocks"`` means handed over after the compiled run
    stopped (a check failed, or a rounding it could not settle)."""
    assert not isinstance(run, str), run
    if engine == "blocks":
        assert run.engine in OTHER_ENGINES, run
        assert run.reason.startswith("compiled engine: a check failed"), run
    else:
        assert run.engine == engine, run


#: Launch settings other than the default (checks on, sequential schedule) that the
#: coverage tests run each kernel under too.
SETTINGS = [dict(checks=False), dict(schedule="reverse"), dict(schedule="random", seed=5),
            dict(checks=False, schedule="reverse")]


def setting_id(settings: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in settings.items())


def expected_under(settings: dict, compiled: bool, order_dependent: bool) -> bool:
    """Whether a kernel compiled with the default settings (`compiled`) runs compiled
    under `settings`: always, except under another schedule when its result depends on
    the order of its blocks (atomics, prints, blocks meeting), where it hands on."""
    return compiled and (settings.get("schedule", "sequential") == "sequential" or
                         not order_dependent)


def assert_runs_alike(reference: tuple, compiled: tuple, expect_compiled: bool) -> None:
    """Two launches of one kernel, each as (engine or "error", reason or error text, what
    it left: bytes, output...), on engine="blocks" and engine="compiled": the same
    outcome; the compiled one ran compiled when `expect_compiled`, else handed on with
    the compiled engine's reason (an error: the same error)."""
    assert compiled[2:] == reference[2:]
    if reference[0] == "error":     # (no proof it compiles: it cannot be listed so)
        assert not expect_compiled, "a launch that fails cannot show it runs compiled"
        assert compiled[:2] == reference[:2]
    elif expect_compiled:
        assert compiled[:2] == ("compiled", None)
    else:
        assert compiled[0] in OTHER_ENGINES
        assert compiled[1].startswith("compiled engine: ")


def assert_declined(run: Any, why: str) -> None:
    """The compiled engine declined `run`'s kernel, saying `why`."""
    assert run.engine in OTHER_ENGINES, run
    assert run.reason.startswith("compiled engine: ") and why in run.reason, run.reason


def _pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def mma_kernel(m: int, n: int, k: int, elem: str = "f32", acc: str = "f32",
               extra: str = "") -> str:
    """One tile block: d = mmaf(a, b, c) for an m x k a, a k x n b and an m x n c, in
    tiles of the next powers of two (loads padded with zeros, the store clipped)."""
    tm, tn, tk = _pow2(m), _pow2(n), _pow2(k)

    def view(rows, cols, t):
        return f"tensor_view<{rows}x{cols}x{t}, strides=[{cols},1]>"

    def part(rows, cols, tr, tc, t, pad=True):
        padding = ", padding_value = zero" if pad else ""
        return f"partition_view<tile=({tr}x{tc}){padding}, {view(rows, cols, t)}>"
    pa, pb, pc = part(m, k, tm, tk, elem), part(k, n, tk, tn, elem), part(m, n, tm, tn, acc)
    pd = part(m, n, tm, tn, acc, False)
    ti = "tile<i32>"
    return f"""cuda_tile.module @m {{
  entry @k(%a: tile<ptr<{elem}>>, %b: tile<ptr<{elem}>>, %c: tile<ptr<{acc}>>, %d: tile<ptr<{acc}>>) {{
    %t = make_token : token
    %av = make_tensor_view %a, shape = [{m}, {k}], strides = [{k}, 1] : {view(m, k, elem)}
    %bv = make_tensor_view %b, shape = [{k}, {n}], strides = [{n}, 1] : {view(k, n, elem)}
    %cv = make_tensor_view %c, shape = [{m}, {n}], strides = [{n}, 1] : {view(m, n, acc)}
    %dv = make_tensor_view %d, shape = [{m}, {n}], strides = [{n}, 1] : {view(m, n, acc)}
    %ap = make_partition_view %av : {pa}
    %bp = make_partition_view %bv : {pb}
    %cp = make_partition_view %cv : {pc}
    %dp = make_partition_view %dv : {pd}
    %z = constant <i32: 0> : {ti}
    %x, %t1 = load_view_tko weak %ap[%z, %z] token = %t : {pa}, {ti} -> tile<{tm}x{tk}x{elem}>, token
    %y, %t2 = load_view_tko weak %bp[%z, %z] token = %t : {pb}, {ti} -> tile<{tk}x{tn}x{elem}>, token
    %w, %t3 = load_view_tko weak %cp[%z, %z] token = %t : {pc}, {ti} -> tile<{tm}x{tn}x{acc}>, token
    %r = mmaf %x, %y, %w {extra}: tile<{tm}x{tk}x{elem}>, tile<{tk}x{tn}x{elem}>, tile<{tm}x{tn}x{acc}>
    %done = store_view_tko weak %r, %dp[%z, %z] token = %t : tile<{tm}x{tn}x{acc}>, {pd}, {ti} -> token
    return
  }}
}}"""
