"""`Emitter.interleave`: a loop whose body asks is marked for LLVM to interleave (its own
loop metadata node, one shared hint), and no other loop is; the module parses."""

from __future__ import annotations

import pytest

llvm = pytest.importorskip("llvmlite.binding", reason="the compiled engine needs llvmlite")

from tileir.interp.compiled.emitter import (INTERLEAVE, INTERLEAVE_HINT,  # noqa: E402
                                            Emitter)


def test_only_the_loops_that_ask_are_interleaved():
    e = Emitter()
    with e.loop("8") as i:              # asks, from inside a nested loop's parent
        with e.loop("4") as j:          # does not ask
            e.op(f"add i64 {i}, {j}")
        e.interleave()
    with e.loop("16"):                  # asks
        e.interleave()
    with e.loop("2"):                   # does not ask
        pass
    e.do("ret void")
    text = "\n".join(e.globals) + "\ndefine void @f() {\nentry:\n" + "\n".join(e.entry + e.lines) + "\n}\n"
    marked = [line for line in e.lines if "!llvm.loop" in line]
    assert len(marked) == 2
    nodes = {line.split("!llvm.loop ")[1] for line in marked}
    assert len(nodes) == 2
    hint = f'{INTERLEAVE_HINT} = !{{!"llvm.loop.interleave.count", i32 {INTERLEAVE}}}'
    assert e.globals.count(hint) == 1
    for node in nodes:
        assert f"{node} = distinct !{{{node}, {INTERLEAVE_HINT}}}" in e.globals
    llvm.parse_assembly(text).verify()


def test_interleave_outside_any_loop_marks_nothing():
    e = Emitter()
    e.interleave()
    with e.loop("3"):
        pass
    assert not any("!llvm.loop" in line for line in e.lines) and not e.globals
