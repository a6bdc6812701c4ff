"""lit configuration: NVIDIA's cuda-tile test suite, read in place, against our tools.

Parameters (`--param NAME=VALUE`): `suite`, the suite's test/ directory (default
`$TILEIR_SHARED/conformance/cuda-tile/test`, else `../shared/...` beside the checkout: see
run_lit.default_suite); `exec_root`, where outputs go (default a directory under the system
temp dir, never the repository). The marks of expectations.py are applied by lit_format.py.
"""

# lit provides `config` and `lit_config`.
# ruff: noqa: F821

from __future__ import annotations

import getpass
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # also inherited by lit's workers, which unpickle MarkedShTest
from lit_format import MarkedShTest  # noqa: E402
from run_lit import EXCLUDES, SUFFIXES, SUITE_VERSIONS, default_suite  # noqa: E402

REPO = HERE.parents[1]
PYTHON = sys.executable
TOOLS = {"cuda-tile-opt": "tileir.cli.opt", "cuda-tile-translate": "tileir.cli.translate"}


def _write_tool_wrappers(bin_dir: Path) -> None:
    """Write cuda-tile-opt / cuda-tile-translate scripts that run this interpreter's tileir."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, module in TOOLS.items():
        script = bin_dir / name
        script.write_text(f"#!{PYTHON}\nimport sys\nfrom {module} import main\nsys.exit(main())\n")
        script.chmod(0o755)


def _command(*parts: str | Path) -> str:
    """A command line for lit's shell, each part quoted."""
    return " ".join(f'"{part}"' for part in parts)


suite = Path(lit_config.params.get("suite", default_suite()))
if not suite.is_dir():
    lit_config.fatal(f"{suite} is absent (../shared is not beside this checkout)")
exec_root = Path(lit_config.params.get(
    "exec_root", Path(tempfile.gettempdir()) / f"tileir-lit-{getpass.getuser()}"))

config.name = "cuda-tile"
config.test_source_root = str(suite)
config.test_exec_root = str(exec_root)
config.suffixes = SUFFIXES
config.excludes = EXCLUDES
config.test_format = MarkedShTest()

_write_tool_wrappers(exec_root / "bin")
config.environment["PATH"] = os.pathsep.join([str(exec_root / "bin"), config.environment["PATH"]])
# The suite is NVIDIA's 13.3 build with its testing versions: its messages name that range
# ("[13.1 - 13.3]"), its versioning tests write 250.0 and 250.1, and its verifier tests
# expect the 13.3 rules and wording.
config.environment["TILEIR_BYTECODE_VERSIONS"] = SUITE_VERSIONS
for name in ("PYTHONPATH", "VIRTUAL_ENV", "TILEIR_SHARED"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
if importlib.util.find_spec("tileir") is None:  # not installed: use the checkout's sources
    config.environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO / "src"), config.environment.get("PYTHONPATH")]))

_command_word = r"(?<![\w./-]){}(?=\s|$)"
config.substitutions += [
    ("%round_trip_test", _command(PYTHON, HERE / "bin" / "round_trip_test.py")),
    (_command_word.format("FileCheck"), _command(PYTHON, HERE / "bin" / "llvm_filecheck.py")),
    (_command_word.format("not"), _command(PYTHON, HERE / "bin" / "not.py")),
]
