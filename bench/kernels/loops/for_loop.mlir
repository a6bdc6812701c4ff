// for_loop: a `for` loop of n iterations on scalars (rank-0 tiles) with an `if` that
// yields, for the control-flow benchmark (bench/control_flow_bench.py).
// For i in [0, n): s = a + 3i; keep s (else a) where (i & 7) < 3, and count those i.
// out[0] = the kept sum, modulo 2^32 read signed; out[1] = the count.
// Parameters: %out: tile<ptr<i32>> (2 elements), %n: tile<i32>.  Grid: 1.
cuda_tile.module @for_loop {
  entry @for_loop(%out: tile<ptr<i32>>, %n: tile<i32>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %three = constant <i32: 3> : tile<i32>
    %seven = constant <i32: 7> : tile<i32>
    %acc, %cnt = for %i in (%zero to %n, step %one) : tile<i32> iter_values(%a = %zero, %c = %zero) -> (tile<i32>, tile<i32>) {
      %m = muli %i, %three : tile<i32>
      %s = addi %a, %m : tile<i32>
      %low = andi %i, %seven : tile<i32>
      %small = cmpi less_than %low, %three, signed : tile<i32> -> tile<i1>
      %pick = select %small, %s, %a : tile<i1>, tile<i32>
      %nc = if %small -> (tile<i32>) {
        %x = addi %c, %one : tile<i32>
        yield %x : tile<i32>
      } else {
        yield %c : tile<i32>
      }
      continue %pick, %nc : tile<i32>, tile<i32>
    }
    %t0 = store_ptr_tko weak %out, %acc : tile<ptr<i32>>, tile<i32> -> token
    %p1 = offset %out, %one : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t1 = store_ptr_tko weak %p1, %cnt : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
