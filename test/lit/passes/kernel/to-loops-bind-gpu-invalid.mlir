// RUN: %tessel-opt %s -p 'kernel-to-loops{target=gpu}' --split-input-file --verify-diagnostics | filecheck %s

// GPU schedules kernel-to-loops refuses, each in one line at the primitive: a reduction
// bound to an index, two loops on one index, bound loops inside a serial one, a loop
// bound twice, sched.parallel (the grid is the parallelism), too many threads per block,
// shared-memory tiles at a spatial loop, without bound loops, or too big for a block.

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 13]]:3: error: sched.bind in sched.stage "k0_matmul__s0": reduction axis k cannot be bound to a GPU index
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
  sched.bind %k to threadIdx.x
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 14]]:3: error: sched.bind in sched.stage "k0_matmul__s0": two loops are bound to threadIdx.x
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
  sched.bind %j to threadIdx.x
  sched.bind %i to threadIdx.x
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 13]]:3: error: sched.bind in sched.stage "k0_matmul__s0": loops bound to GPU indices must be the outermost ones
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
  sched.bind %j to threadIdx.x
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 15]]:3: error: sched.bind in sched.stage "k0_matmul__s0": the loop is already thread
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
  sched.reorder %j, %i
  sched.bind %j to threadIdx.x
  sched.bind %j to threadIdx.y
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 13]]:3: error: sched.parallel in sched.stage "k0_matmul__s0": a GPU stage's parallelism is its grid: bind loops with sched.bind instead
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
  sched.parallel %i
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 13]]:3: error: sched.bind in sched.stage "k0_wide__s0": 2048 threads per block exceed 1024
func.func @k0_wide(%a: memref<4096xf32>, %c: memref<4096xf32>) attributes {kernel.kernel} {
  kernel.compute "copy" %c(i = 4096) : memref<4096xf32> {
  ^bb0(%i: index):
    %x = affine.load %a[%i] : memref<4096xf32>
    kernel.yield %x : f32
  }
  func.return
}
sched.stage "k0_wide__s0" {
  %i = sched.axes ["i"]
  %io, %ii = sched.split %i by 2048
  sched.bind %io to blockIdx.x
  sched.bind %ii to threadIdx.x
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 14]]:3: error: sched.cache_read in sched.stage "k0_matmul__s0": shared-memory tiles are loaded at a serial reduction loop
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
  sched.bind %j to threadIdx.x
  sched.cache_read %i
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 13]]:3: error: sched.cache_read in sched.stage "k0_matmul__s0": staging through shared memory needs loops bound to GPU indices
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
  sched.cache_read %k
}

// -----

// CHECK: to-loops-bind-gpu-invalid.mlir:[[# @LINE + 2]]:3: error: the shared-memory tiles of stage matmul take 163840 bytes, over the 49152 a block may use
func.func @k0_big(%a: memref<64x1024xf32>, %b: memref<1024x16xf32>, %c: memref<64x16xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 64, j = 16) reduce(k = 1024) combine "add" init 0.000000e+00 : f32 : memref<64x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<64x1024xf32>
    %y = affine.load %b[%k, %j] : memref<1024x16xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_big__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %ko, %ki = sched.split %k by 512
  sched.bind %j to threadIdx.x
  sched.bind %i to threadIdx.y
  sched.cache_read %ko
}
