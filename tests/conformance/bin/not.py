"""LLVM's `not`: run a command and invert its exit status.

`not CMD...` succeeds when CMD exits with a non-zero status and fails when CMD succeeds or is
killed by a signal (a crash is not an expected failure). `not --crash CMD...` succeeds only
when CMD is killed by a signal.
"""

from __future__ import annotations

import subprocess
import sys


def main(argv: list[str]) -> int:
    """Run argv and return the inverted status."""
    expect_crash = bool(argv) and argv[0] == "--crash"
    command = argv[1:] if expect_crash else argv
    if not command:
        print("not: no command given", file=sys.stderr)
        return 1
    try:
        status = subprocess.call(command)
    except OSError as error:
        print(f"not: cannot run {command[0]}: {error}", file=sys.stderr)
        return 1
    crashed = status < 0
    if expect_crash:
        return 0 if crashed else 1
    return 0 if status > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
