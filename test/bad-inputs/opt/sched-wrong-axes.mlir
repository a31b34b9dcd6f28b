// CMD: tessel-opt %s -o %o -p kernel-to-loops
// ERROR: sched.axes in sched.stage "k0_matmul__s0": names axes ['i', 'k'], the stage's are ['i', 'j
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
  %i, %k = sched.axes ["i", "k"]
}
