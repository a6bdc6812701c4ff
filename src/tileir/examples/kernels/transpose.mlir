// transpose: B = A^T for an M x N f32 matrix A, both row-major, any sizes: partial tiles
// are padded on load and clipped on store.  The view types are written once, as type
// aliases at the top of the file (`!a_tiles = ...`), and named in the kernel by alias.
// Parameters: A (ptr<f32>, M, N, row stride), B (ptr<f32>, N, M, row stride).
// Grid: (ceil(M / 16), ceil(N / 16)): tile block (i, j) loads the 16x16 tile (i, j) of A,
// permutes it and stores it as tile (j, i) of B.
!matrix = !cuda_tile.tensor_view<?x?xf32, strides=[?,1]>
!a_tiles = !cuda_tile.partition_view<tile=(16x16), padding_value = zero, !matrix>
!b_tiles = !cuda_tile.partition_view<tile=(16x16), !matrix>
cuda_tile.module @transpose {
  entry @transpose(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %lda: tile<i32>,
                   %b: tile<ptr<f32>>, %bm: tile<i32>, %bn: tile<i32>, %ldb: tile<i32>) {
    %token = make_token : token
    %a_view = make_tensor_view %a, shape = [%m, %n], strides = [%lda, 1] : tile<i32> -> !matrix
    %b_view = make_tensor_view %b, shape = [%bm, %bn], strides = [%ldb, 1] : tile<i32> -> !matrix
    %a_tiles = make_partition_view %a_view : !a_tiles
    %b_tiles = make_partition_view %b_view : !b_tiles
    %i, %j, %unused = get_tile_block_id : tile<i32>
    %tile, %tile_token = load_view_tko weak %a_tiles[%i, %j] token = %token : !a_tiles, tile<i32> -> tile<16x16xf32>, token
    %flipped = permute %tile [1, 0] : tile<16x16xf32> -> tile<16x16xf32>
    %done = store_view_tko weak %flipped, %b_tiles[%j, %i] token = %token : tile<16x16xf32>, !b_tiles, tile<i32> -> token
    return
  }
}
