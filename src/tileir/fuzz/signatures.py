"""Signatures: what makes two findings the same failure.

A finding's signature is its target and a *key*: the name of the signal that killed a
tool (``SIGSEGV``), or the first line of its message with everything kernel-specific
masked: SSA names (``%x``), symbols (``@k``), block labels, file paths, tile and view
types, numbers (decimal, hex, floats) all become ``#``, runs of spaces one space (quoted op
names such as ``'cuda_tile.addf'`` stay: they tell failures apart).  Two kernels that
crash tileiras the same way, or that tileirdisasm prints differently on the same kind of
line, share a signature and are counted as one failure.
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

#: The longest key kept (a message line past this is cut).
MAX_KEY = 160

_TYPES = re.compile(r"(?:!cuda_tile\.)?\b(?:tile|tensor_view|partition_view|strided_view|"
                    r"gather_scatter_view|ptr)<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>")
_NAMES = re.compile(r"[%@^][\w.$#-]+")
_NUMBERS = re.compile(r"[-+]?(?:0x[0-9A-Fa-f]+|(?:\b\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\b")
_FILES = re.compile(r"(?:/[\w.+-]+)+")


class Signature(NamedTuple):
    """A failure: the target that found it and its normalized key."""

    target: str
    key: str

    def __str__(self) -> str:
        return f"{self.target}: {self.key}"

    def slug(self) -> str:
        """A directory name for the failure: the target, the key's words and a short hash
        of the whole signature (so two keys that read alike never share a directory)."""
        words = re.sub(r"[^A-Za-z0-9]+", "-", self.key).strip("-").lower()[:48].strip("-")
        digest = hashlib.sha1(str(self).encode()).hexdigest()[:8]
        return f"{self.target}-{words or 'x'}-{digest}"


def normalize(line: str) -> str:
    """`line` with its kernel-specific parts masked as ``#`` (see the module's doc)."""
    line = line.strip()
    line = _TYPES.sub(lambda m: m.group(0).split("<")[0] + "<#>", line)
    line = _FILES.sub("#", line)
    line = _NAMES.sub(lambda m: m.group(0)[0] + "#", line)
    line = _NUMBERS.sub("#", line)
    line = re.sub(r"\s+", " ", line)
    return line[:MAX_KEY]


def first_line(message: str) -> str:
    """The first non-blank line of `message` (``(no message)`` when there is none)."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def signature(target: str, message: str = "", signal: str | None = None) -> Signature:
    """The signature of a finding of `target`: the `signal` name when a tool died by one,
    else the first line of `message`, normalized."""
    if signal is not None:
        return Signature(target, signal)
    return Signature(target, normalize(first_line(message)))


__all__ = ["MAX_KEY", "Signature", "first_line", "normalize", "signature"]
