// RUN: %tessel-opt %s -p 'tg-fuse,tg-to-kernel,sched-apply-records{records="%S/Inputs/matmul-records.jsonl" host="lit-host"}' | filecheck %s
// RUN: %tessel-opt %s -p 'tg-fuse,tg-to-kernel,sched-apply-records{records="%S/Inputs/matmul-records.jsonl" host="lit-host"},kernel-to-loops' | filecheck %s --check-prefix=LOOPS
// RUN: %tessel-opt %s -p 'tg-fuse,tg-to-kernel,sched-apply-records{records="%S/Inputs/matmul-records.jsonl" host="another-host"},kernel-to-loops' | filecheck %s --check-prefix=OTHER

// The fastest error-free record of the stage's task on this host (the 1.0 ms one, not
// the 2.0 ms one nor the failed 0.5 ms one) becomes the stage's sched.stage, renamed to
// the stage; kernel-to-loops applies it.
// CHECK:      sched.stage "k0_matmul__s0" {
// CHECK-NEXT:   %o0, %o1, %k = sched.axes ["o0", "o1", "k"]
// CHECK-NEXT:   %o1.o, %o1.i = sched.split %o1 by 8
// CHECK-NEXT:   sched.reorder %o0, %o1.o, %k, %o1.i
// CHECK-NEXT:   sched.vectorize %o1.i
// CHECK-NEXT:   sched.cache_write at %o1.o
// CHECK-NEXT: }
// LOOPS: func.func @k0_matmul__s0({{.*}}kernel.schedule = "o0/1x4 o1/8x2 |acc| k/1x32 o1/1x8:vector"
// A record made on another machine does not apply: the default schedule.
// OTHER-NOT: sched.stage
// OTHER: func.func @k0_matmul__s0({{.*}}kernel.schedule = "o0/4x1 o1/16x1 |acc|

builtin.module {
  func.func @main(%a: tensor<4x32xf32>, %b: tensor<32x16xf32>) -> tensor<4x16xf32> {
    %c = tg.matmul %a, %b : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
    func.return %c : tensor<4x16xf32>
  }
}
