// Benchmark kernel (issue 7): tiled C = A @ B in f32 with f32 accumulation, 64x64 output
// tiles, K steps of 32 (row-major; partial tiles are zero-padded on load and clipped on
// store).
// Parameters: A (ptr<f32>, M, K, row stride), B (ptr<f32>, K, N, row stride),
//             C (ptr<f32>, M, N, row stride).
// Grid: (ceil(M/64), ceil(N/64)); tile block (x, y) computes the 64x64 tile C[x, y],
// accumulating 64x32 by 32x64 products over ceil(K/32) K steps with mmaf.
cuda_tile.module @bench_matmul {
  entry @matmul(%a_ptr: tile<ptr<f32>>, %m: tile<i32>, %k: tile<i32>, %lda: tile<i32>,
                %b_ptr: tile<ptr<f32>>, %kb: tile<i32>, %n: tile<i32>, %ldb: tile<i32>,
                %c_ptr: tile<ptr<f32>>, %mc: tile<i32>, %nc: tile<i32>, %ldc: tile<i32>) {
    %tok = make_token : token
    %a = make_tensor_view %a_ptr, shape = [%m, %k], strides = [%lda, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %b = make_tensor_view %b_ptr, shape = [%kb, %n], strides = [%ldb, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %c = make_tensor_view %c_ptr, shape = [%mc, %nc], strides = [%ldc, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %pa = make_partition_view %a : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %b : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pc = make_partition_view %c : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %steps:2 = get_index_space_shape %pa : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%c0 to %steps#1, step %c1) : tile<i32> iter_values(%sum = %zero) -> (tile<64x64xf32>) {
      %ta, %ta_tok = load_view_tko weak %pa[%bx, %kk] token = %tok : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<64x32xf32>, token
      %tb, %tb_tok = load_view_tko weak %pb[%kk, %by] token = %tok : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
      %next = mmaf %ta, %tb, %sum : tile<64x32xf32>, tile<32x64xf32>, tile<64x64xf32>
      continue %next : tile<64x64xf32>
    }
    %done = store_view_tko weak %acc, %pc[%bx, %by] token = %tok : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
