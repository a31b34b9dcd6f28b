// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @no_broadcast(%x: tensor<3x4xf32>, %y: tensor<3xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.add' op shapes (3, 4) and (3,) do not broadcast
  %a = tg.add %x, %y : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @wrong_result(%x: tensor<3x4xf32>) {
  // CHECK: error: 'tg.sub' op result type should be tensor<3x4xf32>, got tensor<4x3xf32>
  %a = tg.sub %x, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @mixed_element_types(%x: tensor<3xf32>, %y: tensor<3xf16>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.mul' op operands must have the same element type, got f32 and f16
  %a = tg.mul %x, %y : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return
}

// -----

func.func @binary_bool(%b: tensor<2xi1>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.div' op tg.div does not take booleans
  %a = tg.div %b, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  func.return
}

// -----

func.func @binary_result_element(%x: tensor<2xi32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.add' op result type should be tensor<2xi32>, got tensor<2xi64>
  %a = tg.add %x, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  func.return
}

// -----

func.func @neg_unsigned(%x: tensor<2xui8>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.neg' op tg.neg needs a float or signed integer element type, got ui8
  %a = tg.neg %x : tensor<2xui8>
  func.return
}

// -----

func.func @exp_integer(%x: tensor<2xi32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.exp' op tg.exp needs a float element type, got i32
  %a = tg.exp %x : tensor<2xi32>
  func.return
}

// -----

// Unary ops tie the result type to the operand type (checked in the generic form).
func.func @sqrt_result(%x: tensor<3xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.sqrt' op result 'result' at position 0 does not verify: attribute tensor<3xf32> expected from variable 'T', but got tensor<4xf32>
  %a = "tg.sqrt"(%x) : (tensor<3xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @sqrt_integer(%x: tensor<3xi64>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.sqrt' op tg.sqrt needs a float element type, got i64
  %a = tg.sqrt %x : tensor<3xi64>
  func.return
}

// -----

func.func @relu_bool(%x: tensor<2xi1>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.relu' op tg.relu needs a float or signed integer element type, got i1
  %a = tg.relu %x : tensor<2xi1>
  func.return
}

// -----

func.func @relu_unsigned(%x: tensor<2xui32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.relu' op tg.relu needs a float or signed integer element type, got ui32
  %a = tg.relu %x : tensor<2xui32>
  func.return
}

// -----

func.func @sigmoid_bool(%x: tensor<2xi1>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.sigmoid' op tg.sigmoid needs a float element type, got i1
  %a = tg.sigmoid %x : tensor<2xi1>
  func.return
}

// -----

func.func @tanh_unsigned(%x: tensor<2xui8>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.tanh' op tg.tanh needs a float element type, got ui8
  %a = tg.tanh %x : tensor<2xui8>
  func.return
}

// -----

func.func @clip_bool(%x: tensor<2xi1>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.clip' op tg.clip needs a numeric element type, got i1
  %a = tg.clip %x : tensor<2xi1>
  func.return
}

// -----

func.func @clip_bound_width(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.clip' op property 'min' must be a f32 scalar, got 0.000000e+00 : f64
  %a = tg.clip %x {min = 0.0 : f64} : tensor<2xf32>
  func.return
}

// -----

func.func @clip_integer_bound_on_floats(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.clip' op property 'max' must be a f32 scalar, got 6 : i32
  %a = tg.clip %x {min = 0.0 : f32, max = 6 : i32} : tensor<2xf32>
  func.return
}

// -----

func.func @clip_bound_signedness(%x: tensor<2xi8>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.clip' op property 'max' must be a i8 scalar, got 6 : ui8
  %a = tg.clip %x {max = 6 : ui8} : tensor<2xi8>
  func.return
}

// -----

func.func @clip_string_bound(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.clip' op property 'min' must be a f32 scalar, got "0"
  %a = tg.clip %x {min = "0"} : tensor<2xf32>
  func.return
}

// -----

func.func @gelu_approximate(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gelu' op property 'approximate' must be one of 'none', 'tanh', got "erf"
  %a = tg.gelu %x {approximate = "erf"} : tensor<2xf32>
  func.return
}

// -----

func.func @gelu_integer(%x: tensor<2xi32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gelu' op tg.gelu needs a float element type, got i32
  %a = tg.gelu %x {approximate = "tanh"} : tensor<2xi32>
  func.return
}

// -----

func.func @cast_shape(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cast' op result shape must equal the input shape (2,)
  %a = tg.cast %x : tensor<2xf32> -> tensor<1x2xi32>
  func.return
}

// -----

func.func @cast_unsupported(%x: tensor<2xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.cast' op result #0 has unsupported element type i4
  %a = tg.cast %x : tensor<2xf32> -> tensor<2xi4>
  func.return
}

// -----

// Signedness is explicit in tg: i8 is signed, ui8 unsigned, si8 is not accepted.
func.func @signed_integer_type(%x: tensor<2xsi8>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.neg' op operand #0 has unsupported element type si8
  %a = tg.neg %x : tensor<2xsi8>
  func.return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.relu' op operand #0 must have a static shape, got tensor<?xf32>
  %a = tg.relu %x : tensor<?xf32>
  func.return
}

// -----

func.func @shift_right_float(%x: tensor<4xf32>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.shift_right' op tg.shift_right needs an integer element type, got f32
  %s = tg.shift_right %x {amount = 1 : i64} : tensor<4xf32>
  func.return
}

// -----

func.func @shift_right_too_far(%x: tensor<4xi8>) {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.shift_right' op amount=8 must be in [0, 8) for i8
  %s = tg.shift_right %x {amount = 8 : i64} : tensor<4xi8>
  func.return
}
