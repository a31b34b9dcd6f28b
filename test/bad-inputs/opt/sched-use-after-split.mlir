// CMD: tessel-opt %s -o %o -p kernel-to-loops
// ERROR: 'sched.stage' op sched.parallel uses a loop handle that an earlier split, tile or fuse rep
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
  %o, %n = sched.split %i by 2
  sched.parallel %i
}
