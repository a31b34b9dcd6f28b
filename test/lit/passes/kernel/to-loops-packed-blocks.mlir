// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' | filecheck %s

// A packed weight read at (n floordiv 16, k, n mod 16): its 16 columns are contiguous only
// from a block's start, so 1000 outputs get no overlapping last vector (which would start at
// 984 and read columns 992-999 from the wrong block) but a width that divides them. Read from
// text, the index is a map of symbols (()[s0, s1] -> (s0 floordiv 16, s1, s0 mod 16)); taken
// for dims numbered as axes it looked linear in n, and the stage miscompiled.
// CHECK-LABEL: func.func @k0_dense_packed_add__s0(
// CHECK-SAME:    kernel.schedule = "o1/40x25:parallel o0/1x1 |acc| k/1x512 o1/8x5:unroll o1/1x8:vector"
// CHECK-NOT:     clamp
func.func @k0_dense_packed_add(%a: memref<1x512xf32>, %w: memref<63x512x16xf32>, %b: memref<1000xf32>, %y: memref<1x1000xf32>) attributes {kernel.kernel} {
  kernel.compute "dense" %y(o0 = 1, o1 = 1000) reduce(k = 512) combine "add" init 0.000000e+00 : f32 : memref<1x1000xf32> {
  ^bb0(%o0: index, %o1: index, %k: index):
    %x = affine.load %a[0, %k] : memref<1x512xf32>
    %v = affine.load %w[%o1 floordiv 16, %k, %o1 mod 16] : memref<63x512x16xf32>
    %p = arith.mulf %x, %v : f32
    kernel.yield %p : f32
  } then {
  ^bb0(%p0: index, %p1: index, %acc: f32):
    %c = affine.load %b[%p1] : memref<1000xf32>
    %s = arith.addf %acc, %c : f32
    kernel.yield %s : f32
  }
  func.return
}
