// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel | filecheck %s

// A blocked depthwise convolution reads its input through padded loads (the bounds are the
// same for the 16 channel lanes), with no padded copy of the input as a stage of its own:
// 9 multiply-adds an output do not pay for the copy. The relu after it is its epilogue.
// CHECK-LABEL: func.func @k0_depthwise_conv2d_nchwc_relu(
// CHECK-NOT:     kernel.compute "pad"
// CHECK:         kernel.compute "dwconv" %{{.*}}(n = 1, b = 2, oh = 8, ow = 8, i = 16) reduce(kh = 3, kw = 3) combine "add"
// CHECK:           kernel.load %{{.*}}[%n, %b, %oh + -1 + %kh, %ow + -1 + %kw, %i] pad 0.000000e+00 : f32 : memref<1x2x8x8x16xf32>
// CHECK:         } then {
// CHECK:           arith.maximumf
// CHECK-NOT:     kernel.compute
// CHECK:         func.return
func.func @main(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %y = tg.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x8x8x16xf32>
  %r = tg.relu %y : tensor<1x2x8x8x16xf32>
  func.return %r : tensor<1x2x8x8x16xf32>
}
