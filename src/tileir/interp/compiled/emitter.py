"""A small writer of LLVM IR text: fresh value names, basic blocks and counted loops.

The compiled engine writes its kernels as LLVM IR text (read back by llvmlite's parser),
which keeps the lowering readable and free of llvmlite's builder API."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


#: Copies of a vector loop body LLVM runs at once where `Emitter.interleave` asks.
INTERLEAVE = 4
#: Loop metadata: the interleave hint's node, and the first number of a loop's own node
#: (`Emitter._counter` added: unique in a module, whose functions number on).
INTERLEAVE_HINT = "!7100"
INTERLEAVE_HINT_DEFINITION = (f'{INTERLEAVE_HINT} = !{{!"llvm.loop.interleave.count", '
                              f"i32 {INTERLEAVE}}}")
LOOP_METADATA = 1_000_000


class Emitter:
    """The instructions of one LLVM function, written block by block."""

    def __init__(self, counter: int = 0) -> None:
        self.lines: list[str] = []
        self.globals: list[str] = []
        self.block = "entry"            # the basic block instructions go to now
        #: Names are numbered from here (a second function of one module starts where
        #: the first ended, so their module-level names never meet).
        self._counter = counter
        #: How many checks have been written (`check` and `check_value`), so a lowering
        #: can tell which op wrote which (`precheck.py`).
        self.checks = 0
        self._declared: set[str] = set()
        #: How many value checks have been written (`check_value`).
        self.value_checks = 0
        #: Instructions for the top of the entry block (allocas and their first stores).
        self.entry: list[str] = []
        #: Per enclosing loop: its deferred-check flag and failure label (a [None] list
        #: until a check is deferred), or None for a loop that defers nothing.
        self._scopes: list[list[str | None] | None] = []
        #: Per enclosing loop: whether its body asked to be interleaved (`interleave`).
        self._interleaved: list[bool] = []

    def declare(self, signature: str) -> None:
        """Declare an external function (an LLVM intrinsic) once: ``ret @name(args)``."""
        if signature not in self._declared:
            self._declared.add(signature)
            self.globals.append(f"declare {signature}")

    @property
    def counter(self) -> int:
        """The number the next fresh name would pass (see `__init__`)."""
        return self._counter

    def skip_to(self, counter: int) -> None:
        """Number fresh names from `counter` on (past another function's, `counter`)."""
        self._counter = max(self._counter, counter)

    def fresh(self, hint: str = "v") -> str:
        """A new local value name (``%hint.N``)."""
        self._counter += 1
        return f"%{hint}.{self._counter}"

    def label(self, hint: str = "bb") -> str:
        """A new basic block name, without the ``%``."""
        self._counter += 1
        return f"{hint}.{self._counter}"

    def global_name(self, hint: str = "const") -> str:
        """A new module-level name (``@hint.N``)."""
        self._counter += 1
        return f"@{hint}.{self._counter}"

    def op(self, text: str, hint: str = "v") -> str:
        """Append ``%name = text`` and return the name."""
        name = self.fresh(hint)
        self.lines.append(f"  {name} = {text}")
        return name

    def do(self, text: str) -> None:
        """Append an instruction with no result."""
        self.lines.append(f"  {text}")

    def start(self, label: str) -> None:
        """Begin basic block `label`."""
        self.lines.append(f"{label}:")
        self.block = label

    def branch(self, label: str) -> None:
        """End the current block with a jump to `label`."""
        self.do(f"br label %{label}")

    def check(self, ok: str, fail: str) -> None:
        """Go on only where i1 `ok` holds; else jump to block `fail`."""
        self.checks += 1
        good = self.label("ok")
        self.do(f"br i1 {ok}, label %{good}, label %{fail}")
        self.start(good)

    def check_value(self, ok: str, fail: str) -> None:
        """Like `check`, for a check of computed values only (an undecided rounding, a
        value out of range), never of an address: inside a loop it is deferred to the
        loop's exit, so the loop has no early exit and LLVM can vectorize it.  Until
        then the loop goes on with the failed value, which is only stored (to scratch,
        or to memory the journal puts back)."""
        scope = self._scopes[-1] if self._scopes else None
        self.value_checks += 1
        self.checks += 1
        if scope is None:
            self.check(ok, fail)
            return
        if scope[0] is None:
            flag = self.fresh("flag")
            self.entry += [f"  {flag} = alloca i1", f"  store i1 false, ptr {flag}"]
            scope[:] = [flag, fail]
        flag = scope[0]
        bad = self.op(f"xor i1 {ok}, true")
        seen = self.op(f"or i1 {self.op(f'load i1, ptr {flag}')}, {bad}")
        self.do(f"store i1 {seen}, ptr {flag}")

    def interleave(self) -> None:
        """Ask LLVM to interleave the innermost enclosing loop (`INTERLEAVE` copies of its
        vector body at once: the compiled engine interleaves no other loop, which costs
        compile time): for a body long enough in latency, such as an exp's, that its
        vector iterations gain from overlapping."""
        if self._interleaved:
            self._interleaved[-1] = True

    @contextmanager
    def loop(self, count: str, hint: str = "i", defer: bool = True) -> Iterator[str]:
        """A loop of i64 index 0 .. `count` - 1 around the body written inside the block
        (yields the index's name): a loop over a tile's elements, where `check_value`
        defers, unless `defer` is false."""
        with self.counted("0", count, "1", "i64", hint, compare="ult", defer=defer) as index:
            yield index

    @contextmanager
    def counted(self, start: str, end: str, step: str, ty: str = "i128",
                hint: str = "iv", compare: str = "slt", defer: bool = False
                ) -> Iterator[str]:
        """A loop of index `start`, `start` + `step`, ... while below `end` (the `compare`
        predicate, signed by default, in integer type `ty`) around the body written inside
        the block (yields the index's name).  Value checks inside are deferred to its
        exit only with `defer`: a loop whose values steer control flow (a ``for``, the
        loop over tile blocks) must stop at the first failure."""
        head, body, latch, done = (self.label(hint + s) for s in
                                   (".head", ".body", ".latch", ".done"))
        before = self.block
        self.branch(head)
        self.start(head)
        index = self.fresh(hint)
        following = self.fresh(hint + ".next")
        self.do(f"{index} = phi {ty} [{start}, %{before}], [{following}, %{latch}]")
        more = self.op(f"icmp {compare} {ty} {index}, {end}", "more")
        self.do(f"br i1 {more}, label %{body}, label %{done}")
        self.start(body)
        scope: list[str | None] | None = [None] if defer else None
        self._scopes.append(scope)
        self._interleaved.append(False)
        yield index
        self._scopes.pop()
        interleaved = self._interleaved.pop()
        self.branch(latch)
        self.start(latch)
        self.do(f"{following} = add {ty} {index}, {step}")
        if interleaved:     # (loop metadata on the back edge: a node of its own)
            self._counter += 1
            node = f"!{LOOP_METADATA + self._counter}"
            self.globals.append(f"{node} = distinct !{{{node}, {INTERLEAVE_HINT}}}")
            if INTERLEAVE_HINT_DEFINITION not in self.globals:
                self.globals.append(INTERLEAVE_HINT_DEFINITION)
            self.do(f"br label %{head}, !llvm.loop {node}")
        else:
            self.branch(head)
        self.start(done)
        if scope is not None and scope[0] is not None:   # a deferred check failed: stop
            flag, fail = scope
            self.check(self.op(f"xor i1 {self.op(f'load i1, ptr {flag}')}, true"), fail)

    @contextmanager
    def when(self, condition: str) -> Iterator[None]:
        """Instructions that run only where i1 `condition` holds."""
        then, after = self.label("then"), self.label("endif")
        self.do(f"br i1 {condition}, label %{then}, label %{after}")
        self.start(then)
        yield
        self.branch(after)
        self.start(after)


__all__ = ["Emitter"]
