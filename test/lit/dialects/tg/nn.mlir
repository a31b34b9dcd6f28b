// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @matmul_2d
// CHECK: %{{.*}} = tg.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %y = tg.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}

// -----

// Batch dims broadcast: (2, 1) with (5,) gives (2, 5).
// CHECK-LABEL: func.func @matmul_batched
// CHECK: %{{.*}} = tg.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
func.func @matmul_batched(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %y = tg.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  func.return %y : tensor<2x5x3x6xf32>
}

// -----

// A 1-D operand is promoted to a matrix, then its dim is squeezed from the result.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK: %{{.*}} = tg.matmul %v, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
// CHECK: %{{.*}} = tg.matmul %a, %v : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = tg.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
func.func @matmul_vectors(%v: tensor<4xf32>, %a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<f32> {
  %vm = tg.matmul %v, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  %mv = tg.matmul %a, %v : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  %dot = tg.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  func.return %dot : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @matmul_integer
// CHECK: %{{.*}} = tg.matmul %a, %b : (tensor<1x2xi32>, tensor<2x1xi32>) -> tensor<1x1xi32>
func.func @matmul_integer(%a: tensor<1x2xi32>, %b: tensor<2x1xi32>) -> tensor<1x1xi32> {
  %y = tg.matmul %a, %b : (tensor<1x2xi32>, tensor<2x1xi32>) -> tensor<1x1xi32>
  func.return %y : tensor<1x1xi32>
}

// -----

// CHECK-LABEL: func.func @gemm_bias
// CHECK: %{{.*}} = tg.gemm %a, %b, %c {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
func.func @gemm_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// op(A) = A^T is 2x3 and op(B) = B^T is 3x4; C of shape 2x1 broadcasts to 2x4.
// CHECK-LABEL: func.func @gemm_transposed
// CHECK: %{{.*}} = tg.gemm %a, %b, %c {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
func.func @gemm_transposed(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %y = tg.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_no_c
// CHECK: %{{.*}} = tg.gemm %a, %b {alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<1x8xf16>, tensor<10x8xf16>) -> tensor<1x10xf16>
func.func @gemm_no_c(%a: tensor<1x8xf16>, %b: tensor<10x8xf16>) -> tensor<1x10xf16> {
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 0.0 : f32, trans_a = false, trans_b = true} : (tensor<1x8xf16>, tensor<10x8xf16>) -> tensor<1x10xf16>
  func.return %y : tensor<1x10xf16>
}

// -----

// A 0-d C broadcasts to any (M, N).
// CHECK-LABEL: func.func @gemm_scalar_c
// CHECK: %{{.*}} = tg.gemm %a, %b, %c {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false} : (tensor<1x1xf32>, tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
func.func @gemm_scalar_c(%a: tensor<1x1xf32>, %b: tensor<1x3xf32>, %c: tensor<f32>) -> tensor<1x3xf32> {
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<1x1xf32>, tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  func.return %y : tensor<1x3xf32>
}

// -----

// (224 + 3 + 3 - 7) // 2 + 1 = 112
// CHECK-LABEL: func.func @conv2d_bias
// CHECK: %{{.*}} = tg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
func.func @conv2d_bias(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  func.return %y : tensor<1x64x112x112xf32>
}

// -----

// Depthwise: 8 groups of one channel each, no bias.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK: %{{.*}} = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32>
func.func @conv2d_depthwise(%x: tensor<1x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32>
  func.return %y : tensor<1x8x10x10xf32>
}

// -----

// 2 groups, dilation 2: the 3x3 window spans 5, so 9 - 5 + 1 = 5.
// CHECK-LABEL: func.func @conv2d_grouped_dilated
// CHECK: %{{.*}} = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32>
func.func @conv2d_grouped_dilated(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32> {
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32>
  func.return %y : tensor<1x6x5x5xf32>
}

// -----

// pads = [top, left, bottom, right]: H = (5 + 0 + 1 - 2) // 2 + 1 = 3, W = (6 + 1 + 0 - 3) // 1 + 1 = 5.
// CHECK-LABEL: func.func @conv2d_asymmetric
// CHECK: %{{.*}} = tg.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x1x5x6xf32>, tensor<1x1x2x3xf32>) -> tensor<2x1x3x5xf32>
func.func @conv2d_asymmetric(%x: tensor<2x1x5x6xf32>, %w: tensor<1x1x2x3xf32>) -> tensor<2x1x3x5xf32> {
  %y = tg.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x1x5x6xf32>, tensor<1x1x2x3xf32>) -> tensor<2x1x3x5xf32>
  func.return %y : tensor<2x1x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @conv2d_integer
// CHECK: %{{.*}} = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<2xi8>) -> tensor<1x2x2x2xi8>
func.func @conv2d_integer(%x: tensor<1x1x3x3xi8>, %w: tensor<2x1x2x2xi8>, %b: tensor<2xi8>) -> tensor<1x2x2x2xi8> {
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<2xi8>) -> tensor<1x2x2x2xi8>
  func.return %y : tensor<1x2x2x2xi8>
}

// -----

// 2 * (3 - 1) + 1 + 3 - 1 - 1 = 6 per spatial dim; weights are (C, M/groups, kH, kW).
// CHECK-LABEL: func.func @conv_transpose2d_bias
// CHECK: %{{.*}} = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
func.func @conv_transpose2d_bias(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %y = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// 2 groups of 3 output channels; dilation 2 makes the 2x2 window span 3: 1 * 4 + 3 = 7.
// CHECK-LABEL: func.func @conv_transpose2d_grouped
// CHECK: %{{.*}} = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x2x2xf32>) -> tensor<1x6x7x7xf32>
func.func @conv_transpose2d_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<1x6x7x7xf32> {
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x2x2xf32>) -> tensor<1x6x7x7xf32>
  func.return %y : tensor<1x6x7x7xf32>
}

// -----

// H = 3 * 1 + 2 + 3 - 1 - 0 = 7, W = 2 * 2 + 1 + 2 - 0 - 1 = 6.
// CHECK-LABEL: func.func @conv_transpose2d_asymmetric
// CHECK: %{{.*}} = tg.conv_transpose2d %x, %w {strides = array<i64: 3, 2>, pads = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 2, 1>, groups = 1 : i64} : (tensor<1x1x2x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x7x6xf32>
func.func @conv_transpose2d_asymmetric(%x: tensor<1x1x2x3xf32>, %w: tensor<1x1x3x2xf32>) -> tensor<1x1x7x6xf32> {
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 3, 2>, pads = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 2, 1>, groups = 1 : i64} : (tensor<1x1x2x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x7x6xf32>
  func.return %y : tensor<1x1x7x6xf32>
}


// -----

// 3-D: NCDHW input, (M, C/groups, kD, kH, kW) weights, pads [front, top, left, back,
// bottom, right].
// CHECK-LABEL: func.func @conv3d
// CHECK: %{{.*}} = tg.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>, pads = array<i64: 1, 0, 1, 1, 0, 1>, dilations = array<i64: 2, 1, 1>, groups = 2 : i64} : (tensor<1x4x6x7x8xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x3x4xf32>
func.func @conv3d(%x: tensor<1x4x6x7x8xf32>, %w: tensor<6x2x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x3x4xf32> {
  %y = tg.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>, pads = array<i64: 1, 0, 1, 1, 0, 1>, dilations = array<i64: 2, 1, 1>, groups = 2 : i64} : (tensor<1x4x6x7x8xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x3x4xf32>
  func.return %y : tensor<1x6x4x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose3d
// CHECK: %{{.*}} = tg.conv_transpose3d %x, %w {strides = array<i64: 2, 1, 3>, pads = array<i64: 0, 1, 0, 1, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 0, 2>} : (tensor<1x2x3x4x2xf32>, tensor<2x5x2x3x2xf32>) -> tensor<1x5x6x5x7xf32>
func.func @conv_transpose3d(%x: tensor<1x2x3x4x2xf32>, %w: tensor<2x5x2x3x2xf32>) -> tensor<1x5x6x5x7xf32> {
  %y = tg.conv_transpose3d %x, %w {strides = array<i64: 2, 1, 3>, pads = array<i64: 0, 1, 0, 1, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 0, 2>} : (tensor<1x2x3x4x2xf32>, tensor<2x5x2x3x2xf32>) -> tensor<1x5x6x5x7xf32>
  func.return %y : tensor<1x5x6x5x7xf32>
}
