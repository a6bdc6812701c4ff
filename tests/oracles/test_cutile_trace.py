"""Tracing a cuTile Python kernel: events at the kernel's Python lines, named after the
variables the statements assign."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tileir import ExecutionError

try:
    import cuda.tile as ct
except ImportError:  # cuTile Python is an optional dependency
    ct = None

if ct is not None:
    @ct.kernel
    def scaled_add(a, b, c, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        x = ct.load(a, index=(bid,), shape=(TILE,))
        y = ct.load(b, index=(bid,), shape=(TILE,))
        total = x * 2.0 + y
        ct.store(c, index=(bid,), tile=total)

    @ct.kernel
    def to_int(x, y, TILE: ct.Constant[int]):
        """A planted bug: NaN converted to an integer."""
        i = ct.bid(0)
        loaded = ct.load(x, (i,), (TILE,))
        ct.store(y, (i,), ct.astype(loaded, ct.int32))


def _line_of(function, text: str) -> int:
    """The line of this file that holds `text` (each is unique in it)."""
    with open(__file__) as handle:
        return next(n for n, line in enumerate(handle, 1) if text in line)


@pytest.fixture()
def cutile():
    if ct is None:
        pytest.skip("cuTile Python is not installed (pip install -e '.[oracles]')")
    import tileir.cutile
    return tileir.cutile


def test_events_are_named_after_python_variables(cutile) -> None:
    a = np.arange(128, dtype=np.float32)
    b = np.full(128, 0.5, np.float32)
    c = np.zeros(128, np.float32)
    run = cutile.launch(None, (2,), scaled_add, (a, b, c, 64), trace="block=1")
    assert c.tobytes() == (a * np.float32(2.0) + b).tobytes()
    trace = run.trace
    assert trace.blocks == [(1, 0, 0)]
    named = {e.variable: e for e in trace if e.variable is not None}
    assert sorted(named) == ["bid", "total", "x", "y"]
    assert named["x"].op == "load_view_tko"
    assert named["x"].array().tobytes() == a[64:].tobytes()
    assert named["y"].array().tobytes() == b[64:].tobytes()
    assert named["total"].array().tobytes() == (a[64:] * np.float32(2.0) + b[64:]).tobytes()
    assert int(named["bid"].value) == 1
    for variable, text in (("x", "x = ct.load"), ("y", "y = ct.load"),
                           ("total", "total = x"), ("bid", "bid = ct.bid")):
        point = named[variable].location
        assert os.path.realpath(point.file) == os.path.realpath(__file__)
        assert point.line == _line_of(scaled_add, text)
    # by variable name, as a notebook user asks
    assert trace["total"][0] is not None and trace["total"][0].variable == "total"
    assert "(total)" in trace.format()
    # the multiply of `total = x * 2.0 + y` is not the assigned value: only the add is named
    statement = [e for e in trace if e.line == _line_of(scaled_add, "total = x")]
    assert [e.variable for e in statement][-1] == "total"
    assert all(e.variable is None for e in statement[:-1])


def test_failed_cutile_launch_trace_points_at_python(cutile) -> None:
    x = np.array([1.5, np.nan] + [0.0] * 14, np.float32)
    y = np.full(16, 7, np.int32)
    with pytest.raises(ExecutionError) as caught:
        cutile.launch(None, (1,), to_int, (x, y, 16), trace=True)
    trace = caught.value.trace
    loaded = trace["loaded"][0]
    assert loaded.line == _line_of(to_int, "loaded = ct.load")
    assert np.isnan(loaded.array()[1]) and loaded.array()[0] == np.float32(1.5)
    assert (y == 7).all()


def test_source_names_follow_the_file_not_its_path_and_time(tmp_path) -> None:
    """A kernel file rewritten in place (same size, same second) gets its new names."""
    from tileir.cutile.tracing import assignments
    path = tmp_path / "k.py"
    path.write_text("x = f(1)\n")
    first = assignments(str(path))
    stat = path.stat()
    path.write_text("y = f(1)\n")                     # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))   # same time
    assert first == {(1, 4): "x"} and assignments(str(path)) == {(1, 4): "y"}
    assert assignments(str(tmp_path / "missing.py")) == {}
