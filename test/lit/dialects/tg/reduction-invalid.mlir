// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @reduce_sum_unsorted(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_sum' op axes [2, 0] must be sorted and unique
  %y = tg.reduce_sum %x {axes = array<i64: 2, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  func.return
}

// -----

func.func @reduce_sum_repeated(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_sum' op axes [1, 1] must be sorted and unique
  %y = tg.reduce_sum %x {axes = array<i64: 1, 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  func.return
}

// -----

func.func @reduce_mean_axis_range(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_mean' op axes [3] out of range for rank 3
  %y = tg.reduce_mean %x {axes = array<i64: 3>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return
}

// -----

// Axes are canonical: non-negative.
func.func @reduce_mean_negative_axis(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_mean' op axes [-1] out of range for rank 3
  %y = tg.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  func.return
}

// -----

func.func @reduce_mean_result(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_mean' op result type should be tensor<3xf32>, got tensor<1x3x1xf32>
  %y = tg.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  func.return
}

// -----

func.func @reduce_max_keepdims_integer(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_max' op property 'keepdims' must be true or false, got 1 : i64
  %y = tg.reduce_max %x {axes = array<i64: 1>, keepdims = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  func.return
}

// -----

func.func @reduce_max_dropdims(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_max' op result type should be tensor<2x4xf32>, got tensor<2x1x4xf32>
  %y = tg.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  func.return
}

// -----

func.func @reduce_max_missing_keepdims(%x: tensor<2x3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_max' op property 'keepdims' expected in operation 'tg.reduce_max'
  %y = tg.reduce_max %x {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @reduce_sum_bool(%x: tensor<2x3xi1>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_sum' op tg.reduce_sum does not take booleans
  %y = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi1> -> tensor<2xi1>
  func.return
}

// -----

func.func @reduce_prod_bool(%x: tensor<2x3xi1>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_prod' op tg.reduce_prod does not take booleans
  %y = tg.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi1> -> tensor<2xi1>
  func.return
}

// -----

func.func @reduce_min_axes_i32(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reduce_min' op property 'axes' must be an array<i64: ...>, got array<i32: 1>
  %y = tg.reduce_min %x {axes = array<i32: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  func.return
}

// -----

func.func @arg_max_axis_range(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.arg_max' op axis 2 must be in [0, 2)
  %y = tg.arg_max %x {axis = 2 : i64, keepdims = false} : tensor<2x3xf32> -> tensor<2xi64>
  func.return
}

// -----

func.func @arg_min_empty_axis(%x: tensor<2x0xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.arg_min' op axis 1 of tensor<2x0xf32> is empty: there is no extreme element
  %y = tg.arg_min %x {axis = 1 : i64, keepdims = false} : tensor<2x0xf32> -> tensor<2xi64>
  func.return
}

// -----

func.func @arg_max_result_type(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.arg_max' op result type should be tensor<2xi64>, got tensor<2xi32>
  %y = tg.arg_max %x {axis = 1 : i64, keepdims = false} : tensor<2x3xf32> -> tensor<2xi32>
  func.return
}

// -----

func.func @arg_max_select_last_integer(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.arg_max' op property 'select_last_index' must be true or false, got 1 : i64
  %y = tg.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = 1 : i64} : tensor<2x3xf32> -> tensor<2xi64>
  func.return
}

// -----

func.func @cumsum_bool(%x: tensor<4xi1>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cumsum' op tg.cumsum does not take booleans
  %y = tg.cumsum %x {axis = 0 : i64} : tensor<4xi1>
  func.return
}

// -----

func.func @cumprod_scalar(%x: tensor<f32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cumprod' op tg.cumprod needs a tensor of rank >= 1, got tensor<f32>
  %y = tg.cumprod %x {axis = 0 : i64} : tensor<f32>
  func.return
}

// -----

func.func @cumsum_axis_range(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cumsum' op axis -1 must be in [0, 2)
  %y = tg.cumsum %x {axis = -1 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @cumsum_reverse_integer(%x: tensor<2x3xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cumsum' op property 'reverse' must be true or false, got 1 : i64
  %y = tg.cumsum %x {axis = 0 : i64, reverse = 1 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @top_k_too_many(%x: tensor<3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op k = 5 must be in [0, 4] (the size of axis 1)
  %v, %i = tg.top_k %x {k = 5 : i64, axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x5xf32>, tensor<3x5xi64>
  func.return
}

// -----

func.func @top_k_bool(%x: tensor<4xi1>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op tg.top_k does not take booleans
  %v, %i = tg.top_k %x {k = 1 : i64, axis = 0 : i64} : tensor<4xi1> -> tensor<1xi1>, tensor<1xi64>
  func.return
}

// -----

func.func @top_k_scalar(%x: tensor<f32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op tg.top_k needs a tensor of rank >= 1, got tensor<f32>
  %v, %i = tg.top_k %x {k = 0 : i64, axis = 0 : i64} : tensor<f32> -> tensor<f32>, tensor<i64>
  func.return
}

// -----

func.func @top_k_axis_range(%x: tensor<3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op axis 2 must be in [0, 2)
  %v, %i = tg.top_k %x {k = 1 : i64, axis = 2 : i64} : tensor<3x4xf32> -> tensor<3x1xf32>, tensor<3x1xi64>
  func.return
}

// -----

func.func @top_k_largest_integer(%x: tensor<3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op property 'largest' must be true or false, got 0 : i64
  %v, %i = tg.top_k %x {k = 1 : i64, axis = 1 : i64, largest = 0 : i64} : tensor<3x4xf32> -> tensor<3x1xf32>, tensor<3x1xi64>
  func.return
}

// -----

func.func @top_k_indices_type(%x: tensor<3x4xf32>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.top_k' op result #1 type should be tensor<3x1xi64>, got tensor<3x1xi32>
  %v, %i = tg.top_k %x {k = 1 : i64, axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x1xf32>, tensor<3x1xi32>
  func.return
}
