"""FileCheck for the conformance suite: PyPI's filecheck, with LLVM FileCheck's range for
CHECK-NOT.

LLVM's FileCheck checks a CHECK-NOT pattern against the text between the previous match
and the *start* of the next positive match; filecheck 1.0.6 (the newest release) scans up
to that match's *end*, so ``// CHECK-NOT: if`` followed by ``// CHECK-LABEL: @split_if``
fails on the label's own line (NVIDIA's loop_split.mlir does exactly this).  This wrapper
records where each positive match starts and ends the CHECK-NOT range there; everything
else is filecheck's own.
"""

from __future__ import annotations

import sys
from typing import Any

from filecheck import matcher
from filecheck.main import main

_post_check = matcher.Matcher._post_check
_pre_check = matcher.Matcher._pre_check


def _recording(finder: Any, starts: list[int]) -> Any:
    """`finder` (an FInput method returning a match), noting each match's start."""
    def find(*args: Any, **kwargs: Any) -> Any:
        found = finder(*args, **kwargs)
        if found is not None:
            starts.append(found.start())
        return found
    return find


def pre_check(self: Any, op: Any) -> None:
    """Start recording the matches of `op`."""
    self._starts = []
    for name in ("find", "match"):
        if not hasattr(self.file, "_real_" + name):
            setattr(self.file, "_real_" + name, getattr(self.file, name))
        setattr(self.file, name, _recording(getattr(self.file, "_real_" + name),
                                            self._starts))
    _pre_check(self, op)


def post_check(self: Any, op: Any) -> None:
    """Check the pending CHECK-NOTs up to the start of `op`'s match (LLVM's range)."""
    starts = getattr(self, "_starts", [])
    if op.name in ("NOT", "DAG") or self.ctx.negative_matches_start is None or not starts:
        _post_check(self, op)
        return
    end = self.file.range.start
    self.file.range.start = max(starts[-1], self.ctx.negative_matches_start)
    try:
        _post_check(self, op)
    finally:
        self.file.range.start = end


matcher.Matcher._pre_check = pre_check
matcher.Matcher._post_check = post_check

if __name__ == "__main__":
    sys.exit(main())
