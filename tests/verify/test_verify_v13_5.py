"""The 13.5 verifier rules: multimem accesses need a multicast-backed partition_view of
32/64-bit integers or f16/bf16/f32/f64 (whole 4-byte words), reductions floats support,
and the memory orderings of a load, a store or a reduction; the older view, pointer and
atomic ops refuse multicast memory.  Expected messages are NVIDIA's 13.5 tileirdisasm
verifier's, for the same modules written as bytecode with cuTile's 13.5 encoders; where
several rules fail, the one it reports first."""

from __future__ import annotations

import pytest


def _kernel(body: str, element: str = "f32", ptr_attr: str | None = "multicast",
            tile: str = "16", shape: str = "64", strides: str = "1",
            view: str = "partition_view") -> str:
    """An entry over one pointer of `element` with `ptr_attr`, a tensor_view of `shape`
    and `strides`, a view with tile `tile`, an index %c and a value tile %v of that
    tile; then `body` (which may name %view, %c, %v and %tok)."""
    attr = f", <{ptr_attr}>" if ptr_attr else ""
    tv_attr = f", #cuda_tile.ptr_attr<{ptr_attr}>" if ptr_attr else ""
    rank = len(tile.split("x"))
    tv = f"tensor_view<{shape}x{element}, strides=[{strides}]{tv_attr}>"
    pointer = f"tile<ptr<{element}{attr}>>"
    base_type = f"{pointer} -> " if ptr_attr else ""
    extents = ", ".join(shape.split("x"))
    if view == "partition_view":
        view_type = f"partition_view<tile=({tile}), {tv}>"
        make = f"%view = make_partition_view %tv : {view_type}"
    else:
        ones = ",".join(["1"] * rank)
        view_type = f"strided_view<tile=({tile}), traversal_strides=[{ones}], {tv}>"
        make = f"%view = make_strided_view %tv : {view_type}"
    indices = ", ".join(["%c"] * rank)
    body = body.replace("VIEW", view_type).replace("IDX", indices)
    body = body.replace("TILE", f"tile<{tile}x{element}>")
    return (f"cuda_tile.module @m {{\n  entry @k(%p: {pointer}) {{\n"
            f"    %tv = make_tensor_view %p, shape = [{extents}], strides = [{strides}] : "
            f"{base_type}{tv}\n"
            f"    {make}\n"
            f"    %c = constant <i32: 0> : tile<i32>\n"
            f"    %v = constant <{element}: {'0' if element.startswith('i') else '0.0'}> : "
            f"tile<{tile}x{element}>\n"
            f"    %tok = make_token : token\n"
            f"    {body}\n    return\n  }}\n}}\n")


def _load_reduce(order: str = "weak", reduction: str = "add", inbounds: str = "") -> str:
    attrs = "" if reduction == "add" else \
        f" attributes {{reduction = #cuda_tile.multimem_reduction_kind<{reduction}>}}"
    tail = f" inbounds = {inbounds}" if inbounds else ""
    return (f"%r, %t = multimem_load_reduce_view_tko {order} %view[IDX]{tail}{attrs} : VIEW, "
            f"tile<i32> -> TILE, token")


def _reduce(order: str = "relaxed device", reduction: str = "add") -> str:
    attrs = "" if reduction == "add" else \
        f" attributes {{reduction = #cuda_tile.multimem_reduction_kind<{reduction}>}}"
    return (f"%t = multimem_reduce_view_tko {order} %view, %v[IDX]{attrs} : VIEW, TILE, "
            f"tile<i32> -> token")


def _store(order: str = "weak") -> str:
    return f"%t = multimem_store_view_tko {order} %view, %v[IDX] : VIEW, TILE, tile<i32> -> token"


LR = "'cuda_tile.multimem_load_reduce_view_tko' op "
RD = "'cuda_tile.multimem_reduce_view_tko' op "
ST = "'cuda_tile.multimem_store_view_tko' op "


@pytest.mark.parametrize("text", [
    _kernel(_load_reduce()),
    _kernel(_load_reduce("relaxed tl_blk")),
    _kernel(_load_reduce("acquire device")),
    _kernel(_reduce()),
    _kernel(_reduce("release sys")),
    _kernel(_store()),
    _kernel(_store("relaxed sys")),
    _kernel(_store("release device")),
    _kernel(_load_reduce(reduction="min"), element="f16"),
    _kernel(_load_reduce(reduction="max"), element="bf16"),
    _kernel(_load_reduce(), element="i64"),
    _kernel(_reduce(reduction="umax"), element="i32"),
    _kernel(_load_reduce(), element="f64"),
    _kernel(_load_reduce(), element="f16", tile="2"),
    _kernel(_load_reduce(), element="f16", tile="2x2", shape="8x8", strides="1,8"),
    _kernel(_load_reduce(), element="f32", tile="2x2", shape="8x8", strides="8,2"),
])
def test_valid_multimem_accesses(diagnose, text: str) -> None:
    assert diagnose(text) == []


@pytest.mark.parametrize("text, message", [
    (_kernel(_load_reduce(), ptr_attr=None), LR + "expected a multicast pointer, but got none"),
    (_kernel(_load_reduce(), ptr_attr="none"), LR + "expected a multicast pointer, but got none"),
    (_kernel(_load_reduce(), ptr_attr="unicast"),
     LR + "expected a multicast pointer, but got unicast"),
    (_kernel(_reduce(), ptr_attr=None), RD + "expected a multicast pointer, but got none"),
    (_kernel(_store(), ptr_attr="unicast"), ST + "expected a multicast pointer, but got unicast"),
    (_kernel(_load_reduce(), view="strided_view"),
     LR + "multimem view operations support only partition_view; got "
          "'!cuda_tile.strided_view<tile=(16), traversal_strides=[1], tensor_view<64xf32, "
          "strides=[1], #cuda_tile.ptr_attr<multicast>>>'"),
    (_kernel(_load_reduce(), element="i8"),
     LR + "multimem requires 32- or 64-bit integer/index element types; got 8 bits"),
    (_kernel(_load_reduce(), element="i16"),
     LR + "multimem requires 32- or 64-bit integer/index element types; got 16 bits"),
    (_kernel(_store(), element="i8"),
     ST + "multimem requires 32- or 64-bit integer/index element types; got 8 bits"),
    (_kernel(_load_reduce(), element="f8E4M3FN"),
     LR + "multimem supports only f16, bf16, f32, and f64 floating-point element types"),
    (_kernel(_load_reduce(reduction="min")),
     LR + "min/max supports f16 and bf16 float types only; got 'f32'"),
    (_kernel(_load_reduce(reduction="and"), element="f16"),
     LR + "and/or/xor/umin/umax reductions require integer element types"),
    (_kernel(_load_reduce(reduction="umin"), element="f16"),
     LR + "and/or/xor/umin/umax reductions require integer element types"),
    (_kernel(_reduce(reduction="min"), element="f16"),
     RD + "supports only add for floating-point element types"),
    (_kernel(_reduce(reduction="or")),
     RD + "and/or/xor/umin/umax reductions require integer element types"),
    (_kernel(_load_reduce(), element="f16", tile="1"),
     LR + "multimem op requires tile total size to be a multiple of 4 bytes for float element "
          "types; got 1 element(s) of 16 bits (total 16 bits)"),
    (_kernel(_load_reduce(), element="f16", tile="2x2", shape="8x8", strides="8,2"),
     LR + "f16/bf16 multimem views must have exactly one element stride statically known to "
          "equal 1; got 0"),
    (_kernel(_load_reduce(), element="f16", tile="2x2", shape="8x8", strides="1,1"),
     LR + "f16/bf16 multimem views must have exactly one element stride statically known to "
          "equal 1; got 2"),
    (_kernel(_reduce("weak device")),
     RD + "memory ordering semantics must be one of: relaxed, release"),
    (_kernel(_reduce("acquire sys")),
     RD + "memory ordering semantics must be one of: relaxed, release"),
    (_kernel(_store("acquire sys")), ST + "expect one of: weak, relaxed, or release, but got: "
                                          "acquire"),
    (_kernel(_load_reduce("release sys")),
     LR + "expect one of: weak, relaxed, or acquire, but got: release"),
    (_kernel(_load_reduce("relaxed")), LR + "memory scope is required for relaxed load"),
    (_kernel(_load_reduce(inbounds="[true, false]")),
     LR + "inbounds size (2) must match the number of index dimensions (1)"),
    # The order NVIDIA's verifier reports several failures in.
    (_kernel(_load_reduce(), element="i8", ptr_attr=None),
     LR + "multimem requires 32- or 64-bit integer/index element types; got 8 bits"),
    (_kernel(_load_reduce(reduction="min"), ptr_attr=None),
     LR + "min/max supports f16 and bf16 float types only; got 'f32'"),
    (_kernel(_load_reduce(reduction="and"), element="f16", tile="1"),
     LR + "multimem op requires tile total size to be a multiple of 4 bytes for float element "
          "types; got 1 element(s) of 16 bits (total 16 bits)"),
    (_kernel(_load_reduce(reduction="and"), element="f16", tile="2x2", shape="8x8",
             strides="8,2"),
     LR + "and/or/xor/umin/umax reductions require integer element types"),
    (_kernel(_load_reduce(), view="strided_view", ptr_attr=None),
     LR + "expected a multicast pointer, but got none"),
    (_kernel(_load_reduce(), element="f16", tile="2x2", shape="8x8", strides="8,2",
             ptr_attr=None), LR + "expected a multicast pointer, but got none"),
    (_kernel(_load_reduce("release sys", inbounds="[true, true]")),
     LR + "inbounds size (2) must match the number of index dimensions (1)"),
    (_kernel(_load_reduce("release sys"), ptr_attr=None),
     LR + "expected a multicast pointer, but got none"),
    (_kernel(_load_reduce(inbounds="[true, true]"), element="i8"),
     LR + "multimem requires 32- or 64-bit integer/index element types; got 8 bits"),
])
def test_multimem_rules(diagnose, text: str, message: str) -> None:
    assert diagnose(text) == ["error: " + message]


def test_load_reduce_tile_must_be_the_views(diagnose) -> None:
    text = _kernel(_load_reduce().replace("-> TILE", "-> tile<8xf32>"), element="i8")
    assert diagnose(text) == [
        "error: " + LR + "expected tile type to be '!cuda_tile.tile<16xi8>' (based on view "
        "type), got '!cuda_tile.tile<8xf32>'"]


@pytest.mark.parametrize("body, message", [
    ("%r, %t = load_view_tko release sys %view[%c] : VIEW, tile<i32> -> TILE, token",
     "'cuda_tile.load_view_tko' op multicast ptr_attr is not allowed"),
    ("%t = store_view_tko acquire sys %v, %view[%c] : TILE, VIEW, tile<i32> -> token",
     "'cuda_tile.store_view_tko' op multicast ptr_attr is not allowed"),
    ("%t = atomic_red_view_tko relaxed device %view[%c], addf, %v : TILE, VIEW, tile<i32> -> "
     "token", "'cuda_tile.atomic_red_view_tko' op multicast ptr_attr is not allowed"),
    ("%r, %t = load_ptr_tko release sys %p : tile<ptr<f32, <multicast>>> -> tile<f32>, token",
     "'cuda_tile.load_ptr_tko' op multicast pointer is not allowed"),
    ("%s = constant <f32: 0.0> : tile<f32>\n"
     "    %t = store_ptr_tko acquire sys %p, %s : tile<ptr<f32, <multicast>>>, tile<f32> -> token",
     "'cuda_tile.store_ptr_tko' op multicast pointer is not allowed"),
    ("%s = constant <f32: 0.0> : tile<f32>\n"
     "    %r, %t = atomic_rmw_tko weak device %p, add, %s : tile<ptr<f32, <multicast>>>, "
     "tile<f32> -> tile<f32>, token",
     "'cuda_tile.atomic_rmw_tko' op multicast pointer is not supported for atomic_rmw"),
    ("%s = constant <f32: 0.0> : tile<f32>\n"
     "    %r, %t = atomic_cas_tko weak device %p, %s, %s : tile<ptr<f32, <multicast>>>, "
     "tile<f32> -> tile<f32>, token",
     "'cuda_tile.atomic_cas_tko' op multicast pointer is not supported for atomic_cas"),
])
def test_older_ops_refuse_multicast_memory(diagnose, body: str, message: str) -> None:
    assert diagnose(_kernel(body)) == ["error: " + message]


@pytest.mark.parametrize("body", [
    "%r, %t = load_view_tko weak %view[%c] : VIEW, tile<i32> -> TILE, token",
    "%t = store_view_tko weak %v, %view[%c] : TILE, VIEW, tile<i32> -> token",
    "%r, %t = load_ptr_tko weak %p : tile<ptr<f32, <unicast>>> -> tile<f32>, token",
])
def test_unicast_memory_is_ordinary(diagnose, body: str) -> None:
    assert diagnose(_kernel(body, ptr_attr="unicast")) == []


def test_view_atomic_inbounds_size(diagnose) -> None:
    body = ("%t = atomic_red_view_tko relaxed device %view[%c], addf, %v inbounds = "
            "[true, true] : TILE, VIEW, tile<i32> -> token")
    assert diagnose(_kernel(body, ptr_attr=None)) == [
        "error: 'cuda_tile.atomic_red_view_tko' op inbounds size (2) must match the number of "
        "index dimensions (1)"]


def test_sm_107_is_a_known_architecture(diagnose) -> None:
    text = ("cuda_tile.module @m {\n  entry @k() optimization_hints=<sm_107 = "
            "{num_cta_in_cga = 2}, sm_999 = {}> {\n    return\n  }\n}\n")
    assert diagnose(text, warn_hints=True) == ["warning: unknown hint key sm_999"]
