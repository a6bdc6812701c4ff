// Benchmark kernel (issue 7): vector add c[i] = a[i] + b[i] for 0 <= i < n, f32, in tiles
// of 1024 elements.
// Parameters: a, b, c (pointers to n f32 values) and n.  Grid: ceil(n / 1024) tile
// blocks; block i adds elements 1024 i .. 1024 i + 1023 (a partial last tile loads zero
// padding and stores only the elements inside the tensor).
cuda_tile.module @bench_vector_add {
  entry @vector_add(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %av = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %bv = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %cv = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pa = make_partition_view %av : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %bv : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pc = make_partition_view %cv : partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>
    %blk, %unused_y, %unused_z = get_tile_block_id : tile<i32>
    %x, %xtok = load_view_tko weak %pa[%blk] token = %tok : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
    %y, %ytok = load_view_tko weak %pb[%blk] token = %tok : partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
    %sum = addf %x, %y : tile<1024xf32>
    %done = store_view_tko weak %sum, %pc[%blk] token = %tok : tile<1024xf32>, partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
