"""Random kernels the compiled engine accepts, run on engine="blocks" and engine="compiled".

Usage: python tools/compiled_campaign.py --kernels N --seed S [--verbose]

Each seed gives the Tile IR text of one entry kernel made only of the ops and types the
compiled engine supports (docs/compiled-engine.md, "What is compiled"): 1 to 3 pointer
parameters (f32, f64, i32, i64, f16), optional i32 scalars, static row-major tensor views
of rank 1 to 3 (shapes not divisible by the tile, so padding and partial tiles happen),
partition views with power-of-two tiles and random padding, a chain of 1 to 10 ops and one
or two stores. Buffers hold values drawn from the seed (NaNs, infinities, signed zeros,
subnormals, large magnitudes). Each kernel is launched on both engines, with checks on and
off, on fresh copies of the same inputs; a finding is different bytes in any buffer, a
different error (first line), or a compiled launch raising anything but a TileIRError.
Exit status 1 when there are findings.
"""

from __future__ import annotations

import collections
import functools
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

import tileir
from tileir.interp.compiled import runner

sys.path.insert(0, str(Path(__file__).resolve().parent))   # (loaded by path from tests too)
from campaigns import (Outcome, command_line, first_difference, launch_outcome,  # noqa: E402
                       run_main, short_reason)

FLOATS = ("f32", "f64")
INTS = ("i32", "i64")
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32,
      "i64": np.int64, "bf16": ml_dtypes.bfloat16, "i8": np.int8, "i16": np.int16}
#: Narrow integer types the "narrow" step truncates to, and the types a bitcast relabels.
NARROW_INTS = ("i8", "i16")
BITCASTS = {"f32": "i32", "i32": "f32", "f64": "i64", "i64": "f64"}
BYTES = {"f32": 4, "i32": 4, "f64": 8, "i64": 8}
PADDINGS = ("zero", "neg_zero", "nan", "pos_inf", "neg_inf")
CMP = ("equal", "not_equal", "less_than", "less_than_or_equal", "greater_than",
       "greater_than_or_equal")


def tile_type(elem: str, shape: tuple[int, ...]) -> str:
    """`tile<4x8xf32>`, `tile<f32>` for rank 0."""
    return "tile<" + "".join(f"{d}x" for d in shape) + elem + ">"


@dataclass
class Value:
    """An SSA value of the kernel: its name, element type and shape."""
    name: str
    elem: str
    shape: tuple[int, ...]


@dataclass
class Builder:
    """The kernel being built: its body lines and the values it has made."""
    rng: random.Random
    shape: tuple[int, ...]
    lines: list[str] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    count: int = 0
    scalars: list[str] = field(default_factory=list)
    loads: list[tuple[str, str, str]] = field(default_factory=list)

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def add(self, line: str, elem: str, shape: tuple[int, ...] | None = None,
            name: str | None = None) -> Value:
        value = Value(name or self.fresh(), elem, self.shape if shape is None else shape)
        self.lines.append("    " + line.replace("@R", value.name))
        self.values.append(value)
        return value

    def pick(self, elems: tuple[str, ...]) -> Value | None:
        choices = [v for v in self.values if v.elem in elems and v.shape == self.shape]
        if not choices:
            return None
        # mostly the newest values, so the chain feeds into what is stored
        return choices[-1] if self.rng.random() < 0.5 else self.rng.choice(choices[-3:]) \
            if self.rng.random() < 0.7 else self.rng.choice(choices)

    def constant(self, elem: str, shape: tuple[int, ...] | None = None) -> Value:
        rng = self.rng
        if elem in FLOATS + ("f16",):
            text = rng.choice(["0.000000e+00", "-0.000000e+00", "1.000000e+00", "2.500000e-01",
                               "-3.000000e+00", "1.000000e+30", "6.550400e+04",
                               "1.000000e-40" if elem == "f64" else "5.000000e-01"])
        elif elem == "i1":
            text = rng.choice(["true", "false"])
        else:
            text = str(rng.choice([0, 1, -1, 7, -100, 2 ** 31 - 1, -2 ** 31, 65535]))
        return self.add(f"@R = constant <{elem}: {text}> : "
                        f"{tile_type(elem, self.shape if shape is None else shape)}", elem,
                        shape)

    def pick_shape(self, elems: tuple[str, ...], shape: tuple[int, ...]) -> Value:
        choices = [v for v in self.values if v.elem in elems and v.shape == shape]
        return self.rng.choice(choices[-4:])

    def need(self, elems: tuple[str, ...]) -> Value:
        return self.pick(elems) or self.constant(self.rng.choice(elems))


#: The combining ops a reduce or scan body draws, and each one's identity per element
#: type (addf's either zero).
IDENTITIES = {
    "addf": {"f32": ("0.000000e+00", "-0.000000e+00"), "f64": ("0.000000e+00", "-0.000000e+00")},
    "mulf": {"f32": ("1.000000e+00",), "f64": ("1.000000e+00",)},
    "maxf": {"f32": ("0xFF800000",), "f64": ("0xFFF0000000000000",)},
    "minf": {"f32": ("0x7F800000",), "f64": ("0x7FF0000000000000",)},
    **{op: {"i32": (v,), "i64": (v,)} for op, v in (("addi", "0"), ("muli", "1"), ("ori", "0"),
                                                   ("xori", "0"), ("andi", "-1"))},
}


def combiner(rng: random.Random, elem: str) -> tuple[str, str]:
    """A combining op for `elem` and its identity (`IDENTITIES`)."""
    op = rng.choice([o for o, by_type in IDENTITIES.items() if elem in by_type])
    return op, rng.choice(IDENTITIES[op][elem])


def op_step(b: Builder, square: bool, depth: int = 0) -> None:
    """One random op (or a few making one result) on values of the working shape."""
    rng, shape = b.rng, b.shape
    kinds = ["fbin", "fbin", "fun", "ibin", "cmp", "conv", "conv", "const", "iota", "dense",
             "reshape", "reduce", "reduce", "for", "for", "mmaf", "select", "select", "scalar",
             "reduce2", "scan", "narrow", "narrow", "narrow", "narrow"] + (
                 ["mmaf", "mmaf", "permute"] if square else [])
    if not shape:
        kinds = ["fbin", "fbin", "fun", "ibin", "cmp", "conv", "const", "select", "for",
                 "narrow"]
    kind = rng.choice(kinds)
    if kind == "for" and depth >= 2:
        kind = "fbin"
    if kind == "fbin":
        x = b.need(FLOATS)
        y = b.pick((x.elem,)) or x
        op = rng.choice(["addf", "subf", "mulf", "divf", "maxf", "minf"])
        attr = " propagate_nan" if op in ("maxf", "minf") and rng.random() < 0.5 else ""
        if op in ("addf", "subf", "mulf", "divf") and rng.random() < 0.2:
            attr = " rounding<nearest_even>"
        b.add(f"@R = {op} {x.name}, {y.name}{attr} : {tile_type(x.elem, shape)}", x.elem)
    elif kind == "fun":
        x = b.need(FLOATS)
        op = rng.choice(["negf", "absf", "rsqrt", "sqrt", "floor", "ceil"] + (
            ["exp", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "sinh", "cosh", "tanh"]
            if x.elem == "f32" else []))
        b.add(f"@R = {op} {x.name} : {tile_type(x.elem, shape)}", x.elem)
    elif kind == "ibin":
        x = b.need(INTS)
        y = b.pick((x.elem,)) or x
        op = rng.choice(["addi", "subi", "muli", "andi", "ori", "xori", "divi", "remi",
                         "shli", "shri", "mulhii"])
        signed = rng.choice(["signed", "unsigned"])
        attr = {"divi": f" {signed}", "remi": f" {signed}", "shri": f" {signed}"}.get(op, "")
        if op == "divi" and rng.random() < 0.5:
            modes = ["zero", "positive_inf"] + (["negative_inf"] if signed == "signed" else [])
            attr += f" rounding<{rng.choice(modes)}>"
        b.add(f"@R = {op} {x.name}, {y.name}{attr} : {tile_type(x.elem, shape)}", x.elem)
    elif kind == "cmp":
        x = b.need(FLOATS + INTS)
        y = b.pick((x.elem,)) or x
        pred = rng.choice(CMP)
        if x.elem in FLOATS:
            mode = rng.choice(["ordered", "unordered"])
            line = f"@R = cmpf {pred} {mode} {x.name}, {y.name}"
        else:
            line = f"@R = cmpi {pred} {x.name}, {y.name}, {rng.choice(['signed', 'unsigned'])}"
        b.add(f"{line} : {tile_type(x.elem, shape)} -> {tile_type('i1', shape)}", "i1")
    elif kind == "select":
        c = b.pick(("i1",)) or b.constant("i1")
        x = b.need(("f16", "f32", "f64", "i32", "i64"))
        y = b.pick((x.elem,)) or x
        b.add(f"@R = select {c.name}, {x.name}, {y.name} : {tile_type('i1', shape)}, "
              f"{tile_type(x.elem, shape)}", x.elem)
    elif kind == "conv":
        x = b.need(("f16", "f32", "f64", "i32", "i64"))
        if x.elem in INTS:
            to = rng.choice(FLOATS)
            line = f"@R = itof {x.name} {rng.choice(['signed', 'unsigned'])}"
        elif x.elem == "f16":
            to, line = "f32", f"@R = ftof {x.name}"
        elif rng.random() < 0.6:
            to = rng.choice(INTS)
            sat = " saturating" if rng.random() < 0.8 else ""
            line = f"@R = ftoi {x.name} {rng.choice(['signed', 'unsigned'])}{sat}"
        else:
            to = {"f32": rng.choice(["f64", "f16"]), "f64": "f32"}[x.elem]
            line = f"@R = ftof {x.name}"
        b.add(f"{line} : {tile_type(x.elem, shape)} -> {tile_type(to, shape)}", to)
    elif kind == "const":
        b.constant(rng.choice(("f32", "f64", "i32", "i64", "i1")))
    elif kind == "iota":
        elem = rng.choice(INTS)
        n = int(np.prod(shape))
        v = b.add(f"@R = iota : {tile_type(elem, (n,))}", elem, (n,))
        if shape != (n,):
            b.add(f"@R = reshape {v.name} : {tile_type(elem, (n,))} -> "
                  f"{tile_type(elem, shape)}", elem)
    elif kind == "reshape":
        x = b.need(("f16", "f32", "f64", "i32", "i64", "i1"))
        n = int(np.prod(shape))
        other = rng.choice([(n,), (1, n), (n, 1), (1,) + shape])[:3]
        if int(np.prod(other)) != n:
            other = (n,)
        v = b.add(f"@R = reshape {x.name} : {tile_type(x.elem, shape)} -> "
                  f"{tile_type(x.elem, other)}", x.elem, other)
        b.add(f"@R = reshape {v.name} : {tile_type(x.elem, other)} -> "
              f"{tile_type(x.elem, shape)}", x.elem)
    elif kind == "reduce":
        x = b.need(FLOATS + INTS)
        dim = rng.randrange(len(shape))
        op, ident = combiner(rng, x.elem)
        small = shape[:dim] + shape[dim + 1:]
        s = tile_type(x.elem, ())
        r = b.add(f"@R = reduce {x.name} dim={dim} identities=[{ident} : {x.elem}] : "
                  f"{tile_type(x.elem, shape)} -> {tile_type(x.elem, small)}\n"
                  f"      (%e: {s}, %a: {s}) {{\n"
                  f"        %rr = {op} %e, %a : {s}\n"
                  f"        yield %rr : {s}\n      }}", x.elem, small)
        ones = shape[:dim] + (1,) + shape[dim + 1:]
        k = b.add(f"@R = reshape {r.name} : {tile_type(x.elem, small)} -> "
                  f"{tile_type(x.elem, ones)}", x.elem, ones)
        if ones != shape:
            b.add(f"@R = broadcast {k.name} : {tile_type(x.elem, ones)} -> "
                  f"{tile_type(x.elem, shape)}", x.elem)
    elif kind == "scan":
        x = b.need(FLOATS + INTS)
        dim = rng.randrange(len(shape))
        op, ident = combiner(rng, x.elem)
        s = tile_type(x.elem, ())
        b.add(f"@R = scan {x.name} dim={dim} reverse={rng.choice(['false', 'true'])} "
              f"identities=[{ident} : {x.elem}] : {tile_type(x.elem, shape)} -> "
              f"{tile_type(x.elem, shape)}\n"
              f"      (%e: {s}, %a: {s}) {{\n"
              f"        %rr = {op} %e, %a : {s}\n"
              f"        yield %rr : {s}\n      }}", x.elem)
    elif kind == "for":
        x = b.need(FLOATS + INTS)
        bound = rng.choice(["i32", "i64"])
        lo, hi, st = rng.randrange(-1, 2), rng.randrange(-1, 4), rng.randrange(1, 3)
        names = [b.add(f"@R = constant <{bound}: {v}> : tile<{bound}>", bound, ()).name
                 for v in (lo, hi, st)]
        if bound == "i32" and rng.random() < 0.3 and b.scalars:
            names[1] = rng.choice(b.scalars)
        carried = [x] + ([b.need(FLOATS + INTS)] if rng.random() < 0.4 else [])
        n = b.count
        b.count += 1
        inner = [Value(f"%acc{n}_{j}", v.elem, v.shape) for j, v in enumerate(carried)]
        outer_lines, outer_values = b.lines, list(b.values)
        b.lines = []
        b.values = outer_values + inner
        b.values.append(Value(f"%iv{n}", bound, ()))
        if shape and rng.random() < 0.5:
            ones = (1,) * len(shape)
            k = b.add(f"@R = reshape %iv{n} : tile<{bound}> -> {tile_type(bound, ones)}",
                      bound, ones)
            if ones != shape:
                b.add(f"@R = broadcast {k.name} : {tile_type(bound, ones)} -> "
                      f"{tile_type(bound, shape)}", bound)
        if shape and b.loads and rng.random() < 0.4:
            name, elem, line = rng.choice(b.loads)
            b.lines.append("    " + line.replace("%x", f"%x{n}_", 1).replace("%xt",
                                                                           f"%xt{n}_", 1))
            b.values.append(Value(f"%x{n}_{name}", elem, shape))
        y = b.pick((x.elem,)) or x
        op = (rng.choice(["addf", "mulf", "maxf", "subf"]) if x.elem in FLOATS
              else rng.choice(["addi", "xori", "muli"]))
        first = b.add(f"@R = {op} {inner[0].name}, {y.name} : {tile_type(x.elem, shape)}",
                      x.elem)
        for _ in range(rng.randint(0, 3)):
            op_step(b, square, depth + 1)
        yields = []
        for j, v in enumerate(carried):
            same = [w for w in b.values[len(outer_values):] if w.elem == v.elem
                    and w.shape == v.shape]
            yields.append(first if j == 0 and rng.random() < 0.5 else rng.choice(same))
        body = b.lines
        b.lines, b.values = outer_lines, outer_values
        ts = [tile_type(v.elem, v.shape) for v in carried]
        results = ", ".join(f"%f{n}_{j}" for j in range(len(carried)))
        head = (f"{results} = for %iv{n} in ({names[0]} to {names[1]}, step {names[2]}) : "
                f"tile<{bound}> iter_values("
                + ", ".join(f"{w.name} = {v.name}" for w, v in zip(inner, carried))
                + f") -> ({', '.join(ts)}) {{")
        b.lines.append("    " + head)
        b.lines += ["  " + line for line in body]
        b.lines.append(f"      continue {', '.join(v.name for v in yields)} : {', '.join(ts)}")
        b.lines.append("    }")
        for j, v in enumerate(carried):
            b.values.append(Value(f"%f{n}_{j}", v.elem, v.shape))
    elif kind == "scalar":
        x = b.need(FLOATS + INTS)
        n = int(np.prod(shape))
        flat = b.add(f"@R = reshape {x.name} : {tile_type(x.elem, shape)} -> "
                     f"{tile_type(x.elem, (n,))}", x.elem, (n,))
        if x.elem in FLOATS:
            op, ident = rng.choice([("addf", "0.000000e+00"), ("maxf", "0xFF800000"
                                    if x.elem == "f32" else "0xFFF0000000000000")])
        else:
            op, ident = rng.choice([("addi", "0"), ("xori", "0")])
        t0 = tile_type(x.elem, ())
        b.add(f"@R = reduce {flat.name} dim=0 identities=[{ident} : {x.elem}] : "
              f"{tile_type(x.elem, (n,))} -> {t0}\n"
              f"      (%e: {t0}, %a: {t0}) {{\n        %rr = {op} %e, %a : {t0}\n"
              f"        yield %rr : {t0}\n      }}", x.elem, ())
        b.shape = ()
        for _ in range(rng.randint(1, 3)):
            op_step(b, square, depth + 1)
        b.shape = shape
        v = b.pick_shape(FLOATS + INTS + ("i1",), ())
        ones = (1,) * len(shape)
        k = b.add(f"@R = reshape {v.name} : {tile_type(v.elem, ())} -> "
                  f"{tile_type(v.elem, ones)}", v.elem, ones)
        if ones != shape:
            b.add(f"@R = broadcast {k.name} : {tile_type(v.elem, ones)} -> "
                  f"{tile_type(v.elem, shape)}", v.elem)
    elif kind == "dense":
        elem = rng.choice(("f32", "f64", "i32", "i64"))
        n = int(np.prod(shape))
        if elem in FLOATS:
            items = [rng.choice(["0.000000e+00", "-0.000000e+00", "1.500000e+00",
                                 "-2.000000e+00", "1.000000e+20", "3.000000e-30"])
                     for _ in range(n)]
        else:
            items = [str(rng.choice([0, 1, -1, 3, 2 ** 31 - 1, -2 ** 31])) for _ in range(n)]
        v = b.add(f"@R = constant <{elem}: [{', '.join(items)}]> : {tile_type(elem, (n,))}",
                  elem, (n,))
        if (n,) != shape:
            b.add(f"@R = reshape {v.name} : {tile_type(elem, (n,))} -> "
                  f"{tile_type(elem, shape)}", elem)
    elif kind == "reduce2":
        x = b.need(FLOATS)
        i = b.need(INTS)
        dim = rng.randrange(len(shape))
        small = shape[:dim] + shape[dim + 1:]
        tf, ti = tile_type(x.elem, ()), tile_type(i.elem, ())
        ident = "0xFF800000" if x.elem == "f32" else "0xFFF0000000000000"
        r = b.fresh()
        b.lines.append(
            f"    {r}:2 = reduce {x.name}, {i.name} dim={dim} identities=[{ident} : {x.elem}, "
            f"0 : {i.elem}] : {tile_type(x.elem, shape)}, {tile_type(i.elem, shape)} -> "
            f"{tile_type(x.elem, small)}, {tile_type(i.elem, small)}\n"
            f"      (%e0: {tf}, %a0: {tf}, %e1: {ti}, %a1: {ti}) {{\n"
            f"        %ge = cmpf greater_than_or_equal ordered %e0, %a0 : {tf} -> tile<i1>\n"
            f"        %m0 = select %ge, %e0, %a0 : tile<i1>, {tf}\n"
            f"        %m1 = select %ge, %e1, %a1 : tile<i1>, {ti}\n"
            f"        yield %m0, %m1 : {tf}, {ti}\n      }}")
        ones = shape[:dim] + (1,) + shape[dim + 1:]
        for j, elem in ((0, x.elem), (1, i.elem)):
            k = b.add(f"@R = reshape {r}#{j} : {tile_type(elem, small)} -> "
                      f"{tile_type(elem, ones)}", elem, ones)
            if ones != shape:
                b.add(f"@R = broadcast {k.name} : {tile_type(elem, ones)} -> "
                      f"{tile_type(elem, shape)}", elem)
    elif kind == "mmaf" and len(shape) == 2 and square:
        elem = rng.choice(["f32", "f32", "f16"])
        x = b.need((elem,)) if elem == "f32" else (b.pick(("f16",)) or b.need(("f32",)))
        if x.elem == "f32" and elem == "f16":
            x = b.add(f"@R = ftof {x.name} : {tile_type('f32', shape)} -> "
                      f"{tile_type('f16', shape)}", "f16")
        y = b.pick((x.elem,)) or x
        c = b.need(("f32",))
        b.add(f"@R = mmaf {x.name}, {y.name}, {c.name} : {tile_type(x.elem, shape)}, "
              f"{tile_type(x.elem, shape)}, {tile_type('f32', shape)}", "f32")
    elif kind == "permute" and len(shape) == 2 and square:
        x = b.need(FLOATS + INTS)
        b.add(f"@R = permute {x.name} [1, 0] : {tile_type(x.elem, shape)} -> "
              f"{tile_type(x.elem, shape)}", x.elem)
    elif kind == "narrow":
        narrow_step(b)
    else:
        b.constant(rng.choice(("f32", "i32")))


def narrow_step(b: Builder) -> None:
    """One of: fpowi, atan2, a bf16 round trip, an i8 / i16 chain, a bitcast, a pack and
    unpack (rank 1) on values of the working shape."""
    rng, shape = b.rng, b.shape
    t = functools.partial(tile_type, shape=shape)
    choice = rng.choice(["fpowi", "atan2", "bf16", "int", "bitcast"] +
                        (["pack"] if len(shape) == 1 else []))
    if choice == "fpowi":
        x = b.need(("f32",))
        n = b.pick(("i32", *NARROW_INTS)) or b.constant("i32")
        b.add(f"@R = fpowi {x.name}, {n.name} : {t('f32')}, {t(n.elem)}", "f32")
    elif choice == "atan2":
        x = b.need(("f32",))
        y = b.pick(("f32",)) or x
        b.add(f"@R = atan2 {x.name}, {y.name} : {t('f32')}", "f32")
    elif choice == "bf16":
        x = b.pick(("f16",)) or b.need(("f32",))
        mode = rng.choice(["", " rounding<zero>"])
        h = b.add(f"@R = ftof {x.name}{mode} : {t(x.elem)} -> {t('bf16')}", "bf16")
        to = rng.choice(["f32", "f64", "f16"])
        b.add(f"@R = ftof {h.name} : {t('bf16')} -> {t(to)}", to)
    elif choice == "int":
        x = b.need(INTS)
        narrow = rng.choice(NARROW_INTS)
        v = b.add(f"@R = trunci {x.name} : {t(x.elem)} -> {t(narrow)}", narrow)
        y = b.pick((narrow,)) or v
        op = rng.choice(["addi", "muli", "xori", "subi"])
        w = b.add(f"@R = {op} {v.name}, {y.name} : {t(narrow)}", narrow)
        to = rng.choice(INTS)
        b.add(f"@R = exti {w.name} {rng.choice(['signed', 'unsigned'])} : {t(narrow)} -> "
              f"{t(to)}", to)
    elif choice == "bitcast":
        x = b.need(tuple(BITCASTS))
        b.add(f"@R = bitcast {x.name} : {t(x.elem)} -> {t(BITCASTS[x.elem])}",
              BITCASTS[x.elem])
    else:
        x = b.need(tuple(BITCASTS))
        n = shape[0] * BYTES[x.elem]
        k = b.add(f"@R = pack {x.name} : {t(x.elem)} -> {tile_type('i8', (n,))}", "i8", (n,))
        b.add(f"@R = unpack {k.name} : {tile_type('i8', (n,))} -> {t(BITCASTS[x.elem])}",
              BITCASTS[x.elem])


@dataclass
class Case:
    """One random kernel and its launch: the text, the grid and the arguments."""
    text: str
    grid: int | tuple[int, int]
    args: list[Any]


def draw_values(rng: np.random.Generator, elem: str, n: int) -> np.ndarray:
    """`n` values of `elem`, special ones included."""
    if elem == "bf16":
        return draw_values(rng, "f32", n).astype(ml_dtypes.bfloat16)
    if elem in ("f16", "f32", "f64"):
        dt = NP[elem]
        info = np.finfo(dt)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, info.tiny / 4,
                            -info.tiny / 2, info.max, -info.max, 1.0, -1.0, 0.5, 3.0,
                            88.72283, -87.33654, -103.27893, -103.972, 65504.0, 65520.0,
                            2.0 ** -24, 2.0 ** 31, -2.0 ** 63, 2.0 ** 64],
                           np.float64)
        with np.errstate(over="ignore"):
            special = special.astype(dt)
        kinds = rng.integers(0, 5, n)
        out = (rng.standard_normal(n) * 4).astype(dt)
        out = np.where(kinds == 0, special[rng.integers(0, len(special), n)], out)
        out = np.where(kinds == 1, rng.integers(-20, 20, n).astype(dt), out)
        with np.errstate(over="ignore"):
            big = (rng.standard_normal(n) * 10.0 ** rng.integers(-45, 39, n)).astype(dt)
        return np.where(kinds == 2, big, out).astype(dt)
    dt = NP[elem]
    lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
    special = np.array([0, 1, -1, lo, hi, 2, -2, 1 << 20], np.int64).astype(dt)
    out = rng.integers(-50, 50, n).astype(dt)
    kinds = rng.integers(0, 4, n)
    out = np.where(kinds == 0, special[rng.integers(0, len(special), n)], out)
    return np.where(kinds == 1, rng.integers(lo, hi, n, dtype=dt, endpoint=True), out)


def make_case(seed: int) -> Case:
    """The kernel, grid and arguments of `seed`."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    rank = rng.choice([1, 1, 2, 2, 2, 3])
    square = rank == 2 and rng.random() < 0.5
    if square:
        d = rng.choice([1, 2, 4, 8])
        tile = (d, d)
    else:
        tile = tuple(rng.choice([1, 2, 4, 8, 16] if rank == 1 else [1, 2, 4, 8])
                     for _ in range(rank))
        if rank == 1:
            tile = (rng.choice([1, 2, 4, 8, 16, 32, 64]),)
    grid = rng.randint(1, 4)
    grid2 = 1
    if rank >= 2 and rng.random() < 0.35:
        grid2 = rng.randint(1, 2)
        grid = rng.randint(1, 2)
    const_index = rng.random() < 0.15
    nptr = rng.randint(1, 3)
    nout = 2 if nptr >= 2 and rng.random() < 0.3 else 1
    alias = rng.random() < 0.3
    nin = nptr - nout
    nscalar = rng.randint(0, 2)
    b = Builder(rng, tile)

    def view_shape() -> tuple[int, ...]:
        blocks = 1 if const_index else grid
        first = rng.randint(max(1, (blocks - 1) * tile[0] + 1), blocks * tile[0] + tile[0])
        rest = [rng.randint(1, 2 * t + 1) for t in tile[1:]]
        if grid2 > 1 and not const_index:
            rest[0] = rng.randint((grid2 - 1) * tile[1] + 1, grid2 * tile[1] + tile[1])
        return (first,) + tuple(rest)

    header: list[str] = []
    views: list[str] = []
    args: list[Any] = []
    loads = []
    idx_names = []
    views.append("    %tok = make_token : token")
    views.append("    %bx, %by, %bz = get_tile_block_id : tile<i32>")
    views.append("    %c0 = constant <i32: 0> : tile<i32>")
    if const_index:
        idx_names = ["%c0"] * rank
    else:
        idx_names = ["%bx"] + ["%c0"] * (rank - 1)
        if grid2 > 1:
            idx_names[1] = "%by"
    index = ", ".join(idx_names)

    def strides_of(shape: tuple[int, ...]) -> list[int]:
        return [int(np.prod(shape[k + 1:])) for k in range(len(shape))]

    def view(k: int, elem: str, pad: str | None) -> tuple[str, str]:
        shape = view_shape()
        st = strides_of(shape)
        tv = (f"tensor_view<{'x'.join(map(str, shape))}x{elem}, "
              f"strides=[{','.join(map(str, st))}]>")
        padding = f", padding_value = {pad}" if pad else ""
        pv = f"partition_view<tile=({'x'.join(map(str, tile))}){padding}, {tv}>"
        views.append(f"    %tv{k} = make_tensor_view %p{k}, shape = "
                     f"[{', '.join(map(str, shape))}], strides = [{', '.join(map(str, st))}] "
                     f": tile<ptr<{elem}>> -> {tv}")
        views.append(f"    %pv{k} = make_partition_view %tv{k} : {pv}")
        size = int(np.prod(shape)) + (rng.randint(0, 5) if rng.random() < 0.3 else 0)
        return pv, size

    for k in range(nin):
        elem = rng.choice(["f32", "f32", "f64", "i32", "i64", "f16"])
        pad = rng.choice(PADDINGS) if elem != "f16" or rng.random() < 0.5 else None
        if elem in INTS and pad not in (None, "zero"):
            pad = rng.choice([None, "zero"])
        pv, size = view(k, elem, pad)
        header.append(f"%p{k}: tile<ptr<{elem}>>")
        args.append(draw_values(nrng, elem, size))
        loads.append((k, elem, pv))
    for s in range(nscalar):
        header.append(f"%s{s}: tile<i32>")
    for k, elem, pv in loads:
        line = (f"%x{k}, %xt{k} = load_view_tko weak %pv{k}[{index}] token = %tok : "
                f"{pv}, tile<i32> -> {tile_type(elem, tile)}, token")
        b.lines.append("    " + line)
        b.loads.append((str(k), elem, line))
        b.values.append(Value(f"%x{k}", elem, tile))
    b.scalars = [f"%s{s}" for s in range(nscalar)]
    for s in range(nscalar):
        r = b.add(f"@R = reshape %s{s} : tile<i32> -> {tile_type('i32', (1,) * rank)}",
                  "i32", (1,) * rank)
        if (1,) * rank != tile:
            b.add(f"@R = broadcast {r.name} : {tile_type('i32', (1,) * rank)} -> "
                  f"{tile_type('i32', tile)}", "i32")
    for _ in range(rng.randint(1, 10)):
        op_step(b, square)
    stores = []
    for j in range(nout):
        k = nin + j
        storable = [v for v in b.values if v.shape == tile and v.elem != "i1"]
        # prefer recent values, so the chain's end is what is stored
        v = storable[-1] if rng.random() < 0.85 and storable else rng.choice(storable) \
            if storable else b.constant("f32")
        pv, size = view(k, v.elem, None)
        header.append(f"%p{k}: tile<ptr<{v.elem}>>")
        fresh = draw_values(nrng, v.elem, size)
        if j == 1 and alias and args[-1].dtype == fresh.dtype and args[-1].size >= size:
            fresh = args[-1]        # both stores write one buffer
        args.append(fresh)
        stores.append(f"    %st{j} = store_view_tko weak {v.name}, %pv{k}[{index}] "
                      f"token = %tok : {tile_type(v.elem, tile)}, {pv}, tile<i32> -> token")
    # scalars come after the pointers in the header order used above
    ptr_args, scalars = args, [np.int32(rng.choice([0, 1, -1, 5, 3, -7]))
                               for _ in range(nscalar)]
    order = [h for h in header if h.startswith("%p")] + [h for h in header
                                                          if h.startswith("%s")]
    text = ("cuda_tile.module @m {\n  entry @k(" + ", ".join(order) + ") {\n"
            + "\n".join(views) + "\n" + "\n".join(b.lines) + "\n"
            + "\n".join(stores) + "\n    return\n  }\n}\n")
    return Case(text, (grid, grid2) if grid2 > 1 else grid, ptr_args + scalars)


def outcome(case: Case, module: Any, engine: str, checks: bool) -> Outcome:
    """Launch `case` on `engine` on fresh copies of its arrays."""
    copies: dict[int, np.ndarray] = {}
    args = [copies.setdefault(id(a), a.copy()) if isinstance(a, np.ndarray) else a
            for a in case.args]
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return launch_outcome(module, case.grid, args, arrays, engine, checks=checks)


@dataclass
class Summary:
    """What a campaign found."""
    kernels: int = 0
    verified: int = 0
    ran_compiled: int = 0
    #: kernels the compiled engine ran without a journal after their precheck
    prechecked: int = 0
    agreed: int = 0
    findings: list[tuple[int, str]] = field(default_factory=list)
    reasons: collections.Counter = field(default_factory=collections.Counter)


def campaign(kernels: int, seed: int = 0, verbose: bool = False) -> Summary:
    """Run `kernels` seeds from `seed` on; a kernel counts as compiled when the compiled
    engine ran it for checks on or off."""
    summary = Summary()
    for s in range(seed, seed + kernels):
        summary.kernels += 1
        case = make_case(s)
        try:
            module = tileir.parse(case.text)
        except tileir.TileIRError as error:
            if verbose:
                print(f"seed {s} does not verify: {str(error).splitlines()[0]}")
            continue
        summary.verified += 1
        compiled, diffs = False, []
        unjournaled = runner.unjournaled()
        for checks in (True, False):
            ref = outcome(case, module, "blocks", checks)
            got = outcome(case, module, "compiled", checks)
            if got.kind == "ran":
                if got.engine == "compiled":
                    compiled = True
                else:
                    summary.reasons[short_reason(got.message)] += 1
            diff = first_difference(ref, got, [a.dtype for a in case.args
                                               if isinstance(a, np.ndarray)])
            if diff:
                diffs.append(f"checks={checks}: {diff}")
        summary.ran_compiled += compiled
        summary.prechecked += runner.unjournaled() > unjournaled
        if diffs:
            summary.findings.append((s, diffs[0]))
        else:
            summary.agreed += 1
    return summary


def main(argv: list[str] | None = None) -> int:
    """The command line; 1 when there are findings."""
    options = command_line(__doc__, argv)
    if options.show is not None:
        case = make_case(options.show)
        print(case.text)
        print("grid", case.grid, "args", case.args)
        return 0
    s = campaign(options.kernels, options.seed, options.verbose)
    print(f"{'kernels':>8} {'verified':>9} {'compiled':>9} {'prechecked':>11} {'agreed':>7} "
          f"{'findings':>9}")
    print(f"{s.kernels:>8} {s.verified:>9} {s.ran_compiled:>9} {s.prechecked:>11} "
          f"{s.agreed:>7} {len(s.findings):>9}")
    for reason, n in s.reasons.most_common(6):
        print(f"  declined {n}: {reason}")
    for seed, diff in s.findings:
        print(f"finding seed {seed}: {diff}")
    return 1 if s.findings else 0


if __name__ == "__main__":
    run_main("compiled_campaign", main)
