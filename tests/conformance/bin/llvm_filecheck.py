"""FileCheck for the conformance suite: PyPI's filecheck, with LLVM FileCheck's range for
CHECK-NOT.

LLVM's FileCheck checks a CHECK-NOT pattern against the text between the previous match
and the *start* of the next positive match; filecheck 1.0.6 (the newest release) scans up
to that match's *end*, so ``// CHECK-NOT: if`` followed by ``// CHECK-LABEL: @split_if``
fails on the label's own line (NVIDIA's loop_split.mlir does exactly this).  This wrapper
records where each positive match starts and ends the CHECK-NOT range at the first one
(as LLVM does for CHECK-COUNT too); everything else is filecheck's own.
"""

from __future__ import annotations

import sys
from typing import Any

from filecheck import matcher
from filecheck.finput import InputRange
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
    """Check the pending CHECK-NOTs up to the start of `op`'s first match (LLVM's range:
    for CHECK-COUNT-n the first of its n matches), then let filecheck finish the op (its
    --match-full-lines check runs at the real position, after the match)."""
    starts = getattr(self, "_starts", [])
    ctx = self.ctx
    if op.name not in ("NOT", "DAG") and ctx.negative_matches_start is not None and starts \
            and not self.file.is_discontigous():
        search = InputRange(ctx.negative_matches_start,
                            max(starts[0], ctx.negative_matches_start))
        for check in ctx.negative_matches_stack:
            self.check_not(check, search)
        ctx.negative_matches_start = None
        ctx.negative_matches_stack = []
    _post_check(self, op)


matcher.Matcher._pre_check = pre_check
matcher.Matcher._post_check = post_check

if __name__ == "__main__":
    sys.exit(main())
