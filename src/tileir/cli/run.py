"""``tileir run``: run a kernel from the shell on arrays from ``.npy`` files, numbers and
generators, print what it left in its buffers, and save them.

    tileir run KERNEL.mlir|KERNEL.tileirbc [--kernel NAME] --grid X[,Y[,Z]] ARG...
               [-o OUT.npz] [--in-place] [--no-checks] [--schedule ...] [--seed N]
               [--max-ops N] [--engine ...] [--full] [--trace [SPEC]]

Exit status: 0 when the kernel ran; 1 for a kernel file that does not read or verify,
undefined behaviour (the diagnostic as ``tileir check`` prints them), or an output that
cannot be written; 2 for a wrong command line (an argument the kernel's parameter cannot
take, a module with several entries and no ``--kernel``); 130 for Ctrl-C.  Every file is
written only after a successful run, atomically (a temporary file in the same directory,
then renamed over it), so a failed or interrupted run leaves every file as it was.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field, replace
from typing import Any, Callable, TextIO

import numpy as np

from ..diagnostics import ExecutionError, LaunchError, Location, TileIRError
from ..interp.launch import ENGINES, MAX_EXTENT, SCHEDULES, Run, launch
from ..ir import Module, Operation
from ..interp.trace_format import element_texts, extremes
from ..types import PointerType, TileType, Type
from .arrays import (GENERATORS, ArgumentError, accepted, as_saved, load_npy,
                     generators_help, make, parse_generator, parse_number, scalar)
from .common import StatusLine, checked_document

PROG = "tileir run"
#: Arrays of at most this many elements are printed in full; larger ones summarized.
SMALL = 64
#: How many leading elements a summary shows.
FIRST = 8
#: How long a per-block run goes before it shows its progress (seconds), and how often
#: the line is redrawn after that.
PROGRESS_AFTER = 1.0
PROGRESS_EVERY = 0.1


class Refusal(Exception):
    """Why the command stops before running the kernel: one line, and the exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


# ----------------------------------------------------------------------------- the parser

_ARGS_HELP = """\
ARG, one per kernel parameter in order:
  a tile<ptr<E>> parameter (a buffer) takes an array: a .npy file, or a generator;
  a rank-0 tile parameter takes a number: 3, -1, 0x10, 2.5, 1e-3, inf, -inf, nan.
A .npy file's dtype must be one the element type takes (float32 for f32; int8 or uint8
for i8; an ml_dtypes array, which NumPy saves as raw bytes, for bf16 or fp8 types).

Generators, KIND:SHAPE[xTYPE] (TYPE as Tile IR spells it: f32, f16, bf16, i8, i32,
f8E4M3FN, ...; left out, the parameter's own), rounded to nearest even into TYPE:
{generators}
Random generators draw from one numpy.random.default_rng(SEED), argument after argument.

Prints the file, kernel, grid, the engine that ran and the time, the trace (--trace),
then each buffer (a pointer argument) after the run, named as the kernel names it: in
full up to 64 elements, else its min, max and first elements.  Exit status: 0 ran; 1
the kernel file has errors, undefined behaviour, or an output cannot be written; 2 a
wrong command line; 130 interrupted."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``run`` subcommand on `subparsers` (of the ``tileir`` parser)."""
    p = subparsers.add_parser(
        "run", help="run a kernel on arrays from .npy files, numbers or generators",
        description="Run an entry of a Tile IR text or bytecode file on the interpreter, one\n"
        "tile block per grid point; print (and save) its buffers after the run.",
        epilog=_ARGS_HELP.format(generators=generators_help()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _intermixed(p)
    p.add_argument("file", metavar="KERNEL", help="Tile IR text (.mlir) or bytecode "
                   "(.tileirbc) file")
    p.add_argument("args", nargs="*", metavar="ARG", help="the kernel's arguments (below)")
    p.add_argument("--kernel", metavar="NAME", help="the entry to run (needed when the "
                   "module has several)")
    p.add_argument("--grid", required=True, type=_grid, metavar="X[,Y[,Z]]",
                   help="the grid: 1 to 3 positive tile block counts")
    p.add_argument("-o", dest="output", metavar="OUT.npz", help="save every pointer "
                   "argument after the run in an .npz archive, keyed by parameter name "
                   "(as the kernel's text names it, %%a: a; arg0, arg1, ... for bytecode; "
                   "ml_dtypes arrays as raw bytes, as NumPy saves them)")
    p.add_argument("--in-place", action="store_true", help="write each .npy argument back "
                   "to its file after a successful run")
    p.add_argument("--no-checks", dest="checks", action="store_false",
                   help="do not check for undefined behaviour (out-of-bounds accesses, "
                   "races, ...): compute what the kernel does anyway")
    p.add_argument("--schedule", choices=SCHEDULES, default="sequential",
                   help="the order tile blocks run in on the per-block engine "
                   "(default: sequential)")
    p.add_argument("--seed", type=_natural, default=0, metavar="N", help="seed of the "
                   "random generators and of the random schedule (default: 0)")
    p.add_argument("--max-ops", type=_positive, metavar="N", help="stop the run, as an "
                   "error, when a tile block runs more than N operations (a kernel that "
                   "may never end); runs one tile block at a time")
    p.add_argument("--engine", choices=ENGINES, default="auto", help="auto: native code "
                   "through LLVM where the jit extra is installed, the kernel is supported "
                   "and the launch has work enough to pay for compiling, else the batched "
                   "engine where it applies, else one tile block at a time (default); "
                   "batched: only the batched engine; blocks: only the per-block reference; "
                   "compiled: native code through LLVM where the kernel is supported (the "
                   "jit extra), else what auto runs, saying why")
    p.add_argument("--full", action="store_true", help="print every array (and, with "
                   "--trace, every traced value) in full")
    p.add_argument("--trace", nargs="?", const="", metavar="SPEC",
                   help="print the value of every op result of tile block (0, 0, 0), in "
                   "program order, with its location and loop iteration; SPEC narrows or "
                   "widens it: items 'block=X,Y,Z' (several allowed; 'block=all'), "
                   "'op=NAME[,NAME]', 'line=N[,N-M]', separated by spaces or ';' (the run "
                   "then goes one tile block at a time); a word after --trace without '=' "
                   "is an ARG, not a SPEC")
    p.set_defaults(func=run_command)
    return p


class _Intermixed(argparse.ArgumentParser):
    """A parser whose options may stand anywhere among its positionals, as in
    ``tileir run k.mlir --grid 4 a.npy b.npy`` (a plain parser takes the ARGs only before
    the options or after them all), whose negative numbers (``-1``, ``-1e-3``, ``-inf``,
    ``-0x10``) are ARGs, never options, and whose ``--trace`` takes the next word as its
    SPEC only when the word holds a ``=`` (every SPEC item does): ``--trace a.npy b.npy``
    traces the default block and passes a.npy as an ARG."""

    _parsing = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._parsing:       # (parse_known_intermixed_args calls this twice)
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            words = sys.argv[1:] if args is None else list(args)
            return self.parse_known_intermixed_args(_spec_words(words), namespace)
        finally:
            self._parsing = False


def _spec_words(words: list[str]) -> list[str]:
    """`words` with ``--trace`` (or an abbreviation argparse takes for it) written
    ``--trace=`` (no SPEC: the default) when the next word holds no ``=`` and so cannot be
    a SPEC: argparse then leaves that word to the ARGs.  Words after ``--`` stay."""
    out: list[str] = []
    for i, word in enumerate(words):
        if word == "--":
            return out + words[i:]
        after = words[i + 1] if i + 1 < len(words) else None
        if len(word) >= 3 and "--trace".startswith(word) and after and "=" not in after:
            word = "--trace="
        out.append(word)
    return out


class _NegativeNumbers:
    """What argparse asks whether a ``-`` word is a number, not an option: any number
    `arrays.parse_number` reads."""

    @staticmethod
    def match(text: str) -> bool:
        try:
            parse_number(text)
        except ArgumentError:
            return False
        return text.startswith("-")


def _intermixed(parser: argparse.ArgumentParser) -> None:
    """Make `parser` (made by ``add_subparsers().add_parser``, which takes no parser class
    of its own) an `_Intermixed` one."""
    parser.__class__ = _Intermixed
    parser._negative_number_matcher = _NegativeNumbers()      # type: ignore[attr-defined]


def _grid(text: str) -> tuple[int, ...]:
    """``X[,Y[,Z]]`` (or ``XxYxZ``) as 1 to 3 extents."""
    parts = text.replace("x", ",").split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3 or not all(1 <= d <= MAX_EXTENT for d in dims):
        raise argparse.ArgumentTypeError(
            f"expected 1 to 3 positive integers of at most {MAX_EXTENT}, separated by "
            f"commas, got '{text}'")
    return dims


def _natural(text: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'")
    return n


def _positive(text: str) -> int:
    n = _natural(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return n


# ------------------------------------------------------------------------ the command


def run_command(args: argparse.Namespace) -> int:
    """``tileir run``: its exit status."""
    read = _read_kernel(args.file)
    if read is None:
        return 1
    text, module = read
    staged = _Staged()
    progress = Progress(sys.stderr)
    entry: Operation | None = None
    try:
        entry = _entry(module, args.kernel)
        params = _params(entry)
        names = parameter_names(entry, module)
        passed = _arguments(params, names, args.args, args.seed)
        if args.output is not None:
            if args.in_place and any(_same_file(args.output, s.path) for s in passed.files):
                raise Refusal(f"-o '{args.output}' is an argument --in-place writes back; "
                              "save the archive under another name")
            staged.reserve(args.output)
        if args.in_place:
            for source in passed.files:
                staged.reserve(source.path)
        start = time.perf_counter()
        try:
            run = launch(module, entry.symbol, args.grid, passed.values,
                         progress=progress, **_launch_options(args))
        except ExecutionError as exc:
            if exc.trace is not None:   # what the traced blocks did up to the failure
                progress.clear()
                print("trace (up to the failure):\n" + exc.trace.format(full=args.full),
                      flush=True)
            raise
        finally:
            progress.clear()
        seconds = time.perf_counter() - start
        _save(args, passed, names, params, staged)
    except Refusal as refusal:
        staged.discard()
        print(f"{PROG}: {refusal}", file=sys.stderr)
        return refusal.status
    except ExecutionError as exc:
        staged.discard()
        if isinstance(exc, LaunchError):       # (refused before any tile block ran)
            print(f"{PROG}: {exc.diagnostics[0].message}", file=sys.stderr)
            return 2
        for diagnostic in exc.diagnostics:      # (as `tileir check` places those of a
            if diagnostic.location is None:     # bytecode file that has no locations)
                diagnostic = replace(diagnostic, location=Location(args.file, 0, 0))
            print(diagnostic.render({args.file: text}), file=sys.stderr)
        return 1
    except BaseException:
        staged.discard()
        raise
    print("\n".join(summary(args.file, entry.symbol, args.grid, run, args, seconds)))
    if run.trace is not None:
        print("trace:\n" + run.trace.format(full=args.full))
    buffers = [i for i, t in enumerate(params) if _is_buffer(t)]
    print("buffers after the run:" + ("" if buffers else " none"))
    for i in buffers:
        print("  " + array_line(names[i], passed.values[i],
                                params[i].element_type.pointee, args.full))
    if args.output is not None:
        print(f"saved: {args.output} ({', '.join(names[i] for i in buffers) or 'empty'})")
    if args.in_place and passed.files:
        print(f"written back: {', '.join(source.path for source in passed.files)}")
    return 0


def _launch_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords `launch` takes from the command line (besides `progress`)."""
    return {"schedule": args.schedule, "seed": args.seed, "checks": args.checks,
            "max_ops": args.max_ops, "engine": args.engine, "trace": args.trace}


def _read_kernel(path: str) -> tuple[str, Module] | None:
    """The text (printed back for bytecode) and module of the kernel file, verified; None
    after printing its diagnostics as ``tileir check`` does."""
    from ..api import parse
    read = checked_document(path)
    if read is None:
        return None
    text, ops = read
    if len(ops) == 1 and isinstance(ops[0], Module):
        return text, ops[0]
    try:        # (tileirdisasm's text, a builtin module: what `tileir.parse` reads)
        return text, parse(text, path, verify=False)
    except TileIRError as exc:
        for d in exc.diagnostics:
            print((d if d.location else replace(d, location=Location(path, 0, 0))
                   ).render({path: text}), file=sys.stderr)
        return None


def _entry(module: Module, name: str | None) -> Operation:
    """The entry to run: `name`, or the module's only one."""
    entries = module.entries
    listed = ", ".join(e.symbol for e in entries) or "none"
    if name is None:
        if len(entries) != 1:
            raise Refusal(f"the module has {len(entries)} entries ({listed}): choose one "
                          "with --kernel")
        return entries[0]
    for entry in entries:
        if entry.symbol == name:
            return entry
    raise Refusal(f"no entry named '{name}' in the module (entries: {listed})")


def _params(entry: Operation) -> list[Type]:
    """The entry's parameter types."""
    return list(entry.attr("function_type").value.inputs)


def parameter_names(entry: Operation, module: Module | None = None) -> list[str]:
    """The name of each parameter of `entry`: as the kernel's text names it (``%a`` is
    "a") when the module was read from text, else ``arg0``, ``arg1``, ... (the keys of
    ``-o``'s archive and the names in messages)."""
    body = entry.regions[0].blocks[0].arguments if entry.regions and \
        entry.regions[0].blocks else []
    count = len(_params(entry))
    source = getattr(module, "source_names", None)
    kept = [source.get(body[i]) if source is not None and i < len(body) else None
            for i in range(count)]
    names = [n if isinstance(n, str) and n.isidentifier() else f"arg{i}"
             for i, n in enumerate(kept)]
    return names if len(set(names)) == len(names) else [f"arg{i}" for i in range(count)]


def _is_buffer(t: Type) -> bool:
    """Whether a parameter of type `t` takes a buffer (``tile<ptr<E>>``)."""
    return isinstance(t, TileType) and t.rank == 0 and isinstance(t.element_type, PointerType)


@dataclass
class _Source:
    """A ``.npy`` argument: its path, the array as loaded, and the buffer passed."""

    path: str
    loaded: np.ndarray
    buffer: np.ndarray


@dataclass
class _Passed:
    """The arguments for `launch`, and the ``.npy`` files they came from, by real path
    (a file given twice, however spelled, is loaded once: one buffer, passed twice)."""

    values: list[Any] = field(default_factory=list)
    sources: dict[str, _Source] = field(default_factory=dict)

    @property
    def files(self) -> list[_Source]:
        """The ``.npy`` files, in the order they were first given."""
        return list(self.sources.values())


def _arguments(params: list[Type], names: list[str], texts: list[str],
               seed: int) -> _Passed:
    """The arguments `texts` for parameters `params`, each checked against its type;
    `Refusal` naming the parameter for one that does not fit."""
    if len(texts) != len(params):
        listed = ", ".join(f"%{n}: {t.format(False)}" for n, t in zip(names, params))
        raise Refusal(f"the kernel takes {len(params)} argument"
                      f"{'' if len(params) == 1 else 's'} ({listed or 'none'}), got "
                      f"{len(texts)}")
    rng = np.random.default_rng(seed)
    passed = _Passed()
    for i, (name, t, text) in enumerate(zip(names, params, texts)):
        try:
            passed.values.append(_argument(t, text, rng, passed))
        except ArgumentError as exc:
            raise Refusal(f"argument {i} (%{name}: {t.format(False)}): {exc}") from None
    return passed


def _argument(t: Type, text: str, rng: np.random.Generator, passed: _Passed) -> Any:
    """The value of one argument for a parameter of type `t`."""
    if not isinstance(t, TileType):
        raise ArgumentError(f"tileir run cannot pass a value of type {t.format(False)}")
    e = t.element_type
    if isinstance(e, PointerType):
        if t.rank != 0:
            raise ArgumentError("tileir run cannot pass a tile of pointers")
        return _array(text, e.pointee, None, rng, passed)
    if t.rank == 0:
        return scalar(text, e)
    return _array(text, e, t.shape, rng, passed)


def _array(text: str, t: Type, shape: tuple[int, ...] | None, rng: np.random.Generator,
           passed: _Passed) -> np.ndarray:
    """An array of element type `t` (of `shape` unless None) from a generator or a file."""
    what = f"'{text}'"
    generator = parse_generator(text)
    if generator is not None:
        array = make(generator, t, rng)
    else:
        key = os.path.realpath(text)
        source = passed.sources.get(key)
        if source is None:
            loaded = load_npy(text)
            # (C order, as a buffer is mapped: a copy only of a Fortran-ordered file;
            # np.ascontiguousarray would make a 0-d array 1-d)
            buffer = np.asarray(accepted(loaded, t, what), order="C")
            source = passed.sources[key] = _Source(text, loaded, buffer)
        array = accepted(source.buffer, t, what)
    if shape is not None and array.shape != shape:
        raise ArgumentError(f"expected shape {_shape(shape)}, got {_shape(array.shape)} "
                            f"({what})")
    return array


def _shape(shape: tuple[int, ...]) -> str:
    """A shape as Tile IR writes it: ``64x64`` (``[]`` for rank 0)."""
    return "x".join(str(n) for n in shape) if shape else "[]"


# ------------------------------------------------------------------- writing the files


class _Staged:
    """Files written after a successful run: a temporary file for each, reserved (created
    beside it) before the run so that a path that cannot be written stops the command
    first, then renamed over its path at once (`commit`) or removed (`discard`)."""

    def __init__(self) -> None:
        self.temps: dict[str, str] = {}

    def reserve(self, path: str) -> None:
        if path in self.temps:
            return
        if os.path.isdir(path):
            raise Refusal(f"cannot write '{path}': it is a directory", 1)
        folder = os.path.dirname(path) or "."
        try:
            handle, temp = tempfile.mkstemp(dir=folder, prefix="." +
                                            os.path.basename(path) + ".", suffix=".tmp")
        except OSError as exc:
            raise Refusal(f"cannot write '{path}': {exc.strerror or exc}", 1) from None
        self.temps[path] = temp
        try:    # (the mode of the file it replaces, or of a new file: mkstemp's is 0600)
            os.chmod(handle, _mode_of(path))
        finally:
            os.close(handle)

    def write(self, path: str, write: Callable[[Any], None]) -> None:
        """Write the reserved temporary file of `path` with `write(handle)`."""
        try:
            with open(self.temps[path], "wb") as handle:
                write(handle)
        except OSError as exc:
            raise Refusal(f"cannot write '{path}': {exc.strerror or exc}", 1) from None

    def commit(self) -> None:
        for path, temp in list(self.temps.items()):
            try:
                os.replace(temp, path)
            except OSError as exc:
                raise Refusal(f"cannot write '{path}': {exc.strerror or exc}", 1) from None
            del self.temps[path]

    def discard(self) -> None:
        for temp in self.temps.values():
            try:
                os.unlink(temp)
            except OSError:
                pass
        self.temps.clear()


def _same_file(a: str, b: str) -> bool:
    """Whether paths `a` and `b` name one file (however they are spelled)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _mode_of(path: str) -> int:
    """The permission bits for a file written at `path`: those of the file there, or what
    a new file gets (read and write for all, less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _save(args: argparse.Namespace, passed: _Passed, names: list[str],
          params: list[Type], staged: _Staged) -> None:
    """Write the ``-o`` archive and (``--in-place``) the ``.npy`` arguments."""
    if args.output is not None:
        arrays = {name: passed.values[i] for i, (name, t) in enumerate(zip(names, params))
                  if _is_buffer(t)}
        staged.write(args.output, lambda handle: write_npz(handle, arrays))
    if args.in_place:
        for source in passed.files:
            if not np.shares_memory(source.loaded, source.buffer):
                source.loaded.view(source.buffer.dtype)[...] = source.buffer
            staged.write(source.path, lambda handle, a=source.loaded:
                         np.save(handle, as_saved(a), allow_pickle=False))
    staged.commit()


def write_npz(handle: Any, arrays: dict[str, np.ndarray]) -> None:
    """An ``.npz`` archive of `arrays` (as `numpy.savez` writes one, any key allowed; an
    array of an ml_dtypes type as its raw bytes, `arrays.as_saved`)."""
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, array in arrays.items():
            with archive.open(key + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, as_saved(np.asarray(array)),
                                         allow_pickle=False)


# ------------------------------------------------------------------------- the output


def summary(path: str, kernel: str, grid: tuple[int, ...], run: Run,
            args: argparse.Namespace, seconds: float) -> list[str]:
    """The lines before the buffers: file, kernel, grid, engine, time (the only line that
    varies from run to run)."""
    dims = tuple(grid) + (1,) * (3 - len(grid))
    blocks = math.prod(dims)
    engine = [run.engine]
    if run.engine == "blocks" and args.schedule != "sequential":
        engine.append(f"schedule {args.schedule}" +
                      (f" (seed {args.seed})" if args.schedule == "random" else ""))
    if not args.checks:
        engine.append("checks off")
    why = ""        # (the engine that declined: the compiled one says so in its reason)
    if run.reason and run.reason.startswith("compiled engine: "):
        why = f" (not compiled: {run.reason.removeprefix('compiled engine: ')})"
    elif run.reason:
        why = f" (not batched: {run.reason})"
    return [f"file: {path}",
            f"kernel: {kernel}",
            f"grid: {'x'.join(map(str, dims))} ({blocks} tile block{'' if blocks == 1 else 's'})",
            f"engine: {', '.join(engine)}{why}",
            f"time: {seconds:.3f} s"]


def array_line(name: str, array: np.ndarray, t: Type, full: bool = False) -> str:
    """One buffer: its name, dtype and shape, then its elements (in full when it has at
    most `SMALL` or `full`), or its min, max and first `FIRST` elements."""
    head = f"{name}: {array.dtype}[{'x'.join(map(str, array.shape))}]"
    if full or array.size <= SMALL:
        return f"{head} = {_nested(element_texts(array, t), array.shape)}"
    first = element_texts(array.reshape(-1)[:FIRST], t)
    low, high, nans = extremes(array, t)
    counted = f", {nans} NaN" if nans else ""
    return f"{head}: min {low}, max {high}{counted}, first [{', '.join(first)}, ...]"


def _nested(texts: list[str], shape: tuple[int, ...]) -> str:
    """Row-major element texts as nested lists of `shape`."""
    if not shape:
        return texts[0]
    step = math.prod(shape[1:])
    return "[" + ", ".join(_nested(texts[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


# ----------------------------------------------------------------------- the progress


def progress_text(done: int, total: int) -> str:
    """The progress line's text after `done` of `total` tile blocks."""
    return f"{PROG}: block {done}/{total} ({100 * done // max(total, 1)}%)"


class Progress(StatusLine):
    """`launch`'s progress callback: once a per-block run has gone on for
    `PROGRESS_AFTER` seconds, a line on `stream` redrawn with ``\\r`` (at most every
    `PROGRESS_EVERY` seconds), only when `stream` is a terminal; `clear` wipes it."""

    def __init__(self, stream: TextIO | None, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        super().__init__(stream, clock, PROGRESS_AFTER, PROGRESS_EVERY)

    def __call__(self, done: int, total: int) -> None:
        self.show(lambda: progress_text(done, total))


__all__ = ["GENERATORS", "Progress", "add_parser", "array_line", "parameter_names",
           "progress_text", "run_command", "summary", "write_npz"]
