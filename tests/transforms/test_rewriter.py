"""The rewriter and the greedy driver: use lists kept current by every change, and MLIR's
driver behaviour (visiting order, dead code, constant hoisting and uniquing, folds,
re-queuing, limits)."""

from __future__ import annotations

import tileir
from tileir.attributes import UNIT
from tileir.ir import Operation
from tileir.transforms.rewriter import (FOLDS, GreedyConfig, Patterns, Rewriter,
                                        apply_greedily, constant_value, erase_dead_ops,
                                        is_pure, is_trivially_dead, run_greedily)
from transform_helpers import (BIT_DISTINCT_CONSTANTS, BIT_DISTINCT_UNIQUED, expected,
                               module_of, printed)


def function_of(body: str) -> Operation:
    """The only function of a module holding `body`."""
    return module_of(body).functions[0]


def ops(function: Operation) -> list[Operation]:
    """The ops of the function's body."""
    return function.regions[0].blocks[0].operations


def body_text(function: Operation) -> list[str]:
    """The printed lines of the function's body."""
    return [line.strip() for line in printed(function.parent_op).splitlines()[2:-2]]


CHAIN = """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    %y = muli %x, %x : tile<i32>
    %z = subi %y, %a : tile<i32>
    return %z : tile<i32>
  }"""


#: An ``if`` computing in its then branch, yielding an argument in its else branch.
IF_ADD = """
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %0 = if %c -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      yield %x : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    return %0 : tile<i32>
  }"""


# ---- use lists ------------------------------------------------------------------------


def test_use_lists_follow_every_change() -> None:
    f = function_of(CHAIN)
    a = f.regions[0].blocks[0].arguments[0]
    add, mul, sub, ret = ops(f)
    rewriter = Rewriter(f)
    assert rewriter.users(a) == [add, sub] and rewriter.use_count(a) == 3
    assert rewriter.has_one_use(add.result) is False     # muli uses it twice
    rewriter.set_operand(sub, 0, add.result)
    assert rewriter.users(add.result) == [mul, sub] and not rewriter.has_uses(mul.result)
    rewriter.erase_op(mul)
    assert rewriter.users(add.result) == [sub]
    rewriter.replace_all_uses(add.result, a)
    assert rewriter.users(a) == [add, sub] and not rewriter.has_uses(add.result)
    assert sub.operands == [a, a]
    rewriter.replace_op(sub, [a])
    assert ret.operands == [a] and rewriter.users(a) == [add, ret]


def test_an_inserted_op_with_a_body_records_the_uses_inside() -> None:
    f = function_of(IF_ADD)
    c, a = f.regions[0].blocks[0].arguments
    if_op, ret = ops(f)
    rewriter = Rewriter(f)
    copy = rewriter.clone_without_regions(if_op)
    assert copy.regions[0].blocks == [] and rewriter.users(c) == [if_op, copy]
    rewriter.move_region_body(if_op.regions[0], copy.regions[0])
    rewriter.move_region_body(if_op.regions[1], copy.regions[1])
    rewriter.replace_op(if_op, copy.results)
    assert ops(f) == [copy, ret] and rewriter.users(copy.result) == [ret]
    inner = copy.regions[0].blocks[0].operations[0]
    assert inner.parent.parent is copy.regions[0] and rewriter.users(a)[0] is inner


def test_inlining_a_block_moves_its_ops_and_drops_it() -> None:
    f = function_of("""
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %0 = if %c -> (tile<i32>) {
      %x = addi %a, %a : tile<i32>
      yield %x : tile<i32>
    } else {
      yield %a : tile<i32>
    }
    %p = print_tko "after" -> token
    return %0 : tile<i32>
  }""")
    if_op = ops(f)[0]
    rewriter = Rewriter(f)
    seen: list[str] = []
    rewriter.on_change = lambda op: seen.append(op.name)
    rewriter.inline_block_before(if_op.regions[0].blocks[0], if_op)
    assert if_op.regions[0].blocks == []
    assert seen == ["cuda_tile.addi", "cuda_tile.yield"]
    yield_op = ops(f)[1]
    rewriter.replace_op(if_op, list(yield_op.operands))
    rewriter.erase_op(yield_op)
    rewriter.erase_from(ops(f)[1])                  # the print and the return go
    assert [op.name for op in ops(f)] == ["cuda_tile.addi"]


# ---- purity ---------------------------------------------------------------------------


def test_purity_and_trivial_deadness() -> None:
    f = function_of("""
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %k = constant <i32: 1> : tile<i32>
    %0 = if %c -> (tile<i32>) {
      yield %a : tile<i32>
    } else {
      yield %k : tile<i32>
    }
    if %c {
      %p = print_tko "x" -> token
    }
    %t = make_token : token
    return %a : tile<i32>
  }""")
    constant, pure_if, printing_if, token, ret = ops(f)
    rewriter = Rewriter(f)
    assert [is_pure(op) for op in ops(f)] == [True, True, False, True, False]
    assert [is_trivially_dead(op, rewriter) for op in ops(f)] == \
        [False, True, False, True, False]
    assert not is_trivially_dead(f, rewriter)           # a symbol
    assert constant_value(constant) == constant.attr("value")
    assert constant_value(token) is None


# ---- the driver ---------------------------------------------------------------------------


def _recorder(seen: list[str]) -> Patterns:
    """Patterns that only record the ops visited."""
    patterns = Patterns()

    def record(op: Operation, rewriter: Rewriter) -> bool:
        """Note `op`'s name."""
        seen.append(op.name.removeprefix("cuda_tile."))
        return False
    patterns.add(None, record)
    return patterns


def test_bottom_up_visits_the_last_op_first_and_top_down_the_first() -> None:
    seen: list[str] = []
    apply_greedily(function_of(CHAIN), _recorder(seen))
    assert seen == ["return", "subi", "muli", "addi"]
    seen.clear()
    apply_greedily(function_of(CHAIN), _recorder(seen), top_down=True)
    assert seen == ["addi", "muli", "subi", "return"]


def test_a_change_inside_a_region_revisits_its_ancestors() -> None:
    f = function_of(IF_ADD)
    seen: list[str] = []
    patterns = _recorder(seen)

    def mark(op: Operation, rewriter: Rewriter) -> bool:
        """Mark the addi once (in place)."""
        if "marked" in op.discardable:
            return False
        op.discardable["marked"] = UNIT
        rewriter.modified(op)
        return True
    patterns.by_name["cuda_tile.addi"].insert(0, mark)
    apply_greedily(f, patterns, max_iterations=1)
    # seeding queues each op with its ancestors (the addi, first in post-order, brings
    # the if): return, the yields, the if, then the addi, marked, which queues itself and
    # the if again: the if, then the addi once more
    assert seen == ["return", "yield", "yield", "if", "if", "addi"]


def test_an_erased_op_requeues_its_operands_producers() -> None:
    f = function_of("""
  testing$func @f(%a: tile<i32>) {
    %x = addi %a, %a : tile<i32>
    %y = muli %x, %x : tile<i32>
    %p = print_tko "%d", %y : tile<i32> -> token
    return
  }""")
    patterns = Patterns()

    def drop_print(op: Operation, rewriter: Rewriter) -> bool:
        """Erase the print (its token is unused)."""
        rewriter.erase_op(op)
        return True
    patterns.add("cuda_tile.print_tko", drop_print)
    # one sweep, no region simplification: only re-queuing can reach the muli and addi
    changed, converged = run_greedily(f, patterns, GreedyConfig(
        max_iterations=1, simplify_regions=False))
    assert changed and not converged
    assert [op.name for op in ops(f)] == ["cuda_tile.return"]


def test_constants_are_hoisted_to_the_front_and_uniqued() -> None:
    f = function_of("""
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %one = constant <i32: 1> : tile<i32>
    %x = addi %a, %one : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %0 = if %c -> (tile<i32>) {
      %one_again = constant <i32: 1> : tile<i32>
      %three = constant <i32: 3> : tile<i32>
      %y = addi %x, %three : tile<i32>
      %z = addi %y, %one_again : tile<i32>
      yield %z : tile<i32>
    } else {
      yield %two : tile<i32>
    }
    return %0 : tile<i32>
  }""")
    apply_greedily(f, Patterns(), fold=False)
    assert body_text(f) == [
        "%cst_3_i32 = constant <i32: 3> : tile<i32>",
        "%cst_2_i32 = constant <i32: 2> : tile<i32>",
        "%cst_1_i32 = constant <i32: 1> : tile<i32>",
        "%0 = addi %arg1, %cst_1_i32 : tile<i32>",
        "%1 = if %arg0 -> (tile<i32>) {",
        "%2 = addi %0, %cst_3_i32 : tile<i32>",
        "%3 = addi %2, %cst_1_i32 : tile<i32>",
        "yield %3 : tile<i32>",
        "} else {",
        "yield %cst_2_i32 : tile<i32>",
        "}",
        "return %1 : tile<i32>"]


def test_constants_are_uniqued_by_their_bits() -> None:
    """0.0 and -0.0 (equal as floats) and NaNs of two payloads stay apart."""
    module = module_of(BIT_DISTINCT_CONSTANTS)
    apply_greedily(module.functions[0], Patterns())
    assert printed(module) == expected(BIT_DISTINCT_UNIQUED)


def test_constants_stay_where_they_are_without_cse_constants() -> None:
    source = """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %y = addi %x, %one : tile<i32>
    %one_again = constant <i32: 1> : tile<i32>
    %z = addi %y, %one_again : tile<i32>
    return %z : tile<i32>
  }"""
    f = function_of(source)
    apply_greedily(f, Patterns(), cse_constants=False)
    assert [op.name.removeprefix("cuda_tile.") for op in ops(f)] == \
        ["addi", "constant", "addi", "constant", "addi", "return"]


def test_dead_ops_go_unless_told_not_to() -> None:
    source = """
  testing$func @f(%a: tile<i32>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    %y = muli %x, %x : tile<i32>
    %p = print_tko "kept" -> token
    return %a : tile<i32>
  }"""
    f = function_of(source)
    assert apply_greedily(f, Patterns())
    assert [op.name for op in ops(f)] == ["cuda_tile.print_tko", "cuda_tile.return"]
    f = function_of(source)
    assert not apply_greedily(f, Patterns(), remove_dead=False)
    assert len(ops(f)) == 4


def test_region_dead_code_sweep() -> None:
    f = function_of("""
  testing$func @f(%c: tile<i1>, %a: tile<i32>) -> tile<i32> {
    %x = addi %a, %a : tile<i32>
    if %c {
      %y = muli %x, %x : tile<i32>
      %p = print_tko "kept" -> token
    }
    return %a : tile<i32>
  }""")
    rewriter = Rewriter(f)
    assert erase_dead_ops(rewriter, f.regions)
    assert body_text(f) == ['if %arg0 {', '%0 = print_tko "kept" -> token', '}',
                            'return %arg1 : tile<i32>']
    assert not erase_dead_ops(rewriter, f.regions)


def test_folds_replace_change_in_place_or_give_way(monkeypatch) -> None:
    f = function_of("""
  testing$func @f(%a: tile<f32>) -> (tile<f32>, tile<f32>, tile<f32>) {
    %x = negf %a : tile<f32>
    %y = absf %a : tile<f32>
    %z = ceil %a : tile<f32>
    return %x, %y, %z : tile<f32>, tile<f32>, tile<f32>
  }""")
    calls: list[str] = []

    def fold_negf(op: Operation, rewriter: Rewriter) -> list:
        """negf folds to its operand (wrong, but visible)."""
        calls.append("negf")
        return [op.operands[0]]

    def fold_absf(op: Operation, rewriter: Rewriter) -> list | None:
        """absf is changed in place once (a discardable flag)."""
        calls.append("absf")
        if "seen" in op.discardable:
            return None
        op.discardable["seen"] = UNIT
        return []

    def fold_ceil(op: Operation, rewriter: Rewriter) -> list:
        """ceil folds to an attribute: no constant materializer, so no fold."""
        calls.append("ceil")
        return [UNIT]
    monkeypatch.setitem(FOLDS, "cuda_tile.negf", fold_negf)
    monkeypatch.setitem(FOLDS, "cuda_tile.absf", fold_absf)
    monkeypatch.setitem(FOLDS, "cuda_tile.ceil", fold_ceil)
    patterns = Patterns()
    tried: list[str] = []
    patterns.add(None, lambda op, rewriter: tried.append(op.name) and False)
    apply_greedily(f, patterns, max_iterations=1)
    assert calls == ["ceil", "absf", "absf", "negf"]
    assert tried == ["cuda_tile.return", "cuda_tile.ceil", "cuda_tile.absf",
                     "cuda_tile.return"]
    assert [op.name for op in ops(f)] == ["cuda_tile.absf", "cuda_tile.ceil",
                                          "cuda_tile.return"]
    assert ops(f)[-1].operands[0] is f.regions[0].blocks[0].arguments[0]
    calls.clear()
    apply_greedily(f, patterns, fold=False)
    assert calls == []


def test_limits_stop_a_rewrite_that_never_ends() -> None:
    f = function_of(CHAIN)
    patterns = Patterns()
    count = [0]

    def churn(op: Operation, rewriter: Rewriter) -> bool:
        """Claim a change every time (and ask to be visited again)."""
        count[0] += 1
        rewriter.modified(op)
        return True
    patterns.add("cuda_tile.addi", churn)
    changed, converged = run_greedily(f, patterns, GreedyConfig(max_iterations=3,
                                                                max_rewrites=5))
    assert changed and not converged and count[0] == 15


def test_each_region_of_the_root_is_its_own_scope() -> None:
    module = tileir.parse("cuda_tile.module @m {" + CHAIN + CHAIN.replace("@f", "@g") + "}")
    seen: list[str] = []
    apply_greedily(module, _recorder(seen))
    # the module's one region holds both functions; each function is queued with its
    # first op (ancestors come along), so it is visited just before that op
    assert seen == ["return", "subi", "muli", "testing$func", "addi"] * 2
