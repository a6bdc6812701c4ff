"""Each `tileir fuzz` target on small planted cases: fake NVIDIA tools (shell scripts),
an engine and a printer broken in this process."""

from __future__ import annotations

import stat

import numpy as np
import pytest

from tileir.fuzz import targets
from tileir.fuzz.targets import Options, check, tool_path
from tileir.generate import generate_with_arguments
from tileir.ir import Module
from tileir.versions import Version

#: A kernel the engines run to the end (no undefined behaviour) that loads an f32 view.
ENGINE_SEED, ENGINE_OPS = 33, 8


def _kernel(seed: int = 2, ops: int = 8):
    return generate_with_arguments(seed, ops=ops)


def _tool(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize("seed", [2, 4, 33])
def test_clean_kernels_pass_the_tool_free_targets(seed):
    module, arguments = _kernel(seed)
    assert check("roundtrip", module, arguments, Options()) is None
    assert check("engines", module, arguments, Options()) is None


def test_tileiras_crash_by_signal(tmp_path):
    fake = _tool(tmp_path, "tileiras", 'echo "boom" >&2; kill -SEGV $$')
    module, arguments = _kernel()
    found = check("tileiras", module, arguments,
                  Options(gpu_names=("sm_80", "sm_90"), tileiras=fake))
    assert (found.signature.target, found.signature.key) == ("tileiras", "SIGSEGV")
    assert found.gpu_name == "sm_80" and found.version == Version(13, 5)
    assert found.message.startswith("SIGSEGV (bytecode 13.5, --gpu-name=sm_80)\nboom")


def test_tileiras_refusal_and_architecture_limit(tmp_path):
    fake = _tool(tmp_path, "tileiras", """case "$1" in
  --gpu-name=sm_80) echo "error: Incompatibility with architecture 'sm_80': no f8" >&2; exit 1;;
  *) echo "k.tileirbc:3:7: error: 'cuda_tile.ftof' op failed to compile %12" >&2; exit 1;;
esac""")
    module, arguments = _kernel()
    found = check("tileiras", module, arguments,
                  Options(gpu_names=("sm_80", "sm_100"), tileiras=fake))
    assert found.signature.key == "k.tileirbc:#:#: error: 'cuda_tile.ftof' op failed to " \
        "compile %#"
    assert found.gpu_name == "sm_100"
    only_limit = Options(gpu_names=("sm_80",), tileiras=fake)
    assert check("tileiras", module, arguments, only_limit) is None


def test_tileiras_timeout(tmp_path):
    fake = _tool(tmp_path, "tileiras", "sleep 5")
    module, arguments = _kernel()
    found = check("tileiras", module, arguments, Options(tileiras=fake, timeout=0.2))
    assert found.signature.key == "timeout"
    assert found.message == "timed out after 0.2 s (bytecode 13.5, --gpu-name=sm_100)"


def test_tileirdisasm_text_difference(tmp_path):
    fake = _tool(tmp_path, "tileirdisasm", 'echo "cuda_tile.module @kernels {"; '
                 'echo "  entry @k() { %0 = constant <i32: 7> : tile<i32> }"')
    module, arguments = _kernel()
    found = check("tileirdisasm", module, arguments, Options(tileirdisasm=fake))
    assert found.signature.target == "tileirdisasm"
    assert found.signature.key.startswith("line differs: ") or \
        found.signature.key == "line count differs"


def test_tileirdisasm_refusal(tmp_path):
    fake = _tool(tmp_path, "tileirdisasm", 'echo "error: unknown opcode 0x51 at 120" >&2; '
                 "exit 1")
    module, arguments = _kernel()
    found = check("tileirdisasm", module, arguments, Options(tileirdisasm=fake))
    assert found.signature.key == "refused: error: unknown opcode # at #"


def test_engines_disagreement_planted_in_one_batched_op(monkeypatch):
    from tileir.interp.batch import ops as batch_ops
    original = batch_ops.BATCHED["load_view_tko"]

    def off_by_one(step, *operands):
        tile, token = original(step, *operands)
        tile = np.array(tile, copy=True)
        if tile.dtype.kind in "iuf":
            tile = tile + tile.dtype.type(1)
        return tile, token

    monkeypatch.setitem(batch_ops.BATCHED, "load_view_tko", off_by_one)
    module, arguments = _kernel(ENGINE_SEED, ENGINE_OPS)
    found = check("engines", module, arguments, Options())
    assert found.signature.key == "blocks and batched wrote different bytes to argument #"
    assert found.message == ("blocks and batched wrote different bytes to argument 7 "
                             "(grid 1, schedule sequential)")


def test_roundtrip_text_failure_planted_in_the_printer(monkeypatch):
    original = Module.format
    calls = []

    def drifting(self, *args, **kwargs):
        calls.append(1)
        text = original(self, *args, **kwargs)
        return text if len(calls) == 1 else text.replace("cuda_tile.module", "cuda_tile.modul")

    monkeypatch.setattr(Module, "format", drifting)
    module, arguments = _kernel()
    found = check("roundtrip", module, arguments, Options())
    assert found.signature.key == "text line differs: cuda_tile.module @# {"


def test_roundtrip_bytecode_failure_planted_in_the_writer(monkeypatch):
    original = Module.to_bytecode
    calls = []

    def drifting(self, *args, **kwargs):
        calls.append(1)
        data = original(self, *args, **kwargs)
        return data if len(calls) == 1 else data + b"\0"

    monkeypatch.setattr(Module, "to_bytecode", drifting)
    module, arguments = _kernel()
    found = check("roundtrip", module, arguments, Options())
    assert found.signature.key == "bytecode rewritten differs"
    assert found.version == Version(13, 5)


def test_a_target_raising_is_a_finding(monkeypatch):
    def raises(module, arguments, options):
        raise ValueError("bad 42")

    monkeypatch.setitem(targets.TARGETS, "roundtrip",
                        targets.Target(raises, (), "planted"))
    module, arguments = _kernel()
    found = check("roundtrip", module, arguments, Options())
    assert found.signature.key == "check raised ValueError: bad #"


REAL = pytest.mark.skipif(tool_path("tileiras") is None or tool_path("tileirdisasm") is None,
                          reason="NVIDIA's tileiras/tileirdisasm not installed "
                          "(pip install 'tileir[oracles]')")


@REAL
@pytest.mark.parametrize("seed", [2, 4])
def test_real_tools_agree_on_clean_kernels(seed):
    module, arguments = _kernel(seed)
    options = Options(versions=(Version(13, 4), Version(13, 5)), gpu_names=("sm_90", "sm_100"))
    assert check("tileirdisasm", module, arguments, options) is None
    assert check("tileiras", module, arguments, options) is None


def test_engines_past_the_timeout_is_a_timeout_finding(monkeypatch):
    # (the launches had no bound: a reduced kernel that never ends hung the campaign)
    import time

    def forever(*args, **kwargs):
        time.sleep(30)
        yield
    monkeypatch.setattr(targets, "compare_engines", forever)
    module, arguments = _kernel()
    found = check("engines", module, arguments, Options(timeout=0.2))
    assert (found.signature.key, found.message) == (
        "timeout", "the launches took more than 0.2 s")
