"""The compiled engine's disk cache (tileir/interp/compiled/disk.py): a kernel compiled
once is loaded, not compiled, by a later process (or after the memory cache is emptied);
a damaged, foreign or unsafe cache is never used, only compiled around."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("llvmlite", reason="the compiled engine needs llvmlite (the jit extra)")

import tileir  # noqa: E402
from tileir.interp import compiled as jit  # noqa: E402
from tileir.interp.compiled import disk  # noqa: E402

BENCH = pathlib.Path(__file__).parents[2] / "bench" / "kernels"


def _softmax(tag: str) -> tuple[object, bytes]:
    """The bench softmax (renamed by `tag`, so its key is new) on 8 x 1000 values:
    (Run, output bytes)."""
    text = (BENCH / "softmax.mlir").read_text().replace("@bench_softmax", f"@{tag}")
    x = np.random.default_rng(1).standard_normal((8, 1000)).astype(np.float32)
    y = np.zeros((8, 1000), np.float32)
    run = tileir.launch(text, "softmax", 8, [x, 8, 1000, 1000, y, 8, 1000, 1000],
                        engine="compiled")
    return run, y.tobytes()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.VARIABLE, str(tmp_path / "cache"))
    return tmp_path / "cache" / "compiled"


def test_a_kernel_compiled_once_is_loaded_afterwards(cache_dir):
    """The first launch compiles and writes one file; with the memory cache emptied the
    next loads it (no compile) and gives the same bytes."""
    jit.clear()
    compiled, loaded = jit.compilations(), jit.loads()
    run, first = _softmax("disk_once")
    assert run.engine == "compiled"
    assert (jit.compilations(), jit.loads()) == (compiled + 1, loaded)
    assert len(list(cache_dir.glob("*.tjit"))) == 1
    jit.clear()
    run, again = _softmax("disk_once")
    assert run.engine == "compiled" and again == first
    assert (jit.compilations(), jit.loads()) == (compiled + 1, loaded + 1)


def test_another_process_loads_what_this_one_compiled(cache_dir):
    """A fresh interpreter finds the kernel on disk: it loads it, compiles nothing."""
    run, first = _softmax("disk_process")
    script = (f"import sys; sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})\n"
              "from test_compiled_disk_cache import _softmax\n"
              "from tileir.interp import compiled as jit\n"
              "run, out = _softmax('disk_process')\n"
              "print(run.engine, jit.compilations(), jit.loads(), out.hex()[:64])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["compiled", "0", "1", first.hex()[:64]]


@pytest.mark.parametrize("damage", ["flip a code byte", "cut short", "other key",
                                    "other format", "not json", "smaller scratch",
                                    "fewer accesses", "deeply nested json"])
def test_a_damaged_or_foreign_file_is_compiled_around(cache_dir, damage):
    """A file whose object code or lowering facts (scratch size, accesses) do not match
    its hash, cut short, naming another key, another format, or unreadable: ignored, the
    kernel compiled again (and the file rewritten), the same bytes."""
    jit.clear()
    tag = "disk_damage_" + damage.replace(" ", "_")
    _, first = _softmax(tag)
    (path,) = cache_dir.glob("*.tjit")
    raw = path.read_bytes()
    line, _, code = raw.partition(b"\n")
    if damage == "flip a code byte":
        raw = line + b"\n" + code[:100] + bytes([code[100] ^ 0xFF]) + code[101:]
    elif damage == "cut short":
        raw = raw[: len(raw) // 2]
    elif damage not in ("not json", "deeply nested json"):
        head = json.loads(line)
        if damage == "other key":
            head["key"] = head["key"].replace("softmax", "softmay")
        elif damage == "other format":
            head["format"] = disk.FORMAT + 1
        elif damage == "smaller scratch":       # (the code would write past it)
            head["scratch"] = 64
        else:                                   # (the race proof would see no store)
            head["accesses"] = [a for a in head["accesses"] if not a["write"]]
        raw = json.dumps(head).encode() + b"\n" + code
    elif damage == "not json":
        raw = b"\x00garbage\n" + code
    else:                   # (json.loads raises RecursionError: it must not end the launch)
        raw = b"[" * 200000 + b"\n" + code
    path.write_bytes(raw)
    jit.clear()
    compiled, loaded = jit.compilations(), jit.loads()
    run, again = _softmax(tag)
    assert run.engine == "compiled" and again == first
    assert (jit.compilations(), jit.loads()) == (compiled + 1, loaded)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.VARIABLE, "off")
    assert disk.directory() is None
    jit.clear()
    compiled = jit.compilations()
    run, _ = _softmax("disk_off")
    assert run.engine == "compiled" and jit.compilations() == compiled + 1


def test_a_directory_others_may_write_is_not_used(tmp_path, monkeypatch):
    """A cache directory writable by its group or by anyone could hold another user's
    machine code: it is not read or written."""
    root = tmp_path / "shared-cache"
    (root / "compiled").mkdir(parents=True)
    (root / "compiled").chmod(0o777)
    monkeypatch.setenv(disk.VARIABLE, str(root))
    assert disk.directory() is None
    jit.clear()
    run, _ = _softmax("disk_unsafe")
    assert run.engine == "compiled"
    assert list((root / "compiled").iterdir()) == []


def test_code_made_by_another_version_of_the_engine_is_not_used(cache_dir, monkeypatch):
    """The key holds a hash of tileir's sources: after any change to the engine (here:
    its fingerprint made different) a kernel on disk is compiled again, not loaded."""
    from tileir.interp.compiled import cache
    jit.clear()
    _softmax("disk_version")
    monkeypatch.setattr(cache, "_fingerprint", "another version")
    jit.clear()
    compiled, loaded = jit.compilations(), jit.loads()
    run, _ = _softmax("disk_version")
    assert run.engine == "compiled"
    assert (jit.compilations(), jit.loads()) == (compiled + 1, loaded)
    assert len(list(cache_dir.glob("*.tjit"))) == 2


def test_no_home_directory_means_no_disk_cache(monkeypatch):
    """Neither TILEIR_CACHE_DIR, XDG_CACHE_HOME nor a home directory: no disk cache, and
    the kernel still runs compiled (no traceback)."""
    def nowhere() -> pathlib.Path:
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.delenv(disk.VARIABLE, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(pathlib.Path, "home", staticmethod(nowhere))
    assert disk.directory() is None
    jit.clear()
    run, _ = _softmax("disk_homeless")
    assert run.engine == "compiled"


def test_without_readable_sources_the_fingerprint_is_this_process_alone(monkeypatch):
    """tileir installed where its sources cannot be listed (a zip): no file made by
    another version may match, so the fingerprint is this process's own."""
    from tileir.interp.compiled import cache
    monkeypatch.setattr(cache, "_fingerprint", None)
    monkeypatch.setattr(cache.Path, "rglob", lambda self, pattern: iter(()))
    first = cache.engine_fingerprint()
    monkeypatch.setattr(cache, "_fingerprint", None)
    assert first.startswith("process ") and cache.engine_fingerprint() != first
