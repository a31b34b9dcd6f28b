// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The CHECK line follows the op here: the error is placed at the first occurrence of the
// name in the text.
func.func @undefined_value(%x: tensor<3xf32>) {
  %a = tg.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK: parse-invalid.mlir:[[# @LINE - 1]]:19: error: use of undefined value '%y'
  func.return
}

// -----

func.func @malformed_shape(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:30: error: Expected shape type.
  %a = tg.relu %x : tensor<3x>
  func.return
}

// -----

// The error is reported at the token after the type.
func.func @unclosed_type() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 2]]:3: error: Expected '>' after builtin parameter list
  %c = tg.constant dense<[1.0, 2.0]> : tensor<2xf32
  func.return
}

// -----

func.func @unregistered_op(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Operation tg.frobnicate is not registered
  %a = tg.frobnicate %x : tensor<3xf32>
  func.return
}

// -----

func.func @operand_type_mismatch(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:16: error: operand is used with type tensor<4xf32>, but has been previously used or defined with type tensor<3xf32>
  %a = tg.relu %x : tensor<4xf32>
  func.return
}

// -----

func.func @non_tensor_result(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:3: error: i32 should be of base attribute tensor
  %a = tg.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> i32
  func.return
}

// -----

func.func @memref_type(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:3: error: memref<3xf32> should be of base attribute tensor
  %a = tg.relu %x : memref<3xf32>
  func.return
}

// -----

func.func @redefined_value(%x: tensor<3xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 2]]:3: error: SSA value %a is already defined
  %a = tg.relu %x : tensor<3xf32>
  %a = tg.relu %x : tensor<3xf32>
  func.return
}

// -----

func.func @weight_string_name() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:3: error: "w" should be of base attribute symbol_ref
  %w = tg.weight "w" : tensor<2xf32>
  func.return
}

// -----

func.func @constant_scalar() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:20: error: tg.constant expects a dense<...> : tensor<...> value
  %c = tg.constant 3 : i32
  func.return
}

// -----

func.func @constant_vector() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:20: error: tg.constant expects a dense<...> : tensor<...> value
  %c = tg.constant dense<[1, 2]> : vector<2xi32>
  func.return
}

// -----

func.func @constant_not_an_integer() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:26: error: Expected integer value
  %c = tg.constant dense<1.5> : tensor<2xi32>
  func.return
}

// -----

func.func @constant_negative_unsigned() {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:26: error: Expected non-negative integer values
  %c = tg.constant dense<-1> : tensor<2xui8>
  func.return
}

// -----

// Two results need two names.
func.func @pool_indices_unbound(%x: tensor<1x1x4x4xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:3: error: Operation has 2 results, but was given 1 to bind.
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  func.return
}

// -----

// A required property of the wrong attribute kind fails while parsing.
func.func @required_property_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:3: error: 1 : i64 should be of base attribute float
  %y = tg.gemm %a, %b {alpha = 1 : i64, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// The undefined value is reported at its use, not where its name appears in a comment
// (%late) or as another function's argument.
func.func @other(%late: tensor<2xf32>) {
  func.return
}
func.func @use_in_later_function(%x: tensor<2xf32>) {
  // CHECK: parse-invalid.mlir:[[# @LINE + 1]]:19: error: use of undefined value '%late'
  %y = tg.add %x, %late : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
