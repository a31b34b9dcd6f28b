// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Comparisons broadcast and give booleans.
// CHECK-LABEL: func.func @comparisons
// CHECK: tg.equal %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
// CHECK: tg.less %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
// CHECK: tg.greater %u, %u : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
// CHECK: tg.less_equal %i, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK: tg.greater_equal %b, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
func.func @comparisons(%x: tensor<3x4xf32>, %y: tensor<4xf32>, %u: tensor<2xui32>, %i: tensor<i64>, %b: tensor<2xi1>) -> tensor<3x4xi1> {
  %e = tg.equal %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %l = tg.less %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %g = tg.greater %u, %u : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  %le = tg.less_equal %i, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %ge = tg.greater_equal %b, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  func.return %e : tensor<3x4xi1>
}

// -----

// and/or/xor/not: logical on booleans, bitwise on integers.
// CHECK-LABEL: func.func @logic
// CHECK: tg.and %a, %b : (tensor<3x1xi1>, tensor<4xi1>) -> tensor<3x4xi1>
// CHECK: tg.or %a, %a : (tensor<3x1xi1>, tensor<3x1xi1>) -> tensor<3x1xi1>
// CHECK: tg.xor %i, %i : (tensor<5xi16>, tensor<5xi16>) -> tensor<5xi16>
// CHECK: tg.not %a : tensor<3x1xi1>
// CHECK: tg.not %i : tensor<5xi16>
func.func @logic(%a: tensor<3x1xi1>, %b: tensor<4xi1>, %i: tensor<5xi16>) -> tensor<3x4xi1> {
  %and = tg.and %a, %b : (tensor<3x1xi1>, tensor<4xi1>) -> tensor<3x4xi1>
  %or = tg.or %a, %a : (tensor<3x1xi1>, tensor<3x1xi1>) -> tensor<3x1xi1>
  %xor = tg.xor %i, %i : (tensor<5xi16>, tensor<5xi16>) -> tensor<5xi16>
  %n = tg.not %a : tensor<3x1xi1>
  %m = tg.not %i : tensor<5xi16>
  func.return %and : tensor<3x4xi1>
}

// -----

// CHECK-LABEL: func.func @bitshift
// CHECK: tg.bitshift %x, %n {direction = "left"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
// CHECK: tg.bitshift %i, %i {direction = "right"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
func.func @bitshift(%x: tensor<4xui8>, %n: tensor<ui8>, %i: tensor<2xi32>) -> tensor<4xui8> {
  %l = tg.bitshift %x, %n {direction = "left"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  %r = tg.bitshift %i, %i {direction = "right"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  func.return %l : tensor<4xui8>
}

// -----

// where broadcasts its three operands together.
// CHECK-LABEL: func.func @where
// CHECK: tg.where %c, %x, %s : (tensor<3x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK: tg.where %c, %c, %c : (tensor<3x1xi1>, tensor<3x1xi1>, tensor<3x1xi1>) -> tensor<3x1xi1>
func.func @where(%c: tensor<3x1xi1>, %x: tensor<4xf32>, %s: tensor<f32>) -> tensor<3x4xf32> {
  %w = tg.where %c, %x, %s : (tensor<3x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %b = tg.where %c, %c, %c : (tensor<3x1xi1>, tensor<3x1xi1>, tensor<3x1xi1>) -> tensor<3x1xi1>
  func.return %w : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @classify
// CHECK: tg.isnan %x : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK: tg.isinf %x : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK: tg.isinf %h {detect_negative = false} : tensor<4xf16> -> tensor<4xi1>
func.func @classify(%x: tensor<2x3xf32>, %h: tensor<4xf16>) -> tensor<2x3xi1> {
  %n = tg.isnan %x : tensor<2x3xf32> -> tensor<2x3xi1>
  %i = tg.isinf %x : tensor<2x3xf32> -> tensor<2x3xi1>
  %p = tg.isinf %h {detect_negative = false} : tensor<4xf16> -> tensor<4xi1>
  func.return %n : tensor<2x3xi1>
}
