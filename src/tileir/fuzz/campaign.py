"""A fuzz campaign: generate kernels by seed, run the targets on each, group the findings
by signature, save one directory per failure (reduced unless asked not to) and print a
summary table.

Kernel ``i`` of a campaign with seed ``S`` is generated from seed ``S + i``, so
``tileir fuzz --count 1 --seed S+i`` (same targets and options) finds it again alone.
"""

from __future__ import annotations

import signal
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..diagnostics import TileIRError
from ..generate import generate_with_arguments
from ..ir import Module
from ..reducer import count_ops, reduce
from ..versions import Version
from .signatures import Signature, first_line, signature
from .targets import Finding, Options, check

#: How many seeds of one failure its message.txt lists.
MAX_SEEDS = 50

@dataclass(frozen=True)
class Config:
    """What a campaign checks: `count` kernels from `seed` on, each of about `ops` ops
    (None: 6 to 20 by seed), generated at the newest of `options.versions`."""

    count: int
    seed: int
    targets: tuple[str, ...]
    options: Options = field(default_factory=Options)
    ops: int | None = None
    out: Path | None = Path("fuzz-findings")
    reduce: bool = True
    jobs: int = 1
    #: Seconds the reducer may spend on one failure.
    reduce_seconds: float = 300.0

    def kernel_ops(self, seed: int) -> int:
        return self.ops if self.ops is not None else 6 + seed % 15

    @property
    def generation_version(self) -> Version:
        return max(self.options.versions)


def kernel(config: Config, seed: int) -> tuple[Module, list[Any]]:
    """The kernel of `seed` and its launch arguments."""
    return generate_with_arguments(seed, config.generation_version, config.kernel_ops(seed))


def check_seed(config: Config, seed: int) -> list[Finding]:
    """Every target's finding on the kernel of `seed` (at most one per target); the
    generator's own exception is a finding of target ``generator``."""
    try:
        module, arguments = kernel(config, seed)
    except KeyboardInterrupt:
        raise
    except Exception as error:
        line = f"generator raised {type(error).__name__}: {first_line(str(error))}"
        return [Finding(signature("generator", line), line, seed=seed)]
    found = []
    for name in config.targets:
        finding = check(name, module, arguments, config.options)
        if finding is not None:
            finding.seed = seed
            found.append(finding)
    return found


@dataclass
class Failure:
    """Every finding of one signature: how many, the first (lowest seed) and what was
    saved and reduced of it."""

    signature: Signature
    first: Finding
    count: int = 0
    #: The seeds of its first `MAX_SEEDS` findings (a signal's signature may hide several
    #: bugs: tileiras prints nothing when it crashes, so each seed is worth reducing).
    seeds: list[int] = field(default_factory=list)
    ops_before: int | None = None
    ops_after: int | None = None
    reduce_note: str = ""
    path: Path | None = None


@dataclass
class Report:
    """What a campaign found."""

    config: Config
    checked: int = 0
    failures: dict[Signature, Failure] = field(default_factory=dict)
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def findings(self) -> int:
        """How many findings there were, of every signature."""
        return sum(f.count for f in self.failures.values())

    def add(self, finding: Finding) -> bool:
        """Count `finding`; True when its signature is new."""
        failure = self.failures.get(finding.signature)
        new = failure is None
        if new:
            failure = self.failures[finding.signature] = Failure(finding.signature, finding)
        failure.count += 1
        if len(failure.seeds) < MAX_SEEDS and finding.seed is not None:
            failure.seeds.append(finding.seed)
        return new


def _quiet_worker() -> None:
    """Pool workers leave Ctrl-C to the parent (which stops and prints what it found)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _results(config: Config, seeds: Iterable[int]) -> Iterator[list[Finding]]:
    """The findings of each seed, in seed order (on `config.jobs` processes, two seeds
    per process in flight: any count of seeds in bounded memory)."""
    if config.jobs <= 1:
        for seed in seeds:
            yield check_seed(config, seed)
        return
    pool = ProcessPoolExecutor(max_workers=config.jobs, initializer=_quiet_worker)
    pending: deque[Future[list[Finding]]] = deque()
    try:
        for seed in seeds:
            pending.append(pool.submit(check_seed, config, seed))
            if len(pending) >= 2 * config.jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


class SameSignature:
    """The reducer's test: the target still finds a failure of `signature` (checked only
    at the version and GPU name the failure showed at); picklable for the reducer's
    worker processes."""

    def __init__(self, signature: Signature, arguments: list[Any], options: Options,
                 version: Version | None = None, gpu_name: str | None = None) -> None:
        self.signature = signature
        self.arguments = arguments
        self.options = replace(options,
                               versions=(version,) if version else options.versions,
                               gpu_names=(gpu_name,) if gpu_name else options.gpu_names)

    def __call__(self, module: Module) -> bool:
        finding = check(self.signature.target, module, self.arguments, self.options)
        return finding is not None and finding.signature == self.signature


def reduce_failure(config: Config, failure: Failure, module: Module,
                   arguments: list[Any]) -> Module | None:
    """`module`, the first kernel of `failure`, reduced while its signature holds (None,
    with a note, when the reduction cannot start); sets the ops after."""
    predicate = SameSignature(failure.signature, arguments, config.options,
                              failure.first.version, failure.first.gpu_name)
    try:
        result = reduce(module, predicate, jobs=config.jobs, deadline=config.reduce_seconds)
    except KeyboardInterrupt:
        raise
    except Exception as error:      # (ReduceError: the failure does not reproduce)
        failure.reduce_note = f"not reduced: {first_line(str(error))}"
        return None
    failure.ops_after = result.ops_after
    if result.timed_out:
        failure.reduce_note = f"reduction stopped after {config.reduce_seconds:g} s"
    if result.interrupted:
        failure.reduce_note = "reduction interrupted"
        raise _Interrupted(result.module)
    return result.module


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C during a reduction: the smallest kernel found so far (to save)."""

    def __init__(self, module: Module) -> None:
        super().__init__()
        self.module = module


def save(config: Config, failure: Failure, module: Module | None,
         reduced: Module | None) -> Path:
    """Write `failure`'s directory under `config.out`: the message, the seed, how to
    reproduce it and, when there is one, its kernel `module` (text and bytecode at each
    version the writer takes) and the `reduced` kernel.  `OSError` when it cannot."""
    assert config.out is not None
    path = config.out / failure.signature.slug()
    path.mkdir(parents=True, exist_ok=True)
    first = failure.first
    where = "".join(f", {k} {v}" for k, v in (("version", first.version),
                                             ("gpu-name", first.gpu_name)) if v)
    (path / "message.txt").write_text(
        f"signature: {failure.signature}\ntarget: {failure.signature.target}\n"
        f"seed: {first.seed}{where}\nkernels: {failure.count}\n"
        f"seeds: {' '.join(map(str, failure.seeds))}"
        f"{' ...' if failure.count > len(failure.seeds) else ''}\n\n{first.message}\n")
    (path / "seed").write_text(f"{first.seed}\n")
    (path / "reproduce.sh").write_text(_reproduce(config, first.seed))
    for stem, kept in (("kernel", module), ("reduced", reduced)):
        if kept is not None:
            _write_kernel(path, stem, kept, config.options.versions)
    return path


def _write_kernel(path: Path, stem: str, module: Module, versions: tuple[Version, ...]
                  ) -> None:
    (path / f"{stem}.mlir").write_text(module.format())
    for version in versions:
        try:
            data = module.to_bytecode(version=version)
        except TileIRError:
            continue
        (path / f"{stem}.{version}.tileirbc").write_bytes(data)


def _reproduce(config: Config, seed: int) -> str:
    o = config.options
    ops = f" --ops {config.ops}" if config.ops is not None else ""
    return (f"tileir fuzz --count 1 --seed {seed} --target {','.join(config.targets)}"
            f" --version {','.join(map(str, o.versions))}"
            f" --gpu-name {','.join(o.gpu_names)}{ops} --no-reduce\n")


def run(config: Config, progress: Callable[[Report, int], None] | None = None,
        log: Callable[[str], None] | None = None) -> Report:
    """Run the campaign `config` describes; Ctrl-C stops it with what it found so far
    (`Report.interrupted`), saved and reduced as far as it gets.  A failure that cannot be
    saved (`config.out` not writable) is noted in `Report.notes`."""
    report = Report(config)
    start = time.monotonic()
    try:
        for findings in _results(config, range(config.seed, config.seed + config.count)):
            report.checked += 1
            for finding in findings:
                if report.add(finding) and log is not None:
                    log(f"new failure: {finding.signature} (seed {finding.seed})")
            if progress is not None:
                progress(report, config.count)
    except KeyboardInterrupt:
        report.interrupted = True
    for failure in sorted(report.failures.values(), key=lambda f: f.first.seed):
        module = reduced = None
        if failure.signature.target != "generator":     # (else: no kernel to keep)
            module, arguments = kernel(config, failure.first.seed)
            failure.ops_before = count_ops(module)
            if config.reduce and not report.interrupted:
                if log is not None:
                    log(f"reducing {failure.signature} (seed {failure.first.seed})")
                try:
                    reduced = reduce_failure(config, failure, module, arguments)
                except _Interrupted as stopped:
                    reduced, report.interrupted = stopped.module, True
                except KeyboardInterrupt:
                    report.interrupted = True
        if config.out is not None:
            try:
                failure.path = save(config, failure, module, reduced)
            except OSError as error:
                report.notes.append(f"cannot save {failure.signature.slug()} under "
                                    f"'{config.out}': {error.strerror or error}")
    report.seconds = time.monotonic() - start
    return report


def summary(report: Report) -> str:
    """The summary table of `report` (its one timing is on the first line)."""
    c = report.config
    done = (f"interrupted after {report.checked} of {c.count} kernels" if report.interrupted
            else f"{report.checked} kernels")
    last = c.seed + max(report.checked, 1) - 1
    lines = [f"tileir fuzz: {done} (seeds {c.seed}..{last}), targets {','.join(c.targets)}: "
             f"{len(report.failures)} distinct failures in {report.findings} findings "
             f"({report.seconds:.1f} s)"]
    if report.failures:
        rows = [("signature", "target", "count", "first seed", "ops before → after", "saved")]
        for f in sorted(report.failures.values(), key=lambda f: (f.signature.target,
                                                                  f.first.seed)):
            ops = (f"{f.ops_before} → {f.ops_after}" if f.ops_after is not None
                   else f"{f.ops_before}" if f.ops_before is not None else "")
            if f.reduce_note:
                ops += f" ({f.reduce_note})"
            rows.append((f.signature.key, f.signature.target, str(f.count),
                         str(f.first.seed), ops, str(f.path) if f.path else "-"))
        lines += _table(rows)
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |" for r in rows]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return out


__all__ = ["Config", "Failure", "Report", "SameSignature", "check_seed", "kernel",
           "reduce_failure", "run", "save", "summary"]
