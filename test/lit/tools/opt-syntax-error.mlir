// A syntax error is one line at file:line:col, exit 1, no traceback.

// RUN: not %tessel-opt %s 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}{{.*}}opt-syntax-error.mlir:[[# @LINE + 6]]:18: error: Expected ':'{{$}}
// CHECK-NOT:  Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tg.relu %x : tensor<2xf32>
  // The ':' before the type is missing.
  func.return %y tensor<2xf32>
}
