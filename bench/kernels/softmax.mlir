// Benchmark kernel (issue 7): row softmax Y[i, :] = exp(X[i, :] - max X[i, :]) /
// sum exp(X[i, :] - max X[i, :]), f32, one row per tile block.
// Parameters: X (ptr<f32>, M, N, row stride), Y (ptr<f32>, M, N, row stride);
// 1 <= N <= 1024.  Grid: M; tile block i loads row i as one 1x1024 tile (lanes past N
// padded with -inf, which add exp(-inf) = 0 to the sum) and stores its N lanes.
cuda_tile.module @bench_softmax {
  entry @softmax(%x_ptr: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %ldx: tile<i32>,
                 %y_ptr: tile<ptr<f32>>, %my: tile<i32>, %ny: tile<i32>, %ldy: tile<i32>) {
    %tok = make_token : token
    %x = make_tensor_view %x_ptr, shape = [%m, %n], strides = [%ldx, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %y = make_tensor_view %y_ptr, shape = [%my, %ny], strides = [%ldy, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %px = make_partition_view %x : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>
    %py = make_partition_view %y : partition_view<tile=(1x1024), tensor_view<?x?xf32, strides=[?,1]>>
    %row, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %v, %vtok = load_view_tko weak %px[%row, %c0] token = %tok : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x1024xf32>, token
    %max = reduce %v dim=1 identities=[0xFF800000 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%e: tile<f32>, %a: tile<f32>) {
        %r = maxf %e, %a : tile<f32>
        yield %r : tile<f32>
      }
    %max2 = reshape %max : tile<1xf32> -> tile<1x1xf32>
    %maxb = broadcast %max2 : tile<1x1xf32> -> tile<1x1024xf32>
    %shifted = subf %v, %maxb : tile<1x1024xf32>
    %p = exp %shifted : tile<1x1024xf32>
    %sum = reduce %p dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%e: tile<f32>, %a: tile<f32>) {
        %r = addf %e, %a : tile<f32>
        yield %r : tile<f32>
      }
    %sum2 = reshape %sum : tile<1xf32> -> tile<1x1xf32>
    %sumb = broadcast %sum2 : tile<1x1xf32> -> tile<1x1024xf32>
    %out = divf %p, %sumb : tile<1x1024xf32>
    %done = store_view_tko weak %out, %py[%row, %c0] token = %tok : tile<1x1024xf32>, partition_view<tile=(1x1024), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
