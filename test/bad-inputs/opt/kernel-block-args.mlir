// CMD: tessel-opt %s -o %o
// ERROR: 'kernel.compute' op the body takes one index argument per axis
func.func @k0(%a: memref<4xf32>, %c: memref<4xf32>) attributes {kernel.kernel} {
  kernel.compute "k" %c(i = 4) : memref<4xf32> {
  ^bb0(%i: index, %j: index):
    %x = affine.load %a[%i] : memref<4xf32>
    kernel.yield %x : f32
  }
  func.return
}
