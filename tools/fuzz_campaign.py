#!/usr/bin/env python3
"""A fuzz campaign over tileir's text, bytecode, command-line and interpreter front doors.

Four campaigns, each deterministic given ``--seed``:

* ``text``: mutated Tile IR text (seeds: the shipped examples and the chunks of the
  conformance suite's ``.mlir`` files, read at run time).  `check_document` never raises;
  a clean document parses, prints, re-parses to the same text, writes bytecode that reads
  back and writes the same bytes (or the writer refuses with a `TileIRError`), and its
  ``debuginfo=True`` text parses back.
* ``bytecode``: mutated bytecode (seeds: what the writer makes of every seed text, and the
  suite's ``.tileirbc`` files).  The reader raises only `TileIRError`s (with a message); a
  module it returns prints, re-parses to the same text, and writes bytes that read back to
  the same text (or the writer refuses with a `TileIRError`); ``verify=False`` reads raise
  only `TileIRError`s too.
* ``cli``: mutated text and bytecode files given to ``python -m tileir check``,
  ``tileir.cli.opt`` and ``tileir.cli.translate`` (both directions): no traceback, no
  timeout, exit status 0 or 1.
* ``launch``: the shipped example kernels with mutated arguments, grids and scalars, run on
  the ``blocks`` and ``auto`` engines under the ``sequential`` and ``reverse`` schedules,
  checks on and off: both engines (and, with checks on, both schedules) agree on success,
  outputs and the first diagnostic; a failed launch leaves every argument bit for bit as it
  was; nothing but `ExecutionError` is raised.

Usage::

    python tools/fuzz_campaign.py --text 20000 --bytecode 20000 --cli 200 --launches 300 \\
        --seed 1 --jobs 2 --out /tmp/fuzz-out

Each finding is written to ``--out`` (its input file and a ``.txt`` with the one-line
description and the traceback tail; at most ``--keep`` inputs per distinct class, smallest
first, every finding listed in ``findings.tsv``), and the smallest input of each text or
bytecode class is shrunk (``*.min.*``).  Exit status 1 when anything was found.

Importable: ``run_campaign(kind, count, seed)`` runs one campaign in this process and returns
its findings (`Finding`).  Uses only the standard library, NumPy and tileir.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import io
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import tileir
from tileir.api import check_document, has_errors
from tileir.diagnostics import ExecutionError, TileIRError
from tileir.interp import launch

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = Path(tileir.__file__).resolve().parent / "examples"
SHARED = Path(os.environ.get("TILEIR_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "cuda-tile" / "test"

KINDS = ("text", "bytecode", "cli", "launch")
#: Seconds one step of one text or bytecode input may take before it counts as a finding.
SLOW_SECONDS = 3.0
#: Seconds after which an input is interrupted (SIGALRM) and counted as a hang.
HANG_SECONDS = {"text": 20.0, "bytecode": 20.0, "cli": 150.0, "launch": 120.0}
#: Seconds a CLI subprocess may run.
CLI_TIMEOUT = 60.0
#: Largest seed chunk preferred for mutation (characters or bytes).
SMALL = 4096


class Hang(BaseException):
    """An input ran past the hard time limit (a BaseException, so no `except Exception`
    inside tileir swallows it)."""


# ---- findings -----------------------------------------------------------------------------


@dataclass
class Finding:
    """One broken invariant: which campaign and input, what failed, and the input itself."""

    kind: str                 # text, bytecode, cli, launch
    index: int                # the input's number in its campaign
    check: str                # the invariant, in a few words
    description: str          # one line
    signature: str            # the finding's class (what distinct findings are told by)
    detail: str = ""          # the traceback tail or a diff
    data: bytes = b""         # the input file (text as UTF-8, bytecode, or a launch script)
    suffix: str = ".bin"

    def line(self) -> str:
        return f"{self.kind}#{self.index}: {self.description}"


def _normalize(message: str) -> str:
    """A message with numbers and quoted names blotted out (for classing findings)."""
    message = re.sub(r"'[^']*'", "'…'", message)
    message = re.sub(r'"[^"]*"', '"…"', message)
    return re.sub(r"\d+", "N", message)


def _first_line(text: str, limit: int = 240) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _where(exc: BaseException) -> str:
    """The innermost frame of tileir's own code in `exc`'s traceback, as file:line."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/tileir/" in f.filename and "fuzz_campaign" not in f.filename]
    chosen = (ours or frames or [None])[-1]
    if chosen is None:
        return "?"
    return f"{Path(chosen.filename).name}:{chosen.lineno}"


def _tail(exc: BaseException, frames: int = 6) -> str:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    keep = [x for x in "".join(lines).splitlines() if x.strip(" ^~")]
    # the last `frames` frames (two lines each, roughly) and the exception
    return "\n".join(keep[-(2 * frames + 4):])[-4000:]


def exception_finding(kind: str, index: int, check: str, exc: BaseException, data: bytes,
                      suffix: str) -> Finding:
    """A finding for an exception raised where none (or only a TileIRError) may be."""
    name = type(exc).__name__
    message = str(exc)
    cause = exc.__cause__ if "internal error" in message and exc.__cause__ else exc
    signature = f"{kind}: {check}: {name} at {_where(cause)}"
    if isinstance(exc, (TileIRError, AssertionError, Hang)):
        signature += ": " + _normalize(_first_line(message, 400))[:90]
    return Finding(kind, index, check, f"{check}: {name}: {_first_line(message)}", signature,
                   _tail(exc), data, suffix)


def property_finding(kind: str, index: int, check: str, detail: str, data: bytes,
                     suffix: str, what: str = "") -> Finding:
    """A finding for a property that failed without an exception (a mismatch)."""
    signature = f"{kind}: {check}" + (f": {what}" if what.startswith("first difference")
                                       else "")
    return Finding(kind, index, check, check + (f": {what}" if what else ""), signature,
                   detail[-4000:], data, suffix)


def _diff_key(a: str, b: str) -> str:
    """The op (first word after any results) of the first line where `a` and `b` differ,
    to tell apart print mismatches of different ops."""
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            m = re.match(r"\s*(?:[%\w#:, ]+=\s*)?([\w$.]+)", x)
            return m.group(1) if m else "?"
    return "line count"


def _differs(a: str, b: str) -> str:
    return f"first difference in '{_diff_key(a, b)}'"


def _diff(a: str, b: str) -> str:
    """The first differing line of `a` and `b`, for a finding's detail."""
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n- {x[:300]}\n+ {y[:300]}"
    return f"lengths differ: {len(la)} vs {len(lb)} lines"


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `Hang` in this thread after `seconds` (main thread only; else no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"input still running after {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: The versions of a reader built as NVIDIA's test build is (the suite's testing versions
#: added): it reads non-entry functions (``testing$func``), which the released reader refuses.
WITH_TESTING = "13.1 13.2 13.3 13.4 13.5 250.0 250.1"
VERSIONS_VARIABLE = "TILEIR_BYTECODE_VERSIONS"


@contextlib.contextmanager
def bytecode_versions(testing: bool) -> Iterator[None]:
    """Run the bytecode reader and writer as released (`testing` False) or as the test
    build (`testing` True), whatever the environment says."""
    previous = os.environ.get(VERSIONS_VARIABLE)
    if testing:
        os.environ[VERSIONS_VARIABLE] = WITH_TESTING
    else:
        os.environ.pop(VERSIONS_VARIABLE, None)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(VERSIONS_VARIABLE, None)
        else:
            os.environ[VERSIONS_VARIABLE] = previous


# ---- seeds --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def text_seeds() -> tuple[tuple[str, str], ...]:
    """(name, text) of every seed: each example ``.mlir`` file, and every ``// -----`` chunk
    of every ``.mlir`` file of the conformance suite (when ../shared is present)."""
    seeds = []
    for path in sorted(EXAMPLES.rglob("*.mlir")):
        seeds.append((str(path.relative_to(EXAMPLES.parent)), path.read_text()))
    if CONFORMANCE.is_dir():
        for path in sorted(CONFORMANCE.rglob("*.mlir")):
            try:
                text = path.read_text()
            except (OSError, UnicodeDecodeError):
                continue
            for i, chunk in enumerate(re.split(r"(?m)^// -----[^\n]*$", text)):
                if chunk.strip():
                    seeds.append((f"{path.relative_to(CONFORMANCE)}#{i}", chunk))
    return tuple(seeds)


@functools.lru_cache(maxsize=None)
def bytecode_seeds() -> tuple[tuple[str, bytes], ...]:
    """(name, bytes) of every seed: the bytecode of each seed text that parses and writes,
    and the suite's ``.tileirbc`` files that read."""
    seeds = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, text in text_seeds():
            try:
                seeds.append((name, tileir.parse(text, "f.mlir").to_bytecode()))
            except Exception:
                continue
        if CONFORMANCE.is_dir():
            for path in sorted(CONFORMANCE.rglob("*.tileirbc")):
                data = path.read_bytes()
                try:
                    with bytecode_versions(True):
                        tileir.from_bytecode(data)
                except Exception:
                    continue
                seeds.append((str(path.relative_to(CONFORMANCE)), data))
    return tuple(seeds)


@functools.lru_cache(maxsize=None)
def _vocabulary() -> tuple[str, ...]:
    """Every distinct token of the seed texts (for token swaps)."""
    words: set[str] = set()
    for _, text in text_seeds():
        words.update(m.group() for m in TOKEN.finditer(text))
    return tuple(sorted(w for w in words if len(w) <= 80))


# ---- text mutation ------------------------------------------------------------------------

TOKEN = re.compile(r'%[\w$.#-]+|@[\w$.]+|\^\w+|![\w.$]+|#[\w.$]+|"(?:[^"\\\n]|\\.)*"'
                   r'|-?\d[\w.+-]*|[A-Za-z_][\w$.]*|->|\S')
NUMBER = re.compile(r"-?\b\d+(?:\.\d*)?(?:[eE][+-]?\d+)?\b|0x[0-9A-Fa-f]+")
DICTIONARY = (
    "%0#99999999999", "%0#1", "%x#0", "%99999999999", "9" * 5000, "-" + "9" * 400,
    "1." + "0" * 300 + "1", "1.0e99999", "0x" + "F" * 40, "0x7FC00000", "-0.0", "inf", "nan",
    'loc(callsite("a" at "b":1:2))', 'loc(callsite(callsite("a" at "b") at "c"))',
    'loc("f.mlir":4294967296:1)', "loc(unknown)", 'loc(fused["a", "b"])', 'loc("n"("f":1:1))',
    "loc(#loc1)", '#loc1 = loc("x":1:1)\n', "#loc99", "loc(", "loc(" * 80,
    "{", "}", "<", ">", "(", ")", "[", "]", ",", ":", "=", "->", "@", "^bb0:", "%", "#", "!",
    '"\x01"', '"\\00"', '"\\"', '"', "'", "\x00", "\t", "\r\n", "\n", "é", "\u202e", "𝔘𝔫𝔦",
    "\ufeff", "\u00a0", "/*", "//", "// -----\n", "{" * 200, "<" * 200, "(" * 200, "[" * 200,
    "tile<99999999999xf32>", "tile<0xf32>", "tile<-1xi32>", "tile<1x" * 40, "tile<?xf32>",
    "tile<4x4xptr<ptr<f32>>>", "!cuda_tile.tile<", "tensor_view<", "partition_view<",
    "dense<", "dense<[1, 2]>", "array<i32: 1, 2>", "i0", "i1", "i65", "f8E4M3FN", "bf16",
    "f64", "token", "true", "false", "unit", "x" * 5000, " " * 3000, "a" * 200 + "\n",
    "cuda_tile.module @m {\n", "entry @k() {\n", "return\n", "cuda_tile.", "testing$func",
    "assume", "div_by<", "same_elements<", "bounded<", "optimization_hints<", "sm_100",
    "num_cta_in_cga", "#cuda_tile.", "<{", "}>", "attributes {", "{a = 1}", "%c = constant",
)
#: Characters a flip may put in (no lone surrogates: a text must encode as UTF-8).
ALPHABET = ("%@#!^<>{}()[],:=-+.\"'\\/ \n\t0123456789abcdefxyzAEFXZ_$?*~`|&;"
            "\x00\x01\x7f\u00e9\u03bb\u202e\ufeff\U0001d518")


def _span(rng: random.Random, n: int, longest: int = 64) -> tuple[int, int]:
    if n == 0:
        return 0, 0
    start = rng.randrange(n)
    return start, min(n, start + rng.randint(1, longest))


def _mut_flip(rng: random.Random, text: str, other: str) -> str:
    if not text:
        return rng.choice(ALPHABET)
    i = rng.randrange(len(text))
    return text[:i] + rng.choice(ALPHABET) + text[i + 1:]


def _mut_delete(rng: random.Random, text: str, other: str) -> str:
    a, b = _span(rng, len(text), rng.choice((1, 4, 32, 400)))
    return text[:a] + text[b:]


def _mut_duplicate(rng: random.Random, text: str, other: str) -> str:
    a, b = _span(rng, len(text), rng.choice((8, 64, 400)))
    at = rng.randint(0, len(text))
    return text[:at] + text[a:b] * rng.choice((1, 1, 2, 20)) + text[at:]


def _mut_splice(rng: random.Random, text: str, other: str) -> str:
    a, b = _span(rng, len(other), rng.choice((16, 128, 800)))
    at = rng.randint(0, len(text))
    if rng.random() < 0.5:
        return text[:at] + other[a:b] + text[at:]
    end = min(len(text), at + rng.randint(0, 200))
    return text[:at] + other[a:b] + text[end:]


def _mut_token(rng: random.Random, text: str, other: str) -> str:
    """Insert a dictionary token at a token boundary (or anywhere)."""
    word = rng.choice(DICTIONARY)
    bounds = [m.start() for m in TOKEN.finditer(text)]
    at = rng.choice(bounds) if bounds and rng.random() < 0.8 else rng.randint(0, len(text))
    return text[:at] + word + text[at:]


def _mut_swap_token(rng: random.Random, text: str, other: str) -> str:
    """Replace one token by another token of the seeds (keeps more inputs parseable)."""
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text
    m = rng.choice(tokens)
    if rng.random() < 0.5:   # a token of the same kind in this text
        same = [t.group() for t in tokens if t.group()[:1] == m.group()[:1]]
        word = rng.choice(same)
    else:
        word = rng.choice(_vocabulary())
    return text[:m.start()] + word + text[m.end():]


def _mut_number(rng: random.Random, text: str, other: str) -> str:
    numbers = list(NUMBER.finditer(text))
    if not numbers:
        return _mut_token(rng, text, other)
    m = rng.choice(numbers)
    value = rng.choice(("0", "1", "-1", "2", "3", "7", "64", "127", "128", "255", "256",
                        "2147483647", "2147483648", "-2147483649", "4294967296",
                        "9223372036854775808", "18446744073709551616", "99999999999",
                        "1.5", "1e38", "3.5e38", "-0.0", "0x7F800000", "0xFFFF", "1" * 60,
                        "0x7FC00001", "0xFFC00000", "0x00000001", "0x0001", "0x7C01",
                        "1.0e-45", "1.17549435E-38", "3.4028235e+38", "6.0e-8", "65504.0",
                        "65520.0", "4.9e-324", "1.7976931348623157e308", "0.1", "-1.5e-7",
                        "0x8000000000000000", "0xFFFFFFFFFFFFFFFF", "00", "+1", "1.", ".5"))
    return text[:m.start()] + value + text[m.end():]


STRING_CONTENTS = ("", "\\00", "\\n", "\\\\", '\\"', "é", "\\ff", "a\\0ab", "\\t", "x" * 300,
                   "\u202e", "\U0001d518", "\\7", "\\", "a b", "$", "0", "-", "\\C3\\A9", "%", "@",
                   "{", "}", "\\0A")


def _mut_string(rng: random.Random, text: str, other: str) -> str:
    """Replace the contents of a string literal (names, locations, print formats)."""
    strings = [m for m in TOKEN.finditer(text) if m.group().startswith('"')]
    if not strings:
        return _mut_number(rng, text, other)
    m = rng.choice(strings)
    inner = rng.choice(STRING_CONTENTS)
    if rng.random() < 0.3:
        inner = m.group()[1:-1] + inner
    return text[:m.start()] + '"' + inner + '"' + text[m.end():]


def _mut_lines(rng: random.Random, text: str, other: str) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return _mut_delete(rng, text, other)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    action = rng.randrange(3)
    if action == 0:
        lines[i], lines[j] = lines[j], lines[i]
    elif action == 1:
        del lines[i]
    else:
        lines.insert(j, lines[i])
    return "".join(lines)


def _mut_long_line(rng: random.Random, text: str, other: str) -> str:
    at = rng.randint(0, len(text))
    piece = rng.choice(("x", " ", "%0, ", "1, ", "[", "loc(", "tile<", "// c", "\"a"))
    return text[:at] + piece * rng.choice((500, 3000, 20000 // len(piece))) + text[at:]


TEXT_MUTATORS: tuple[tuple[str, Callable[[random.Random, str, str], str], int], ...] = (
    ("flip", _mut_flip, 3), ("delete", _mut_delete, 3), ("duplicate", _mut_duplicate, 2),
    ("splice", _mut_splice, 2), ("token", _mut_token, 3), ("swap_token", _mut_swap_token, 5),
    ("number", _mut_number, 3), ("lines", _mut_lines, 2), ("long_line", _mut_long_line, 1),
    ("string", _mut_string, 2),
)
_TEXT_WEIGHTS = [w for _, _, w in TEXT_MUTATORS]
GENTLE = tuple(m for m in TEXT_MUTATORS if m[0] in ("swap_token", "number", "lines", "string"))


def _pick_seed(rng: random.Random, seeds: tuple, small: list[int]) -> int:
    if small and rng.random() < 0.9:
        return rng.choice(small)
    return rng.randrange(len(seeds))


@functools.lru_cache(maxsize=None)
def _small_text_seeds() -> list[int]:
    return [i for i, (_, t) in enumerate(text_seeds()) if len(t) <= SMALL]


@functools.lru_cache(maxsize=None)
def _small_bytecode_seeds() -> list[int]:
    return [i for i, (_, b) in enumerate(bytecode_seeds()) if len(b) <= SMALL]


def mutate_text(rng: random.Random) -> tuple[str, str]:
    """A mutated seed text and a label (seed name and mutators)."""
    seeds = text_seeds()
    name, text = seeds[_pick_seed(rng, seeds, _small_text_seeds())]
    if rng.random() < 0.04:
        return text, f"{name} (unmutated)"
    names = []
    gentle = rng.random() < 0.35     # one change that often keeps the text valid
    for _ in range(1 if gentle else 1 + min(int(rng.expovariate(0.7)), 7)):
        label, mutator, _ = rng.choices(GENTLE if gentle else TEXT_MUTATORS,
                                        None if gentle else _TEXT_WEIGHTS)[0]
        other = seeds[rng.randrange(len(seeds))][1]
        text = mutator(rng, text, other)
        names.append(label)
    return text, f"{name} +{'+'.join(names)}"


# ---- bytecode mutation --------------------------------------------------------------------

HUGE = (1 << 31, (1 << 32) - 1, 1 << 32, 1 << 40, (1 << 63) - 1, 1 << 63, (1 << 64) - 1,
        (1 << 70))
SMALL_VALUES = tuple(range(0, 24)) + (127, 128, 255, 256, 1000, 65535)
INTERESTING_BYTES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0x81, 0xCB, 0xFE, 0xFF)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _pos(rng: random.Random, data: bytes) -> int:
    """A position, past the 8-byte header most of the time."""
    if len(data) > 9 and rng.random() < 0.95:
        return rng.randrange(8, len(data))
    return rng.randrange(len(data)) if data else 0


def _b_flip(rng, data, other):
    if not data:
        return bytes([rng.randrange(256)])
    i = _pos(rng, data)
    out = bytearray(data)
    out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _b_byte(rng, data, other):
    if not data:
        return data
    i = _pos(rng, data)
    return data[:i] + bytes([rng.choice(INTERESTING_BYTES)]) + data[i + 1:]


def _b_truncate(rng, data, other):
    return data[:rng.randrange(len(data))] if data else data


def _b_delete(rng, data, other):
    i = _pos(rng, data)
    return data[:i] + data[i + rng.choice((1, 2, 4, 16, 64)):]


def _b_insert(rng, data, other):
    i = _pos(rng, data)
    junk = bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 4, 9))))
    return data[:i] + junk + data[i:]


def _b_duplicate(rng, data, other):
    if not data:
        return data
    a = _pos(rng, data)
    b = min(len(data), a + rng.choice((1, 4, 16, 64, 256)))
    at = _pos(rng, data)
    return data[:at] + data[a:b] * rng.choice((1, 1, 2, 8)) + data[at:]


def _b_varint(rng, data, other):
    """Overwrite the varint at a position with a huge or small value."""
    if not data:
        return data
    start = _pos(rng, data)
    end = start
    while end < len(data) and data[end] & 0x80:
        end += 1
    end = min(end + 1, len(data))
    value = rng.choice(HUGE) if rng.random() < 0.6 else rng.choice(SMALL_VALUES)
    return data[:start] + _varint(value) + data[end:]


def _b_splice(rng, data, other):
    if not other:
        return data
    a = rng.randrange(len(other))
    b = min(len(other), a + rng.choice((4, 32, 256)))
    at = _pos(rng, data)
    end = at + (rng.choice((0, b - a)) if rng.random() < 0.7 else 0)
    return data[:at] + other[a:b] + data[end:]


BYTE_MUTATORS = (("flip", _b_flip, 4), ("byte", _b_byte, 3), ("truncate", _b_truncate, 1),
                 ("delete", _b_delete, 2), ("insert", _b_insert, 2),
                 ("duplicate", _b_duplicate, 2), ("varint", _b_varint, 4),
                 ("splice", _b_splice, 1))
_BYTE_WEIGHTS = [w for _, _, w in BYTE_MUTATORS]


def mutate_bytes(rng: random.Random, data: bytes, corpus: tuple) -> tuple[bytes, list[str]]:
    names = []
    for _ in range(1 + min(int(rng.expovariate(0.9)), 5)):
        label, mutator, _ = rng.choices(BYTE_MUTATORS, _BYTE_WEIGHTS)[0]
        other = corpus[rng.randrange(len(corpus))][1]
        data = mutator(rng, data, other)
        names.append(label)
    return data, names


def mutate_bytecode(rng: random.Random) -> tuple[bytes, str]:
    seeds = bytecode_seeds()
    name, data = seeds[_pick_seed(rng, seeds, _small_bytecode_seeds())]
    data, names = mutate_bytes(rng, data, seeds)
    return data, f"{name} +{'+'.join(names)}"


# ---- the text and bytecode properties -----------------------------------------------------


class Outcome:
    """What one input did: findings and counters."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.stats: collections.Counter[str] = collections.Counter()


def _timed(outcome: Outcome, kind: str, index: int, step: str, data: bytes, suffix: str,
           start: float, slow: float) -> None:
    elapsed = time.monotonic() - start
    if elapsed > slow:
        outcome.findings.append(property_finding(
            kind, index, f"slow: {step}", f"{step} took {elapsed:.2f} s", data, suffix,
            f"took {elapsed:.1f} s (limit {slow:g} s), {len(data)} bytes of input"))


#: What `_attempt` returns when its step raised.
_FAILED = object()


def _attempt(fail: Callable[[str, BaseException], None], what: str,
             step: Callable[[], Any]) -> Any:
    """`step()`'s value, or `_FAILED` once `fail` has reported `what` with what it raised."""
    try:
        return step()
    except Exception as exc:
        fail(what, exc)
        return _FAILED


def _reprints(module: Any, fail: Callable[[str, BaseException], None], out: Outcome,
              kind: str, index: int, data: bytes, suffix: str, differs: str) -> str | None:
    """Print `module`, parse the text back and print it again: a finding (named `differs`)
    when the two texts differ, one through `fail` when a step raises; the printed text, or
    None when a step raised (the checks after it cannot go on)."""
    printed = _attempt(fail, "str(module) raised", lambda: str(module))
    if printed is _FAILED:
        return None
    again = _attempt(fail, "printed text does not parse",
                     lambda: tileir.parse(printed, "p.mlir"))
    if again is _FAILED:
        return None
    reprinted = _attempt(fail, "str(module) raised on the re-parsed module", lambda: str(again))
    if reprinted is _FAILED:
        return None
    if reprinted != printed:
        out.findings.append(property_finding(kind, index, differs, _diff(printed, reprinted),
                                             data, suffix, _differs(printed, reprinted)))
    return printed


def check_text(text: str, index: int = 0, slow: float = SLOW_SECONDS) -> Outcome:
    """Check the text invariants on `text`."""
    out = Outcome()
    data = text.encode("utf-8", "surrogatepass")
    kind, sfx = "text", ".mlir"

    def fail(check: str, exc: BaseException) -> None:
        out.findings.append(exception_finding(kind, index, check, exc, data, sfx))

    start = time.monotonic()
    try:
        ops, diagnostics = check_document(text, "f.mlir")
    except Exception as exc:
        fail("check_document raised", exc)
        return out
    _timed(out, kind, index, "check_document", data, sfx, start, slow)
    if ops is None:
        out.stats["not parsed"] += 1
        return out
    if has_errors(diagnostics):
        out.stats["verify errors"] += 1
        return out
    out.stats["clean"] += 1
    one_module = len(ops) == 1 and ops[0].name == "cuda_tile.module"
    start = time.monotonic()
    try:
        module = tileir.parse(text, "f.mlir")
    except TileIRError as exc:
        if not one_module and "expected one cuda_tile.module" in str(exc):
            out.stats["not one module"] += 1    # check_document reads documents of any ops
            return out
        fail("parse failed though check_document reported no error", exc)
        return out
    except Exception as exc:
        fail("parse raised", exc)
        return out
    if _reprints(module, fail, out, kind, index, data, sfx,
                 "print-parse-print not a fixed point") is None:
        return out
    try:
        debug = module.format(debuginfo=True)
    except Exception as exc:
        fail("format(debuginfo=True) raised", exc)
    else:
        try:
            tileir.parse(debug, "d.mlir")
        except Exception as exc:
            fail("debuginfo text does not parse", exc)
    _timed(out, kind, index, "parse and print", data, sfx, start, slow)
    start = time.monotonic()
    try:
        written = module.to_bytecode()
    except TileIRError:
        out.stats["writer refused"] += 1
        return out
    except Exception as exc:
        fail("to_bytecode raised", exc)
        return out
    out.stats["bytecode written"] += 1
    try:
        read = tileir.from_bytecode(written)
    except TileIRError as exc:
        # The released reader refuses the non-entry functions (testing$func) the writer
        # writes, as NVIDIA's released tools do: read them as the test build does.
        if "non-entry function" not in exc.message:
            fail("from_bytecode(to_bytecode(module)) failed", exc)
            return out
        out.stats["read as test build"] += 1
        try:
            with bytecode_versions(True):
                read = tileir.from_bytecode(written)
                rewritten = read.to_bytecode()
        except Exception as exc:
            fail(f"from_bytecode(to_bytecode(module)) failed ({VERSIONS_VARIABLE}="
                 f"'{WITH_TESTING}')", exc)
            return out
        if rewritten != written:
            out.findings.append(property_finding(
                kind, index, "bytecode write-read-write not a fixed point",
                f"{len(written)} bytes, then {len(rewritten)} bytes (test build)", data, sfx))
        return out
    except Exception as exc:
        fail("from_bytecode(to_bytecode(module)) failed", exc)
        return out
    try:
        rewritten = read.to_bytecode()
    except Exception as exc:
        fail("to_bytecode of the read module raised", exc)
        return out
    if rewritten != written:
        out.findings.append(property_finding(
            kind, index, "bytecode write-read-write not a fixed point",
            f"{len(written)} bytes, then {len(rewritten)} bytes", data, sfx))
    _timed(out, kind, index, "bytecode round trip", data, sfx, start, slow)
    return out


def check_bytecode(data: bytes, index: int = 0, slow: float = SLOW_SECONDS,
                   testing: bool = False) -> Outcome:
    """Check the bytecode invariants on `data`, with the reader and writer as released or
    (`testing`) as NVIDIA's test build."""
    with bytecode_versions(testing):
        out = _check_bytecode(data, index, slow)
    if testing:
        for f in out.findings:
            f.description += f" [with {VERSIONS_VARIABLE}='{WITH_TESTING}']"
            f.signature += " [test build]"
        out.stats["as test build"] += 1
    return out


def _check_bytecode(data: bytes, index: int, slow: float) -> Outcome:
    out = Outcome()
    kind, sfx = "bytecode", ".tileirbc"

    def fail(check: str, exc: BaseException) -> None:
        out.findings.append(exception_finding(kind, index, check, exc, data, sfx))

    start = time.monotonic()
    try:
        tileir.from_bytecode(data, verify=False)
    except TileIRError:
        pass
    except Exception as exc:
        fail("from_bytecode(verify=False) raised", exc)
    start = time.monotonic()
    try:
        module = tileir.from_bytecode(data)
    except TileIRError as exc:
        out.stats["TileIRError"] += 1
        if not str(exc).strip() or not exc.diagnostics:
            out.findings.append(property_finding(kind, index, "TileIRError without a message",
                                                 repr(exc), data, sfx))
        _timed(out, kind, index, "from_bytecode", data, sfx, start, slow)
        return out
    except Exception as exc:
        fail("from_bytecode raised", exc)
        return out
    _timed(out, kind, index, "from_bytecode", data, sfx, start, slow)
    out.stats["module read"] += 1
    start = time.monotonic()
    printed = _reprints(module, fail, out, kind, index, data, sfx,
                        "printed text re-parses differently")
    if printed is None:
        return out
    try:
        written = module.to_bytecode()
    except TileIRError:
        out.stats["writer refused"] += 1
        return out
    except Exception as exc:
        fail("to_bytecode raised", exc)
        return out
    read = _attempt(fail, "the written bytecode does not read back",
                    lambda: tileir.from_bytecode(written))
    text = _FAILED if read is _FAILED else _attempt(
        fail, "str(module) raised on the re-read module", lambda: str(read))
    if text is _FAILED:
        return out
    if text != printed:
        out.findings.append(property_finding(kind, index, "re-read module prints differently",
                                             _diff(printed, text), data, sfx,
                                             _differs(printed, text)))
    _timed(out, kind, index, "print and round trip", data, sfx, start, slow)
    return out


# ---- the CLI campaign ---------------------------------------------------------------------

CLI_COMMANDS = (
    ("tileir check", ["-m", "tileir", "check"], None),
    ("cuda-tile-opt", ["-m", "tileir.cli.opt"], None),
    ("translate -mlir-to-cudatilebc", ["-m", "tileir.cli.translate", "-mlir-to-cudatilebc"],
     "out.tileirbc"),
    ("translate -cudatilebc-to-mlir", ["-m", "tileir.cli.translate", "-cudatilebc-to-mlir"],
     None),
)
CLI_FLAGS = ("-split-input-file", "-mlir-print-debuginfo", "-verify-diagnostics",
             "-allow-unregistered-dialect", "-mlir-print-op-generic")


def cli_input(seed: int, index: int) -> tuple[bytes, str, list[str], str]:
    """(file bytes, suffix, argument list with FILE and OUT placeholders, label)."""
    rng = random.Random(f"cli:{seed}:{index}")
    which = index % len(CLI_COMMANDS)
    name, argv, output = CLI_COMMANDS[which]
    want_bytecode = rng.random() < (0.7 if which == 3 else 0.5 if which == 0 else 0.2)
    if want_bytecode:
        data, label = mutate_bytecode(rng)
        suffix = ".tileirbc"
    else:
        text, label = mutate_text(rng)
        data, suffix = text.encode("utf-8"), ".mlir"
        if rng.random() < 0.08:       # not UTF-8
            data, _ = mutate_bytes(rng, data, bytecode_seeds())
    argv = list(argv) + ["FILE"]
    if output:
        argv += ["-o", "OUT"]
    if which != 0 and rng.random() < 0.3:
        argv.append(rng.choice(CLI_FLAGS))
    return data, suffix, argv, f"{name}: {label}"


def check_cli(data: bytes, suffix: str, argv: list[str], index: int,
              workdir: Path) -> Outcome:
    out = Outcome()
    path = workdir / f"input{suffix}"
    path.write_bytes(data)
    output = workdir / "out.tileirbc"
    if output.exists():
        output.unlink()
    args = [sys.executable] + [str(path) if a == "FILE" else str(output) if a == "OUT" else a
                               for a in argv]
    shown = " ".join(["python"] + [f"INPUT{suffix}" if a == "FILE" else "OUT.tileirbc"
                                   if a == "OUT" else a for a in argv])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(tileir.__file__).parents[1]),
                                                      env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=CLI_TIMEOUT, cwd=workdir, env=env)
    except subprocess.TimeoutExpired:
        out.findings.append(Finding("cli", index, "timeout", f"`{shown}` ran past "
                                    f"{CLI_TIMEOUT:g} s", f"cli: timeout: {argv[1]}",
                                    f"command: {shown}", data, suffix))
        return out
    out.stats[f"exit {proc.returncode}"] += 1
    stderr = proc.stderr.decode("utf-8", "replace")
    problem = None
    if "Traceback (most recent call last)" in stderr:
        problem = "traceback"
    elif proc.returncode not in (0, 1):
        problem = f"exit status {proc.returncode}"
    elif "internal error" in stderr:      # a bug the tool caught and reported in one line
        problem = "internal error"
    if problem:
        lines = stderr.strip().splitlines() or [""]
        last = _first_line(next((x for x in lines if "internal error" in x), lines[-1])
                           if problem == "internal error" else lines[-1], 200)
        frames = re.findall(r'File "([^"]*tileir/[^"]*)", line (\d+)', stderr)
        where = f"{Path(frames[-1][0]).name}:{frames[-1][1]}" if frames else "?"
        exc_name = last.split(":")[0] if problem == "traceback" else \
            _normalize(last)[:100] if problem == "internal error" else ""
        out.findings.append(Finding(
            "cli", index, problem, f"`{shown}`: {problem}: {last}",
            f"cli: {problem}: {argv[1]} {exc_name} at {where}",
            f"command: {shown}\nexit status {proc.returncode}\n{stderr[-3000:]}", data, suffix))
    return out


# ---- the launch campaign ------------------------------------------------------------------


@dataclass
class Arg:
    """One launch argument: an array (copied afresh for every run, then given the
    `layout`) or a scalar."""

    value: Any
    layout: str = "plain"        # plain, strided, readonly, fortran
    alias: int | None = None     # pass the array made for this earlier argument instead

    def make(self) -> tuple[Any, np.ndarray | None]:
        """(what launch gets, the buffer to compare)"""
        if not isinstance(self.value, np.ndarray):
            return self.value, None
        base = self.value.copy()
        if self.layout == "strided":
            return base[::2], base
        if self.layout == "readonly":
            view = base.view()
            view.flags.writeable = False
            return view, base
        if self.layout == "fortran":
            base = np.asfortranarray(base)
            return base, base
        return base, base


def _f32(rng: random.Random, shape: Any, lo: float = -4.0, hi: float = 4.0) -> np.ndarray:
    g = np.random.default_rng(rng.randrange(1 << 30))
    return g.uniform(lo, hi, shape).astype(np.float32)


def _i32(rng: random.Random, shape: Any, lo: int = -1000, hi: int = 1000,
         dtype: Any = np.int32) -> np.ndarray:
    g = np.random.default_rng(rng.randrange(1 << 30))
    return g.integers(lo, hi, shape).astype(dtype)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _k_vector_add(rng):
    n = rng.choice((1, 63, 64, 65, 200, 1000))
    return _cdiv(n, 64), [_f32(rng, n), _f32(rng, n), np.zeros(n, np.float32), n], None


def _k_matmul(dtype):
    def build(rng):
        m, k, n = rng.randint(1, 40), rng.randint(1, 24), rng.randint(1, 40)
        a, b = _f32(rng, (m, k), -8, 8).round(), _f32(rng, (k, n), -8, 8).round()
        c = np.zeros((m, n), dtype)
        return ((_cdiv(m, 16), _cdiv(n, 16)),
                [a.astype(dtype), m, k, k, b.astype(dtype), k, n, n, c, m, n, n], None)
    return build


def _k_rows(name):
    def build(rng):
        m, n = rng.randint(1, 6), rng.randint(1, 64)
        x, y = _f32(rng, (m, n)), np.zeros((m, n), np.float32)
        args = [x, m, n, n, y, m, n, n]
        if name == "layernorm":
            args += [_f32(rng, n), _f32(rng, n), n, rng.choice((0.0, 1e-5, 1.0))]
        return m, args, None
    return build


def _k_flash(rng):
    sq, sk = rng.randint(1, 33), rng.randint(1, 33)
    q, k, v = (_f32(rng, (s, 16), -1, 1).astype(np.float16) for s in (sq, sk, sk))
    o = np.zeros((sq, 16), np.float32)
    return _cdiv(sq, 16), [q, sq, 16, k, sk, 16, v, sk, 16, o, sq, 16, 0.25], None


def _k_cumsum(rng):
    rows = rng.randint(1, 6)
    return rows, [_f32(rng, (rows, 16)), np.zeros((rows, 16), np.float32), rows], None


def _k_argmax(rng):
    n = 32 * rng.randint(1, 4)
    return n // 32, [_f32(rng, n), np.zeros(n // 32, np.int32), n], None


def _k_custom_reduce(rng):
    rows = 4 * rng.randint(1, 3)
    return rows // 4, [_f32(rng, (rows, 8)), _i32(rng, (rows, 8), -70000, 70000),
                       np.zeros(rows, np.float32), np.zeros(rows, np.int32), rows], None


def _k_histogram(rng):
    n, bins = rng.randint(1, 80), rng.randint(1, 9)
    return _cdiv(n, 16), [_i32(rng, n, 0, bins), np.zeros(bins, np.int32), n], None


def _k_int_bits(rng):
    return 1, [_i32(rng, 16, -2**31, 2**31), _i32(rng, 16, 0, 64),
               _i32(rng, 16, -2**63, 2**63, np.int64), _i32(rng, 16, 0, 128, np.int64),
               np.zeros(112, np.int32), np.zeros(112, np.int64)], None


def _k_math_ops(rng):
    n = 16 * rng.randint(1, 3)
    return n // 16, [_f32(rng, n, 0.01, 8), np.zeros(8 * n, np.float32), n], None


def _k_shape_ops(rng):
    return 1, [_i32(rng, 32)] + [np.zeros(s, np.int32) for s in (32, 64, 8, 32, 32)], None


def _k_spin_lock(rng):
    return rng.randint(1, 6), [np.zeros(1, np.int32), _i32(rng, 1)], 3000


def _k_div(rng):
    n = 16 * rng.randint(1, 3)
    b = _i32(rng, n, -5, 5)
    if rng.random() < 0.6:
        b[b == 0] = 1
    return n // 16, [_i32(rng, n), b, np.zeros(n, np.int32), np.zeros(n, np.int32), n], None


def _k_ftoi(rng):
    n = 16 * rng.randint(1, 3)
    x = _f32(rng, n, -1e3, 1e3)
    if rng.random() < 0.4:
        x[rng.randrange(n)] = rng.choice((np.nan, np.inf, -np.inf, 3e9))
    return n // 16, [x, np.zeros(n, np.int32), n, rng.choice((0, 1))], None


def _k_race(rng):
    blocks = rng.randint(1, 5)
    return blocks, [_i32(rng, blocks), _i32(rng, blocks)], None


def _k_collatz(rng):
    blocks = rng.randint(1, 6)
    return blocks, [np.full(blocks, -1, np.int32), rng.randint(1, 60)], None


KERNELS: dict[str, Callable[[random.Random], tuple[Any, list, int | None]]] = {
    "vector_add": _k_vector_add, "matmul_f32": _k_matmul(np.float32),
    "matmul_f16": _k_matmul(np.float16), "softmax": _k_rows("softmax"),
    "layernorm": _k_rows("layernorm"), "flash_attention": _k_flash, "cumsum": _k_cumsum,
    "argmax": _k_argmax, "custom_reduce": _k_custom_reduce, "histogram": _k_histogram,
    "int_bits": _k_int_bits, "math_ops": _k_math_ops, "shape_ops": _k_shape_ops,
    "spin_lock": _k_spin_lock, "ub_div_by_zero": _k_div, "ub_ftoi_nan": _k_ftoi,
    "ub_rmw_race": _k_race, "while_break_print": _k_collatz,
}
#: Kernels whose mutated arguments may make a block run forever: always given max_ops.
ENDLESS = {"spin_lock": 3000, "while_break_print": 20000}

INT_VALUES = (0, 1, -1, 2, 15, 16, 17, 33, 64, 65, 1000, 2**31 - 1, -2**31, 2**31, 2**32 - 1,
              2**32, -2**31 - 1)
FLOAT_VALUES = (0.0, -0.0, 1.0, float("nan"), float("inf"), float("-inf"), 1e38, 1e-45,
                1e300, -3.5)


def _mutate_launch(rng: random.Random, grid: Any, args: list[Arg]) -> tuple[Any, list[str]]:
    """Mutate the grid, a scalar or an array of a launch, in place; the grid and labels."""
    names = []
    for _ in range(rng.randint(1, 3)):
        action = rng.choices(("int", "float", "grid", "shrink", "grow", "values", "layout",
                              "dtype", "alias"), (6, 2, 3, 2, 2, 3, 1, 1, 2))[0]
        scalars = [a for a in args if not isinstance(a.value, np.ndarray)]
        arrays = [a for a in args if isinstance(a.value, np.ndarray)]
        if action == "int" and any(isinstance(a.value, int) for a in scalars):
            arg = rng.choice([a for a in scalars if isinstance(a.value, int)])
            arg.value = rng.choice(INT_VALUES + (arg.value + 1, arg.value - 1, 2 * arg.value))
        elif action == "float" and any(isinstance(a.value, float) for a in scalars):
            arg = rng.choice([a for a in scalars if isinstance(a.value, float)])
            arg.value = rng.choice(FLOAT_VALUES)
        elif action == "grid":
            dims = list(grid) if isinstance(grid, tuple) else [grid]
            i = rng.randrange(len(dims))
            dims[i] = max(0, min(64, rng.choice((0, 1, dims[i] - 1, dims[i] + 1, 2 * dims[i],
                                                 3))))
            if rng.random() < 0.2 and len(dims) < 3:
                dims.append(rng.choice((1, 2)))
            grid = tuple(dims) if len(dims) > 1 or rng.random() < 0.5 else dims[0]
        elif action in ("shrink", "grow") and arrays:
            arg = rng.choice(arrays)
            flat = arg.value.reshape(-1)
            if action == "shrink" and flat.size > 1:
                arg.value = flat[:rng.randrange(1, flat.size)].copy()
            else:
                arg.value = np.concatenate([flat, flat[:rng.randint(1, 17)]])
        elif action == "values" and arrays:
            arg = rng.choice(arrays)
            flat = arg.value.reshape(-1).copy()
            i = rng.randrange(flat.size)
            if flat.dtype.kind == "f":
                with np.errstate(over="ignore"):     # (1e38 as f16 is inf)
                    flat[i] = rng.choice(FLOAT_VALUES[:7])
            else:
                info = np.iinfo(flat.dtype)
                flat[i] = rng.choice((info.min, info.max, 0, min(1 << 20, int(info.max)),
                                      -1 if info.min < 0 else 1))
            arg.value = flat.reshape(arg.value.shape)
        elif action == "alias" and len(arrays) > 1:
            i, j = sorted(rng.sample([k for k, a in enumerate(args)
                                      if isinstance(a.value, np.ndarray)], 2))
            if args[i].alias is not None or args[j].alias is not None:
                continue
            args[j].alias = i
        elif action == "layout" and arrays:
            rng.choice(arrays).layout = rng.choice(("strided", "readonly", "fortran"))
        elif action == "dtype" and arrays:
            arg = rng.choice(arrays)
            with np.errstate(all="ignore"):        # (NaN to an integer)
                arg.value = arg.value.astype(rng.choice((np.float64, np.int64, np.uint32,
                                                         np.float32, np.int16)))
        else:
            continue
        names.append(action)
    return grid, names


def launch_input(seed: int, index: int) -> dict[str, Any]:
    """The kernel, grid, arguments and options of launch input `index`."""
    rng = random.Random(f"launch:{seed}:{index}")
    name = sorted(KERNELS)[index % len(KERNELS)] if index < len(KERNELS) else \
        rng.choice(sorted(KERNELS))
    grid, values, max_ops = KERNELS[name](rng)
    args = [Arg(v) for v in values]
    names: list[str] = []
    if rng.random() < 0.7:
        grid, names = _mutate_launch(rng, grid, args)
    if name in ENDLESS:
        max_ops = ENDLESS[name]
    return {"kernel": name, "grid": grid, "args": args, "max_ops": max_ops,
            "workers": rng.choice((1, 2)), "label": f"{name} +{'+'.join(names) or 'none'}"}


@functools.lru_cache(maxsize=None)
def kernel_module(name: str) -> tileir.ir.Module:
    path = EXAMPLES / "kernels" / f"{name}.mlir"
    return tileir.parse(path.read_text(), f"{name}.mlir")


#: max_ops of a checks-off run of a launch in which checks on found undefined behaviour.
UNCHECKED_MAX_OPS = 20000
RUNS = [(engine, schedule, checks) for checks in (True, False)
        for schedule in ("sequential", "reverse") for engine in ("blocks", "auto")]
_BLOCK = re.compile(r"\(tile block \(\d+, \d+, \d+\)\)")


def launch_script(spec: dict[str, Any]) -> bytes:
    """A standalone script that rebuilds the launch and runs it the eight ways."""
    lines = ["# " + spec["label"], "import io, numpy as np, tileir",
             "from tileir.interp import launch",
             "from importlib import resources",
             f"name = {spec['kernel']!r}",
             "text = resources.files('tileir').joinpath(f'examples/kernels/{name}.mlir')"
             ".read_text()",
             "module = tileir.parse(text, f'{name}.mlir')", "", "def args():", "    out = []"]
    for arg in spec["args"]:
        v = arg.value
        if arg.alias is not None:
            lines.append(f"    out.append(out[{arg.alias}])   # the same array again")
        elif isinstance(v, np.ndarray):
            lines.append(f"    a = np.frombuffer(bytes.fromhex('{v.tobytes().hex()}'), "
                         f"np.{v.dtype.name}).reshape({v.shape}).copy()")
            if arg.layout == "strided":
                lines.append("    a = a[::2]")
            elif arg.layout == "readonly":
                lines.append("    a = a.view(); a.flags.writeable = False")
            elif arg.layout == "fortran":
                lines.append("    a = np.asfortranarray(a)")
            lines.append("    out.append(a)")
        else:
            shown = f"float({str(v)!r})" if isinstance(v, float) and not math.isfinite(v) \
                else repr(v)
            lines.append(f"    out.append({shown})")
    lines += ["    return out", "",
              f"for engine, schedule, checks in {RUNS!r}:",
              "    a = args()",
              "    try:",
              f"        run = launch(module, None, {spec['grid']!r}, a, engine=engine, "
              f"schedule=schedule, checks=checks, max_ops={spec['max_ops']!r}, "
              f"workers={spec['workers']!r}, stdout=io.StringIO())",
              "        print(engine, schedule, checks, 'ok', run.engine, "
              "[x.tobytes().hex()[:32] for x in a if isinstance(x, np.ndarray)])",
              "    except tileir.ExecutionError as e:",
              "        print(engine, schedule, checks, 'ExecutionError:', e.message)", ""]
    return "\n".join(lines).encode()


def check_launch(spec: dict[str, Any], index: int = 0) -> Outcome:
    """Run the launch of `spec` the eight ways and compare."""
    out = Outcome()
    module = kernel_module(spec["kernel"])
    script = None

    def data() -> bytes:
        nonlocal script
        if script is None:
            script = launch_script(spec)
        return script

    def problem(check: str, what: str, detail: str = "") -> None:
        finding = property_finding("launch", index, check, detail or what, data(), ".py",
                                   f"{spec['kernel']}: {what}")
        finding.signature = f"launch: {check}: {spec['kernel']}"
        out.findings.append(finding)

    results: dict[tuple, tuple] = {}
    for engine, schedule, checks in RUNS:
        max_ops = spec["max_ops"]
        if not checks and results[(engine, schedule, True)][0] != "ok":
            # Undefined behaviour (found with checks on) unchecked may run for ever (a loop
            # bound read past a view): bounded, and its results compared with nothing.
            max_ops = min(max_ops or UNCHECKED_MAX_OPS, UNCHECKED_MAX_OPS)
        made: list[tuple[Any, Any]] = []
        for a in spec["args"]:
            made.append((made[a.alias][0], None) if a.alias is not None else a.make())
        values = [m[0] for m in made]
        buffers = [m[1] for m in made if m[1] is not None]
        before = [b.tobytes() for b in buffers]
        stream = io.StringIO()
        key = (engine, schedule, checks)
        out.stats["launches"] += 1
        try:
            run = launch(module, None, spec["grid"], values, engine=engine, schedule=schedule,
                         checks=checks, max_ops=max_ops, workers=spec["workers"],
                         stdout=stream)
        except ExecutionError as exc:
            out.stats["ExecutionError"] += 1
            results[key] = ("error", exc.message)
            if "internal error" in exc.message:
                finding = exception_finding("launch", index, f"internal error ({engine})", exc,
                                            data(), ".py")
                finding.description = (f"{spec['kernel']} {engine}/{schedule}/checks={checks}"
                                       f": {finding.description}")
                out.findings.append(finding)
            changed = [i for i, (b, was) in enumerate(zip(buffers, before)) if b.tobytes() != was]
            if changed:
                problem("failed launch left arguments changed",
                        f"{engine}/{schedule}/checks={checks}: buffers {changed} changed "
                        f"after: {_first_line(exc.message, 150)}")
            continue
        except Exception as exc:
            finding = exception_finding("launch", index, f"launch raised ({engine})", exc,
                                        data(), ".py")
            finding.description = (f"{spec['kernel']} {engine}/{schedule}/checks={checks}: "
                                   f"{finding.description}")
            out.findings.append(finding)
            results[key] = ("crash", repr(exc))
            continue
        out.stats[f"ran on {run.engine}"] += 1
        if run.reason and "batched engine failed" in run.reason:
            problem("batched engine failed internally (fell back to blocks)",
                    f"{engine}/{schedule}/checks={checks}: {_first_line(run.reason, 200)}")
        results[key] = ("ok", tuple(b.tobytes() for b in buffers),
                        tuple(sorted(stream.getvalue().splitlines())))

    def show(r: tuple) -> str:
        return r[0] if r[0] == "ok" else f"{r[0]}: {_first_line(r[1], 160)}"

    # both engines, same schedule and checks: the same outcome, outputs and diagnostic
    # (outputs need not agree with checks off when checks on found undefined behaviour)
    checked_clean = all(results[(e, s, True)][0] == "ok" for e, s, _ in RUNS)
    for schedule in ("sequential", "reverse"):
        for checks in (True, False):
            if not checks and not checked_clean:
                continue
            a, b = results[("blocks", schedule, checks)], results[("auto", schedule, checks)]
            if "crash" in (a[0], b[0]):
                continue
            where = f"{schedule}, checks={checks}"
            if a[0] != b[0]:
                problem("engines disagree on failing",
                        f"{where}: blocks {show(a)}; auto {show(b)}")
            elif a[0] == "error" and a[1] != b[1]:
                problem("engines give different diagnostics",
                        f"{where}: blocks {show(a)}; auto {show(b)}")
            elif a[0] == "ok" and (checks or checked_clean) and a[1] != b[1]:
                problem("engines give different outputs", f"{where}")
    # checks on: both schedules agree on failing and, when both succeed, on outputs
    for engine in ("blocks", "auto"):
        a, b = results[(engine, "sequential", True)], results[(engine, "reverse", True)]
        if "crash" in (a[0], b[0]):
            continue
        if a[0] != b[0]:
            problem("schedules disagree on failing",
                    f"{engine}: sequential {show(a)}; reverse {show(b)}")
        elif a[0] == "ok" and a[1:] != b[1:]:
            problem("schedules give different outputs", f"{engine}, checks=True")
    # a launch that checks on finds clean behaves the same with checks off
    if checked_clean:
        reference = results[("blocks", "sequential", True)]
        for (engine, schedule, checks), r in results.items():
            if checks or r[0] == "crash":
                continue
            if r[0] != "ok":
                problem("checks=False fails where checks=True runs",
                        f"{engine}/{schedule}: {show(r)}")
            elif r[1] != reference[1]:
                problem("checks=False gives other outputs", f"{engine}/{schedule}")
    return out


# ---- running a campaign -------------------------------------------------------------------


def run_one(kind: str, seed: int, index: int, workdir: Path | None = None,
            slow: float = SLOW_SECONDS) -> Outcome:
    """Make input `index` of campaign `kind` and check it, under the hard time limit; any
    failure of the checking itself is a finding too, never an exception."""
    spec: Any = None
    data, suffix = b"", ".bin"
    try:
        with time_limit(HANG_SECONDS[kind]):
            if kind == "text":
                text, _ = mutate_text(random.Random(f"text:{seed}:{index}"))
                data, suffix = text.encode("utf-8"), ".mlir"
                return check_text(text, index, slow)
            if kind == "bytecode":
                rng = random.Random(f"bytecode:{seed}:{index}")
                data, _ = mutate_bytecode(rng)
                suffix = ".tileirbc"
                return check_bytecode(data, index, slow, testing=rng.random() < 0.5)
            if kind == "cli":
                data, suffix, argv, _ = cli_input(seed, index)
                if workdir is None:
                    with tempfile.TemporaryDirectory(prefix="tileir-fuzz-cli-") as tmp:
                        return check_cli(data, suffix, argv, index, Path(tmp))
                return check_cli(data, suffix, argv, index, workdir)
            if kind == "launch":
                spec = launch_input(seed, index)
                return check_launch(spec, index)
            raise ValueError(f"unknown campaign {kind!r}")
    except (Exception, Hang) as exc:
        if spec is not None:
            data, suffix = launch_script(spec), ".py"
        outcome = Outcome()
        check = "hang" if isinstance(exc, Hang) else "uncaught exception"
        outcome.findings.append(exception_finding(kind, index, check, exc, data, suffix))
        return outcome


@dataclass
class Tally:
    """What a campaign saw."""

    kind: str
    inputs: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    stats: collections.Counter = field(default_factory=collections.Counter)

    def add(self, outcome: Outcome) -> None:
        self.inputs += 1
        self.findings.extend(outcome.findings)
        self.stats.update(outcome.stats)


def _quiet_numpy() -> None:
    """As the test suite configures: a NumPy RuntimeWarning inside tileir is an error."""
    warnings.simplefilter("error", RuntimeWarning)


def run_campaign(kind: str, count: int, seed: int = 0, *, jobs: int = 0,
                 progress: bool = False, tally: Tally | None = None) -> list[Finding]:
    """Run `count` inputs of campaign `kind` (in this process when `jobs` is 0, else in
    `jobs` worker processes) and return the findings, in input order."""
    if kind not in KINDS:
        raise ValueError(f"unknown campaign {kind!r}; one of {', '.join(KINDS)}")
    tally = tally if tally is not None else Tally(kind)
    start = time.monotonic()
    if jobs <= 0:
        with warnings.catch_warnings():
            _quiet_numpy()
            with tempfile.TemporaryDirectory(prefix="tileir-fuzz-") as tmp:
                for index in range(count):
                    tally.add(run_one(kind, seed, index, Path(tmp)))
                    _progress(progress, tally, count, start)
    else:
        _run_parallel(kind, count, seed, jobs, tally, progress, start)
    tally.seconds = time.monotonic() - start
    tally.findings.sort(key=lambda f: f.index)
    return tally.findings


_last_progress = [0.0]


def _progress(enabled: bool, tally: Tally, count: int, start: float) -> None:
    now = time.monotonic()
    if enabled and (now - _last_progress[0] > 15 or tally.inputs == count):
        _last_progress[0] = now
        classes = len({f.signature for f in tally.findings})
        print(f"  {tally.kind}: {tally.inputs:,}/{count:,} inputs, {len(tally.findings):,} "
              f"findings ({classes} classes), {tally.inputs / max(now - start, 1e-9):,.1f}/s",
              file=sys.stderr, flush=True)


def _worker(kind: str, seed: int, conn: Any, memory_gb: float) -> None:
    """A worker process: check the indices the parent sends, one message per input."""
    try:
        import resource
        limit = int(memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ImportError, ValueError, OSError):
        pass
    _quiet_numpy()
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent handles Ctrl-C
    with tempfile.TemporaryDirectory(prefix="tileir-fuzz-") as tmp:
        while True:
            batch = conn.recv()
            if batch is None:
                return
            for index in batch:
                outcome = run_one(kind, seed, index, Path(tmp))
                conn.send((index, outcome.findings, dict(outcome.stats)))


def _run_parallel(kind: str, count: int, seed: int, jobs: int, tally: Tally,
                  progress: bool, start: float, memory_gb: float = 6.0) -> None:
    """Spread the inputs over `jobs` worker processes; a worker silent past the hard limit
    (or dead) is killed and replaced, and its current input counted as a hang (crash)."""
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    # small batches for slow inputs, larger ones for fast ones
    batch = {"text": 25, "bytecode": 25, "cli": 1, "launch": 1}[kind]
    pending = collections.deque(range(count))
    grace = HANG_SECONDS[kind] + 30.0
    workers: list[dict[str, Any]] = []

    def spawn() -> dict[str, Any]:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(kind, seed, child, memory_gb), daemon=True)
        proc.start()
        child.close()
        return {"proc": proc, "conn": parent, "batch": collections.deque(), "since": 0.0}

    def feed(w: dict[str, Any]) -> None:
        if not w["batch"] and pending:
            chunk = [pending.popleft() for _ in range(min(batch, len(pending)))]
            w["batch"].extend(chunk)
            w["since"] = time.monotonic()
            w["conn"].send(chunk)

    def crashed(w: dict[str, Any], why: str) -> None:
        index = w["batch"].popleft()
        data, suffix = _input_of(kind, seed, index)
        tally.add(_single(Finding(kind, index, why, f"{why} (worker process)",
                                  f"{kind}: {why}", "", data, suffix)))
        pending.extendleft(reversed(w["batch"]))
        w["batch"].clear()
        try:
            w["proc"].kill()
        except Exception:
            pass
        w["proc"].join(5)
        w["conn"].close()

    for _ in range(min(jobs, max(count, 1))):
        workers.append(spawn())
    try:
        for w in workers:
            feed(w)
        while any(w["batch"] for w in workers):
            ready = multiprocessing.connection.wait(
                [w["conn"] for w in workers if w["batch"]], timeout=1.0)
            for w in list(workers):
                if not w["batch"]:
                    continue
                if w["conn"] in ready:
                    try:
                        index, findings, stats = w["conn"].recv()
                    except (EOFError, OSError):
                        code = w["proc"].exitcode
                        w["proc"].join(5)
                        crashed(w, f"worker died (exit code {w['proc'].exitcode or code})")
                        workers[workers.index(w)] = w = spawn()
                        feed(w)
                        continue
                    w["batch"].popleft()
                    w["since"] = time.monotonic()
                    outcome = Outcome()
                    outcome.findings, outcome.stats = findings, collections.Counter(stats)
                    tally.add(outcome)
                    _progress(progress, tally, count, start)
                    feed(w)
                elif time.monotonic() - w["since"] > grace:
                    crashed(w, f"timeout: no answer in {grace:g} s")
                    workers[workers.index(w)] = w = spawn()
                    feed(w)
    finally:
        for w in workers:
            try:
                w["conn"].send(None)
            except Exception:
                pass
        for w in workers:
            w["proc"].join(5)
            if w["proc"].is_alive():
                w["proc"].kill()
                w["proc"].join(5)


def _single(finding: Finding) -> Outcome:
    outcome = Outcome()
    outcome.findings.append(finding)
    return outcome


def _input_of(kind: str, seed: int, index: int) -> tuple[bytes, str]:
    """Input `index` of campaign `kind` as a file (for a worker that never answered)."""
    try:
        if kind == "text":
            return mutate_text(random.Random(f"text:{seed}:{index}"))[0].encode(), ".mlir"
        if kind == "bytecode":
            return mutate_bytecode(random.Random(f"bytecode:{seed}:{index}"))[0], ".tileirbc"
        if kind == "cli":
            data, suffix, argv, _ = cli_input(seed, index)
            return data, suffix
        return launch_script(launch_input(seed, index)), ".py"
    except Exception as exc:     # (never expected)
        return repr(exc).encode(), ".txt"


# ---- shrinking and writing findings -------------------------------------------------------


def _signatures(kind: str, data: bytes, target: str) -> set[str]:
    with warnings.catch_warnings():
        _quiet_numpy()
        try:
            with time_limit(10.0):
                if kind == "text":
                    outcome = check_text(data.decode("utf-8"), slow=1e9)
                else:
                    outcome = check_bytecode(data, slow=1e9, testing="[test build]" in target)
        except (Exception, Hang):
            return set()
    return {f.signature for f in outcome.findings}


def shrink(finding: Finding, budget: float = 20.0) -> bytes:
    """A smaller input with the same finding class (text: lines, then characters;
    bytecode: bytes), within `budget` seconds."""
    kind, target = finding.kind, finding.signature
    if kind not in ("text", "bytecode") or "slow" in finding.check or "hang" in finding.check:
        return finding.data
    deadline = time.monotonic() + budget
    if kind == "text":
        try:
            units: list = finding.data.decode("utf-8").splitlines(keepends=True)
        except UnicodeDecodeError:
            return finding.data
        join: Callable[[list], bytes] = lambda u: "".join(u).encode("utf-8")   # noqa: E731
    else:
        units = list(finding.data)
        join = bytes
    if target not in _signatures(kind, join(units), target):
        return finding.data
    for phase in (0, 1):
        if kind == "text" and phase == 1:   # characters
            units = list(join(units).decode("utf-8"))
        elif phase == 1:
            break
        chunk = max(1, len(units) // 2)
        while chunk >= 1 and time.monotonic() < deadline:
            i, changed = 0, False
            while i < len(units) and time.monotonic() < deadline:
                candidate = units[:i] + units[i + chunk:]
                if candidate and target in _signatures(kind, join(candidate), target):
                    units, changed = candidate, True
                else:
                    i += chunk
            if not changed:
                chunk //= 2
    return join(units)


def write_findings(findings: list[Finding], out: Path, keep: int = 20,
                   shrink_seconds: float = 20.0) -> dict[str, list[Finding]]:
    """Write the findings into `out`: ``findings.tsv`` (every finding, one line each) and,
    for each class, its `keep` smallest inputs with a ``.txt`` description; the smallest
    text or bytecode input of each class shrunk to ``class-N.min.*``."""
    out.mkdir(parents=True, exist_ok=True)
    classes: dict[str, list[Finding]] = collections.defaultdict(list)
    for f in findings:
        classes[f.signature].append(f)
    rows = ["class\tkind\tindex\tfile\tdescription"]
    written: dict[int, str] = {}
    for n, (signature, members) in enumerate(sorted(classes.items()), 1):
        smallest = sorted(members, key=lambda f: (len(f.data), f.index))
        for rank, f in enumerate(smallest[:keep]):
            name = f"class-{n:02d}-{f.kind}-{f.index}{f.suffix}"
            (out / name).write_bytes(f.data)
            (out / (name + ".txt")).write_text(
                f"class: {signature}\n{f.line()}\n\n{f.detail}\n", errors="replace")
            written[id(f)] = name
        small = smallest[0]
        if shrink_seconds > 0 and small.kind in ("text", "bytecode"):
            shrunk = shrink(small, shrink_seconds)
            if len(shrunk) < len(small.data):
                (out / f"class-{n:02d}.min{small.suffix}").write_bytes(shrunk)
        for f in members:
            rows.append(f"{n}\t{f.kind}\t{f.index}\t{written.get(id(f), '')}\t"
                        + f.description.replace("\t", " ").replace("\n", " "))
    (out / "findings.tsv").write_text("\n".join(rows) + "\n", errors="replace")
    return classes


# ---- the command line ---------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--text", type=int, default=1000, help="mutated texts")
    ap.add_argument("--bytecode", type=int, default=1000, help="mutated bytecode files")
    ap.add_argument("--cli", type=int, default=20, help="command-line runs")
    ap.add_argument("--launches", type=int, default=20,
                    help="kernel launches (each run 8 ways)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="worker processes (0: in this process)")
    ap.add_argument("--out", type=Path, default=None, help="where findings go (a temp dir)")
    ap.add_argument("--keep", type=int, default=20, help="inputs kept per finding class")
    ap.add_argument("--shrink-seconds", type=float, default=20.0,
                    help="time to shrink each class's smallest input (0: none)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="tileir-fuzz-"))
    text_seeds(), bytecode_seeds(), _vocabulary()      # made once, before workers fork
    _small_text_seeds(), _small_bytecode_seeds()
    print(f"fuzz campaign: seed {args.seed}, {args.jobs} jobs, {len(text_seeds())} text "
          f"seeds, {len(bytecode_seeds())} bytecode seeds; findings to {out}", flush=True)
    tallies = []
    started = time.monotonic()
    for kind, count in (("text", args.text), ("bytecode", args.bytecode), ("cli", args.cli),
                        ("launch", args.launches)):
        tally = Tally(kind)
        if count > 0:
            run_campaign(kind, count, args.seed, jobs=args.jobs, progress=not args.quiet,
                         tally=tally)
        tallies.append(tally)
    total = time.monotonic() - started
    findings = [f for t in tallies for f in t.findings]
    classes = write_findings(findings, out, args.keep, args.shrink_seconds)
    print(f"\n{'campaign':<10}{'inputs':>9}{'findings':>10}{'classes':>9}{'seconds':>9}"
          f"{'inputs/s':>10}  notes")
    for t in tallies:
        notes = ", ".join(f"{k} {v:,}" for k, v in sorted(t.stats.items()))
        print(f"{t.kind:<10}{t.inputs:>9,}{len(t.findings):>10,}"
              f"{len({f.signature for f in t.findings}):>9}{t.seconds:>9.1f}"
              f"{t.inputs / max(t.seconds, 1e-9):>10.1f}  {notes}")
    print(f"{'total':<10}{sum(t.inputs for t in tallies):>9,}{len(findings):>10,}"
          f"{len(classes):>9}{total:>9.1f}")
    if classes:
        print(f"\nfinding classes (inputs and descriptions in {out}):")
        for n, (signature, members) in enumerate(sorted(classes.items()), 1):
            small = min(members, key=lambda f: (len(f.data), f.index))
            print(f"  [{n:02d}] {len(members):,} x {signature}\n       e.g. {small.line()}")
    else:
        print(f"\nno findings (nothing written to {out} but findings.tsv)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
