# ruff: noqa: E501 (Tile IR text lines in this benchmark are long by nature)
"""Text throughput: parse, verify and print a module of at least 10,000 ops (ops per second).

Run: ``python bench/syntax_bench.py [--ops N]``.  The module is a realistic kernel body
(constants, arithmetic with modifiers, comparisons, loads/stores through views, a loop)
repeated until it holds N ops; the baseline is tileir's own lexer tokenising the same text,
measured in the same run: the ratio is what parsing costs on top of reading the tokens.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tileir import parse
from tileir.syntax.lexer import Kind, Lexer, Source

BLOCK = """\
    %c{i} = constant <f32: 1.500000e+00> : tile<64xf32>
    %a{i} = addf %c{i}, %c{i} rounding<zero> : tile<64xf32>
    %m{i} = mulf %a{i}, %c{i} flush_to_zero : tile<64xf32>
    %x{i} = cmpf less_than ordered %a{i}, %m{i} : tile<64xf32> -> tile<64xi1>
    %s{i} = select %x{i}, %a{i}, %m{i} : tile<64xi1>, tile<64xf32>
    %t{i}, %k{i} = load_view_tko weak %pv[%bid] token = %tok : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %e{i} = exp %t{i} rounding<approx> : tile<64xf32>
    %w{i} = store_view_tko weak %e{i}, %pv[%bid] token = %k{i} : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
"""
HEADER = """\
cuda_tile.module @bench {
  entry @kernel(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %bid, %by, %bz = get_tile_block_id : tile<i32>
"""
FOOTER = "  }\n}\n"


def module_text(ops: int) -> tuple[str, int]:
    blocks = -(-ops // 8)
    body = "".join(BLOCK.format(i=i) for i in range(blocks))
    return HEADER + body + FOOTER, blocks * 8 + 6


def lex_all(text: str) -> int:
    """Tokenise `text` with tileir's lexer; returns the token count."""
    lexer = Lexer(Source(text))
    count = 0
    while lexer.next().kind is not Kind.EOF:
        count += 1
    return count


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text, count = module_text(args.ops)
    module = parse(text)  # verified: the benchmark module is valid
    printed = module.format()
    assert parse(printed).format() == printed, "printing is not a fixed point"
    rows = [
        ("parse", best_of(lambda: parse(text, verify=False), args.repeat)),
        ("verify", best_of(lambda: module.verify(), args.repeat)),
        ("parse + verify", best_of(lambda: parse(text), args.repeat)),
        ("print", best_of(lambda: module.format(), args.repeat)),
        ("print generic", best_of(lambda: module.format(generic=True), args.repeat)),
        ("baseline: lex only", best_of(lambda: lex_all(text), args.repeat)),
    ]
    print(f"module: {count} ops, {len(text):,} characters")
    print_table(rows, count)


def print_table(rows: list[tuple[str, tuple[float, float]]], ops: int) -> None:
    """Best and median seconds, ops per second and the ratio to the last row (the baseline
    measured in the same run)."""
    print(f"{'task':<22}{'best s':>10}{'median s':>10}{'ops/s':>12}{'x baseline':>12}")
    base = rows[-1][1][0]
    for name, (best, median) in rows:
        print(f"{name:<22}{best:>10.4f}{median:>10.4f}{ops / best:>12,.0f}"
              f"{best / base:>12.2f}")


if __name__ == "__main__":
    main()
