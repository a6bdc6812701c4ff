// ub_div_by_zero: q[i] = a[i] / b[i] and r[i] = a[i] % b[i] (i32, signed, rounding toward
// zero), 16 elements per tile block.
// PLANTED UNDEFINED BEHAVIOUR when some b[i] is 0 (or a[i] = -2^31 with b[i] = -1 for the
// quotient): the interpreter reports the divi at its location and tile block.
// Parameters: %a, %b, %q, %r: tile<ptr<i32>> (n elements each), %n: tile<i32> (a multiple of
// 16).  Grid: (n / 16, 1, 1).
cuda_tile.module @ub_div_by_zero {
  entry @ub_div_by_zero(%a: tile<ptr<i32>>, %b: tile<ptr<i32>>, %q: tile<ptr<i32>>, %r: tile<ptr<i32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %va = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pa = make_partition_view %va : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %x, %t1 = load_view_tko weak %pa[%bx] token = %t0 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
    %vb = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pb = make_partition_view %vb : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %y, %t2 = load_view_tko weak %pb[%bx] token = %t0 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
    %quo = divi %x, %y signed : tile<16xi32>
    %rem = remi %x, %y signed : tile<16xi32>
    %vq = make_tensor_view %q, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pq = make_partition_view %vq : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %t3 = store_view_tko weak %quo, %pq[%bx] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %vr = make_tensor_view %r, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pr = make_partition_view %vr : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %t4 = store_view_tko weak %rem, %pr[%bx] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
