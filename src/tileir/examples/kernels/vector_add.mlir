// Vector add: c[i] = a[i] + b[i] for 0 <= i < n, in f32.
// Parameters: a, b, c (pointers to n f32 values) and n. Grid: ceil(n / 64) tile blocks, each
// adding one 64-element tile; the last tile may be partial: its loads read padding and its
// store writes only the elements inside the tensor.
cuda_tile.module @examples {
  entry @vector_add(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %token = make_token : token
    %a_view = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %b_view = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %c_view = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %a_tiles = make_partition_view %a_view : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %b_tiles = make_partition_view %b_view : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %c_tiles = make_partition_view %c_view : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
    %block, %unused_y, %unused_z = get_tile_block_id : tile<i32>
    %x, %x_token = load_view_tko weak %a_tiles[%block] token = %token : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %y, %y_token = load_view_tko weak %b_tiles[%block] token = %token : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %sum = addf %x, %y : tile<64xf32>
    %done = store_view_tko weak %sum, %c_tiles[%block] token = %token : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
