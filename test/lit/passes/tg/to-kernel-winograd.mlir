// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel | filecheck %s

// tg.conv2d_winograd (here F(2x2, 3x3), a 6x5 output: 3 x 3 tiles, the last row and column
// of tiles half outside) is five stages: B^T applied along the rows, reading the input with
// zeros outside it (the pads and the tiles' overhang out to 3*2 + 2 = 8 rows and columns,
// no stage of their own), and then along the columns (element-wise stages of 4 multiply-
// adds each, not one of 16), the per-tile-point product over the input channels (the tiles
// one axis t, the output channels the vectors), A^T along the columns and then the rows,
// where the bias and the fused ReLU go.
// CHECK-LABEL: func.func @k0_conv2d_winograd_relu(
// CHECK-NOT:     kernel.compute "pad"
// CHECK:         kernel.compute "wino_rows{{[0-9]*}}" %wino_rows(i0 = 1, i1 = 4, i2 = 2, i3 = 3, i4 = 8, i5 = 16)
// CHECK:           affine.load %2[%[[I:.+]], 0] : memref<4x4xf32>
// CHECK-NEXT:      kernel.load %0[%{{.+}}, %{{.+}}, %[[TY:.+]] * 2 + -1, %[[X:.+]] + -1, %i5] pad 0.000000e+00
// CHECK:           affine.load %2[%[[I]], 3] : memref<4x4xf32>
// CHECK-NEXT:      kernel.load %0[%{{.+}}, %{{.+}}, %[[TY]] * 2 + 2, %[[X]] + -1, %i5] pad 0.000000e+00
// CHECK:         kernel.compute "wino_in{{[0-9]*}}" %wino_in(i0 = 1, i1 = 4, i2 = 4, i3 = 2, i4 = 9, i5 = 16)
// CHECK:           affine.load %wino_rows[%{{.+}}, %{{.+}}, %{{.+}}, %[[T:.+]] floordiv 3, %[[T]] mod 3 * 2 + 3, %{{.+}}]
// CHECK:         kernel.compute "wino_gemm{{[0-9]*}}" %wino_gemm(n = 1, i = 4, j = 4, mo = 2, t = 9, mi = 16) reduce(co = 2, ci = 16)
// CHECK:           affine.load %wino_in[%n, %i, %j, %co, %t, %ci]
// CHECK-NEXT:      affine.load %1[%i * 4 + %j, %mo, %co, %ci, %mi] : memref<16x2x2x16x16xf32>
// CHECK:         kernel.compute "wino_cols{{[0-9]*}}" %wino_cols(i0 = 1, i1 = 4, i2 = 2, i3 = 2, i4 = 9, i5 = 16)
// CHECK:           affine.load %wino_gemm[%{{.+}}, %{{.+}}, 3, %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK:         kernel.compute "wino_out{{[0-9]*}}" %5(i0 = 1, i1 = 2, i2 = 6, i3 = 5, i4 = 16)
// CHECK:           affine.load %3[%[[Y:.+]] mod 2, 0] : memref<2x4xf32>
// CHECK-NEXT:      affine.load %wino_cols[%{{.+}}, 0, %{{.+}}, %[[X:.+]] mod 2, %[[Y]] floordiv 2 * 3 + %[[X]] floordiv 2, %{{.+}}]
// CHECK:           affine.load %4[%{{.+}} * 16 + %{{.+}}] : memref<32xf32>
// CHECK:           arith.maximumf
func.func @main(%x: tensor<1x2x6x5x16xf32>, %u: tensor<16x2x2x16x16xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>, %b: tensor<32xf32>) -> tensor<1x2x6x5x16xf32> {
  %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x5x16xf32>, tensor<16x2x2x16x16xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<32xf32>) -> tensor<1x2x6x5x16xf32>
  %r = tg.relu %y : tensor<1x2x6x5x16xf32>
  func.return %r : tensor<1x2x6x5x16xf32>
}
