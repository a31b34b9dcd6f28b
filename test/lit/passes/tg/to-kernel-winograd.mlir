// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel | filecheck %s

// tg.conv2d_winograd (here F(2x2, 3x3), a 6x5 output: 3 x 3 tiles, the last row and column
// of tiles half outside) is six stages: the input padded out to the tiles' extent
// (3*2 + 2 = 8 rows and columns), B^T applied along the rows and then along the columns
// (4 multiply-adds each, not 16), the per-tile-point product over the input channels (the
// tiles one axis t, the output channels the vectors), A^T along the columns and then the
// rows, where the bias and the fused ReLU go.
// CHECK-LABEL: func.func @k0_conv2d_winograd_relu(
// CHECK:         kernel.compute "pad" %padded(i0 = 1, i1 = 2, i2 = 8, i3 = 8, i4 = 16)
// CHECK:           kernel.load %0[%i0, %i1, %i2 + -1, %i3 + -1, %i4] pad 0.000000e+00
// CHECK:         kernel.compute "wino_rows{{[0-9]*}}" %wino_rows(n = 1, i = 4, co = 2, ty = 3, x = 8, ci = 16) reduce(p = 4)
// CHECK:           affine.load %2[%i, %p] : memref<4x4xf32>
// CHECK-NEXT:      affine.load %padded[%n, %co, %ty * 2 + %p, %x, %ci]
// CHECK:         kernel.compute "wino_in{{[0-9]*}}" %wino_in(n = 1, i = 4, j = 4, co = 2, t = 9, ci = 16) reduce(q = 4)
// CHECK:           affine.load %2[%j, %q] : memref<4x4xf32>
// CHECK-NEXT:      affine.load %wino_rows[%n_2, %i_2, %co_2, %t floordiv 3, %t mod 3 * 2 + %q, %ci_2]
// CHECK:         kernel.compute "wino_gemm{{[0-9]*}}" %wino_gemm(n = 1, i = 4, j = 4, mo = 2, t = 9, mi = 16) reduce(co = 2, ci = 16)
// CHECK:           affine.load %wino_in[%n_4, %i_4, %j_2, %co_4, %t_2, %ci_4]
// CHECK-NEXT:      affine.load %1[%i_4 * 4 + %j_2, %mo, %co_4, %ci_4, %mi] : memref<16x2x2x16x16xf32>
// CHECK:         kernel.compute "wino_cols{{[0-9]*}}" %wino_cols(n = 1, i = 4, mo = 2, s = 2, t = 9, mi = 16) reduce(j = 4)
// CHECK:           affine.load %3[%s, %j_4] : memref<2x4xf32>
// CHECK-NEXT:      affine.load %wino_gemm[%n_6, %i_6, %j_4, %mo_2, %t_4, %mi_2]
// CHECK:         kernel.compute "wino_out{{[0-9]*}}" %5(n = 1, mo = 2, oh = 6, ow = 5, mi = 16) reduce(i = 4)
// CHECK:           affine.load %3[%oh mod 2, %i_8] : memref<2x4xf32>
// CHECK-NEXT:      affine.load %wino_cols[%n_8, %i_8, %mo_4, %ow mod 2, %oh floordiv 2 * 3 + %ow floordiv 2, %mi_4]
// CHECK:         } then {
// CHECK:           affine.load %4[%mo_5 * 16 + %mi_5] : memref<32xf32>
// CHECK:           arith.maximumf
func.func @main(%x: tensor<1x2x6x5x16xf32>, %u: tensor<16x2x2x16x16xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>, %b: tensor<32xf32>) -> tensor<1x2x6x5x16xf32> {
  %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x5x16xf32>, tensor<16x2x2x16x16xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<32xf32>) -> tensor<1x2x6x5x16xf32>
  %r = tg.relu %y : tensor<1x2x6x5x16xf32>
  func.return %r : tensor<1x2x6x5x16xf32>
}
