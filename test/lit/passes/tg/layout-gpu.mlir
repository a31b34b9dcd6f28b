// RUN: %tessel-opt %s -p 'tg-layout{pack_dense=false}' | filecheck %s
// RUN: %tessel-opt %s -p 'tg-layout' | filecheck %s --check-prefix=CPU

// On the gpu target (pack_dense=false) a matmul by a constant stays a matmul: the CPU's
// [N/16, K, 16] packing indexes the matrix with floordiv/mod, which keeps it out of the GPU's
// shared-memory tiles; a gemm's constant b^T is still transposed once, and convolutions are
// still blocked.
// CHECK-LABEL: func.func @dense
// CHECK-NOT:  tg.dense_packed
// CHECK:      %y = tg.matmul %a, %w
// CHECK:      tg.transpose %wt {perm = array<i64: 1, 0>}
// CHECK:      tg.gemm
// CHECK:      tg.conv2d_nchwc
// CPU:        tg.dense_packed %a
func.func @dense(%a: tensor<2x8x64xf32>, %v: tensor<4x64xf32>, %c: tensor<32xf32>, %x: tensor<1x16x8x8xf32>) -> (tensor<2x8x40xf32>, tensor<4x32xf32>, tensor<1x16x8x8xf32>) {
  %w = tg.constant dense<0.5> : tensor<64x40xf32>
  %wt = tg.constant dense<0.25> : tensor<32x64xf32>
  %k = tg.constant dense<0.125> : tensor<16x16x3x3xf32>
  %y = tg.matmul %a, %w : (tensor<2x8x64xf32>, tensor<64x40xf32>) -> tensor<2x8x40xf32>
  %g = tg.gemm %v, %wt, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %r = tg.conv2d %x, %k {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  func.return %y, %g, %r : tensor<2x8x40xf32>, tensor<4x32xf32>, tensor<1x16x8x8xf32>
}
