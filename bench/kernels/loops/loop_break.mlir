// loop_break: Collatz step counts (x -> x / 2 when even, 3x + 1 when odd, until x = 1) of
// every start k in [1, m), for the control-flow benchmark (bench/control_flow_bench.py):
// a `for` over k around a `loop` that leaves through a `break` inside an `if` and picks
// the next x with an `if` that yields.
// out[0] = the total of the step counts (modulo 2^32 read signed), out[1] = the largest.
// Parameters: %out: tile<ptr<i32>> (2 elements), %m: tile<i32> (no trajectory from a start
// below m may leave i32: the muli and addi are no_signed_wrap).  Grid: 1.
cuda_tile.module @loop_break {
  entry @loop_break(%out: tile<ptr<i32>>, %m: tile<i32>) {
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %three = constant <i32: 3> : tile<i32>
    %total, %longest = for %k in (%one to %m, step %one) : tile<i32> iter_values(%sum = %zero, %best = %zero) -> (tile<i32>, tile<i32>) {
      %steps = loop iter_values(%x = %k, %s = %zero) : tile<i32>, tile<i32> -> tile<i32> {
        %done = cmpi equal %x, %one, signed : tile<i32> -> tile<i1>
        if %done {
          break %s : tile<i32>
        }
        %r = remi %x, %two unsigned : tile<i32>
        %even = cmpi equal %r, %zero, signed : tile<i32> -> tile<i1>
        %nx = if %even -> (tile<i32>) {
          %h = divi %x, %two unsigned : tile<i32>
          yield %h : tile<i32>
        } else {
          %t = muli %x, %three overflow<no_signed_wrap> : tile<i32>
          %u = addi %t, %one overflow<no_signed_wrap> : tile<i32>
          yield %u : tile<i32>
        }
        %ns = addi %s, %one : tile<i32>
        continue %nx, %ns : tile<i32>, tile<i32>
      }
      %nsum = addi %sum, %steps : tile<i32>
      %nbest = maxi %best, %steps signed : tile<i32>
      continue %nsum, %nbest : tile<i32>, tile<i32>
    }
    %t0 = store_ptr_tko weak %out, %total : tile<ptr<i32>>, tile<i32> -> token
    %p1 = offset %out, %one : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t1 = store_ptr_tko weak %p1, %longest : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
