// RUN: %tessel-opt %s -p 'kernel-to-loops{target=gpu}' --split-input-file | filecheck %s

// On the gpu target a loop bound with sched.bind is not a loop: its variable is the GPU
// index (gpu.block_id / gpu.thread_id), and the grid is sized to its extent
// (`kernel.gpu_dims` = grid x, y, z, then block x, y, z). A split that leaves a tail
// guards the threads past the axis's end with scf.if; the reduction stays a serial loop
// in each thread.

// j (20) split by 8: 3 blocks of 8 threads, the last block's 4 extra threads idle.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    kernel.schedule = "j/8x3:blockx i/1x6:blocky j/1x8:threadx k/1x8"
// CHECK-SAME:    kernel.gpu_dims = array<i64: 3, 6, 1, 8, 1, 1>
// CHECK:         %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:         %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[TX]], %{{.*}} : index
// CHECK:         scf.if %[[IN]] {
// CHECK:           scf.for %k = {{.*}} iter_args(
// CHECK:             arith.mulf
// CHECK-NOT:     scf.for %j
// CHECK:         kernel.launch @k0_matmul__s0({{.*}}) over 18
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
  %jo, %ji = sched.split %j by 8
  sched.reorder %jo, %i, %ji
  sched.bind %jo to blockIdx.x
  sched.bind %i to blockIdx.y
  sched.bind %ji to threadIdx.x
}

// -----

// Without a sched.stage, the default GPU schedule: the innermost spatial axis on threads
// (all 20, under 64 so i joins as threadIdx.y), nothing left for blocks: one block of 20x6.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    kernel.schedule = "j/1x20:threadx i/1x6:thready k/1x8"
// CHECK-SAME:    kernel.gpu_dims = array<i64: 1, 1, 1, 20, 6, 1>
// CHECK-NOT:     scf.if
// CHECK:         kernel.launch @k0_matmul__s0({{.*}}) over 1
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

// -----

// sched.cache_read at the outer k loop: each iteration, the block's 8x4 threads copy the
// 8x4 tile of a and the 4x16 tile of b they will read into shared memory (memory space 3),
// cooperatively (thread t copies elements t, t + 128, ...; 0 past the buffers' edges),
// wait at a barrier, accumulate from the tiles, and wait again. The threads past the end
// of i (18 rows: 3 blocks of 8) repeat the last row instead of skipping the barriers.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    kernel.schedule = "j/16x2:blockx i/8x3:blocky j/1x16:threadx i/1x8:thready |shared| k/4x2 k/1x4"
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:         arith.minsi %[[TX]], %{{.*}} : index
// CHECK:         scf.for %k = {{.*}} iter_args(
// CHECK:           %[[TA:.*]] = memref.alloca() : memref<8x4xf32, 3 : i64>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.load %a[
// CHECK:             arith.select
// CHECK:             memref.store %{{.*}}, %[[TA]][
// CHECK:           %[[TB:.*]] = memref.alloca() : memref<4x16xf32, 3 : i64>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.store %{{.*}}, %[[TB]][
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK:           scf.for %k{{.*}} iter_args(
// CHECK:             memref.load %[[TA]][
// CHECK:             memref.load %[[TB]][
// CHECK:           "gpu.barrier"() : () -> ()
func.func @k0_matmul(%a: memref<18x8xf32>, %b: memref<8x20xf32>, %c: memref<18x20xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 18, j = 20) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<18x20xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<18x8xf32>
    %y = affine.load %b[%k, %j] : memref<8x20xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %io, %ii = sched.split %i by 8
  %jo, %ji = sched.split %j by 16
  %ko, %ki = sched.split %k by 4
  sched.reorder %jo, %io, %ji, %ii, %ko, %ki
  sched.bind %jo to blockIdx.x
  sched.bind %io to blockIdx.y
  sched.bind %ji to threadIdx.x
  sched.bind %ii to threadIdx.y
  sched.cache_read %ko
}
