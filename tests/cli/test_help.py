"""``--help`` of every command-line tool: each option explained, each ``tileir`` command
listed with its one-line help, and no flag offered that the tool does not implement."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import tileir.cli
from tileir.cli import main, opt

CLI_DIR = Path(tileir.cli.__file__).parent


def _tools() -> dict[str, argparse.ArgumentParser]:
    """Every tool's parser: each ``build_parser`` of ``tileir/cli/*.py`` and of
    ``python -m tileir.cutile``, by module name."""
    names = [f"tileir.cli.{m.name}" for m in pkgutil.iter_modules([str(CLI_DIR)])]
    names.append("tileir.cutile.__main__")
    modules = [importlib.import_module(name) for name in names]
    return {m.__name__: m.build_parser() for m in modules if hasattr(m, "build_parser")}


TOOLS = _tools()


def _parsers(name: str, parser: argparse.ArgumentParser
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """`parser` and, depth first, the parser of each of its subcommands, with their names."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from _parsers(f"{name} {command}", sub)


ALL = [(name, parser) for tool, top in TOOLS.items() for name, parser in _parsers(tool, top)]


def test_every_tool_is_found() -> None:
    assert {"tileir.cli.main", "tileir.cli.opt", "tileir.cli.translate",
            "tileir.cutile.__main__"} <= set(TOOLS)
    assert TOOLS["tileir.cli.main"].prog == "tileir"
    assert TOOLS["tileir.cli.opt"].prog == "cuda-tile-opt"
    assert TOOLS["tileir.cli.translate"].prog == "cuda-tile-translate"
    assert TOOLS["tileir.cutile.__main__"].prog == "python -m tileir.cutile"
    commands = {name for name, _ in ALL if name.startswith("tileir.cli.main ")}
    assert {"tileir.cli.main check", "tileir.cli.main show", "tileir.cli.main example",
            "tileir.cli.main type", "tileir.cli.main convert"} <= commands


#: The flags read only to be refused (features tileir does not have yet), which ``--help``
#: leaves out: cuda-tile-opt's passes.
NOT_YET = {("tileir.cli.opt", dest) for dest in opt.NOT_YET}


@pytest.mark.parametrize("name, parser", ALL, ids=[name for name, _ in ALL])
def test_every_option_has_a_help_text(name: str, parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.help == argparse.SUPPRESS:
            assert (name, action.dest) in NOT_YET, (name, action.option_strings)
            continue
        assert isinstance(action.help, str) and action.help.strip(), \
            (name, action.option_strings or action.dest)
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest: choice.help for choice in action._choices_actions}
            for command in action.choices:
                assert (helped.get(command) or "").strip(), (name, command)


def test_every_pass_has_a_flag_in_help(capsys) -> None:
    """cuda-tile-opt offers --pass-pipeline and one flag per registered pass, and refuses
    nothing it lists."""
    from tileir.transforms import load_passes
    assert opt.NOT_YET == {}
    with pytest.raises(SystemExit):
        opt.build_parser().parse_args(["--help"])
    shown = capsys.readouterr().out
    assert "--pass-pipeline" in shown and "--verify-each" in shown
    for name in load_passes():
        assert f"--{name}" in shown, name


def _reads(dest: str, source: str) -> bool:
    """Whether `source` reads the parsed option `dest` (``args.dest``)."""
    return re.search(rf"\bargs\.{dest}\b", source) is not None


#: The parsers whose options the sources of tileir/cli read as ``args.<dest>``: tileir's
#: own commands and NVIDIA's two tools (``run`` and ``view`` keep their own tests).
OWN = ["tileir.cli.main", "tileir.cli.main check", "tileir.cli.main show",
       "tileir.cli.main example", "tileir.cli.main type", "tileir.cli.main convert",
       "tileir.cli.opt", "tileir.cli.translate"]


@pytest.mark.parametrize("name", OWN)
def test_every_offered_option_is_read(name: str) -> None:
    """An option in ``--help`` that no code reads would do nothing."""
    source = "\n".join(p.read_text() for p in sorted(CLI_DIR.glob("*.py")))
    parser = dict(ALL)[name]
    offered = [a.dest for a in parser._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
               and a.help != argparse.SUPPRESS and not isinstance(a, opt._PassFlag)]
    assert offered or name == "tileir.cli.main"
    assert [dest for dest in offered if not _reads(dest, source)] == []


def test_pass_flags_run_their_pass(tmp_path) -> None:
    """A pass's own flag (read by its action into ``args.passes``, not as ``args.<dest>``)
    runs the pass: every one is an `opt._PassFlag`, and ``args.passes`` is read."""
    source = (CLI_DIR / "opt.py").read_text()
    flags = [a for a in opt.build_parser()._actions if isinstance(a, opt._PassFlag)]
    assert flags and _reads("passes", source)
    args = opt.build_parser().parse_args(["-", "--" + flags[0].metavar])
    assert args.passes == [(flags[0].metavar, "")]


def _help(*command: str) -> str:
    """The stdout of ``command --help``, run as a separate process (which must succeed)."""
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def _words(text: str) -> str:
    """`text` with each run of whitespace made one space (argparse wraps long lines)."""
    return " ".join(text.split())


def test_tileir_help_lists_every_command_with_its_help() -> None:
    shown = _help(sys.executable, "-m", "tileir")
    assert shown.startswith("usage: tileir [-h] COMMAND ...\n")
    commands = shown[shown.index("\ncommands:\n"):]
    subparsers = next(a for a in main.build_parser()._actions
                      if isinstance(a, argparse._SubParsersAction))
    listed = re.findall(r"^    (\S+)", commands, re.MULTILINE)
    assert listed == list(subparsers.choices)
    for choice in subparsers._choices_actions:
        assert re.search(rf"^    {re.escape(choice.dest)} +{re.escape(_words(choice.help))}$",
                         _relines(commands), re.MULTILINE), choice.dest


def _relines(listing: str) -> str:
    """The commands section with each command's wrapped help joined onto its line (a
    continuation is indented deeper than the four spaces of a command's name)."""
    lines: list[str] = []
    for line in listing.splitlines():
        if lines and re.match(r"^ {5,}\S", line):
            lines[-1] += " " + line.strip()
        else:
            lines.append(("    " if line.startswith("    ") else "") + _words(line))
    return "\n".join(lines)


def test_the_docstring_does_not_list_the_commands_by_hand() -> None:
    """The list comes from the parser (argparse's commands section), so it cannot drift."""
    assert main.__doc__ is not None
    for command in ("check", "show", "example", "type", "convert"):
        assert not re.search(rf"^\s+{command}\s", main.__doc__, re.MULTILINE), command


@pytest.mark.parametrize("tool, usage", [
    ("cuda-tile-opt", "usage: cuda-tile-opt [-h] [-o FILE]"),
    ("cuda-tile-translate", "usage: cuda-tile-translate [-h] [-o FILE]"),
])
def test_nvidia_tools_help_runs(tool: str, usage: str) -> None:
    module = {"cuda-tile-opt": "opt", "cuda-tile-translate": "translate"}[tool]
    shown = _help(sys.executable, "-m", f"tileir.cli.{module}")
    assert shown.startswith(usage)
    assert "-split-input-file, --split-input-file\n" in shown


def test_cutile_help_describes_its_arguments() -> None:
    shown = _help(sys.executable, "-m", "tileir.cutile")
    assert shown.startswith("usage: python -m tileir.cutile (script.py | -m module) "
                            "[args...]\n")
    assert "  -m module   run this module instead, as python -m module runs it\n" in shown
    assert "  script.py   the Python script to run, as python script.py runs it\n" in shown
