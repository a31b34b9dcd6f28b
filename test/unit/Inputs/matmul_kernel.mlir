// A 24x32x40 matmul kernel: the tuning and kill/resume tests' small workload.
func.func @k0_matmul(%a: memref<24x32xf32>, %b: memref<32x40xf32>, %c: memref<24x40xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 24, j = 40) reduce(k = 32) combine "add" init 0.000000e+00 : f32 : memref<24x40xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<24x32xf32>
    %y = affine.load %b[%k, %j] : memref<32x40xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
