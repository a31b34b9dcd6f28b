// A verifier error is one line at the failing op's file:line:col, exit 1, no traceback.

// RUN: not %tessel-opt %s 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}{{.*}}opt-verifier-error.mlir:[[# @LINE + 5]]:3: error: 'tg.add' op shapes (3, 4) and (3,) do not broadcast{{$}}
// CHECK-NOT:  Traceback

func.func @f(%x: tensor<3x4xf32>, %y: tensor<3xf32>) -> tensor<3x4xf32> {
  %a = tg.relu %x : tensor<3x4xf32>
  %b = tg.add %a, %y : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return %b : tensor<3x4xf32>
}
