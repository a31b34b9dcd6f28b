// RUN: %tessel-opt %s -p kernel-to-loops --split-input-file | filecheck %s

// kernel-to-loops replays a sched.stage (and consumes it) instead of the default
// schedule. One matmul stage, scheduled four ways; each CHECK block pins what the
// primitives build.

// split_clamp + split with a tail + reorder + parallel + cache_write + unroll + vectorize:
// the parallel loop is j's outer loop over [lo, hi); i's last tile moves back
// (min(i*4, 2)); j's 20 columns in vectors of 8 leave a masked tail; the 4x8 accumulator
// tile lives in an alloca across the k loop.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    kernel.schedule = "j/8x3:parallel i/4x2:clamp |acc| k/1x8 i/1x4:unroll j/1x8:vector"
// CHECK:         scf.for %j = %lo to %hi
// CHECK:           scf.for %i =
// CHECK:             memref.alloca() : memref<4xvector<8xf32>>
// CHECK:             scf.for %k =
// CHECK:               %[[T:.*]] = arith.muli %i, %{{.*}} : index
// CHECK:               arith.minsi %[[T]], %{{.*}} : index
// CHECK:               vector.create_mask
// CHECK:               vector.maskedload %b
// CHECK-COUNT-3:       vector.maskedload %b
// CHECK-NOT:     sched.stage
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
  %i.o, %i.i = sched.split_clamp %i by 4
  %j.o, %j.i = sched.split %j by 8
  sched.reorder %j.o, %i.o, %k, %i.i, %j.i
  sched.parallel %j.o
  sched.cache_write at %i.o
  sched.unroll %i.i
  sched.vectorize %j.i
}

// -----

// tile = two splits with outers before inners; no cache_write: each output element is
// reduced in a scalar loop (iter_args), no vectors.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    kernel.schedule = "i/3x2 j/5x4 i/1x3 j/1x5 k/1x8"
// CHECK-NOT:     vector.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:           arith.addf
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
  %io, %jo, %ii, %ji = sched.tile %i, %j by 3, 5
}

// -----

// An element-wise stage: the sched.stage replaces the default (which would vectorize and
// parallelize); here the loops are reordered, j outermost.
// CHECK-LABEL: func.func @k0_copy__s0(
// CHECK-SAME:    kernel.schedule = "j/1x5 i/1x4"
// CHECK:         scf.for %j =
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      scf.for %i =
func.func @k0_copy(%a: memref<4x5xf32>, %c: memref<4x5xf32>) attributes {kernel.kernel} {
  kernel.compute "copy" %c(i = 4, j = 5) : memref<4x5xf32> {
  ^bb0(%i: index, %j: index):
    %x = affine.load %a[%i, %j] : memref<4x5xf32>
    kernel.yield %x : f32
  }
  func.return
}
sched.stage "k0_copy__s0" {
  %i, %j = sched.axes ["i", "j"]
  sched.reorder %j, %i
}
