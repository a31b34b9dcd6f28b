// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @binary
// CHECK: %{{.*}} = tg.add %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: %{{.*}} = tg.sub %x, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %{{.*}} = tg.mul %y, %x : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %{{.*}} = tg.div %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
func.func @binary(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<3x4xf32> {
  %a = tg.add %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %s = tg.sub %x, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %m = tg.mul %y, %x : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %d = tg.div %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  func.return %d : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @integers
// CHECK: tg.add %a, %b : (tensor<2x1xi8>, tensor<1x3xi8>) -> tensor<2x3xi8>
// CHECK: tg.div %c, %c : (tensor<5xui16>, tensor<5xui16>) -> tensor<5xui16>
func.func @integers(%a: tensor<2x1xi8>, %b: tensor<1x3xi8>, %c: tensor<5xui16>) -> tensor<2x3xi8> {
  %s = tg.add %a, %b : (tensor<2x1xi8>, tensor<1x3xi8>) -> tensor<2x3xi8>
  %q = tg.div %c, %c : (tensor<5xui16>, tensor<5xui16>) -> tensor<5xui16>
  func.return %s : tensor<2x3xi8>
}

// -----

// Broadcasting with 1-element and 0-d operands.
// CHECK-LABEL: func.func @broadcast_scalars
// CHECK: %{{.*}} = tg.mul %x, %s : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
// CHECK: %{{.*}} = tg.sub %o, %x : (tensor<1xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
// CHECK: %{{.*}} = tg.add %s, %s : (tensor<f16>, tensor<f16>) -> tensor<f16>
func.func @broadcast_scalars(%x: tensor<2x3xf16>, %s: tensor<f16>, %o: tensor<1xf16>) -> tensor<f16> {
  %a = tg.mul %x, %s : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
  %b = tg.sub %o, %x : (tensor<1xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %c = tg.add %s, %s : (tensor<f16>, tensor<f16>) -> tensor<f16>
  func.return %c : tensor<f16>
}

// -----

// CHECK-LABEL: func.func @unary_floats
// CHECK: %{{.*}} = tg.neg %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.exp %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.sqrt %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.relu %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.sigmoid %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.tanh %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.exp %s : tensor<bf16>
// CHECK: %{{.*}} = tg.tanh %d : tensor<1xf64>
func.func @unary_floats(%x: tensor<3x4xf32>, %s: tensor<bf16>, %d: tensor<1xf64>) -> tensor<3x4xf32> {
  %n = tg.neg %x : tensor<3x4xf32>
  %e = tg.exp %x : tensor<3x4xf32>
  %q = tg.sqrt %x : tensor<3x4xf32>
  %r = tg.relu %x : tensor<3x4xf32>
  %g = tg.sigmoid %x : tensor<3x4xf32>
  %t = tg.tanh %x : tensor<3x4xf32>
  %es = tg.exp %s : tensor<bf16>
  %td = tg.tanh %d : tensor<1xf64>
  func.return %t : tensor<3x4xf32>
}

// -----

// neg and relu also take signed integers.
// CHECK-LABEL: func.func @unary_signed
// CHECK: %{{.*}} = tg.neg %x : tensor<5xi8>
// CHECK: %{{.*}} = tg.relu %x : tensor<5xi8>
// CHECK: %{{.*}} = tg.relu %y : tensor<2x2xi64>
func.func @unary_signed(%x: tensor<5xi8>, %y: tensor<2x2xi64>) -> tensor<5xi8> {
  %n = tg.neg %x : tensor<5xi8>
  %r = tg.relu %x : tensor<5xi8>
  %s = tg.relu %y : tensor<2x2xi64>
  func.return %r : tensor<5xi8>
}

// -----

// Bounds are typed like the elements; either may be absent.
// CHECK-LABEL: func.func @clip
// CHECK: %{{.*}} = tg.clip %x {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.clip %x {min = -1.000000e+00 : f32} : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.clip %x {max = 1.000000e+00 : f32} : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.clip %x : tensor<3x4xf32>
// CHECK: %{{.*}} = tg.clip %h {min = 5.000000e-01 : f16, max = 1.500000e+00 : f16} : tensor<2xf16>
func.func @clip(%x: tensor<3x4xf32>, %h: tensor<2xf16>) -> tensor<3x4xf32> {
  %a = tg.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<3x4xf32>
  %b = tg.clip %x {min = -1.0 : f32} : tensor<3x4xf32>
  %c = tg.clip %x {max = 1.0 : f32} : tensor<3x4xf32>
  %d = tg.clip %x : tensor<3x4xf32>
  %e = tg.clip %h {min = 0.5 : f16, max = 1.5 : f16} : tensor<2xf16>
  func.return %a : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @clip_integers
// CHECK: %{{.*}} = tg.clip %x {min = 0 : i8} : tensor<4xi8>
// CHECK: %{{.*}} = tg.clip %x {min = -5 : i8, max = 5 : i8} : tensor<4xi8>
// CHECK: %{{.*}} = tg.clip %u {max = 200 : ui8} : tensor<2x2xui8>
func.func @clip_integers(%x: tensor<4xi8>, %u: tensor<2x2xui8>) -> tensor<4xi8> {
  %a = tg.clip %x {min = 0 : i8} : tensor<4xi8>
  %b = tg.clip %x {min = -5 : i8, max = 5 : i8} : tensor<4xi8>
  %c = tg.clip %u {max = 200 : ui8} : tensor<2x2xui8>
  func.return %b : tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @gelu
// CHECK: %{{.*}} = tg.gelu %x : tensor<2x8xf32>
// CHECK: %{{.*}} = tg.gelu %x {approximate = "none"} : tensor<2x8xf32>
// CHECK: %{{.*}} = tg.gelu %x {approximate = "tanh"} : tensor<2x8xf32>
func.func @gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = tg.gelu %x : tensor<2x8xf32>
  %b = tg.gelu %x {approximate = "none"} : tensor<2x8xf32>
  %c = tg.gelu %x {approximate = "tanh"} : tensor<2x8xf32>
  func.return %c : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: %{{.*}} = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xi64>
// CHECK: %{{.*}} = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK: %{{.*}} = tg.cast %b : tensor<4xi1> -> tensor<4xf32>
// CHECK: %{{.*}} = tg.cast %u : tensor<ui8> -> tensor<i32>
// CHECK: %{{.*}} = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xf32>
func.func @cast(%x: tensor<2x3xf32>, %b: tensor<4xi1>, %u: tensor<ui8>) -> tensor<2x3xi64> {
  %i = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xi64>
  %h = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xf16>
  %f = tg.cast %b : tensor<4xi1> -> tensor<4xf32>
  %s = tg.cast %u : tensor<ui8> -> tensor<i32>
  %same = tg.cast %x : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %i : tensor<2x3xi64>
}

// -----

// shift_right is arithmetic on signed integers: the requantizing step of an int8 layer.
// CHECK-LABEL: func.func @shift_right
// CHECK: %{{.*}} = tg.shift_right %x {amount = 6 : i64} : tensor<1x16x4x4xi32>
func.func @shift_right(%x: tensor<1x16x4x4xi32>) -> tensor<1x16x4x4xi32> {
  %s = tg.shift_right %x {amount = 6 : i64} : tensor<1x16x4x4xi32>
  func.return %s : tensor<1x16x4x4xi32>
}
