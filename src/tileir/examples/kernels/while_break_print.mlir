// while_break_print: steps[b] = the number of Collatz steps from x0 = start + b down to 1
// (x -> x / 2 when even, 3x + 1 when odd), computed by a `loop` that carries (x, steps),
// leaves through a `break` inside an `if`, and picks the next x with an `if` that yields;
// each tile block then prints "block B: collatz(X0) = S steps" and a newline.
// Parameters: %steps: tile<ptr<i32>> (one element per tile block), %start: tile<i32> (>= 1,
// small enough that no trajectory leaves i32).  Grid: (blocks, 1, 1).
cuda_tile.module @while_break_print {
  entry @while_break_print(%steps: tile<ptr<i32>>, %start: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %two = constant <i32: 2> : tile<i32>
    %three = constant <i32: 3> : tile<i32>
    %x0 = addi %start, %bx : tile<i32>
    %xf, %sf = loop iter_values(%x = %x0, %s = %zero) : tile<i32>, tile<i32> -> tile<i32>, tile<i32> {
      %done = cmpi equal %x, %one, signed : tile<i32> -> tile<i1>
      if %done {
        break %x, %s : tile<i32>, tile<i32>
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
    %t0 = print_tko "block %d: collatz(%d) = %d steps\n", %bx, %x0, %sf : tile<i32>, tile<i32>, tile<i32> -> token
    %p = offset %steps, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t1 = store_ptr_tko weak %p, %sf : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
