"""Traces: the value of every op result of chosen tile blocks, in program order.

``launch(..., trace=...)`` runs the tile blocks a `TraceSpec` selects on a `TracingMachine`,
which records, after each op, its results (copies: later ops never change a recorded
value) with the op's location, its result types and, inside loops, the iteration; the
block arguments a loop body starts each iteration with, and the kernel's arguments, are
recorded too.  The result is a `Trace`: a sequence of `TraceEvent` a notebook can index,
filter and turn into NumPy arrays, and print as a compact table (`Trace.format`).

Tracing runs the tile blocks one at a time (the reference engine, whose results every
engine reproduces bit for bit), so it cannot change a result; a launch without a trace
pays nothing for it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence, overload

import numpy as np

from ..diagnostics import LaunchError, Location, error
from ..ir import Operation, Value, location_of
from ..types import TileType, Type
from .machine import Machine, Steps
from .plan import OpPlan
from .values import TensorView, TiledView, Token

#: The ops whose region runs once per iteration (their events carry the iteration).
LOOP_OPS = frozenset({"cuda_tile.for", "cuda_tile.loop"})
#: The tile block a trace records when its spec names none.
DEFAULT_BLOCK = (0, 0, 0)
#: A trace stops recording (the launch goes on) once its values hold this many bytes.
MAX_TRACE_BYTES = 256 << 20
#: What one event costs besides its tiles' bytes, counted toward `MAX_TRACE_BYTES`.
EVENT_BYTES = 256


class TraceSpecError(ValueError):
    """A trace spec that does not parse (the message says which item and why)."""


@dataclass(frozen=True)
class TraceSpec:
    """Which events a launch records: tile blocks (None: every block), and, when given,
    only ops of these names and at these source lines (`lines`: inclusive ranges
    ``(first, last)``, sorted and merged, so that a range of any length costs nothing)."""

    blocks: tuple[tuple[int, int, int], ...] | None = (DEFAULT_BLOCK,)
    ops: frozenset[str] = frozenset()
    lines: tuple[tuple[int, int], ...] = ()
    _block_set: frozenset[tuple[int, int, int]] | None = field(
        init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", _merged(self.lines))
        object.__setattr__(self, "_block_set",
                           None if self.blocks is None else frozenset(self.blocks))

    @classmethod
    def parse(cls, text: str) -> "TraceSpec":
        """A spec from its text: items separated by spaces or ``;``, each ``block=X,Y,Z``
        (``block=all``; several ``block=`` items trace several blocks), ``op=NAME[,NAME]``
        or ``line=N[,N|N-M]``.  An empty text is the default: block (0, 0, 0)."""
        blocks: list[tuple[int, int, int]] | None = []
        ops: set[str] = set()
        lines: list[tuple[int, int]] = []
        for item in re.split(r"[;\s]+", text.strip()):
            if not item:
                continue
            key, eq, value = item.partition("=")
            reader = _ITEM_READERS.get(key)
            if not eq or reader is None or not value:
                raise TraceSpecError(f"trace spec item {item!r}: expected block=X,Y,Z, "
                                     "block=all, op=NAME or line=N")
            try:
                read = reader(item, value)
            except TraceSpecError:
                raise
            except ValueError:      # (int() refuses numbers of more than 4,300 digits)
                raise TraceSpecError(f"trace spec item {item[:40]!r}...: a number too long "
                                     "to read") from None
            if key == "block":
                block = read
                blocks = None if block is None or blocks is None else [*blocks, block]
            elif key == "op":
                ops.update(read)
            else:
                lines.extend(read)
        return cls(DEFAULT_BLOCKS if blocks == [] else
                   None if blocks is None else tuple(dict.fromkeys(blocks)),
                   frozenset(ops), tuple(lines))

    def wants_block(self, block: tuple[int, int, int]) -> bool:
        """Whether tile block `block` is traced."""
        return self._block_set is None or block in self._block_set

    def wants_op(self, op: Operation, point: Location | None) -> bool:
        """Whether the events of `op` (at source point `point`) are recorded."""
        if self.ops and op.name not in self.ops and op.name.split(".", 1)[-1] not in self.ops:
            return False
        if not self.lines:
            return True
        if point is None:
            return False
        at = bisect_right(self.lines, (point.line, float("inf"))) - 1
        return at >= 0 and self.lines[at][0] <= point.line <= self.lines[at][1]


DEFAULT_BLOCKS = (DEFAULT_BLOCK,)


def _merged(ranges: Any) -> tuple[tuple[int, int], ...]:
    """Inclusive ranges ``(first, last)`` (a number N: ``(N, N)``) sorted, overlapping and
    adjacent ones merged."""
    pairs = ((r, r) if isinstance(r, int) else r for r in ranges)
    out: list[tuple[int, int]] = []
    for first, last in sorted((int(a), int(b)) for a, b in pairs):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return tuple(out)


def _read_block(item: str, value: str) -> tuple[int, int, int] | None:
    """``X[,Y[,Z]]`` as a tile block id (missing coordinates 0), or None for ``all``."""
    if value == "all":
        return None
    parts = value.split(",")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise TraceSpecError(f"trace spec item {item!r}: a block is 1 to 3 non-negative "
                             "integers separated by commas, or 'all'")
    coords = [int(p) for p in parts] + [0] * (3 - len(parts))
    return coords[0], coords[1], coords[2]


def _read_ops(item: str, value: str) -> set[str]:
    """Op names, with or without the ``cuda_tile.`` prefix."""
    names = value.split(",")
    if not all(re.fullmatch(r"[A-Za-z_][\w.$]*", n) for n in names):
        raise TraceSpecError(f"trace spec item {item!r}: expected op names such as "
                             "op=addf,mulf")
    return set(names)


def _read_lines(item: str, value: str) -> list[tuple[int, int]]:
    """Line numbers and ranges ``N-M``, as inclusive ranges (a number N is ``(N, N)``)."""
    lines: list[tuple[int, int]] = []
    for part in value.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if match is None or (match[2] is not None and int(match[2]) < int(match[1])):
            raise TraceSpecError(f"trace spec item {item!r}: expected line numbers or "
                                 "ranges such as line=12,20-24")
        first = int(match[1])
        lines.append((first, int(match[2]) if match[2] is not None else first))
    return lines


_ITEM_READERS: dict[str, Callable[[str, str], Any]] = {
    "block": _read_block, "op": _read_ops, "line": _read_lines}


def trace_spec(trace: Any) -> TraceSpec | None:
    """What ``launch(trace=...)`` was given, as a spec: None or False (no trace), True
    (the default block), a spec's text, or a `TraceSpec`."""
    if trace is None or trace is False:
        return None
    if trace is True:
        return TraceSpec()
    if isinstance(trace, TraceSpec):
        return trace
    if isinstance(trace, str):
        try:
            return TraceSpec.parse(trace)
        except TraceSpecError as exc:
            raise LaunchError(error(str(exc), None)) from None
    raise LaunchError(error(f"trace must be True, a spec such as 'block=1,0,0 op=addf', "
                               f"or a TraceSpec; got {type(trace).__name__}", None))


@dataclass(frozen=True)
class TraceEvent:
    """One recorded step of a tile block: an op's results (`kind` "result"), or the values
    a loop body or the kernel starts with (`kind` "arguments")."""

    index: int
    block: tuple[int, int, int]
    op: str
    location: Location | None
    iteration: tuple[int, ...]
    names: tuple[str, ...]
    types: tuple[Type, ...]
    values: tuple[Any, ...]
    kind: str = "result"
    #: The source variable the value was assigned to, where the producer's debug
    #: information (or source) says so.
    variable: str | None = None

    @property
    def name(self) -> str:
        """The first value's name (``%sum``)."""
        return self.names[0] if self.names else ""

    @property
    def value(self) -> Any:
        """The first value: a NumPy array for a tile."""
        return self.values[0] if self.values else None

    @property
    def type(self) -> Type | None:
        """The first value's type."""
        return self.types[0] if self.types else None

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The first value's tile shape (None when it is not a tile)."""
        t = self.type
        return tuple(t.shape) if isinstance(t, TileType) else None

    @property
    def element_type(self) -> Type | None:
        """The first value's element type (None when it is not a tile)."""
        t = self.type
        return t.element_type if isinstance(t, TileType) else None

    @property
    def line(self) -> int | None:
        """The source line of the op (None when it has no location)."""
        return self.location.line if self.location is not None else None

    def array(self, i: int = 0) -> np.ndarray:
        """Value `i` as a NumPy array (a tile's own array; a copy, safe to change)."""
        value = self.values[i]
        if not isinstance(value, np.ndarray):
            raise TypeError(f"value {i} of event {self.index} ({self.op}) is a "
                            f"{_kind_of(value)}, not a tile")
        return value.copy()


def _kind_of(value: Any) -> str:
    """What a non-tile run-time value is, in words."""
    return {TensorView: "tensor view", TiledView: "tiled view", Token: "token"}.get(
        type(value), type(value).__name__)


class Trace(Sequence[TraceEvent]):
    """The events of a traced launch in program order (block by block, in the order the
    blocks ran): index it, slice it, filter it, or name a value (``trace["sum"]``)."""

    def __init__(self, events: Sequence[TraceEvent] = (), spec: TraceSpec | None = None,
                 stopped_at: int | None = None) -> None:
        self.events: list[TraceEvent] = list(events)
        self.spec = spec if spec is not None else TraceSpec()
        #: The byte limit recording stopped at (its `TraceLog.limit`), None when the
        #: trace is complete.
        self.stopped_at = stopped_at

    @property
    def truncated(self) -> bool:
        """Whether recording stopped early, its values at their limit (`stopped_at`)."""
        return self.stopped_at is not None

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    @overload
    def __getitem__(self, key: int) -> TraceEvent: ...

    @overload
    def __getitem__(self, key: slice | str) -> "Trace": ...

    def __getitem__(self, key: Any) -> Any:
        """An event by position; a `Trace` of a slice, or of the events that set a value
        named `key` (an SSA name, with or without ``%``, or a source variable)."""
        if isinstance(key, str):
            return self.filter(name=key)
        if isinstance(key, slice):
            return Trace(self.events[key], self.spec, self.stopped_at)
        return self.events[key]

    def filter(self, *, op: str | None = None, line: int | None = None,
               block: Sequence[int] | None = None, name: str | None = None,
               iteration: Sequence[int] | None = None) -> "Trace":
        """The events that match every criterion given: op name (with or without the
        dialect prefix), source line, tile block, value name, or loop iteration (a prefix
        of the event's iterations, outermost first)."""
        wanted = tuple(block) + (0,) * (3 - len(block)) if block is not None else None

        def keep(e: TraceEvent) -> bool:
            """Whether `e` matches."""
            return ((op is None or e.op == op or e.op.split(".", 1)[-1] == op)
                    and (line is None or e.line == line)
                    and (wanted is None or e.block == wanted)
                    and (name is None or any(_named(e, i, name)
                                             for i in range(len(e.names))))
                    and (iteration is None
                         or e.iteration[:len(iteration)] == tuple(iteration)))
        return Trace([e for e in self.events if keep(e)], self.spec, self.stopped_at)

    @property
    def blocks(self) -> list[tuple[int, int, int]]:
        """The tile blocks with events, in the order they ran."""
        return list(dict.fromkeys(e.block for e in self.events))

    def arrays(self, name: str | None = None) -> list[np.ndarray]:
        """The tile values of the events (those that set `name`, when given), in order:
        a loop-carried value's value at every iteration, for example."""
        return [value.copy() for e in self.events for i, value in enumerate(e.values)
                if isinstance(value, np.ndarray) and (name is None or _named(e, i, name))]

    def format(self, full: bool = False, basename: bool = True) -> str:
        """A table, one row per value: event number, location, loop iteration, op, name,
        type and the value (rank 0 whole; larger tiles as min/max and their first
        elements, or, with `full`, every element on the lines below)."""
        from .trace_format import format_trace
        return format_trace(self, full, basename)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        blocks = ", ".join(str(b) for b in self.blocks[:4])
        more = ", ..." if len(self.blocks) > 4 else ""
        return f"<Trace: {len(self.events)} events of tile blocks {blocks}{more}>"


def _named(event: TraceEvent, i: int, name: str) -> bool:
    """Whether value `i` of `event` is called `name`: its SSA name (with or without
    ``%``; ``%r`` names every result of ``%r:2``, ``%r#1`` one), or, for the first value,
    the source variable it was assigned to."""
    bare = name.removeprefix("%")
    own = event.names[i].removeprefix("%")
    return own == bare or own.split("#")[0] == bare or (i == 0 and event.variable == name)


class TraceLog:
    """What the traced tile blocks of one launch record into: the events, and how many
    bytes their values hold (recording stops at `limit`; the launch goes on)."""

    def __init__(self, spec: TraceSpec, limit: int | None = None) -> None:
        self.spec = spec
        self.events: list[TraceEvent] = []
        self.bytes = 0
        #: The limit (None: `MAX_TRACE_BYTES`, read when the log is made).
        self.limit = MAX_TRACE_BYTES if limit is None else limit
        self.truncated = False

    def trace(self) -> Trace:
        """The events recorded so far."""
        return Trace(self.events, self.spec, self.limit if self.truncated else None)


class TracingMachine(Machine):
    """A `Machine` that records its tile block's events into a `TraceLog` (see the module
    docstring): the reference engine's machine, and the same results."""

    def __init__(self, *args: Any, log: TraceLog, names: Callable[[Value], str],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log = log
        self.spec = log.spec
        self.names = names
        self._loops: list[list[Any]] = []     # [loop op, iteration] of each running loop

    def run_function(self, function: Operation, args: Sequence[Any]) -> list[Any]:
        """Record the kernel's arguments, then run it."""
        block = function.regions[0].block
        self._note(function, "entry", block.arguments, args, "arguments")
        return super().run_function(function, args)

    def run_region(self, region: Any, args: Sequence[Any] = (), batched: bool = False
                   ) -> tuple[str, list[Any]]:
        """Run a region; a loop body's run starts the loop's next iteration (recorded with
        the values it starts with)."""
        parent = region.parent
        if not batched and parent is not None and self._loops \
                and self._loops[-1][0] is parent:
            self._loops[-1][1] += 1
            self._note(parent, parent.name, region.block.arguments, args, "arguments")
        return super().run_region(region, args, batched)

    def _execute(self, p: OpPlan, steps: Steps) -> None:
        """Run the op, then record its results."""
        op = p.op
        if op.name in LOOP_OPS:
            self._loops.append([op, -1])
            try:
                super()._execute(p, steps)
            finally:
                self._loops.pop()
        else:
            super()._execute(p, steps)
        if p.results:
            self._note(op, op.name, p.results, [self.env.get(r) for r in p.results],
                         "result")

    def _note(self, op: Operation, name: str, values: Sequence[Value],
                runtime: Sequence[Any], kind: str) -> None:
        """Append an event for `values` (taking `runtime`) of `op`, if the spec wants it
        (values inside a reduce's or scan's body, run for all lanes at once, are not
        recorded)."""
        log = self.log
        if self.batch_depth or not values or log.truncated:
            return
        point = location_of(op)
        if not self.spec.wants_op(op, point):
            return
        # (every event counts for its own bookkeeping too: a trace of views and tokens
        # over a huge grid holds no tile bytes, yet must stay bounded)
        log.bytes += EVENT_BYTES + sum(x.nbytes for x in runtime
                                       if isinstance(x, (np.ndarray, np.generic)))
        if log.bytes > log.limit:
            log.truncated = True
            return
        log.events.append(TraceEvent(
            len(log.events), tuple(self.block_id), name.removeprefix("cuda_tile."), point,
            tuple(i for _, i in self._loops), tuple(self.names(v) for v in values),
            tuple(v.type for v in values), tuple(_snapshot(x) for x in runtime), kind,
            _variable(op)))


def _snapshot(value: Any) -> Any:
    """A value as recorded: tiles copied (a trace never aliases the machine's arrays)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, np.generic):
        return np.asarray(value).copy()
    return value


def _variable(op: Operation) -> str | None:
    """The variable a ``loc("name"(...))`` location gives an op's value, if any."""
    from ..attributes import DILocAttr, NameLoc
    loc = op.location
    while isinstance(loc, DILocAttr):
        loc = loc.location
    return loc.name if isinstance(loc, NameLoc) else None


def value_namer(kernel: Operation, module: Any) -> Callable[[Value], str]:
    """How a trace names a kernel's values: as its text named them when the module was
    parsed from text, else as tileir prints them (``tileir show``)."""
    from ..syntax.printer import SSANames
    source = getattr(module, "source_names", None)
    printed = SSANames(kernel, False)

    def name(value: Value) -> str:
        """``%name`` of `value`."""
        given = source.get(value) if source is not None else None
        return "%" + given if given is not None else printed.use(value)
    return name


def with_variables(trace: Trace, variables: Callable[[TraceEvent], str | None]) -> Trace:
    """`trace` with each event's `variable` filled from `variables` where it has none."""
    return Trace([e if e.variable is not None else replace(e, variable=variables(e))
                  for e in trace.events], trace.spec, trace.stopped_at)


__all__ = ["DEFAULT_BLOCK", "LOOP_OPS", "MAX_TRACE_BYTES", "Trace", "TraceEvent", "TraceLog",
           "TraceSpec", "TraceSpecError", "TracingMachine", "trace_spec", "value_namer",
           "with_variables"]
