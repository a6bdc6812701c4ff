"""The semantics check: a pass that changes what a kernel computes is caught, named, and
located; one that does not is counted as compared."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tileir
from tileir.transforms import PASSES, PassDef, run
from tileir.transforms.check import Launch, Report, SemanticsChanged, default_launches

KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"


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
