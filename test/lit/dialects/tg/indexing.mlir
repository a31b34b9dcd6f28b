// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Gathers: the result shape is data[:axis] + indices + data[axis + 1:] (gather), the
// indices' shape (gather_elements), indices[:-1] + data[batch + k:] (gather_nd).
// CHECK-LABEL: func.func @gathers
// CHECK: %{{.*}} = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = tg.gather %x, %s {axis = 1 : i64} : (tensor<5x4xf32>, tensor<i32>) -> tensor<5xf32>
// CHECK: %{{.*}} = tg.gather_elements %x, %e {axis = 1 : i64} : (tensor<5x4xf32>, tensor<3x7xi64>) -> tensor<3x7xf32>
// CHECK: %{{.*}} = tg.gather_nd %x, %t {batch_dims = 0 : i64} : (tensor<5x4xf32>, tensor<6x2xi64>) -> tensor<6xf32>
// CHECK: %{{.*}} = tg.gather_nd %b, %u {batch_dims = 1 : i64} : (tensor<2x3x4xi1>, tensor<2x1xi32>) -> tensor<2x4xi1>
func.func @gathers(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>, %s: tensor<i32>, %e: tensor<3x7xi64>, %t: tensor<6x2xi64>, %b: tensor<2x3x4xi1>, %u: tensor<2x1xi32>) -> tensor<2x3x4xf32> {
  %a = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %c = tg.gather %x, %s {axis = 1 : i64} : (tensor<5x4xf32>, tensor<i32>) -> tensor<5xf32>
  %d = tg.gather_elements %x, %e {axis = 1 : i64} : (tensor<5x4xf32>, tensor<3x7xi64>) -> tensor<3x7xf32>
  %f = tg.gather_nd %x, %t {batch_dims = 0 : i64} : (tensor<5x4xf32>, tensor<6x2xi64>) -> tensor<6xf32>
  %g = tg.gather_nd %b, %u {batch_dims = 1 : i64} : (tensor<2x3x4xi1>, tensor<2x1xi32>) -> tensor<2x4xi1>
  func.return %a : tensor<2x3x4xf32>
}

// -----

// Scatters keep the data's type; the reduction applies to each update in order.
// CHECK-LABEL: func.func @scatters
// CHECK: %{{.*}} = tg.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK: %{{.*}} = tg.scatter_nd %x, %t, %v {reduction = "add"} : (tensor<3x4xf32>, tensor<5x1xi64>, tensor<5x4xf32>) -> tensor<3x4xf32>
// CHECK: %{{.*}} = tg.scatter_nd %x, %p, %w {reduction = "max"} : (tensor<3x4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<3x4xf32>
func.func @scatters(%x: tensor<3x4xf32>, %i: tensor<2x6xi64>, %u: tensor<2x6xf32>, %t: tensor<5x1xi64>, %v: tensor<5x4xf32>, %p: tensor<2xi64>, %w: tensor<f32>) -> tensor<3x4xf32> {
  %a = tg.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<3x4xf32>
  %b = tg.scatter_nd %x, %t, %v {reduction = "add"} : (tensor<3x4xf32>, tensor<5x1xi64>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %c = tg.scatter_nd %x, %p, %w {reduction = "max"} : (tensor<3x4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<3x4xf32>
  func.return %a : tensor<3x4xf32>
}

// -----

// Masks: trilu keeps a triangle of the last two dims; one_hot inserts a dim of `depth`.
// CHECK-LABEL: func.func @masks
// CHECK: %{{.*}} = tg.trilu %x {upper = true, k = -1 : i64} : tensor<2x3x4xi64> -> tensor<2x3x4xi64>
// CHECK: %{{.*}} = tg.one_hot %i, %v {axis = 1 : i64, depth = 10 : i64} : (tensor<2x3xi64>, tensor<2xf32>) -> tensor<2x10x3xf32>
// CHECK: %{{.*}} = tg.one_hot %f, %w {axis = 2 : i64, depth = 4 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3x4xi32>
func.func @masks(%x: tensor<2x3x4xi64>, %i: tensor<2x3xi64>, %v: tensor<2xf32>, %f: tensor<2x3xf32>, %w: tensor<2xi32>) -> tensor<2x3x4xi64> {
  %a = tg.trilu %x {upper = true, k = -1 : i64} : tensor<2x3x4xi64> -> tensor<2x3x4xi64>
  %b = tg.one_hot %i, %v {axis = 1 : i64, depth = 10 : i64} : (tensor<2x3xi64>, tensor<2xf32>) -> tensor<2x10x3xf32>
  %c = tg.one_hot %f, %w {axis = 2 : i64, depth = 4 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3x4xi32>
  func.return %a : tensor<2x3x4xi64>
}
