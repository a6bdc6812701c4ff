"""``python -m tileir.cutile script.py [args...]``: run a Python script (or ``-m module``)
with tileir's cuTile CPU switch on (`tileir.cutile.switch`)."""

from __future__ import annotations

import os
import runpy
import sys

USAGE = "usage: python -m tileir.cutile (script.py | -m module) [args...]"


def main(argv: list[str]) -> int:
    """Run the script named by `argv` under the switch; its exit status is ours."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    from .switch import enable
    enable()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
