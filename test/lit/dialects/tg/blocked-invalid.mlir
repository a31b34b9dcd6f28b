// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @channels_do_not_split(%x: tensor<1x24x5x6xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layout_transform' op 24 channels do not split into blocks of 16
  %b = tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"} : tensor<1x24x5x6xf32> -> tensor<1x1x5x6x16xf32>
  func.return
}

// -----

func.func @unknown_layout(%x: tensor<1x32x5x6xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layout_transform' op no conversion from NCHW to NHWC
  %b = tg.layout_transform %x {src = "NCHW", dst = "NHWC"} : tensor<1x32x5x6xf32> -> tensor<1x5x6x32xf32>
  func.return
}

// -----

func.func @block_mismatch(%x: tensor<1x2x5x6x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layout_transform' op the block dim is 16, NCHW8c says 8
  %u = tg.layout_transform %x {src = "NCHW8c", dst = "NCHW"} : tensor<1x2x5x6x16xf32> -> tensor<1x32x5x6xf32>
  func.return
}

// -----

func.func @weight_blocks(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x2x3x3x8x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc' op weight blocks 2x8 differ from the input's 1x16
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<1x2x3x3x8x16xf32>) -> tensor<1x1x6x6x16xf32>
  func.return
}

// -----

func.func @groups_not_dividing(%x: tensor<1x4x8x8x16xf32>, %w: tensor<3x2x3x3x16x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc' op groups=2 must divide the 3 output blocks
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8x16xf32>, tensor<3x2x3x3x16x16xf32>) -> tensor<1x3x6x6x16xf32>
  func.return
}

// -----

func.func @group_blocks(%x: tensor<1x4x8x8x16xf32>, %w: tensor<4x1x3x3x16x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc' op weight blocks 1x16 (2 groups of them) differ from the input's 4x16
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8x16xf32>, tensor<4x1x3x3x16x16xf32>) -> tensor<1x4x6x6x16xf32>
  func.return
}

// -----

func.func @wrong_output(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x1x3x3x16x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc' op result type should be tensor<1x1x6x6x16xf32>, got tensor<1x1x8x8x16xf32>
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>) -> tensor<1x1x8x8x16xf32>
  func.return
}

// -----

func.func @bias_shape(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x1x3x3x16x16xf32>, %b: tensor<32xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc' op bias must have shape (16,), got tensor<32xf32>
  %y = tg.conv2d_nchwc %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>, tensor<32xf32>) -> tensor<1x1x6x6x16xf32>
  func.return
}

// -----

func.func @dense_contraction(%a: tensor<4x32xf32>, %w: tensor<2x64x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed' op contraction sizes differ: input has 32, weight has 64
  %y = tg.dense_packed %a, %w {columns = 32 : i64} : (tensor<4x32xf32>, tensor<2x64x16xf32>) -> tensor<4x32xf32>
  func.return
}

// -----

func.func @dense_columns(%a: tensor<4x64xf32>, %w: tensor<2x64x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed' op 16 columns do not fill 2 blocks of 16
  %y = tg.dense_packed %a, %w {columns = 16 : i64} : (tensor<4x64xf32>, tensor<2x64x16xf32>) -> tensor<4x16xf32>
  func.return
}

// -----

func.func @dense_weight_rank(%a: tensor<4x64xf32>, %w: tensor<64x32xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed' op packed weight must have rank 3
  %y = tg.dense_packed %a, %w {columns = 32 : i64} : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  func.return
}

// -----

func.func @depthwise_two_inputs_per_filter(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x3x3x1x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.depthwise_conv2d_nchwc' op a depthwise weight has one input channel per block, got tensor<2x2x3x3x1x16xf32>
  %y = tg.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x1x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return
}

// -----

func.func @depthwise_blocks(%x: tensor<1x2x8x8x16xf32>, %w: tensor<4x1x3x3x1x8xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.depthwise_conv2d_nchwc' op weight blocks 4x8 differ from the input's 2x16
  %y = tg.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<4x1x3x3x1x8xf32>) -> tensor<1x2x8x8x16xf32>
  func.return
}

// -----

func.func @dense_bf16_words(%a: tensor<4x64xf32>, %w: tensor<2x32x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed_bf16' op the packed weight holds bfloat16 pairs as i32, got f32
  %y = tg.dense_packed_bf16 %a, %w {columns = 32 : i64} : (tensor<4x64xf32>, tensor<2x32x16xf32>) -> tensor<4x32xf32>
  func.return
}

// -----

func.func @dense_bf16_pairs(%a: tensor<4x64xf32>, %w: tensor<2x64x16xi32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed_bf16' op contraction sizes differ: input has 64, weight 64 pairs
  %y = tg.dense_packed_bf16 %a, %w {columns = 32 : i64} : (tensor<4x64xf32>, tensor<2x64x16xi32>) -> tensor<4x32xf32>
  func.return
}

// -----

func.func @dense_bf16_input(%a: tensor<4x64xf16>, %w: tensor<2x32x16xi32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dense_packed_bf16' op the input must be f32, got f16
  %y = tg.dense_packed_bf16 %a, %w {columns = 32 : i64} : (tensor<4x64xf16>, tensor<2x32x16xi32>) -> tensor<4x32xf32>
  func.return
}

// -----

func.func @conv_bf16_pairs(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x3x3x16x16xi32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc_bf16' op weight blocks 2x16 pairs differ from the input's 2x16 channels
  %y = tg.conv2d_nchwc_bf16 %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x16x16xi32>) -> tensor<1x2x8x8x16xf32>
  func.return
}

// -----

func.func @conv_bf16_words(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x3x3x8x16xf32>) {
  // CHECK: blocked-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_nchwc_bf16' op the weight holds bfloat16 pairs as i32, got f32
  %y = tg.conv2d_nchwc_bf16 %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x8x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return
}
