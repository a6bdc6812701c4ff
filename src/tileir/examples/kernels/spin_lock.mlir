// spin_lock: total += b + 1 for every tile block b, the read-modify-write of the plain
// (weak) counter guarded by a spin lock: a `loop` of `atomic_cas_tko acquire` (0 -> 1)
// that breaks once it sees 0, then a token-ordered load, add and store, then
// `atomic_rmw_tko release xchg` 0.  The token chain orders every access of a block.
// Parameters: %lock: tile<ptr<i32>> (one element, 0), %total: tile<ptr<i32>> (one element).
// Grid: (blocks, 1, 1).  Result: total + blocks * (blocks + 1) / 2.
cuda_tile.module @spin_lock {
  entry @spin_lock(%lock: tile<ptr<i32>>, %total: tile<ptr<i32>>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %held = loop iter_values(%t = %t0) : token -> token {
      %seen, %tc = atomic_cas_tko acquire device %lock, %zero, %one token = %t : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
      %free = cmpi equal %seen, %zero, signed : tile<i32> -> tile<i1>
      if %free {
        break %tc : token
      }
      continue %tc : token
    }
    %v, %tl = load_ptr_tko weak %total token = %held : tile<ptr<i32>> -> tile<i32>, token
    %inc = addi %bx, %one : tile<i32>
    %w = addi %v, %inc : tile<i32>
    %ts = store_ptr_tko weak %total, %w token = %tl : tile<ptr<i32>>, tile<i32> -> token
    %old, %tr = atomic_rmw_tko release device %lock, xchg, %zero token = %ts : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}
