// Benchmark kernel (issue 7): layernorm with weight and bias, f32, one row per tile block:
// Y[i, :] = (X[i, :] - mean) * rsqrt(var + eps) * W + B, with mean = sum X[i, :] / N and
// var = sum (X[i, :] - mean)^2 / N (the biased variance).
// Parameters: X (ptr<f32>, M, N, row stride), Y (ptr<f32>, M, N, row stride),
//             W (ptr<f32>, N), B (ptr<f32>, N), eps (f32); 1 <= N <= 1024.
// Grid: M; tile block i normalizes row i as one 1x1024 tile (lanes past N load as 0 and
// are masked out of the variance), then stores the N lanes of the row.
cuda_tile.module @bench_layernorm {
  entry @layernorm(%x_ptr: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %ldx: tile<i32>,
                   %y_ptr: tile<ptr<f32>>, %my: tile<i32>, %ny: tile<i32>, %ldy: tile<i32>,
                   %w_ptr: tile<ptr<f32>>, %b_ptr: tile<ptr<f32>>, %nw: tile<i32>,
                   %eps: tile<f32>) {
    %tok = make_token : token
    %x = make_tensor_view %x_ptr, shape = [%m, %n], strides = [%ldx, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %y = make_tensor_view %y_ptr, shape = [%my, %ny], strides = [%ldy, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %w = make_tensor_view %w_ptr, shape = [%nw], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %b = make_tensor_view %b_ptr, shape = [%nw], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %x : partition_view<tile=(1x1024), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %py = make_partition_view %y : partition_view<tile=(1x1024), tensor_view<?x?xf32, strides=[?,1]>>
    %pw = make_partition_view %w : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %b : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %row, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %v, %vtok = load_view_tko weak %px[%row, %c0] token = %tok : partition_view<tile=(1x1024), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x1024xf32>, token
    %w1, %wtok = load_view_tko weak %pw[%c0] token = %tok : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
    %b1, %btok = load_view_tko weak %pb[%c0] token = %tok : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
    %wt = reshape %w1 : tile<1024xf32> -> tile<1x1024xf32>
    %bt = reshape %b1 : tile<1024xf32> -> tile<1x1024xf32>
    // lanes < N
    %lane = iota : tile<1024xi32>
    %lane2 = reshape %lane : tile<1024xi32> -> tile<1x1024xi32>
    %n2 = reshape %n : tile<i32> -> tile<1x1xi32>
    %nb = broadcast %n2 : tile<1x1xi32> -> tile<1x1024xi32>
    %inside = cmpi less_than %lane2, %nb, signed : tile<1x1024xi32> -> tile<1x1024xi1>
    %nf = itof %n2 signed : tile<1x1xi32> -> tile<1x1xf32>
    // mean
    %sum = reduce %v dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%e: tile<f32>, %a: tile<f32>) {
        %r = addf %e, %a : tile<f32>
        yield %r : tile<f32>
      }
    %sum2 = reshape %sum : tile<1xf32> -> tile<1x1xf32>
    %mean = divf %sum2, %nf : tile<1x1xf32>
    %meanb = broadcast %mean : tile<1x1xf32> -> tile<1x1024xf32>
    %d0 = subf %v, %meanb : tile<1x1024xf32>
    %zeros = constant <f32: 0.000000e+00> : tile<1x1024xf32>
    %d = select %inside, %d0, %zeros : tile<1x1024xi1>, tile<1x1024xf32>
    // variance
    %sq = mulf %d, %d : tile<1x1024xf32>
    %ssq = reduce %sq dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%e: tile<f32>, %a: tile<f32>) {
        %r = addf %e, %a : tile<f32>
        yield %r : tile<f32>
      }
    %ssq2 = reshape %ssq : tile<1xf32> -> tile<1x1xf32>
    %var = divf %ssq2, %nf : tile<1x1xf32>
    %eps2 = reshape %eps : tile<f32> -> tile<1x1xf32>
    %vareps = addf %var, %eps2 : tile<1x1xf32>
    %rstd = rsqrt %vareps : tile<1x1xf32>
    %rstdb = broadcast %rstd : tile<1x1xf32> -> tile<1x1024xf32>
    %xhat = mulf %d, %rstdb : tile<1x1024xf32>
    %scaled = mulf %xhat, %wt : tile<1x1024xf32>
    %out = addf %scaled, %bt : tile<1x1024xf32>
    %done = store_view_tko weak %out, %py[%row, %c0] token = %tok : tile<1x1024xf32>, partition_view<tile=(1x1024), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
