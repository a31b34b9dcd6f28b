// RUN: %tessel-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// What the ops can check alone: arities, factors, handle use. (What depends on the
// stage is checked when kernel-to-loops applies the schedule: see
// test/lit/passes/kernel/to-loops-sched-invalid.mlir.)

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.split' op factors must be positive, got [0]
  %o, %n = sched.split %i by 0
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:31: error: unexpected ',' after the end of an operation
  %o, %n = sched.split %i by 2, 3
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.tile' op takes one factor per loop
  %a, %b, %c, %d = sched.tile %i, %j by 4
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.reorder' op lists a loop twice
  sched.reorder %i, %i
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:21: error: unexpected ',' after the end of an operation
  sched.vectorize %i, %j
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:20: error: Expected `blockIdx.x`, `blockIdx.y`, `blockIdx.z`, `threadIdx.x`, `threadIdx.y`, or `threadIdx.z`.
  sched.bind %i to warpIdx.x
}

// -----

sched.stage "s" {
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.axes' op names an axis twice
  %i, %j = sched.axes ["i", "i"]
}

// -----

// CHECK: sched-invalid.mlir:[[# @LINE + 1]]:1: error: 'sched.stage' op "s" must begin with sched.axes
sched.stage "s" {
  sched.compute_inline
}

// -----

// A handle that a split replaced is gone (its loop no longer exists as such).
// CHECK: sched-invalid.mlir:[[# @LINE + 1]]:1: error: 'sched.stage' op sched.vectorize uses a loop handle that an earlier split, tile or fuse replaced
sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  %o, %n = sched.split %j by 4
  sched.vectorize %j
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.tile' op factors must be positive, got [4, -1]
  %a, %b, %c, %d = sched.tile %i, %j by 4, -1
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.tile' op yields 4 handles, got 2
  %a, %b = "sched.tile"(%i, %j) <{factors = array<i64: 2, 2>}> : (!sched.loop, !sched.loop) -> (!sched.loop, !sched.loop)
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.fuse' op takes two or more loops
  %f = sched.fuse %i
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.reorder' op takes two or more loops
  sched.reorder %i
}

// -----

sched.stage "s" {
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.axes' op names 2 axes but yields 1 handles
  %i = "sched.axes"() <{names = ["i", "j"]}> : () -> !sched.loop
}

// -----

// CHECK: sched-invalid.mlir:[[# @LINE + 1]]:1: error: 'sched.stage' op "s" has more than one sched.axes
sched.stage "s" {
  %i = sched.axes ["i"]
  %j = sched.axes ["j"]
}
