// ub_rmw_race: counts[b] += inc[b] (i32) as a load, an addi and a store, once per tile block.
// PLANTED UNDEFINED BEHAVIOUR: the store takes the block's initial token, not the load's
// result token, so nothing orders the read before the write of the same element: a data
// race within the tile block (spec 6.8.3), reported at the store.  Replacing `token = %t0`
// on the store by `token = %t1` makes the kernel correct.
// Parameters: %counts, %inc: tile<ptr<i32>> (one element per tile block).  Grid: (blocks, 1, 1).
cuda_tile.module @ub_rmw_race {
  entry @ub_rmw_race(%counts: tile<ptr<i32>>, %inc: tile<ptr<i32>>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %pc = offset %counts, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %pi = offset %inc, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %c, %t1 = load_ptr_tko weak %pc token = %t0 : tile<ptr<i32>> -> tile<i32>, token
    %i, %t2 = load_ptr_tko weak %pi token = %t0 : tile<ptr<i32>> -> tile<i32>, token
    %s = addi %c, %i : tile<i32>
    %t3 = store_ptr_tko weak %pc, %s token = %t0 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
