// CMD: tessel-opt %s -o %o
// ERROR: 'kernel.compute' op the body yields i32, the output holds f32
func.func @k0(%a: memref<4xf32>, %c: memref<4xf32>) attributes {kernel.kernel} {
  kernel.compute "k" %c(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    %x = affine.load %a[%i] : memref<4xf32>
    %n = arith.fptosi %x : f32 to i32
    kernel.yield %n : i32
  }
  func.return
}
