// custom_reduce: two custom reductions over the rows of two rows x 8 matrices (row-major),
// folded by one two-operand `reduce`: maxabs[r] = max_j |x[r, j]| (f32, NaN-free input)
// and prod[r] = the product of y[r, :] modulo 2^32 (i32, wrapping).
// Parameters: %x: tile<ptr<f32>>, %y: tile<ptr<i32>> (rows * 8 elements each),
// %maxabs: tile<ptr<f32>>, %prod: tile<ptr<i32>> (rows elements each), %rows: tile<i32>
// (a multiple of 4).  Grid: (rows / 4, 1, 1): tile block b reduces rows 4b .. 4b+3.
cuda_tile.module @custom_reduce {
  entry @custom_reduce(%x: tile<ptr<f32>>, %y: tile<ptr<i32>>, %maxabs: tile<ptr<f32>>, %prod: tile<ptr<i32>>, %rows: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %vx = make_tensor_view %x, shape = [%rows, 8], strides = [8, 1] : tile<i32> -> tensor_view<?x8xf32, strides=[8,1]>
    %px = make_partition_view %vx : partition_view<tile=(4x8), tensor_view<?x8xf32, strides=[8,1]>>
    %a, %t1 = load_view_tko weak %px[%bx, %zero] token = %t0 : partition_view<tile=(4x8), tensor_view<?x8xf32, strides=[8,1]>>, tile<i32> -> tile<4x8xf32>, token
    %vy = make_tensor_view %y, shape = [%rows, 8], strides = [8, 1] : tile<i32> -> tensor_view<?x8xi32, strides=[8,1]>
    %py = make_partition_view %vy : partition_view<tile=(4x8), tensor_view<?x8xi32, strides=[8,1]>>
    %b, %t2 = load_view_tko weak %py[%bx, %zero] token = %t0 : partition_view<tile=(4x8), tensor_view<?x8xi32, strides=[8,1]>>, tile<i32> -> tile<4x8xi32>, token
    %m, %p = reduce %a, %b dim=1 identities=[0.000000e+00 : f32, 1 : i32] : tile<4x8xf32>, tile<4x8xi32> -> tile<4xf32>, tile<4xi32>
      (%ea: tile<f32>, %aa: tile<f32>, %eb: tile<i32>, %ab: tile<i32>) {
        %abs_e = absf %ea : tile<f32>
        %abs_a = absf %aa : tile<f32>
        %mx = maxf %abs_e, %abs_a : tile<f32>
        %pr = muli %eb, %ab : tile<i32>
        yield %mx, %pr : tile<f32>, tile<i32>
      }
    %vm = make_tensor_view %maxabs, shape = [%rows], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pm = make_partition_view %vm : partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>
    %t3 = store_view_tko weak %m, %pm[%bx] token = %t0 : tile<4xf32>, partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %vp = make_tensor_view %prod, shape = [%rows], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pp = make_partition_view %vp : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>
    %t4 = store_view_tko weak %p, %pp[%bx] token = %t0 : tile<4xi32>, partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
