"""The examples of README.md and docs/*.md run as written: every ```python block in a fresh
interpreter (its printed text checked where the docs show it), and every command of the
README's shell blocks, in order, in an empty directory.

Conventions in the Markdown (each an HTML comment on the line just before a fence, so that
a reader sees it in the source and the rendered page stays clean):

* ``<!-- not run: REASON -->``: the block is not run (it installs packages, say);
* ``<!-- output -->``: the block is the exact standard output of the ```python block
  before it.

A block that imports an optional extra that is not installed (cuda-tile, torch, ...), and a
shell line that needs one, is skipped, saying which.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import tileir

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: Where the `tileir` the tests import lives: the examples run against the same code.
PACKAGE_ROOT = Path(tileir.__file__).resolve().parents[1]

#: Optional extras, by the module a block imports: what to install for it.
EXTRAS = {"cuda.tile": "cuda-tile (the oracles extra)", "torch": "torch (the torch extra)",
          "triton": "triton (the bench extra)", "llvmlite": "llvmlite",
          "PIL": "Pillow (the draw extra)"}
#: What a shell line needs, by a pattern in it: (module, what to install).
SHELL_NEEDS = [(re.compile(r"\.png\b"), "PIL", EXTRAS["PIL"]),
               (re.compile(r"tileir\.cutile|--tileir-cpu"), "cuda.tile", EXTRAS["cuda.tile"])]


@dataclass(frozen=True)
class Block:
    """A fenced block of a Markdown file: where it starts, its language, its text and the
    ``<!-- ... -->`` marker on the line before its fence (None when there is none)."""

    path: Path
    line: int
    lang: str
    text: str
    marker: str | None

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def not_run(self) -> str | None:
        """The reason a block marked ``not run`` gives; None for a block that runs."""
        found = re.fullmatch(r"not run: (.+)", self.marker or "")
        return found.group(1).strip() if found else None


def read_blocks(path: Path) -> list[Block]:
    """Every fenced block of the Markdown file `path`, in order."""
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = re.fullmatch(r"```(\S*)\s*", lines[i])
        if fence is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        comment = re.fullmatch(r"<!--\s*(.*?)\s*-->", lines[i - 1].strip()) if i else None
        blocks.append(Block(path, i + 1, fence.group(1),
                            "".join(line + "\n" for line in lines[i + 1:end]),
                            comment.group(1) if comment else None))
        i = end + 1
    return blocks


BLOCKS = {path: read_blocks(path) for path in DOCS}


def _python_cases() -> list[tuple[Block, str | None]]:
    """Each ```python block with the output the docs show for it (None when they show
    none)."""
    cases = []
    for blocks in BLOCKS.values():
        for block, after in zip(blocks, [*blocks[1:], None]):
            if block.lang == "python":
                shown = after.text if after is not None and after.marker == "output" else None
                cases.append((block, shown))
    return cases


PYTHON = _python_cases()


def _missing_extra(modules: list[str]) -> str | None:
    """What to install for the first of `modules` that is an absent optional extra."""
    for module in modules:
        for extra, what in EXTRAS.items():
            if module == extra or module.startswith(extra + "."):
                try:
                    found = importlib.util.find_spec(extra) is not None
                except ModuleNotFoundError:
                    found = False
                if not found:
                    return what
    return None


def _imports(code: str) -> list[str]:
    """The modules `code` imports."""
    names = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


def _env(path: str | None = None) -> dict[str, str]:
    """The environment of an example: the tested tileir first on the import path, and
    `path` (the tools' directory) first on PATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT),
                                                      env.get("PYTHONPATH")]))
    if path is not None:
        env["PATH"] = os.pathsep.join([path, env.get("PATH", "")])
    return env


@pytest.mark.parametrize("block, shown", PYTHON, ids=[block.name for block, _ in PYTHON])
def test_python_example_runs(block: Block, shown: str | None, tmp_path: Path) -> None:
    if block.not_run is not None:
        pytest.skip(f"marked not run: {block.not_run}")
    missing = _missing_extra(_imports(block.text))
    if missing is not None:
        pytest.skip(f"needs {missing}, which is not installed")
    script, cwd = tmp_path / "example.py", tmp_path / "cwd"
    cwd.mkdir()
    script.write_text(block.text)
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{block.name} failed:\n{done.stderr}"
    if shown is not None:
        assert done.stdout == shown


# ---- the README's shell commands ---------------------------------------------------------


def _shell_lines() -> list[tuple[Block, int, str]]:
    """Each command of the README's plain ``` blocks (shell), with its block and line."""
    lines = []
    for block in BLOCKS[REPO / "README.md"]:
        if block.lang == "" and block.marker != "output":
            for n, line in enumerate(block.text.splitlines(), block.line + 1):
                if line.strip() and not line.lstrip().startswith("#"):
                    lines.append((block, n, line))
    return lines


SHELL = _shell_lines()


def _tools(directory: Path) -> None:
    """Commands `tileir`, `cuda-tile-opt`, `cuda-tile-translate` and `python` in
    `directory`, each running the tested tileir with this interpreter."""
    for name, module in (("tileir", "tileir"), ("cuda-tile-opt", "tileir.cli.opt"),
                         ("cuda-tile-translate", "tileir.cli.translate"), ("python", None)):
        run = f'"{sys.executable}"' + (f" -m {module}" if module else "")
        path = directory / name
        path.write_text(f'#!/bin/sh\nexec {run} "$@"\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _needs(line: str) -> str | None:
    """What to install for a shell line that needs an absent optional extra."""
    for pattern, module, what in SHELL_NEEDS:
        if pattern.search(line) and _missing_extra([module]) is not None:
            return what
    return None


@pytest.fixture(scope="module")
def shell_runs(tmp_path_factory) -> dict[tuple[Path, int], subprocess.CompletedProcess | str]:
    """Every README shell block run line by line, in order, each block in an empty
    directory of its own: each line's result, or why it was skipped."""
    tools = tmp_path_factory.mktemp("tools")
    _tools(tools)
    results: dict[tuple[Path, int], subprocess.CompletedProcess | str] = {}
    cwd: dict[int, Path] = {}
    for block, n, line in SHELL:
        if block.not_run is not None:
            results[block.path, n] = f"marked not run: {block.not_run}"
            continue
        missing = _needs(line)
        if missing is not None:
            results[block.path, n] = f"needs {missing}, which is not installed"
            continue
        if block.line not in cwd:
            cwd[block.line] = tmp_path_factory.mktemp("shell")
        results[block.path, n] = subprocess.run(
            ["bash", "-c", line], cwd=cwd[block.line], env=_env(str(tools)),
            capture_output=True, text=True, timeout=300)
    return results


@pytest.mark.parametrize("block, n, line", SHELL,
                         ids=[f"README.md:{n}" for _, n, _ in SHELL])
def test_readme_shell_command_runs(block: Block, n: int, line: str, shell_runs) -> None:
    done = shell_runs[block.path, n]
    if isinstance(done, str):
        pytest.skip(done)
    assert done.returncode == 0, f"README.md:{n}: {line}\n{done.stderr}"
    assert "Traceback" not in done.stderr and "error:" not in done.stderr, done.stderr


def test_readme_shell_commands_are_found() -> None:
    """The README's shell examples are seen (a change of fence would hide them)."""
    commands = [line.split()[0] for _, _, line in SHELL]
    assert {"tileir", "cuda-tile-opt", "cuda-tile-translate"} <= set(commands)
    assert any(line.startswith("tileir example --list") for _, _, line in SHELL)
    assert any("$(tileir example --path)" in line for _, _, line in SHELL)


def test_readme_convert_line_prints_what_its_comment_says(shell_runs) -> None:
    """A command whose comment shows its output: the comment is what it prints."""
    (block, n, line), = [case for case in SHELL if case[2].startswith("tileir convert ")]
    done = shell_runs[block.path, n]
    assert not isinstance(done, str)
    shown = line.split("#", 1)[1].strip()
    assert done.stdout == shown + "\n"
    assert shown == "1000000000.0 -> f16: 65504.0 (bits 0x7bff)"   # f16's largest finite


# ---- the conventions themselves ----------------------------------------------------------


def test_markers_are_well_formed() -> None:
    """Each marker is one of the two conventions; an output block follows a python block;
    a block not run says why."""
    for blocks in BLOCKS.values():
        for before, block in zip([None, *blocks], blocks):
            if block.marker is None:
                continue
            assert block.marker == "output" or block.not_run, (block.name, block.marker)
            if block.marker == "output":
                assert before is not None and before.lang == "python", block.name


def test_examples_are_found() -> None:
    """The python examples of README.md and of the builder's page, with their outputs."""
    readme = [b for b, _ in PYTHON if b.path.name == "README.md"]
    assert len(readme) >= 4
    builder = [(b, shown) for b, shown in PYTHON if b.path.name == "builder.md"]
    assert len(builder) == 2 and all(shown for _, shown in builder)
    assert "docs/builder.md" in (REPO / "README.md").read_text()
    not_run = [b.name for blocks in BLOCKS.values() for b in blocks
               if b.lang == "python" and b.not_run]
    assert not_run == []


def test_builder_example_prints_the_kernel_it_builds() -> None:
    """The builder page's shown output is the kernel the text of its own block describes:
    checked against a kernel written by hand here, not against the code's output."""
    (block, shown), _ = [(b, s) for b, s in PYTHON if b.path.name == "builder.md"]
    expected = tileir.parse(
        "cuda_tile.module @kernels {\n"
        "  entry @square(%x: tile<ptr<f32>>, %n: tile<i32>) {\n"
        "    %t = make_token : token\n"
        "    %b, %by, %bz = get_tile_block_id : tile<i32>\n"
        "    %v = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> "
        "tensor_view<?xf32, strides=[1]>\n"
        "    %p = make_partition_view %v : partition_view<tile=(16), tensor_view<?xf32, "
        "strides=[1]>>\n"
        "    %y, %t1 = load_view_tko weak %p[%b] token = %t : partition_view<tile=(16), "
        "tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token\n"
        "    %sq = mulf %y, %y rounding<nearest_even> : tile<16xf32>\n"
        "    %t2 = store_view_tko weak %sq, %p[%b] token = %t1 : tile<16xf32>, "
        "partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token\n"
        "    return\n"
        "  }\n"
        "}\n")
    printed, last = shown.rsplit("}\n", 1)
    assert printed + "}\n" == expected.format()
    assert last == "batched [144. 169. 196. 225. 256. 289. 324. 361.]\n"
