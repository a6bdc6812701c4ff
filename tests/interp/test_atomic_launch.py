"""A launch is atomic: whatever stops it (undefined behaviour, a failed assert, an internal
error, Ctrl-C), the caller's buffers are bit for bit what they were before it, on every
engine, schedule and thread count; ``on_error="keep"`` leaves them as the kernel wrote
them and says so."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tileir
from tileir import ExecutionError
from tileir.interp import launch
from tileir.interp.semantics import SEMANTICS

KERNELS = Path(tileir.__file__).parent / "examples" / "kernels"
N = 64          # 4 tile blocks of 16 elements


def _division(zero_at: int | None):
    """ub_div_by_zero's arguments: b has one zero divisor at element `zero_at` (None: none);
    q and r start as recognisable bytes the kernel overwrites."""
    a = np.arange(1, N + 1, dtype=np.int32) * 7
    b = np.full(N, 3, np.int32)
    if zero_at is not None:
        b[zero_at] = 0
    q = np.full(N, -5, np.int32)
    r = np.full(N, -9, np.int32)
    return a, b, q, r


def _text() -> str:
    return (KERNELS / "ub_div_by_zero.mlir").read_text()


RUNS = [
    dict(engine="blocks", schedule="sequential"),
    dict(engine="blocks", schedule="reverse"),
    dict(engine="blocks", schedule="random", seed=3),
    dict(engine="auto", workers=1),
    dict(engine="auto", workers=2),
    dict(engine="compiled", workers=1),
    dict(engine="compiled", workers=2),
]


@pytest.mark.parametrize("options", RUNS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_undefined_behaviour_in_block_two_leaves_every_buffer_as_it_was(options) -> None:
    if options["engine"] == "compiled":     # (it does run compiled where nothing fails)
        pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite")
        assert launch(_text(), None, N // 16, list(_division(None)) + [N],
                      **options).engine == "compiled"
    a, b, q, r = _division(zero_at=2 * 16 + 5)
    before = [x.tobytes() for x in (a, b, q, r)]
    with pytest.raises(ExecutionError, match=r"division by zero at element \[5\]: 266 / 0 "
                                             r"\(tile block \(2, 0, 0\)\)"):
        launch(_text(), None, N // 16, [a, b, q, r, N], **options)
    assert [x.tobytes() for x in (a, b, q, r)] == before


def test_keep_leaves_what_the_kernel_wrote_and_says_so() -> None:
    a, b, q, r = _division(zero_at=2 * 16 + 5)
    with pytest.raises(ExecutionError) as caught:
        launch(_text(), None, N // 16, [a, b, q, r, N], engine="blocks", on_error="keep")
    notes = [n.message for n in caught.value.diagnostics[0].notes]
    assert "on_error='keep': the argument buffers were left as the kernel wrote them up to " \
        "the failure" in notes
    # blocks 0 and 1 ran whole; block 2 stopped at its divi, before its stores
    assert q.tolist() == (a[:32] // 3).tolist() + [-5] * 32
    assert r.tolist() == (a[:32] % 3).tolist() + [-9] * 32


def test_a_successful_launch_writes_as_before() -> None:
    a, b, q, r = _division(zero_at=None)
    launch(_text(), None, N // 16, [a, b, q, r, N])
    assert q.tolist() == (a // 3).tolist() and r.tolist() == (a % 3).tolist()


class _Stop:
    """A semantics function for ``remi`` that raises `exception` in tile block 2 (after
    blocks 0 and 1 have stored their results) and otherwise runs the real one."""

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception
        self.real = SEMANTICS["remi"]

    def __call__(self, step, *operands):
        if step.block_id[0] == 2:
            raise self.exception
        return self.real(step, *operands)


@pytest.mark.parametrize("exception, caught", [
    (KeyboardInterrupt(), KeyboardInterrupt),        # Ctrl-C
    (RuntimeError("a bug"), ExecutionError),         # an internal error: a diagnostic
])
def test_an_interrupted_or_failing_launch_restores_memory(monkeypatch, exception, caught) -> None:
    monkeypatch.setitem(SEMANTICS, "remi", _Stop(exception))
    a, b, q, r = _division(zero_at=None)
    before = [x.tobytes() for x in (q, r)]
    with pytest.raises(caught):
        launch(_text(), None, N // 16, [a, b, q, r, N], engine="blocks")
    assert [x.tobytes() for x in (q, r)] == before


@pytest.mark.parametrize("on_error", ["restore", "keep"])
def test_a_bug_outside_every_op_is_a_diagnostic_and_restores_memory(monkeypatch, on_error):
    # (the cross-block race record runs between tile blocks, outside any op's guard)
    launching = sys.modules["tileir.interp.launch"]    # (the package's `launch` is the function)
    calls = []

    def broken(self, machine):
        calls.append(machine.block_id)
        if len(calls) == 3:
            raise RuntimeError("a bug in the race record")
    monkeypatch.setattr(launching._CrossBlockRaces, "add", broken)
    a, b, q, r = _division(zero_at=None)
    before = [x.tobytes() for x in (q, r)]
    with pytest.raises(ExecutionError, match="internal error: RuntimeError: a bug in the "
                                             "race record"):
        launch(_text(), None, N // 16, [a, b, q, r, N], engine="blocks", on_error=on_error)
    assert ([x.tobytes() for x in (q, r)] == before) == (on_error == "restore")


PACKED = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f4E2M1FN>>, %d: tile<ptr<i32>>) {
    %v = constant <f4E2M1FN: [1.5, 3.0]> : tile<2xf4E2M1FN>
    %i = iota : tile<2xi32>
    %b = reshape %p : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %bb = broadcast %b : tile<1xptr<f4E2M1FN>> -> tile<2xptr<f4E2M1FN>>
    %ps = offset %bb, %i : tile<2xptr<f4E2M1FN>>, tile<2xi32> -> tile<2xptr<f4E2M1FN>>
    %s = store_ptr_tko weak %ps, %v : tile<2xptr<f4E2M1FN>>, tile<2xf4E2M1FN> -> token
    %x, %t = load_ptr_tko weak %d token = %s : tile<ptr<i32>> -> tile<i32>, token
    %zero = constant <i32: 0> : tile<i32>
    %q = divi %x, %zero signed : tile<i32>
    return
  }
}"""


def test_a_packed_four_bit_buffer_is_left_as_it_was() -> None:
    p = np.array([1.0, 2.0], dtype=ml_dtypes.float4_e2m1fn)
    with pytest.raises(ExecutionError, match="division by zero"):
        launch(PACKED, None, 1, [p, np.array([5], np.int32)])
    assert p.astype(np.float32).tolist() == [1.0, 2.0]
    with pytest.raises(ExecutionError, match="division by zero"):
        launch(PACKED, None, 1, [p, np.array([5], np.int32)], on_error="keep")
    assert p.astype(np.float32).tolist() == [1.5, 3.0]


def test_an_unknown_on_error_is_refused() -> None:
    a, b, q, r = _division(zero_at=None)
    with pytest.raises(ExecutionError, match="unknown on_error 'ignore'; use one of "
                                             "restore, keep"):
        launch(_text(), None, N // 16, [a, b, q, r, N], on_error="ignore")
