// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Ops whose result shape depends on the data: the counted dims are dynamic (`?`); the
// reference target runs them, the compiled targets refuse them (dynamic-refused.mlir).
// CHECK-LABEL: func.func @counted
// CHECK: %i = tg.nonzero %c : tensor<2x3xi1> -> tensor<2x?xi64>
// CHECK: %k = tg.compress %x, %m {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi1>) -> tensor<2x?xf32>
func.func @counted(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %m: tensor<2xi1>) -> tensor<2x?xi64> {
  %i = tg.nonzero %c : tensor<2x3xi1> -> tensor<2x?xi64>
  %k = tg.compress %x, %m {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi1>) -> tensor<2x?xf32>
  func.return %i : tensor<2x?xi64>
}

// -----

// Unique: the values (slices along `axis`, or the flat input), where each first occurs,
// each input's position among them (static: one per input), and the counts.
// CHECK-LABEL: func.func @unique
// CHECK: %v, %f, %p, %n = tg.unique %x {sorted = true, axis = 0 : i64} : tensor<3x2xf32> -> (tensor<?x2xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
// CHECK: %w, %g, %q, %o = tg.unique %x {sorted = false} : tensor<3x2xf32> -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
func.func @unique(%x: tensor<3x2xf32>) -> tensor<?x2xf32> {
  %v, %f, %p, %n = tg.unique %x {sorted = true, axis = 0 : i64} : tensor<3x2xf32> -> (tensor<?x2xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  %w, %g, %q, %o = tg.unique %x {sorted = false} : tensor<3x2xf32> -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  func.return %v : tensor<?x2xf32>
}
