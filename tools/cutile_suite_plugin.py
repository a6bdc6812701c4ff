"""pytest plugin loaded by tools/cutile_suite.py into a cuTile Python test run under
tileir's CPU switch: gives each test a time limit and writes one JSON line per test
saying what happened (outcome, launches, kernels run, the failure's kind and message)."""

from __future__ import annotations

import json
import os
import signal
import traceback
from typing import Any

import pytest

_LIMIT = float(os.environ.get("TILEIR_SUITE_TIMEOUT", "120"))
_OUT = os.environ.get("TILEIR_SUITE_OUT", "")


class TestTimeout(BaseException):
    """A test ran past the suite's time limit."""


def _alarm(signum: int, frame: Any) -> None:
    raise TestTimeout(f"ran past the time limit of {_LIMIT:g} s")


def _counts() -> tuple[int, int, int]:
    from tileir.cutile.switch import Counts
    return Counts.launches, Counts.compile_errors, Counts.runs


_START: dict[str, tuple[int, int, int]] = {}
_RESULT: dict[str, dict[str, Any]] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:
    _START[item.nodeid] = _counts()
    _RESULT[item.nodeid] = {"outcome": "passed", "kind": "", "message": ""}
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, _LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    end = _counts()
    start = _START.pop(item.nodeid)
    record = _RESULT.pop(item.nodeid)
    record.update(test=item.nodeid, launches=end[0] - start[0],
                  compile_errors=end[1] - start[1], runs=end[2] - start[2])
    if _OUT:
        with open(_OUT, "a") as handle:
            handle.write(json.dumps(record) + "\n")


def _kind(excinfo: Any) -> str:
    """The failure's exception class and where it was raised, for the runner to sort."""
    names = [type(e).__qualname__ for e in _chain(excinfo.value)]
    return " <- ".join(names)


def _chain(exc: BaseException) -> list[BaseException]:
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    outcome = yield
    report = outcome.get_result()
    record = _RESULT.get(item.nodeid)
    if record is None:
        return
    if report.skipped and record["outcome"] == "passed":
        record["outcome"] = "skipped"
        record["message"] = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) \
            else str(report.longrepr)[:300]
    elif report.failed:
        record["outcome"] = "failed" if call.when == "call" else f"error in {call.when}"
        if call.excinfo is not None:
            record["kind"] = _kind(call.excinfo)
            text = "".join(traceback.format_exception_only(call.excinfo.type,
                                                          call.excinfo.value))
            record["message"] = text.strip()[:2000]
            record["tileir_in_traceback"] = any(
                "/tileir/" in (entry.path.as_posix() if hasattr(entry.path, "as_posix")
                               else str(entry.path))
                for entry in call.excinfo.traceback)
        else:
            record["message"] = str(report.longrepr)[-2000:]


#: torch's elementwise functions that the exact-math rerun computes correctly rounded.
EXACT_MATH = ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan",
              "sinh", "cosh", "tanh")


def _correctly_rounded(torch: Any, original: Any, name: str) -> Any:
    """`original` (torch.<name>) computed in float64 and rounded once to the result's dtype
    (what torch's promotion gives: the input's float dtype, else the default float)."""
    def exact(x: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not isinstance(x, torch.Tensor):
            return original(x, *args, **kwargs)
        dtype = x.dtype if x.is_floating_point() else torch.get_default_dtype()
        wide = x.to(torch.float64)
        value = 1.0 / torch.sqrt(wide) if name == "rsqrt" else original(wide)
        return value.to(dtype)
    return exact


def pytest_configure(config: Any) -> None:
    """With TILEIR_SUITE_EXACT_MATH=1, torch's math functions are correctly rounded."""
    if os.environ.get("TILEIR_SUITE_EXACT_MATH") != "1":
        return
    import torch
    for name in EXACT_MATH:
        setattr(torch, name, _correctly_rounded(torch, getattr(torch, name), name))
