// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Statistics are per channel, dim 1.
func.func @batch_norm_mean_shape(%x: tensor<1x3x4x4xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<4xf32>, %var: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op mean must have shape (3,), got tensor<4xf32>
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return
}

// -----

func.func @batch_norm_scale_rank(%x: tensor<1x3x4x4xf32>, %scale: tensor<1x3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op scale must have shape (3,), got tensor<1x3xf32>
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3x4x4xf32>, tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return
}

// -----

func.func @batch_norm_var_shape(%x: tensor<2x5xf32>, %scale: tensor<5xf32>, %bias: tensor<5xf32>, %mean: tensor<5xf32>, %var: tensor<2xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op var must have shape (5,), got tensor<2xf32>
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @batch_norm_rank1(%x: tensor<3xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op input must have rank >= 2 (N, C, ...), got tensor<3xf32>
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @batch_norm_integer(%x: tensor<1x3xi32>, %scale: tensor<3xi32>, %bias: tensor<3xi32>, %mean: tensor<3xi32>, %var: tensor<3xi32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op input must have a float element type, got i32
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<1x3xi32>
  func.return
}

// -----

func.func @batch_norm_element_types(%x: tensor<1x3xf32>, %scale: tensor<3xf16>, %bias: tensor<3xf16>, %mean: tensor<3xf16>, %var: tensor<3xf16>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op operands must have the same element type, got f32 and f16
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3xf32>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<1x3xf32>
  func.return
}

// -----

func.func @batch_norm_missing_epsilon(%x: tensor<1x3xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op property 'epsilon' expected in operation 'tg.batch_norm'
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  func.return
}

// -----

func.func @batch_norm_result(%x: tensor<1x3xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.batch_norm' op result type should be tensor<1x3xf32>, got tensor<3x1xf32>
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3x1xf32>
  func.return
}

// -----

// Axes are canonical: non-negative.
func.func @layer_norm_negative_axis(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op axis -1 must be in [0, 3)
  %y = tg.layer_norm %x, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  func.return
}

// -----

func.func @layer_norm_axis_range(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op axis 3 must be in [0, 3)
  %y = tg.layer_norm %x, %s {axis = 3 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  func.return
}

// -----

// scale broadcasts one way only, to x.shape[axis:].
func.func @layer_norm_scale_rank(%x: tensor<2x5x8xf32>, %s: tensor<2x5x8xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op scale tensor<2x5x8xf32> does not broadcast to the normalized shape (5, 8)
  %y = tg.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  func.return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %b: tensor<5x1xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op bias tensor<5x1xf32> does not broadcast to the normalized shape (8,)
  %y = tg.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<5x1xf32>) -> tensor<2x5x8xf32>
  func.return
}

// -----

func.func @layer_norm_integer(%x: tensor<2x8xi32>, %s: tensor<8xi32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op input must have a float element type, got i32
  %y = tg.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
  func.return
}

// -----

func.func @layer_norm_element_types(%x: tensor<2x8xf32>, %s: tensor<8xf16>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op operands must have the same element type, got f32 and f16
  %y = tg.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  func.return
}

// -----

func.func @layer_norm_scalar(%x: tensor<f32>, %s: tensor<f32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op axis 0 must be in [0, 0)
  %y = tg.layer_norm %x, %s {axis = 0 : i64, epsilon = 1.0e-05 : f32} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @layer_norm_missing_axis(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op property 'axis' expected in operation 'tg.layer_norm'
  %y = tg.layer_norm %x, %s {epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

func.func @layer_norm_result(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op result type should be tensor<2x8xf32>, got tensor<2x8xf16>
  %y = tg.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf16>
  func.return
}

// -----

func.func @softmax_axis_range(%x: tensor<2x3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op axis 2 must be in [0, 2)
  %y = tg.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}

// -----

// Axes are canonical: non-negative.
func.func @softmax_negative_axis(%x: tensor<2x3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op axis -1 must be in [0, 2)
  %y = tg.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_integer(%x: tensor<2x3xi32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op input must have a float element type, got i32
  %y = tg.softmax %x {axis = 1 : i64} : tensor<2x3xi32>
  func.return
}

// -----

func.func @softmax_bool_axis(%x: tensor<2x3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op property 'axis' must be an integer, got true
  %y = tg.softmax %x {axis = true} : tensor<2x3xf32>
  func.return
}

// -----

// The result type is the input type (checked in the generic form).
func.func @softmax_result(%x: tensor<3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op result 'result' at position 0 does not verify: attribute tensor<3xf32> expected from variable 'T', but got tensor<3xf16>
  %y = "tg.softmax"(%x) <{axis = 0 : i64}> : (tensor<3xf32>) -> tensor<3xf16>
  func.return
}

// -----

func.func @log_softmax_axis_range(%x: tensor<2x3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.log_softmax' op axis -3 must be in [0, 2)
  %y = tg.log_softmax %x {axis = -3 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @log_softmax_integer(%x: tensor<2x3xui8>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.log_softmax' op input must have a float element type, got ui8
  %y = tg.log_softmax %x {axis = 1 : i64} : tensor<2x3xui8>
  func.return
}

// -----

func.func @log_softmax_missing_axis(%x: tensor<2x3xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.log_softmax' op property 'axis' expected in operation 'tg.log_softmax'
  %y = tg.log_softmax %x : tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.softmax' op axis 0 must be in [0, 0)
  %y = tg.softmax %x {axis = 0 : i64} : tensor<f32>
  func.return
}

// -----

func.func @layer_norm_scale_does_not_broadcast(%x: tensor<5x8xf32>, %s: tensor<5xf32>) {
  // CHECK: norm-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.layer_norm' op scale tensor<5xf32> does not broadcast to the normalized shape (5, 8)
  %y = tg.layer_norm %x, %s {axis = 0 : i64, epsilon = 1.0e-05 : f32} : (tensor<5x8xf32>, tensor<5xf32>) -> tensor<5x8xf32>
  func.return
}
