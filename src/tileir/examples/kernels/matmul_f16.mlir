// matmul_f16: tiled C = A @ B with f16 inputs, f32 accumulation and an f16 result
// (rounded once at the end), row-major, any sizes: partial tiles are padded with zeros
// on load and clipped on store.
// Parameters: A (ptr<f16>, M, K, row stride), B (ptr<f16>, K, N, row stride),
//             C (ptr<f16>, M, N, row stride).
// Grid: (ceil(M/16), ceil(N/16)); tile block (x, y) computes the 16x16 tile C[x, y],
// accumulating 16x16 by 16x16 f16 products into an f32 tile over ceil(K/16) K steps.
cuda_tile.module @matmul_f16 {
  entry @matmul_f16(%a_ptr: tile<ptr<f16>>, %m: tile<i32>, %k: tile<i32>, %lda: tile<i32>,
                    %b_ptr: tile<ptr<f16>>, %kb: tile<i32>, %n: tile<i32>, %ldb: tile<i32>,
                    %c_ptr: tile<ptr<f16>>, %mc: tile<i32>, %nc: tile<i32>, %ldc: tile<i32>) {
    %tok = make_token : token
    %a = make_tensor_view %a_ptr, shape = [%m, %k], strides = [%lda, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %b = make_tensor_view %b_ptr, shape = [%kb, %n], strides = [%ldb, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %c = make_tensor_view %c_ptr, shape = [%mc, %nc], strides = [%ldc, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %pa = make_partition_view %a : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %b : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %c : partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>
    %steps:2 = get_index_space_shape %pa : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%c0 to %steps#1, step %c1) : tile<i32> iter_values(%sum = %zero) -> (tile<16x16xf32>) {
      %ta, %ta_tok = load_view_tko weak %pa[%bx, %kk] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %tb, %tb_tok = load_view_tko weak %pb[%kk, %by] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %next = mmaf %ta, %tb, %sum : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
      continue %next : tile<16x16xf32>
    }
    %out = ftof %acc : tile<16x16xf32> -> tile<16x16xf16>
    %done = store_view_tko weak %out, %pc[%bx, %by] token = %tok : tile<16x16xf16>, partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
