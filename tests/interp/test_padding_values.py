"""A view's padding value is the element type's own encoding of it, never a conversion's
(issue 16 §2): ftof's saturating rules made f8E4M3FN's NaN padding 448 and f8E5M2's
infinity 57344.  A padding value the type cannot hold (an infinity in f8E4M3FN, zero in
f8E8M0FNU) gives a padded element no value: the spec's verifier allows it (only integer
element types are restricted), so the kernel verifies, and the load that needs it fails
with one clear error."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tileir import ExecutionError
from tileir.interp import launch


def _kernel(t: str, padding: str) -> str:
    """Loads a 4-element tile from a 2-element tensor (elements 2 and 3 padded) into dst."""
    tv = f"tensor_view<2x{t}, strides=[1]>"
    pv = f"partition_view<tile=(4), padding_value = {padding}, {tv}>"
    dv = f"tensor_view<4x{t}, strides=[1]>"
    dp = f"partition_view<tile=(4), {dv}>"
    return f"""cuda_tile.module @m {{
  entry @k(%src: tile<ptr<{t}>>, %dst: tile<ptr<{t}>>) {{
    %tv = make_tensor_view %src, shape = [2], strides = [1] : {tv}
    %v = make_partition_view %tv : {pv}
    %i = constant <i32: 0> : tile<i32>
    %t, %tok = load_view_tko weak %v[%i] : {pv}, tile<i32> -> tile<4x{t}>, token
    %dt = make_tensor_view %dst, shape = [4], strides = [1] : {dv}
    %dp = make_partition_view %dt : {dp}
    %s = store_view_tko weak %t, %dp[%i] : tile<4x{t}>, {dp}, tile<i32> -> token
    return
  }}
}}"""


DTYPES = {"f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
          "f8E8M0FNU": ml_dtypes.float8_e8m0fnu, "f16": np.float16}


# the codes, from each format's layout (spec 5.1): f8E5M2 is IEEE-like; f8E4M3FN's only
# NaN is S.1111.111; f8E8M0FNU's 0xFF is NaN; f16's canonical NaN is all ones
@pytest.mark.parametrize("t, padding, word", [
    ("f8E5M2", "zero", 0x00), ("f8E5M2", "neg_zero", 0x80), ("f8E5M2", "nan", 0x7F),
    ("f8E5M2", "pos_inf", 0x7C), ("f8E5M2", "neg_inf", 0xFC),
    ("f8E4M3FN", "zero", 0x00), ("f8E4M3FN", "neg_zero", 0x80), ("f8E4M3FN", "nan", 0x7F),
    ("f8E8M0FNU", "nan", 0xFF),
    ("f16", "nan", 0x7FFF), ("f16", "pos_inf", 0x7C00), ("f16", "neg_inf", 0xFC00),
    ("f16", "neg_zero", 0x8000)])
def test_padding_is_the_types_own_code(t, padding, word):
    dtype = DTYPES[t]
    src = np.array([1.0, 2.0], dtype)
    dst = np.zeros(4, dtype)
    launch(_kernel(t, padding), None, 1, [src, dst])
    words = dst.view(np.uint8 if dst.itemsize == 1 else np.uint16).tolist()
    assert words[2:] == [word, word]
    assert dst[:2].astype(np.float32).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("t, padding, what", [
    ("f8E4M3FN", "pos_inf", "pos_inf"), ("f8E4M3FN", "neg_inf", "neg_inf"),
    ("f8E8M0FNU", "zero", "zero"), ("f8E8M0FNU", "neg_zero", "neg_zero"),
    ("f8E8M0FNU", "pos_inf", "pos_inf")])
def test_a_padding_value_the_type_cannot_hold_is_an_error_when_needed(t, padding, what):
    dtype = DTYPES[t]
    src, dst = np.array([1.0, 2.0], dtype), np.zeros(4, dtype)
    with pytest.raises(ExecutionError) as caught:
        launch(_kernel(t, padding), None, 1, [src, dst])
    assert caught.value.diagnostics[0].message == (
        f"'cuda_tile.load_view_tko' op pads an element past the tensor's edge with {what}, "
        f"which {t} cannot hold: the element has no value (tile block (0, 0, 0))")
    assert not dst.view(np.uint8).any()
    # a tile wholly inside the tensor needs no padding: it loads
    whole = _kernel(t, padding).replace("tensor_view<2x", "tensor_view<4x") \
        .replace("shape = [2]", "shape = [4]")
    src4 = np.array([1.0, 2.0, 4.0, 8.0], dtype)
    launch(whole, None, 1, [src4, dst])
    assert dst.astype(np.float32).tolist() == [1.0, 2.0, 4.0, 8.0]
