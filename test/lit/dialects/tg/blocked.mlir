// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @transforms
// CHECK: tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"} : tensor<1x32x5x6xf32> -> tensor<1x2x5x6x16xf32>
// CHECK: tg.layout_transform %b {src = "NCHW16c", dst = "NCHW"} : tensor<1x2x5x6x16xf32> -> tensor<1x32x5x6xf32>
// CHECK: tg.layout_transform %w {src = "OIHW", dst = "OIHW3i16o"} : tensor<32x3x7x7xf32> -> tensor<2x1x7x7x3x16xf32>
func.func @transforms(%x: tensor<1x32x5x6xf32>, %w: tensor<32x3x7x7xf32>) -> tensor<1x32x5x6xf32> {
  %b = tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"} : tensor<1x32x5x6xf32> -> tensor<1x2x5x6x16xf32>
  %u = tg.layout_transform %b {src = "NCHW16c", dst = "NCHW"} : tensor<1x2x5x6x16xf32> -> tensor<1x32x5x6xf32>
  %wb = tg.layout_transform %w {src = "OIHW", dst = "OIHW3i16o"} : tensor<32x3x7x7xf32> -> tensor<2x1x7x7x3x16xf32>
  func.return %u : tensor<1x32x5x6xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nchwc
// CHECK: tg.conv2d_nchwc %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>} : (tensor<1x1x16x16x3xf32>, tensor<2x1x7x7x3x16xf32>, tensor<32xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK: tg.conv2d_nchwc %y, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x2x8x8x16xf32>, tensor<1x2x3x3x16x16xf32>) -> tensor<1x1x4x4x16xf32>
func.func @conv_nchwc(%x: tensor<1x1x16x16x3xf32>, %w: tensor<2x1x7x7x3x16xf32>, %b: tensor<32xf32>, %w2: tensor<1x2x3x3x16x16xf32>) -> tensor<1x1x4x4x16xf32> {
  %y = tg.conv2d_nchwc %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>} : (tensor<1x1x16x16x3xf32>, tensor<2x1x7x7x3x16xf32>, tensor<32xf32>) -> tensor<1x2x8x8x16xf32>
  %z = tg.conv2d_nchwc %y, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x2x8x8x16xf32>, tensor<1x2x3x3x16x16xf32>) -> tensor<1x1x4x4x16xf32>
  func.return %z : tensor<1x1x4x4x16xf32>
}
