// RUN: %tessel-opt %s -p tg-to-kernel --split-input-file --verify-diagnostics | filecheck %s
// RUN: not %tessel-opt %s -p tg-to-kernel --split-input-file 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=ERR

// What tg-to-kernel rejects: a graph that was not fused, and a tg.fused it has no
// lowering for. These are user errors (hand-written or stale IR), so each must be one
// line at the offending op and exit 1, not a traceback or an internal error (exit 70).
// The second RUN line stops at the first case and checks exactly that.

// ERR:      lines: 1
// ERR-NEXT: {{^}}{{.*}}to-kernel-invalid.mlir:[[# @LINE + 5]]:3: error: tg-to-kernel expects fused groups (run tg-fuse first), found tg.relu{{$}}

// The pass consumes tg.fused groups only: a bare tg op means tg-fuse did not run.
func.func @unfused(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: to-kernel-invalid.mlir:[[# @LINE + 1]]:3: error: tg-to-kernel expects fused groups (run tg-fuse first), found tg.relu
  %r = tg.relu %x : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Inside a group every non-anchor value is computed element by element from the group's
// inputs; a tg.constant has no such rule (tg-fuse keeps constants outside groups).
func.func @constant_inside(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: to-kernel-invalid.mlir:[[# @LINE + 1]]:3: error: cannot lower 'constant_add' to a kernel: tg.constant cannot be computed element-wise
  %t = tg.fused "constant_add"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a1: tensor<4xf32>):
    %k = tg.constant dense<1.0> : tensor<4xf32>
    %z = tg.add %a1, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tg.yield %z : tensor<4xf32>
  }
  func.return %t : tensor<4xf32>
}

// -----

// An anchor's consumers become its then region, which only sees the accumulator of the
// element being stored. A transpose reads the matmul at another index, so it cannot be
// an epilogue (tg-fuse only fuses element-wise consumers into a matmul).
func.func @anchor_transposed(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: to-kernel-invalid.mlir:[[# @LINE + 1]]:3: error: cannot lower 'matmul_transpose' to a kernel: tg.matmul cannot be computed element-wise
  %t = tg.fused "matmul_transpose"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a1: tensor<4x4xf32>, %b1: tensor<4x4xf32>):
    %y = tg.matmul %a1, %b1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %z = tg.transpose %y {perm = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
    tg.yield %z : tensor<4x4xf32>
  }
  func.return %t : tensor<4x4xf32>
}

// -----

// A kernel is built around one anchor; two matmuls in one group (hand-written: tg-fuse
// never makes this) must be split, not half-lowered.
func.func @two_anchors(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: to-kernel-invalid.mlir:[[# @LINE + 1]]:3: error: cannot lower 'matmul_matmul' to a kernel: it holds 2 anchor ops (tg.matmul, tg.matmul); a kernel has one
  %t = tg.fused "matmul_matmul"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a1: tensor<4x4xf32>, %b1: tensor<4x4xf32>):
    %y = tg.matmul %a1, %b1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %z = tg.matmul %y, %b1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    tg.yield %z : tensor<4x4xf32>
  }
  func.return %t : tensor<4x4xf32>
}

// -----

// The anchor's stage writes one output; a group that also yields its epilogue's value
// would leave that second output unwritten, so it is rejected.
func.func @anchor_two_results(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  // CHECK: to-kernel-invalid.mlir:[[# @LINE + 1]]:3: error: cannot lower 'matmul_relu' to a kernel: it yields 2 values; a group around tg.matmul yields only that op's results
  %t:2 = tg.fused "matmul_relu"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%a1: tensor<4x4xf32>, %b1: tensor<4x4xf32>):
    %y = tg.matmul %a1, %b1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %z = tg.relu %y : tensor<4x4xf32>
    tg.yield %y, %z : tensor<4x4xf32>, tensor<4x4xf32>
  }
  func.return %t#0, %t#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
