"""Verifiers of views, memory and atomics ops, and the view types' own rules.

Every expected message is the reference's (CudaTile.cpp, SharedVerifiers.h, Types.cpp),
built from the rule it states, with the exact values the case gives it.
"""

from __future__ import annotations

import pytest

from tileir.types import F32, TensorViewType

PV = "partition_view<tile=(4x8), tensor_view<64x64xf32, strides=[64,1]>>"
SV = "strided_view<tile=(4x8), traversal_strides=[2,4], tensor_view<64x64xf32, strides=[64,1]>>"


def kernel(args: str, body: str) -> str:
    """`body` inside a testing function taking `args`, inside a module."""
    return (f"cuda_tile.module @m {{\n  cuda_tile.testing$func @f({args}) {{\n{body}\n"
            "  }\n}\n")


def error(message: str) -> list[str]:
    """The single error line a case must produce."""
    return [f"error: {message}"]


# ---- make_tensor_view --------------------------------------------------

BASE = "%base: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %n: !cuda_tile.tile<i64>, " \
       "%m: !cuda_tile.tile<i32>"
OP_MTV = "'cuda_tile.make_tensor_view' op "


def _mtv(operands: str, segments: str, types: str, view: str) -> str:
    return kernel(BASE, f'    "cuda_tile.make_tensor_view"({operands}) <{{operandSegmentSizes = '
                        f'array<i32: {segments}>}}> : ({types}) -> !cuda_tile.{view}')


PTR = "!cuda_tile.tile<!cuda_tile.ptr<f32>>"


@pytest.mark.parametrize("operands, segments, types, view, message", [
    ("%base", "1, 0, 0", PTR, "tensor_view<f64>",
     "expected pointer to 'f64' to build tensor_view of this type, got 'f32'"),
    ("%base, %n", "1, 1, 0", f"{PTR}, !cuda_tile.tile<i64>", "tensor_view<8xf32, strides=[1]>",
     "expected 0 dynamic shape operands, got 1"),
    ("%base", "1, 0, 0", PTR, "tensor_view<?x8xf32, strides=[?,1]>",
     "expected 1 dynamic shape operands, got 0"),
    ("%base, %n", "1, 1, 0", f"{PTR}, !cuda_tile.tile<i64>",
     "tensor_view<?x8xf32, strides=[?,1]>", "expected 1 dynamic stride operands, got 0"),
    ("%base, %n, %m", "1, 2, 0", f"{PTR}, !cuda_tile.tile<i64>, !cuda_tile.tile<i32>",
     "tensor_view<?x?xf32, strides=[8,1]>",
     "expected dynamic shape index 1 to be of the same type as the other dynamic values "
     "('!cuda_tile.tile<i64>'), got '!cuda_tile.tile<i32>'"),
    ("%base, %n, %m", "1, 1, 1", f"{PTR}, !cuda_tile.tile<i64>, !cuda_tile.tile<i32>",
     "tensor_view<?x8xf32, strides=[?,1]>",
     "expected dynamic stride index 0 to be of the same type as the other dynamic values "
     "('!cuda_tile.tile<i64>'), got '!cuda_tile.tile<i32>'"),
])
def test_make_tensor_view_rules(diagnose, operands, segments, types, view, message) -> None:
    assert diagnose(_mtv(operands, segments, types, view)) == error(OP_MTV + message)


def test_make_tensor_view_valid(diagnose) -> None:
    text = _mtv("%base, %n, %n", "1, 1, 1", f"{PTR}, !cuda_tile.tile<i64>, !cuda_tile.tile<i64>",
                "tensor_view<?x8xf32, strides=[?,1]>")
    assert diagnose(text) == []


# ---- make_*_view --------------------------------------------------

TV = "!cuda_tile.tensor_view<64x64xf32, strides=[64,1]>"
OTHER_TV = "!cuda_tile.tensor_view<64x32xf32, strides=[32,1]>"


@pytest.mark.parametrize("name, view", [
    ("make_partition_view", "partition_view<tile=(4x8), tensor_view<64x32xf32, strides=[32,1]>>"),
    ("make_strided_view", "strided_view<tile=(4x8), traversal_strides=[4,8], "
                          "tensor_view<64x32xf32, strides=[32,1]>>"),
    ("make_gather_scatter_view", "gather_scatter_view<tile=(4x8), tensor_view<64x32xf32, "
                                 "strides=[32,1]>, sparse_dim=0>"),
])
def test_make_view_tensor_view_mismatch(diagnose, name, view) -> None:
    text = kernel(f"%tv: {TV}",
                  f'    "cuda_tile.{name}"(%tv) : ({TV}) -> !cuda_tile.{view}')
    assert diagnose(text) == error(
        f"'cuda_tile.{name}' op expected the type of the provided tensor_view value ('{TV}') "
        f"to be the same as the view's tensor_view type ('{OTHER_TV}')")


# ---- shape queries --------------------------------------------------


def test_get_tensor_shape_result_count(diagnose) -> None:
    text = kernel(f"%tv: {TV}", f'    %0:3 = "cuda_tile.get_tensor_shape"(%tv) : ({TV}) -> '
                                "(!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, "
                                "!cuda_tile.tile<i32>)")
    assert diagnose(text) == error(
        "'cuda_tile.get_tensor_shape' op expected 2 results due to tensor rank, but got 3")


def test_get_index_space_shape_result_count(diagnose) -> None:
    text = kernel(f"%v: !cuda_tile.{PV}", f'    %0 = "cuda_tile.get_index_space_shape"(%v) : '
                                          f"(!cuda_tile.{PV}) -> (!cuda_tile.tile<i64>)")
    assert diagnose(text) == error("'cuda_tile.get_index_space_shape' op expected 2 results "
                                   "due to view index space rank, but got 1")


def test_shape_queries_valid(diagnose) -> None:
    text = kernel(f"%tv: {TV}, %v: !cuda_tile.{PV}",
                  f"    %0:2 = cuda_tile.get_tensor_shape %tv : {TV} -> tile<i32>\n"
                  f"    %1:2 = cuda_tile.get_index_space_shape %v : {PV} -> tile<i64>")
    assert diagnose(text) == []


# ---- view loads and stores --------------------------------------------------

C0 = ("    %c0 = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>\n"
      "    %c1 = cuda_tile.constant <i64: 0> : !cuda_tile.tile<i64>\n")
LOAD = "'cuda_tile.load_view_tko' op "
STORE = "'cuda_tile.store_view_tko' op "


def _generic_load(view: str, indices: str, index_types: str, count: int, order: int = 0,
                  result: str = "tile<4x8xf32>") -> str:
    return kernel(f"%v: !cuda_tile.{view}", C0 + (
        f'    %x, %t = "cuda_tile.load_view_tko"(%v{indices}) <{{memory_ordering_semantics = '
        f"{order} : i32, operandSegmentSizes = array<i32: 1, {count}, 0>}}> : "
        f"(!cuda_tile.{view}{index_types}) -> (!cuda_tile.{result}, !cuda_tile.token)"))


@pytest.mark.parametrize("view", [PV, SV])
def test_load_view_index_count(diagnose, view) -> None:
    text = _generic_load(view, ", %c0", ", !cuda_tile.tile<i32>", 1)
    assert diagnose(text) == error(LOAD + "expected 2 index operands (based on view type), "
                                          "got 1")


@pytest.mark.parametrize("view", [PV, SV])
def test_load_view_tile_type(diagnose, view) -> None:
    text = _generic_load(view, ", %c0, %c0", ", !cuda_tile.tile<i32>, !cuda_tile.tile<i32>", 2,
                         result="tile<8x4xf32>")
    assert diagnose(text) == error(
        LOAD + "expected tile type to be '!cuda_tile.tile<4x8xf32>' (based on view type), got "
               "'!cuda_tile.tile<8x4xf32>'")


@pytest.mark.parametrize("view", [PV, SV])
def test_load_view_index_types_differ(diagnose, view) -> None:
    text = _generic_load(view, ", %c0, %c1", ", !cuda_tile.tile<i32>, !cuda_tile.tile<i64>", 2)
    assert diagnose(text) == error(
        LOAD + "expected index type 1 to be the same as other index types "
               "('!cuda_tile.tile<i32>'), got '!cuda_tile.tile<i64>'")


def _load(order: str) -> str:
    return kernel(f"%v: !cuda_tile.{PV}", C0 + f"    %x, %t = load_view_tko {order} %v[%c0, %c0] "
                                               f": {PV}, tile<i32> -> tile<4x8xf32>, token")


def _store(order: str) -> str:
    return kernel(f"%v: !cuda_tile.{PV}, %x: !cuda_tile.tile<4x8xf32>",
                  C0 + f"    %t = store_view_tko {order} %x, %v[%c0, %c0] "
                       f": tile<4x8xf32>, {PV}, tile<i32> -> token")


@pytest.mark.parametrize("order, message", [
    ("release device", "expect one of: weak, relaxed, or acquire, but got: release"),
    ("acq_rel device", "expect one of: weak, relaxed, or acquire, but got: acq_rel"),
    ("relaxed", "memory scope is required for relaxed load"),
    ("acquire", "memory scope is required for acquire load"),
])
def test_load_view_memory_model(diagnose, order, message) -> None:
    assert diagnose(_load(order)) == error(LOAD + message)


@pytest.mark.parametrize("order, message", [
    ("acquire device", "expect one of: weak, relaxed, or release, but got: acquire"),
    ("relaxed", "memory scope is required for relaxed store"),
    ("release", "memory scope is required for release store"),
])
def test_store_view_memory_model(diagnose, order, message) -> None:
    assert diagnose(_store(order)) == error(STORE + message)


def test_view_weak_access_with_scope(diagnose) -> None:
    """The custom syntax rejects a weak access with a scope while parsing; the generic
    form reaches the verifier's own rule."""
    load = _generic_load(PV, ", %c0, %c0", ", !cuda_tile.tile<i32>, !cuda_tile.tile<i32>", 2)
    load = load.replace("0 : i32, operand", "0 : i32, memory_scope = 1 : i32, operand")
    assert diagnose(load) == error(LOAD + "weak load must not have memory scope")
    store = kernel(f"%v: !cuda_tile.{PV}, %x: !cuda_tile.tile<4x8xf32>", C0 + (
        f'    %t = "cuda_tile.store_view_tko"(%x, %v, %c0, %c0) <{{memory_ordering_semantics = '
        f"0 : i32, memory_scope = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 0>}}> : "
        f"(!cuda_tile.tile<4x8xf32>, !cuda_tile.{PV}, !cuda_tile.tile<i32>, "
        "!cuda_tile.tile<i32>) -> !cuda_tile.token"))
    assert diagnose(store) == error(STORE + "weak store must not have memory scope")


@pytest.mark.parametrize("order", ["weak", "relaxed device", "acquire sys"])
def test_load_view_valid(diagnose, order) -> None:
    assert diagnose(_load(order)) == []


@pytest.mark.parametrize("order", ["weak", "relaxed tl_blk", "release device"])
def test_store_view_valid(diagnose, order) -> None:
    assert diagnose(_store(order)) == []


def test_store_view_index_count(diagnose) -> None:
    text = kernel(f"%v: !cuda_tile.{PV}, %x: !cuda_tile.tile<4x8xf32>", C0 + (
        f'    %t = "cuda_tile.store_view_tko"(%x, %v, %c0) <{{memory_ordering_semantics = 0 : '
        f"i32, operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> : (!cuda_tile.tile<4x8xf32>, "
        f"!cuda_tile.{PV}, !cuda_tile.tile<i32>) -> !cuda_tile.token"))
    assert diagnose(text) == error(STORE + "expected 2 index operands (based on view type), "
                                           "got 1")


# ---- pointer loads and stores --------------------------------------------------

LPTR = "'cuda_tile.load_ptr_tko' op "
SPTR = "'cuda_tile.store_ptr_tko' op "
PTRS = "%p: !cuda_tile.tile<4x!cuda_tile.ptr<f32>>"


@pytest.mark.parametrize("extra, types, result, message", [
    ("", "", "tile<4xf16>", "`source` type is expected a pointer type of `result` type"),
    ("", "", "tile<8xf32>", "`source` type is expected a pointer type of `result` type"),
    (", %m8", ", tile<8xi1>", "tile<4xf32>", "shape of 'mask' must match the shape of 'source'"),
    (", %m4, %pad", ", tile<4xi1>, tile<4xf16>", "tile<4xf32>",
     "type of 'paddingValue' must match the type of 'result'"),
])
def test_load_ptr_type_relations(diagnose, extra, types, result, message) -> None:
    text = kernel(PTRS + ", %m8: !cuda_tile.tile<8xi1>, %m4: !cuda_tile.tile<4xi1>, "
                         "%pad: !cuda_tile.tile<4xf16>",
                  f"    %x, %t = load_ptr_tko weak %p{extra} : tile<4xptr<f32>>{types} -> "
                  f"{result}, token")
    assert diagnose(text) == error(LPTR + "failed to verify that " + message)


@pytest.mark.parametrize("value, mask, message", [
    ("%v16", "", "`destination` type is expected a pointer type of `value` type"),
    ("%v", ", %m8", "shape of 'destination' must match the shape of 'mask'"),
])
def test_store_ptr_type_relations(diagnose, value, mask, message) -> None:
    value_type = "tile<4xf16>" if value == "%v16" else "tile<4xf32>"
    mask_type = ", tile<8xi1>" if mask else ""
    text = kernel(PTRS + ", %v: !cuda_tile.tile<4xf32>, %v16: !cuda_tile.tile<4xf16>, "
                         "%m8: !cuda_tile.tile<8xi1>",
                  f"    %t = store_ptr_tko weak %p, {value}{mask} : tile<4xptr<f32>>, "
                  f"{value_type}{mask_type} -> token")
    assert diagnose(text) == error(SPTR + "failed to verify that " + message)


def test_pointer_memory_model(diagnose) -> None:
    load = kernel(PTRS, "    %x, %t = load_ptr_tko release device %p : tile<4xptr<f32>> -> "
                        "tile<4xf32>, token")
    store = kernel(PTRS + ", %v: !cuda_tile.tile<4xf32>",
                   "    %t = store_ptr_tko relaxed %p, %v : tile<4xptr<f32>>, tile<4xf32> -> "
                   "token")
    assert diagnose(load) == error(LPTR + "expect one of: weak, relaxed, or acquire, but got: "
                                          "release")
    assert diagnose(store) == error(SPTR + "memory scope is required for relaxed store")


def test_pointer_load_store_valid(diagnose) -> None:
    text = kernel(PTRS + ", %m: !cuda_tile.tile<4xi1>, %pad: !cuda_tile.tile<4xf32>",
                  "    %x, %t = load_ptr_tko acquire device %p, %m, %pad : tile<4xptr<f32>>, "
                  "tile<4xi1>, tile<4xf32> -> tile<4xf32>, token\n"
                  "    %t2 = store_ptr_tko weak %p, %x, %m : tile<4xptr<f32>>, tile<4xf32>, "
                  "tile<4xi1> -> token")
    assert diagnose(text) == []


# ---- tokens and alloca --------------------------------------------------


def test_join_tokens_needs_two(diagnose) -> None:
    text = kernel("", "    %t = make_token : token\n    %j = join_tokens %t : token")
    assert diagnose(text) == error("'cuda_tile.join_tokens' op expect two or more tokens")


def _alloca(alignment: int, element: str) -> str:
    return ("cuda_tile.module @m {\n  cuda_tile.entry @f() {\n"
            f"    %0 = alloca num_elem = 8, alignment = {alignment} : tile<ptr<{element}>>\n"
            "    cuda_tile.return\n  }\n}\n")


@pytest.mark.parametrize("alignment, element, message", [
    (3, "f32", "'alignment' must be power of two"),
    (0, "i8", "'alignment' must be power of two"),
    (2, "f32", "'alignment' (2) must be at least the natural size (4 bytes) for element type "
               "'f32'"),
    (4, "f64", "'alignment' (4) must be at least the natural size (8 bytes) for element type "
               "'f64'"),
    (1, "tf32", "'alignment' (1) must be at least the natural size (2 bytes) for element type "
                "'tf32'"),
])
def test_alloca_alignment(diagnose, alignment, element, message) -> None:
    assert diagnose(_alloca(alignment, element)) == error("'cuda_tile.alloca' op " + message)


@pytest.mark.parametrize("alignment, element", [(1, "i1"), (2, "tf32"), (1, "f8E4M3FN"),
                                                (16, "f32")])
def test_alloca_valid(diagnose, alignment, element) -> None:
    assert diagnose(_alloca(alignment, element)) == []


# ---- atomic_rmw_tko and atomic_cas_tko --------------------------------------------------

RMW = "'cuda_tile.atomic_rmw_tko' op "
CAS = "'cuda_tile.atomic_cas_tko' op "


def _rmw(order: str, mode: str, element: str, pointee: str | None = None,
         mask: str = "") -> str:
    pointee = pointee or element
    mask_operand, mask_type = (", %m", f", tile<{mask}xi1>") if mask else ("", "")
    return kernel(f"%p: !cuda_tile.tile<4x!cuda_tile.ptr<{pointee}>>, "
                  f"%a: !cuda_tile.tile<4x{element}>, %m: !cuda_tile.tile<{mask or 4}xi1>",
                  f"    %r, %t = atomic_rmw_tko {order} %p, {mode}, %a{mask_operand} : "
                  f"tile<4xptr<{pointee}>>, tile<4x{element}>{mask_type} -> tile<4x{element}>, "
                  "token")


@pytest.mark.parametrize("mode, element, message", [
    ("add", "f32", "'add' works only with integers i32 and i64"),
    ("umin", "i16", "'umin' works only with integers i32 and i64"),
    ("and", "i8", "'and' works only with integers i32 and i64"),
    ("addf", "i32", "'addf' works only with floats f16, bf16, f32, and f64"),
    ("addf", "tf32", "'addf' works only with floats f16, bf16, f32, and f64"),
    ("xchg", "i16", "'xchg' works only with integers or float of 32 or 64 bitwidth"),
    ("xchg", "tf32", "'xchg' works only with integers or float of 32 or 64 bitwidth"),
])
def test_atomic_rmw_mode_element_types(diagnose, mode, element, message) -> None:
    assert diagnose(_rmw("relaxed device", mode, element)) == error(RMW + message)


def test_atomic_rmw_pointee_and_mask(diagnose) -> None:
    assert diagnose(_rmw("relaxed device", "add", "i32", pointee="f32")) == error(
        RMW + "expected pointee type ('f32') to match element type of 'arg' ('i32')")
    assert diagnose(_rmw("relaxed device", "add", "i32", mask="8")) == error(
        RMW + "failed to verify that all of {pointers, arg, mask} have same shape")


def test_atomic_rmw_ordering(diagnose) -> None:
    assert diagnose(_rmw("weak device", "add", "i32")) == error(
        RMW + "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel")


@pytest.mark.parametrize("order, mode, element", [
    ("relaxed device", "add", "i64"), ("acq_rel sys", "addf", "bf16"),
    ("acquire tl_blk", "xchg", "f64"), ("release device", "umax", "i32"),
])
def test_atomic_rmw_valid(diagnose, order, mode, element) -> None:
    assert diagnose(_rmw(order, mode, element)) == []


def _cas(order: str, element: str, pointee: str | None = None, mask: str = "") -> str:
    pointee = pointee or element
    mask_operand, mask_type = (", %m", f", tile<{mask}xi1>") if mask else ("", "")
    return kernel(f"%p: !cuda_tile.tile<4x!cuda_tile.ptr<{pointee}>>, "
                  f"%c: !cuda_tile.tile<4x{element}>, %m: !cuda_tile.tile<{mask or 4}xi1>",
                  f"    %r, %t = atomic_cas_tko {order} %p, %c, %c{mask_operand} : "
                  f"tile<4xptr<{pointee}>>, tile<4x{element}>{mask_type} -> tile<4x{element}>, "
                  "token")


def test_atomic_cas_rules(diagnose) -> None:
    assert diagnose(_cas("relaxed device", "i32", pointee="f32")) == error(
        CAS + "expected pointee type ('f32') to match element type of 'val' ('i32')")
    for element in ("i16", "f16", "tf32"):
        assert diagnose(_cas("relaxed device", element)) == error(
            CAS + "expect only float or integer types with 32 or 64 bit")
    assert diagnose(_cas("relaxed device", "i32", mask="8")) == error(
        CAS + "failed to verify that all of {pointers, val, cmp and mask} have same shape")
    assert diagnose(_cas("weak device", "i32")) == error(
        CAS + "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel")


def test_atomic_cas_valid(diagnose) -> None:
    assert diagnose(_cas("acq_rel device", "f32", mask="4")) == []


# ---- atomic_red_view_tko --------------------------------------------------

RED = "'cuda_tile.atomic_red_view_tko' op "
RED_PV = "partition_view<tile=(2x2), tensor_view<8x8xi32, strides=[8,1]>>"


def _red(view: str, mode: str = "add", value: str = "2x2xi32", order: str = "relaxed device",
         indices: str = "%c0, %c0") -> str:
    return kernel(f"%v: !cuda_tile.{view}, %x: !cuda_tile.tile<{value}>",
                  "    %c0 = constant <i32: 0> : !cuda_tile.tile<i32>\n"
                  f"    %t = atomic_red_view_tko {order} %v[{indices}], {mode}, %x : "
                  f"tile<{value}>, {view}, tile<i32> -> token")


@pytest.mark.parametrize("text, message", [
    (_red("gather_scatter_view<tile=(2x2), tensor_view<8x8xi32, strides=[8,1]>, sparse_dim=0>"),
     "gather_scatter_view is not supported; use partition_view instead"),
    (_red("partition_view<tile=(2x2), padding_value = zero, tensor_view<8x8xi32, "
          "strides=[8,1]>>"),
     "views with padding_value are not supported for atomic reductions"),
    (_red("strided_view<tile=(2x2), traversal_strides=[2,2], padding_value = zero, "
          "tensor_view<8x8xi32, strides=[8,1]>>"),
     "views with padding_value are not supported for atomic reductions"),
    (_red(RED_PV, mode="addf", value="2x2xf32"),
     "view element type ('i32') must match value element type ('f32')"),
    (_red(RED_PV, value="4x2xi32"),
     "view tile shape 2, 2 must match value shape 4, 2 for element-wise atomic operations"),
    (_red(RED_PV, mode="xchg"), "atomic_red_view_tko op cannot use xchg operation"),
    (_red(RED_PV, mode="addf"), "'addf' works only with floats f16, bf16, f32, and f64"),
    (_red(RED_PV, order="acquire device"),
     "only 'relaxed' memory ordering is supported for view-based atomic reductions"),
    (_red(RED_PV, order="relaxed sys"),
     "memory scope 'sys' is not supported for view-based atomic reductions; use 'tl_blk' or "
     "'device' for TMA compatibility"),
    (_red(RED_PV, indices="%c0"),
     "expected 2 index operand(s) for view with tile rank 2, got 1"),
])
def test_atomic_red_view_rules(diagnose, text, message) -> None:
    assert diagnose(text) == error(RED + message)


def test_atomic_red_view_valid(diagnose) -> None:
    assert diagnose(_red(RED_PV, mode="umax", order="relaxed tl_blk")) == []


# ---- the view types' own rules (checked when the type is parsed) -------------------------


def _type(spelling: str) -> str:
    return f'%0 = "use_type"() : () -> !cuda_tile.{spelling}\n'


@pytest.mark.parametrize("spelling, message", [
    ("tensor_view<8x8xf32, strides=[1]>", "expected shape and stride to be of same rank but "
                                          "got shape of rank 2 and stride of rank 1"),
    ("tensor_view<8x0xf32, strides=[8,1]>", "dimensions must have strictly positive constant "
                                            "sizes but got [8, 0]"),
    ("partition_view<tile=(4), tensor_view<8x8xf32, strides=[8,1]>>",
     "expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles "
     "of rank 1"),
    ("partition_view<tile=(4x3), tensor_view<8x8xf32, strides=[8,1]>>",
     "tile shape dimensions must have power of two length but got [4, 3]"),
    ("partition_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, dim_map=[0, 0]>",
     "target dimension 0 mapped at least twice (for tile dimensions 0 and 1)"),
    ("partition_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, dim_map=[1, 2]>",
     "target dimension is outside of tensor view dimensions, expected strictly less than 2, "
     "got 2"),
    ("partition_view<tile=(4x4), padding_value = nan, tensor_view<8x8xi32, strides=[8,1]>>",
     "padding_value nan can only be used with floating point element types, got 'i32'"),
    ("strided_view<tile=(4x4), traversal_strides=[4], tensor_view<8x8xf32, strides=[8,1]>>",
     "expected 2 traversal strides, got 1"),
    ("strided_view<tile=(4x4), traversal_strides=[4,0], tensor_view<8x8xf32, strides=[8,1]>>",
     "traversal strides must be strictly positive but got [4, 0]"),
    ("gather_scatter_view<tile=(4x4), tensor_view<8x8xf32, strides=[8,1]>, sparse_dim=2>",
     "gather dimension is outside of tensor view dimensions, expected strictly less than 2, "
     "got 2"),
    ("gather_scatter_view<tile=(4x4), padding_value = neg_inf, tensor_view<8x8xi8, "
     "strides=[8,1]>, sparse_dim=0>",
     "padding_value neg_inf can only be used with floating point element types, got 'i8'"),
])
def test_view_type_rules(diagnose, spelling, message) -> None:
    assert diagnose(_type(spelling)) == error(message)


def test_tensor_view_stride_rule() -> None:
    """Strides of 0 cannot be spelled (the parser wants positive integers), so the type's
    own rule is checked on a built type."""
    view = TensorViewType(F32, (8, None), (0, None))
    assert view.first_error() == ("dimensions must have strictly positive constant strides "
                                  "but got [0, ?]")


@pytest.mark.parametrize("spelling", [
    "partition_view<tile=(4x4), padding_value = zero, tensor_view<8x8xi32, strides=[8,1]>>",
    "partition_view<tile=(2x4), tensor_view<8x?xf32, strides=[?,1]>, dim_map=[1, 0]>",
    "strided_view<tile=(4x4), traversal_strides=[1,3], tensor_view<8x8xf32, strides=[8,1]>>",
    "gather_scatter_view<tile=(4x4), padding_value = nan, tensor_view<8x8xf16, strides=[8,1]>, "
    "sparse_dim=1>",
])
def test_view_types_valid(diagnose, spelling) -> None:
    assert diagnose(_type(spelling)) == []
