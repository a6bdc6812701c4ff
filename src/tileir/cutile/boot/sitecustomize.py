"""Started in child processes of a program running under tileir's cuTile CPU switch (the
switch puts this folder first on PYTHONPATH): turns the switch on when TILEIR_CUTILE=cpu,
then runs the sitecustomize this one shadows, if any."""

import importlib.util
import os
import sys


def _chain() -> None:
    """Run the next sitecustomize on the path after this folder (if there is one)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_tileir_next_sitecustomize",
                                                          candidate)
            if spec is not None and spec.loader is not None:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


def _boot() -> None:
    """Turn the switch on where asked; a missing cuTile leaves the process as it was."""
    if os.environ.get("TILEIR_CUTILE", "").strip().lower() != "cpu":
        return
    try:
        from tileir.cutile.switch import enable
    except ImportError:
        return
    enable()


_chain()
_boot()
