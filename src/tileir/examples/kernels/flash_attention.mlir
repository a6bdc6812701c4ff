// flash_attention: O = softmax(scale * Q @ K^T) @ V for one head, f16 Q/K/V, f32
// accumulation and f32 O, head dimension 16, with the online softmax (running row max m,
// running row sum l, rescaled accumulator) over blocks of 16 keys in a `for` loop.
// Parameters: Q (ptr<f16>, Sq, row stride), K (ptr<f16>, Sk, row stride),
//             V (ptr<f16>, Sk, row stride), O (ptr<f32>, Sq, row stride), scale (f32);
//             every matrix has 16 columns, Sk >= 1.
// Grid: ceil(Sq/16); tile block i computes rows 16i .. 16i+15 of O over ceil(Sk/16) key
// blocks.  Keys past Sk get score -inf; P is rounded to f16 for the P @ V product.
cuda_tile.module @flash_attention {
  entry @flash_attention(%q_ptr: tile<ptr<f16>>, %sq: tile<i32>, %ldq: tile<i32>,
                         %k_ptr: tile<ptr<f16>>, %sk: tile<i32>, %ldk: tile<i32>,
                         %v_ptr: tile<ptr<f16>>, %sv: tile<i32>, %ldv: tile<i32>,
                         %o_ptr: tile<ptr<f32>>, %so: tile<i32>, %ldo: tile<i32>,
                         %scale: tile<f32>) {
    %tok = make_token : token
    %q = make_tensor_view %q_ptr, shape = [%sq, 16], strides = [%ldq, 1] : tile<i32> -> tensor_view<?x16xf16, strides=[?,1]>
    // K^T: a 16 x Sk view of K's memory, column j being key j
    %kt = make_tensor_view %k_ptr, shape = [16, %sk], strides = [1, %ldk] : tile<i32> -> tensor_view<16x?xf16, strides=[1,?]>
    %v = make_tensor_view %v_ptr, shape = [%sv, 16], strides = [%ldv, 1] : tile<i32> -> tensor_view<?x16xf16, strides=[?,1]>
    %o = make_tensor_view %o_ptr, shape = [%so, 16], strides = [%ldo, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[?,1]>
    %pq = make_partition_view %q : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[?,1]>>
    %pkt = make_partition_view %kt : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[1,?]>>
    %pv = make_partition_view %v : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[?,1]>>
    %po = make_partition_view %o : partition_view<tile=(16x16), tensor_view<?x16xf32, strides=[?,1]>>
    %blocks:2 = get_index_space_shape %pkt : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[1,?]>> -> tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c16 = constant <i32: 16> : tile<i32>
    %tq, %tq_tok = load_view_tko weak %pq[%bx, %c0] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
    %scale2 = reshape %scale : tile<f32> -> tile<1x1xf32>
    %scaleb = broadcast %scale2 : tile<1x1xf32> -> tile<16x16xf32>
    %lane = iota : tile<16xi32>
    %lane2 = reshape %lane : tile<16xi32> -> tile<1x16xi32>
    %sk2 = reshape %sk : tile<i32> -> tile<1x1xi32>
    %skb = broadcast %sk2 : tile<1x1xi32> -> tile<1x16xi32>
    %neginf = constant <f32: 0xFF800000> : tile<16x16xf32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %m0 = constant <f32: 0xFF800000> : tile<16x1xf32>
    %l0 = constant <f32: 0.000000e+00> : tile<16x1xf32>
    %res:3 = for %j in (%c0 to %blocks#1, step %c1) : tile<i32>
        iter_values(%m = %m0, %l = %l0, %acc = %zero) -> (tile<16x1xf32>, tile<16x1xf32>, tile<16x16xf32>) {
      %tk, %tk_tok = load_view_tko weak %pkt[%c0, %j] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[1,?]>>, tile<i32> -> tile<16x16xf16>, token
      %tv, %tv_tok = load_view_tko weak %pv[%j, %c0] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      // scores, with keys past Sk masked to -inf
      %qk = mmaf %tq, %tk, %zero : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
      %s0 = mulf %qk, %scaleb : tile<16x16xf32>
      %first = muli %j, %c16 : tile<i32>
      %first2 = reshape %first : tile<i32> -> tile<1x1xi32>
      %firstb = broadcast %first2 : tile<1x1xi32> -> tile<1x16xi32>
      %key = addi %lane2, %firstb : tile<1x16xi32>
      %valid = cmpi less_than %key, %skb, signed : tile<1x16xi32> -> tile<1x16xi1>
      %validb = broadcast %valid : tile<1x16xi1> -> tile<16x16xi1>
      %s = select %validb, %s0, %neginf : tile<16x16xi1>, tile<16x16xf32>
      // online softmax: new running max, rescale factor, probabilities, running sum
      %rowmax = reduce %s dim=1 identities=[0xFF800000 : f32] : tile<16x16xf32> -> tile<16xf32>
        (%e: tile<f32>, %a: tile<f32>) {
          %r = maxf %e, %a : tile<f32>
          yield %r : tile<f32>
        }
      %rowmax2 = reshape %rowmax : tile<16xf32> -> tile<16x1xf32>
      %mnew = maxf %m, %rowmax2 : tile<16x1xf32>
      %mdiff = subf %m, %mnew : tile<16x1xf32>
      %alpha = exp %mdiff : tile<16x1xf32>
      %mnewb = broadcast %mnew : tile<16x1xf32> -> tile<16x16xf32>
      %shifted = subf %s, %mnewb : tile<16x16xf32>
      %p = exp %shifted : tile<16x16xf32>
      %rowsum = reduce %p dim=1 identities=[0.000000e+00 : f32] : tile<16x16xf32> -> tile<16xf32>
        (%e: tile<f32>, %a: tile<f32>) {
          %r = addf %e, %a : tile<f32>
          yield %r : tile<f32>
        }
      %rowsum2 = reshape %rowsum : tile<16xf32> -> tile<16x1xf32>
      %lscaled = mulf %l, %alpha : tile<16x1xf32>
      %lnew = addf %lscaled, %rowsum2 : tile<16x1xf32>
      // acc = acc * alpha + P @ V
      %alphab = broadcast %alpha : tile<16x1xf32> -> tile<16x16xf32>
      %accscaled = mulf %acc, %alphab : tile<16x16xf32>
      %ph = ftof %p : tile<16x16xf32> -> tile<16x16xf16>
      %accnew = mmaf %ph, %tv, %accscaled : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
      continue %mnew, %lnew, %accnew : tile<16x1xf32>, tile<16x1xf32>, tile<16x16xf32>
    }
    %lb = broadcast %res#1 : tile<16x1xf32> -> tile<16x16xf32>
    %out = divf %res#2, %lb : tile<16x16xf32>
    %done = store_view_tko weak %out, %po[%bx, %c0] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x16xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
