"""The 13.5 multimem ops on the interpreter: a multicast parameter takes a list of arrays,
one replica per device; a multimem store writes every replica, a load-reduce reads and
reduces them elementwise, a reduce combines into every replica atomically; bounds, races
and atomic launches as for the other view accesses.  Expected values are worked out by
hand from the replicas."""

from __future__ import annotations

import numpy as np
import pytest

from tileir import ExecutionError
from tileir.interp import launch


def _kernel(t: str, body: str, extra: str = "") -> str:
    """A kernel over a multicast view of 64 `t` in tiles of 16 (`%pv`), block x as index."""
    tv = f"tensor_view<64x{t}, strides=[1], #cuda_tile.ptr_attr<multicast>>"
    return f"""cuda_tile.module @kernels {{
  entry @k(%m: tile<ptr<{t}, <multicast>>>{extra}) {{
    %tv = make_tensor_view %m, shape = [64], strides = [1] : tile<ptr<{t}, <multicast>>> -> {tv}
    %pv = make_partition_view %tv : partition_view<tile=(16), {tv}>
    %x, %y, %z = get_tile_block_id : tile<i32>
{body}
    return
  }}
}}""".replace("PV", f"partition_view<tile=(16), {tv}>")


STORE = _kernel("i32", """    %v = iota : tile<16xi32>
    %t = multimem_store_view_tko weak %pv, %v[%x] : PV, tile<16xi32>, tile<i32> -> token""")


def test_a_multimem_store_writes_every_replica():
    replicas = [np.full(64, -1, np.int32) for _ in range(3)]
    launch(STORE, None, 2, [replicas])          # blocks 0 and 1: tiles 0 and 1
    for replica in replicas:
        assert replica.tolist() == list(range(16)) * 2 + [-1] * 32


def _load_reduce(t: str, reduction: str) -> str:
    attrs = "" if reduction == "add" else \
        f" attributes {{reduction = #cuda_tile.multimem_reduction_kind<{reduction}>}}"
    out = f"tensor_view<64x{t}, strides=[1]>"
    op = f"partition_view<tile=(16), {out}>"
    return _kernel(t, f"""    %r, %t = multimem_load_reduce_view_tko weak %pv[%x]{attrs} :
        PV, tile<i32> -> tile<16x{t}>, token
    %ov = make_tensor_view %out, shape = [64], strides = [1] : {out}
    %op = make_partition_view %ov : {op}
    %s = store_view_tko weak %r, %op[%x] : tile<16x{t}>, {op}, tile<i32> -> token""",
                   f", %out: tile<ptr<{t}>>")


@pytest.mark.parametrize("reduction, expected", [
    ("add", lambda a, b, c: a + b + c),
    ("min", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    ("max", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    ("xor", lambda a, b, c: a ^ b ^ c),
    ("umax", lambda a, b, c: np.maximum(np.maximum(a.view(np.uint32), b.view(np.uint32)),
                                        c.view(np.uint32)).view(np.int32)),
])
def test_a_load_reduce_reduces_every_replica(reduction, expected):
    a = np.arange(64, dtype=np.int32) - 20
    b = (np.arange(64, dtype=np.int32) * 7) % 23 - 11
    c = np.full(64, 5, np.int32)
    out = np.zeros(64, np.int32)
    launch(_load_reduce("i32", reduction), None, 4, [[a, b, c], out])
    assert out.tolist() == expected(a, b, c).tolist()


def test_a_float_load_reduce_rounds_each_step_in_replica_order():
    # 1 + 2**-24 rounds to 1 in f32; then + 2**-24 again: 1 (in replica order); the exact
    # sum 1 + 2**-23 would be representable
    a = np.ones(64, np.float32)
    b = np.full(64, 2.0 ** -24, np.float32)
    out = np.zeros(64, np.float32)
    launch(_load_reduce("f32", "add"), None, 4, [[a, b, b.copy()], out])
    assert (out == 1.0).all()
    launch(_load_reduce("f32", "add"), None, 4, [[b, b.copy(), a], out])
    assert (out == np.float32(1.0 + 2.0 ** -23)).all()


def test_one_array_is_a_group_of_one():
    a = np.arange(64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    launch(_load_reduce("i32", "add"), None, 4, [a, out])
    assert out.tolist() == a.tolist()


REDUCE = _kernel("i32", """    %v = iota : tile<16xi32>
    %t = multimem_reduce_view_tko relaxed device %pv, %v[%x] :
        PV, tile<16xi32>, tile<i32> -> token""")


def test_a_multimem_reduce_adds_into_every_replica():
    replicas = [np.full(64, 100 * k, np.int32) for k in range(2)]
    launch(REDUCE, None, 4, [replicas])
    for k, replica in enumerate(replicas):
        assert replica.tolist() == [100 * k + i % 16 for i in range(64)]


def test_an_out_of_bounds_tile_leaves_every_replica_as_it_was():
    replicas = [np.full(64, 7, np.int32) for _ in range(2)]
    with pytest.raises(ExecutionError, match=r"index 4 in dimension 0 is outside the index "
                                             r"space \[4\]"):
        launch(STORE, None, 5, [replicas])
    assert all((r == 7).all() for r in replicas)


def test_two_blocks_storing_one_tile_race():
    text = STORE.replace("%v[%x]", "%v[%y]")             # every block stores tile 0
    replicas = [np.zeros(64, np.int32) for _ in range(2)]
    with pytest.raises(ExecutionError, match="races with tile block"):
        launch(text, None, 2, [replicas], engine="blocks")
    assert all(not r.any() for r in replicas)


@pytest.mark.parametrize("replicas, message", [
    ([], "is a multicast pointer: pass a list of arrays, one replica per device"),
    ([np.zeros(64, np.int32), np.zeros(32, np.int32)],
     r"replica 1 is int32\[32\], replica 0 int32\[64\]"),
    ([np.zeros(64, np.int32), np.zeros(64, np.float32)], "replica 1 expects an array of dtype"),
])
def test_bad_replicas_are_one_error(replicas, message):
    with pytest.raises(ExecutionError, match=message):
        launch(STORE, None, 1, [replicas])


def test_replicas_sharing_memory_are_refused():
    a = np.zeros(64, np.int32)
    with pytest.raises(ExecutionError, match="replica 1 shares memory with a buffer mapped "
                                             "before"):
        launch(STORE, None, 1, [[a, a]])


def test_f16_min_and_max_are_ieee_minimum_and_maximum_number():
    # minimumNumber: a NaN loses to a number; -0 is below +0
    a = np.array([np.nan, 0.0, 1.5, np.nan] * 16, np.float16)
    b = np.array([2.0, -0.0, -1.0, np.nan] * 16, np.float16)
    out = np.zeros(64, np.float16)
    launch(_load_reduce("f16", "min"), None, 4, [[a, b], out])
    words = out.view(np.uint16).reshape(16, 4)
    assert (words == np.array([0x4000, 0x8000, 0xBC00, 0x7FFF], np.uint16)).all()
    launch(_load_reduce("f16", "max"), None, 4, [[a, b], out])
    words = out.view(np.uint16).reshape(16, 4)
    assert (words == np.array([0x4000, 0x0000, 0x3E00, 0x7FFF], np.uint16)).all()
