// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @unary_floats
// CHECK: %{{.*}} = tg.log %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.expm1 %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.log1p %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.erf %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.reciprocal %h : tensor<2xf16>
// CHECK: %{{.*}} = tg.floor %b : tensor<bf16>
// CHECK: %{{.*}} = tg.ceil %d : tensor<5xf64>
// CHECK: %{{.*}} = tg.round %x : tensor<3x4xf32>
func.func @unary_floats(%x: tensor<3x4xf32>, %h: tensor<2xf16>, %b: tensor<bf16>, %d: tensor<5xf64>) -> tensor<3x4xf32> {
  %l = tg.log %x : tensor<3x4xf32>
  %e = tg.expm1 %x : tensor<3x4xf32>
  %p = tg.log1p %x : tensor<3x4xf32>
  %f = tg.erf %x : tensor<3x4xf32>
  %r = tg.reciprocal %h : tensor<2xf16>
  %fl = tg.floor %b : tensor<bf16>
  %c = tg.ceil %d : tensor<5xf64>
  %n = tg.round %x : tensor<3x4xf32>
  func.return %n : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @trigonometry
// CHECK: tg.sin %x : tensor<4xf32>
// CHECK: tg.cos %x : tensor<4xf32>
// CHECK: tg.tan %x : tensor<4xf32>
// CHECK: tg.asin %x : tensor<4xf32>
// CHECK: tg.acos %x : tensor<4xf32>
// CHECK: tg.atan %x : tensor<4xf32>
// CHECK: tg.sinh %d : tensor<4xf64>
// CHECK: tg.cosh %d : tensor<4xf64>
// CHECK: tg.asinh %d : tensor<4xf64>
// CHECK: tg.acosh %d : tensor<4xf64>
// CHECK: tg.atanh %h : tensor<4xf16>
func.func @trigonometry(%x: tensor<4xf32>, %d: tensor<4xf64>, %h: tensor<4xf16>) -> tensor<4xf32> {
  %0 = tg.sin %x : tensor<4xf32>
  %1 = tg.cos %x : tensor<4xf32>
  %2 = tg.tan %x : tensor<4xf32>
  %3 = tg.asin %x : tensor<4xf32>
  %4 = tg.acos %x : tensor<4xf32>
  %5 = tg.atan %x : tensor<4xf32>
  %6 = tg.sinh %d : tensor<4xf64>
  %7 = tg.cosh %d : tensor<4xf64>
  %8 = tg.asinh %d : tensor<4xf64>
  %9 = tg.acosh %d : tensor<4xf64>
  %10 = tg.atanh %h : tensor<4xf16>
  func.return %5 : tensor<4xf32>
}

// -----

// abs and sign take every numeric type, unsigned integers included.
// CHECK-LABEL: func.func @abs_sign
// CHECK: tg.abs %x : tensor<3xf32>
// CHECK: tg.abs %i : tensor<3xi8>
// CHECK: tg.abs %u : tensor<3xui16>
// CHECK: tg.sign %x : tensor<3xf32>
// CHECK: tg.sign %i : tensor<3xi8>
// CHECK: tg.sign %u : tensor<3xui16>
func.func @abs_sign(%x: tensor<3xf32>, %i: tensor<3xi8>, %u: tensor<3xui16>) -> tensor<3xi8> {
  %a = tg.abs %x : tensor<3xf32>
  %b = tg.abs %i : tensor<3xi8>
  %c = tg.abs %u : tensor<3xui16>
  %d = tg.sign %x : tensor<3xf32>
  %e = tg.sign %i : tensor<3xi8>
  %f = tg.sign %u : tensor<3xui16>
  func.return %e : tensor<3xi8>
}

// -----

// The numeric binaries broadcast like tg.add.
// CHECK-LABEL: func.func @binaries
// CHECK: tg.min %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: tg.max %i, %j : (tensor<2x1xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK: tg.pow %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: tg.pow %k, %k : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: tg.mod %i, %j : (tensor<2x1xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK: tg.mod %x, %y {fmod = true} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
func.func @binaries(%x: tensor<3x4xf32>, %y: tensor<4xf32>, %i: tensor<2x1xui8>, %j: tensor<3xui8>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %a = tg.min %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %b = tg.max %i, %j : (tensor<2x1xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %c = tg.pow %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %d = tg.pow %k, %k : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %e = tg.mod %i, %j : (tensor<2x1xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %f = tg.mod %x, %y {fmod = true} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  func.return %f : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @bitcast
// CHECK: tg.bitcast %x : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK: tg.bitcast %h : tensor<4xf16> -> tensor<4xui16>
// CHECK: tg.bitcast %b : tensor<4xi1> -> tensor<4xui8>
func.func @bitcast(%x: tensor<2x3xf32>, %h: tensor<4xf16>, %b: tensor<4xi1>) -> tensor<2x3xi32> {
  %i = tg.bitcast %x : tensor<2x3xf32> -> tensor<2x3xi32>
  %u = tg.bitcast %h : tensor<4xf16> -> tensor<4xui16>
  %c = tg.bitcast %b : tensor<4xi1> -> tensor<4xui8>
  func.return %i : tensor<2x3xi32>
}
