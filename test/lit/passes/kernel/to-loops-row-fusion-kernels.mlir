// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' | filecheck %s

// A stage that reads a row other than its own of what an earlier stage wrote (here the
// row sums, reversed) needs all of them first: the stages are not fused.
// CHECK-LABEL: func.func @reversed__s0(
// CHECK-NOT:     rows
// CHECK:         func.func @reversed__s1(
func.func @reversed(%x: memref<1024x512xf32>, %y: memref<1024x512xf32>) attributes {kernel.kernel} {
  %s = memref.alloc() : memref<1024x1xf32>
  kernel.compute "sum" %s(o0 = 1024, o1 = 1) reduce(r = 512) combine "add" init 0.000000e+00 : f32 : memref<1024x1xf32> {
  ^bb0(%o0: index, %o1: index, %r: index):
    %v = affine.load %x[%o0, %r] : memref<1024x512xf32>
    kernel.yield %v : f32
  }
  kernel.compute "scale" %y(i0 = 1024, i1 = 512) : memref<1024x512xf32> {
  ^bb0(%i0: index, %i1: index):
    %t = affine.load %s[1023 - %i0, 0] : memref<1024x1xf32>
    %v = affine.load %x[%i0, %i1] : memref<1024x512xf32>
    %w = arith.mulf %v, %t : f32
    kernel.yield %w : f32
  }
  memref.dealloc %s : memref<1024x1xf32>
  func.return
}

// The same reading its own row: fused.
// CHECK-LABEL: func.func @own__s0(
// CHECK-SAME:    kernel.schedule = "rows i0/1x1024:parallel
// CHECK-NOT:     func.func @own__s1(
func.func @own(%x: memref<1024x512xf32>, %y: memref<1024x512xf32>) attributes {kernel.kernel} {
  %s = memref.alloc() : memref<1024x1xf32>
  kernel.compute "sum" %s(o0 = 1024, o1 = 1) reduce(r = 512) combine "add" init 0.000000e+00 : f32 : memref<1024x1xf32> {
  ^bb0(%o0: index, %o1: index, %r: index):
    %v = affine.load %x[%o0, %r] : memref<1024x512xf32>
    kernel.yield %v : f32
  }
  kernel.compute "scale" %y(i0 = 1024, i1 = 512) : memref<1024x512xf32> {
  ^bb0(%i0: index, %i1: index):
    %t = affine.load %s[%i0, 0] : memref<1024x1xf32>
    %v = affine.load %x[%i0, %i1] : memref<1024x512xf32>
    %w = arith.mulf %v, %t : f32
    kernel.yield %w : f32
  }
  memref.dealloc %s : memref<1024x1xf32>
  func.return
}
