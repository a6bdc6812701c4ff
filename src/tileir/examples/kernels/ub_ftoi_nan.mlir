// ub_ftoi_nan: out[i] = x[i] converted to i32 (rounding toward zero), 16 elements per tile
// block; with %saturate != 0 the saturating conversion is used instead (NaN -> 0,
// out-of-range values clamp), selected per tile block by an `if`.
// PLANTED UNDEFINED BEHAVIOUR when %saturate = 0 and some x[i] is NaN, infinite or outside
// i32 after rounding: the plain ftoi reports it at its location and tile block.
// Parameters: %x: tile<ptr<f32>>, %out: tile<ptr<i32>> (n elements each), %n: tile<i32>
// (a multiple of 16), %saturate: tile<i32>.  Grid: (n / 16, 1, 1).
cuda_tile.module @ub_ftoi_nan {
  entry @ub_ftoi_nan(%x: tile<ptr<f32>>, %out: tile<ptr<i32>>, %n: tile<i32>, %saturate: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %vx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %vx : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %v, %t1 = load_view_tko weak %px[%bx] token = %t0 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %zero = constant <i32: 0> : tile<i32>
    %sat = cmpi not_equal %saturate, %zero, signed : tile<i32> -> tile<i1>
    %w = if %sat -> (tile<16xi32>) {
      %ws = ftoi %v signed saturating : tile<16xf32> -> tile<16xi32>
      yield %ws : tile<16xi32>
    } else {
      %wu = ftoi %v signed : tile<16xf32> -> tile<16xi32>
      yield %wu : tile<16xi32>
    }
    %vo = make_tensor_view %out, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %po = make_partition_view %vo : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %t2 = store_view_tko weak %w, %po[%bx] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
