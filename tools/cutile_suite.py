"""Run cuTile Python's own test suite and samples (a checkout of NVIDIA/cutile-python) on
tileir's interpreter through the CPU switch, and print a table per file.

    python tools/cutile_suite.py /path/to/cutile-python [--timeout 120] [--jobs 2]
        [--files test_a.py test_b.py] [--samples-only | --no-samples] [--json out.json]

Each test is sorted into one of:

  passed (kernels run)          passed and ran at least one kernel on tileir
  passed (compile error)        passed; every launch it made was refused by cuTile's
                                compiler, as the test expected
  passed (no launch)            passed without calling ct.launch
  skipped                       skipped by the test itself
  CPU torch reference           the test's reference is computed by CPU torch, which
                                lacks the op (e.g. aten::mm for a dtype, SDPA backends,
                                abs of bool), or compares bit for bit against torch's
                                own sqrt/log/sin/... (the spec fixes no accuracy for
                                transcendental functions; CPU torch's differ from
                                CUDA's): such a test is rerun with torch's functions
                                correctly rounded (through float64), and counted here
                                only if it then passes
  wrong result                  ran kernels and failed a check of their results
  tileir failure                any other failure of a test that called ct.launch
  GPU-only API                  needs CUDA events or graphs, cupy, numba, GPU timers
  UB in kernel                  tileir reported undefined behaviour in the kernel
  cuTile front end              failed without calling ct.launch, or where cuTile's
                                compiler refused the kernel and no kernel ran (its
                                messages differ between the checkout and the installed
                                cuda-tile: version skew)
  timeout                       ran past --timeout seconds

The goal counts tests that call ct.launch: passed (kernels run or compile error) against
passed + wrong result + tileir failure + timeout; GPU-only APIs and UB are listed apart.
This is a measuring script, not a test: CI cannot fetch GitHub.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["passed (kernels run)", "passed (compile error)", "passed (no launch)", "skipped",
           "CPU torch reference", "wrong result", "tileir failure", "GPU-only API",
           "UB in kernel", "cuTile front end", "timeout"]
SHORT = ["run", "cerr", "nolaunch", "skip", "cpuref", "WRONG", "FAIL", "gpu", "ub", "front",
         "time"]
GPU_ONLY = ("GpuOnlyError", "cupy", "numba", "Cupy", "cudagraph", "CUDAGraph", "cuda_timer",
            "_benchmark", "nvidia-smi", "cuda.core", "cuda.bindings", "libcuda", "ipc")
UB_WORDS = ("out of bounds", "outside", "undefined", "race", "overflow", "division by zero",
            "divides by zero", "not aligned", "misaligned", "NaN", "assumption",
            "zero extent", "zero stride", "strictly positive")
#: A checkout's test calling the installed cuTile with another signature (version skew).
SKEW = ("required positional argument", "unexpected keyword argument")
#: Failures of CPU torch computing a test's reference (the op is missing on the CPU).
CPU_TORCH = ("not implemented for", "Could not run 'aten::", "No viable backend for")
#: Tests that check cuTile's GPU JIT itself rather than a kernel's result, with why.
GPU_JIT = {
    "test/test_launch.py::test_launch_on_different_devices":
        "spies on ct.kernel._compile, the GPU JIT's per-device compilation",
    "test/test_mma.py::test_ampere_fp8_error[f8e4m3fn]":
        "patches ct.kernel._compile to compile for sm_80 (passes on tileir with "
        "TILEIR_CUTILE_ARCH=sm_80)",
    "test/test_mma.py::test_ampere_fp8_error[f8e5m2]":
        "patches ct.kernel._compile to compile for sm_80 (passes on tileir with "
        "TILEIR_CUTILE_ARCH=sm_80)",
    "test/test_bytecode.py::test_write_simple_module":
        "launches a hand-made TileDispatcher that returns its own cubin",
    "test/test_concurrent_launch.py::test_concurrent_launch[_cext._benchmark]":
        "launches through cuTile's GPU kernel timer _cext._benchmark",
    "test/test_debug.py::test_crash_dump_enabled_by_env":
        "replaces cuTile's cubin compiler (tileiras) with a failing one and checks its "
        "crash dump, in a child process",
}


#: Samples whose failure was traced to its cause (the symptom must match for it to apply):
#: sample -> (column, symptom in the output's last line, cause).
SAMPLE_CAUSES = {
    "samples/LayerNorm.py": (
        "CPU torch reference", "Greatest relative difference",
        "CPU torch's bfloat16 layer_norm backward accumulates dw and db in bfloat16 (max "
        "error 0.41 and 0.49 against a float64 reference; tileir's 0.031 and 0.030)"),
    "samples/MatMul.py": (
        "CPU torch reference", "Greatest",
        "CPU torch's fp16 GEMM rounds partial sums to fp16 (tileir's result is closer to "
        "the exact product at every differing element) and CPU torch has no TF32 matmul"),
    "samples/BatchMatMul.py": (
        "CPU torch reference", "Greatest",
        "CPU torch's fp16 bmm rounds partial sums to fp16; the sample's inputs are unseeded, "
        "so some draws fail (torch seed 1: tileir's result equals the exact product rounded "
        "to fp16 at 99.987% of elements, CPU torch's at 99.891%)"),
    "samples/FFT.py": (
        "UB in kernel", "outside the index space",
        "launched on grid (BS,1,1) with a tile that holds the whole batch: tile block 1 "
        "loads a tile lying wholly outside the array (a GPU returns padding and drops the "
        "store); with checks off the result is right"),
    "samples/AttentionFMHA.py": (
        "CPU torch reference", "No viable backend",
        "the reference forces SDPBackend.CUDNN_ATTENTION, which CPU torch lacks (with the "
        "math backend its first two tests pass); its timing uses torch.cuda.Event"),
}


def classify(record: dict) -> str:
    """The column of one test's record."""
    outcome, message = record["outcome"], record.get("message", "")
    kind = record.get("kind", "")
    cause = SAMPLE_CAUSES.get(record["test"])
    if outcome == "failed" and cause is not None and cause[1] in message:
        return cause[0]
    launched = record.get("launches", 0) > 0
    if outcome == "passed":
        if record.get("runs", 0) > 0:
            return "passed (kernels run)"
        return "passed (compile error)" if record.get("compile_errors", 0) else \
            "passed (no launch)"
    if outcome == "skipped":
        return "skipped"
    if record.get("exact_math_rerun") == "passed":
        return "CPU torch reference"
    if record["test"] in GPU_JIT:
        return "GPU-only API"
    if "TestTimeout" in kind:
        return "timeout"
    if any(word in message or word in kind for word in GPU_ONLY):
        return "GPU-only API"
    if "ExecutionError" in kind and any(word in message for word in UB_WORDS):
        return "UB in kernel"
    if any(word in message for word in CPU_TORCH):
        return "CPU torch reference"
    if not launched or (record.get("compile_errors", 0) and not record.get("runs", 0)):
        return "cuTile front end"   # tileir ran nothing: cuTile's own code decided
    if "TypeError" in kind and not record.get("tileir_in_traceback", True) and any(
            word in message for word in SKEW):
        return "cuTile front end"   # the checkout calls cuTile with another signature
    if "AssertionError" in kind and record.get("runs", 0) > 0 and \
            not record.get("tileir_in_traceback"):
        return "wrong result"
    return "tileir failure"


def run_tests(root: str, files: list[str], timeout: float, jobs: int, out: str,
              exact_math: bool = False) -> None:
    """Run the test files under pytest with the switch and the recording plugin (with
    `exact_math`, torch's elementwise math functions correctly rounded)."""
    env = dict(os.environ, TILEIR_SUITE_TIMEOUT=str(timeout), TILEIR_SUITE_OUT=out,
               TILEIR_SUITE_EXACT_MATH="1" if exact_math else "",
               TILEIR_CUTILE="cpu", PYTHONPATH=os.pathsep.join(
                   p for p in (HERE, os.environ.get("PYTHONPATH", "")) if p))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "cutile_suite_plugin",
               "--tileir-cpu", "-p", "no:cacheprovider", "-o", "addopts=",
               "--continue-on-collection-errors"]
    if jobs > 1:
        command += ["-n", str(jobs)]
    for start in range(0, len(files), 200):    # test ids can make a long command line
        subprocess.run(command + files[start:start + 200], cwd=os.path.join(root, "test"),
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rerun_with_exact_math(root: str, records: list[dict], timeout: float, jobs: int,
                          tmp: str) -> None:
    """Rerun the tests whose kernels ran and whose results differed from a CPU torch
    reference, with torch's math functions correctly rounded; mark those that pass."""
    suspects = [r for r in records if classify(r) == "wrong result"
                and "not equal" in r.get("message", "")]
    if not suspects:
        return
    out = os.path.join(tmp, "exact.jsonl")
    open(out, "w").close()
    run_tests(root, [r["test"].split("/", 1)[1] for r in suspects], timeout, jobs, out,
              exact_math=True)
    with open(out) as handle:
        again = {json.loads(line)["test"]: json.loads(line) for line in handle if line.strip()}
    for record in suspects:
        rerun = again.get(record["test"])
        record["exact_math_rerun"] = rerun["outcome"] if rerun else "not run"


def run_samples(root: str, timeout: float) -> list[dict]:
    """Run each sample script with --correctness-check under the switch."""
    records = []
    samples = os.path.join(root, "samples")
    names = sorted(n for n in os.listdir(samples) if n.endswith(".py") and n[0].isupper())
    for name in names:
        start = time.monotonic()
        try:
            proc = subprocess.run([sys.executable, "-m", "tileir.cutile", name,
                                   "--correctness-check"], cwd=samples, capture_output=True,
                                  text=True, timeout=timeout * 5)
            output = proc.stdout + proc.stderr
            ok = proc.returncode == 0 and "An unexpected error occurred" not in output
            lines = [line for line in output.strip().splitlines() if line.strip()]
            error_lines = [line for line in lines if "error:" in line or "Error" in line
                           or "Greatest" in line]
            tail = (error_lines or lines or [""])[-1]
            record = {"test": f"samples/{name}", "outcome": "passed" if ok else "failed",
                      "kind": "" if ok else "exit status " + str(proc.returncode),
                      "message": tail[:500], "launches": 1, "runs": 1}
        except subprocess.TimeoutExpired:
            record = {"test": f"samples/{name}", "outcome": "failed", "kind": "TestTimeout",
                      "message": "timed out", "launches": 1, "runs": 1}
        record["seconds"] = round(time.monotonic() - start, 1)
        records.append(record)
    return records


def table(records: list[dict]) -> str:
    """The per-file table and the totals."""
    per_file: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for record in records:
        per_file[record["test"].split("::")[0]][classify(record)] += 1
    width = max([len(f) for f in per_file] + [10])
    lines = ["| " + "file".ljust(width) + " | " + " | ".join(SHORT) + " |",
             "|" + "-" * (width + 2) + "|" + "|".join("-" * (len(s) + 2) for s in SHORT) + "|"]
    total: collections.Counter = collections.Counter()
    for name in sorted(per_file):
        counts = per_file[name]
        total.update(counts)
        lines.append("| " + name.ljust(width) + " | " + " | ".join(
            str(counts[c] or "").rjust(len(s)) for c, s in zip(COLUMNS, SHORT)) + " |")
    lines.append("| " + "TOTAL".ljust(width) + " | " + " | ".join(
        str(total[c]).rjust(len(s)) for c, s in zip(COLUMNS, SHORT)) + " |")
    passed = total["passed (kernels run)"] + total["passed (compile error)"]
    failed = total["wrong result"] + total["tileir failure"] + total["timeout"]
    share = 100.0 * passed / (passed + failed) if passed + failed else 100.0
    lines.append("")
    lines.append(f"tests that launch a kernel: {passed} passed, {failed} failed "
                 f"({share:.2f}% pass; wrong results: {total['wrong result']}); "
                 f"excluded: {total['GPU-only API']} GPU-only API, "
                 f"{total['UB in kernel']} UB in kernel, "
                 f"{total['CPU torch reference']} CPU torch reference")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="a checkout of NVIDIA/cutile-python")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per test")
    parser.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers")
    parser.add_argument("--files", nargs="*", help="test files (default: test/test_*.py)")
    parser.add_argument("--no-samples", action="store_true")
    parser.add_argument("--samples-only", action="store_true")
    parser.add_argument("--json", help="write every test's record here")
    parser.add_argument("--failures", action="store_true", help="list every failure")
    args = parser.parse_args(argv)
    for part in ("test", "samples"):
        if not os.path.isdir(os.path.join(args.root, part)):
            parser.error(f"{args.root} is not a cutile-python checkout (no {part}/ folder)")
    records: list[dict] = []
    if not args.samples_only:
        files = args.files or sorted(n for n in os.listdir(os.path.join(args.root, "test"))
                                     if n.startswith("test_") and n.endswith(".py"))
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "records.jsonl")
            open(out, "w").close()
            run_tests(args.root, files, args.timeout, args.jobs, out)
            with open(out) as handle:
                records += [json.loads(line) for line in handle if line.strip()]
            rerun_with_exact_math(args.root, records, args.timeout, args.jobs, tmp)
    if not args.no_samples and not args.files:
        records += run_samples(args.root, args.timeout)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(records, handle, indent=1)
    print(table(records))
    if args.failures:
        for record in records:
            column = classify(record)
            if column in ("wrong result", "tileir failure", "timeout", "UB in kernel",
                          "GPU-only API", "cuTile front end", "CPU torch reference"):
                why = SAMPLE_CAUSES.get(record["test"], (0, 0, ""))[2] or \
                    GPU_JIT.get(record["test"], "")
                print(f"\n[{column}] {record['test']}\n  {record.get('kind')}: "
                      f"{record.get('message', '')[:400]}" + (f"\n  cause: {why}" if why else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
