// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @not_square(%x: tensor<1x1x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x3xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op the input transform must be square, got tensor<4x3xf32>
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x3xf32>, tensor<2x4xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @output_transform_width(%x: tensor<1x1x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x6xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op the output transform must be m x 4 with m <= 4, got tensor<2x6xf32>
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x6xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @tile_count(%x: tensor<1x1x8x8x4xf32>, %u: tensor<36x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op the transformed weight holds 36 tiles, the transforms need 4x4
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x4xf32>, tensor<36x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @input_blocks(%x: tensor<1x2x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op weight blocks 1x4 differ from the input's 2x4
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @pads(%x: tensor<1x1x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op pads must be 4 values >= 0, got [1, 1]
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 1, 1>} : (tensor<1x1x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @too_small(%x: tensor<1x1x1x2x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op the 3x3 filter does not fit the padded 1x2 input
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x1x2x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<1x1x1x1x4xf32>
  func.return
}

// -----

func.func @bias(%x: tensor<1x1x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>, %b: tensor<8xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op bias must have shape (4,), got tensor<8xf32>
  %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<8xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}

// -----

func.func @result(%x: tensor<1x1x8x8x4xf32>, %u: tensor<16x1x1x4x4xf32>, %bt: tensor<4x4xf32>, %at: tensor<2x4xf32>) {
  // CHECK: winograd-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_winograd' op result type should be tensor<1x1x6x6x4xf32>, got tensor<1x1x8x8x4xf32>
  %y = tg.conv2d_winograd %x, %u, %bt, %at {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x8x8x4xf32>, tensor<16x1x1x4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<1x1x8x8x4xf32>
  func.return
}
