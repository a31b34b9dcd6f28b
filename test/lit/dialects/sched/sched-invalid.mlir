// RUN: %tessel-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// What the ops can check alone: arities, factors, handle use. (What depends on the
// stage is checked when kernel-to-loops applies the schedule: see
// test/lit/passes/schedule/sched-apply-invalid.mlir.)

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.split' op factors must be positive, got [0]
  %o, %n = sched.split %i by 0
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.split' op takes one loop and one factor
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
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:3: error: 'sched.vectorize' op takes one loop
  sched.vectorize %i, %j
}

// -----

sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  // CHECK: sched-invalid.mlir:[[# @LINE + 1]]:20: error: expected one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, got 'warpIdx.x'
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
