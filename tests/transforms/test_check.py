"""The semantics check: a pass that changes what a kernel computes is caught, named, and
located; one that does not is counted as compared."""

from __future__ import annotations

import numpy as np
import pytest

import tileir
from tileir.transforms import PASSES, PassDef, run
from tileir.transforms.check import Launch, Report, SemanticsChanged, default_launches
from transform_helpers import KERNELS


def _register(monkeypatch, name: str, body) -> None:
    """A pass for this test only."""
    monkeypatch.setitem(PASSES, name, PassDef(name, "function", body))


def _bump_constant(op, options) -> None:
    """A wrong 'optimization': every f32 constant 2.0 becomes 3.0."""
    replacement = tileir.parse(
        "cuda_tile.module @m { entry @k() { %c = constant <f32: 3.0> : tile<16x16xf32>\n"
        " return } }").entries[0].regions[0].block.operations[0].attributes["value"]
    for nested in op.walk():
        if nested.name == "cuda_tile.constant" and "2.0" in str(nested.attributes["value"]):
            nested.attributes["value"] = replacement


def _nothing(op, options) -> None:
    """A pass that changes nothing."""


def test_a_pass_that_changes_results_is_named(monkeypatch) -> None:
    _register(monkeypatch, "test-bump", _bump_constant)
    module = tileir.load(KERNELS / "bug_scale2d.mlir")

    def make() -> list:
        return [np.arange(32 * 32, dtype=np.float32).reshape(32, 32),
                np.zeros((32, 32), np.float32), 32, 32]
    with pytest.raises(SemanticsChanged) as caught:
        run(module, "cuda_tile.module(cuda_tile.entry(test-bump))", check_semantics=True,
            launches=[Launch(None, (2, 2), make)])
    message = caught.value.diagnostics[0].message
    # y = 2x before, 3x after: element 1 (x = 1) is the first that differs (x[0] = 0)
    assert message == ("pass 'test-bump' changed what the kernel computes: kernel 'scale2d':"
                       " buffer 1 differs at element 1: np.float32(2.0) before the pass, "
                       "np.float32(3.0) after")


def test_a_pass_that_keeps_results_is_counted(monkeypatch) -> None:
    _register(monkeypatch, "test-nothing", _nothing)
    module = tileir.load(KERNELS / "vector_add.mlir")
    report = Report()
    run(module, "cuda_tile.module(cuda_tile.entry(test-nothing))", check_semantics=True,
        report=report)
    assert report.compared == {"test-nothing": 1} and report.unchecked == {}


def test_undefined_behaviour_before_a_pass_is_unchecked(monkeypatch) -> None:
    """Default inputs of the division kernel divide by zero somewhere: nothing to compare."""
    _register(monkeypatch, "test-nothing", _nothing)
    module = tileir.load(KERNELS / "ub_div_by_zero.mlir")
    report = Report()
    run(module, "cuda_tile.module(cuda_tile.entry(test-nothing))", check_semantics=True,
        report=report)
    assert report.unchecked == {"test-nothing": 1} and report.compared == {}


def test_default_launches() -> None:
    module = tileir.load(KERNELS / "vector_add.mlir")
    [launch] = default_launches(module, seed=3)
    first, second = launch.make_args(), launch.make_args()
    assert launch.entry == "vector_add" and launch.grid == (1, 1, 1)
    assert [type(a).__name__ for a in first] == ["ndarray", "ndarray", "ndarray", "int"]
    assert first[3] == 64 and first[0].shape == (4096,) and first[0].dtype == np.float32
    assert all((x == y).all() for x, y in zip(first[:3], second[:3]))   # same every call
    assert first[0] is not second[0]                                    # fresh arrays


def test_the_fuse_fma_bound_scales_with_the_buffer() -> None:
    """A fused a*b + c keeps the product's rounding error: beside a small result after
    cancellation that is many of the result's ulps, yet few of the buffer's largest."""
    from tileir.transforms.check import _first_difference
    before = np.array([0.0185, 3.0, np.inf], np.float32)
    after = before.copy()
    after[0] = np.float32(0.0185) + np.float32(8 * 2.0 ** -29)   # ~8 ulps of 0.0185
    assert _first_difference(before, after, 4) is None             # 4 ulps of 3.0: far more
    assert _first_difference(before, after, 0) == 0                # bit for bit: it differs
    far = before.copy()
    far[1] = np.float32(3.01)
    assert _first_difference(before, far, 4) == 1


def test_the_bound_is_read_from_the_buffer_before_the_pass() -> None:
    """A wrong value after the pass does not widen its own tolerance: with a two-bit
    mantissa, 4 ulps of a scale taken from both buffers would call 0 -> 1 equal."""
    import ml_dtypes

    from tileir.transforms.check import _first_difference
    t = ml_dtypes.float8_e5m2
    before = np.array([0.0, 0.25], t)
    after = np.array([0.0, 1.0], t)
    assert _first_difference(before, after, 4) == 1
    assert _first_difference(before, before.copy(), 4) is None


def test_infinities_compare_quietly_under_the_bound() -> None:
    """Infinities compare equal to themselves under a ulp bound, without a warning, and
    never to the other infinity or a finite value."""
    import warnings

    from tileir.transforms.check import _first_difference
    x = np.array([np.inf, -np.inf, 1.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert _first_difference(x, x.copy(), 4) is None
        assert _first_difference(x, x[[1, 0, 2]], 4) == 0
        assert _first_difference(x, np.array([np.inf, -np.inf, np.inf], np.float32), 4) == 2


def test_differences_in_buffer_count_shape_or_type_are_changes() -> None:
    from tileir.transforms.check import difference
    a = np.zeros(4, np.float32)
    assert difference(([a], ""), ([a.copy()], "")) is None
    assert difference(([a], ""), ([a.copy(), a.copy()], "")) == \
        "it has 2 buffers after the pass, 1 before"
    assert difference(([a], ""), ([np.zeros(0, np.float32)], "")) == \
        "buffer 0 is float32[0] after the pass, float32[4] before"
    assert difference(([a], ""), ([a.view(np.int32)], ""), 4) == \
        "buffer 0 is int32[4] after the pass, float32[4] before"
    assert difference(([a], "x"), ([a.copy()], "y")) == \
        "it prints something else after the pass"
    bits = a.copy()
    bits[2] = -0.0
    assert difference(([a], ""), ([bits], "")) == \
        "buffer 0 differs at element 2: np.float32(0.0) before the pass, np.float32(-0.0) after"


def test_every_module_of_a_builtin_module_is_checked(monkeypatch) -> None:
    """A pass run on a builtin module holding two kernels' modules checks both (it used
    to check none: no single module to run)."""
    from tileir.ir import Operation
    monkeypatch.setitem(PASSES, "test-bump-any", PassDef("test-bump-any", "any",
                                                         _bump_constant))
    both = Operation("builtin.module", regions=1)
    block = both.regions[0].add_block()
    for kernel in ("vector_add.mlir", "bug_scale2d.mlir"):
        block.append(tileir.load(KERNELS / kernel))
    report = Report()
    with pytest.raises(SemanticsChanged, match="kernel 'scale2d'"):
        run(both, "test-bump-any", check_semantics=True, report=report)
    assert report.compared == {"test-bump-any": 1}          # vector_add, before scale2d


def test_semantics_checks_keep_the_callers_checks_and_the_verifier() -> None:
    from tileir.transforms import Checks
    from tileir.transforms.check import semantics_checks
    module = tileir.load(KERNELS / "vector_add.mlir")
    mine = Checks()
    added = semantics_checks(module, mine)
    assert (mine.before_pass, mine.after_pass) == (None, None)
    assert added is not mine and added.verify_each
    assert not semantics_checks(module, Checks(verify_each=False)).verify_each


def test_multicast_replicas_are_compared(monkeypatch) -> None:
    """Every replica of a multicast argument is a buffer the check compares."""
    from tileir.transforms.check import _outcome
    module = tileir.load(KERNELS / "vector_add.mlir")
    kind, (buffers, printed) = _outcome(module, Launch(None, (1,), lambda: [
        np.ones(64, np.float32), np.ones(64, np.float32), np.zeros(64, np.float32), 64]))
    assert kind == "ok" and len(buffers) == 3 and (buffers[2] == 2).all()
    flat = [np.zeros(2, np.float32), [np.ones(2, np.float32), np.full(2, 5, np.float32)]]
    monkeypatch.setattr("tileir.interp.launch", lambda *a, **k: None)
    kind, (buffers, _) = _outcome(module, Launch(None, (1,), lambda: flat))
    assert [b.tolist() for b in buffers] == [[0, 0], [1, 1], [5, 5]]


def test_a_kernel_spinning_on_made_up_inputs_is_unchecked(monkeypatch) -> None:
    """Made-up inputs can leave a spin lock never free: bounded, and counted unchecked."""
    import tileir.transforms.check as check
    monkeypatch.setattr(check, "DEFAULT_MAX_OPS", 20_000)
    _register(monkeypatch, "test-nothing", _nothing)
    module = tileir.load(KERNELS / "spin_lock.mlir")
    report = Report()
    run(module, "cuda_tile.module(cuda_tile.entry(test-nothing))", check_semantics=True,
        report=report)
    assert report.unchecked == {"test-nothing": 1} and report.compared == {}
