// math_ops: elementwise f32 math.  For i in 0..n-1 and k = 0..7, out[k * n + i] =
// (exp, exp2, log, sin, cos, tanh, sqrt, rsqrt)[k](x[i]), default rounding (x > 0 for log,
// sqrt and rsqrt).
// Parameters: %x: tile<ptr<f32>> (n elements, n a multiple of 16), %out: tile<ptr<f32>>
// (8 * n elements), %n: tile<i32>.  Grid: (n / 16, 1, 1): tile block b handles x[16b .. 16b+15].
cuda_tile.module @math_ops {
  entry @math_ops(%x_ptr: tile<ptr<f32>>, %out: tile<ptr<f32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %vx = make_tensor_view %x_ptr, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %vx : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %x, %t1 = load_view_tko weak %px[%bx] token = %t0 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %c8 = constant <i32: 8> : tile<i32>
    %n8 = muli %n, %c8 : tile<i32>
    %vo = make_tensor_view %out, shape = [%n8], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %po = make_partition_view %vo : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %c16 = constant <i32: 16> : tile<i32>
    %blocks = divi %n, %c16 unsigned : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %k0 = muli %c0, %blocks : tile<i32>
    %b0 = addi %k0, %bx : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %k1 = muli %c1, %blocks : tile<i32>
    %b1 = addi %k1, %bx : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %k2 = muli %c2, %blocks : tile<i32>
    %b2 = addi %k2, %bx : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %k3 = muli %c3, %blocks : tile<i32>
    %b3 = addi %k3, %bx : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    %k4 = muli %c4, %blocks : tile<i32>
    %b4 = addi %k4, %bx : tile<i32>
    %c5 = constant <i32: 5> : tile<i32>
    %k5 = muli %c5, %blocks : tile<i32>
    %b5 = addi %k5, %bx : tile<i32>
    %c6 = constant <i32: 6> : tile<i32>
    %k6 = muli %c6, %blocks : tile<i32>
    %b6 = addi %k6, %bx : tile<i32>
    %c7 = constant <i32: 7> : tile<i32>
    %k7 = muli %c7, %blocks : tile<i32>
    %b7 = addi %k7, %bx : tile<i32>
    %r0 = exp %x : tile<16xf32>
    %s0 = store_view_tko weak %r0, %po[%b0] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r1 = exp2 %x : tile<16xf32>
    %s1 = store_view_tko weak %r1, %po[%b1] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r2 = log %x : tile<16xf32>
    %s2 = store_view_tko weak %r2, %po[%b2] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r3 = sin %x : tile<16xf32>
    %s3 = store_view_tko weak %r3, %po[%b3] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r4 = cos %x : tile<16xf32>
    %s4 = store_view_tko weak %r4, %po[%b4] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r5 = tanh %x : tile<16xf32>
    %s5 = store_view_tko weak %r5, %po[%b5] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r6 = sqrt %x : tile<16xf32>
    %s6 = store_view_tko weak %r6, %po[%b6] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %r7 = rsqrt %x : tile<16xf32>
    %s7 = store_view_tko weak %r7, %po[%b7] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
