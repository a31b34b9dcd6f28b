// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @grid_types(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf16>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op input and grid must have the same element type, got f32 and f16
  %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf16>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @grid_integer(%x: tensor<1x1x4x4xi32>, %g: tensor<1x2x2x2xi32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op input must have a float element type, got i32
  %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x1x4x4xi32>, tensor<1x2x2x2xi32>) -> tensor<1x1x2x2xi32>
  func.return
}

// -----

func.func @grid_mode(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op property 'mode' must be one of 'nearest', 'linear', 'cubic', got "bilinear"
  %y = tg.grid_sample %x, %g {mode = "bilinear", padding_mode = "zeros", align_corners = false} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @grid_padding(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op property 'padding_mode' must be one of 'zeros', 'border', 'reflection', got "wrap"
  %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "wrap", align_corners = false} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @grid_no_spatial(%x: tensor<1x4xf32>, %g: tensor<1x0xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op input must be (N, C, spatial...), got tensor<1x4xf32>
  %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x4xf32>, tensor<1x0xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

func.func @grid_shape(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x3xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op grid must be (N, out..., 2) for input tensor<1x1x4x4xf32>, got tensor<1x2x2x3xf32>
  %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x1x4x4xf32>, tensor<1x2x2x3xf32>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @grid_cubic_3d(%x: tensor<1x1x2x4x4xf32>, %g: tensor<1x2x2x2x3xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.grid_sample' op cubic sampling is 2-D only, got 3 spatial dims
  %y = tg.grid_sample %x, %g {mode = "cubic", padding_mode = "zeros", align_corners = false} : (tensor<1x1x2x4x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x1x2x2x2xf32>
  func.return
}

// -----

func.func @col2im_bool(%x: tensor<1x4x4xi1>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op col2im does not take booleans, got i1
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4xi1> -> tensor<1x1x3x3xi1>
  func.return
}

// -----

func.func @col2im_no_dims(%x: tensor<1x4x4xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op image_shape needs at least one dim
  %y = tg.col2im %x {image_shape = array<i64>, block_shape = array<i64>, dilations = array<i64>, pads = array<i64>, strides = array<i64>} : tensor<1x4x4xf32> -> tensor<1x4xf32>
  func.return
}

// -----

func.func @col2im_lengths(%x: tensor<1x4x4xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op block_shape, dilations, strides need 2 entries and pads 4
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @col2im_stride(%x: tensor<1x4x4xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op block sizes, dilations and strides must be >= 1
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : tensor<1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @col2im_rank(%x: tensor<4x4xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op input must be (N, C * block, L), got tensor<4x4xf32>
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @col2im_rows(%x: tensor<1x6x4xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op 6 rows do not hold whole blocks of 4
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @col2im_columns(%x: tensor<1x4x5xf32>) {
  // CHECK: resample-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.col2im' op 5 columns, but the image holds 2 x 2 blocks
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5xf32> -> tensor<1x1x3x3xf32>
  func.return
}
