// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Every primitive in its custom syntax; the generic form re-parses to the same text.
// CHECK-LABEL: sched.stage "k0_matmul__s0" {
// CHECK-NEXT:    %i, %j, %k = sched.axes ["i", "j", "k"]
// CHECK-NEXT:    %i.o, %i.i = sched.split %i by 8
// CHECK-NEXT:    %j.o, %j.i = sched.split_clamp %j by 14
// CHECK-NEXT:    %a, %b, %c, %d = sched.tile %i.i, %j.i by 2, 7
// CHECK-NEXT:    %f = sched.fuse %i.o, %j.o
// CHECK-NEXT:    sched.reorder %f, %k, %a, %b, %c, %d
// CHECK-NEXT:    sched.parallel %f
// CHECK-NEXT:    sched.cache_write at %b
// CHECK-NEXT:    sched.unroll %c
// CHECK-NEXT:    sched.vectorize %d
// CHECK-NEXT:    sched.compute_at %f
// CHECK-NEXT:    sched.compute_inline
// CHECK-NEXT:    sched.cache_read %k
// CHECK-NEXT:    sched.bind %f to blockIdx.x
// CHECK-NEXT:    sched.tensorize %c
// CHECK-NEXT:    sched.virtual_thread %a
// CHECK-NEXT:  }
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %i.o, %i.i = sched.split %i by 8
  %j.o, %j.i = sched.split_clamp %j by 14
  %a, %b, %c, %d = sched.tile %i.i, %j.i by 2, 7
  %f = sched.fuse %i.o, %j.o
  sched.reorder %f, %k, %a, %b, %c, %d
  sched.parallel %f
  sched.cache_write at %b
  sched.unroll %c
  sched.vectorize %d
  sched.compute_at %f
  sched.compute_inline
  sched.cache_read %k
  sched.bind %f to blockIdx.x
  sched.tensorize %c
  sched.virtual_thread %a
}
