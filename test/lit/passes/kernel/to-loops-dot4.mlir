// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' | filecheck %s

// A stage naming its vector axis (`lanes(o1)`) is vectorized along it, not along the
// innermost axis; the register tile's rows are the other axis (4 rows of o0 here). The
// body's kernel.dot4 from zero and the reduction's add become one kernel.dot4 into the
// accumulator (vpdpbusd adds into its destination), the activation word broadcast to the
// 16 lanes and the weights loaded as one vector.
// CHECK-LABEL: func.func @dot4__s0(
// CHECK-SAME:    kernel.schedule = "o0/4x1 o1/16x1 |acc| c4/1x2 o0/1x4:unroll o1/1x16:vector"
// CHECK:         scf.for %c4 =
// CHECK:           %[[X:.+]] = memref.load %x[%{{.+}}, %c4] : memref<4x2xi32>
// CHECK-NEXT:      %[[W:.+]] = vector.load %w[%c4, %{{.+}}] : memref<2x16xi32>, vector<16xi32>
// CHECK:           %[[B:.+]] = vector.broadcast %[[X]] : i32 to vector<16xi32>
// CHECK:           %[[ACC:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<4xvector<16xi32>>
// CHECK-NEXT:      %[[D:.+]] = kernel.dot4 %[[ACC]], %[[B]], %[[W]] : vector<16xi32>
// CHECK-NEXT:      memref.store %[[D]], %{{.+}}[%{{.+}}] : memref<4xvector<16xi32>>
// CHECK-NOT:       arith.addi %{{.+}} : vector<16xi32>
func.func @dot4(%x: memref<4x2xi32>, %w: memref<2x16xi32>, %y: memref<4x16xi32>) attributes {kernel.kernel} {
  kernel.compute "conv_dot4" %y(o0 = 4, o1 = 16) reduce(c4 = 2) combine "add" init 0 : i32 lanes(o1) : memref<4x16xi32> {
  ^bb0(%o0: index, %o1: index, %c4: index):
    %a = affine.load %x[%o0, %c4] : memref<4x2xi32>
    %b = affine.load %w[%c4, %o1] : memref<2x16xi32>
    %zero = arith.constant 0 : i32
    %d = kernel.dot4 %zero, %a, %b : i32
    kernel.yield %d : i32
  }
  func.return
}
