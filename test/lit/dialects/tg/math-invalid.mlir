// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @log_integer(%x: tensor<2xi32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.log' op tg.log needs a float element type, got i32
  %a = tg.log %x : tensor<2xi32>
  func.return
}

// -----

func.func @sin_result(%x: tensor<3xf32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.sin' op result 'result' at position 0 does not verify: attribute tensor<3xf32> expected from variable 'T', but got tensor<3xf64>
  %a = "tg.sin"(%x) : (tensor<3xf32>) -> tensor<3xf64>
  func.return
}

// -----

func.func @abs_bool(%x: tensor<2xi1>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.abs' op tg.abs needs a numeric element type, got i1
  %a = tg.abs %x : tensor<2xi1>
  func.return
}

// -----

func.func @sign_bool(%x: tensor<2xi1>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.sign' op tg.sign needs a numeric element type, got i1
  %a = tg.sign %x : tensor<2xi1>
  func.return
}

// -----

func.func @min_mixed(%x: tensor<3xf32>, %y: tensor<3xf16>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.min' op operands must have the same element type, got f32 and f16
  %a = tg.min %x, %y : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return
}

// -----

func.func @max_no_broadcast(%x: tensor<3xi8>, %y: tensor<4xi8>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.max' op shapes (3,) and (4,) do not broadcast
  %a = tg.max %x, %y : (tensor<3xi8>, tensor<4xi8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @pow_bool(%x: tensor<3xi1>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pow' op tg.pow does not take booleans
  %a = tg.pow %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  func.return
}

// -----

func.func @pow_result(%x: tensor<3xi32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pow' op result type should be tensor<3xi32>, got tensor<3xf32>
  %a = tg.pow %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @mod_fmod_not_a_flag(%x: tensor<3xf32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.mod' op property 'fmod' must be true or false, got 1 : i64
  %a = tg.mod %x, %x {fmod = 1 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @bitcast_width(%x: tensor<3xf32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.bitcast' op f32 (32 bits) and i16 (16 bits) differ in width
  %a = tg.bitcast %x : tensor<3xf32> -> tensor<3xi16>
  func.return
}

// -----

func.func @bitcast_shape(%x: tensor<3xf32>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.bitcast' op result shape must equal the input shape (3,)
  %a = tg.bitcast %x : tensor<3xf32> -> tensor<1x3xi32>
  func.return
}
