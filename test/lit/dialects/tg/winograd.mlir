// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// tg.conv2d_winograd: F(4x4, 3x3) on NCHW16c (a 6x6 input transform, 36 transformed
// filters, a 4x6 output transform), with a bias; the output keeps the padded input's size
// minus the filter's 3 - 1.
// CHECK-LABEL: func.func @f4
// CHECK: %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x7x16xf32>, tensor<36x3x2x16x16xf32>, tensor<6x6xf32>, tensor<4x6xf32>, tensor<48xf32>) -> tensor<1x3x9x7x16xf32>
func.func @f4(%x: tensor<1x2x9x7x16xf32>, %u: tensor<36x3x2x16x16xf32>, %bt: tensor<6x6xf32>, %at: tensor<4x6xf32>, %b: tensor<48xf32>) -> tensor<1x3x9x7x16xf32> {
  %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x7x16xf32>, tensor<36x3x2x16x16xf32>, tensor<6x6xf32>, tensor<4x6xf32>, tensor<48xf32>) -> tensor<1x3x9x7x16xf32>
  func.return %y : tensor<1x3x9x7x16xf32>
}

// -----

// F(2x2, 3x3) without bias or padding: 8x6 -> 6x4.
// CHECK-LABEL: func.func @f2
// CHECK: tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 0, 0, 0, 0>} : (tensor<2x1x8x6x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<2x1x6x4x4xf32>
func.func @f2(%x: tensor<2x1x8x6x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) -> tensor<2x1x6x4x4xf32> {
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 0, 0, 0, 0>} : (tensor<2x1x8x6x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<2x1x6x4x4xf32>
  func.return %y : tensor<2x1x6x4x4xf32>
}
