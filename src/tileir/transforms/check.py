"""Every rewrite checked by execution: run the kernels before and after each pass on the
same inputs and require the same results.

`semantics_checks` gives the pipeline (`pipeline.Checks`) hooks that launch each of the
module's kernels (of every ``cuda_tile.module`` a pass on a builtin module can change) on
the interpreter before a pass and again after it, from fresh copies of the same inputs,
and compare every buffer bit for bit (and what ``print_tko`` printed: `difference`).
A pass that changes a result raises `SemanticsChanged`, naming the pass, the kernel, the
buffer and the first differing element.  A pass registered as changing numerics
(`NUMERIC_PASSES`: fuse-fma, which rounds once where the kernel rounded twice) is held to a
tolerance instead: each float element within a few units in the last place of the
buffer's largest magnitude (a fused ``a*b + c`` keeps the product's rounding error, which
cancellation can make large beside the result itself).

Inputs: the caller's `Launch` list, or, by default, `default_launches`: each entry on a
single tile block with buffers of random values and integer scalars of a modest size.  Inputs on
which the kernel has undefined behaviour before the pass prove nothing: they are counted
as unchecked (`Report.unchecked`), not failures.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from ..diagnostics import TileIRError, error
from ..ir import Module, Operation, location_of
from ..enums import PointerAttribute
from ..types import FloatType, IntegerType, PointerType, TileType
from .pipeline import Checks
from .registry import PassDef, PassFailure

#: Passes allowed to change float results, each element by at most this many units in the
#: last place of the largest magnitude in its buffer.
NUMERIC_PASSES: dict[str, int] = {"fuse-fma": 4}
#: Elements of each buffer `default_launches` makes.
DEFAULT_ELEMENTS = 4096
#: The most ops a tile block of a made-up launch may run: made-up inputs can leave a
#: kernel spinning (a lock never free), which then counts as unchecked, not as a hang.
DEFAULT_MAX_OPS = 1_000_000


class SemanticsChanged(PassFailure):
    """A pass changed what a kernel computes."""


@dataclass(frozen=True)
class Launch:
    """One launch to check: the entry (None: the module's only one), the grid, and a
    function making fresh arguments (called before and after, so both runs start alike)."""

    entry: str | None
    grid: tuple[int, ...]
    make_args: Callable[[], list[Any]]
    #: The most ops a tile block may run (None: no bound; the run then may use the batched
    #: engine).
    max_ops: int | None = None


@dataclass
class Report:
    """What the checks saw: launches compared (equal), and launches that proved nothing
    (undefined behaviour before the pass), by pass name."""

    compared: dict[str, int] = field(default_factory=dict)
    unchecked: dict[str, int] = field(default_factory=dict)


def _modules_of(op: Operation) -> list[Module]:
    """The ``cuda_tile.module``s a pass on `op` can change: the one `op` is or belongs
    to, else every one inside it (a builtin module may hold several: each is checked)."""
    at: Any = op
    while at is not None:
        if isinstance(at, Module):
            return [at]
        at = at.parent_op
    return [o for o in op.walk() if isinstance(o, Module)]


def default_launches(module: Module, seed: int = 0) -> list[Launch]:
    """A launch of each entry with made-up inputs: grid (1, 1, 1); each pointer parameter a
    buffer of `DEFAULT_ELEMENTS` random values of its element type (two replicas of it,
    the second reversed, for a multicast pointer); integer scalars 64, float scalars 1.5.
    Entries with other parameters are left out."""
    launches = []
    for entry in module.entries:
        params = list(entry.attr("function_type").value.inputs)
        if not all(_supported(t) for t in params):
            continue
        launches.append(Launch(entry.symbol, (1, 1, 1), _maker(params, seed),
                               DEFAULT_MAX_OPS))
    return launches


def _supported(t: Any) -> bool:
    """Whether `default_launches` can make an argument of type `t`."""
    if not isinstance(t, TileType) or t.rank != 0:
        return False
    e = t.element_type
    if isinstance(e, PointerType):
        return isinstance(e.pointee, (FloatType, IntegerType))
    return isinstance(e, (FloatType, IntegerType))


def _maker(params: list[Any], seed: int) -> Callable[[], list[Any]]:
    """A function making the same made-up arguments for `params` on every call."""
    from ..numerics import from_float64, numpy_dtype

    def make() -> list[Any]:
        """Fresh arguments, drawn from `seed`."""
        rng = np.random.default_rng(seed)
        args: list[Any] = []
        for t in params:
            e = t.element_type
            if isinstance(e, PointerType):
                p = e.pointee
                if isinstance(p, FloatType):
                    values = from_float64(rng.uniform(-4, 4, DEFAULT_ELEMENTS)
                                          .round(2), p)
                elif p.width == 1:
                    values = rng.integers(0, 2, DEFAULT_ELEMENTS).astype(np.bool_)
                else:
                    values = rng.integers(-8, 9, DEFAULT_ELEMENTS).astype(numpy_dtype(p))
                buffer = np.ascontiguousarray(values)
                args.append([buffer, buffer[::-1].copy()]
                            if e.ptr_attr == PointerAttribute.MULTICAST else buffer)
            elif isinstance(e, FloatType):
                args.append(1.5)
            else:
                args.append(64 if e.width > 8 else 4)
        return args
    return make


def _outcome(module: Module, launch: Launch) -> tuple[str, Any]:
    """("ok", (buffers, printed text)) or ("ub", message) for one run of `launch`."""
    from ..interp import launch as run
    args = launch.make_args()
    printed = io.StringIO()
    try:
        run(module, launch.entry, launch.grid, args, stdout=printed, max_ops=launch.max_ops)
    except TileIRError as exc:
        return "ub", exc.diagnostics[0].message
    buffers = [b for a in args for b in ([a] if isinstance(a, np.ndarray) else
                                         a if isinstance(a, (list, tuple)) else [])
               if isinstance(b, np.ndarray)]     # (multicast arguments: every replica)
    return "ok", (buffers, printed.getvalue())


def _is_float(dtype: np.dtype) -> bool:
    """Whether `dtype` holds floats (NumPy's or ml_dtypes')."""
    import ml_dtypes
    try:
        ml_dtypes.finfo(dtype)
    except (TypeError, ValueError):
        return False
    return True


def _first_difference(before: np.ndarray, after: np.ndarray, ulps: int) -> int | None:
    """The first element index where `after` differs from `before`: in its bits, or, for
    floats when `ulps` > 0, by more than `ulps` units in the last place of the largest
    finite magnitude of the buffer before the pass (NaN matching NaN, infinities
    themselves); None when they agree.  The scale is read from `before` alone: a value
    the pass got wrong must not widen the tolerance it is judged by."""
    if before.shape != after.shape or before.dtype != after.dtype:
        return 0
    if ulps and _is_float(before.dtype):
        import ml_dtypes
        info = ml_dtypes.finfo(before.dtype)
        x = before.astype(np.float64).reshape(-1)
        y = after.astype(np.float64).reshape(-1)
        finite = np.abs(x)
        finite = finite[np.isfinite(finite)]
        scale = float(finite.max()) if finite.size else 0.0
        bound = ulps * max(scale * 2.0 ** -info.nmant, float(info.smallest_subnormal))
        with np.errstate(invalid="ignore"):      # (inf - inf: not close unless equal)
            close = (np.isnan(x) & np.isnan(y)) | (x == y) | (np.abs(x - y) <= bound)
        bad = np.flatnonzero(~close)
        return int(bad[0]) if bad.size else None
    if not before.size:
        return None
    left = np.ascontiguousarray(before).reshape(before.size, -1).view(np.uint8)
    right = np.ascontiguousarray(after).reshape(after.size, -1).view(np.uint8)
    bad = np.flatnonzero((left != right).any(axis=1))
    return int(bad[0]) if bad.size else None


def difference(outcome: tuple[list[np.ndarray], str], again: tuple[list[np.ndarray], str],
               ulps: int = 0) -> str | None:
    """How the results of one launch after a pass (`again`: its buffers and printed text)
    differ from those before it (`outcome`), by `_first_difference`'s rule, or None when
    they are the same."""
    (buffers, printed), (new_buffers, new_printed) = outcome, again
    if len(buffers) != len(new_buffers):
        return f"it has {len(new_buffers)} buffers after the pass, {len(buffers)} before"
    for i, (x, y) in enumerate(zip(buffers, new_buffers)):
        at = _first_difference(x, y, ulps)
        if at is not None:
            if x.shape != y.shape or x.dtype != y.dtype:
                return (f"buffer {i} is {y.dtype}{list(y.shape)} after the pass, "
                        f"{x.dtype}{list(x.shape)} before")
            return (f"buffer {i} differs at element {at}: {x.reshape(-1)[at]!r} before the "
                    f"pass, {y.reshape(-1)[at]!r} after")
    if printed != new_printed:
        return "it prints something else after the pass"
    return None


def semantics_checks(op: Operation, checks: Checks | None = None,
                     launches: Sequence[Launch] | None = None, seed: int = 0,
                     report: Report | None = None) -> Checks:
    """A copy of `checks` (default: a new `Checks`, the verifier on) with the execution
    check added around each pass (see the module docstring), after the hooks `checks`
    has; `report`, when given, collects the counts.  `checks` itself is left as it is."""
    checks = checks if checks is not None else Checks()
    report = report if report is not None else Report()
    #: The runs before the pass, by the op it runs on (the op itself: an id could be
    #: another op's once this one is gone).
    saved: dict[Operation, list[tuple[Module, Launch, tuple[str, Any]]]] = {}

    def planned(module: Module) -> Sequence[Launch]:
        return launches if launches is not None else default_launches(module, seed)

    def before(pass_def: PassDef, target: Operation) -> None:
        """Run each launch on each module the pass can change, as it is before the
        pass."""
        saved[target] = [(module, launch, _outcome(module, launch))
                         for module in _modules_of(target) for launch in planned(module)]

    def after(pass_def: PassDef, target: Operation) -> None:
        """Run each launch again and compare with the run before the pass."""
        ulps = NUMERIC_PASSES.get(pass_def.name, 0)
        for module, launch, (kind, outcome) in saved.pop(target, []):
            if kind != "ok":
                report.unchecked[pass_def.name] = report.unchecked.get(pass_def.name, 0) + 1
                continue
            again_kind, again = _outcome(module, launch)
            where = f"kernel '{launch.entry or module.entries[0].symbol}'"
            if again_kind != "ok":
                raise _changed(pass_def, target, f"{where} ran before the pass but fails "
                               f"after it: {again}")
            found = difference(outcome, again, ulps)
            if found is not None:
                raise _changed(pass_def, target, f"{where}: {found}")
            report.compared[pass_def.name] = report.compared.get(pass_def.name, 0) + 1

    previous_before, previous_after = checks.before_pass, checks.after_pass

    def before_all(pass_def: PassDef, target: Operation) -> None:
        if previous_before is not None:
            previous_before(pass_def, target)
        before(pass_def, target)

    def after_all(pass_def: PassDef, target: Operation) -> None:
        if previous_after is not None:
            previous_after(pass_def, target)
        after(pass_def, target)
    return replace(checks, before_pass=before_all, after_pass=after_all)


def _changed(pass_def: PassDef, target: Operation, message: str) -> SemanticsChanged:
    """The error of a pass that changed a result."""
    return SemanticsChanged(error(f"pass '{pass_def.name}' changed what the kernel computes: "
                                  f"{message}", location_of(target)))


__all__ = ["DEFAULT_ELEMENTS", "Launch", "NUMERIC_PASSES", "Report", "SemanticsChanged",
           "default_launches", "difference", "semantics_checks"]
