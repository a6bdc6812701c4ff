"""Random valid kernels against NVIDIA's own tools (issue 16 §2).

    python tools/oracle_campaign.py --kernels N [--seed S] [--jobs J] [--out DIR]
        [--versions 13.1,13.2,13.3,13.4,13.5] [--archs sm_90,sm_100]

Each kernel comes from `tileir.generate` (every op checked by our verifier) and must:
print and parse back to the same text; for every bytecode version our writer takes it
at, be printed by `tileirdisasm` exactly as tileir prints the same bytes; and compile with
`tileiras --gpu-name=<arch>` at the newest version.  Every disagreement is a finding,
grouped by class (the check and its first differing line, numbers masked) with its
smallest kernel written to DIR.  The table at the end is what the closing note quotes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import tileir
from tileir.generate import generate_with_arguments
from tileir.ir import OpResult
from tileir.fuzz.signatures import first_line, normalize
from tileir.nvidia import ARCHITECTURE_LIMIT, tool_path
from tileir.reducer.predicates import ToolRun, compare_engines, run_tool, signal_name

VERSIONS = ("13.1", "13.2", "13.3", "13.4", "13.5")
ARCHS = ("sm_90", "sm_100")
TIMEOUT_S = 120
#: tileiras's refusal of something an architecture lacks (Blackwell's narrow floats or
#: multicast memory on Hopper): not a disagreement (the kernel is valid, for another
#: architecture), counted apart.




@dataclass
class Finding:
    """One disagreement: its class, the kernel's seed and what differed."""

    check: str
    signature: str
    seed: int
    detail: str


@dataclass
class Result:
    """What checking one kernel found and counted."""

    seed: int
    findings: list[Finding] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    text: str = ""


def _first_difference(theirs: str, ours: str) -> tuple[str, str]:
    """The first differing line of two texts: a class signature and a detail."""
    a, b = theirs.splitlines(), ours.splitlines()
    for number, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return normalize(x), (f"line {number}:\n  tileirdisasm: {x[:400]}\n"
                                  f"  tileir:       {y[:400]}")
    return "line count", f"tileirdisasm {len(a)} lines, tileir {len(b)} lines"


def _run(tool: str, *args: str) -> ToolRun:
    """`tool` run on `args` (killed with all it started after `TIMEOUT_S`)."""
    return run_tool([tool, *args], TIMEOUT_S)


#: tileiras bugs recorded in docs/nvidia-tools.md, each with the rewrite that avoids it
#: without changing the kernel's meaning: a crash is explained by one only when the
#: rewritten kernel compiles.
_NARROW_WIDENING = re.compile(
    r"(= ftof %[\w.#]+ )rounding<(?:negative_inf|positive_inf|nearest_away)>"
    r"( : tile<[\dx]*x?(?:f16|bf16|f8E4M3FN|f8E5M2|f4E2M1FN)> -> tile<[\dx]*x?(?:bf16|tf32)>)")
#: A multimem store of 16-bit floats (its whole line; its token must have no use).
_HALF_MULTIMEM_STORE = re.compile(r"^ *%[\w.]+ = multimem_store_view_tko .*x(?:f16|bf16)>, "
                                  r"tile<i\d+>.*\n", re.M)
def _unscanned_reshapes(text: str) -> str:
    """`text` with every reshape of a scan's result reshaping the scan's input instead
    (one type: a scan keeps its operand's type)."""
    module = tileir.parse(text)
    for op in module.items[0].walk():
        source = op.operands[0] if op.name.endswith(".reshape") and op.operands else None
        if isinstance(source, OpResult) and source.owner.name.endswith(".scan"):
            op.operands[0] = source.owner.operands[source.index]
    return module.format()


def _for_bodies_without_view_accesses(text: str) -> str:
    """`text` with the view loads and stores of every `for` body dropped, and what only
    they feed (a kernel whose loop yields a loaded value keeps them)."""
    module = tileir.parse(text)
    for op in list(module.items[0].walk()):
        if not op.name.endswith(".for"):
            continue
        block = op.regions[0].blocks[0]
        dropped: set[Any] = set()
        for inner in block.operations:
            if inner.name.endswith(("load_view_tko", "store_view_tko")) or \
                    any(v.owner in dropped for v in inner.operands
                        if isinstance(v, OpResult)):
                dropped.add(inner)
        if any(v.owner in dropped for inner in block.operations if inner not in dropped
               for v in inner.operands if isinstance(v, OpResult)):
            continue
        block.operations = [inner for inner in block.operations if inner not in dropped]
    return module.format()


def _i1_ifs_through_i8(text: str) -> str:
    """`text` with every `if` that yields an i1 tile yielding it widened to i8 (exti) and
    truncated back after the `if` (trunci): the same values, through an i8 `if`."""
    from tileir.ir import Builder
    from tileir.types import I1, I8, TileType
    module = tileir.parse(text)
    for op in list(module.items[0].walk()):
        if not op.name.endswith(".if") or not any(
                isinstance(r.type, TileType) and r.type.element_type == I1 for r in op.results):
            continue
        for k, result in enumerate(op.results):
            t = result.type
            if not (isinstance(t, TileType) and t.element_type == I1):
                continue
            wide = TileType(t.shape, I8)
            for region in op.regions:
                block = region.blocks[0]
                terminator = block.operations.pop()
                ext = Builder(block).create("exti", [terminator.operands[k]], [wide],
                                            {"signedness": "unsigned"})
                terminator.operands[k] = ext.results[0]
                block.append(terminator)
            users = [(u, i) for u in module.items[0].walk() for i, v in enumerate(u.operands)
                     if v is result]
            result.type = wide
            trunc = Builder(None).create("trunci", [result], [t])
            block = op.parent
            block.operations.insert(block.operations.index(op) + 1, trunc)
            trunc.parent = block
            for user, i in users:
                user.operands[i] = trunc.results[0]
    return module.format()


#: tileiras refusals ("failed to compile", no reason given) of valid kernels, recorded in
#: docs/nvidia-tools.md, each with the rewrite that shows what alone makes it refuse.
KNOWN_REFUSALS: dict[str, Callable[[str], str]] = {
    # (not the same kernel: reshaping the scan's input shows the pair alone is refused)
    "'failed to compile' for a reshape of a scan's result": _unscanned_reshapes,
    # (the same kernel: i1 values carried through an i8 `if` and back)
    "'failed to compile' for an i1 tile yielded by an if": _i1_ifs_through_i8,
}
KNOWN_CRASHES: dict[str, Callable[[str], str]] = {
    "SIGILL on a widening ftof to bf16/tf32 with a directed or away rounding":
        lambda text: _NARROW_WIDENING.sub(r"\1rounding<nearest_even>\2", text),
    # (not the same kernel: dropping the stores only shows they alone make tileiras crash)
    "SIGSEGV on a multimem store of a computed f16/bf16 tile":
        lambda text: _HALF_MULTIMEM_STORE.sub("", text),
    # (not the same kernel either: the loop without its loads and stores compiles)
    "SIGSEGV on a for shifting its carried values while its body loads and stores":
        _for_bodies_without_view_accesses,
}


def _known_bug(text: str, version: str, arch: str, compiler: str, scratch: Path,
               known: dict[str, Callable[[str], str]]) -> str | None:
    """Which recorded tileiras bug of `known` (KNOWN_CRASHES or KNOWN_REFUSALS) a failure
    is, if avoiding it alone makes the kernel compile (the widening ftofs rewritten are
    exact: every rounding gives one value; the other rewrites show what alone fails)."""
    for name, rewrite in known.items():
        changed = rewrite(text)
        if changed == text:
            continue
        path = scratch / "rewritten.tileirbc"
        try:
            path.write_bytes(tileir.parse(changed).to_bytecode(version=version))
        except tileir.TileIRError:          # (a dropped op's result had a use)
            continue
        done = _run(compiler, f"--gpu-name={arch}", "-o", str(scratch / "r.cubin"), str(path))
        if done.returncode == 0:
            return name
    return None


def check_kernel(seed: int, versions: tuple[str, ...] = VERSIONS,
                 archs: tuple[str, ...] = ARCHS, ops: int | None = None,
                 runs: bool = True) -> Result:
    """Every check of the campaign on the kernel of `seed`."""
    result = Result(seed)
    size = ops if ops is not None else 6 + seed % 15
    module, arguments = generate_with_arguments(seed, ops=size)
    text = result.text = module.format()

    def finding(check: str, signature: str, detail: str) -> None:
        result.findings.append(Finding(check, signature, seed, detail))

    try:
        module.verify()
    except tileir.TileIRError as error:
        finding("generator", "kernel fails verification", str(error)[:400])
        return result
    try:
        again = tileir.parse(text).format()
    except tileir.TileIRError as error:
        message = str(error).splitlines()[0]
        finding("verified kernel fails to parse", normalize(message.split("error: ")[-1]),
                message)
        return result
    if again != text:
        finding("text round trip", *_first_difference(text, again))
    for disagreement in compare_engines(module, None, arguments) if runs else ():
        finding(f"engines disagree ({disagreement.setting})", normalize(disagreement.line),
                str(disagreement))
        result.counts["runs where engines disagreed"] += 1
    result.counts["kernels compared across engines and checks"] += 1 if runs else 0
    disasm, compiler = tool_path("tileirdisasm"), tool_path("tileiras")
    with tempfile.TemporaryDirectory() as scratch:
        newest = None
        for version in versions:
            try:
                data = module.to_bytecode(version=version)
            except tileir.TileIRError:
                result.counts["versions our writer refused"] += 1
                continue
            newest, newest_version = Path(scratch) / f"k.{version}.tileirbc", version
            path = newest
            path.write_bytes(data)
            ours = tileir.from_bytecode(data)
            ours.spelling = "bare"
            printed = _run(disasm, str(path))
            result.counts["files printed by tileirdisasm"] += 1
            if printed.returncode != 0:
                first = first_line(printed.stderr)
                finding(f"tileirdisasm refused {version}", normalize(first), first)
            elif printed.stdout != ours.format():
                finding("tileirdisasm text", *_first_difference(printed.stdout, ours.format()))
            else:
                result.counts["texts equal to tileirdisasm's"] += 1
        for arch in archs if newest is not None else ():
            done = _run(compiler, f"--gpu-name={arch}", "-o", str(Path(scratch) / "k.cubin"),
                        str(newest))
            result.counts[f"tileiras compiles ({arch})"] += 1
            if done.timed_out or done.signal is not None:
                name = "timeout" if done.timed_out else signal_name(done.signal)
                known = _known_bug(text, newest_version, arch, compiler, Path(scratch),
                                   KNOWN_CRASHES)
                if known is not None:
                    result.counts[f"tileiras crashes ({arch}) explained: {known}"] += 1
                else:
                    finding(f"tileiras crashed ({arch})", name, f"{name}; stderr: "
                            f"{done.stderr.strip()[:300]}")
            elif done.returncode != 0:
                first = first_line(done.stderr)
                known = None if ARCHITECTURE_LIMIT.search(first) else _known_bug(
                    text, newest_version, arch, compiler, Path(scratch), KNOWN_REFUSALS)
                if ARCHITECTURE_LIMIT.search(first):
                    result.counts[f"refused by tileiras for what {arch} lacks"] += 1
                elif known is not None:
                    result.counts[f"tileiras refusals ({arch}) explained: {known}"] += 1
                else:
                    finding(f"tileiras refused ({arch})", normalize(first),
                            done.stderr.strip()[:400])
            else:
                result.counts[f"compiled by tileiras ({arch})"] += 1
    return result


def campaign(kernels: int, seed: int, jobs: int, versions: tuple[str, ...],
             archs: tuple[str, ...], out: Path | None, runs: bool = True
             ) -> tuple[Counter, dict]:
    """Check `kernels` kernels; the counts and the findings by class (smallest kernel)."""
    counts: Counter = Counter()
    classes: dict[tuple[str, str], list[Finding]] = {}
    smallest: dict[tuple[str, str], str] = {}
    seeds = [seed * 1_000_003 + i for i in range(kernels)]
    start = time.monotonic()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, result in enumerate(pool.map(check_kernel, seeds, [versions] * kernels,
                                               [archs] * kernels, [None] * kernels,
                                               [runs] * kernels, chunksize=4), 1):
            counts["kernels"] += 1
            counts.update(result.counts)
            for f in result.findings:
                key = (f.check, f.signature)
                print(f"  finding: {f.check}: {f.signature} (seed {f.seed})"
                      f"{'' if key in classes else ' (a new class)'}", flush=True)
                classes.setdefault(key, []).append(f)
                if key not in smallest or len(result.text) < len(smallest[key]):
                    smallest[key] = result.text
            if done % 50 == 0 or done == kernels:
                print(f"  {done:,}/{kernels:,} kernels, "
                      f"{sum(len(v) for v in classes.values())} findings in {len(classes)} "
                      f"classes, {done / (time.monotonic() - start):.1f}/s", flush=True)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for n, (key, found) in enumerate(sorted(classes.items())):
            (out / f"class{n:03d}.mlir").write_text(
                f"// {key[0]}: {key[1]}\n// {len(found)} kernels, e.g. seed {found[0].seed}\n"
                "// " + found[0].detail.replace("\n", "\n// ") + "\n" + smallest[key])
    return counts, classes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--archs", default=",".join(ARCHS))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--no-runs", action="store_true",
                        help="skip launching each kernel on the engines")
    args = parser.parse_args(argv)
    if tool_path("tileirdisasm") is None or tool_path("tileiras") is None:
        print("oracle_campaign: NVIDIA's tileiras and tileirdisasm are not installed "
              "(pip install -e '.[oracles]')", file=sys.stderr)
        return 2
    versions, archs = tuple(args.versions.split(",")), tuple(args.archs.split(","))
    known = {str(v) for v in tileir.SUPPORTED_VERSIONS}
    if not set(versions) <= known or args.jobs < 1 or args.kernels < 0:
        print(f"oracle_campaign: --versions takes some of {', '.join(sorted(known))}, "
              "--jobs at least 1, --kernels at least 0", file=sys.stderr)
        return 2
    try:
        return _report(args, versions, archs)
    except KeyboardInterrupt:
        print("oracle_campaign: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"oracle_campaign: {error}", file=sys.stderr)
        return 1


def _report(args: argparse.Namespace, versions: tuple[str, ...], archs: tuple[str, ...]
            ) -> int:
    """Run the campaign `args` describe and print its table; 1 when anything disagreed."""
    print(f"oracle campaign: {args.kernels:,} kernels, seed {args.seed}, versions "
          f"{', '.join(versions)}, tileiras for {', '.join(archs)}", flush=True)
    start = time.monotonic()
    counts, classes = campaign(args.kernels, args.seed, args.jobs, versions, archs, args.out,
                               not args.no_runs)
    print("\n| count | what |\n|------:|------|")
    for what, n in sorted(counts.items()):
        print(f"| {n:,} | {what} |")
    print(f"\n{sum(len(v) for v in classes.values())} findings in {len(classes)} classes "
          f"({time.monotonic() - start:.0f} s)")
    for (check, signature), found in sorted(classes.items()):
        print(f"- {check}: {signature} ({len(found)} kernels, e.g. seed {found[0].seed})")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
