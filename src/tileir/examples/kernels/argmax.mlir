// argmax: out[b] = the index (into %in) of the largest of in[32b .. 32b+31], the smallest
// such index on ties; f32 values, NaN-free input.  A `reduce` over (value, index) pairs
// with a custom combining region.
// Parameters: %in: tile<ptr<f32>> (n elements, n a multiple of 32), %out: tile<ptr<i32>>
// (n / 32 elements), %n: tile<i32>.  Grid: (n / 32, 1, 1), one chunk per tile block.
cuda_tile.module @argmax {
  entry @argmax(%in: tile<ptr<f32>>, %out: tile<ptr<i32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %vin = make_tensor_view %in, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pin = make_partition_view %vin : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>
    %v, %t1 = load_view_tko weak %pin[%bx] token = %t0 : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token
    %c32 = constant <i32: 32> : tile<i32>
    %base = muli %bx, %c32 : tile<i32>
    %base1 = reshape %base : tile<i32> -> tile<1xi32>
    %base32 = broadcast %base1 : tile<1xi32> -> tile<32xi32>
    %lane = iota : tile<32xi32>
    %idx = addi %base32, %lane : tile<32xi32>
    %best, %at = reduce %v, %idx dim=0 identities=[0xFF800000 : f32, 2147483647 : i32] : tile<32xf32>, tile<32xi32> -> tile<f32>, tile<i32>
      (%ev: tile<f32>, %av: tile<f32>, %ei: tile<i32>, %ai: tile<i32>) {
        %gt = cmpf greater_than ordered %ev, %av : tile<f32> -> tile<i1>
        %eq = cmpf equal ordered %ev, %av : tile<f32> -> tile<i1>
        %lo = cmpi less_than %ei, %ai, signed : tile<i32> -> tile<i1>
        %tie = andi %eq, %lo : tile<i1>
        %take = ori %gt, %tie : tile<i1>
        %rv = select %take, %ev, %av : tile<i1>, tile<f32>
        %ri = select %take, %ei, %ai : tile<i1>, tile<i32>
        yield %rv, %ri : tile<f32>, tile<i32>
      }
    %p = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t2 = store_ptr_tko weak %p, %at token = %t0 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
