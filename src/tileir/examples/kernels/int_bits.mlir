// int_bits: bitwise, shift and high-multiply ops on i32 and i64 lanes.  For i in 0..15 and
// W in (32, 64), s = bW[i] & (W - 1), outW[16k + i] holds, for k = 0..6:
// aW & bW, aW | bW, aW ^ bW, aW << s (wrapping), aW >> s (arithmetic), aW >> s (logical),
// and mulhii(aW, bW) (the high W bits of the 2W-bit product of the unsigned readings).
// Parameters: %a32, %b32: tile<ptr<i32>> (16 elements), %a64, %b64: tile<ptr<i64>>
// (16 elements), %out32: tile<ptr<i32>>, %out64: tile<ptr<i64>> (112 elements each).
// Grid: (1, 1, 1).
cuda_tile.module @int_bits {
  entry @int_bits(%a32: tile<ptr<i32>>, %b32: tile<ptr<i32>>, %a64: tile<ptr<i64>>, %b64: tile<ptr<i64>>, %out32: tile<ptr<i32>>, %out64: tile<ptr<i64>>) {
    %t0 = make_token : token
    %c16 = constant <i32: 16> : tile<i32>
    %c112 = constant <i32: 112> : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    %c5 = constant <i32: 5> : tile<i32>
    %c6 = constant <i32: 6> : tile<i32>
    %va32 = make_tensor_view %a32, shape = [%c16], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pa32 = make_partition_view %va32 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %a_32, %ta32 = load_view_tko weak %pa32[%c0] token = %t0 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
    %vb32 = make_tensor_view %b32, shape = [%c16], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pb32 = make_partition_view %vb32 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %b_32, %tb32 = load_view_tko weak %pb32[%c0] token = %t0 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
    %m32 = constant <i32: 31> : tile<16xi32>
    %s_32 = andi %b_32, %m32 : tile<16xi32>
    %vo32 = make_tensor_view %out32, shape = [%c112], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %po32 = make_partition_view %vo32 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %andi32 = andi %a_32, %b_32 : tile<16xi32>
    %st_andi32 = store_view_tko weak %andi32, %po32[%c0] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %ori32 = ori %a_32, %b_32 : tile<16xi32>
    %st_ori32 = store_view_tko weak %ori32, %po32[%c1] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %xori32 = xori %a_32, %b_32 : tile<16xi32>
    %st_xori32 = store_view_tko weak %xori32, %po32[%c2] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %shli32 = shli %a_32, %s_32 : tile<16xi32>
    %st_shli32 = store_view_tko weak %shli32, %po32[%c3] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %shri_s32 = shri %a_32, %s_32 signed : tile<16xi32>
    %st_shri_s32 = store_view_tko weak %shri_s32, %po32[%c4] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %shri_u32 = shri %a_32, %s_32 unsigned : tile<16xi32>
    %st_shri_u32 = store_view_tko weak %shri_u32, %po32[%c5] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %mulhii32 = mulhii %a_32, %b_32 : tile<16xi32>
    %st_mulhii32 = store_view_tko weak %mulhii32, %po32[%c6] token = %t0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    %va64 = make_tensor_view %a64, shape = [%c16], strides = [1] : tile<i32> -> tensor_view<?xi64, strides=[1]>
    %pa64 = make_partition_view %va64 : partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>
    %a_64, %ta64 = load_view_tko weak %pa64[%c0] token = %t0 : partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> tile<16xi64>, token
    %vb64 = make_tensor_view %b64, shape = [%c16], strides = [1] : tile<i32> -> tensor_view<?xi64, strides=[1]>
    %pb64 = make_partition_view %vb64 : partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>
    %b_64, %tb64 = load_view_tko weak %pb64[%c0] token = %t0 : partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> tile<16xi64>, token
    %m64 = constant <i64: 63> : tile<16xi64>
    %s_64 = andi %b_64, %m64 : tile<16xi64>
    %vo64 = make_tensor_view %out64, shape = [%c112], strides = [1] : tile<i32> -> tensor_view<?xi64, strides=[1]>
    %po64 = make_partition_view %vo64 : partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>
    %andi64 = andi %a_64, %b_64 : tile<16xi64>
    %st_andi64 = store_view_tko weak %andi64, %po64[%c0] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %ori64 = ori %a_64, %b_64 : tile<16xi64>
    %st_ori64 = store_view_tko weak %ori64, %po64[%c1] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %xori64 = xori %a_64, %b_64 : tile<16xi64>
    %st_xori64 = store_view_tko weak %xori64, %po64[%c2] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %shli64 = shli %a_64, %s_64 : tile<16xi64>
    %st_shli64 = store_view_tko weak %shli64, %po64[%c3] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %shri_s64 = shri %a_64, %s_64 signed : tile<16xi64>
    %st_shri_s64 = store_view_tko weak %shri_s64, %po64[%c4] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %shri_u64 = shri %a_64, %s_64 unsigned : tile<16xi64>
    %st_shri_u64 = store_view_tko weak %shri_u64, %po64[%c5] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    %mulhii64 = mulhii %a_64, %b_64 : tile<16xi64>
    %st_mulhii64 = store_view_tko weak %mulhii64, %po64[%c6] token = %t0 : tile<16xi64>, partition_view<tile=(16), tensor_view<?xi64, strides=[1]>>, tile<i32> -> token
    return
  }
}
