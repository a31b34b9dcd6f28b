// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @batch_norm
// CHECK: %{{.*}} = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.000000e-05 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %y = tg.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// Rank 2 (N, C) is the smallest input.
// CHECK-LABEL: func.func @batch_norm_rank2
// CHECK: %{{.*}} = tg.batch_norm %x, %p, %p, %p, %p {epsilon = 1.000000e-03 : f32} : (tensor<2x1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x1xf16>
func.func @batch_norm_rank2(%x: tensor<2x1xf16>, %p: tensor<1xf16>) -> tensor<2x1xf16> {
  %y = tg.batch_norm %x, %p, %p, %p, %p {epsilon = 0.001 : f32} : (tensor<2x1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x1xf16>
  func.return %y : tensor<2x1xf16>
}

// -----

// CHECK-LABEL: func.func @layer_norm_bias
// CHECK: %{{.*}} = tg.layer_norm %x, %scale, %bias {axis = 2 : i64, epsilon = 1.000000e-05 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
func.func @layer_norm_bias(%x: tensor<2x5x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>) -> tensor<2x5x8xf32> {
  %y = tg.layer_norm %x, %scale, %bias {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  func.return %y : tensor<2x5x8xf32>
}

// -----

// Without bias; scale (1, 8) broadcasts to the normalized shape (5, 8).
// CHECK-LABEL: func.func @layer_norm_no_bias
// CHECK: %{{.*}} = tg.layer_norm %x, %scale {axis = 1 : i64, epsilon = 1.000000e-06 : f32} : (tensor<2x5x8xf32>, tensor<1x8xf32>) -> tensor<2x5x8xf32>
func.func @layer_norm_no_bias(%x: tensor<2x5x8xf32>, %scale: tensor<1x8xf32>) -> tensor<2x5x8xf32> {
  %y = tg.layer_norm %x, %scale {axis = 1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x5x8xf32>, tensor<1x8xf32>) -> tensor<2x5x8xf32>
  func.return %y : tensor<2x5x8xf32>
}

// -----

// axis 0 normalizes everything; a 0-d scale broadcasts to any shape.
// CHECK-LABEL: func.func @layer_norm_axis0
// CHECK: %{{.*}} = tg.layer_norm %x, %s, %s {axis = 0 : i64, epsilon = 1.000000e-05 : f32} : (tensor<4x3xf16>, tensor<f16>, tensor<f16>) -> tensor<4x3xf16>
func.func @layer_norm_axis0(%x: tensor<4x3xf16>, %s: tensor<f16>) -> tensor<4x3xf16> {
  %y = tg.layer_norm %x, %s, %s {axis = 0 : i64, epsilon = 1.000000e-05 : f32} : (tensor<4x3xf16>, tensor<f16>, tensor<f16>) -> tensor<4x3xf16>
  func.return %y : tensor<4x3xf16>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: %{{.*}} = tg.softmax %x {axis = 1 : i64} : tensor<1x1000xf32>
// CHECK: %{{.*}} = tg.softmax %x {axis = 0 : i64} : tensor<1x1000xf32>
// CHECK: %{{.*}} = tg.softmax %v {axis = 0 : i64} : tensor<1xf16>
func.func @softmax(%x: tensor<1x1000xf32>, %v: tensor<1xf16>) -> tensor<1x1000xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<1x1000xf32>
  %z = tg.softmax %x {axis = 0 : i64} : tensor<1x1000xf32>
  %w = tg.softmax %v {axis = 0 : i64} : tensor<1xf16>
  func.return %y : tensor<1x1000xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax
// CHECK: %{{.*}} = tg.log_softmax %x {axis = 2 : i64} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = tg.log_softmax %d {axis = 0 : i64} : tensor<7xf64>
func.func @log_softmax(%x: tensor<2x3x4xf32>, %d: tensor<7xf64>) -> tensor<2x3x4xf32> {
  %y = tg.log_softmax %x {axis = 2 : i64} : tensor<2x3x4xf32>
  %z = tg.log_softmax %d {axis = 0 : i64} : tensor<7xf64>
  func.return %y : tensor<2x3x4xf32>
}
