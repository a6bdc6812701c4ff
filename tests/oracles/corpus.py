"""The oracle corpus: our cuTile kernels exported as bytecode, with NVIDIA's disassembly.

Needs the `oracles` extra (`cuda-tile`, `nvidia-cuda-tileiras`). `build()` exports every kernel
of `kernels.py` at every version it lists (13.1 for sm_90, since 13.1 bytecode needs an
architecture; 13.3 and 13.4 architecture-independent), runs `tileirdisasm` (plain and `-g`)
on each file, and keeps the results in a directory under the system temp folder whose name
hashes the tool versions and the corpus sources, so a test session (and every pytest-xdist
worker) exports only when something changed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from tileir import nvidia

HERE = Path(__file__).resolve().parent
SOURCES = (HERE / "kernels.py", HERE / "corpus.py")
GPU_CODE = {"13.1": "sm_90", "13.2": "sm_90"}  # versions that need an architecture
TOOLS = ("tileiras", "tileirdisasm")
TIMEOUT_S = 120


@dataclass(frozen=True)
class Entry:
    """One exported file: kernel name, bytecode version and where its artifacts lie."""

    kernel: str
    version: str
    directory: Path

    @property
    def stem(self) -> str:
        """File name stem shared by the bytecode and its disassemblies."""
        return f"{self.kernel}.v{self.version}"

    @property
    def bytecode(self) -> bytes:
        """The bytes cuTile wrote."""
        return (self.directory / f"{self.stem}.tileirbc").read_bytes()

    @property
    def text(self) -> str:
        """`tileirdisasm`'s output for the file."""
        return (self.directory / f"{self.stem}.mlir").read_text(encoding="utf-8")

    @property
    def debug_text(self) -> str:
        """`tileirdisasm -g`'s output for the file (with debug locations)."""
        return (self.directory / f"{self.stem}.g.mlir").read_text(encoding="utf-8")

    @property
    def rejection(self) -> str:
        """`tileirdisasm`'s stderr for a file it refused (empty for accepted files)."""
        path = self.directory / f"{self.stem}.rejected.txt"
        return path.read_text(encoding="utf-8") if path.exists() else ""


def missing() -> str | None:
    """Why the corpus cannot be built here (a missing optional dependency), or None."""
    try:
        import cuda.tile  # noqa: F401
    except ImportError as error:
        return f"cuTile Python is not installed (pip install -e '.[oracles]'): {error}"
    for tool in TOOLS:
        if tool_path(tool) is None:
            return f"NVIDIA's {tool} is not installed (pip install nvidia-cuda-tileiras)"
    return None


def tool_path(name: str) -> Path | None:
    """Where `tileiras` or `tileirdisasm` is (`tileir.nvidia.tool_path`), as a Path."""
    found = nvidia.tool_path(name)
    return Path(found) if found is not None else None

def run_tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run one of NVIDIA's tools, capturing its text output."""
    path = tool_path(name)
    assert path is not None, f"{name} is not installed"
    return subprocess.run([str(path), *args], capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)


def tool_version(name: str) -> str:
    """The release line of a tool's `--version` (e.g. 'Cuda compilation tools, ... V13.5.37')."""
    lines = run_tool(name, "--version").stdout.splitlines()
    return next((line for line in lines if "release" in line), " ".join(lines))


def cache_key() -> str:
    """A hash of the tool versions and the corpus sources: a new one re-exports."""
    digest = hashlib.sha256()
    digest.update(importlib.metadata.version("cuda-tile").encode())
    for tool in TOOLS:
        digest.update(tool_version(tool).encode())
    for source in SOURCES:
        digest.update(str(source).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def entries(directory: Path) -> list[Entry]:
    """Every accepted kernel and version of the corpus, in kernels.py order."""
    import kernels

    return [Entry(k.name, v, directory) for k in kernels.KERNELS for v in k.versions]


def rejected_entries(directory: Path) -> list[Entry]:
    """Every kernel and version that NVIDIA's reader is expected to refuse."""
    import kernels

    return [Entry(k.name, v, directory) for k in kernels.REJECTED for v in k.versions]


def export(function: object, parameters: tuple, version: str, path: Path) -> None:
    """Write one kernel's bytecode at `version` with cuTile's ahead-of-time export."""
    from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel

    signature = KernelSignature(list(parameters),
                                calling_convention=CallingConvention.cutile_python_v2())
    export_kernel(function, [signature], str(path), output_format="tileir_bytecode",
                  bytecode_version=version, gpu_code=GPU_CODE.get(version))


def disassemble(entry: Entry) -> None:
    """Store tileirdisasm's plain and `-g` text for an accepted file; fail if it refuses."""
    path = entry.directory / f"{entry.stem}.tileirbc"
    for suffix, flags in ((".mlir", ()), (".g.mlir", ("-g",))):
        done = run_tool("tileirdisasm", *flags, str(path))
        if done.returncode != 0:
            raise RuntimeError(f"tileirdisasm {' '.join(flags)} {path.name} failed "
                               f"(rc {done.returncode}): {done.stderr}")
        (entry.directory / f"{entry.stem}{suffix}").write_text(done.stdout, encoding="utf-8")


def record_rejection(entry: Entry) -> None:
    """Store tileirdisasm's error text for a file it must refuse; fail if it accepts it."""
    path = entry.directory / f"{entry.stem}.tileirbc"
    done = run_tool("tileirdisasm", str(path))
    if done.returncode == 0:
        raise RuntimeError(f"tileirdisasm accepted {path.name}, which should be invalid")
    (entry.directory / f"{entry.stem}.rejected.txt").write_text(done.stderr, encoding="utf-8")


def first_error(stderr: str) -> str:
    """The message of the first `error:` line of an MLIR tool's output."""
    for line in stderr.splitlines():
        found = re.search(r"\berror: (.*)$", line)
        if found:
            return found.group(1)
    return ""


def populate(directory: Path) -> None:
    """Export and disassemble the whole corpus into an empty directory."""
    import kernels

    for kernel in kernels.KERNELS + kernels.REJECTED:
        for version in kernel.versions:
            export(kernel.function, kernel.parameters, version,
                   directory / f"{kernel.name}.v{version}.tileirbc")
    for entry in entries(directory):
        disassemble(entry)
    for entry in rejected_entries(directory):
        record_rejection(entry)


def build() -> Path:
    """The corpus directory, exported now unless an identical one is already cached."""
    root = Path(tempfile.gettempdir()) / "tileir-oracles"
    final = root / cache_key()
    if final.is_dir():
        return final
    root.mkdir(parents=True, exist_ok=True)
    scratch = root / f"building-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    scratch.mkdir()
    try:
        populate(scratch)
        try:
            scratch.rename(final)  # atomic; another worker may have won the race
        except OSError:
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final


def compile_cubin(bytecode: Path, arch: str, output: Path) -> subprocess.CompletedProcess[str]:
    """Run `tileiras --gpu-name=<arch>` on a bytecode file."""
    return run_tool("tileiras", f"--gpu-name={arch}", "-o", str(output), str(bytecode))
