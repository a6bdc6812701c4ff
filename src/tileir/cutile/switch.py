"""The one switch that runs a cuTile Python project unchanged on the CPU.

Nothing is changed until it is turned on, by any of:

* ``with tileir.cutile.cpu_mode(): ...`` (or ``enable()`` / ``disable()``) in a script;
* ``pytest --tileir-cpu`` (the plugin tileir registers with pytest), or
  ``pytest -p tileir.cutile.pytest_plugin --tileir-cpu`` where plugins are not autoloaded;
* the environment variable ``TILEIR_CUTILE=cpu`` under pytest, and for any Python process
  started as ``python -m tileir.cutile script.py ...``.

While on, exactly these change (`disable` puts every one back):

====================================  ==================================================
``cuda.tile.launch``,                  runs the kernel on tileir's interpreter
``cuda.tile._cext.launch``             (`tileir.cutile.launch`); a failed ``ct.assert_``
                                       prints its message on stdout, as the device does
``get_compute_capability`` (in         returns the architecture of ``TILEIR_CUTILE_ARCH``
``cuda.tile._cext``, ``_compile``,     (default ``sm_100``), so cuTile compiles for it
``_execution``)
``get_parameter_constraints_from_      reads the arguments on the CPU (what
pyargs`` (``_cext``, ``compilation``)  ``KernelSignature.from_kernel_args`` calls)
torch factory functions and            ``device="cuda"`` (``"cuda:N"``, ``torch.device``)
``Tensor.to``/``Tensor.cuda``          becomes the CPU, in every thread started after
                                       the switch (``threading.Thread.run``)
``torch.Tensor.is_cuda``               True for every tensor
``torch.cuda``: ``is_available``,      a single CPU "device": streams and events of no
``device_count``, ``current_device``,  effect, ``synchronize`` returns at once, device
``set_device``, ``device``,            properties of the architecture above
``get_device_capability``,
``get_device_properties``,
``get_device_name``, ``synchronize``,
``current_stream``,
``default_stream``, ``Stream``,
``stream``, ``empty_cache``
``torch.cuda.Event``, ``graph``,       raise `GpuOnlyError`: GPU timing and graph capture
``CUDAGraph``, ``cuda.tile._cext.      have no CPU meaning
_benchmark`` (also in ``tune``)
``PYTHONPATH``, ``TILEIR_CUTILE``      child Python processes start with the switch on
====================================  ==================================================
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Any, Callable, Iterator

ENV = "TILEIR_CUTILE"
ARCH_ENV = "TILEIR_CUTILE_ARCH"
#: The folder whose sitecustomize turns the switch on in child processes.
BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")
_CUDA = re.compile(r"cuda(:\d+)?$")
_LOCK = threading.RLock()
_DEPTH = 0
#: (object, attribute, original value or _MISSING) for every change, in order.
_UNDO: list[tuple[Any, str, Any]] = []
_MISSING = object()
#: The torch function mode pushed on the thread that turned the switch on.
_MODE: list[Any] = []


class GpuOnlyError(RuntimeError):
    """A GPU-only API (CUDA events, CUDA graphs) called under the CPU switch."""


class Counts:
    """What ``ct.launch`` did under the switch in this process (read by suite runners):
    calls, calls whose kernel cuTile refused to compile, calls whose kernel ran."""

    launches = 0
    compile_errors = 0
    runs = 0


def arch() -> tuple[int, int]:
    """The compute capability the switch reports (``TILEIR_CUTILE_ARCH``, e.g. sm_90)."""
    text = os.environ.get(ARCH_ENV, "sm_100")
    match = re.fullmatch(r"sm_(\d+)(\d)a?", text.strip())
    if match is None:
        raise ValueError(f"{ARCH_ENV} must name an architecture such as sm_100, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def _set(owner: Any, name: str, value: Any) -> None:
    """Replace `owner.name`, remembering the original for `disable`."""
    _UNDO.append((owner, name, owner.__dict__.get(name, _MISSING)
                  if isinstance(owner, type) else getattr(owner, name, _MISSING)))
    setattr(owner, name, value)


def _print_failed_assert(error: Any) -> None:
    """Print a failed ``assert``'s diagnostic on stdout, one line, as a GPU prints a
    device assertion."""
    for diagnostic in getattr(error, "diagnostics", ()):
        if "assertion failed" in diagnostic.message:
            where = f"{diagnostic.location}: " if diagnostic.location is not None else ""
            print(f"{where}{diagnostic.message}", flush=True)
            return


def _cpu_launch(stream: Any, grid: Any, kernel: Any, kernel_args: Any, **options: Any) -> None:
    """``ct.launch`` under the switch: tileir's launch, printing a failed assert's message
    on stdout before raising."""
    from ..diagnostics import ExecutionError
    from .launching import launch
    if options:
        unknown = ", ".join(sorted(set(options) - {"programmatic_dependent_launch"}))
        if unknown:
            raise RuntimeError(f"Unexpected keyword argument {unknown}")
    Counts.launches += 1
    try:
        launch(stream, grid, kernel, kernel_args, on_run=_count_run,
               on_compile_error=_count_compile_error)
    except ExecutionError as exc:
        _print_failed_assert(exc)
        raise


def _count_run() -> None:
    """A kernel is about to run."""
    Counts.runs += 1


def _count_compile_error() -> None:
    """cuTile refused to compile a kernel."""
    Counts.compile_errors += 1


def _patch_cutile() -> None:
    """Route cuTile's launch to the interpreter and its device query to `arch`."""
    import cuda.tile as ct
    import cuda.tile._cext as cext

    def get_compute_capability(device_id: int = 0) -> tuple[int, int]:
        """The switch's compute capability."""
        return arch()
    def get_parameter_constraints_from_pyargs(kernel: Any, args: Any, convention: Any
                                              ) -> list[Any]:
        """cuTile's signature for a launch with `args`, read on the CPU."""
        from cuda.tile.compilation import CallingConvention

        from .arguments import flatten
        v1 = convention == CallingConvention.cutile_python_v1()
        return flatten(kernel, tuple(args), specialise_shapes=not v1)[0]
    _set(ct, "launch", _cpu_launch)
    _set(cext, "launch", _cpu_launch)
    for name in ("_benchmark", "_benchmark_with_ipc_payload"):   # GPU timers
        if hasattr(cext, name):
            _set(cext, name, _gpu_only(f"cuda.tile._cext.{name}", "it times a kernel on the GPU"))
    tune = sys.modules.get("cuda.tile.tune._tune")
    if tune is None:
        try:
            import cuda.tile.tune._tune as tune
        except ImportError:   # an older cuTile without autotuning
            tune = None
    if tune is not None and hasattr(tune, "_benchmark"):
        _set(tune, "_benchmark", _gpu_only("cuda.tile._cext._benchmark",
                                           "it times a kernel on the GPU"))
    for module_name in ("cuda.tile._cext", "cuda.tile.compilation._signature"):
        module = sys.modules.get(module_name) or __import__(module_name, fromlist=["_"])
        if hasattr(module, "get_parameter_constraints_from_pyargs"):
            _set(module, "get_parameter_constraints_from_pyargs",
                 get_parameter_constraints_from_pyargs)
    for module_name in ("cuda.tile._cext", "cuda.tile._compile", "cuda.tile._execution"):
        module = sys.modules.get(module_name)
        if module is None:
            __import__(module_name)
            module = sys.modules[module_name]
        if hasattr(module, "get_compute_capability"):
            _set(module, "get_compute_capability", get_compute_capability)


class _Stream:
    """A CUDA stream on the CPU: work is done when launched, so there is nothing to wait
    for."""

    def __init__(self, device: Any = None, priority: int = 0, **_: Any) -> None:
        self.device = device
        self.priority = priority
        self.cuda_stream = 0

    def synchronize(self) -> None:
        """Nothing runs asynchronously."""

    def wait_stream(self, stream: Any) -> None:
        """Nothing runs asynchronously."""

    def wait_event(self, event: Any) -> None:
        """Nothing runs asynchronously."""

    def query(self) -> bool:
        """Every launch has finished."""
        return True

    def __enter__(self) -> "_Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __repr__(self) -> str:
        return "<tileir CPU stream>"


class _Properties:
    """What ``torch.cuda.get_device_properties`` reports under the switch."""

    def __init__(self) -> None:
        major, minor = arch()
        self.name = f"tileir interpreter (sm_{major}{minor})"
        self.major, self.minor = major, minor
        self.multi_processor_count = 16
        self.total_memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") \
            if hasattr(os, "sysconf") else 1 << 34
        self.L2_cache_size = 50 << 20
        self.max_threads_per_multi_processor = 2048
        self.warp_size = 32

    def __repr__(self) -> str:
        return f"_CudaDeviceProperties(name='{self.name}', major={self.major}, " \
               f"minor={self.minor}, multi_processor_count={self.multi_processor_count})"


def _gpu_only(name: str, why: str = "CUDA events and graphs time and capture GPU work"
              ) -> Callable[..., Any]:
    """A stand-in that refuses a GPU-only API by name."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise GpuOnlyError(f"{name} needs a GPU ({why}); tileir's CPU mode runs each kernel "
                           "as it is launched")
    return refuse


def _on_cpu(value: Any) -> Any:
    """`value` with a CUDA device (string or torch.device) turned into the CPU."""
    import torch
    if isinstance(value, str) and _CUDA.match(value):
        return "cpu"
    if isinstance(value, torch.device) and value.type == "cuda":
        return torch.device("cpu")
    return value


def _torch_mode() -> Any:
    """A torch function mode that puts every tensor asked for on a CUDA device on the
    CPU (``Tensor.cuda()`` returns the tensor)."""
    import torch
    from torch.overrides import TorchFunctionMode

    class OnCpu(TorchFunctionMode):
        """device='cuda' -> the CPU."""

        def __torch_function__(self, func: Any, types: Any, args: Any = (),
                               kwargs: Any = None) -> Any:
            if func is torch.Tensor.cuda:
                return args[0]
            args = tuple(_on_cpu(a) for a in args)
            kwargs = {k: _on_cpu(v) for k, v in (kwargs or {}).items()}
            return func(*args, **kwargs)
    return OnCpu()


def _patch_torch() -> None:
    """The torch half of the switch (see the module docstring)."""
    try:
        import torch
    except ImportError:   # a project without torch: nothing to change
        return
    mode = _torch_mode()
    mode.__enter__()
    _MODE.append(mode)
    run = threading.Thread.run

    def run_on_cpu(self: threading.Thread) -> None:
        """Thread.run with the device mode on in the new thread too."""
        with _torch_mode():
            run(self)
    _set(threading.Thread, "run", run_on_cpu)
    _set(torch.Tensor, "is_cuda", property(lambda self: True))
    cuda = torch.cuda
    stream = _Stream()
    properties = _Properties()

    @contextlib.contextmanager
    def within(*args: Any, **kwargs: Any) -> Iterator[None]:
        """A device or stream context of no effect."""
        yield
    stand_ins: dict[str, Any] = {
        "is_available": lambda: True, "device_count": lambda: 1,
        "current_device": lambda: 0, "set_device": lambda device: None,
        "device": within, "stream": within, "synchronize": lambda device=None: None,
        "get_device_capability": lambda device=None: arch(),
        "get_device_properties": lambda device=None: properties,
        "get_device_name": lambda device=None: properties.name,
        "current_stream": lambda device=None: stream,
        "default_stream": lambda device=None: stream,
        "Stream": _Stream, "empty_cache": lambda: None,
        "Event": _gpu_only("torch.cuda.Event"), "graph": _gpu_only("torch.cuda.graph"),
        "CUDAGraph": _gpu_only("torch.cuda.CUDAGraph"),
    }
    for name, value in stand_ins.items():
        _set(cuda, name, value)


def _patch_children() -> None:
    """Child Python processes start with the switch on (its sitecustomize)."""
    path = os.environ.get("PYTHONPATH", "")
    _UNDO.append((os.environ, "PYTHONPATH", path if "PYTHONPATH" in os.environ else _MISSING))
    _UNDO.append((os.environ, ENV, os.environ.get(ENV, _MISSING)))
    if BOOT not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (BOOT, path) if p)
    os.environ[ENV] = "cpu"


def enable() -> None:
    """Turn the switch on (nested calls count; the outermost `disable` turns it off)."""
    global _DEPTH
    with _LOCK:
        _DEPTH += 1
        if _DEPTH > 1:
            return
        try:
            _patch_cutile()
            _patch_torch()
            _patch_children()
        except BaseException:
            _DEPTH = 1
            disable()
            raise


def disable() -> None:
    """Turn the switch off: every change `enable` made is undone, last first."""
    global _DEPTH
    with _LOCK:
        if _DEPTH == 0:
            return
        _DEPTH -= 1
        if _DEPTH:
            return
        while _MODE:
            _MODE.pop().__exit__(None, None, None)
        while _UNDO:
            owner, name, value = _UNDO.pop()
            if owner is os.environ:
                if value is _MISSING:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            elif value is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


def enabled() -> bool:
    """Whether the switch is on."""
    return _DEPTH > 0


@contextlib.contextmanager
def cpu_mode() -> Iterator[None]:
    """The switch, on for the duration of a ``with`` block."""
    enable()
    try:
        yield
    finally:
        disable()


def requested() -> bool:
    """Whether the environment asks for the switch (``TILEIR_CUTILE=cpu``)."""
    return os.environ.get(ENV, "").strip().lower() == "cpu"


__all__ = ["ARCH_ENV", "Counts", "ENV", "GpuOnlyError", "arch", "cpu_mode", "disable", "enable",
           "enabled", "requested"]
