"""Values are freed after their last use: a chain of big tiles keeps two or three alive,
not all of them until the launch ends (issue 15 §4: 40 chained addf on tile<2^24xf64>
needed 5 GB)."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.interp import launch
from tileir.interp.machine import Machine

CHAIN = 40


def _chain_kernel(n: int) -> str:
    """x = load a; then CHAIN times x = x + x; store x to out (n f64 elements)."""
    view = f"partition_view<tile=({n}), tensor_view<{n}xf64, strides=[1]>>"
    lines = [
        "cuda_tile.module @m {",
        "  entry @k(%a: tile<ptr<f64>>, %out: tile<ptr<f64>>) {",
        "    %t0 = make_token : token",
        "    %zero = constant <i32: 0> : tile<i32>",
        f"    %va = make_tensor_view %a, shape = [{n}], strides = [1] : tensor_view<{n}xf64, "
        "strides=[1]>",
        f"    %pa = make_partition_view %va : {view}",
        f"    %x0, %t1 = load_view_tko weak %pa[%zero] token = %t0 : {view}, tile<i32> -> "
        f"tile<{n}xf64>, token",
    ]
    for i in range(CHAIN):
        lines.append(f"    %x{i + 1} = addf %x{i}, %x{i} : tile<{n}xf64>")
    lines += [
        f"    %vo = make_tensor_view %out, shape = [{n}], strides = [1] : tensor_view<{n}xf64, "
        "strides=[1]>",
        f"    %po = make_partition_view %vo : {view}",
        f"    %t2 = store_view_tko weak %x{CHAIN}, %po[%zero] token = %t1 : tile<{n}xf64>, "
        f"{view}, tile<i32> -> token",
        "    return",
        "  }",
        "}",
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("engine", ["blocks", "batched"])
def test_a_chain_of_big_tiles_keeps_few_alive(engine, monkeypatch) -> None:
    live: list[int] = []

    def counting(execute):
        """`execute`, then the count of big arrays the machine still holds."""
        def run(self, p, steps):
            execute(self, p, steps)
            live.append(sum(isinstance(v, np.ndarray) and v.size >= 1024
                            for v in self.env.values()))
        return run
    from tileir.interp.batch.machine import BatchMachine
    for machine in (Machine, BatchMachine):
        monkeypatch.setattr(machine, "_execute", counting(machine._execute))
    n = 4096
    a = np.arange(n, dtype=np.float64)
    out = np.zeros(n, np.float64)
    launch(_chain_kernel(n), None, 1, [a, out], engine=engine)
    assert out.tobytes() == (a * 2.0 ** CHAIN).tobytes()
    # the loaded tile and the newest sum, and for a moment the one before it
    assert len(live) > CHAIN and max(live) <= 2
