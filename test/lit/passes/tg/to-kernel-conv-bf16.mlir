// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel | filecheck %s

// tg.conv2d_nchwc_bf16 is two stages: `pairs` packs two input channels of a pixel into an
// i32 of two bfloat16 (rounded to nearest even), reading the input through the padding
// (padded loads of 0: the padded copy conv2d_nchwc makes anyway), [N, CO, H', W', cb/2];
// `conv_bf16` accumulates kernel.bf16dot2 of a pixel's word and the weight's words over
// (co, kh, kw, cp), the bias added in `then`.
// CHECK-LABEL: func.func @k0_conv2d_nchwc_bf16(
// CHECK:         kernel.compute "pairs" %pairs(i0 = 1, i1 = 2, i2 = 10, i3 = 10, i4 = 8) : memref<1x2x10x10x8xi32> {
// CHECK:           kernel.load %0[%i0, %i1, %i2 + -1, %i3 + -1, %i4 * 2] pad 0.000000e+00 : f32
// CHECK:           kernel.load %0[%i0, %i1, %i2 + -1, %i3 + -1, %i4 * 2 + 1] pad 0.000000e+00 : f32
// CHECK:         kernel.compute "conv_bf162" %3(n = 1, mo = 2, oh = 4, ow = 4, mi = 16) reduce(co = 2, kh = 3, kw = 3, cp = 8) combine "add" init 0.000000e+00 : f32 : memref<1x2x4x4x16xf32> {
// CHECK:           %[[A:.+]] = affine.load %pairs[%n, %co, %oh * 2 + %kh, %ow * 2 + %kw, %cp] : memref<1x2x10x10x8xi32>
// CHECK-NEXT:      %[[B:.+]] = affine.load %1[%mo, %co, %kh, %kw, %cp, %mi] : memref<2x2x3x3x8x16xi32>
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[D:.+]] = kernel.bf16dot2 %[[Z]], %[[A]], %[[B]] : f32, i32
// CHECK-NEXT:      kernel.yield %[[D]] : f32
// CHECK:         } then {
// CHECK:           affine.load %2[%mo_1 * 16 + %mi_1] : memref<32xf32>
func.func @main(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x3x3x8x16xi32>, %b: tensor<32xf32>) -> tensor<1x2x4x4x16xf32> {
  %y = tg.conv2d_nchwc_bf16 %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x8x16xi32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
  func.return %y : tensor<1x2x4x4x16xf32>
}
