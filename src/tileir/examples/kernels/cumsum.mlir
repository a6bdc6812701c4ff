// cumsum: out[r, :] = inclusive prefix sum of in[r, :] for a rows x 16 f32 matrix (row-major).
// Parameters: %in, %out: tile<ptr<f32>> (rows * 16 elements each), %rows: tile<i32>.
// Grid: (rows, 1, 1): tile block r scans row r with `scan` (an f32 addf per step).
cuda_tile.module @cumsum {
  entry @cumsum(%in: tile<ptr<f32>>, %out: tile<ptr<f32>>, %rows: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %vin = make_tensor_view %in, shape = [%rows, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %pin = make_partition_view %vin : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
    %row, %t1 = load_view_tko weak %pin[%bx, %zero] token = %t0 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> tile<1x16xf32>, token
    %sums = scan %row dim=1 reverse=false identities=[0.000000e+00 : f32] : tile<1x16xf32> -> tile<1x16xf32>
      (%e: tile<f32>, %a: tile<f32>) {
        %s = addf %e, %a : tile<f32>
        yield %s : tile<f32>
      }
    %vout = make_tensor_view %out, shape = [%rows, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %pout = make_partition_view %vout : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
    %t2 = store_view_tko weak %sums, %pout[%bx, %zero] token = %t0 : tile<1x16xf32>, partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
