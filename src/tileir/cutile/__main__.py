"""``python -m tileir.cutile script.py [args...]`` (or ``-m module``): run a Python program
with tileir's cuTile CPU switch on (`tileir.cutile.switch`).  The program's own errors are
reported as Python reports them; a missing program or Ctrl-C gets one line and a non-zero
exit."""

from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import sys

USAGE = "usage: python -m tileir.cutile (script.py | -m module) [args...]"


def build_parser() -> argparse.ArgumentParser:
    """What ``--help`` shows.  `main` reads the command line itself: everything after the
    program, flags included, is the program's own and passed on untouched."""
    ap = argparse.ArgumentParser(
        prog="python -m tileir.cutile", usage=USAGE[len("usage: "):],
        description="Run a Python program with tileir's cuTile CPU switch on: its cuda.tile "
        "kernel launches run on tileir's interpreter and torch's cuda device is the CPU, so "
        "no GPU is needed (see docs/cutile.md).")
    ap.add_argument("script", metavar="script.py", nargs="?",
                    help="the Python script to run, as python script.py runs it")
    ap.add_argument("-m", dest="module", metavar="module",
                    help="run this module instead, as python -m module runs it")
    ap.add_argument("args", nargs="*", help="the program's own arguments (its sys.argv[1:])")
    return ap


def _missing(argv: list[str]) -> str | None:
    """Why the program `argv` names cannot be run, or None."""
    if argv[0] == "-m":
        if len(argv) < 2:
            return USAGE
        try:
            found = importlib.util.find_spec(argv[1])
        except (ImportError, ValueError) as exc:
            return f"tileir.cutile: cannot run module '{argv[1]}': {exc}"
        return None if found is not None else \
            f"tileir.cutile: cannot run module '{argv[1]}': no module of that name"
    if not os.path.isfile(argv[0]):
        return f"tileir.cutile: cannot run '{argv[0]}': no such file"
    return None


def main(argv: list[str]) -> int:
    """Run the program `argv` names under the switch; its exit status is ours."""
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        build_parser().print_help()
        return 0
    why = _missing(argv)
    if why is not None:
        print(why, file=sys.stderr)
        return 2
    from .switch import enable
    enable()
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except KeyboardInterrupt:
        print("tileir.cutile: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
