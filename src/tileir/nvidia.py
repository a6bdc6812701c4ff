"""NVIDIA's own tools as tileir's oracles: where they are, and what their messages mean.

The ``oracles`` extra installs ``nvidia-cuda-tileiras``, whose wheel holds ``tileiras``
(bytecode to cubin, no GPU needed) and ``tileirdisasm`` in its ``bin`` folder; a copy on
PATH comes first.  Every part of tileir that runs them (``tileir fuzz``, ``tileir reduce``,
the oracle campaign, the oracle tests) finds them here.
"""

from __future__ import annotations

import os
import re
import shutil

#: tileiras's refusal of something an architecture lacks (Blackwell's narrow floats, or
#: multicast memory on Hopper): the kernel is valid, for another architecture.
ARCHITECTURE_LIMIT = re.compile(r"Incompatibility with architecture '(\w+)': (.*)")


def tool_path(name: str) -> str | None:
    """Where NVIDIA's `name` (``tileiras``, ``tileirdisasm``) is: on PATH, or in the bin
    folder of the nvidia-cuda-tileiras wheel (an executable file); None when neither has
    it."""
    found = shutil.which(name)
    if found:
        return found
    try:
        import importlib.metadata as metadata
        dist = metadata.distribution("nvidia-cuda-tileiras")
    except Exception:       # (not installed, or its metadata unreadable)
        return None
    for file in dist.files or ():
        if file.name == name and file.parent.name == "bin":
            path = str(dist.locate_file(file))
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


__all__ = ["ARCHITECTURE_LIMIT", "tool_path"]
