"""The drop-in at the scale of a real test suite: each cause found running cuTile Python's
own tests on tileir, with kernels of ours.  Skips without cuTile Python (and, where a test
needs it, without torch)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
from typing import Annotated

import ml_dtypes
import numpy as np
import pytest

try:
    import cuda.tile as ct
except ImportError:  # cuTile Python is an optional dependency
    ct = None

import tileir.cutile as tc
from tileir import ExecutionError

pytestmark = pytest.mark.skipif(ct is None, reason="cuTile Python is not installed "
                                "(pip install -e '.[oracles]')")


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is optional (the torch extra)")


if ct is not None:
    @ct.kernel
    def copy(x, y, tile: ct.Constant[int]):
        """y[tile i] = x[tile i]."""
        i = ct.bid(0)
        ct.store(y, (i,), ct.load(x, (i,), (tile,)))

    @ct.kernel
    def add_one_2d(x, y):
        """y = x + 1 over one 4x4 tile."""
        ct.store(y, (0, 0), ct.load(x, (0, 0), (4, 4)) + 1)

    @ct.kernel
    def pair_sum(pair, out, tile: ct.Constant[int]):
        """out = pair[0] + pair[1] * pair[2] (two arrays and a scalar in one tuple)."""
        a = ct.load(pair[0], (0,), (tile,))
        b = ct.load(pair[1], (0,), (tile,))
        ct.store(out, (0,), a + b * pair[2])

    @ct.kernel
    def static_extent(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,))],
                      out):
        """out[0] = x.shape[0], known when the kernel is compiled."""
        n = ct.static_eval(x.shape[0])
        ct.store(out, (0,), ct.full((1,), n, ct.int32))

    @ct.kernel
    def message(x, note: ct.Constant[str]):
        """Prints a constant string (folded into the kernel) and the block id plus 7."""
        ct.printf(note + " %d\n", ct.bid(0) + 7)

    @ct.kernel
    def checked(x, tile: ct.Constant[int]):
        """Fails its assertion where x is not positive."""
        ct.assert_(ct.load(x, (ct.bid(0),), (tile,)) > 0, "x must be positive")


if ct is not None:
    @ct.kernel
    def add_list(arrays, out):
        """out = the sum of a list of 4x4 arrays (indexed at run time)."""
        total = ct.zeros((4, 4), dtype=out.dtype)
        for i in range(len(arrays)):
            total += ct.load(arrays[i], (0, 0), (4, 4))
        ct.store(out, (0, 0), total)


def _make_scaled(factor: int):
    """A fresh kernel object multiplying by `factor` (a closure constant): a factory whose
    kernels are freed and whose addresses may be reused."""
    @ct.kernel
    def scaled(x, y, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, (i,), ct.load(x, (i,), (tile,)) * factor)
    return scaled


def test_kernels_freed_and_remade_never_run_another_kernels_export() -> None:
    """Kernels made, launched and freed in turn (their addresses free for reuse) each run
    their own code: exports are cached on the kernel object, not by id()."""
    x = np.arange(16, dtype=np.int32)
    for factor in range(1, 40):
        kernel = _make_scaled(factor)
        y = np.zeros(16, np.int32)
        tc.launch(None, (1,), kernel, (x, y, 16))
        np.testing.assert_array_equal(y, x * factor)
        del kernel
        gc.collect()


def test_kernels_with_the_same_code_and_other_closures_keep_their_own_exports() -> None:
    """Two live kernels of one code object, differing only in a closure constant, launched
    in turn with one signature: each runs its own export (a key by code would mix them)."""
    x = np.arange(16, dtype=np.int32)
    twice, thrice = _make_scaled(2), _make_scaled(3)
    assert twice._annotated_function.pyfunc.__code__ is thrice._annotated_function.pyfunc.__code__
    for kernel, factor in [(twice, 2), (thrice, 3), (twice, 2), (thrice, 3)]:
        y = np.zeros(16, np.int32)
        tc.launch(None, (1,), kernel, (x, y, 16))
        np.testing.assert_array_equal(y, x * factor)


def test_a_compile_error_is_raised_for_every_new_kernel_object() -> None:
    """A kernel cuTile refuses raises each time it is made anew, even where a good kernel
    with the same name and signature was launched (and freed) before."""
    x = np.zeros(8, np.float32)
    for attempt in range(3):
        @ct.kernel
        def kernel(x, tile: ct.Constant[int]):
            ct.store(x, (0,), ct.load(x, (0,), (tile,)) + 1)
        tc.launch(None, (1,), kernel, (x, 8))
        del kernel
        gc.collect()

        @ct.kernel
        def kernel(x, tile: ct.Constant[int]):  # noqa: F811 - the point of the test
            ct.store(x, (0,), undefined_name)  # noqa: F821
        with pytest.raises(Exception, match="undefined_name"):
            tc.launch(None, (1,), kernel, (x, 8))
        del kernel
        gc.collect()
    np.testing.assert_array_equal(x, np.full(8, 3, np.float32))


def test_one_kernel_caches_one_export_per_signature() -> None:
    """Launches with the same signature share one export; another constant is another."""
    kernel = _make_scaled(3)
    x, y = np.arange(32, dtype=np.int32), np.zeros(32, np.int32)
    tc.launch(None, (2,), kernel, (x, y, 16))
    first = next(iter(kernel.__dict__["_tileir_exports"].values()))
    tc.launch(None, (2,), kernel, (x, y, 16))
    tc.launch(None, (4,), kernel, (x, y, 8))
    exports = list(kernel.__dict__["_tileir_exports"].values())
    assert len(exports) == 2 and exports[0] is first
    assert [e.symbol.endswith(t) for e, t in zip(exports, ("_I16", "_I8"))] == [True, True]
    np.testing.assert_array_equal(y, x * 3)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2",
                                  "float8_e8m0fnu"])
def test_torch_narrow_float_tensors_are_read_and_written_in_place(name: str) -> None:
    torch = _torch()
    bits = torch.tensor([0x3C, 0x40, 0x44, 0x48, 0x38, 0x30, 0x28, 0x20] * 2,
                        dtype=torch.uint8)
    if name == "bfloat16":
        bits = torch.arange(0x3F80, 0x3F80 + 16, dtype=torch.int16)
    x = bits.view(getattr(torch, name))
    y = torch.zeros_like(x)
    tc.launch(None, (1,), copy, (x, y, 16))
    assert torch.equal(y.view(bits.dtype), bits)


def test_numpy_float8_e8m0fnu_arrays_are_read() -> None:
    x = np.array([2.0 ** e for e in range(-4, 4)], dtype=ml_dtypes.float8_e8m0fnu)
    y = np.zeros(8, ml_dtypes.float8_e8m0fnu)
    tc.launch(None, (1,), copy, (x, y, 8))
    np.testing.assert_array_equal(y.view(np.uint8), x.view(np.uint8))


def test_transposed_and_stepped_torch_views_are_mapped_where_they_live() -> None:
    torch = _torch()
    base = torch.arange(64.0).reshape(8, 8)
    x = base[:4, :4].t()                                   # strides (1, 8)
    storage = torch.zeros(8, 8)
    y = storage[::2, 1::2]                                 # strides (16, 2), offset 1
    tc.launch(None, (1,), add_one_2d, (x, y))
    expected = torch.zeros(8, 8)
    expected[::2, 1::2] = base[:4, :4].t() + 1
    assert torch.equal(storage, expected)


def test_tensors_with_requires_grad_are_read_and_written_without_autograd() -> None:
    torch = _torch()
    x = torch.arange(16.0, requires_grad=True)
    y = torch.zeros(16, requires_grad=True)
    tc.launch(None, (1,), copy, (x, y, 16))
    assert torch.equal(y.detach(), x.detach())
    # tensors derived from ones that require grad (results of ops, views): the kernel
    # writes their storage, and autograd neither refuses it nor records it
    z = x * 2                                              # a non-leaf with a grad_fn
    out = torch.zeros(32, requires_grad=True)[16:]         # a view of a leaf
    tc.launch(None, (1,), copy, (z, out, 16))
    assert torch.equal(out.detach(), torch.arange(16.0) * 2)
    assert z.grad_fn is not None and out.grad_fn is not None and not x.grad_fn
    assert torch.is_grad_enabled()


def test_tensors_sharing_a_storage_are_mapped_once() -> None:
    torch = _torch()
    storage = torch.arange(32.0)
    a, b = storage[:16], storage[16:]                      # two tensors, one storage
    tc.launch(None, (1,), copy, (a, b, 16))
    assert torch.equal(storage, torch.cat([torch.arange(16.0), torch.arange(16.0)]))


def test_tuples_flatten_item_by_item() -> None:
    a, b = np.arange(8, dtype=np.float32), np.full(8, 2.0, np.float32)
    out = np.zeros(8, np.float32)
    tc.launch(None, (1,), pair_sum, ((a, b, 3.0), out, 8))
    np.testing.assert_array_equal(out, a + 6.0)


def test_lists_of_arrays_are_passed_as_a_table_of_addresses() -> None:
    base = np.arange(64, dtype=np.int32).reshape(8, 8)
    arrays = [np.full((4, 4), 1, np.int32), base[::2, ::2], base[4:, 4:].T]
    out = np.zeros((4, 4), np.int32)
    tc.launch(None, (1,), add_list, (arrays, out))
    np.testing.assert_array_equal(out, 1 + base[::2, ::2] + base[4:, 4:].T)
    with pytest.raises(TypeError, match="^Empty lists are not supported as kernel arguments$"):
        tc.launch(None, (1,), add_list, ([], out))
    with pytest.raises(TypeError, match="^Arrays in list vary in data type$"):
        tc.launch(None, (1,), add_list, ([arrays[0], np.zeros((4, 4), np.int64)], out))


def test_static_shape_dims_make_the_extent_a_constant() -> None:
    out = np.zeros(1, np.int32)
    tc.launch(None, (1,), static_extent, (np.zeros(48, np.float32), out))
    assert out[0] == 48


def test_geometries_met_in_turn_each_get_their_own_constraint() -> None:
    # (constraints are remembered per geometry: a shape seen before must not answer for
    # another, whichever was seen first)
    for n in (48, 32, 48, 16, 32):
        out = np.zeros(1, np.int32)
        tc.launch(None, (1,), static_extent, (np.zeros(n, np.float32), out))
        assert out[0] == n


def test_string_constants_are_folded_into_the_kernel(capfd) -> None:
    tc.launch(None, (1,), message, (np.array([7], np.int32), "seven is"))
    assert capfd.readouterr().out == "seven is 7\n"


def test_an_empty_tensor_is_undefined_behaviour_of_its_tensor_view() -> None:
    """The spec requires tensor view sizes to be strictly positive: an empty array makes
    a view of extent 0, reported at the kernel's line, not silently run."""
    with pytest.raises(ExecutionError, match="zero extent: shape \\[0\\]"):
        tc.launch(None, (1,), copy, (np.zeros(0, np.float32), np.zeros(0, np.float32), 8))


def test_launch_checks_its_arguments_as_ct_launch_does() -> None:
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="^Kernel expects 3 arguments but 2 were given$"):
        tc.launch(None, (1,), copy, (x, y))
    with pytest.raises(TypeError, match="^Grid must be a tuple$"):
        tc.launch(None, 1, copy, (x, y, 8))
    with pytest.raises(ValueError, match="^Grid dimensions must be at most 3, got length 4$"):
        tc.launch(None, (1, 1, 1, 1), copy, (x, y, 8))
    with pytest.raises(ValueError, match=r"^Grid\[1\] exceeds 24-bit limit: max=16777215, "
                                         r"got=16777216\. Use multiple kernel launches"):
        tc.launch(None, (1, 1 << 24), copy, (x, y, 8))
    with pytest.raises(TypeError, match="Only plain tuples are accepted"):
        from collections import namedtuple
        tc.launch(None, (1,), pair_sum, (namedtuple("P", "a b c")(x, x, 1.0), y, 8))
    assert tc.parse_grid(()) == (1, 1, 1)
    tc.launch(None, (), copy, (x, y, 8))                   # no extents: one tile block
    np.testing.assert_array_equal(y, x)


def test_launches_from_many_threads_at_once_give_each_its_own_result() -> None:
    barrier = threading.Barrier(6)
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        kernel = _make_scaled(k + 2)
        x = np.arange(16, dtype=np.int32)
        y = np.zeros(16, np.int32)
        barrier.wait()
        tc.launch(None, (1,), kernel, (x, y, 16))
        results[k] = y
    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(6):
        np.testing.assert_array_equal(results[k], np.arange(16) * (k + 2))


def test_cpu_mode_routes_ct_launch_and_puts_everything_back() -> None:
    torch = _torch()
    import cuda.tile._cext as cext
    launch, capability, benchmark = ct.launch, cext.get_compute_capability, cext._benchmark
    is_available, is_cuda = torch.cuda.is_available, torch.Tensor.__dict__.get("is_cuda")
    with tc.cpu_mode():
        assert ct.launch is not launch and cext.get_compute_capability() == (10, 0)
        x = torch.arange(16.0, device="cuda")
        y = torch.zeros(16, device="cuda")
        assert x.device.type == "cpu" and x.is_cuda and torch.cuda.is_available()
        ct.launch(torch.cuda.current_stream(), (1,), copy, (x, y, 16))
        torch.cuda.synchronize()
        assert torch.equal(x, y)
        with pytest.raises(tc.GpuOnlyError, match="torch.cuda.Event needs a GPU"):
            torch.cuda.Event(enable_timing=True)
        with pytest.raises(tc.GpuOnlyError, match="_benchmark needs a GPU"):
            cext._benchmark(None, (1,), copy, (x, y, 16), False)
    assert ct.launch is launch and cext.get_compute_capability is capability
    assert cext._benchmark is benchmark
    assert torch.cuda.is_available is is_available
    assert torch.Tensor.__dict__.get("is_cuda") is is_cuda
    assert not torch.tensor([1.0]).is_cuda


def test_a_failed_assert_prints_its_message_on_stdout_under_cpu_mode(capfd) -> None:
    x = np.ones(16, np.int32)
    x[5] = 0
    with tc.cpu_mode():
        with pytest.raises(ExecutionError, match="assertion failed: x must be positive"):
            ct.launch(None, (2,), checked, (x, 8))
    lines = [line for line in capfd.readouterr().out.splitlines() if line]
    assert len(lines) == 1 and "x must be positive" in lines[0]


def test_the_pytest_switch_runs_a_cuda_test_file_unchanged(tmp_path) -> None:
    _torch()
    test = tmp_path / "test_on_gpu.py"
    test.write_text(textwrap.dedent('''
        import subprocess, sys
        import torch
        import cuda.tile as ct

        @ct.kernel
        def double(x, tile: ct.Constant[int]):
            ct.store(x, (0,), ct.load(x, (0,), (tile,)) * 2)

        def test_double():
            x = torch.arange(8, dtype=torch.float32, device="cuda")
            ct.launch(torch.cuda.current_stream(), (1,), double, (x, 8))
            torch.cuda.synchronize()
            assert x.is_cuda and x.tolist() == [0, 2, 4, 6, 8, 10, 12, 14]

        def test_children_run_with_the_switch_too():
            code = "import torch; print(torch.zeros(1, device='cuda').device)"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            assert out.stdout.strip() == "cpu", out.stderr
    '''))
    env = {k: v for k, v in os.environ.items() if k != "TILEIR_CUTILE"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--tileir-cpu", str(test)], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
    off = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(test)], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=300)
    assert off.returncode != 0      # without the switch nothing is changed


if ct is not None:
    @ct.kernel
    def padded_past_the_end(x, y):
        """Block 1 loads tile 1 of an 8-element array: wholly outside it."""
        t = ct.load(x, (ct.bid(0),), (8,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, (0,), t)

    @ct.kernel
    def to_bool(x, y):
        """astype(float, bool), which cuTile lowers to ftoi into i1."""
        ct.store(y, (0,), ct.astype(ct.load(x, (0,), (4,)), ct.bool_))


def test_ub_in_a_kernel_says_the_kernel_is_at_fault_and_why() -> None:
    """The undefined behaviour found in NVIDIA's own tests and samples is reported with a
    note naming the rule the kernel breaks."""
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with pytest.raises(ExecutionError) as info:
        tc.launch(None, (2,), padded_past_the_end, (x, y))
    text = str(info.value)
    assert "index 1 in dimension 0 is outside the index space [1] (tile block (1, 0, 0))" in text
    assert "note: undefined behaviour in the kernel: a tile index must lie in the view's " \
        "index space" in text
    with pytest.raises(ExecutionError) as info:
        tc.launch(None, (1,), to_bool, (np.array([0.0, 1.0, 2.0, 0.5], np.float32),
                                        np.zeros(4, np.bool_)))
    text = str(info.value)
    assert "'cuda_tile.ftoi' op converts 2.0 at element [2]" in text
    assert "(for i1, only 0 and 1: cuTile lowers astype(float, bool) to such an ftoi)" in text
