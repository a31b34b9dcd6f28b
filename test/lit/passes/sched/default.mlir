// RUN: %tessel-opt %s -p sched-default | filecheck %s
// RUN: %tessel-opt %s -p sched-default,kernel-to-loops | filecheck %s --check-prefix=LOOPS

// sched-default writes the schedule kernel-to-loops would choose as a sched.stage per
// stage: 6 rows of i by 16 lanes of j (20 columns: two vectors of 16, the second moved back
// to end at the row's end, rather than five of 4), k inside the accumulator tile. Replaying
// it gives the default loops.
// CHECK:      sched.stage "k0_matmul__s0" {
// CHECK-NEXT:   %i, %j, %k = sched.axes ["i", "j", "k"]
// CHECK-NEXT:   %i.o, %i.i = sched.split %i by 6
// CHECK-NEXT:   %j.o, %j.i = sched.split_clamp %j by 16
// CHECK-NEXT:   sched.reorder %i.o, %j.o, %k, %i.i, %j.i
// CHECK-NEXT:   sched.unroll %i.i
// CHECK-NEXT:   sched.vectorize %j.i
// CHECK-NEXT:   sched.cache_write at %j.o
// CHECK-NEXT: }
// LOOPS:      kernel.schedule = "i/6x1 j/16x2:clamp |acc| k/1x8 i/1x6:unroll j/1x16:vector"
// LOOPS-NOT:  sched.stage
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
