// histogram: bins[v] += 1 for every v in data[0 .. n-1] (0 <= v < the number of bins).
// Each tile block gathers 16 values through a tile of pointers (`offset` of the base
// pointer, masked past n), turns them into a tile of bin addresses (`offset` again) and
// adds 1 to all of them with one `atomic_rmw_tko add` (lanes may share a bin).
// Parameters: %data: tile<ptr<i32>> (n elements), %bins: tile<ptr<i32>> (zeroed by the
// caller), %n: tile<i32>.  Grid: (ceil(n / 16), 1, 1).
cuda_tile.module @histogram {
  entry @histogram(%data: tile<ptr<i32>>, %bins: tile<ptr<i32>>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c16 = constant <i32: 16> : tile<i32>
    %base = muli %bx, %c16 : tile<i32>
    %base1 = reshape %base : tile<i32> -> tile<1xi32>
    %base16 = broadcast %base1 : tile<1xi32> -> tile<16xi32>
    %lane = iota : tile<16xi32>
    %idx = addi %base16, %lane : tile<16xi32>
    %n1 = reshape %n : tile<i32> -> tile<1xi32>
    %n16 = broadcast %n1 : tile<1xi32> -> tile<16xi32>
    %live = cmpi less_than %idx, %n16, signed : tile<16xi32> -> tile<16xi1>
    %d1 = reshape %data : tile<ptr<i32>> -> tile<1xptr<i32>>
    %d16 = broadcast %d1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %dptr = offset %d16, %idx : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %zeros = constant <i32: 0> : tile<16xi32>
    %v, %t1 = load_ptr_tko weak %dptr, %live, %zeros : tile<16xptr<i32>>, tile<16xi1>, tile<16xi32> -> tile<16xi32>, token
    %b1 = reshape %bins : tile<ptr<i32>> -> tile<1xptr<i32>>
    %b16 = broadcast %b1 : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %bptr = offset %b16, %v : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %ones = constant <i32: 1> : tile<16xi32>
    %old, %t2 = atomic_rmw_tko relaxed device %bptr, add, %ones, %live : tile<16xptr<i32>>, tile<16xi32>, tile<16xi1> -> tile<16xi32>, token
    return
  }
}
