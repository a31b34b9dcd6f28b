// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op matmul operands must have rank >= 1
  %y = tg.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op contraction sizes differ: lhs (2, 3) has 3, rhs (4, 5) has 4
  %y = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op shapes (2,) and (3,) do not broadcast
  %y = tg.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<3x3x5xf32>
  func.return
}

// -----

func.func @matmul_bool(%a: tensor<2x3xi1>, %b: tensor<3x5xi1>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op lhs must be numeric, got i1
  %y = tg.matmul %a, %b : (tensor<2x3xi1>, tensor<3x5xi1>) -> tensor<2x5xi1>
  func.return
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x5xf16>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op operands must have the same element type, got f32 and f16
  %y = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf16>) -> tensor<2x5xf32>
  func.return
}

// -----

// The promoted dim of a 1-D operand is squeezed from the result.
func.func @matmul_vector_not_squeezed(%a: tensor<3xf32>, %b: tensor<3x5xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul' op result type should be tensor<5xf32>, got tensor<1x5xf32>
  %y = tg.matmul %a, %b : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<1x5xf32>
  func.return
}

// -----

// trans_a makes op(A) 3x2.
func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op contraction sizes differ: 2 (a) and 3 (b)
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x1xf32>, %b: tensor<3x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op a must have rank 2, got tensor<2x3x1xf32>
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3x1xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<1x2x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op c of shape (1, 2, 4) does not broadcast to (2, 4)
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x2x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// C must broadcast to (M, N), not the other way round.
func.func @gemm_c_grows_result(%a: tensor<1x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op c of shape (2, 4) does not broadcast to (1, 4)
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<1x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

func.func @gemm_c_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf16>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op operands must have the same element type, got f32 and f16
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gemm_trans_integer(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op property 'trans_a' must be true or false, got 0 : i64
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = 0 : i64, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gemm_missing_beta(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op property 'beta' expected in operation 'tg.gemm'
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gemm_bool(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op a must be numeric, got i1
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
  func.return
}

// -----

func.func @gemm_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op result type should be tensor<2x4xf32>, got tensor<4x2xf32>
  %y = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  func.return
}

// -----

func.func @conv2d_groups_input_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op groups=3 must divide the 4 input channels
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_groups_output_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<6x1x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op groups=4 must divide the 6 output channels
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_groups_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op groups=0 must divide the 4 input channels
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 0 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_weight_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op weight has 4 input channels per group, expected 2
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_bias_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op bias must have shape (6,), got tensor<4xf32>
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_bias_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<1x6xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op bias must have shape (6,), got tensor<1x6xf32>
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<1x6xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_window_too_big(%x: tensor<1x4x2x2xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op the 3x3 window does not fit the padded 2x2 input
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x1x1xf32>
  func.return
}

// -----

func.func @conv2d_strides_entries(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op strides must have 2 entries, got 1
  %y = tg.conv2d %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_pads_entries(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op pads must have 4 entries, got 2
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_dilations_entries(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op dilations must have 2 entries, got 3
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_zero_stride(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op strides must be positive, got [0, 1]
  %y = tg.conv2d %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_zero_dilation(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op dilations must be positive, got [1, 0]
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_negative_pads(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op conv2d pads must be non-negative, got [-1, 0, 0, 0]
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x2x3xf32>
  func.return
}

// -----

func.func @conv2d_float_strides(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op property 'strides' must be an array<i64: ...>, got array<f32: 1.000000e+00, 1.000000e+00>
  %y = tg.conv2d %x, %w {strides = array<f32: 1.0, 1.0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_bool_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op property 'groups' must be an integer, got true
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = true} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_missing_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op property 'groups' expected in operation 'tg.conv2d'
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_input_rank(%x: tensor<1x4x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op input must have rank 4, got tensor<1x4x5xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_weight_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op weight must have rank 4, got tensor<6x4x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv2d_bool(%x: tensor<1x4x5x5xi1>, %w: tensor<6x4x3x3xi1>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op input must be numeric, got i1
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xi1>, tensor<6x4x3x3xi1>) -> tensor<1x6x3x3xi1>
  func.return
}

// -----

func.func @conv2d_element_types(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf16>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op operands must have the same element type, got f32 and f16
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf16>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

// Unpadded 3x3 windows over 5x5 give 3x3.
func.func @conv2d_result(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op result type should be tensor<1x6x3x3xf32>, got tensor<1x6x5x5xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32>
  func.return
}

// -----

// Weights are (C, M/groups, kH, kW): dim 0 is the input channels.
func.func @conv_transpose2d_weight_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op weight has 3 input channels, the input has 4
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op groups=3 must divide the 4 input channels
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op bias must have shape (2,), got tensor<4xf32>
  %y = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x2x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_output_padding_entries(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op output_padding must have 2 entries, got 1
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_empty(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op output size [0, 1] is empty
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  func.return
}

// -----

func.func @conv_transpose2d_negative_pads(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op conv_transpose2d pads must be non-negative, got [0, 0, 0, -1]
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, -1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x8xf32>
  func.return
}

// -----

func.func @conv_transpose2d_missing_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op property 'output_padding' expected in operation 'tg.conv_transpose2d'
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_bool(%x: tensor<1x4x5x5xi1>, %w: tensor<4x2x3x3xi1>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op input must be numeric, got i1
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x5x5xi1>, tensor<4x2x3x3xi1>) -> tensor<1x2x7x7xi1>
  func.return
}

// -----

// 1 * (5 - 1) + 3 = 7
func.func @conv_transpose2d_result(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op result type should be tensor<1x2x7x7xf32>, got tensor<1x2x5x5xf32>
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  func.return
}

// -----

func.func @conv_transpose2d_negative_output_padding(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op output_padding [-1, 0] must be in [0, max(stride, dilation))
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: -1, 0>, groups = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x6x7xf32>
  func.return
}

// -----

func.func @conv_transpose2d_output_padding_too_large(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose2d' op output_padding [3, 0] must be in [0, max(stride, dilation))
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 3, 0>, groups = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x8x5xf32>
  func.return
}

// -----

func.func @conv2d_i32_array(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d' op property 'strides' must be an array<i64: ...>, got array<i32: 1, 1>
  %y = tg.conv2d %x, %w {strides = array<i32: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gemm' op c of shape (3,) does not broadcast to (2, 4)
  %y = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @conv3d_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv3d' op input must have rank 5, got tensor<1x4x5x5xf32>
  %y = tg.conv3d %x, %w {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return
}

// -----

func.func @conv3d_window_too_big(%x: tensor<1x4x2x5x5xf32>, %w: tensor<6x4x3x3x3xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv3d' op the 3x3x3 window does not fit the padded 2x5x5 input
  %y = tg.conv3d %x, %w {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64} : (tensor<1x4x2x5x5xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x1x3x3xf32>
  func.return
}

// -----

func.func @conv_transpose3d_output_padding(%x: tensor<1x2x3x4x2xf32>, %w: tensor<2x5x2x3x2xf32>) {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv_transpose3d' op output_padding must have 3 entries, got 2
  %y = tg.conv_transpose3d %x, %w {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x2x3x4x2xf32>, tensor<2x5x2x3x2xf32>) -> tensor<1x5x4x6x3xf32>
  func.return
}
