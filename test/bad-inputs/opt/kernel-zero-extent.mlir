// CMD: tessel-opt %s -o %o
// ERROR: 'kernel.compute' op spatial extents [0] must equal the output shape [4]
func.func @k0(%a: memref<4xf32>, %c: memref<4xf32>) attributes {kernel.kernel} {
  kernel.compute "k" %c(i = 0) : memref<4xf32> {
  ^bb0(%i: index):
    %x = affine.load %a[%i] : memref<4xf32>
    kernel.yield %x : f32
  }
  func.return
}
