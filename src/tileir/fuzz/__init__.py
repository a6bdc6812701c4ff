"""Differential fuzzing of generated kernels (``tileir fuzz``).

`tileir.generate` makes random valid kernels; the targets of `targets.TARGETS` check each
one (NVIDIA's tileiras and tileirdisasm, tileir's engines, its text and bytecode round
trips); findings are grouped by `signatures.Signature`, saved and reduced by
`campaign.run`.
"""

from __future__ import annotations

from .campaign import Config, Failure, Report, SameSignature, run, summary
from .signatures import Signature, normalize, signature
from .targets import TARGETS, Finding, Options, Target, check, tool_path

__all__ = ["Config", "Failure", "Finding", "Options", "Report", "SameSignature", "Signature",
           "TARGETS", "Target", "check", "normalize", "run", "signature", "summary",
           "tool_path"]
