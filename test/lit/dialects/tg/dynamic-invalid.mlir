// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @nonzero_scalar(%c: tensor<i1>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.nonzero' op nonzero needs rank >= 1, got tensor<i1>
  %i = tg.nonzero %c : tensor<i1> -> tensor<0x?xi64>
  func.return
}

// -----

func.func @compress_long_condition(%x: tensor<2x3xf32>, %m: tensor<4xi1>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.compress' op condition must be a boolean vector of at most 2 elements, got tensor<4xi1>
  %k = tg.compress %x, %m {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4xi1>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @compress_axis(%x: tensor<2x3xf32>, %m: tensor<2xi1>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.compress' op axis 2 must be in [0, 2)
  %k = tg.compress %x, %m {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi1>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @compress_static_result(%x: tensor<2x3xf32>, %m: tensor<2xi1>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.compress' op result type should be tensor<?x3xf32>, got tensor<2x3xf32>
  %k = tg.compress %x, %m {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi1>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @unique_axis(%x: tensor<3x2xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.unique' op axis 5 must be in [0, 2)
  %v, %f, %p, %n = tg.unique %x {sorted = true, axis = 5 : i64} : tensor<3x2xf32> -> (tensor<?x2xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  func.return
}
