"""Launching a kernel: check the arguments, map buffers, run every tile block of the grid.

``launch(module, "kernel", grid, args)`` runs entry ``kernel`` once per tile block of a
1-, 2- or 3-D grid, each block on its own `Machine` over one shared `Memory`:

* a ``tile<ptr<E>>`` parameter takes a writable, C-contiguous NumPy array whose dtype
  encodes E (spec 5.2's table, `tileir.numerics.ENCODINGS`); the array is mapped (not
  copied), so the kernel's stores land in it.  A 4-bit E (one element per array item in
  ml_dtypes) is mapped as a packed copy, two to a byte, copied back into the array when
  the run ends;
* a rank-0 tile parameter takes a Python or NumPy scalar that its element type can hold
  exactly (integers may be given signed or unsigned); a float parameter takes any number,
  rounded to nearest even in one step (a Python int past the type's range gives ±inf);
* a larger tile parameter takes an array of its shape.

``global`` items are mapped once per launch.  `schedule` orders the tile blocks:
``sequential`` (x fastest, then y, then z), ``reverse``, or ``random`` (a permutation
drawn with `seed`): the spec does not order tile blocks, so a kernel whose result depends
on the order shows it under another schedule.

With checks on, a conflicting pair of accesses from two different tile blocks (same byte,
one a write) is reported as a race when the kernel has no atomic or non-weak memory
operation, since then nothing can order the two blocks.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import random as _random
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO

import numpy as np

from ..diagnostics import ExecutionError, LaunchError, TileIRError, error, note
from ..ir import Module, Operation
from ..numerics import (ENCODINGS, from_float64, from_integers, int_range,
                        numpy_dtype, pack, unpack)
from ..types import FloatType, IntegerType, PointerType, TileType
from ..enums import PointerAttribute
from ..ir import location_of
from .semantics.core import dense_values
from .semantics.floating_point import release_work
from .machine import Machine
from .memory import (Journal, Memory, MemoryFault, element_bits, host_address, root_bytes,
                     root_of)
from .plan import KernelPlan, plan_of
from .pointers import from_byte_address
from .races import BlockRaces
from .trace import Trace, TraceLog, TraceSpec, TracingMachine, trace_spec, value_namer

SCHEDULES = ("sequential", "reverse", "random")

#: The batched engine runs spans of tile blocks whose largest tile, over all their
#: blocks, holds about this many bytes as float64 (the type exact arithmetic computes in).
SPAN_BYTES = 8 << 20
#: The grid is cut into a span per thread (`launch(workers=...)`) only when its tiles, over
#: all its blocks, hold at least this many such bytes: starting threads costs more than a
#: smaller launch's whole run (a thread gains only while NumPy computes without the
#: interpreter lock), so a small launch runs on the caller's thread.
THREAD_MIN_BYTES = 64 << 10


def _fail(message: str, op: Operation | None) -> LaunchError:
    """A launch refused (bad arguments or options), located at `op` (the kernel) if any."""
    return LaunchError(error(message, location_of(op) if op is not None else None))


#: The largest grid extent: tile block ids are i32 values (spec: get_tile_block_id).
MAX_EXTENT = (1 << 31) - 1
#: The most tile blocks a ``random`` schedule shuffles (it lists them all first).
MAX_SHUFFLED = 1 << 24


def _is_integer(value: Any) -> bool:
    """Whether `value` is an integer (a bool is not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _grid(grid: Any, kernel: Operation) -> tuple[int, int, int]:
    """The grid as three positive extents: an integer, or a sequence of one to three."""
    dims = (grid,) if _is_integer(grid) else tuple(grid) \
        if isinstance(grid, (tuple, list)) else ()
    if not 1 <= len(dims) <= 3 or not all(_is_integer(d) and 1 <= d <= MAX_EXTENT
                                           for d in dims):
        raise _fail(f"grid must have 1 to 3 positive extents (integers of at most "
                    f"{MAX_EXTENT}: tile block ids are i32), got {grid!r}", kernel)
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def block_order(grid: tuple[int, int, int], schedule: str, seed: int | None
                ) -> Iterator[tuple[int, int, int]]:
    """Every tile block id of `grid`, in the order `schedule` runs them (made as they are
    run: a huge grid is never listed, except to shuffle it)."""
    gx, gy, gz = grid
    count = gx * gy * gz
    if schedule == "sequential":
        numbers: Iterable[int] = range(count)
    elif schedule == "reverse":
        numbers = range(count - 1, -1, -1)
    elif schedule == "random":
        if count > MAX_SHUFFLED:
            raise _fail(f"the random schedule shuffles at most {MAX_SHUFFLED} tile blocks; "
                        f"this grid has {count}", None)
        listed = list(range(count))
        _random.Random(seed).shuffle(listed)
        numbers = listed
    else:
        raise _fail(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}", None)
    return ((n % gx, n // gx % gy, n // (gx * gy)) for n in numbers)


def _check_options(schedule: Any, seed: Any, checks: Any, max_ops: Any, engine: Any,
                   workers: Any, on_error: Any, args: Any) -> None:
    """`launch`'s keyword options and argument list, each of the kind it must be."""
    if engine not in ENGINES:
        raise _fail(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}", None)
    if on_error not in ON_ERROR:
        raise _fail(f"unknown on_error {on_error!r}; use one of {', '.join(ON_ERROR)}", None)
    if schedule not in SCHEDULES:
        raise _fail(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}", None)
    if seed is not None and not _is_integer(seed):
        raise _fail(f"seed must be an integer or None, got {seed!r}", None)
    if not isinstance(checks, (bool, np.bool_)):
        raise _fail(f"checks must be True or False, got {checks!r}", None)
    for name, value in (("max_ops", max_ops), ("workers", workers)):
        if value is not None and not (_is_integer(value) and value >= 1):
            raise _fail(f"{name} must be a positive integer or None, got {value!r}", None)
    if not isinstance(args, (list, tuple)):
        raise _fail(f"args must be a list or tuple of the kernel's arguments, got "
                    f"{type(args).__name__}", None)


def checked_options(schedule: Any, seed: Any, checks: Any, max_ops: Any, engine: Any,
                    workers: Any, on_error: Any, args: Any, trace: Any,
                    progress: Any = None) -> TraceSpec | None:
    """`launch`'s keyword options and arguments checked (see `_check_options`); the
    trace's spec (None: no trace)."""
    _check_options(schedule, seed, checks, max_ops, engine, workers, on_error, args)
    if progress is not None and not callable(progress):
        raise _fail(f"progress must be a function of (blocks done, blocks in all) or None, "
                    f"got {type(progress).__name__}", None)
    spec = trace_spec(trace)
    if spec is not None and engine == "batched":
        raise _fail("a traced launch runs one tile block at a time: use engine 'auto' or "
                    "'blocks'", None)
    return spec


def _module_of(module: Any) -> Module:
    """The module `launch` was given: a `Module`, Tile IR text, bytecode bytes, or the path
    of a file holding either (a `str` without a newline or a brace names a file)."""
    from ..api import load, parse
    if isinstance(module, Module):
        return module
    if isinstance(module, str) and ("\n" in module or "{" in module):
        return parse(module, "<launch>")
    if isinstance(module, (bytes, bytearray)):
        from ..bytecode import from_bytecode, is_bytecode
        if is_bytecode(bytes(module)):
            return from_bytecode(bytes(module))
        try:
            return parse(bytes(module).decode("utf-8"), "<launch>")
        except UnicodeDecodeError as exc:
            raise _fail(f"the module bytes are neither Tile IR bytecode nor UTF-8 text "
                        f"(byte {exc.start})", None) from None
    if isinstance(module, (str, os.PathLike)):
        try:
            return load(module)
        except (OSError, ValueError) as exc:     # (ValueError: a NUL in the path)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise _fail(f"cannot read the module file '{os.fspath(module)}': {reason}",
                        None) from None
    raise _fail(f"module must be a Module, Tile IR text or bytecode, or a file path; got "
                f"{type(module).__name__}", None)


def _scalar(value: Any, t: Any, where: str, kernel: Operation) -> np.ndarray:
    """A rank-0 tile of element type `t` from a Python or NumPy scalar."""
    if type(value) is int and type(t) is IntegerType:    # (the common case, first)
        low, signed_high, high, dtype = _integer_limits(t)
        if low <= value <= signed_high and dtype.kind == "i":
            return np.array(value, dtype)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(t, IntegerType):
        if isinstance(value, (bool, np.bool_)) and t.width != 1:
            raise _fail(f"{where} expects an integer, got a bool", kernel)
        if not isinstance(value, (int, np.integer, bool, np.bool_)):
            raise _fail(f"{where} expects an integer, got {type(value).__name__}", kernel)
        low, signed_high, high, dtype = _integer_limits(t)
        number = int(value)
        if not low <= number <= high:
            raise _fail(f"{where} value {number} does not fit in {t}", kernel)
        if dtype.kind == "i" and number <= signed_high:
            return np.array(number, dtype)     # a value of t as it stands
        return from_integers(np.array(number), t)
    if isinstance(t, FloatType):
        if isinstance(value, np.generic) and value.dtype == numpy_dtype(t):
            return np.array(value)
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise _fail(f"{where} expects a number, got {type(value).__name__}", kernel)
        if isinstance(value, (int, np.integer)):
            return from_float64(np.array(_int_as_float64(int(value), t)), t)
        return from_float64(np.array(float(value)), t)
    raise _fail(f"{where} has a type the interpreter cannot take ({t})", kernel)


@functools.lru_cache(maxsize=None)
def _integer_limits(t: IntegerType) -> tuple[int, int, int, np.dtype]:
    """What `_scalar` reads of an integer type (once per type: launches pass many): its
    lowest signed value, highest signed value, highest unsigned value, and dtype."""
    low, signed_high = int_range(t, True)
    return low, signed_high, int_range(t, False)[1], numpy_dtype(t)


def _int_as_float64(n: int, t: FloatType) -> float:
    """A float64 that `from_float64` rounds to the same `t` value as exact integer `n`
    rounded to nearest even: `n` itself for f64 (±inf past its range), else `n` rounded to
    53 bits by round-to-odd, which makes the second rounding to a narrower type exact
    (no double-rounding error)."""
    sign = -1.0 if n < 0 else 1.0
    if numpy_dtype(t) == np.float64:
        try:
            return float(n)
        except OverflowError:
            return sign * math.inf
    magnitude = abs(n)
    shift = max(magnitude.bit_length() - 53, 0)
    kept = magnitude >> shift
    if magnitude & ((1 << shift) - 1):
        kept |= 1  # sticky: the dropped bits were not all zero
    try:
        return sign * math.ldexp(float(kept), shift)
    except OverflowError:  # past float64's range, so past every narrower type's too
        return sign * math.inf


def _map_packed(memory: Memory, array: np.ndarray, t: Any, where: str,
                write_back: list[Callable[[], None]]) -> int:
    """Map a buffer of 4-bit elements (one per array item) as packed memory, two to a byte
    (spec 5.2, low nibble first); the caller's array is updated from it after the run.
    Returns the byte address: callers turn it into a nibble-address pointer."""
    flat = array.reshape(-1)
    padded = np.concatenate([flat, np.zeros(flat.size % 2, flat.dtype)])
    packed = pack(padded, t).view(np.uint8).copy()

    def copy_back() -> None:
        """Unpack the buffer into the caller's array."""
        array.reshape(-1)[...] = unpack(packed, t)[:flat.size]
    write_back.append(copy_back)
    return memory.map(packed, where)


@dataclass(frozen=True)
class AddressTable:
    """A ``tile<ptr<i64>>`` argument pointing at a table of int64 words, a row per entry:
    the address of a buffer (mapped as a pointer argument's array is), then the row's
    other words.  cuTile passes a list of arrays so: each row is an array's address, its
    shape and its strides, and the kernel turns the address back into a pointer with
    ``int_to_ptr``."""

    rows: tuple[tuple[np.ndarray, tuple[int, ...]], ...]


def _buffer(value: Any, where: str, kernel: Operation) -> None:
    """Check that `value` can be mapped as a buffer the kernel may write."""
    if not isinstance(value, np.ndarray) or isinstance(value, np.ma.MaskedArray):
        raise _fail(f"{where} expects a NumPy array, got {type(value).__name__}", kernel)
    if not value.flags.c_contiguous:
        raise _fail(f"{where} must be a C-contiguous array", kernel)
    if not value.flags.writeable:
        raise _fail(f"{where} is a read-only array; the kernel's memory must be "
                    "writable (pass a writable copy, e.g. numpy.array(a))", kernel)


def _address_table(memory: Memory, table: AddressTable, t: Any, where: str,
                   kernel: Operation) -> np.ndarray:
    """Map every row's buffer, then the table of their addresses and words."""
    e = t.element_type
    if not (isinstance(e.pointee, IntegerType) and e.pointee.width == 64):
        raise _fail(f"{where} has type {t}: a table of addresses needs tile<ptr<i64>>",
                    kernel)
    if not table.rows or len({len(words) for _, words in table.rows}) != 1:
        raise _fail(f"{where}: a table of addresses needs rows of one length", kernel)
    words = []
    for i, (array, rest) in enumerate(table.rows):
        _buffer(array, f"{where}, row {i}", kernel)
        if array.dtype.name in ("int4", "uint4", "float4_e2m1fn"):
            raise _fail(f"{where}, row {i}: 4-bit buffers cannot be passed in a table",
                        kernel)
        words.append([memory.map(array, f"{where}, row {i}"), *(int(w) for w in rest)])
    return np.array(memory.map(np.array(words, np.int64), where), np.int64)


def _pointee_buffer(value: Any, pointee: Any, where: str, kernel: Operation) -> None:
    """Check that `value` can be mapped as the buffer of a pointer to `pointee`: an
    unmasked, C-contiguous, writable NumPy array of a dtype the element type takes."""
    if isinstance(value, np.ma.MaskedArray):
        raise _fail(f"{where} is a masked array; a buffer has no mask (pass its data, "
                    "e.g. a.filled(0))", kernel)
    if not isinstance(value, np.ndarray):
        raise _fail(f"{where} expects a NumPy array of {pointee}, got "
                    f"{type(value).__name__}", kernel)
    accepted = ENCODINGS[pointee].numpy_dtypes if pointee in ENCODINGS else ()
    if value.dtype not in accepted:
        names = ", ".join(str(d) for d in accepted)
        raise _fail(f"{where} expects an array of dtype {names} for {pointee}, got "
                    f"{value.dtype}", kernel)
    _buffer(value, where, kernel)


def _multicast(memory: Memory, value: Any, e: PointerType, where: str,
               kernel: Operation) -> np.ndarray:
    """A multicast pointer (13.5): a list of arrays, one replica of the object per device
    of its multicast group (one array: a group of one), all of one shape and dtype."""
    replicas = list(value) if isinstance(value, (list, tuple)) else [value]
    if not replicas:
        raise _fail(f"{where} is a multicast pointer: pass a list of arrays, one replica "
                    "per device (at least one)", kernel)
    if element_bits(e.pointee) == 4:
        raise _fail(f"{where}: 4-bit buffers cannot be multicast objects", kernel)
    for i, replica in enumerate(replicas):
        _pointee_buffer(replica, e.pointee, f"{where}, replica {i}", kernel)
        if replica.shape != replicas[0].shape or replica.dtype != replicas[0].dtype:
            raise _fail(f"{where}: replica {i} is {replica.dtype}{list(replica.shape)}, "
                        f"replica 0 {replicas[0].dtype}{list(replicas[0].shape)}; every "
                        "replica of a multicast object has its shape and dtype", kernel)
    try:
        return np.array(memory.map_multicast(replicas, where), np.int64)
    except ValueError as error:
        raise _fail(str(error), kernel) from None


def _argument(memory: Memory, value: Any, t: Any, where: str, kernel: Operation,
              write_back: list[Callable[[], None]], hosts: dict[int, int] | None = None
              ) -> Any:
    """The run-time value of one kernel argument (buffers are mapped into `memory`;
    `hosts`: the host addresses of buffer arguments, by id, where known)."""
    if not isinstance(t, TileType):
        raise _fail(f"{where} has type {t}, which launch cannot pass", kernel)
    e = t.element_type
    if isinstance(e, PointerType):
        if t.rank != 0:
            raise _fail(f"{where} is a tile of pointers; pass buffers as tile<ptr<E>>", kernel)
        if e.ptr_attr == PointerAttribute.MULTICAST:
            return _multicast(memory, value, e, where, kernel)
        if isinstance(value, AddressTable):
            return _address_table(memory, value, t, where, kernel)
        _pointee_buffer(value, e.pointee, where, kernel)
        if element_bits(e.pointee) == 4:
            return np.array(from_byte_address(
                _map_packed(memory, value, e.pointee, where, write_back), e.pointee), np.int64)
        return np.array(memory.map(value, where, hosts.get(id(value)) if hosts else None),
                        np.int64)
    if t.rank == 0:
        return _scalar(value, e, where, kernel)
    array = np.asarray(value)
    if array.shape != t.shape:
        raise _fail(f"{where} expects shape {list(t.shape)}, got {list(array.shape)}", kernel)
    if array.dtype not in ENCODINGS[e].numpy_dtypes:
        raise _fail(f"{where} expects dtype {numpy_dtype(e)}, got {array.dtype}", kernel)
    return array.astype(numpy_dtype(e))


def _map_aliased(memory: Memory, args: Sequence[Any], params: Sequence[Any],
                 kernel: Operation) -> dict[int, int]:
    """Map once, before the arguments, the byte range that buffer arguments sharing memory
    cover together, so `Memory.map` gives each its address inside it: aliased parameters
    then access the same addresses and the race checks see their conflicts.  Returns the
    host address of each buffer argument's first byte, by the array's id."""
    spans: list[tuple[int, int, int]] = []   # (first byte, end, buffer index)
    buffers: list[tuple[np.ndarray, str]] = []   # every buffer argument (tables' rows too)
    for i, (value, t) in enumerate(zip(args, params)):
        if not (isinstance(t, TileType) and t.rank == 0
                and isinstance(t.element_type, PointerType)):
            continue
        if isinstance(value, AddressTable):
            candidates = [(array, f"{i} (row {r})") for r, (array, _) in enumerate(value.rows)]
        elif element_bits(t.element_type.pointee) != 4:
            candidates = [(value, str(i))]
        else:
            candidates = []
        for array, name in candidates:
            if isinstance(array, np.ndarray) and array.flags.c_contiguous and array.nbytes:
                first = host_address(array)     # (C-contiguous: its first byte)
                spans.append((first, first + array.nbytes, len(buffers)))
                buffers.append((array, name))
    spans.sort()
    groups: list[list[tuple[int, int, int]]] = []
    for span in spans:   # overlapping ranges, merged in address order
        if groups and span[0] < max(end for _, end, _ in groups[-1]):
            groups[-1].append(span)
        else:
            groups.append([span])
    # (mapped in argument order, not in the order NumPy placed the arrays: the addresses
    # a launch sees, and so its diagnostics, must not depend on where the host put them)
    for group in sorted(groups, key=lambda g: min(i for _, _, i in g)):
        if len(group) < 2:
            continue
        lo, hi = group[0][0], max(end for _, end, _ in group)
        names = ", ".join(buffers[i][1] for _, _, i in sorted(group, key=lambda s: s[2]))
        roots = {id(root_of(buffers[i][0])): root_of(buffers[i][0]) for _, _, i in group}
        flat = root_bytes(next(iter(roots.values()))) if len(roots) == 1 else None
        start = host_address(flat) if flat is not None else 0
        if flat is None or not start <= lo <= hi <= start + flat.size:
            raise _fail(f"arguments {names} share memory but are not views of one NumPy "
                        "array; pass views of a single array", kernel)
        memory.map(flat[lo - start:hi - start], f"arguments {names} (aliased)")
    return {id(array): first for (first, _, i) in spans for array in (buffers[i][0],)}


def global_value(op: Operation) -> np.ndarray:
    """The initial contents of a ``global`` item as an array of its element type."""
    return np.array(dense_values(op.attr("value")))  # a writable copy: memory holds it


def _map_global(memory: Memory, op: Operation) -> int:
    """Map a ``global`` item's initial contents (packed for 4-bit types); the pointer
    ``get_global`` yields (for 4-bit types a nibble address, `tileir.interp.pointers`)."""
    value = global_value(op)
    t = op.attr("value").type.element_type
    if element_bits(t) == 4:
        return from_byte_address(_map_packed(memory, value, t, "@" + op.symbol, []), t)
    return memory.map(value, "@" + op.symbol)


class _CrossBlockRaces:
    """The reference engine's check of races between tile blocks: each block's accesses,
    once it has run, go to one `BlockRaces` (conflicts with the blocks before it)."""

    def __init__(self, memory: Memory, grain: int) -> None:
        self.grain = grain
        self.memory = memory
        self.races = BlockRaces(memory, self.grain)
        self.blocks: list[tuple[int, int, int]] = []

    def add(self, machine: Machine) -> None:
        """Report a conflict of `machine`'s accesses with earlier blocks, then record them."""
        me = len(self.blocks)
        self.blocks.append(machine.block_id)
        for access in machine.accesses:
            grains = np.unique(self.memory.dense(access.bytes) // self.grain)
            conflict = self.races.add(grains, np.full(grains.shape, me, np.int32),
                                      access.write)
            if conflict is not None:
                who = (f"tile block {self.blocks[conflict.other]}" if conflict.other >= 0
                       else "other tile blocks")
                raise machine.step(access.op).fail(
                    f"races with {who} on address {self.memory.address_of(conflict.address):#x}"
                    ": two tile blocks "
                    "access it, one writes, and nothing orders them")


#: The engines `launch` can use: the compiled one where llvmlite is installed, it
#: compiles the kernel and the launch has work enough to pay for compiling, else the
#: batched one where it applies, else one tile block at a time ("auto"); only the reference ("blocks"); only the batched one ("batched"); or
#: native code through LLVM ("compiled", `tileir.interp.compiled`: with llvmlite, for the
#: kernels it compiles; else, or when its checks stop it, the batched engine or blocks).
#: `Run.reason` says why the engine that ran is not the first choice.
ENGINES = ("auto", "blocks", "batched", "compiled")


@dataclass(frozen=True)
class Run:
    """What a launch did: the engine that ran the kernel and, when the batched engine did
    not, why; and the `Trace` it recorded, when asked for one."""

    engine: str
    reason: str | None = None
    trace: Trace | None = None


#: What `launch` does with the caller's buffers when a launch fails: put them back as they
#: were before it ("restore"), or leave them as the kernel wrote them ("keep", to debug).
ON_ERROR = ("restore", "keep")


def launch(module: Module | str, kernel_name: str | None, grid: int | Sequence[int],
           args: Sequence[Any] = (), *, schedule: str = "sequential", seed: int | None = None,
           checks: bool = True, stdout: TextIO | None = None, max_ops: int | None = None,
           engine: str = "auto", workers: int | None = None,
           on_error: str = "restore",
           progress: Callable[[int, int], None] | None = None,
           trace: bool | str | TraceSpec | None = None) -> Run:
    """Run entry `kernel_name` of `module` on every tile block of `grid` with `args`.

    `max_ops` bounds the ops one tile block may execute (None: no bound): tile blocks run
    one at a time here, so a block spinning on another block's progress never ends.

    `engine` picks how (see `ENGINES`); the returned `Run` says which engine ran.  Both
    give the same results; the batched engine runs all tile blocks at once, and when it
    meets undefined behaviour the kernel is rerun one block at a time from the memory as
    it was, so the diagnostic is the reference engine's.  It runs spans of tile blocks on
    `workers` threads (None: one per core this process may use).

    Buffers passed for pointer parameters are updated in place.  Undefined behaviour and
    bad arguments raise `ExecutionError` with a diagnostic naming the op and tile block.
    A launch is atomic: when it fails for any reason (undefined behaviour, a failed
    assert, an internal error, Ctrl-C), every caller buffer is put back bit for bit as it
    was before the launch; ``on_error="keep"`` leaves them as the kernel wrote them up to
    the failure instead (for debugging), and the error says so.

    `progress`, when given, is called with (tile blocks done, tile blocks in the grid)
    after each tile block the per-block engine runs (a progress display for long runs).

    `trace` records the value of every op result of chosen tile blocks (True: block
    (0, 0, 0); a spec's text such as ``"block=1,0,0 op=addf line=42"``; a `TraceSpec`),
    returned as ``Run.trace``; a traced launch runs one tile block at a time, and when it
    fails the error carries the events recorded up to the failure as its ``trace``
    attribute (a `LaunchError`, a launch refused before any tile block ran, carries none).
    """
    spec = checked_options(schedule, seed, checks, max_ops, engine, workers, on_error, args,
                           trace, progress)
    module = _module_of(module)
    kernel = entry_of(module, kernel_name)
    return launch_entry(module, kernel, grid, args, schedule=schedule, seed=seed,
                        checks=checks, stdout=stdout, max_ops=max_ops, engine=engine,
                        workers=workers, on_error=on_error, progress=progress, spec=spec)


def entry_of(module: Module, kernel_name: str | None) -> Operation:
    """Entry `kernel_name` of `module` (None: its only entry); `ExecutionError` naming the
    entries there are when there is no such entry, or several and no name."""
    if kernel_name is None:  # the module's only entry
        if len(module.entries) != 1:
            names = ", ".join(e.symbol for e in module.entries) or "none"
            raise _fail(f"the module has {len(module.entries)} entries ({names}): name the "
                        f"kernel to launch", None)
        kernel_name = module.entries[0].symbol
    kernel = module.lookup(kernel_name)
    if kernel is None or kernel.name != "cuda_tile.entry":
        names = ", ".join(e.symbol for e in module.entries) or "none"
        raise _fail(f"no entry named '{kernel_name}' in the module (entries: {names})", None)
    return kernel


def launch_entry(module: Module, kernel: Operation, grid: int | Sequence[int],
                 args: Sequence[Any], *, schedule: str, seed: int | None, checks: bool,
                 stdout: TextIO | None, max_ops: int | None, engine: str,
                 workers: int | None, on_error: str,
                 progress: Callable[[int, int], None] | None,
                 spec: TraceSpec | None) -> Run:
    """`launch` once the module is read, its entry `kernel` found and the options
    checked (`tileir.compile`'s kernels call it directly)."""
    kernel_name = kernel.symbol
    plan = plan_of(kernel)      # what the engines read from the kernel, read once
    dims = _grid(grid, kernel)
    recorder = _Recorder(spec, kernel, module, dims) if spec is not None else None
    params = plan.params
    if len(args) != len(params):
        raise _fail(f"entry '{kernel_name}' takes {len(params)} arguments, got {len(args)}",
                    kernel)
    memory = Memory()
    write_back: list[Callable[[], None]] = []
    try:
        hosts = _map_aliased(memory, args, params, kernel)
        values = [_argument(memory, a, t, f"argument {i} of '{kernel_name}'", kernel,
                            write_back, hosts) for i, (a, t) in enumerate(zip(args, params))]
        globals_ = {g.symbol: _map_global(memory, g) for g in module.globals}
    except MemoryFault as fault:
        raise _fail(str(fault), kernel) from None
    # What memory held before the launch, to put back when it fails (`Journal`).
    journal = Journal(memory) if on_error == "restore" else None
    if journal is not None:
        memory.before_write.append(journal.touch)
    try:
        run = _run(memory, plan, values, dims, checks, globals_, engine, max_ops, workers,
                   schedule, seed, stdout, journal, progress, recorder)
    except BaseException as exc:
        if recorder is not None and not isinstance(exc, LaunchError):
            exc.trace = recorder.trace()    # (what was recorded up to the failure)
        if journal is not None:
            journal.restore()
        else:
            for copy_back in write_back:    # (packed 4-bit buffers, as the kernel left them)
                copy_back()
        if isinstance(exc, Exception) and not isinstance(exc, TileIRError):
            # a bug outside any op (the race record, the schedule): a diagnostic, not a
            # traceback
            failure = ExecutionError(error(f"internal error: {type(exc).__name__}: {exc}",
                                           location_of(kernel)))
            failure = failure if journal is not None else _kept(failure)
            failure.trace = getattr(exc, "trace", None)
            raise failure from exc
        if journal is not None or not isinstance(exc, ExecutionError):
            raise                           # (Ctrl-C and TileIRErrors as they are)
        kept = _kept(exc)
        kept.trace = getattr(exc, "trace", None)
        raise kept from None
    finally:
        memory.before_write.clear()
    for copy_back in write_back:
        copy_back()
    return run if recorder is None else Run(run.engine, run.reason, recorder.trace())


class _Recorder:
    """The trace a launch records: its log, and how its values are named."""

    def __init__(self, spec: TraceSpec, kernel: Operation, module: Module,
                 dims: tuple[int, int, int]) -> None:
        for block in spec.blocks or ():
            if not all(0 <= b < d for b, d in zip(block, dims)):
                raise _fail(f"the trace names tile block {block}, outside the grid {dims}",
                            kernel)
        self.spec = spec
        self.log = TraceLog(spec)
        self.names = value_namer(kernel, module)

    def machine(self, block: tuple[int, int, int], **kwargs: Any) -> Machine:
        """The machine for tile block `block`: a recording one when it is traced."""
        if self.spec.wants_block(block):
            return TracingMachine(log=self.log, names=self.names, block_id=block, **kwargs)
        return Machine(block_id=block, **kwargs)

    def trace(self) -> Trace:
        """The events recorded so far."""
        return self.log.trace()


def _kept(exc: ExecutionError) -> ExecutionError:
    """`exc` with a note saying that the caller's buffers hold what the kernel wrote."""
    first, *rest = exc.diagnostics
    kept = note("on_error='keep': the argument buffers were left as the kernel wrote them "
                "up to the failure", first.location)
    new = type(exc)((error(first.message, first.location, (*first.notes, kept)), *rest))
    return new.with_traceback(exc.__traceback__)


def _run(memory: Memory, plan: KernelPlan, values: list[Any], dims: tuple[int, int, int],
         checks: bool, globals_: dict[str, int], engine: str, max_ops: int | None,
         workers: int | None, schedule: str, seed: int | None, stdout: TextIO | None,
         journal: Journal | None, progress: Callable[[int, int], None] | None = None,
         recorder: _Recorder | None = None) -> Run:
    """Run the kernel on the engine `launch` chose (its arguments mapped in `memory`)."""
    reason = None
    threads = default_workers() if workers is None else max(1, int(workers))
    if recorder is not None:
        reason = "tracing runs tile blocks one at a time" if engine != "blocks" else None
    elif engine == "compiled" or (engine == "auto" and jit_installed()):
        from .compiled import run_compiled
        outcome = run_compiled(memory, plan, values, dims, checks, max_ops, schedule, journal,
                               automatic=engine == "auto", workers=threads, stdout=stdout)
        if outcome.ran:
            return Run("compiled")
        # (auto says why not only where it tried: the launch had work enough)
        quiet = engine == "auto" and outcome.untried
        reason = None if quiet else f"compiled engine: {outcome.reason}"
        # (after a failed check memory is as it was: the batched engine runs the kernel,
        # and itself reruns one block at a time on undefined behaviour, so the diagnostic
        # is still the reference's; where the blocks' order decides the result, only the
        # reference engine gives it)
        if not outcome.ordered:
            batched = _batched(memory, plan, values, dims, checks, globals_, False, max_ops,
                               threads, journal)
            if batched is None:
                return Run("batched", reason)
            if engine == "auto":        # (one tile block at a time: say why not batched)
                reason = batched
    elif engine != "blocks":
        reason = _batched(memory, plan, values, dims, checks, globals_,
                          engine == "batched", max_ops, threads, journal)
        if reason is None:
            return Run("batched")
    # (a kernel whose blocks may synchronize has no race check between blocks)
    cross = _CrossBlockRaces(memory, plan.grain) if checks and not plan.orders_blocks \
        else None
    total = math.prod(dims)
    for done, block in enumerate(block_order(dims, schedule, seed), 1):
        if recorder is None:
            machine = Machine(memory, block_id=block, grid=dims, checks=checks,
                              globals=globals_, stdout=stdout, max_ops=max_ops,
                              kernel_plan=plan)
        else:
            machine = recorder.machine(block, memory=memory, grid=dims, checks=checks,
                                       globals=globals_, stdout=stdout, max_ops=max_ops,
                                       kernel_plan=plan)
        machine.run_function(plan.kernel, values)
        if cross is not None:
            cross.add(machine)
        if progress is not None:
            progress(done, total)
    return Run("blocks", reason)


@functools.lru_cache(maxsize=None)
def jit_installed() -> bool:
    """Whether llvmlite, which the compiled engine needs, can be imported here."""
    return importlib.util.find_spec("llvmlite") is not None


def _side_by_side(run: Callable[..., None], cut: list[Any], workers: int) -> None:
    """Run every span on `workers` threads (NumPy and BLAS release the interpreter lock
    while they compute); when one fails, the others stop at their next op, and the first
    failure in grid order is raised."""
    from .batch import Stopped
    stop = threading.Event()

    def guarded(span: Any) -> None:
        """Run `span` unless another has failed; on failure, stop the others."""
        if stop.is_set():
            return
        try:
            run(span, stop)
        except BaseException:
            stop.set()
            raise
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(guarded, span) for span in cut]
        wait(futures)
    except BaseException:   # (Ctrl-C): no span may write after the caller restores memory
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    failures = [f.exception() for f in futures if f.exception() is not None]
    real = [e for e in failures if not isinstance(e, Stopped)]
    if real or failures:
        raise (real or failures)[0]


def default_workers() -> int:
    """The cores this process may run on (the batched engine's threads)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not Linux
        return max(1, os.cpu_count() or 1)


def batch_analysis(kernel_plan: KernelPlan) -> Any:
    """The batched engine's analysis of a kernel (`batch.analyse`), made once and kept
    with its plan (a plan made again after an edit is analysed again)."""
    if kernel_plan.batch is None:
        from .batch import analyse
        kernel_plan.batch = analyse(kernel_plan.kernel)
    return kernel_plan.batch


def _batched(memory: Memory, kernel_plan: KernelPlan, values: list[Any],
             dims: tuple[int, int, int], checks: bool, globals_: dict[str, int],
             required: bool, max_ops: int | None, workers: int,
             launch_journal: Journal | None) -> str | None:
    """Run the kernel on the batched engine; None when it ran, else why it did not (the
    caller then runs it one tile block at a time, from memory as it was: the launch's
    journal, `launch_journal`, when it keeps one, else one of the engine's own)."""
    from .batch import BatchMachine, BlockFootprints, InternalError, UndefinedBehaviour, spans
    from .batch.footprints import BLOCK_BITS
    kernel = kernel_plan.kernel
    plan = batch_analysis(kernel_plan)
    reason = plan.reason
    if reason is None and checks and math.prod(dims) >= 1 << BLOCK_BITS:
        reason = f"2**{BLOCK_BITS} tile blocks or more with checks on (the race checks " \
                 f"number blocks in {BLOCK_BITS} bits)"
    if reason is None and max_ops is not None:
        reason = "max_ops bounds tile blocks run one at a time"
    if reason is not None:
        if required:
            raise _fail(f"the batched engine cannot run this kernel: {reason}", kernel)
        return reason
    # What memory held, to rerun from when the batched run stops on an error (undefined
    # behaviour, or a failed assert, which stops the kernel whatever the checks say).
    blocks = math.prod(dims)
    # The order of tile blocks cannot change the result of a kernel the batched engine
    # runs (no atomics, and two blocks touching one address is a race, reported; with
    # checks off such a meeting hands the kernel to the reference engine, whose schedule
    # order decides): run them in grid order, which lets views read whole windows of
    # memory (`batch.ops`), a span of blocks at a time so that temporaries stay small.
    # (Past 2**BLOCK_BITS blocks with checks off no record is kept.)
    races = BlockFootprints(memory, plan.grain) \
        if checks or blocks < 1 << BLOCK_BITS else None
    journal = launch_journal
    if journal is None and (checks or kernel_plan.asserts or races is not None):
        journal = Journal(memory)
        memory.before_write.append(journal.touch)
    limit = max(1, SPAN_BYTES // plan.tile_bytes)
    if workers > 1 and blocks * plan.tile_bytes >= THREAD_MIN_BYTES:   # a span per worker
        limit = min(limit, -(-blocks // workers))
    cut = spans(dims, limit)

    def run(span: Any, stop: threading.Event | None = None) -> None:
        """Run one span of tile blocks."""
        BatchMachine(memory, span, plan, grid=dims, checks=checks, globals=globals_,
                     races=races, stop=stop, kernel_plan=kernel_plan
                     ).run_function(kernel, values)
    try:
        if workers > 1 and len(cut) > 1:
            _side_by_side(run, cut, workers)
        else:
            for span in cut:
                run(span)
    except UndefinedBehaviour as exc:
        if journal is None:
            raise
        journal.restore()
        if isinstance(exc, InternalError):
            return f"the batched engine failed ({exc.diagnostics[0].message}); rerun one " \
                "tile block at a time"
        if not checks:
            return "tile blocks meet on one address, one writing: with checks off their " \
                "order decides the result; rerun one tile block at a time"
        return "undefined behaviour found; rerun one tile block at a time to report it"
    finally:
        if journal is not None and journal is not launch_journal:
            memory.before_write.remove(journal.touch)
        release_work()
    return None


__all__ = ["AddressTable", "ENGINES", "Run", "SCHEDULES", "Trace", "TraceSpec", "block_order",
           "global_value", "launch"]
