"""Random kernels of racing (or not) memory accesses, run on engine="blocks" and "compiled".

Usage: python tools/race_campaign.py --kernels N --seed S [--verbose] [--show SEED]

The compiled engine runs a kernel that writes memory only where its race proof
(`interp/compiled/races.py`), its index log or its pointer address log
(`interp/compiled/pointer_races.py`) shows that the result is the reference's: no race
the reference would report with checks on, and no order of tile blocks the schedule
would decide with checks off. Those proofs are where a wrong "yes" gives other bytes
silently, so this campaign aims at them (tools/compiled_campaign.py aims at the ops).

Each seed gives one kernel of one of two families, on one or two buffers (f32 or i32)
that may be views of one NumPy array at offsets (aliased parameters):

- views: `load_view_tko`, `store_view_tko`, `atomic_red_view_tko` through partition
  views of 16 and 8 elements, at a tile index that is a constant, the block id, a value
  computed from it, or a loop counter;
- pointers: gathers `load_ptr_tko`, scatters `store_ptr_tko` and `atomic_rmw_tko`
  through tiles of pointers (each block's own tile, a gather by an index buffer, one tile
  every block shares, one element every lane shares, a loop counter's tile), masked or not.

Tokens flow through `join_tokens`, `if` (on the block id or a flag argument) and `for`.
Grids of 1, 2 or 4 blocks. Each kernel is launched on both engines, on fresh copies of
the same inputs, under six settings (checks on and off, each with the sequential, reverse
and random seed 3 schedules). A finding is different bytes in any buffer, a different
error (first line), an error on one side only, or a launch raising anything but a
TileIRError. The table counts, per setting, the launches the compiled engine really ran
(`Run.engine == "compiled"`), so it shows coverage and not only agreement.
Exit status 1 when there are findings.
"""

from __future__ import annotations

import collections
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

import tileir

sys.path.insert(0, str(Path(__file__).resolve().parent))   # (loaded by path from tests too)
from campaigns import (Outcome, command_line, first_difference, launch_outcome,  # noqa: E402
                       run_main, short_reason)


@dataclass(frozen=True)
class Setting:
    """One way of launching: checks on or off, a schedule and its seed."""
    checks: bool
    schedule: str
    seed: int | None = None

    @property
    def label(self) -> str:
        """`checks on, random 3`."""
        seed = "" if self.seed is None else f" {self.seed}"
        return f"checks {'on' if self.checks else 'off'}, {self.schedule}{seed}"

    def options(self) -> dict[str, Any]:
        """The keyword arguments of `tileir.launch` for this setting."""
        return {"checks": self.checks, "schedule": self.schedule, "seed": self.seed}


SETTINGS = tuple(Setting(checks, schedule, seed) for checks in (True, False)
                 for schedule, seed in (("sequential", None), ("reverse", None),
                                        ("random", 3)))
GRIDS = (1, 2, 4)
NUMPY = {"f32": np.float32, "i32": np.int32}
#: Reduction modes drawn for `atomic_red_view_tko` and `atomic_rmw_tko`, by element type
#: (repeats weight the draw: mostly one commuting mode, sometimes a mix).
VIEW_ATOMICS = {"f32": ("addf",), "i32": ("add", "add", "add", "max", "or", "xor", "umin")}
POINTER_ATOMICS = {"f32": ("addf", "addf", "xchg"), "i32": ("add", "add", "max", "xchg", "or")}
#: Where the second data parameter starts in the first one's array (None: an array of its
#: own), per family: the same start, one tile on, part of a tile on.
VIEW_ALIASES = (None, None, 0, 16, 8)
POINTER_ALIASES = (None, None, 0, 16, 5)


def splat(elem: str, value: int) -> str:
    """The constant literal of `value` as an `elem`."""
    return f"{value}.0" if elem.startswith("f") else str(value)


@dataclass
class Scope:
    """What a statement may use: the tokens, the values by tile size, the loop counters
    and the extra tiles of pointers made inside loops."""
    tokens: list[str]
    values: dict[int, list[str]]
    counters: list[str] = field(default_factory=list)
    pointers: list[str] = field(default_factory=list)

    def inner(self) -> Scope:
        """A copy for a nested region: what it adds is not seen after the region."""
        return Scope(list(self.tokens), {size: list(names) for size, names in
                                         self.values.items()},
                     list(self.counters), list(self.pointers))


class Writer:
    """Writes a random kernel body: memory accesses (a family's own) mixed with
    `join_tokens`, `if` and `for` statements that carry tokens."""

    #: (weight, method) of the statements around the accesses.
    CONTROL = ((0.10, "join"), (0.10, "branch"), (0.10, "loop"))
    #: (weight, method) of the family's accesses.
    ACCESSES: tuple[tuple[float, str], ...] = ()

    def __init__(self, rng: random.Random, elem: str, atomics: bool) -> None:
        self.rng = rng
        self.elem = elem
        self.atomics = atomics
        self.count = 0
        #: a tidy kernel mostly chains each access on the newest token and reaches its
        #: block's own tile: fewer races, so more launches the compiled engine may run
        self.tidy = rng.random() < 0.5

    def token(self, scope: Scope) -> str:
        """A token to order an op after: the newest one (tidy), or any."""
        if self.tidy and self.rng.random() < 0.85:
            return scope.tokens[-1]
        return self.rng.choice(scope.tokens)

    def own(self, choices: list[str], own: str) -> str:
        """`own` (the block's own tile) for most picks of a tidy kernel, else a choice."""
        return own if self.tidy and self.rng.random() < 0.75 else self.rng.choice(choices)

    def fresh(self, prefix: str) -> str:
        """A new SSA name."""
        self.count += 1
        return f"%{prefix}{self.count}"

    def statements(self, scope: Scope, depth: int, indent: str, count: int) -> list[str]:
        """`count` random statements at nesting `depth`."""
        table = [(w, m) for w, m in self.ACCESSES if m != "atomic" or self.atomics]
        table += [(w, m) for w, m in self.CONTROL if m == "join" or depth < 2]
        weights, methods = zip(*table)
        lines: list[str] = []
        for _ in range(count):
            method = self.rng.choices(methods, weights)[0]
            lines += getattr(self, method)(scope, depth, indent)
        return lines

    def join(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`join_tokens` of two tokens in scope."""
        result = self.fresh("t")
        first, second = self.token(scope), self.rng.choice(scope.tokens)
        scope.tokens.append(result)
        return [f"{indent}{result} = join_tokens {first}, {second} : token"]

    def branch(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """An `if` on the block id or the flag argument, yielding a token per region."""
        result = self.fresh("t")
        lines = [f"{indent}{result} = if {self.rng.choice(['%first', '%flag'])} -> (token) {{"]
        for region in ("then", "else"):
            inner = scope.inner()
            if self.rng.random() < 0.3:
                made = self.fresh("t")
                lines.append(f"{indent}  {made} = make_token : token")
                inner.tokens.append(made)
            lines += self.statements(inner, depth + 1, indent + "  ", self.rng.randint(0, 3))
            lines.append(f"{indent}  yield {self.token(inner)} : token")
            if region == "then":
                lines.append(f"{indent}}} else {{")
        lines.append(f"{indent}}}")
        scope.tokens.append(result)
        return lines

    def loop(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """A `for` of two iterations carrying a token; its counter may index accesses."""
        result, carried, counter = self.fresh("t"), self.fresh("it"), self.fresh("i")
        lines = [f"{indent}{result} = for {counter} in (%c0 to %c2, step %c1) : tile<i32> "
                 f"iter_values({carried} = {self.token(scope)}) -> (token) {{"]
        inner = scope.inner()
        inner.tokens.append(carried)
        inner.counters.append(counter)
        lines += self.loop_prelude(inner, counter, indent + "  ")
        lines += self.statements(inner, depth + 1, indent + "  ", self.rng.randint(1, 3))
        lines.append(f"{indent}  continue {self.token(inner)} : token")
        lines.append(f"{indent}}}")
        scope.tokens.append(result)
        return lines

    def loop_prelude(self, scope: Scope, counter: str, indent: str) -> list[str]:
        """Lines a family puts first in a loop body (none by default)."""
        return []


#: The view family's partition views: name, the parameter's tensor view, tile size.
VIEWS = (("%pv16", "%ptv", 16), ("%pv8", "%ptv", 8), ("%qv16", "%qtv", 16))


class ViewWriter(Writer):
    """Loads, stores and atomic reductions through partition views."""

    ACCESSES = ((0.32, "load"), (0.28, "store"), (0.10, "atomic"))

    def __init__(self, rng: random.Random, elem: str, atomics: bool, views: list[int]
                 ) -> None:
        super().__init__(rng, elem, atomics)
        self.views = [VIEWS[k] for k in views]

    def view_type(self, size: int) -> str:
        """The type of a partition view of `size`-element tiles."""
        return f"partition_view<tile=({size}), tensor_view<?x{self.elem}, strides=[1]>>"

    def index(self, scope: Scope) -> str:
        """A tile index: a constant, the block id, a value computed from it, a counter."""
        return self.own(["%c0", "%c1", "%c2", "%c3", "%bx", "%bx", "%bx", "%next", "%half"]
                        + scope.counters, "%bx")

    def value(self, scope: Scope, size: int) -> str:
        """A value of `size` elements to store: one loaded, or the constant."""
        return self.rng.choice(scope.values.get(size) or [f"%k{size}"])

    def load(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`load_view_tko` of a tile."""
        name, _, size = self.rng.choice(self.views)
        value, token = self.fresh("x"), self.fresh("t")
        line = (f"{indent}{value}, {token} = load_view_tko weak {name}[{self.index(scope)}] "
                f"token = {self.token(scope)} : {self.view_type(size)}, "
                f"tile<i32> -> tile<{size}x{self.elem}>, token")
        scope.values.setdefault(size, []).append(value)
        scope.tokens.append(token)
        return [line]

    def store(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`store_view_tko` of a tile."""
        name, _, size = self.rng.choice(self.views)
        token = self.fresh("t")
        line = (f"{indent}{token} = store_view_tko weak {self.value(scope, size)}, "
                f"{name}[{self.index(scope)}] token = {self.token(scope)} : "
                f"tile<{size}x{self.elem}>, {self.view_type(size)}, tile<i32> -> token")
        scope.tokens.append(token)
        return [line]

    def atomic(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`atomic_red_view_tko` of a tile."""
        name, _, size = self.rng.choice(self.views)
        token = self.fresh("t")
        mode = self.rng.choice(VIEW_ATOMICS[self.elem])
        line = (f"{indent}{token} = atomic_red_view_tko relaxed device "
                f"{name}[{self.index(scope)}], {mode}, {self.value(scope, size)} "
                f"token = {self.token(scope)} : tile<{size}x{self.elem}>, "
                f"{self.view_type(size)}, tile<i32> -> token")
        scope.tokens.append(token)
        return [line]

    def prelude(self) -> list[str]:
        """The views and the constants the body uses."""
        elem = self.elem
        tensor = f"tensor_view<?x{elem}, strides=[1]>"
        lines = [f"%k16 = constant <{elem}: {splat(elem, 3)}> : tile<16x{elem}>",
                 f"%k8 = constant <{elem}: {splat(elem, 5)}> : tile<8x{elem}>",
                 "%bx1 = addi %bx, %c1 : tile<i32>",
                 "%next = remi %bx1, %c3 signed : tile<i32>",
                 "%half = divi %bx, %c2 signed : tile<i32>"]
        for parameter, tensor_name in (("%p", "%ptv"), ("%q", "%qtv")):
            if any(v[1] == tensor_name for v in self.views):
                lines.append(f"{tensor_name} = make_tensor_view {parameter}, shape = [%n], "
                             f"strides = [1] : tile<i32> -> {tensor}")
        for name, tensor_name, size in self.views:
            lines.append(f"{name} = make_partition_view {tensor_name} : "
                         f"{self.view_type(size)}")
        return lines


#: The pointer family's tiles of pointers, made in the prelude.
POINTER_TILES = ("%pa", "%pj", "%pl", "%pc", "%qa", "%qj", "%ql")
MASKS = ("", "", "%live", "%odd")


class PointerWriter(Writer):
    """Gathers, scatters and atomic read-modify-writes through tiles of 16 pointers."""

    ACCESSES = ((0.30, "load"), (0.25, "store"), (0.17, "atomic"))

    def operands(self, scope: Scope) -> tuple[str, str, str, str]:
        """A tile of pointers, its type, a mask operand (or none) and its type."""
        pointer = self.own(list(POINTER_TILES) + scope.pointers,
                           self.rng.choice(("%pa", "%qa")))
        mask = self.rng.choice(MASKS)
        return (pointer, f"tile<16xptr<{self.elem}>>", f", {mask}" if mask else "",
                ", tile<16xi1>" if mask else "")

    def load(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`load_ptr_tko`, a gather."""
        pointer, pointer_type, mask, mask_type = self.operands(scope)
        value, token = self.fresh("x"), self.fresh("t")
        scope.values[16].append(value)
        line = (f"{indent}{value}, {token} = load_ptr_tko weak {pointer}{mask} token = "
                f"{self.token(scope)} : {pointer_type}{mask_type} -> "
                f"tile<16x{self.elem}>, token")
        scope.tokens.append(token)
        return [line]

    def store(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`store_ptr_tko`, a scatter."""
        pointer, pointer_type, mask, mask_type = self.operands(scope)
        token = self.fresh("t")
        line = (f"{indent}{token} = store_ptr_tko weak {pointer}, "
                f"{self.rng.choice(scope.values[16])}{mask} token = "
                f"{self.token(scope)} : {pointer_type}, "
                f"tile<16x{self.elem}>{mask_type} -> token")
        scope.tokens.append(token)
        return [line]

    def atomic(self, scope: Scope, depth: int, indent: str) -> list[str]:
        """`atomic_rmw_tko`; its old values are sometimes used."""
        pointer, pointer_type, mask, mask_type = self.operands(scope)
        old, token = self.fresh("o"), self.fresh("t")
        mode = self.rng.choice(POINTER_ATOMICS[self.elem])
        line = (f"{indent}{old}, {token} = atomic_rmw_tko relaxed device {pointer}, {mode}, "
                f"{self.rng.choice(scope.values[16])}{mask} token = "
                f"{self.token(scope)} : {pointer_type}, "
                f"tile<16x{self.elem}>{mask_type} -> tile<16x{self.elem}>, token")
        scope.tokens.append(token)
        if self.rng.random() < 0.4:
            scope.values[16].append(old)
        return [line]

    def loop_prelude(self, scope: Scope, counter: str, indent: str) -> list[str]:
        """Sometimes a tile of pointers to the counter's tile of the first buffer."""
        if self.rng.random() < 0.5:
            return []
        start, one, many, pointer = (self.fresh("s") for _ in range(4))
        scope.pointers.append(pointer)
        return [f"{indent}{start} = muli {counter}, %c16 : tile<i32>",
                f"{indent}{one} = reshape {start} : tile<i32> -> tile<1xi32>",
                f"{indent}{many} = broadcast {one} : tile<1xi32> -> tile<16xi32>",
                f"{indent}{pointer} = offset %pl, {many} : tile<16xptr<{self.elem}>>, "
                f"tile<16xi32> -> tile<16xptr<{self.elem}>>"]

    def prelude(self) -> list[str]:
        """The tiles of pointers, the masks and the first values."""
        ptr = f"ptr<{self.elem}>"
        lines = ["%c16 = constant <i32: 16> : tile<i32>",
                 "%base = muli %bx, %c16 : tile<i32>",
                 "%base1 = reshape %base : tile<i32> -> tile<1xi32>",
                 "%base16 = broadcast %base1 : tile<1xi32> -> tile<16xi32>",
                 "%lane = iota : tile<16xi32>",
                 "%at = addi %base16, %lane : tile<16xi32>",
                 "%n1 = reshape %n : tile<i32> -> tile<1xi32>",
                 "%n16 = broadcast %n1 : tile<1xi32> -> tile<16xi32>",
                 "%live = cmpi less_than %at, %n16, signed : tile<16xi32> -> tile<16xi1>",
                 "%two = constant <i32: 2> : tile<16xi32>",
                 "%zero = constant <i32: 0> : tile<16xi32>",
                 "%rem = remi %lane, %two signed : tile<16xi32>",
                 "%odd = cmpi not_equal %rem, %zero, signed : tile<16xi32> -> tile<16xi1>",
                 "%g1 = reshape %g : tile<ptr<i32>> -> tile<1xptr<i32>>",
                 "%g16 = broadcast %g1 : tile<1xptr<i32>> -> tile<16xptr<i32>>",
                 "%gp = offset %g16, %at : tile<16xptr<i32>>, tile<16xi32> -> "
                 "tile<16xptr<i32>>",
                 "%j, %tj = load_ptr_tko weak %gp : tile<16xptr<i32>> -> tile<16xi32>, token"]
        for parameter in ("%p", "%q"):
            name = parameter[1]
            lines += [f"%{name}1 = reshape {parameter} : tile<{ptr}> -> tile<1x{ptr}>",
                      f"%{name}16 = broadcast %{name}1 : tile<1x{ptr}> -> tile<16x{ptr}>"]
            offsets = (("a", "%at"), ("j", "%j"), ("l", "%lane"), ("c", "%zero"))
            for suffix, offset in offsets:
                if f"%{name}{suffix}" in POINTER_TILES:
                    lines.append(f"%{name}{suffix} = offset %{name}16, {offset} : "
                                 f"tile<16x{ptr}>, tile<16xi32> -> tile<16x{ptr}>")
        if self.elem == "f32":
            lines += [f"%{name}f = itof %{name} signed : tile<16xi32> -> tile<16xf32>"
                      for name in ("at", "j", "lane")]
        return lines

    def first_values(self) -> list[str]:
        """The values a store may write before anything is loaded."""
        suffix = "f" if self.elem == "f32" else ""
        return [f"%at{suffix}", f"%j{suffix}", f"%lane{suffix}"]


@dataclass
class Case:
    """One random kernel and its launch: the text, the grid, the arrays the pointer
    parameters are views of, each parameter's (array, offset, length), the scalars."""
    text: str
    family: str
    grid: int
    arrays: list[np.ndarray]
    params: list[tuple[int, int, int]]
    scalars: list[Any]

    def fresh_args(self) -> tuple[list[Any], list[np.ndarray]]:
        """The launch's arguments on fresh copies of the arrays, and those copies."""
        arrays = [a.copy() for a in self.arrays]
        views = [arrays[k][start:start + length] for k, start, length in self.params]
        return views + list(self.scalars), arrays


HEADER = """cuda_tile.module @m {{
  entry @k({params}, %n: tile<i32>, %flag: tile<i1>) {{
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %first = cmpi equal %bx, %c0, signed : tile<i32> -> tile<i1>
"""


def kernel_text(params: str, prelude: list[str], body: list[str]) -> str:
    """The module text of one entry kernel."""
    return (HEADER.format(params=params) + "".join(f"    {line}\n" for line in prelude)
            + "".join(f"{line}\n" for line in body) + "    return\n  }\n}\n")


def data_arrays(elem: str, length: int, alias: int | None
                ) -> tuple[list[np.ndarray], list[tuple[int, int, int]]]:
    """The arrays of the two data parameters, each `length` long: two arrays, or one
    that the second parameter views from offset `alias` on."""
    dtype = NUMPY[elem]
    if alias is None:
        return ([np.arange(length, dtype=dtype), np.arange(100, 100 + length, dtype=dtype)],
                [(0, 0, length), (1, 0, length)])
    return [np.arange(length + 32, dtype=dtype)], [(0, 0, length), (0, alias, length)]


def view_case(rng: random.Random) -> Case:
    """A kernel of the view family and its launch."""
    elem = rng.choice(("f32", "f32", "i32"))
    atomics = rng.random() < 0.5
    views = [0] + ([1] if rng.random() < 0.4 else []) + ([2] if rng.random() < 0.6 else [])
    writer = ViewWriter(rng, elem, atomics, views)
    scope = Scope(["%t0"], {})
    body = writer.statements(scope, 0, "    ", rng.randint(2, 6))
    text = kernel_text(f"%p: tile<ptr<{elem}>>, %q: tile<ptr<{elem}>>", writer.prelude(),
                       body)
    grid = rng.choice(GRIDS)
    arrays, params = data_arrays(elem, 64, rng.choice(VIEW_ALIASES))
    extent = rng.choice((64, 64, 64, 50))
    return Case(text, "views", grid, arrays, params,
                [np.int32(extent), np.bool_(rng.random() < 0.5)])


#: The pointer family's gather index buffers (64 indices), by kind.
GATHERS: dict[str, Callable[[], np.ndarray]] = {
    "identity": lambda: np.arange(64, dtype=np.int32),
    "random": lambda: np.random.default_rng(1).integers(0, 48, 64).astype(np.int32),
    "stride 7": lambda: (np.arange(64, dtype=np.int32) * 7) % 48,
}


def pointer_case(rng: random.Random) -> Case:
    """A kernel of the pointer family and its launch."""
    elem = rng.choice(("i32", "i32", "f32"))
    writer = PointerWriter(rng, elem, True)
    scope = Scope(["%t0"], {16: writer.first_values()})
    body = writer.statements(scope, 0, "    ", rng.randint(2, 5))
    text = kernel_text(f"%p: tile<ptr<{elem}>>, %q: tile<ptr<{elem}>>, %g: tile<ptr<i32>>",
                       writer.prelude(), body)
    grid = rng.choice(GRIDS)
    arrays, params = data_arrays(elem, 80, rng.choice(POINTER_ALIASES))
    arrays.append(GATHERS[rng.choice(sorted(GATHERS))]())
    params.append((len(arrays) - 1, 0, 64))
    return Case(text, "pointers", grid, arrays, params,
                [np.int32(48), np.bool_(rng.random() < 0.5)])


FAMILIES: dict[str, Callable[[random.Random], Case]] = {"views": view_case,
                                                       "pointers": pointer_case}


def make_case(seed: int) -> Case:
    """The kernel and launch of `seed` (even and odd seeds alike draw either family)."""
    rng = random.Random(seed)
    return FAMILIES[rng.choice(sorted(FAMILIES))](rng)


def launch(case: Case, module: Any, engine: str, setting: Setting) -> Outcome:
    """Launch `case` on `engine` under `setting`, on fresh copies of its arrays."""
    args, arrays = case.fresh_args()
    return launch_outcome(module, case.grid, args, arrays, engine, **setting.options())


@dataclass
class Tally:
    """One setting's counts: launches, those run compiled, those both engines refused
    with the same error, and findings."""
    launches: int = 0
    compiled: int = 0
    errors: int = 0
    findings: int = 0


@dataclass
class Summary:
    """What a campaign found: a `Tally` per setting label, the first finding of each seed
    that has one, and why the compiled engine handed launches on."""
    kernels: int = 0
    verified: int = 0
    tallies: dict[str, Tally] = field(
        default_factory=lambda: {s.label: Tally() for s in SETTINGS})
    findings: list[tuple[int, str]] = field(default_factory=list)
    reasons: collections.Counter = field(default_factory=collections.Counter)
    families: collections.Counter = field(default_factory=collections.Counter)


def campaign(kernels: int, seed: int = 0, verbose: bool = False) -> Summary:
    """Run the kernels of seeds `seed` .. `seed + kernels - 1` under every setting."""
    summary = Summary()
    for current in range(seed, seed + kernels):
        summary.kernels += 1
        case = make_case(current)
        try:
            module = tileir.parse(case.text)
        except tileir.TileIRError as error:
            if verbose:
                print(f"seed {current} does not verify: {str(error).splitlines()[0]}")
            continue
        summary.verified += 1
        summary.families[case.family] += 1
        first: str | None = None
        for setting in SETTINGS:
            tally = summary.tallies[setting.label]
            ref = launch(case, module, "blocks", setting)
            got = launch(case, module, "compiled", setting)
            tally.launches += 1
            tally.compiled += got.kind == "ran" and got.engine == "compiled"
            tally.errors += ref.kind == got.kind == "error"
            if got.kind == "ran" and got.engine != "compiled":
                summary.reasons[short_reason(got.message)] += 1
            found = first_difference(ref, got, [a.dtype for a in case.arrays])
            if found:
                tally.findings += 1
                first = first or f"{setting.label}: {found}"
                if verbose:
                    print(f"seed {current} {setting.label}: {found}")
        if first:
            summary.findings.append((current, first))
    return summary


def table(summary: Summary) -> str:
    """The summary as a table: one row per setting, then the hand-on reasons."""
    rows = [f"{'setting':<24} {'launches':>8} {'compiled':>8} {'errors':>7} {'findings':>8}"]
    for label, t in summary.tallies.items():
        rows.append(f"{label:<24} {t.launches:>8} {t.compiled:>8} {t.errors:>7} "
                    f"{t.findings:>8}")
    families = ", ".join(f"{n} {name}" for name, n in sorted(summary.families.items()))
    rows.append(f"kernels {summary.kernels}, verified {summary.verified} ({families}), "
                f"seeds with findings {len(summary.findings)}")
    rows += [f"  handed on {n}: {reason}" for reason, n in summary.reasons.most_common(6)]
    rows += [f"finding seed {seed}: {found}" for seed, found in summary.findings]
    return "\n".join(rows)


def show(seed: int) -> str:
    """The kernel of `seed` and how it is launched."""
    case = make_case(seed)
    params = ", ".join(f"array {k}[{start}:{start + length}]"
                       for k, start, length in case.params)
    return (f"{case.text}\n// family {case.family}, grid {case.grid}, parameters {params}, "
            f"scalars {[s.item() for s in case.scalars]}")


def main(argv: list[str] | None = None) -> int:
    """The command line; 1 when there are findings."""
    options = command_line(__doc__, argv)
    if options.show is not None:
        print(show(options.show))
        return 0
    summary = campaign(options.kernels, options.seed, options.verbose)
    print(table(summary))
    return 1 if summary.findings else 0


if __name__ == "__main__":
    run_main("race_campaign", main)
