"""First uses from several threads at once: the registries and tables tileir fills lazily
(the op declarations and their classes, opcode table, record layouts, parse and print
plans, parsed formats, the hand-written readers, ...) must come out whole whichever thread
fills them while the others wait or read.

Each run is a fresh Python process, so nothing is filled yet when its threads start: the
main thread imports tileir (imports are not what is tested) and checks that the op registry
is still empty, then 8 threads released together by a barrier each read the same bytecode
file, parse and verify vector_add.mlir, launch it on their own inputs (every other thread on
the one-block-at-a-time engine) and write it as bytecode, each starting with a different
one of these steps.  Every thread must get exactly the right answer: NumPy's sums, no
diagnostic, and the same text and bytes as the parent process computes on one thread.
(The first imports are left to the main thread: importing different tileir modules for the
first time from several threads at once can meet CPython's import-lock deadlock detection
on the package's import cycles, which is another matter.)

The process-wide switches the parser, printer and verifier flip (the recursion limit, the
garbage collector) are checked from several threads too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import tileir

THREADS = 8
#: Guards against a hang (a deadlock would never end); a run takes a few seconds.
TIMEOUT_S = 300

WORKER = r'''
import json, sys, threading, traceback
import numpy as np
import tileir
import tileir.interp
import tileir.ops.registry
import tileir.verify

threads, text_path, data_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
text = open(text_path, encoding="utf-8").read()
data = open(data_path, "rb").read()
assert not tileir.ops.registry._loaded, "the op registry was filled before the threads"
barrier = threading.Barrier(threads)
results = [None] * threads


def work(k):
    got = {}
    n = 100 + k

    def read():
        got["read"] = str(tileir.from_bytecode(data))

    def parse():
        got["parsed"] = str(tileir.parse(text, "vector_add.mlir"))

    def verify():
        module = tileir.parse(text, "vector_add.mlir", verify=False)
        got["diagnostics"] = [str(d) for d in tileir.verify.verify(module)]

    def launch():
        a = np.arange(n, dtype=np.float32) * np.float32(0.25) + np.float32(k)
        b = np.linspace(-1, 1, n, dtype=np.float32)
        c = np.zeros(n, dtype=np.float32)
        engine = "blocks" if k % 2 else "auto"
        tileir.interp.launch(text, "vector_add", (2, 1, 1), [a, b, c, np.int32(n)],
                             engine=engine)
        got["sum"] = (c.tobytes() == (a + b).tobytes())

    def write():
        got["written"] = tileir.parse(text).to_bytecode("13.4") == data

    steps = [read, parse, verify, launch, write]
    steps = steps[k % len(steps):] + steps[:k % len(steps)]
    try:
        barrier.wait()
        for step in steps:
            step()
    except BaseException:
        got["error"] = traceback.format_exc()
    results[k] = got


workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print(json.dumps(results))
'''


def test_first_uses_from_eight_threads_at_once(tmp_path: Path) -> None:
    text_path = Path(str(resources.files("tileir").joinpath(
        "examples/kernels/vector_add.mlir")))
    text = text_path.read_text(encoding="utf-8")
    module = tileir.parse(text, "vector_add.mlir")
    data = module.to_bytecode("13.4")
    data_path = tmp_path / "vector_add.tileirbc"
    data_path.write_bytes(data)
    printed, read = str(module), str(tileir.from_bytecode(data))

    done = subprocess.run([sys.executable, "-c", WORKER, str(THREADS), str(text_path),
                           str(data_path)], capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.splitlines()[-1])
    assert len(results) == THREADS
    for k, got in enumerate(results):
        assert "error" not in got, f"thread {k}:\n{got['error']}"
        assert got == {"read": read, "parsed": printed, "diagnostics": [], "sum": True,
                       "written": True}, f"thread {k}"



def test_recursion_limit_and_collector_hold_while_any_thread_needs_them() -> None:
    """The recursion limit and the garbage collector's switch are the process's: while any
    thread is inside `deep_recursion` / `gc_paused` the limit stays raised and the
    collector paused, and the last one out puts back what the first one in found."""
    import gc
    import threading
    import time

    from tileir.ir import gc_paused
    from tileir.recursion import FRAMES, deep_recursion

    limit, enabled = sys.getrecursionlimit(), gc.isenabled()
    barrier = threading.Barrier(THREADS)
    broken: list[tuple[int, int, bool]] = []

    def work(k: int) -> None:
        barrier.wait()
        for _ in range(2000):
            with deep_recursion(), gc_paused():
                time.sleep(0)            # let the other threads come and go meanwhile
                now = (sys.getrecursionlimit(), gc.isenabled())
                if now[0] < FRAMES or now[1]:
                    broken.append((k, *now))

    workers = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert broken == []
    assert (sys.getrecursionlimit(), gc.isenabled()) == (limit, enabled)
