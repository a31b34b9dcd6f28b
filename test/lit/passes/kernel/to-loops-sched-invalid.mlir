// RUN: %tessel-opt %s -p kernel-to-loops --split-input-file --verify-diagnostics | filecheck %s

// Errors that depend on the stage, found when kernel-to-loops applies a sched.stage: each
// is one line at the primitive (or the stage) and names it.

// A schedule for a stage the module does not have.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 11]]:1: error: sched.stage "k0_matmul__s7" names no stage of this module (stages: k0_matmul__s0)
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s7" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
}

// -----

// The axes must be the stage's, by name and order.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 12]]:3: error: sched.axes in sched.stage "k0_matmul__s0": names axes ['j', 'i', 'k'], the stage's are ['i', 'j', 'k']
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %j, %i, %k = sched.axes ["j", "i", "k"]
}

// -----

// A reduction axis cannot become vector lanes (its lanes would have to be summed).
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.vectorize in sched.stage "k0_matmul__s0": a reduction axis cannot be vectorized
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.vectorize %k
}

// -----

// Only the outermost loop is split across threads.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.parallel in sched.stage "k0_matmul__s0": only the outermost loop may be parallel
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.parallel %j
}

// -----

// The vector loop must be innermost.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.vectorize in sched.stage "k0_matmul__s0": only the innermost loop may be vectorized
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.vectorize %j
}

// -----

// Reduction loops outside the accumulator tile (split-K) keep partial sums in the output:
// only a sum can be resumed from them.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 14]]:3: error: sched.cache_write in sched.stage "k0_matmul__s0": reduction loops outside the accumulator tile need an add combiner, not max
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "max" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.reorder %k, %i, %j
  sched.cache_write at %i
}

// -----

// ... and every vector whole: a masked tail would load partial sums it does not own.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 15]]:3: error: sched.cache_write in sched.stage "k0_matmul__s0": reduction loops outside the accumulator tile need whole vectors along the innermost spatial axis
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %j0, %j1 = sched.split %j by 8
  sched.reorder %k, %i, %j0, %j1
  sched.cache_write at %j0
  sched.vectorize %j1
}

// -----

// ... and no overlapping last vector (a clamped tile of rows is fine: it stores only its own rows).
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 15]]:3: error: sched.cache_write in sched.stage "k0_matmul__s0": reduction loops outside the accumulator tile take no overlapping last vector
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %j0, %j1 = sched.split_clamp %j by 8
  sched.reorder %k, %i, %j0, %j1
  sched.cache_write at %j0
  sched.vectorize %j1
}

// -----

// A loop is annotated once.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 14]]:3: error: sched.parallel in sched.stage "k0_matmul__s0": the loop is already unroll
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.unroll %i
  sched.parallel %i
}

// -----

// A clamped split needs at least one whole tile.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.split_clamp in sched.stage "k0_matmul__s0": split_clamp factor 8 exceeds the loop's 6 iterations
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %o, %n = sched.split_clamp %i by 8
}

// -----

// Primitives the cpu target does not implement say so.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.fuse in sched.stage "k0_matmul__s0": the cpu loop builder gives each loop one axis; fuse is not supported yet
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %f = sched.fuse %i, %j
}

// -----

// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.bind in sched.stage "k0_matmul__s0": bind maps loops to GPU indices and needs the gpu target
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.bind %i to blockIdx.x
}

// -----

// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.compute_at in sched.stage "k0_matmul__s0": stages are separate loop nests on the cpu target; compute_at is not supported yet
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.compute_at %i
}

// -----

// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.tensorize in sched.stage "k0_matmul__s0": no tensor intrinsic is registered for the cpu target
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.tensorize %j
}

// -----

// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.virtual_thread in sched.stage "k0_matmul__s0": virtual threads are for the vta target
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x20xf32>, %c: memref<6x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  sched.virtual_thread %j
}

// -----

// A vectorized reduction stage must accumulate in a register tile (cache_write).
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 15]]:3: error: sched.vectorize in sched.stage "k0_matmul__s0": a reduction stage's vectorized loop accumulates in registers: give the stage a cache_write
func.func @k0_matmul(%a: memref<6x8xf32>, %b: memref<8x16xf32>, %c: memref<6x16xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 16) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<6x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x16xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %j.o, %j.i = sched.split %j by 8
  sched.reorder %i, %j.o, %k, %j.i
  sched.vectorize %j.i
}

// -----

// A packed weight read at (n floordiv 16, k, n mod 16) is contiguous over a vector only from
// a block's start: a clamped last vector (984-999 of 1000) would read across blocks. Such a
// schedule was once the recorded default of ResNet-18's classifier, and miscompiled it.
// CHECK: to-loops-sched-invalid.mlir:[[# @LINE + 13]]:3: error: sched.split_clamp in sched.stage "k0_dense_packed__s0": the stage reads axis o1 through a floordiv or mod: its vectors must start on whole blocks, and a clamped last vector does not
func.func @k0_dense_packed(%a: memref<1x512xf32>, %w: memref<63x512x16xf32>, %y: memref<1x1000xf32>) attributes {kernel.kernel} {
  kernel.compute "dense" %y(o0 = 1, o1 = 1000) reduce(k = 512) combine "add" init 0.000000e+00 : f32 : memref<1x1000xf32> {
  ^bb0(%o0: index, %o1: index, %k: index):
    %x = affine.load %a[0, %k] : memref<1x512xf32>
    %v = affine.load %w[%o1 floordiv 16, %k, %o1 mod 16] : memref<63x512x16xf32>
    %p = arith.mulf %x, %v : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_dense_packed__s0" {
  %o0, %o1, %k = sched.axes ["o0", "o1", "k"]
  %o1.o, %o1.i = sched.split_clamp %o1 by 16
  sched.reorder %o1.o, %o0, %k, %o1.i
  sched.parallel %o1.o
  sched.vectorize %o1.i
  sched.cache_write at %o0
}
