"""``python -m tileir.cutile``: a missing program or Ctrl-C ends with one line and a
non-zero exit, never a traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tileir.cutile", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (("/no/such/script.py",), "tileir.cutile: cannot run '/no/such/script.py': no such file"),
    (("-m", "no_such_module_here"),
     "tileir.cutile: cannot run module 'no_such_module_here': no module of that name"),
    (("-m",), "usage: python -m tileir.cutile (script.py | -m module) [args...]"),
    ((), "usage: python -m tileir.cutile (script.py | -m module) [args...]"),
])
def test_a_program_that_cannot_run_gets_one_line(args, message) -> None:
    run = _run(*args)
    assert (run.returncode, run.stdout, run.stderr) == (2, "", message + "\n")


def test_the_program_runs_with_its_arguments_and_exit_status(tmp_path) -> None:
    script = tmp_path / "prog.py"
    script.write_text("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n")
    run = _run(str(script), "a", "b")
    assert (run.returncode, run.stdout) == (3, "['a', 'b']\n")


def test_ctrl_c_ends_the_program_with_one_line(tmp_path) -> None:
    """SIGINT once the program is running (it says so through a file): exit 130 and one
    line, no traceback."""
    started = tmp_path / "started"
    script = tmp_path / "wait.py"
    script.write_text(f"import time\nopen({str(started)!r}, 'w').close()\ntime.sleep(600)\n")
    child = subprocess.Popen([sys.executable, "-m", "tileir.cutile", str(script)],
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not started.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert (child.returncode, err) == (130, "tileir.cutile: interrupted\n")
