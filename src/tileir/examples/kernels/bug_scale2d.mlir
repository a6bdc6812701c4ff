// bug_scale2d: y = 2 * x for an m x n f32 matrix (row-major), one 16x16 tile per tile block.
// Parameters: %x, %y: tile<ptr<f32>> (m * n elements each), %m, %n: tile<i32> (multiples of
// 16).  Grid: (m / 16, n / 16, 1): tile block (i, j) scales the tile of rows 16i..16i+15 and
// columns 16j..16j+15.
// PLANTED BUG (for docs/workbench.md): the tile index is written [%j, %i], not [%i, %j].
cuda_tile.module @bug_scale2d {
  entry @scale2d(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %token = make_token : token
    %x_view = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %y_view = make_tensor_view %y, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %x_tiles = make_partition_view %x_view : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %y_tiles = make_partition_view %y_view : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %i, %j, %unused = get_tile_block_id : tile<i32>
    %tile, %loaded = load_view_tko weak %x_tiles[%j, %i] token = %token : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
    %two = constant <f32: 2.0> : tile<16x16xf32>
    %scaled = mulf %tile, %two rounding<nearest_even> : tile<16x16xf32>
    %stored = store_view_tko weak %scaled, %y_tiles[%i, %j] token = %loaded : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
