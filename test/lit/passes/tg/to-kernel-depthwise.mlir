// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// A blocked depthwise convolution whose window does fewer than 9 multiply-adds per input
// element (3x3 at stride 2: 2.25) reads its input through padded loads (the bounds are the
// same for the 16 channel lanes), with no padded copy of the input as a stage of its own:
// the copy would cost about what it saves. The relu after it is its epilogue.
// CHECK-LABEL: func.func @k0_depthwise_conv2d_nchwc_relu(
// CHECK-NOT:     kernel.compute "pad"
// CHECK:         kernel.compute "dwconv" %{{.*}}(n = 1, b = 2, oh = 4, ow = 4, i = 16) reduce(kh = 3, kw = 3) combine "add"
// CHECK:           kernel.load %{{.*}}[%n, %b, %oh * 2 + -1 + %kh, %ow * 2 + -1 + %kw, %i] pad 0.000000e+00 : f32 : memref<1x2x8x8x16xf32>
// CHECK:         } then {
// CHECK:           arith.maximumf
// CHECK-NOT:     kernel.compute
// CHECK:         func.return
func.func @main(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %y = tg.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x4x4x16xf32>
  %r = tg.relu %y : tensor<1x2x4x4x16xf32>
  func.return %r : tensor<1x2x4x4x16xf32>
}

// -----

// At stride 1 a 3x3 window does 9 multiply-adds per input element (a 5x5 one 25): the
// input is copied once into a zero-bordered temporary (stage "pad", the only padded
// loads), and the convolution's loads have no bounds checks. Each padded load was four
// compares and a masked load; MNASNet ran 1.14x faster with the copies.
// CHECK-LABEL: func.func @k0_depthwise_conv2d_nchwc_relu(
// CHECK:         %[[P:.*]] = memref.alloc() : memref<1x2x12x12x16xf32>
// CHECK:         kernel.compute "pad" %[[P]](i0 = 1, i1 = 2, i2 = 12, i3 = 12, i4 = 16)
// CHECK:           kernel.load %{{.*}}[%i0, %i1, %i2 + -2, %i3 + -2, %i4] pad 0.000000e+00 : f32 : memref<1x2x8x8x16xf32>
// CHECK:         kernel.compute "dwconv{{[0-9]*}}" %{{.*}}(n = 1, b = 2, oh = 8, ow = 8, i = 16) reduce(kh = 5, kw = 5) combine "add"
// CHECK-NOT:       kernel.load
// CHECK:           affine.load %[[P]][%n, %b, %oh + %kh, %ow + %kw, %i] : memref<1x2x12x12x16xf32>
// CHECK-NOT:       kernel.load
// CHECK:         } then {
// CHECK:         memref.dealloc %[[P]]
func.func @main(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x1x5x5x1x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %y = tg.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x5x5x1x16xf32>) -> tensor<1x2x8x8x16xf32>
  %r = tg.relu %y : tensor<1x2x8x8x16xf32>
  func.return %r : tensor<1x2x8x8x16xf32>
}
