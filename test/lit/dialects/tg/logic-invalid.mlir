// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @compare_mixed(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.less' op operands must have the same element type, got f32 and i32
  %a = tg.less %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  func.return
}

// -----

func.func @compare_result(%x: tensor<3xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.equal' op result type should be tensor<3xi1>, got tensor<3xf32>
  %a = tg.equal %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @compare_no_broadcast(%x: tensor<3xi8>, %y: tensor<2xi8>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.greater_equal' op shapes (3,) and (2,) do not broadcast
  %a = tg.greater_equal %x, %y : (tensor<3xi8>, tensor<2xi8>) -> tensor<3xi1>
  func.return
}

// -----

func.func @and_floats(%x: tensor<3xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.and' op tg.and needs boolean or integer operands, got f32
  %a = tg.and %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @not_float(%x: tensor<3xf16>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.not' op tg.not needs a boolean or integer operand, got f16
  %a = tg.not %x : tensor<3xf16>
  func.return
}

// -----

func.func @bitshift_bool(%x: tensor<3xi1>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.bitshift' op tg.bitshift needs integer operands, got i1
  %a = tg.bitshift %x, %x {direction = "left"} : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  func.return
}

// -----

func.func @bitshift_direction(%x: tensor<3xui8>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.bitshift' op property 'direction' must be one of 'left', 'right', got "up"
  %a = tg.bitshift %x, %x {direction = "up"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  func.return
}

// -----

func.func @where_condition(%c: tensor<3xf32>, %x: tensor<3xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.where' op the condition must be boolean (i1), got f32
  %a = tg.where %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @where_values(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf16>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.where' op values must have the same element type, got f32 and f16
  %a = tg.where %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return
}

// -----

func.func @where_no_broadcast(%c: tensor<2xi1>, %x: tensor<3xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.where' op shapes (2,) and (3,) do not broadcast
  %a = tg.where %c, %x, %x : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @isnan_integer(%x: tensor<2xi32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.isnan' op tg.isnan needs a float element type, got i32
  %a = tg.isnan %x : tensor<2xi32> -> tensor<2xi1>
  func.return
}

// -----

func.func @isinf_result(%x: tensor<2xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.isinf' op result type should be tensor<2xi1>, got tensor<2xf32>
  %a = tg.isinf %x : tensor<2xf32> -> tensor<2xf32>
  func.return
}

// -----

func.func @isinf_flag(%x: tensor<2xf32>) {
  // CHECK: logic-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.isinf' op property 'detect_positive' must be true or false, got 0 : i64
  %a = tg.isinf %x {detect_positive = 0 : i64} : tensor<2xf32> -> tensor<2xi1>
  func.return
}
