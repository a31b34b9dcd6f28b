// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @max_pool2d_kernel_entries(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op kernel must have 2 entries, got 1
  %y = tg.max_pool2d %x {kernel = array<i64: 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @max_pool2d_zero_kernel(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op kernel must be positive, got [0, 2]
  %y = tg.max_pool2d %x {kernel = array<i64: 0, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

// A window that could lie wholly in the padding has no input element.
func.func @max_pool2d_pads_too_big(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op pads [2, 0, 0, 0] must be smaller than the window
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 2, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x5x3xf32>
  func.return
}

// -----

func.func @max_pool2d_ceil_mode_integer(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op property 'ceil_mode' must be true or false, got 1 : i64
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = 1 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @max_pool2d_storage_order(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op storage_order must be 0 or 1, got 2
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @max_pool2d_window_too_big(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op the pooling window does not fit the input tensor<1x1x4x4xf32>
  %y = tg.max_pool2d %x {kernel = array<i64: 5, 5>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  func.return
}

// -----

func.func @max_pool2d_result(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op result #0 type should be tensor<1x1x3x3xf32>, got tensor<1x1x2x2xf32>
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  func.return
}

// -----

// Indices are i64.
func.func @max_pool2d_indices_type(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op result #1 type should be tensor<1x1x3x3xi64>, got tensor<1x1x3x3xi32>
  %y, %i = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi32>)
  func.return
}

// -----

func.func @max_pool2d_indices_shape(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op result #1 type should be tensor<1x1x3x3xi64>, got tensor<1x1x2x3xi64>
  %y, %i = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x2x3xi64>)
  func.return
}

// -----

func.func @max_pool2d_input_rank(%x: tensor<1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op input must have rank 4, got tensor<1x4x4xf32>
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x4xf32>) -> tensor<1x3x3xf32>
  func.return
}

// -----

func.func @max_pool2d_bool(%x: tensor<1x1x4x4xi1>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op input must be numeric, got i1
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xi1>) -> tensor<1x1x3x3xi1>
  func.return
}

// -----

func.func @max_pool2d_three_results(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op Expected 1 or 2 results, but got 3
  %y:3 = "tg.max_pool2d"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}> : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>, tensor<1x1x3x3xi64>)
  func.return
}

// -----

func.func @max_pool3d_kernel_entries(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op kernel must have 3 entries, got 2
  %y = tg.max_pool3d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x3xf32>
  func.return
}

// -----

func.func @max_pool3d_pads_entries(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op pads must have 6 entries, got 4
  %y = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x3xf32>
  func.return
}

// -----

func.func @max_pool3d_result(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op result #0 type should be tensor<1x1x3x3x3xf32>, got tensor<1x1x3x3x3xf16>
  %y = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x3xf16>
  func.return
}

// -----

func.func @max_pool3d_indices(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op result #1 type should be tensor<1x1x3x3x3xi64>, got tensor<1x1x3x3x3xf32>
  %y, %i = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4x4xf32>) -> (tensor<1x1x3x3x3xf32>, tensor<1x1x3x3x3xf32>)
  func.return
}

// -----

func.func @max_pool3d_input_rank(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op input must have rank 5, got tensor<1x1x4x4xf32>
  %y = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @avg_pool2d_integer(%x: tensor<1x1x4x4xi32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op input must have a float element type, got i32
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xi32>) -> tensor<1x1x3x3xi32>
  func.return
}

// -----

func.func @avg_pool2d_missing_count_include_pad(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op property 'count_include_pad' expected in operation 'tg.avg_pool2d'
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @avg_pool2d_count_include_pad_integer(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op property 'count_include_pad' must be true or false, got 0 : i64
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = 0 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @avg_pool2d_result(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op result type should be tensor<1x1x3x3xf32>, got tensor<1x1x2x3xf32>
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x3xf32>
  func.return
}

// -----

func.func @avg_pool2d_negative_pads(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op tg.avg_pool2d pads must be non-negative, got [0, 0, -1, 0]
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, -1, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x3xf32>
  func.return
}

// -----

func.func @avg_pool3d_pads_too_big(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool3d' op pads [2, 0, 0, 0, 0, 0] must be smaller than the window
  %y = tg.avg_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 2, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x5x3x3xf32>
  func.return
}

// -----

func.func @avg_pool3d_result(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool3d' op result type should be tensor<1x1x3x3x3xf32>, got tensor<1x1x3x3x4xf32>
  %y = tg.avg_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x4xf32>
  func.return
}

// -----

func.func @avg_pool3d_input_rank(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool3d' op input must have rank 5, got tensor<1x1x4x4xf32>
  %y = tg.avg_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @avg_pool3d_integer(%x: tensor<1x1x4x4x4xui8>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool3d' op input must have a float element type, got ui8
  %y = tg.avg_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x1x4x4x4xui8>) -> tensor<1x1x3x3x3xui8>
  func.return
}

// -----

// The spatial dims are kept as 1x1.
func.func @global_avg_pool2d_result(%x: tensor<1x3x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.global_avg_pool2d' op result type should be tensor<1x3x1x1xf32>, got tensor<1x3xf32>
  %y = tg.global_avg_pool2d %x : (tensor<1x3x4x4xf32>) -> tensor<1x3xf32>
  func.return
}

// -----

func.func @global_avg_pool2d_rank(%x: tensor<1x3x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.global_avg_pool2d' op input must have rank 4, got tensor<1x3x4xf32>
  %y = tg.global_avg_pool2d %x : (tensor<1x3x4xf32>) -> tensor<1x3x1xf32>
  func.return
}

// -----

func.func @global_avg_pool2d_integer(%x: tensor<1x3x4x4xi32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.global_avg_pool2d' op input must have a float element type, got i32
  %y = tg.global_avg_pool2d %x : (tensor<1x3x4x4xi32>) -> tensor<1x3x1x1xi32>
  func.return
}

// -----

func.func @lp_pool2d_p_zero(%x: tensor<1x1x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.lp_pool2d' op p must be positive, got 0
  %y = tg.lp_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 0 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return
}

// -----

func.func @lp_pool2d_integer(%x: tensor<1x1x4x4xi32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.lp_pool2d' op input must have a float element type, got i32
  %y = tg.lp_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 2 : i64} : (tensor<1x1x4x4xi32>) -> tensor<1x1x3x3xi32>
  func.return
}

// -----

func.func @lp_pool3d_missing_p(%x: tensor<1x1x4x4x4xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.lp_pool3d' op property 'p' expected in operation 'tg.lp_pool3d'
  %y = tg.lp_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x3xf32>
  func.return
}

// -----

func.func @blocked_layout_name(%x: tensor<1x2x9x9x16xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op layout must be "NCHW" or "NCHW<k>c", got "NHWC"
  %y = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, layout = "NHWC"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32>
  func.return
}

// -----

func.func @blocked_lane_mismatch(%x: tensor<1x2x9x9x8xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.avg_pool2d' op the input's last dim must be the block 16, got tensor<1x2x9x9x8xf32>
  %y = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false, layout = "NCHW16c"} : (tensor<1x2x9x9x8xf32>) -> tensor<1x2x4x4x8xf32>
  func.return
}

// -----

func.func @blocked_with_indices(%x: tensor<1x2x9x9x16xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool2d' op a blocked max pool has no Indices result
  %y, %i = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> (tensor<1x2x4x4x16xf32>, tensor<1x2x4x4x16xi64>)
  func.return
}

// -----

func.func @blocked_3d(%x: tensor<1x2x4x9x9x16xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max_pool3d' op a blocked layout applies to 2-D pooling only
  %y = tg.max_pool3d %x {kernel = array<i64: 1, 3, 3>, strides = array<i64: 1, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, layout = "NCHW16c"} : (tensor<1x2x4x9x9x16xf32>) -> tensor<1x2x4x4x4x16xf32>
  func.return
}

// -----

func.func @global_blocked_rank(%x: tensor<1x32x9x9xf32>) {
  // CHECK: pool-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.global_avg_pool2d' op input must have rank 5
  %y = tg.global_avg_pool2d %x {layout = "NCHW16c"} : (tensor<1x32x9x9xf32>) -> tensor<1x32x1x1xf32>
  func.return
}
