"""cuTile Python kernels run on the interpreter through ``tileir.cutile.launch``, the drop-in
for ``cuda.tile.launch``: each of our corpus kernels (kernels.py) against its NumPy reference,
under every block schedule."""

from __future__ import annotations

import numpy as np
import pytest

try:
    import cuda.tile as ct
    import kernels
except ImportError:  # cuTile Python is an optional dependency
    ct = kernels = None

if ct is not None:
    @ct.kernel
    def to_int(x, y, tile: ct.Constant[int]):
        """A planted bug: NaN converted to an integer without saturation."""
        i = ct.bid(0)
        ct.store(y, (i,), ct.astype(ct.load(x, (i,), (tile,)), ct.int32))

import tileir.cutile as tc

NAMES = [k.name for k in kernels.KERNELS] if kernels else ["(cuTile Python not installed)"]
#: Relative and absolute tolerance per output dtype: the interpreter rounds each op as the
#: spec says; the NumPy references compute in float64 or float32 with another op order.
TOLERANCE = {"float16": (2e-2, 2e-2), "bfloat16": (3e-2, 3e-2), "float32": (2e-5, 2e-5),
             "float64": (1e-12, 1e-12)}


def launch_args(kernel, inputs: dict[str, np.ndarray]) -> tuple[list, dict[str, np.ndarray]]:
    """The arguments ``ct.launch`` takes (constants where the signature has them, arrays
    and scalars from the launch description) and the arrays the kernel writes."""
    from cuda.tile.compilation import ArrayConstraint, ScalarConstraint
    runtime = iter(kernel.launch.args)
    args, arrays = [], {}
    for parameter in kernel.parameters:
        if not isinstance(parameter, (ArrayConstraint, ScalarConstraint)):
            args.append(parameter)              # a ct.Constant, folded into the kernel
            continue
        arg = next(runtime)
        if arg.role == "scalar":
            args.append(np.dtype(arg.dtype).type(arg.value) if arg.dtype != "float32"
                        else float(arg.value))
            continue
        value = inputs[arg.name].copy() if arg.name in inputs else \
            np.zeros(arg.shape, dtype=arg.dtype)
        arrays[arg.name] = value
        args.append(value)
    return args, arrays


@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
@pytest.mark.parametrize("name", NAMES)
def test_cutile_kernel_matches_numpy(name: str, schedule: str, tally, capsys) -> None:
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    kernel = next(k for k in kernels.KERNELS if k.name == name)
    inputs = kernel.launch.inputs(np.random.default_rng(7))
    args, arrays = launch_args(kernel, inputs)
    tc.launch(None, kernel.launch.grid, kernel.function, args, schedule=schedule, seed=3)
    expected = kernel.launch.reference(inputs)
    for key, want in expected.items():
        got = arrays[key]
        rtol, atol = TOLERANCE.get(want.dtype.name, (0, 0))
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=rtol, atol=atol, err_msg=f"{name}: {key}")
    tally("cuTile kernels run through tileir.cutile.launch and matched NumPy", 1)


def test_undefined_behaviour_in_a_cutile_kernel_is_reported_at_its_python_line() -> None:
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    import inspect

    from tileir import ExecutionError

    line = inspect.getsourcelines(to_int._annotated_function.pyfunc)[1] + 4
    x = np.array([1.5, np.nan, 2.0, 3.0], dtype=np.float32)
    y = np.zeros(4, dtype=np.int32)
    with pytest.raises(ExecutionError) as info:
        tc.launch(None, (1,), to_int, (x, y, 4))
    message = str(info.value)
    assert f"{__file__}:{line}:" in message
    assert "'cuda_tile.ftoi' op converts nan at element [1]" in message
    assert "(tile block (0, 0, 0))" in message


def test_strided_views_and_torch_style_arguments_write_through() -> None:
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    kernel = next(k for k in kernels.KERNELS if k.name == "vector_add")
    base = np.zeros(128, dtype=np.float32)
    a, b = np.arange(64, dtype=np.float32), np.full(64, 2.0, dtype=np.float32)
    c = base[::2]                                   # every other element of a larger array
    tc.launch(None, (4,), kernel.function, (a, b, c, 16))
    assert (base[::2] == a + 2.0).all() and (base[1::2] == 0).all()


def test_torch_cpu_tensors_are_passed_through_dlpack() -> None:
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    torch = pytest.importorskip("torch", reason="PyTorch is optional (the torch extra)")
    kernel = next(k for k in kernels.KERNELS if k.name == "vector_add")
    a = torch.arange(64, dtype=torch.float32)
    b = torch.full((64,), 0.5, dtype=torch.float32)
    c = torch.zeros(64, dtype=torch.float32)
    tc.launch(None, (4,), kernel.function, (a, b, c, 16))
    assert torch.equal(c, a + 0.5)


#: The corpus kernels the batched engine does not run, and why (the rest it must run).
UNBATCHED = {"histogram": "atomics order tile blocks",
             "view_atomics": "atomics order tile blocks",
             "control_flow": "an 'if' condition differs between tile blocks"}


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("schedule", ["sequential", "reverse", "random"])
@pytest.mark.parametrize("name", NAMES)
def test_batched_engine_is_bit_identical_to_the_reference(name: str, schedule: str,
                                                          checks: bool, tally) -> None:
    """Every output byte of the batched engine equals the one-block-at-a-time engine's."""
    if kernels is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    kernel = next(k for k in kernels.KERNELS if k.name == name)
    inputs = kernel.launch.inputs(np.random.default_rng(11))
    outputs, runs = [], []
    for engine in ("blocks", "auto"):
        args, arrays = launch_args(kernel, inputs)
        runs.append(tc.launch(None, kernel.launch.grid, kernel.function, args,
                              schedule=schedule, seed=5, checks=checks, engine=engine))
        outputs.append({key: value.tobytes() for key, value in arrays.items()})
    assert runs[0].engine == "blocks"
    if name in UNBATCHED:
        assert runs[1].engine == "blocks" and UNBATCHED[name] in runs[1].reason
    else:
        assert runs[1].engine == "batched", runs[1].reason
    assert outputs[0] == outputs[1]
    tally("corpus runs bit-identical on both engines", 1)
