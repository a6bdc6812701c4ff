"""Kernel arguments written on a command line: ``.npy`` files, numbers and generators.

A generator is ``KIND:SHAPE[xTYPE]`` (``full`` takes a value first:
``full:VALUE:SHAPE[xTYPE]``): ``zeros:1024xf32``, ``ones:8x8xf16``, ``full:-inf:64xf16``,
``rand:64x64xbf16``, ``randn:256``, ``arange:1000xi32``.  TYPE is a Tile IR element type
(``f32``, ``bf16``, ``i8``, ``f8E4M3FN``, ...); left out, the parameter's own is used.  The
values are made in float64 (floats) or as integers and rounded to the element type as
`tileir.numerics` rounds (nearest even, the spec's saturation for fp8 types), so every
array holds values of that type exactly.  Random generators draw from one
``numpy.random.default_rng(seed)``, argument after argument, so
``rand:64xf32 randn:64xf32`` with seed 0 are
``rng = numpy.random.default_rng(0); rng.random(64).astype(numpy.float32)`` and then
``rng.standard_normal(64).astype(numpy.float32)``.

Errors are `ArgumentError`s holding one line, for the caller to put after the name of the
parameter.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..interp.memory import MAPPED_LIMIT
from ..numerics import ENCODINGS, from_float64, from_integers, int_range, numpy_dtype
from ..types import FloatType, IntegerType, Type, element_type


class ArgumentError(Exception):
    """An argument that cannot be passed: one line saying why."""


# A generator's maker: (random generator, shape, its value or None, element type) -> the
# numbers, as a float64 array (float element types) or an integer array.
Maker = Callable[[np.random.Generator, tuple[int, ...], Any, Type], np.ndarray]


def _random_integers(rng: np.random.Generator, shape: tuple[int, ...], t: Type) -> np.ndarray:
    """Integers drawn uniformly over every value of `t` read as signed (i1: 0 and 1)."""
    low, high = (0, 1) if t.width == 1 else int_range(t, True)
    return rng.integers(low, high, size=shape, endpoint=True)


def _randn(rng: np.random.Generator, shape: tuple[int, ...], value: Any, t: Type) -> np.ndarray:
    if not isinstance(t, FloatType):
        raise ArgumentError(f"randn makes normally distributed floats, not {t} (use rand "
                            "for random integers)")
    return rng.standard_normal(shape)


def _rand(rng: np.random.Generator, shape: tuple[int, ...], value: Any, t: Type) -> np.ndarray:
    return rng.random(shape) if isinstance(t, FloatType) else _random_integers(rng, shape, t)


@dataclass(frozen=True)
class Kind:
    """A row of the generator table: whether it takes a value, its maker, an example of
    its spelling and what it makes (the two shown by ``--help``)."""

    takes_value: bool
    make: Maker
    example: str
    help: str


#: The generators, by name.
GENERATORS: dict[str, Kind] = {
    "zeros": Kind(False, lambda rng, shape, v, t: np.zeros(shape, _number_dtype(t)),
                  "zeros:1024xf32", "0"),
    "ones": Kind(False, lambda rng, shape, v, t: np.ones(shape, _number_dtype(t)),
                 "ones:8x8xf16", "1"),
    "full": Kind(True, lambda rng, shape, v, t: np.full(shape, v, _number_dtype(t, v)),
                 "full:-inf:64xf32", "VALUE (a number, as a scalar argument is written)"),
    "arange": Kind(False, lambda rng, shape, v, t: np.arange(
        math.prod(shape), dtype=_number_dtype(t)).reshape(shape), "arange:1000xi32",
        "0, 1, 2, ... in row-major order"),
    "rand": Kind(False, _rand, "rand:64x64xbf16",
                 "uniform in [0, 1); integer types: uniform over all their values"),
    "randn": Kind(False, _randn, "randn:256", "standard normal (float types)"),
}


def generators_help() -> str:
    """The generator table as ``--help`` shows it: an example of each and what it makes."""
    width = max(len(kind.example) for kind in GENERATORS.values()) + 2
    return "\n".join(f"  {kind.example.ljust(width)}{kind.help}"
                     for kind in GENERATORS.values())


def _number_dtype(t: Type, value: Any = 0) -> Any:
    """The dtype a maker computes numbers in for element type `t` (`value`: what it fills)."""
    if isinstance(t, FloatType):
        return np.float64
    return np.uint64 if isinstance(value, int) and value >= 1 << 63 else np.int64


@dataclass(frozen=True)
class Generator:
    """A parsed generator: its kind, value (``full``), shape and element type (None: the
    parameter's)."""

    kind: str
    value: int | float | None
    shape: tuple[int, ...]
    element: Type | None


_SPEC = re.compile(r"(\d+(?:x\d+)*)(?:x([A-Za-z]\w*))?")
_KIND = re.compile(r"[A-Za-z_]\w*")


def generator_kind(text: str) -> str | None:
    """The generator `text` names (``rand`` in ``rand:8xf32``), or None when it is not
    spelled as one (a file name); an unknown kind is an error."""
    kind, colon, _ = text.partition(":")
    if not colon or not _KIND.fullmatch(kind):
        return None
    if kind not in GENERATORS:
        if os.path.exists(text):        # (a file whose name holds a colon)
            return None
        raise ArgumentError(f"unknown generator '{kind}' in '{text}' (generators: "
                            f"{', '.join(GENERATORS)})")
    return kind


def parse_generator(text: str) -> Generator | None:
    """The generator `text` spells, None when it names no generator (it is a file name)."""
    kind = generator_kind(text)
    if kind is None:
        return None
    rest = text.partition(":")[2]
    value = None
    if GENERATORS[kind].takes_value:
        written, colon, rest = rest.partition(":")
        if not colon:
            raise ArgumentError(f"'{text}': {kind} takes a value first, e.g. "
                                f"{kind}:1.5:64xf32")
        try:
            value = parse_number(written)
        except ArgumentError:
            raise ArgumentError(f"'{text}': '{written}' is not a number") from None
    match = _SPEC.fullmatch(rest)
    if match is None:
        raise ArgumentError(f"'{text}': expected SHAPE or SHAPExTYPE after '{kind}:', e.g. "
                            f"{kind}:{'1.5:' if value is not None else ''}64x64xf32")
    try:
        shape = tuple(int(n) for n in match.group(1).split("x"))
    except ValueError:      # (int() refuses numbers of more than 4,300 digits)
        raise ArgumentError(f"'{text[:40]}...': a dimension too long to read") from None
    element = None
    if match.group(2) is not None:
        try:
            element = element_type(match.group(2))
        except KeyError:
            raise ArgumentError(f"'{text}': '{match.group(2)}' is not a Tile IR element "
                                "type") from None
    return Generator(kind, value, shape, element)


def make(generator: Generator, t: Type, rng: np.random.Generator) -> np.ndarray:
    """The array `generator` makes for a parameter of element type `t`: values of `t`,
    held in `numerics.numpy_dtype(t)`."""
    if generator.element is not None and generator.element != t:
        raise ArgumentError(f"the generator makes {generator.element}, the parameter takes "
                            f"{t}")
    if not isinstance(t, (FloatType, IntegerType)) or t not in ENCODINGS:
        raise ArgumentError(f"no generator makes arrays of {t}")
    _fits_a_launch(generator.shape, numpy_dtype(t).itemsize)
    value = generator.value
    if isinstance(t, IntegerType) and value is not None:
        if isinstance(value, float):
            raise ArgumentError(f"{t} takes an integer, got {value!r}")
        _fits(value, t)
    elif isinstance(value, int):        # (an integer past float64's range: +-inf)
        value = _as_float(value)
    try:
        numbers = GENERATORS[generator.kind].make(rng, generator.shape, value, t)
    except MemoryError:
        raise ArgumentError(f"an array of shape {'x'.join(map(str, generator.shape))} "
                            "does not fit in memory") from None
    return to_element(numbers, t)


def _fits_a_launch(shape: tuple[int, ...], itemsize: int) -> None:
    """Refuse an array no launch can map (more than `memory.MAPPED_LIMIT` bytes), before
    any of it is made: a shape's size is counted in Python ints, where nothing wraps."""
    size = math.prod(shape) * itemsize
    if size > MAPPED_LIMIT:
        raise ArgumentError(f"an array of shape {'x'.join(map(str, shape))} holds {size} "
                            f"bytes; a launch maps at most {MAPPED_LIMIT}")


def _as_float(n: int) -> float:
    try:
        return float(n)
    except OverflowError:
        return math.copysign(math.inf, n)


def _fits(n: int, t: Type) -> None:
    """Check that integer `n` is a value of `t` read as signed or unsigned."""
    if not int_range(t, True)[0] <= n <= int_range(t, False)[1]:
        raise ArgumentError(f"{n} does not fit in {t}")


def to_element(numbers: np.ndarray, t: Type) -> np.ndarray:
    """Numbers (float64 for a float type, integers for an integer type) as values of `t`:
    floats rounded to nearest even; integers must fit `t` read as signed or unsigned (as a
    scalar argument must), and are kept as their low bits."""
    if isinstance(t, FloatType):
        return np.asarray(from_float64(np.asarray(numbers, np.float64), t),
                          numpy_dtype(t)).reshape(numbers.shape)
    if numbers.size:
        _fits(int(numbers.min()), t)
        _fits(int(numbers.max()), t)
    return from_integers(numbers, t).reshape(numbers.shape)


def parse_number(text: str) -> int | float:
    """A number as written: an integer (decimal, or 0x/0o/0b), a float (``1e-3``, ``inf``,
    ``-inf``, ``nan``) or a hexadecimal float (``0x1.8p1``)."""
    for read in (lambda s: int(s, 0), int, float, float.fromhex):
        try:
            return read(text.strip())
        except ValueError:
            pass
    raise ArgumentError(f"'{text}' is not a number")


def scalar(text: str, t: Type) -> int | float:
    """The number `text` for a rank-0 tile of element type `t`, checked as launch checks
    it: an integer type takes an integer that fits it read signed or unsigned, a float
    type any number (rounded to nearest even by launch)."""
    try:
        number = parse_number(text)
    except ArgumentError:
        raise ArgumentError(f"expected a number, got '{text}'") from None
    if isinstance(t, IntegerType):
        if not isinstance(number, int):
            raise ArgumentError(f"expected an integer for {t}, got '{text}'")
        _fits(number, t)
    elif not isinstance(t, FloatType):
        raise ArgumentError(f"tileir run cannot pass a value of {t}")
    return number


#: How a ``.npy`` file starts (`numpy.lib.format.MAGIC_PREFIX`), and an ``.npz`` archive.
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def load_npy(path: str) -> np.ndarray:
    """The array in the ``.npy`` file at `path` (no pickles).  Its header is read first:
    a file holding less data than its header's shape says is refused before anything is
    allocated, and so is one no launch could map (`MAPPED_LIMIT`)."""
    try:
        with open(path, "rb") as handle:
            return _read_npy(handle, path)
    except FileNotFoundError:
        raise ArgumentError(f"no such file '{path}' (an array argument is a .npy file or a "
                            "generator such as zeros:1024xf32)") from None
    except IsADirectoryError:
        raise ArgumentError(f"'{path}' is a directory, not a .npy file") from None
    except OSError as exc:
        raise ArgumentError(f"cannot read '{path}': {exc.strerror or exc}") from None
    except (ValueError, EOFError) as exc:
        raise ArgumentError(f"cannot read '{path}' as a .npy file: {exc}") from None
    except MemoryError:
        raise ArgumentError(f"cannot read '{path}': its array does not fit in memory") \
            from None


def _read_npy(handle: Any, path: str) -> np.ndarray:
    """`load_npy` on an open file."""
    fmt = np.lib.format
    magic = handle.read(len(_NPY_MAGIC))
    if magic.startswith(_ZIP_MAGIC):
        raise ArgumentError(f"'{path}' is an .npz archive; give a .npy file")
    if magic != _NPY_MAGIC:
        raise ArgumentError(f"'{path}' is not a .npy file (it does not start as one)")
    handle.seek(0)
    version = fmt.read_magic(handle)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"unknown .npy format version {version}")
    read_header = fmt.read_array_header_1_0 if version == (1, 0) else \
        fmt.read_array_header_2_0
    shape, _, dtype = read_header(handle)
    if dtype.hasobject:
        raise ArgumentError(f"'{path}' holds Python objects (a pickle), not numbers")
    _fits_a_launch(shape, dtype.itemsize)
    size = math.prod(shape) * dtype.itemsize
    try:
        left = os.fstat(handle.fileno()).st_size - handle.tell()
    except (OSError, ValueError):
        left = None
    if left is not None and os.path.isfile(path) and left < size:
        raise ArgumentError(f"'{path}' is cut short: its header says {size} bytes of "
                            f"data, the file holds {left}")
    handle.seek(0)
    return fmt.read_array(handle, allow_pickle=False)


def npy_readable(dtype: np.dtype) -> bool:
    """Whether a ``.npy`` header can describe `dtype` so that NumPy reads it back (NumPy's
    own types; not ml_dtypes' bfloat16, fp8, fp4 or int4, which NumPy saves as raw bytes,
    or for float8_e5m2 as a description it cannot read)."""
    try:
        return np.dtype(np.lib.format.dtype_to_descr(dtype)) == dtype
    except (TypeError, ValueError):
        return False


def as_saved(array: np.ndarray) -> np.ndarray:
    """`array` as it is written to a ``.npy`` file or ``.npz`` member: itself, or its raw
    bytes (a void dtype of its item size) when NumPy cannot describe its dtype."""
    if npy_readable(array.dtype):
        return array
    return array.view(np.dtype(f"V{array.dtype.itemsize}"))


def accepted(array: np.ndarray, t: Type, what: str) -> np.ndarray:
    """`array` as a buffer of element type `t`: its dtype must be one `t` accepts
    (`numerics.ENCODINGS`); an array of raw bytes (a void dtype, as NumPy saves ml_dtypes
    arrays such as bfloat16) of the item size of `t`'s dtype is read as that dtype when
    NumPy cannot save that dtype itself."""
    encoding = ENCODINGS.get(t)
    if encoding is None:
        raise ArgumentError(f"tileir run cannot pass buffers of {t}")
    if array.dtype in encoding.numpy_dtypes:
        return array
    own = encoding.numpy_dtype
    if array.dtype.kind == "V" and array.dtype.fields is None and \
            array.dtype.itemsize == own.itemsize and not npy_readable(own):
        return array.view(own)
    names = " or ".join(str(d) for d in encoding.numpy_dtypes)
    raise ArgumentError(f"expected an array of {names} for {t}, got {array.dtype} ({what})")
