// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @reduce_keepdims
// CHECK: %{{.*}} = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK: %{{.*}} = tg.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: %{{.*}} = tg.reduce_max %x {axes = array<i64: 0, 1, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
// CHECK: %{{.*}} = tg.reduce_min %x {axes = array<i64: 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
// CHECK: %{{.*}} = tg.reduce_prod %x {axes = array<i64: 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
func.func @reduce_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %s = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %m = tg.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %x1 = tg.reduce_max %x {axes = array<i64: 0, 1, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %n = tg.reduce_min %x {axes = array<i64: 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %p = tg.reduce_prod %x {axes = array<i64: 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
  func.return %s : tensor<2x1x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_dropdims
// CHECK: %{{.*}} = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xi32> -> tensor<2x4xi32>
// CHECK: %{{.*}} = tg.reduce_mean %y {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK: %{{.*}} = tg.reduce_max %y {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: %{{.*}} = tg.reduce_prod %x {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xi32> -> tensor<i32>
func.func @reduce_dropdims(%x: tensor<2x3x4xi32>, %y: tensor<2x3x4xf32>) -> tensor<f32> {
  %s = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xi32> -> tensor<2x4xi32>
  %m = tg.reduce_mean %y {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  %x1 = tg.reduce_max %y {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
  %p = tg.reduce_prod %x {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xi32> -> tensor<i32>
  func.return %x1 : tensor<f32>
}

// -----

// Empty axes reduce nothing: the identity, whatever keepdims says. Max and min take
// booleans; an empty dim reduces to the identity of the combination.
// CHECK-LABEL: func.func @reduce_empty_axes
// CHECK: %{{.*}} = tg.reduce_sum %x {axes = array<i64>, keepdims = false} : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: %{{.*}} = tg.reduce_mean %x {axes = array<i64>, keepdims = true} : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: %{{.*}} = tg.reduce_max %s {axes = array<i64>, keepdims = false} : tensor<ui8> -> tensor<ui8>
// CHECK: %{{.*}} = tg.reduce_min %b {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi1> -> tensor<2xi1>
func.func @reduce_empty_axes(%x: tensor<2x3xf32>, %s: tensor<ui8>, %b: tensor<2x0xi1>) -> tensor<2x3xf32> {
  %a = tg.reduce_sum %x {axes = array<i64>, keepdims = false} : tensor<2x3xf32> -> tensor<2x3xf32>
  %m = tg.reduce_mean %x {axes = array<i64>, keepdims = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = tg.reduce_max %s {axes = array<i64>, keepdims = false} : tensor<ui8> -> tensor<ui8>
  %d = tg.reduce_min %b {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi1> -> tensor<2xi1>
  func.return %a : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @arg
// CHECK: %{{.*}} = tg.arg_max %x {axis = 1 : i64, keepdims = true} : tensor<2x3xf16> -> tensor<2x1xi64>
// CHECK: %{{.*}} = tg.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : tensor<2x3xf16> -> tensor<3xi64>
// CHECK: %{{.*}} = tg.arg_max %b {axis = 0 : i64, keepdims = false} : tensor<4xi1> -> tensor<i64>
func.func @arg(%x: tensor<2x3xf16>, %b: tensor<4xi1>) -> tensor<2x1xi64> {
  %i = tg.arg_max %x {axis = 1 : i64, keepdims = true} : tensor<2x3xf16> -> tensor<2x1xi64>
  %j = tg.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : tensor<2x3xf16> -> tensor<3xi64>
  %k = tg.arg_max %b {axis = 0 : i64, keepdims = false} : tensor<4xi1> -> tensor<i64>
  func.return %i : tensor<2x1xi64>
}

// -----

// CHECK-LABEL: func.func @cumulative
// CHECK: %{{.*}} = tg.cumsum %x {axis = 1 : i64} : tensor<2x3xi32>
// CHECK: %{{.*}} = tg.cumsum %x {axis = 0 : i64, exclusive = true, reverse = true} : tensor<2x3xi32>
// CHECK: %{{.*}} = tg.cumprod %y {axis = 0 : i64, exclusive = true} : tensor<5xf64>
func.func @cumulative(%x: tensor<2x3xi32>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %a = tg.cumsum %x {axis = 1 : i64} : tensor<2x3xi32>
  %b = tg.cumsum %x {axis = 0 : i64, exclusive = true, reverse = true} : tensor<2x3xi32>
  %c = tg.cumprod %y {axis = 0 : i64, exclusive = true} : tensor<5xf64>
  func.return %c : tensor<5xf64>
}

// -----

// CHECK-LABEL: func.func @top_k
// CHECK: %{{.*}}, %{{.*}} = tg.top_k %x {k = 2 : i64, axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
// CHECK: %{{.*}}, %{{.*}} = tg.top_k %u {k = 0 : i64, axis = 0 : i64, largest = false} : tensor<6xui64> -> tensor<0xui64>, tensor<0xi64>
func.func @top_k(%x: tensor<3x4xf32>, %u: tensor<6xui64>) -> tensor<3x2xi64> {
  %v, %i = tg.top_k %x {k = 2 : i64, axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
  %w, %j = tg.top_k %u {k = 0 : i64, axis = 0 : i64, largest = false} : tensor<6xui64> -> tensor<0xui64>, tensor<0xi64>
  func.return %i : tensor<3x2xi64>
}
