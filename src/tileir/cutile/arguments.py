"""cuTile's calling convention on the CPU: each ``ct.launch`` argument becomes the kernel
signature's constraint for it and the interpreter's flat arguments.

An array (NumPy, a torch CPU tensor, anything with DLPack or the array protocol) becomes
its base pointer, its shape and its strides in elements; a tuple flattens item by item; a
``ct.Constant`` parameter is folded into the kernel; a scalar takes the type cuTile gives a
loose constant.  Arrays are mapped where they live, so the kernel's writes land in the
caller's memory: a strided view, a transposed or expanded tensor, a slice with steps, a
bf16 or fp8 tensor (read through its storage, not DLPack, whose dtypes stop at f16).

The constraints follow cuTile's own specialisation of a signature at launch: a size-one
axis and a unit stride become constants, 16-divisible shapes and strides are assumed so,
and ``ct.ArrayAnnotation(static_shape_dims=..., static_stride_dims=...)`` turns those axes
into constants.  A kernel therefore runs the code a GPU would run for the same arguments.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import inspect
import typing
from dataclasses import dataclass
from typing import Any, Sequence

import ml_dtypes
import numpy as np

from ..diagnostics import ExecutionError, error
from ..interp.memory import host_address, root_bytes, root_of

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
#: Arrays of more dimensions than this get no shape or stride specialisation (cuTile's
#: TMA limit).
_MAX_SPECIALISED_RANK = 5

#: NumPy dtype -> cuTile dtype name, for every element type a cuTile array may hold.
_NUMPY_NAMES = {
    np.dtype(np.bool_): "bool_", np.dtype(np.int8): "int8", np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
    np.dtype(np.uint16): "uint16", np.dtype(np.uint32): "uint32",
    np.dtype(np.uint64): "uint64", np.dtype(np.float16): "float16",
    np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
    np.dtype(ml_dtypes.bfloat16): "bfloat16",
    np.dtype(ml_dtypes.float8_e4m3fn): "float8_e4m3fn",
    np.dtype(ml_dtypes.float8_e5m2): "float8_e5m2",
    np.dtype(ml_dtypes.float8_e8m0fnu): "float8_e8m0fnu",
}

#: torch dtype name -> NumPy dtype of the same bits (read from the storage's bytes).
_TORCH_DTYPES = {
    "torch.bool": np.bool_, "torch.int8": np.int8, "torch.int16": np.int16,
    "torch.int32": np.int32, "torch.int64": np.int64, "torch.uint8": np.uint8,
    "torch.uint16": np.uint16, "torch.uint32": np.uint32, "torch.uint64": np.uint64,
    "torch.float16": np.float16, "torch.float32": np.float32, "torch.float64": np.float64,
    "torch.bfloat16": ml_dtypes.bfloat16, "torch.float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "torch.float8_e5m2": ml_dtypes.float8_e5m2,
    "torch.float8_e8m0fnu": ml_dtypes.float8_e8m0fnu,
}


def _ct() -> Any:
    """cuTile Python, or a clear error naming the extra that installs it."""
    try:
        import cuda.tile as ct
    except ImportError as exc:  # the optional dependency
        raise ExecutionError(error("tileir.cutile needs cuTile Python: pip install cuda-tile "
                                   f"(or tileir[oracles]) ({exc})")) from None
    return ct


@dataclass(frozen=True)
class Strided:
    """An array argument as cuTile sees it: where its elements live (`storage`, a flat
    writable byte array shared with the caller's object), the byte offset of element 0,
    its dtype, shape and strides in elements."""

    storage: np.ndarray
    offset: int
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def window(self) -> np.ndarray:
        """The smallest C-contiguous 1-D array of the dtype that starts at element 0 and
        covers every element (a view of the storage, so writes land in the caller's)."""
        size = self.dtype.itemsize
        if 0 in self.shape:
            count = 0
        else:
            count = sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + 1
        return self.storage[self.offset:self.offset + count * size].view(self.dtype)


def _torch_array(value: Any, where: str, storages: dict[tuple[int, int], np.ndarray]
                 ) -> Strided:
    """A torch CPU tensor read through its storage: any dtype, any strides, autograd or
    not (the kernel writes the storage, as on a GPU).  Tensors of one storage share one
    byte array from `storages`, so the interpreter maps the storage once."""
    dtype = _TORCH_DTYPES.get(str(value.dtype))
    if dtype is None:
        raise ExecutionError(error(f"{where}: cuTile has no arrays of {value.dtype}"))
    if value.device.type != "cpu":
        raise ExecutionError(error(f"{where} is a tensor on device '{value.device}'; tileir "
                                   "runs kernels on CPU tensors (use tileir.cutile.cpu_mode "
                                   "to turn device='cuda' into CPU tensors)"))
    tensor = value      # (read as it stands: its storage and geometry are its detached copy's)
    storage = tensor.untyped_storage()
    nbytes = storage.nbytes()
    key = (storage.data_ptr(), nbytes)
    flat = storages.get(key)
    if flat is None:
        flat = storages[key] = _storage_bytes(storage, *key)
    dtype = np.dtype(dtype)
    strides = tuple(int(s) for s in tensor.stride())
    if any(s < 0 for s in strides):
        raise ExecutionError(error(f"{where} has negative strides {strides}; cuTile arrays "
                                   "need non-negative strides"))
    return Strided(flat, tensor.storage_offset() * dtype.itemsize, dtype,
                   tuple(int(n) for n in tensor.shape), strides)


def _storage_bytes(storage: Any, address: int, nbytes: int) -> np.ndarray:
    """A torch CPU storage's bytes as a writable uint8 array over its memory, which keeps
    the storage alive.  Read through ctypes, not a torch tensor: no torch op runs, so
    autograd has no part in it (``requires_grad`` tensors, their views and results of ops
    alike), and it costs a launch a fraction of torch's calls."""
    raw = (ctypes.c_uint8 * nbytes).from_address(address)
    raw._tileir_storage = storage       # (the array's base is `raw`: the storage lives on)
    return np.frombuffer(raw, np.uint8)


def _numpy_array(array: np.ndarray, where: str) -> Strided:
    """A NumPy array (or view) read where it lives: its strides must be non-negative
    whole elements, and the memory it views must be one block."""
    dtype = array.dtype
    if dtype not in _NUMPY_NAMES:
        raise ExecutionError(error(f"{where}: cuTile has no arrays of {dtype}"))
    size = dtype.itemsize
    if any(s < 0 for s in array.strides) or any(s % size for s in array.strides):
        raise ExecutionError(error(f"{where} has negative or unaligned strides "
                                   f"{array.strides}; cuTile arrays need non-negative strides "
                                   "in whole elements"))
    if not array.flags.writeable:
        raise ExecutionError(error(f"{where} is a read-only array; the kernel's memory must "
                                   "be writable (pass a writable copy, e.g. numpy.array(a))"))
    strides = tuple(s // size for s in array.strides)
    flat = root_bytes(root_of(array))
    if flat is None:    # a view of memory that is not one block: map the array alone
        if not (array.flags.c_contiguous or array.size == 0):
            raise ExecutionError(error(f"{where} is a view of a non-contiguous array; pass "
                                       "a view of a contiguous array"))
        flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        return Strided(flat, 0, dtype, array.shape, strides)
    return Strided(flat, host_address(array) - host_address(flat), dtype, array.shape,
                   strides)


def _is_torch(value: Any) -> bool:
    """Whether `value` is a torch tensor (without importing torch)."""
    return any(c.__module__.startswith("torch") and c.__name__ == "Tensor"
               for c in type(value).__mro__)


def read_array(value: Any, where: str,
               storages: dict[tuple[int, int], np.ndarray] | None = None) -> Strided | None:
    """`value` as an array argument sharing its memory, or None when it is not an array
    (`storages`: the byte arrays of torch storages met so far in this launch)."""
    if isinstance(value, np.ndarray):
        if isinstance(value, np.ma.MaskedArray):
            raise ExecutionError(error(f"{where} is a masked array; cuTile arrays have no "
                                       "mask (pass its data)"))
        return _numpy_array(value, where)
    if isinstance(value, (bool, int, float, np.generic, str, tuple, list)) or value is None:
        return None
    if _is_torch(value):
        return _torch_array(value, where, {} if storages is None else storages)
    if hasattr(value, "__dlpack__"):
        try:
            array = np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError) as exc:
            raise ExecutionError(error(f"cannot read a {type(value).__name__} argument on the "
                                       f"CPU through DLPack: {exc}")) from None
        return _numpy_array(array, where)
    if hasattr(value, "__array_interface__"):
        return _numpy_array(np.asarray(value), where)
    return None


def _scalar_dtype(value: Any, where: str) -> str:
    """The cuTile dtype name of a runtime scalar, as for a loose constant."""
    if isinstance(value, np.generic):
        return _NUMPY_NAMES.get(value.dtype, value.dtype.name)
    if isinstance(value, bool):
        return "bool_"
    if isinstance(value, int):
        if _INT32[0] <= value <= _INT32[1]:
            return "int32"
        if _INT64[0] <= value <= _INT64[1]:
            return "int64"
        if 0 <= value < 1 << 64:
            return "uint64"
        raise ExecutionError(error(f"{where}: the integer {value} does not fit in 64 bits"))
    if isinstance(value, float):
        return "float32"
    raise ExecutionError(error(f"{where}: cannot pass a {type(value).__name__} to a cuTile "
                               "kernel"))


@dataclass(frozen=True)
class Leaf:
    """A parameter (or tuple item) annotation that takes one value: a constant or not,
    with its ``ct.ArrayAnnotation`` if any."""

    constant: bool = False
    array: Any = None


@dataclass(frozen=True)
class Items:
    """A tuple annotation: ``tuple[A, B]`` (`each` None) or ``tuple[A, ...]``."""

    items: tuple[Any, ...] = ()
    each: Any = None


def annotation_of(hint: Any) -> Leaf | Items:
    """The annotation tree of a parameter's type hint, as cuTile reads it."""
    if isinstance(hint, str):   # unresolved: go by its spelling
        return Leaf(constant="Constant[" in hint)
    if typing.get_origin(hint) is typing.Annotated:
        metadata = hint.__metadata__
        if any(type(m).__name__ == "ConstantAnnotation" for m in metadata):
            return Leaf(constant=True)
        array = next((m for m in metadata if type(m).__name__ == "ArrayAnnotation"), None)
        if array is not None:
            return Leaf(array=array)
        listed = next((m for m in metadata if type(m).__name__ == "ListAnnotation"), None)
        if listed is not None:   # its element: an ArrayAnnotation, or an annotated Array
            element = getattr(listed, "element", None)
            if typing.get_origin(element) is typing.Annotated:
                return annotation_of(element)
            return Leaf(array=element)
        return annotation_of(typing.get_args(hint)[0])
    if hint is tuple or typing.get_origin(hint) is tuple:
        args = typing.get_args(hint)
        if not args:
            return Items(each=Leaf())
        if len(args) == 2 and args[1] is Ellipsis:
            return Items(each=annotation_of(args[0]))
        return Items(items=tuple(annotation_of(a) for a in args))
    return Leaf()


def _axes(dims: Sequence[int], rank: int, name: str) -> list[int]:
    """Annotated axes (negative counts from the end), checked as cuTile checks them."""
    axes = []
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"{name} must contain integers, got {dim!r}")
        axis = dim + rank if dim < 0 else dim
        if not 0 <= axis < rank:
            raise ValueError(f"{name} contains axis {dim} but array rank is {rank}")
        if axis in axes:
            raise ValueError(f"{name} contains duplicate axis {dim}")
        axes.append(axis)
    return axes


@dataclass(frozen=True)
class ArraySpec:
    """What cuTile's ``ArrayConstraint`` for one array argument holds (hashable: the
    export cache is keyed by these, and the constraint is built only on a miss)."""

    dtype: str
    ndim: int
    index_dtype: str
    shape_constant: tuple[int | None, ...]
    stride_constant: tuple[int | None, ...]
    stride_divisible_by: tuple[int, ...]
    shape_divisible_by: tuple[int, ...]
    base_addr_divisible_by: int
    may_alias_internally: bool

    def build(self, ct: Any) -> Any:
        """The ``ArrayConstraint``."""
        from cuda.tile.compilation import ArrayConstraint
        return ArrayConstraint(
            getattr(ct, self.dtype), self.ndim, index_dtype=getattr(ct, self.index_dtype),
            stride_lower_bound_incl=0, alias_groups=(),
            may_alias_internally=self.may_alias_internally,
            stride_constant=self.stride_constant, shape_constant=self.shape_constant,
            stride_divisible_by=self.stride_divisible_by,
            shape_divisible_by=self.shape_divisible_by,
            base_addr_divisible_by=self.base_addr_divisible_by)


@dataclass(frozen=True)
class ScalarSpec:
    """A runtime scalar of cuTile dtype `dtype`."""

    dtype: str

    def build(self, ct: Any) -> Any:
        """The ``ScalarConstraint``."""
        from cuda.tile.compilation import ScalarConstraint
        return ScalarConstraint(getattr(ct, self.dtype))


@dataclass(frozen=True)
class TupleSpec:
    """A tuple argument, item by item."""

    items: tuple[Any, ...]

    def build(self, ct: Any) -> Any:
        """The ``TupleConstraint``."""
        from cuda.tile.compilation import TupleConstraint
        return TupleConstraint([item.build(ct) for item in self.items])


@dataclass(frozen=True)
class ListSpec:
    """A list of arrays: one constraint for every element."""

    element: ArraySpec
    elements_may_alias: bool

    def build(self, ct: Any) -> Any:
        """The ``ListConstraint``."""
        from cuda.tile.compilation import ListConstraint
        return ListConstraint(self.element.build(ct), alias_groups=(),
                              elements_may_alias=self.elements_may_alias)


def _list_element(specs: list[ArraySpec], arrays: list[Strided], annotation: Any) -> ArraySpec:
    """The one constraint cuTile gives every array of a list: what holds for them all
    (a constant where every array has it, the smallest divisibility); the axes
    ``static_shape_dims``/``static_stride_dims`` name must agree (``ValueError``)."""
    rank = specs[0].ndim
    for field, what, axes_name in (("shape_constant", "shape", "static_shape_dims"),
                                   ("stride_constant", "stride", "static_stride_dims")):
        for axis in _axes(getattr(annotation, axes_name, None) or (), rank, axes_name):
            values = [getattr(spec, field)[axis] for spec in specs]
            if any(v != values[0] for v in values):
                other = next(v for v in values if v != values[0])
                raise ValueError(f"Arrays in list vary in static {what} at axis {axis} "
                                 f"({values[0]} vs {other})")

    def same(field: str) -> tuple[Any, ...]:
        columns = zip(*(getattr(spec, field) for spec in specs))
        return tuple(c[0] if all(v == c[0] for v in c) else None for c in columns)

    def least(field: str) -> tuple[int, ...]:
        return tuple(min(c) for c in zip(*(getattr(spec, field) for spec in specs)))
    first = specs[0]
    return ArraySpec(first.dtype, rank, first.index_dtype, same("shape_constant"),
                     same("stride_constant"), least("stride_divisible_by"),
                     least("shape_divisible_by"),
                     min(spec.base_addr_divisible_by for spec in specs),
                     any(spec.may_alias_internally for spec in specs))


@dataclass(frozen=True, eq=False)
class ConstantSpec:
    """A ``ct.Constant`` value; equal to another only for the same type and spelling
    (1, True and 1.0 differ; NaN equals NaN), as cuTile's ``ConstantConstraint``."""

    value: Any

    def key(self) -> Any:
        """What identifies the value."""
        if type(self.value) is tuple:
            return tuple(ConstantSpec(v).key() for v in self.value)
        return type(self.value).__qualname__, repr(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstantSpec) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def build(self, ct: Any) -> Any:
        """The value (strings wrapped in a constant constraint: cuTile folds them at
        launch, but its signature type does not take them)."""
        if isinstance(self.value, str):
            from cuda.tile.compilation import ConstantConstraint
            constraint = ConstantConstraint.__new__(ConstantConstraint)
            object.__setattr__(constraint, "value", self.value)
            return constraint
        if type(self.value) is tuple:
            return tuple(ConstantSpec(v).build(ct) for v in self.value)
        return self.value


def _array_constraint(ct: Any, array: Strided, annotation: Any, specialise_shapes: bool,
                      base_address: int) -> tuple[ArraySpec, tuple[int, ...]]:
    """`_constraint_of` the array's geometry, remembered for the geometries launches meet
    (a pure function of them: suites launch one kernel on arrays of one shape again and
    again)."""
    rank = len(array.shape)
    key = (array.dtype, array.shape, array.strides,
           getattr(annotation, "index_dtype", None),
           tuple(_axes(getattr(annotation, "static_shape_dims", None) or (), rank,
                       "static_shape_dims")),
           tuple(_axes(getattr(annotation, "static_stride_dims", None) or (), rank,
                       "static_stride_dims")),
           specialise_shapes, base_address % 16 == 0)
    try:
        return _remembered_constraint(ct, *key)
    except TypeError:       # an index dtype that cannot be hashed: found afresh
        return _constraint_of(ct, *key)


def _constraint_of(ct: Any, dtype: np.dtype, shape: tuple[int, ...], strides_in: tuple[int, ...],
                   index_dtype: Any, shape_axes: tuple[int, ...], stride_axes: tuple[int, ...],
                   specialise_shapes: bool, aligned: bool) -> tuple[ArraySpec, tuple[int, ...]]:
    """cuTile's constraint for an array of `dtype`, `shape` and `strides_in` (elements) at
    a 16-byte aligned address when `aligned`, under an annotation's `index_dtype` (None:
    not annotated) and constant axes (``static_shape_dims``, ``static_stride_dims``,
    checked by `_axes`), as its launch specialises a signature, and the
    strides to pass: 16-byte divisible strides, 16-divisible shapes and a 16-byte aligned
    base are assumed so, a unit stride is a constant (unless ``static_stride_dims`` names
    the constant strides), a size-one axis is a constant (calling convention v2, unless
    ``static_shape_dims`` names the constant shapes), and annotated axes become constants.
    Shapes and strides must fit the index type (int32 unless annotated): ``OverflowError``
    as cuTile's.

    cuTile's front end assumes the stride of a size-one axis 16-byte divisible, whatever
    it is (it never enters an address: the only index in bounds is 0); were it made the
    constant 1, that assumption would be false, which is undefined behaviour.  So the stride
    of a size-one axis (not named by ``static_stride_dims``) is passed as 16 bytes, which
    changes no address a kernel can reach in bounds."""
    rank, bits = len(shape), dtype.itemsize * 8
    index = index_dtype or ct.int32
    limit = (1 << 63) - 1 if index == ct.int64 else _INT32[1]
    if any(n > limit for n in shape):
        raise OverflowError("shape is too big")
    if any(s > limit for s in strides_in):
        raise OverflowError("stride is too big")
    shape_constant: list[int | None] = [None] * rank
    stride_constant: list[int | None] = [None] * rank
    shape_div, stride_div = [1] * rank, [1] * rank
    strides = list(strides_in)
    if rank <= _MAX_SPECIALISED_RANK and 128 % bits == 0:
        for i, n in enumerate(shape):
            if n == 1 and i not in stride_axes:
                strides[i] = 128 // bits
    if rank <= _MAX_SPECIALISED_RANK:
        for i, (n, s) in enumerate(zip(shape, strides)):
            if specialise_shapes and not shape_axes and n == 1:
                shape_constant[i] = 1
            if not stride_axes and s == 1:
                stride_constant[i] = 1
            if (s * bits) % 8 == 0 and (s * bits // 8) % 16 == 0 and 128 % bits == 0:
                stride_div[i] = 128 // bits
            if (n * bits) % 8 == 0 and n % 16 == 0:
                shape_div[i] = 16
    for i in shape_axes:
        shape_constant[i] = shape[i]
    for i in stride_axes:
        stride_constant[i] = strides_in[i]
    pairs = sorted(zip(strides, shape))
    disjoint = rank == 0 or (pairs[0][0] > 0 and all(
        s >= ps * pn for (ps, pn), (s, _) in zip(pairs, pairs[1:])))
    spec = ArraySpec(
        _NUMPY_NAMES[dtype], rank, "int64" if index == ct.int64 else "int32",
        tuple(shape_constant), tuple(stride_constant),
        tuple(d if c is None else 1 for d, c in zip(stride_div, stride_constant)),
        tuple(d if c is None else 1 for d, c in zip(shape_div, shape_constant)),
        16 if aligned else 1, not disjoint)
    return spec, tuple(strides)


_remembered_constraint = functools.lru_cache(maxsize=4096)(_constraint_of)


def _parameters(kernel: Any) -> tuple[Any, list[inspect.Parameter], dict[str, Any]]:
    """The kernel's Python function, its parameters and their resolved annotations."""
    try:
        pyfunc = kernel._annotated_function.pyfunc
    except AttributeError:
        raise TypeError(f"expected a @ct.kernel, got {type(kernel).__name__}") from None
    params = list(inspect.signature(pyfunc).parameters.values())
    try:   # resolve string annotations (modules with `from __future__ import annotations`)
        hints = typing.get_type_hints(pyfunc, include_extras=True)
    except Exception:  # an annotation that does not resolve: keep the raw ones
        hints = {}
    return pyfunc, params, hints


def flatten(kernel: Any, args: Sequence[Any], specialise_shapes: bool = True
            ) -> tuple[list[Any], list[Any]]:
    """cuTile's signature constraints for `args` and the interpreter's arguments (arrays
    become their element-0 window, shape and strides; constants disappear; tuples flatten
    item by item), with ``ct.launch``'s ``TypeError``s for arguments it refuses.
    `specialise_shapes`: whether size-one axes become constants (calling convention v2,
    the one tileir exports with)."""
    ct = _ct()
    specs, flat = read_arguments(kernel, args, specialise_shapes)
    return [spec.build(ct) for spec in specs], flat


def read_arguments(kernel: Any, args: Sequence[Any], specialise_shapes: bool = True
                   ) -> tuple[tuple[Any, ...], list[Any]]:
    """What `flatten` does, with the constraints left as hashable specs (`ArraySpec`, ...)
    to key a cache by; each spec's ``build(ct)`` makes cuTile's constraint."""
    ct = _ct()
    name, nodes = _signature_of(kernel)
    if len(args) != len(nodes):
        plural = "argument" if len(nodes) == 1 else "arguments"
        verb = "was given" if len(args) == 1 else "were given"
        raise TypeError(f"Kernel expects {len(nodes)} {plural} but {len(args)} {verb}")
    reader = _Reader(ct, name, specialise_shapes)
    specs = tuple(reader.read(value, node, (i,))
                  for i, (node, value) in enumerate(zip(nodes, args)))
    return specs, reader.flat


def _signature_of(kernel: Any) -> tuple[str, tuple[Leaf | Items, ...]]:
    """The kernel's name and its parameters' annotation trees, read once and kept on the
    kernel object (they live and die with it)."""
    found = kernel.__dict__.get("_tileir_parameters") if hasattr(kernel, "__dict__") else None
    if found is None:
        pyfunc, params, hints = _parameters(kernel)
        found = (pyfunc.__name__,
                 tuple(annotation_of(hints.get(p.name, p.annotation)) for p in params))
        kernel.__dict__["_tileir_parameters"] = found
    return found


class _Reader:
    """Reads launch arguments against their annotations into constraints and the flat
    argument list (torch storages met are mapped once: `storages`)."""

    def __init__(self, ct: Any, kernel: str, specialise_shapes: bool) -> None:
        self.ct, self.kernel, self.specialise_shapes = ct, kernel, specialise_shapes
        self.flat: list[Any] = []
        self.storages: dict[tuple[int, int], np.ndarray] = {}

    @staticmethod
    def where(path: tuple[int, ...]) -> str:
        """cuTile's name of the argument at `path` (argument index, then item indices)."""
        items = "".join(f"item #{i} of " for i in reversed(path[1:]))
        return f"Invalid {items}kernel argument #{path[0]}"

    def read(self, value: Any, node: Leaf | Items, path: tuple[int, ...]) -> Any:
        """The constraint spec of `value` under annotation `node`."""
        if type(value) is not tuple and isinstance(value, tuple):
            raise TypeError(f"{self.where(path)}: '{type(value).__name__}' is a subclass of "
                            "'tuple'. Only plain tuples are accepted.")
        if isinstance(node, Items):
            if type(value) is not tuple:
                raise TypeError("Received a non-tuple argument for a parameter annotated as "
                                "a tuple")
            if node.each is None and len(value) != len(node.items):
                raise TypeError(f"Received a tuple of length {len(value)} for a parameter "
                                f"annotated as a tuple of length {len(node.items)}")
            nodes = node.items if node.each is None else (node.each,) * len(value)
            return TupleSpec(tuple(self.read(v, n, path + (i,))
                                   for i, (v, n) in enumerate(zip(value, nodes))))
        if node.constant:
            return self.constant(value, path)
        if type(value) is tuple:
            return TupleSpec(tuple(self.read(v, Leaf(), path + (i,))
                                   for i, v in enumerate(value)))
        return self.leaf(value, node, path)

    def constant(self, value: Any, path: tuple[int, ...]) -> ConstantSpec:
        """A ``ct.Constant`` value, folded into the kernel."""
        if type(value) is tuple:
            for i, item in enumerate(value):
                self.constant(item, path + (i,))
            return ConstantSpec(value)
        if isinstance(value, (bool, int, float, str)) or value is None or \
                type(value).__module__.startswith("cuda.tile"):
            return ConstantSpec(value)
        raise TypeError(f"{self.where(path)}: Could not interpret object of type "
                        f"'{type(value).__name__}' as a constant.")

    def leaf(self, value: Any, node: Leaf, path: tuple[int, ...]) -> Any:
        """An array or a scalar: its constraint spec; its flat arguments go to `flat`."""
        ct = self.ct
        where = f"argument #{path[0]} of '{self.kernel}'" + "".join(
            f", item {i}" for i in path[1:])
        if isinstance(value, list):
            return self.listed(value, node, path, where)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            raise ExecutionError(error(f"{where} is a dataclass, a development-only "
                                       "argument kind of cuTile that tileir does not pass"))
        array = read_array(value, where, self.storages)
        if array is None:
            name = _scalar_dtype(value, where)
            if not hasattr(ct, name):
                raise ExecutionError(error(f"{where}: cuTile has no {name} scalars"))
            self.flat.append(value)
            return ScalarSpec(name)
        window = array.window()
        constraint, strides = _array_constraint(ct, array, node.array, self.specialise_shapes,
                                                window.__array_interface__["data"][0])
        self.flat.append(window)
        self.flat.extend(array.shape)
        self.flat.extend(strides)
        return constraint

    def listed(self, value: list[Any], node: Leaf, path: tuple[int, ...], where: str
               ) -> ListSpec:
        """A list of arrays, passed as cuTile passes it: a table with a row per array
        (its address, shape and strides) and the list's length."""
        from ..interp.launch import AddressTable
        if not value:
            raise TypeError("Empty lists are not supported as kernel arguments")
        arrays = []
        for i, item in enumerate(value):
            array = read_array(item, f"{where}, item {i}", self.storages) \
                if not isinstance(item, (list, tuple)) else None
            if array is None:
                raise TypeError(f"Expected list items to be arrays, got "
                                f"'{type(item).__name__}'")
            arrays.append(array)
        if len({a.dtype for a in arrays}) > 1:
            raise TypeError("Arrays in list vary in data type")
        if len({len(a.shape) for a in arrays}) > 1:
            raise TypeError("Arrays in list vary in rank")
        specs, rows = [], []
        for array in arrays:
            window = array.window()
            spec, strides = _array_constraint(self.ct, array, node.array,
                                              self.specialise_shapes,
                                              window.__array_interface__["data"][0])
            specs.append(spec)
            rows.append((window, (*array.shape, *strides)))
        spans = sorted((w.__array_interface__["data"][0], w.nbytes) for w, _ in rows)
        overlap = any(a + n > b for (a, n), (b, _) in zip(spans, spans[1:]))
        self.flat.append(AddressTable(tuple(rows)))
        self.flat.append(len(rows))
        return ListSpec(_list_element(specs, arrays, node.array), overlap)


__all__ = ["ArraySpec", "ConstantSpec", "Items", "Leaf", "ListSpec", "ScalarSpec", "Strided",
           "TupleSpec",
           "annotation_of", "flatten", "read_arguments", "read_array"]
