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

// -----

// A matmul by a packed [N/16, K, 16] weight: batched input, and a last block padded
// (40 columns in 3 blocks of 16).
// CHECK-LABEL: func.func @dense_packed
// CHECK: tg.dense_packed %a, %w {columns = 48 : i64} : (tensor<2x5x64xf32>, tensor<3x64x16xf32>) -> tensor<2x5x48xf32>
// CHECK: tg.dense_packed %v, %w {columns = 40 : i64} : (tensor<1x64xf32>, tensor<3x64x16xf32>) -> tensor<1x40xf32>
func.func @dense_packed(%a: tensor<2x5x64xf32>, %v: tensor<1x64xf32>, %w: tensor<3x64x16xf32>) -> tensor<1x40xf32> {
  %y = tg.dense_packed %a, %w {columns = 48 : i64} : (tensor<2x5x64xf32>, tensor<3x64x16xf32>) -> tensor<2x5x48xf32>
  %z = tg.dense_packed %v, %w {columns = 40 : i64} : (tensor<1x64xf32>, tensor<3x64x16xf32>) -> tensor<1x40xf32>
  func.return %z : tensor<1x40xf32>
}

// -----

// dense_packed_bf16: the weight as bfloat16 pairs (i32 words), K = 63 in 32 pairs.
// CHECK-LABEL: func.func @dense_packed_bf16
// CHECK: tg.dense_packed_bf16 %a, %w {columns = 40 : i64} : (tensor<2x5x63xf32>, tensor<3x32x16xi32>) -> tensor<2x5x40xf32>
func.func @dense_packed_bf16(%a: tensor<2x5x63xf32>, %w: tensor<3x32x16xi32>) -> tensor<2x5x40xf32> {
  %y = tg.dense_packed_bf16 %a, %w {columns = 40 : i64} : (tensor<2x5x63xf32>, tensor<3x32x16xi32>) -> tensor<2x5x40xf32>
  func.return %y : tensor<2x5x40xf32>
}

// -----

// conv2d_nchwc_bf16: the weight as bfloat16 pairs of input channels (i32 words).
// CHECK-LABEL: func.func @conv2d_nchwc_bf16
// CHECK: tg.conv2d_nchwc_bf16 %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x8x16xi32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
func.func @conv2d_nchwc_bf16(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x3x3x8x16xi32>, %b: tensor<32xf32>) -> tensor<1x2x4x4x16xf32> {
  %y = tg.conv2d_nchwc_bf16 %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x8x16xi32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
  func.return %y : tensor<1x2x4x4x16xf32>
}

// -----

// Depthwise: one filter per channel, each lane its own channel.
// CHECK-LABEL: func.func @depthwise
// CHECK: tg.depthwise_conv2d_nchwc %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
func.func @depthwise(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x1x3x3x1x16xf32>, %b: tensor<32xf32>) -> tensor<1x2x4x4x16xf32> {
  %y = tg.depthwise_conv2d_nchwc %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
  func.return %y : tensor<1x2x4x4x16xf32>
}
