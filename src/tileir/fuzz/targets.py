"""The fuzz targets: one table, each a check of one generated kernel.

A target is a function ``check(module, arguments, options) -> Finding | None``: None when
the kernel passes, else the first failure found.  `TARGETS` names them:

``tileiras``      NVIDIA's compiler, on the kernel's bytecode at each version, for each
                  ``--gpu-name``: a finding when it dies by a signal, times out, or rejects
                  a kernel our verifier accepts (an architecture's refusal of what it lacks,
                  `ARCHITECTURE_LIMIT`, is not a disagreement).
``tileirdisasm``  NVIDIA's disassembler must print our bytecode exactly as tileir does.
``engines``       the reference engine (one tile block at a time) and the batched one must
                  agree, under the sequential and the reverse schedule, and checks off
                  must change nothing where checks on found nothing
                  (`tileir.reducer.predicates.compare_engines`, the reducer's comparison).
``roundtrip``     text -> parse -> print is stable, and bytecode write -> read -> write
                  gives the same bytes, at each version.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..api import parse
from ..bytecode import from_bytecode
from ..diagnostics import TileIRError
from ..ir import Module
from ..nvidia import ARCHITECTURE_LIMIT, tool_path
from ..reducer.predicates import (TimedOut, ToolRun, compare_engines, run_tool, signal_name,
                                  time_limit)
from ..versions import LATEST, Version
from .signatures import Signature, first_line, signature

#: Seconds a tool (or the engines target's launches) may run on one kernel before it
#: counts as hanging.
TIMEOUT_S = 60.0
#: The versions and architectures checked when none are asked for.
DEFAULT_VERSIONS: tuple[Version, ...] = (LATEST,)
DEFAULT_GPU_NAMES: tuple[str, ...] = ("sm_100",)


@dataclass(frozen=True)
class Options:
    """What the targets are asked to check: bytecode versions, architectures, tools."""

    versions: tuple[Version, ...] = DEFAULT_VERSIONS
    gpu_names: tuple[str, ...] = DEFAULT_GPU_NAMES
    timeout: float = TIMEOUT_S
    tileiras: str | None = None
    tileirdisasm: str | None = None


@dataclass
class Finding:
    """One failure of one kernel: its signature, the full message, and where it showed
    (`version`, `gpu_name`: what the reducer keeps checking; None where all do)."""

    signature: Signature
    message: str
    version: Version | None = None
    gpu_name: str | None = None
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return self.signature.target


def _finding(target: str, message: str, *, signal: str | None = None,
             version: Version | None = None, gpu_name: str | None = None) -> Finding:
    return Finding(signature(target, message, signal), message, version, gpu_name)


def _bytecode(module: Module, version: Version) -> bytes | None:
    """`module` as bytecode of `version`; None when our writer refuses it (an op or type
    newer than the version: not a failure)."""
    try:
        return module.to_bytecode(version=version)
    except TileIRError:
        return None


def _bytecode_files(module: Module, versions: Iterable[Version], scratch: str
                    ) -> Iterator[tuple[Version, Path, bytes]]:
    """`module`'s bytecode at each of `versions` our writer takes it at, written to a file
    in `scratch`: (version, path, bytes)."""
    for version in versions:
        data = _bytecode(module, version)
        if data is not None:
            path = Path(scratch) / f"kernel.{version}.tileirbc"
            path.write_bytes(data)
            yield version, path, data


def _verifies(module: Module) -> bool:
    try:
        module.verify()
    except TileIRError:
        return False
    return True


def _first_difference(theirs: str, ours: str, their_name: str, our_name: str
                      ) -> tuple[str, str]:
    """The first differing line of two texts: the key's line and a detail."""
    a, b = theirs.splitlines(), ours.splitlines()
    for number, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return (f"line differs: {x.strip()}",
                    f"line {number}:\n  {their_name}: {x[:400]}\n  {our_name}: {y[:400]}")
    return ("line count differs",
            f"{their_name} {len(a)} lines, {our_name} {len(b)} lines")


def _died(done: ToolRun) -> str | None:
    """The name of the signal a tool died by; None when it exited."""
    return None if done.signal is None else signal_name(done.signal)


# ---- the targets ----------------------------------------------------------------------


def check_tileiras(module: Module, arguments: list[Any], options: Options) -> Finding | None:
    """tileiras on the kernel's bytecode at each version, for each GPU name."""
    compiler = options.tileiras or tool_path("tileiras")
    if compiler is None or not _verifies(module):
        return None
    with tempfile.TemporaryDirectory(prefix="tileir-fuzz-") as scratch:
        for version, path, _ in _bytecode_files(module, options.versions, scratch):
            for gpu in options.gpu_names:
                argv = [compiler, f"--gpu-name={gpu}", "-o", str(Path(scratch) / "k.cubin"),
                        str(path)]
                done = run_tool(argv, options.timeout)
                where = f"(bytecode {version}, --gpu-name={gpu})"
                if done.timed_out:
                    return _finding("tileiras", f"timed out after {options.timeout:g} s "
                                    f"{where}", signal="timeout", version=version,
                                    gpu_name=gpu)
                name = _died(done)
                if name is not None:
                    return _finding("tileiras", f"{name} {where}\n{done.stderr.strip()[:2000]}",
                                    signal=name, version=version, gpu_name=gpu)
                if done.returncode != 0:
                    text = done.stderr.strip() or done.stdout.strip()
                    if ARCHITECTURE_LIMIT.search(first_line(text)):
                        continue
                    return Finding(signature("tileiras", text), f"{text[:4000]}\n{where}",
                                   version, gpu)
    return None


def check_tileirdisasm(module: Module, arguments: list[Any], options: Options
                       ) -> Finding | None:
    """tileirdisasm's text of the kernel's bytecode at each version, against ours."""
    disasm = options.tileirdisasm or tool_path("tileirdisasm")
    if disasm is None:
        return None
    with tempfile.TemporaryDirectory(prefix="tileir-fuzz-") as scratch:
        for version, path, data in _bytecode_files(module, options.versions, scratch):
            done = run_tool([disasm, str(path)], options.timeout)
            if done.timed_out:
                return _finding("tileirdisasm", f"timed out after {options.timeout:g} s "
                                f"(bytecode {version})", signal="timeout", version=version)
            name = _died(done)
            if name is not None:
                return _finding("tileirdisasm", f"{name} (bytecode {version})\n"
                                f"{done.stderr.strip()[:2000]}", signal=name, version=version)
            if done.returncode != 0:
                text = done.stderr.strip() or "(no message)"
                return Finding(signature("tileirdisasm", "refused: " + first_line(text)),
                               f"refused bytecode {version}: {text[:4000]}", version)
            ours = from_bytecode(data)
            ours.spelling = "bare"
            printed = ours.format()
            if done.stdout != printed:
                key, detail = _first_difference(done.stdout, printed, "tileirdisasm",
                                                "tileir      ")
                return Finding(signature("tileirdisasm", key),
                               f"{key}\n(bytecode {version}) {detail}", version)
    return None


def check_engines(module: Module, arguments: list[Any], options: Options) -> Finding | None:
    """The first disagreement of tileir's engines (`compare_engines`: the reference
    against the batched engine and checks off, grids 1 and 3, both schedules); launches
    past `options.timeout` seconds are a finding too (signature ``timeout``)."""
    try:
        with time_limit(options.timeout):
            found = next(compare_engines(module, None, arguments), None)
    except TimedOut:
        return _finding("engines", f"the launches took more than {options.timeout:g} s",
                        signal="timeout")
    return None if found is None else Finding(signature("engines", found.line), str(found))


def check_roundtrip(module: Module, arguments: list[Any], options: Options
                    ) -> Finding | None:
    """Text printed, parsed and printed again is the same text; bytecode written, read
    and written again is the same bytes, at each version."""
    text = module.format()
    try:
        again = parse(text).format()
    except TileIRError as error:
        line = "text does not parse back: " + first_line(str(error)).split("error: ")[-1]
        return Finding(signature("roundtrip", line), f"{line}\n{str(error)[:2000]}")
    if again != text:
        key, detail = _first_difference(text, again, "printed ", "reprinted")
        return Finding(signature("roundtrip", "text " + key), f"text {key}\n{detail}")
    for version in options.versions:
        data = _bytecode(module, version)
        if data is None:
            continue
        try:
            read = from_bytecode(data)
            rewritten = read.to_bytecode(version=version)
        except TileIRError as error:
            line = f"bytecode does not read back: {first_line(str(error))}"
            return Finding(signature("roundtrip", line), f"{line} (bytecode {version})",
                           version)
        if rewritten != data:
            at = next((i for i, (x, y) in enumerate(zip(data, rewritten)) if x != y),
                      min(len(data), len(rewritten)))
            line = "bytecode rewritten differs"
            return Finding(signature("roundtrip", line),
                           f"{line} (bytecode {version}): first at byte {at} of {len(data)} "
                           f"(rewritten {len(rewritten)})", version)
    return None


@dataclass(frozen=True)
class Target:
    """A row of `TARGETS`: the check and the NVIDIA tools it needs."""

    check: Callable[[Module, list[Any], Options], Finding | None]
    tools: tuple[str, ...] = ()
    help: str = ""


TARGETS: dict[str, Target] = {
    "tileiras": Target(check_tileiras, ("tileiras",),
                       "NVIDIA's compiler crashes, hangs or rejects a valid kernel"),
    "tileirdisasm": Target(check_tileirdisasm, ("tileirdisasm",),
                           "NVIDIA's disassembler prints our bytecode differently"),
    "engines": Target(check_engines, (),
                      "the reference and batched engines (and checks off) disagree"),
    "roundtrip": Target(check_roundtrip, (),
                        "text or bytecode does not round-trip exactly"),
}


def check(name: str, module: Module, arguments: list[Any], options: Options
          ) -> Finding | None:
    """Run target `name` (`TARGETS`) on one kernel; a target's own crash (a Python
    exception escaping it) is a finding of that target too."""
    try:
        return TARGETS[name].check(module, arguments, options)
    except KeyboardInterrupt:
        raise
    except Exception as error:
        line = f"check raised {type(error).__name__}: {first_line(str(error))}"
        return Finding(signature(name, line), line)


__all__ = ["ARCHITECTURE_LIMIT", "DEFAULT_GPU_NAMES", "DEFAULT_VERSIONS", "Finding",
           "Options", "TARGETS", "TIMEOUT_S", "Target", "check", "check_engines",
           "check_roundtrip", "check_tileiras", "check_tileirdisasm", "tool_path"]
