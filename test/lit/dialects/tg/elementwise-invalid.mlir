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
