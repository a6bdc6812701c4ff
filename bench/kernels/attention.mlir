// Benchmark kernel (issue 7): flash attention O = softmax(scale * Q @ K^T) @ V for one
// head, f16 Q/K/V in, f32 accumulation, f16 O out, head dimension 64, with the online
// softmax (running row max m, running row sum l, rescaled accumulator) over blocks of 64
// keys in a `for` loop.
// Parameters: Q (ptr<f16>, Sq, row stride), K (ptr<f16>, Sk, row stride),
//             V (ptr<f16>, Sk, row stride), O (ptr<f16>, Sq, row stride), scale (f32);
//             every matrix has 64 columns, Sk >= 1.
// Grid: ceil(Sq/64); tile block i computes rows 64i .. 64i+63 of O over ceil(Sk/64) key
// blocks.  Keys past Sk get score -inf; P is rounded to f16 for the P @ V product; O is
// the f32 result divided by l, rounded to f16.
cuda_tile.module @bench_attention {
  entry @attention(%q_ptr: tile<ptr<f16>>, %sq: tile<i32>, %ldq: tile<i32>,
                   %k_ptr: tile<ptr<f16>>, %sk: tile<i32>, %ldk: tile<i32>,
                   %v_ptr: tile<ptr<f16>>, %sv: tile<i32>, %ldv: tile<i32>,
                   %o_ptr: tile<ptr<f16>>, %so: tile<i32>, %ldo: tile<i32>,
                   %scale: tile<f32>) {
    %tok = make_token : token
    %q = make_tensor_view %q_ptr, shape = [%sq, 64], strides = [%ldq, 1] : tile<i32> -> tensor_view<?x64xf16, strides=[?,1]>
    // K^T: a 64 x Sk view of K's memory, column j being key j
    %kt = make_tensor_view %k_ptr, shape = [64, %sk], strides = [1, %ldk] : tile<i32> -> tensor_view<64x?xf16, strides=[1,?]>
    %v = make_tensor_view %v_ptr, shape = [%sv, 64], strides = [%ldv, 1] : tile<i32> -> tensor_view<?x64xf16, strides=[?,1]>
    %o = make_tensor_view %o_ptr, shape = [%so, 64], strides = [%ldo, 1] : tile<i32> -> tensor_view<?x64xf16, strides=[?,1]>
    %pq = make_partition_view %q : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x64xf16, strides=[?,1]>>
    %pkt = make_partition_view %kt : partition_view<tile=(64x64), padding_value = zero, tensor_view<64x?xf16, strides=[1,?]>>
    %pv = make_partition_view %v : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x64xf16, strides=[?,1]>>
    %po = make_partition_view %o : partition_view<tile=(64x64), tensor_view<?x64xf16, strides=[?,1]>>
    %blocks:2 = get_index_space_shape %pkt : partition_view<tile=(64x64), padding_value = zero, tensor_view<64x?xf16, strides=[1,?]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c64 = constant <i32: 64> : tile<i32>
    %tq, %tq_tok = load_view_tko weak %pq[%bx, %c0] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x64xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
    %scale2 = reshape %scale : tile<f32> -> tile<1x1xf32>
    %scaleb = broadcast %scale2 : tile<1x1xf32> -> tile<64x64xf32>
    %lane = iota : tile<64xi32>
    %lane2 = reshape %lane : tile<64xi32> -> tile<1x64xi32>
    %sk2 = reshape %sk : tile<i32> -> tile<1x1xi32>
    %skb = broadcast %sk2 : tile<1x1xi32> -> tile<1x64xi32>
    %neginf = constant <f32: 0xFF800000> : tile<64x64xf32>
    %zero = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %m0 = constant <f32: 0xFF800000> : tile<64x1xf32>
    %l0 = constant <f32: 0.000000e+00> : tile<64x1xf32>
    %res:3 = for %j in (%c0 to %blocks#1, step %c1) : tile<i32>
        iter_values(%m = %m0, %l = %l0, %acc = %zero) -> (tile<64x1xf32>, tile<64x1xf32>, tile<64x64xf32>) {
      %tk, %tk_tok = load_view_tko weak %pkt[%c0, %j] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<64x?xf16, strides=[1,?]>>, tile<i32> -> tile<64x64xf16>, token
      %tv, %tv_tok = load_view_tko weak %pv[%j, %c0] token = %tok : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x64xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
      // scores, with keys past Sk masked to -inf
      %qk = mmaf %tq, %tk, %zero : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      %s0 = mulf %qk, %scaleb : tile<64x64xf32>
      %first = muli %j, %c64 : tile<i32>
      %first2 = reshape %first : tile<i32> -> tile<1x1xi32>
      %firstb = broadcast %first2 : tile<1x1xi32> -> tile<1x64xi32>
      %key = addi %lane2, %firstb : tile<1x64xi32>
      %valid = cmpi less_than %key, %skb, signed : tile<1x64xi32> -> tile<1x64xi1>
      %validb = broadcast %valid : tile<1x64xi1> -> tile<64x64xi1>
      %s = select %validb, %s0, %neginf : tile<64x64xi1>, tile<64x64xf32>
      // online softmax: new running max, rescale factor, probabilities, running sum
      %rowmax = reduce %s dim=1 identities=[0xFF800000 : f32] : tile<64x64xf32> -> tile<64xf32>
        (%e: tile<f32>, %a: tile<f32>) {
          %r = maxf %e, %a : tile<f32>
          yield %r : tile<f32>
        }
      %rowmax2 = reshape %rowmax : tile<64xf32> -> tile<64x1xf32>
      %mnew = maxf %m, %rowmax2 : tile<64x1xf32>
      %mdiff = subf %m, %mnew : tile<64x1xf32>
      %alpha = exp %mdiff : tile<64x1xf32>
      %mnewb = broadcast %mnew : tile<64x1xf32> -> tile<64x64xf32>
      %shifted = subf %s, %mnewb : tile<64x64xf32>
      %p = exp %shifted : tile<64x64xf32>
      %rowsum = reduce %p dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32>
        (%e: tile<f32>, %a: tile<f32>) {
          %r = addf %e, %a : tile<f32>
          yield %r : tile<f32>
        }
      %rowsum2 = reshape %rowsum : tile<64xf32> -> tile<64x1xf32>
      %lscaled = mulf %l, %alpha : tile<64x1xf32>
      %lnew = addf %lscaled, %rowsum2 : tile<64x1xf32>
      // acc = acc * alpha + P @ V
      %alphab = broadcast %alpha : tile<64x1xf32> -> tile<64x64xf32>
      %accscaled = mulf %acc, %alphab : tile<64x64xf32>
      %ph = ftof %p : tile<64x64xf32> -> tile<64x64xf16>
      %accnew = mmaf %ph, %tv, %accscaled : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
      continue %mnew, %lnew, %accnew : tile<64x1xf32>, tile<64x1xf32>, tile<64x64xf32>
    }
    %lb = broadcast %res#1 : tile<64x1xf32> -> tile<64x64xf32>
    %out = divf %res#2, %lb : tile<64x64xf32>
    %outh = ftof %out : tile<64x64xf32> -> tile<64x64xf16>
    %done = store_view_tko weak %outh, %po[%bx, %c0] token = %tok : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x64xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
