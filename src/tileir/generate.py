"""Random valid Tile IR kernels: the differential tester's input.

`generate(seed)` builds one entry kernel from the op declarations: the ops whose operands
and result share one tile type come straight from the registry (any such op declared later
is generated with no change here), the rest from a few family builders (constants, loads
and stores through views, comparisons, select, conversions, shape ops, reductions and
scans, `if` and `for`, mma).  Attributes are drawn from their declared kinds (every case
of an enum, unit flags on or off).  Every op is checked by the verifier as it is made and
dropped if it breaks a rule, so what comes out verifies; the kernel stores a few of its
values, so nothing it computes is dead.  The same seed gives the same kernel.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .attributes import (ArrayAttr, BoolAttr, DenseElementsAttr, EnumAttr, FloatAttr,
                         IntegerAttr, TypeAttr)
from .enums import PointerAttribute
from .ir import Block, Builder, Module, Operation, Value
from .numerics import from_float64, from_words, numpy_dtype, to_words
from .ops import registry
from .types import (TOKEN, BF16, F16, F32, F64, F4E2M1FN, F8E4M3FN, F8E5M2, F8E8M0FNU, I1, I8, I16,
                    I32, I64, TF32,
                    FloatType, FunctionType, PartitionViewType, PointerType,
                    TensorViewType, TileType, Type)
from .verify.engine import verify
from .versions import LATEST, Version

#: Element types drawn for values (every integer; the floats every op family takes).
ELEMENTS: tuple[Type, ...] = (I1, I8, I16, I32, I64, F16, BF16, F32, F64, TF32, F8E4M3FN,
                              F8E5M2)
#: Tile shapes drawn for values (powers of two, rank 0 to 3).
SHAPES: tuple[tuple[int, ...], ...] = ((), (4,), (8,), (16,), (4, 8), (8, 4), (2, 4, 8))
#: Float values constants are made of (exact in every float type drawn).
FLOATS = (0.0, 1.0, -1.0, 0.5, 2.0, -0.25, 3.0, 1.5)


@dataclass
class _Scope:
    """A block being filled and the values visible in it, by type."""

    block: Block
    values: dict[Type, list[Value]] = field(default_factory=dict)


def _same_type_ops() -> tuple[Any, ...]:
    """Declared ops whose operands and single result are one tile type (elementwise
    arithmetic, math, bitwise): generated from the declaration alone."""
    chosen = []
    for opdef in registry.all_ops():
        if opdef.dialect != "cuda_tile" or "$" in opdef.name or opdef.region_names or \
                len(opdef.results) != 1 or not opdef.operands:
            continue
        names = {v.name for v in opdef.operands} | {opdef.results[0].name}
        if any(v.arity != "single" for v in (*opdef.operands, *opdef.results)):
            continue
        if any(name in ("AllTypesMatch", "SameOperandsAndResultType") and
               (name == "SameOperandsAndResultType" or set(args) >= names)
               for name, args in opdef.trait_list):
            chosen.append(opdef)
    return tuple(sorted(chosen, key=lambda d: d.name))


class KernelGenerator:
    """Builds one random kernel; `rng` decides everything."""

    def __init__(self, rng: random.Random, version: Version = LATEST, ops: int = 12) -> None:
        self.rng = rng
        self.version = version
        self.budget = ops
        self.module = Module()
        self.kernel = Builder.at_end(self.module.body).entry("kernel", [])
        self.scopes: list[_Scope] = [_Scope(self.kernel.regions[0].blocks[0])]
        self.made: list[Value] = []          # results made at the kernel's top level
        #: The elements each argument's buffer holds (every argument is a pointer).
        self.extents: list[int] = []
        self.families: list[Callable[[], bool]] = [
            self._elementwise, self._elementwise, self._elementwise, self._constant,
            self._load, self._compare, self._select, self._convert, self._shape,
            self._reduce, self._if, self._for, self._mma, self._pointers, self._cat,
            self._extract, self._loop, self._mma_scaled, self._multimem]

    # ---- the kernel --------------------------------------------------------------

    def build(self) -> Module:
        """The kernel: ops until the budget is spent, then stores of its last values."""
        tries = 0
        while self.budget > 0 and tries < 40 * self.budget:
            tries += 1
            if self.rng.choice(self.families)():
                self.budget -= 1
        for value in self.made[-3:]:
            self._store(value)
        self._op("return", block=self.scopes[0].block)
        arguments = [a.type for a in self.scopes[0].block.arguments]
        self.kernel.attributes["function_type"] = TypeAttr(FunctionType(tuple(arguments), ()))
        return self.module

    # ---- values ------------------------------------------------------------------

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _visible(self, t: Type) -> list[Value]:
        """Values of type `t` the current block may use."""
        return [v for s in self.scopes for v in s.values.get(t, ())]

    def _any_value(self, predicate: Callable[[Type], bool] = lambda t: True) -> Value | None:
        """A visible value whose type `predicate` accepts, or None."""
        found = [v for s in self.scopes for t, vs in s.values.items() if predicate(t)
                 for v in vs]
        return self.rng.choice(found) if found else None

    def _value(self, t: Type) -> Value | None:
        """A visible value of type `t`, or a new constant of it."""
        visible = self._visible(t)
        if visible and self.rng.random() < 0.75:
            return self.rng.choice(visible)
        op = self._constant_op(t)
        return op.results[0] if op is not None else None

    def _tile_type(self, elements: Sequence[Type] = ELEMENTS,
                   shapes: Sequence[tuple[int, ...]] = SHAPES) -> TileType:
        return TileType(self.rng.choice(shapes), self.rng.choice(elements))

    def _remember(self, op: Operation) -> None:
        """Make `op`'s results usable by later ops of its block."""
        for result in op.results:
            if isinstance(result.type, TileType) and \
                    not isinstance(result.type.element_type, PointerType):
                self.scope.values.setdefault(result.type, []).append(result)
                if len(self.scopes) == 1:
                    self.made.append(result)

    # ---- making ops --------------------------------------------------------------

    def _op(self, name: str, operands: Sequence[Any] = (), results: Sequence[Type] = (),
            attributes: dict[str, Any] | None = None, regions: Sequence[Sequence[Type]] = (),
            block: Block | None = None, fill: Callable[[Operation], bool] | None = None
            ) -> Operation | None:
        """Make op `name` at the end of the current block, its regions filled by `fill`;
        kept only if the verifier accepts it."""
        try:
            op = Builder(None).create(name, operands, results, attributes or {}, regions)
        except (KeyError, TypeError, ValueError):
            return None
        if fill is not None and not fill(op):
            return None
        target = block if block is not None else self.scope.block
        target.append(op)
        if [d for d in verify(op) if d.severity.name == "ERROR"]:
            target.operations.pop()
            return None
        self._remember(op)
        return op

    def _attributes(self, opdef: Any) -> dict[str, Any]:
        """Random values for an op's enum and unit attributes (others keep defaults)."""
        chosen: dict[str, Any] = {}
        for attr in opdef.attrs:
            if attr.since > self.version:
                continue
            enum_type = getattr(attr.kind, "enum_type", None)
            if enum_type is not None and (attr.default is None or self.rng.random() < 0.5):
                cases = [c for c in enum_type if c.since <= self.version]
                if cases:
                    chosen[attr.name] = EnumAttr(self.rng.choice(cases))
            elif attr.is_unit and self.rng.random() < 0.3:
                chosen[attr.name] = True
        return chosen

    # ---- families ----------------------------------------------------------------

    def _elementwise(self) -> bool:
        opdef = self.rng.choice(SAME_TYPE_OPS)
        if opdef.since > self.version:
            return False
        types = [t for t in (TileType(s, e) for s in SHAPES for e in ELEMENTS)
                 if all(v.constraint is None or v.constraint.accepts(t)
                        for v in (*opdef.operands, *opdef.results))]
        if not types:
            return False
        t = self.rng.choice(types)
        operands = [self._value(t) for _ in opdef.operands]
        if None in operands:
            return False
        return self._op(opdef.name, operands, [t], self._attributes(opdef)) is not None

    def _constant_op(self, t: TileType) -> Operation | None:
        e = t.element_type
        n = 1 if self.rng.random() < 0.3 else t.num_elements
        if isinstance(e, FloatType):
            words = to_words(from_float64(np.array([self.rng.choice(FLOATS)
                                                    for _ in range(n)]), e), e)
            values = tuple(int(w) for w in np.asarray(words).reshape(-1))
        elif e == I1:
            values = tuple(self.rng.randint(0, 1) for _ in range(n))
        else:
            values = tuple(self.rng.randint(-8, 8) for _ in range(n))
        return self._op("constant", (), [t], {"value": DenseElementsAttr(t, values)})

    def _constant(self) -> bool:
        return self._constant_op(self._tile_type()) is not None

    def _argument(self, t: Type, elements: int) -> Value:
        """A new kernel argument of type `t` (a pointer to `elements` elements)."""
        self.extents.append(elements)
        return self.scopes[0].block.add_argument(t)

    def _partition(self, element: Type, shape: tuple[int, ...], tile: tuple[int, ...],
                   ptr_attr: PointerAttribute | None = None) -> Value | None:
        """A partition view in tiles of `tile` over a dense row-major tensor of `shape`,
        whose pointer is a new kernel argument (made at the kernel's top level)."""
        strides = tuple(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
        tv = TensorViewType(element, shape, strides, ptr_attr)
        pointer = self._argument(TileType((), PointerType(element, ptr_attr)),
                                 int(np.prod(shape)))
        top = self.scopes[0].block
        made = self._op("make_tensor_view", [pointer, [], []], [tv], block=top)
        view = made and self._op("make_partition_view", [made.results[0]],
                                 [PartitionViewType(tile, tv, None, None)], block=top)
        return view.results[0] if view else None

    def _view(self, t: TileType) -> Value | None:
        """A partition view of one tile of `t`'s shape over a new pointer argument."""
        shape = t.shape or (1,)
        return self._partition(t.element_type, shape, shape)

    def _zeros(self, rank: int) -> list[Value] | None:
        index = TileType((), I32)
        zero = self._op("constant", (), [index], {"value": DenseElementsAttr(index, (0,))})
        return None if zero is None else [zero.results[0]] * max(rank, 1)

    def _load(self) -> bool:
        t = self._tile_type(shapes=[s for s in SHAPES if s])
        view = self._view(t)
        indices = self._zeros(t.rank)
        if view is None or indices is None:
            return False
        return self._op("load_view_tko", [view, indices, None], [t, TOKEN],
                        {"memory_ordering_semantics": "weak"}) is not None

    def _store(self, value: Value) -> None:
        t = value.type
        if not isinstance(t, TileType) or not t.shape:
            return
        view = self._view(t)
        indices = self._zeros(t.rank)
        if view is None or indices is None:
            return
        self._op("store_view_tko", [value, view, indices, None], [TOKEN],
                 {"memory_ordering_semantics": "weak"}, block=self.scopes[0].block)

    def _compare(self) -> bool:
        lhs = self._any_value(lambda t: isinstance(t, TileType) and t.element_type != TF32)
        if lhs is None:
            return False
        t = lhs.type
        name = "cmpf" if isinstance(t.element_type, FloatType) else "cmpi"
        rhs = self._value(t)
        return rhs is not None and self._op(
            name, [lhs, rhs], [TileType(t.shape, I1)],
            self._attributes(registry.lookup(name))) is not None

    def _select(self) -> bool:
        cond = self._any_value(lambda t: isinstance(t, TileType) and t.element_type == I1)
        if cond is None:
            return False
        t = self._tile_type(shapes=[cond.type.shape])
        a, b = self._value(t), self._value(t)
        return None not in (a, b) and self._op("select", [cond, a, b], [t]) is not None

    def _convert(self) -> bool:
        source = self._any_value(lambda t: isinstance(t, TileType))
        if source is None:
            return False
        e = self.rng.choice(ELEMENTS)
        target = TileType(source.type.shape, e)
        floats = (isinstance(source.type.element_type, FloatType), isinstance(e, FloatType))
        name = {(True, True): "ftof", (False, True): "itof", (True, False): "ftoi"}.get(
            floats, self.rng.choice(("exti", "trunci")))
        if self.rng.random() < 0.15:
            name = "bitcast"
        opdef = registry.lookup(name)
        return self._op(name, [source], [target], self._attributes(opdef)) is not None

    def _shape(self) -> bool:
        source = self._any_value(lambda t: isinstance(t, TileType) and bool(t.shape))
        if source is None:
            return False
        t = source.type
        kind = self.rng.choice(("reshape", "permute", "broadcast", "iota"))
        if kind == "reshape":
            shapes = [s for s in SHAPES if int(np.prod(s or (1,))) == t.num_elements]
            if not shapes:
                return False
            return self._op("reshape", [source], [TileType(self.rng.choice(shapes),
                                                           t.element_type)]) is not None
        if kind == "permute":
            order = list(range(t.rank))
            self.rng.shuffle(order)
            return self._op("permute", [source], [TileType(tuple(t.shape[k] for k in order),
                                                           t.element_type)],
                            {"permutation": order}) is not None
        if kind == "broadcast":
            ones = TileType(tuple(1 for _ in t.shape), t.element_type)
            small = self._value(ones)
            return small is not None and self._op("broadcast", [small], [t]) is not None
        if t.rank != 1:
            return False
        return self._op("iota", (), [TileType(t.shape, self.rng.choice((I32, I64)))]) \
            is not None

    def _reduce(self) -> bool:
        source = self._any_value(lambda t: isinstance(t, TileType) and bool(t.shape) and
                                 t.element_type in (I32, I64, F16, F32, F64))
        if source is None:
            return False
        t = source.type
        dim = self.rng.randrange(t.rank)
        scan = self.rng.random() < 0.3
        e = t.element_type
        combine = self.rng.choice(("addf", "maxf") if isinstance(e, FloatType)
                                  else ("addi", "maxi", "xori"))
        identity: Any = FloatAttr(0, e) if isinstance(e, FloatType) else IntegerAttr(0, e)
        shape = t.shape if scan else t.shape[:dim] + t.shape[dim + 1:]
        scalar = TileType((), e)

        def body(op: Operation) -> bool:
            block = op.regions[0].blocks[0]
            x, y = block.arguments
            attrs = self._attributes(registry.lookup(combine))
            inner = Builder(block).create(combine, [x, y], [scalar], attrs)
            Builder(block).create("yield", [[inner.results[0]]])
            return True
        attrs = {"dim": IntegerAttr(dim, I32), "identities": ArrayAttr((identity,))}
        if scan:
            attrs["reverse"] = BoolAttr(self.rng.random() < 0.5)
        return self._op("scan" if scan else "reduce", [[source]], [TileType(shape, e)], attrs,
                        regions=[[scalar, scalar]], fill=body) is not None

    def _nested(self, block: Block, t: Type, yield_name: str, extra: Sequence[Value] = ()
                ) -> bool:
        """Fill `block` with a few ops and a yield of a value of type `t`."""
        self.scopes.append(_Scope(block))
        for arg in block.arguments:
            self.scope.values.setdefault(arg.type, []).append(arg)
        try:
            for _ in range(self.rng.randint(0, 2)):
                self._elementwise()
            value = self._value(t)
            if value is None:
                return False
            Builder(block).create(yield_name, [[*extra, value]] if yield_name != "yield"
                                  else [[value]])
            return True
        finally:
            self.scopes.pop()

    def _if(self) -> bool:
        cond = self._any_value(lambda t: t == TileType((), I1))
        if cond is None:
            return False
        t = self._tile_type()
        return self._op("if", [cond], [t], regions=[[], []],
                        fill=lambda op: all(self._nested(r.blocks[0], t, "yield")
                                            for r in op.regions)) is not None

    def _for(self) -> bool:
        """A `for` carrying one to three values, which its body may rotate, maybe loading
        and storing a tile of a view at the loop index."""
        carried = [self._tile_type() for _ in range(self.rng.randint(1, 3))]
        start = self._value(TileType((), I32))
        inits = [self._value(t) for t in carried]
        bound = self._op("constant", (), [TileType((), I32)],
                         {"value": DenseElementsAttr(TileType((), I32),
                                                     (self.rng.randint(0, 4),))})
        step = self._op("constant", (), [TileType((), I32)],
                        {"value": DenseElementsAttr(TileType((), I32), (1,))})
        if None in (start, bound, step, *inits):
            return False
        view, tile = None, None
        if self.rng.random() < 0.5:
            tile = self._tile_type(elements=(F32, I32, F16), shapes=((4,), (8,), (16,)))
            view = self._partition(tile.element_type, (tile.shape[0] * 8,), tile.shape)

        def body(op: Operation) -> bool:
            block = op.regions[0].blocks[0]
            self.scopes.append(_Scope(block))
            try:
                index, *args = block.arguments
                for arg in args:
                    self.scope.values.setdefault(arg.type, []).append(arg)
                if view is not None:
                    self._loop_access(view, tile, index)
                for _ in range(self.rng.randint(0, 2)):
                    self._elementwise()
                nexts = []
                for k, t in enumerate(carried):
                    same = [a for a in args if a.type == t]
                    pick = self.rng.random()
                    nexts.append(self.rng.choice(same) if pick < 0.5 and same
                                 else self._value(t))
                if None in nexts:
                    return False
                Builder(block).create("continue", [nexts])
                return True
            finally:
                self.scopes.pop()
        return self._op("for", [start, bound.results[0], step.results[0], inits], carried,
                        regions=[[TileType((), I32), *carried]], fill=body) is not None

    def _loop_access(self, view: Value, tile: TileType, index: Value) -> None:
        """Load the `tile` at `index` of a partition view, compute on it, store it back."""
        loaded = self._op("load_view_tko", [view, [index], None], [tile, TOKEN],
                          {"memory_ordering_semantics": "weak"})
        if loaded is None:
            return
        value = loaded.results[0]
        if self.rng.random() < 0.7:
            same = self._value(tile)
            name = "addf" if isinstance(tile.element_type, FloatType) else "addi"
            done = same is not None and self._op(name, [value, same], [tile])
            value = done.results[0] if done else value
        self._op("store_view_tko", [value, view, [index], loaded.results[1]], [TOKEN],
                 {"memory_ordering_semantics": "weak"})

    def _loop(self) -> bool:
        """A `loop` counting an i32 to a bound, leaving through `break` in an `if`, and
        carrying a value it may recompute (an mma's result, say)."""
        t = self._tile_type()
        init, zero = self._value(t), self._value(TileType((), I32))
        limit = self._op("constant", (), [TileType((), I32)], {"value": DenseElementsAttr(
            TileType((), I32), (self.rng.randint(0, 3),))})
        one = self._op("constant", (), [TileType((), I32)], {"value": DenseElementsAttr(
            TileType((), I32), (1,))})
        if None in (init, zero, limit, one):
            return False
        counter = TileType((), I32)

        def body(op: Operation) -> bool:
            block = op.regions[0].blocks[0]
            x, i = block.arguments
            b = Builder(block)
            done = b.create("cmpi", [i, limit.results[0]], [TileType((), I1)],
                            {"comparison_predicate": "greater_than_or_equal",
                             "signedness": "signed"})
            leave = b.create("if", [done.results[0]], [], regions=[[], []])
            Builder(leave.regions[0].blocks[0]).create("break", [[x, i]])
            Builder(leave.regions[1].blocks[0]).create("yield", [[]])
            self.scopes.append(_Scope(block))
            try:
                self.scope.values.setdefault(t, []).append(x)
                for _ in range(self.rng.randint(0, 2)):
                    self.rng.choice((self._elementwise, self._mma, self._mma_scaled))()
                following = self._value(t)
            finally:
                self.scopes.pop()
            if following is None:
                return False
            step = b.create("addi", [i, one.results[0]], [counter])
            b.create("continue", [[following, step.results[0]]])
            return True
        return self._op("loop", [[init, zero]], [t, counter], regions=[[t, counter]],
                        fill=body) is not None

    def _multimem(self) -> bool:
        """A multimem store, load-reduce or reduce through a multicast view (13.5)."""
        if self.version < Version(13, 5):
            return False
        e = self.rng.choice((I32, I64, F32, F64, F16, BF16))
        n = self.rng.choice((4, 8, 16))
        tile = TileType((n,), e)
        view = self._partition(e, (n * 4,), (n,), PointerAttribute.MULTICAST)
        index = self._value(TileType((), I32)) if self.rng.random() < 0.3 else None
        if view is None:
            return False
        if index is None:
            zero = self._zeros(1)
            if zero is None:
                return False
            index = zero[0]
        kind = self.rng.choice(("store", "load_reduce", "reduce"))
        name = f"multimem_{kind}_view_tko"
        attrs = self._attributes(registry.lookup(name))
        if kind == "load_reduce":
            return self._op(name, [view, [index], None], [tile, TOKEN],
                            attrs) is not None
        value = self._value(tile)
        return value is not None and self._op(name, [view, value, [index], None],
                                              [TOKEN], attrs) is not None

    def _mma_scaled(self) -> bool:
        m, n = self.rng.choice((16, 32)), self.rng.choice((16, 32))
        k = self.rng.choice((32, 64, 128))
        e = self.rng.choice((F8E4M3FN, F8E5M2, F4E2M1FN))
        scale = self.rng.choice((F8E8M0FNU, F8E4M3FN))
        blocks = k // self.rng.choice((16, 32))
        a, b = self._value(TileType((m, k), e)), self._value(TileType((k, n), e))
        c = self._value(TileType((m, n), F32))
        sa = self._value(TileType((m, blocks), scale))
        sb = self._value(TileType((blocks, n), scale))
        return None not in (a, b, c, sa, sb) and self._op(
            "mmaf_scaled", [a, b, c, sa, sb], [TileType((m, n), F32)]) is not None

    def _mma(self) -> bool:
        m, n, k = (self.rng.choice((4, 8, 16)) for _ in range(3))
        e, acc = self.rng.choice(((F16, F32), (BF16, F32), (F32, F32), (F64, F64),
                                  (TF32, F32), (F8E4M3FN, F32), (F16, F16)))
        a, b = self._value(TileType((m, k), e)), self._value(TileType((k, n), e))
        c = self._value(TileType((m, n), acc))
        return None not in (a, b, c) and self._op("mmaf", [a, b, c],
                                                  [TileType((m, n), acc)]) is not None


    def _pointer_tile(self, element: Type, n: int) -> Value | None:
        """A 1-D tile of `n` pointers to consecutive `element`s of a new argument."""
        scalar = self._argument(TileType((), PointerType(element)), n)
        pt = TileType((1,), PointerType(element))
        one = self._op("reshape", [scalar], [pt], block=self.scopes[0].block)
        wide = one and self._op("broadcast", [one.results[0]],
                                [TileType((n,), PointerType(element))],
                                block=self.scopes[0].block)
        steps = wide and self._op("iota", (), [TileType((n,), I32)],
                                  block=self.scopes[0].block)
        moved = steps and self._op("offset", [wide.results[0], steps.results[0]],
                                   [wide.results[0].type], block=self.scopes[0].block)
        return moved.results[0] if moved else None

    def _pointers(self) -> bool:
        """A load, store or atomic through a tile of pointers, maybe masked."""
        n = self.rng.choice((4, 8, 16))
        element = self.rng.choice((I32, I64, F16, F32, F64, BF16, I8))
        pointers = self._pointer_tile(element, n)
        if pointers is None:
            return False
        t = TileType((n,), element)
        mask = None
        if self.rng.random() < 0.5:
            mask = self._value(TileType((n,), I1))
        kind = self.rng.choice(("load", "store", "atomic"))
        if kind == "load":
            padding = self._value(t) if mask is not None and self.rng.random() < 0.5 else None
            attrs = self._attributes(registry.lookup("load_ptr_tko"))
            return self._op("load_ptr_tko", [pointers, mask, padding, None], [t, TOKEN],
                            attrs) is not None
        value = self._value(t)
        if value is None:
            return False
        if kind == "store":
            attrs = self._attributes(registry.lookup("store_ptr_tko"))
            return self._op("store_ptr_tko", [pointers, value, mask, None], [TOKEN],
                            attrs) is not None
        attrs = self._attributes(registry.lookup("atomic_rmw_tko"))
        return self._op("atomic_rmw_tko", [pointers, value, mask, None], [t, TOKEN],
                        attrs) is not None

    def _cat(self) -> bool:
        lhs = self._any_value(lambda t: isinstance(t, TileType) and bool(t.shape))
        if lhs is None:
            return False
        t = lhs.type
        dim = self.rng.randrange(t.rank)
        rhs = self._value(t)
        shape = tuple(d * 2 if k == dim else d for k, d in enumerate(t.shape))
        return rhs is not None and self._op("cat", [lhs, rhs], [TileType(shape, t.element_type)],
                                            {"dim": IntegerAttr(dim, I64)}) is not None

    def _extract(self) -> bool:
        source = self._any_value(lambda t: isinstance(t, TileType) and bool(t.shape))
        if source is None:
            return False
        t = source.type
        shape = tuple(self.rng.choice([d >> k for k in range(3) if d >> k]) for d in t.shape)
        indices = []
        for d, part in zip(t.shape, shape):
            index = TileType((), I32)
            made = self._op("constant", (), [index], {"value": DenseElementsAttr(
                index, (self.rng.randrange(d // part),))})
            if made is None:
                return False
            indices.append(made.results[0])
        return self._op("extract", [source, indices], [TileType(shape, t.element_type)]) \
            is not None


SAME_TYPE_OPS = _same_type_ops()


def generate(seed: int, version: Version = LATEST, ops: int = 12) -> Module:
    """The kernel of `seed`: about `ops` ops, each verified, at `version`'s op set."""
    return KernelGenerator(random.Random(seed), version, ops).build()


def generate_with_arguments(seed: int, version: Version = LATEST, ops: int = 12
                            ) -> tuple[Module, list[Any]]:
    """The kernel of `seed` and arguments to launch it with: a buffer of random values
    for each pointer argument (two replicas for a multicast one), drawn from `seed`."""
    generator = KernelGenerator(random.Random(seed), version, ops)
    module = generator.build()
    rng = np.random.default_rng(seed)
    arguments: list[Any] = []
    for value, n in zip(generator.scopes[0].block.arguments, generator.extents):
        pointer = value.type.element_type
        e = pointer.pointee
        if isinstance(e, FloatType):
            words = to_words(from_float64(rng.choice(np.array(FLOATS), n), e), e)
            data = from_words(np.asarray(words), e)
        elif e == I1:
            data = rng.integers(0, 2, n).astype(np.bool_)
        else:
            data = rng.integers(-8, 9, n).astype(numpy_dtype(e))
        data = np.ascontiguousarray(data)
        if pointer.ptr_attr == PointerAttribute.MULTICAST:
            arguments.append([data, data[::-1].copy()])
        else:
            arguments.append(data)
    return module, arguments


__all__ = ["KernelGenerator", "SAME_TYPE_OPS", "generate", "generate_with_arguments"]
