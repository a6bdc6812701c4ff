"""Room for the recursion that nested regions need.

The parser, verifier and printer recurse once per nested op (about ten Python frames per
level in the parser); Python's default limit of 1000 frames would stop them near 100 levels,
below the 200 levels of nesting the parser accepts.  Python 3.11+ runs Python-to-Python
calls without growing the C stack, so a higher limit is safe for these walks.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

#: Enough for 200 nested ops in the parser, with room to spare.
FRAMES = 20_000

#: The limit is the process's, shared by every thread: the walks running now are counted,
#: the first raises it and the last puts back what the first found (a thread restoring the
#: limit while another still recursed deeply would stop that one).
_LOCK = threading.Lock()
_running = 0
_saved = 0


@contextmanager
def deep_recursion(frames: int = FRAMES) -> Iterator[None]:
    """Run the body with a recursion limit of at least `frames`, restored when the last
    body running (in any thread) ends."""
    global _running, _saved
    with _LOCK:
        if _running == 0:
            _saved = sys.getrecursionlimit()
        _running += 1
        if sys.getrecursionlimit() < frames:
            sys.setrecursionlimit(frames)
    try:
        yield
    finally:
        with _LOCK:
            _running -= 1
            if _running == 0:
                sys.setrecursionlimit(_saved)
