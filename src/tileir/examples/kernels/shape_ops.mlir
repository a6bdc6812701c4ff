// shape_ops: shape manipulation of a 4x8 i32 tile A = in (row-major), one tile block:
//   tr  (8x4)  = A transposed (permute [1, 0]);
//   cat (4x16) = [A, 10 * A] (cat along dim 1);
//   ext (2x4)  = the 2x4 subtile (1, 1) of A: A[2:4, 4:8] (extract);
//   bc  (4x8)  = row 0 of A repeated 4 times (extract, broadcast);
//   flat (32)  = A reshaped to 2x16 (row-major), permuted to 16x2, reshaped to 32:
//                flat[2j + h] = A.flat[16h + j] (reshape, permute, reshape).
// Parameters: %in: tile<ptr<i32>> (32), %tr (32), %cat (64), %ext (8), %bc (32), %flat (32):
// all tile<ptr<i32>>.  Grid: (1, 1, 1).
cuda_tile.module @shape_ops {
  entry @shape_ops(%in: tile<ptr<i32>>, %tr: tile<ptr<i32>>, %cat: tile<ptr<i32>>, %ext: tile<ptr<i32>>, %bc: tile<ptr<i32>>, %flat: tile<ptr<i32>>) {
    %t0 = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    %c8 = constant <i32: 8> : tile<i32>
    %c16 = constant <i32: 16> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %vin = make_tensor_view %in, shape = [%c4, %c8], strides = [%c8, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %pin = make_partition_view %vin : partition_view<tile=(4x8), tensor_view<?x?xi32, strides=[?,1]>>
    %a, %t1 = load_view_tko weak %pin[%c0, %c0] token = %t0 : partition_view<tile=(4x8), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> tile<4x8xi32>, token

    %at = permute %a [1, 0] : tile<4x8xi32> -> tile<8x4xi32>
    %vtr = make_tensor_view %tr, shape = [%c8, %c4], strides = [%c4, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %ptr = make_partition_view %vtr : partition_view<tile=(8x4), tensor_view<?x?xi32, strides=[?,1]>>
    %t2 = store_view_tko weak %at, %ptr[%c0, %c0] token = %t0 : tile<8x4xi32>, partition_view<tile=(8x4), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token

    %ten = constant <i32: 10> : tile<4x8xi32>
    %a10 = muli %a, %ten : tile<4x8xi32>
    %ac = cat %a, %a10 dim = 1 : tile<4x8xi32>, tile<4x8xi32> -> tile<4x16xi32>
    %vcat = make_tensor_view %cat, shape = [%c4, %c16], strides = [%c16, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %pcat = make_partition_view %vcat : partition_view<tile=(4x16), tensor_view<?x?xi32, strides=[?,1]>>
    %t3 = store_view_tko weak %ac, %pcat[%c0, %c0] token = %t0 : tile<4x16xi32>, partition_view<tile=(4x16), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token

    %ae = extract %a[%c1, %c1] : tile<4x8xi32> -> tile<2x4xi32>
    %vext = make_tensor_view %ext, shape = [%c2, %c4], strides = [%c4, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %pext = make_partition_view %vext : partition_view<tile=(2x4), tensor_view<?x?xi32, strides=[?,1]>>
    %t4 = store_view_tko weak %ae, %pext[%c0, %c0] token = %t0 : tile<2x4xi32>, partition_view<tile=(2x4), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token

    %row0 = extract %a[%c0, %c0] : tile<4x8xi32> -> tile<1x8xi32>
    %ab = broadcast %row0 : tile<1x8xi32> -> tile<4x8xi32>
    %vbc = make_tensor_view %bc, shape = [%c4, %c8], strides = [%c8, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %pbc = make_partition_view %vbc : partition_view<tile=(4x8), tensor_view<?x?xi32, strides=[?,1]>>
    %t5 = store_view_tko weak %ab, %pbc[%c0, %c0] token = %t0 : tile<4x8xi32>, partition_view<tile=(4x8), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token

    %a2 = reshape %a : tile<4x8xi32> -> tile<2x16xi32>
    %a2t = permute %a2 [1, 0] : tile<2x16xi32> -> tile<16x2xi32>
    %af = reshape %a2t : tile<16x2xi32> -> tile<32xi32>
    %c32 = constant <i32: 32> : tile<i32>
    %vfl1 = make_tensor_view %flat, shape = [%c32], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pfl = make_partition_view %vfl1 : partition_view<tile=(32), tensor_view<?xi32, strides=[1]>>
    %t6 = store_view_tko weak %af, %pfl[%c0] token = %t0 : tile<32xi32>, partition_view<tile=(32), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
