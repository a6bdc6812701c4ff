// Types from the Tile IR spec (chapter "Type System"), one per line.
// `tileir example` parses, verifies and prints each, with its index space.
!cuda_tile.tile<8x4xf32>
!cuda_tile.tile<4x!cuda_tile.ptr<i8>>
!cuda_tile.tile<2xf4E2M1FN>
!cuda_tile.tensor_view<512x1024xf16, strides=[1024, 1]>
!cuda_tile.tensor_view<?x?xf16, strides=[?, 1]>
!cuda_tile.partition_view<tile=(128x128), tensor_view<64x256xf32, strides=[256,1]>>
!cuda_tile.partition_view<tile=(4x2), tensor_view<64x16xf32, strides=[16, 1]>, dim_map=[1, 0]>
!cuda_tile.strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>
!cuda_tile.strided_view<tile=(4x2), traversal_strides=[4,3], tensor_view<64x16xf32, strides=[16, 1]>, dim_map=[1, 0]>
!cuda_tile.gather_scatter_view<tile=(8x16), padding_value = zero, tensor_view<128x256xf32, strides=[256, 1]>, sparse_dim=0>
!cuda_tile.token
