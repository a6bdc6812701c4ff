"""Room for the recursion that nested regions need.

The parser, verifier and printer recurse once per nested op (about ten Python frames per
level in the parser); Python's default limit of 1000 frames would stop them near 100 levels,
below the 200 levels of nesting the parser accepts.  Python 3.11+ runs Python-to-Python
calls without growing the C stack, so a higher limit is safe for these walks.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

#: Enough for 200 nested ops in the parser, with room to spare.
FRAMES = 20_000


@contextmanager
def deep_recursion(frames: int = FRAMES) -> Iterator[None]:
    """Run the body with a recursion limit of at least `frames`, restored afterwards."""
    saved = sys.getrecursionlimit()
    if saved < frames:
        sys.setrecursionlimit(frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)
