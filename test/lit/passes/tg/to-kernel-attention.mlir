// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// tg.attention is one kernel of stages: the scores (a reduction over the head size,
// query and key scaled by sqrt(scale) each), the guard (the largest bias of a row: -inf
// when the row may attend nothing), the softmax's peak, exponentials and total, and the
// weighted sum of the values. The bias is recomputed where it is read: here the causal
// frontier (query position i + offset 2 against key j) and a boolean mask shorter than
// the keys (read as false past its end). Two query heads share one key/value head.
// CHECK-LABEL: func.func @k0_attention(
// CHECK-SAME:    %[[Q:[a-z0-9_]+]]: memref<1x2x3x4xf32>, %[[K:[a-z0-9_]+]]: memref<1x1x5x4xf32>, %[[V:[a-z0-9_]+]]: memref<1x1x5x2xf32>, %[[M:[a-z0-9_]+]]: memref<3x4xi1>, %[[Y:[a-z0-9_]+]]: memref<1x2x3x2xf32>)
// CHECK:         %[[S:.+]] = memref.alloc() : memref<1x2x3x5xf32>
// CHECK-NEXT:    kernel.compute "scores" %[[S]](o0 = 1, o1 = 2, o2 = 3, o3 = 5) reduce(d = 4) combine "add"
// CHECK:           affine.load %[[Q]][%{{.*}}, %{{.*}}, %{{.*}}, %[[D:[a-z0-9_]+]]]
// CHECK-NEXT:      %[[F:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:           affine.load %[[K]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} floordiv 2, %{{[a-z0-9_]+}}, %[[D]]]
// CHECK:         %[[G:.+]] = memref.alloc() : memref<1x2x3xf32>
// CHECK-NEXT:    kernel.compute "guard{{[0-9]*}}" %[[G]](o0 = 1, o1 = 2, o2 = 3) reduce(j = 5) combine "max" init 0xff800000 : f32
// CHECK:           affine.apply affine_map<(d0, d1, d2, d3) -> ((d2 + 2))>
// CHECK:           arith.cmpi sge
// CHECK:           kernel.load %[[M]][%{{.*}}, %{{.*}}] pad false : memref<3x4xi1>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         %[[P:.+]] = memref.alloc() : memref<1x2x3xf32>
// CHECK-NEXT:    kernel.compute "peak{{[0-9]*}}" %[[P]](o0 = 1, o1 = 2, o2 = 3) reduce(j = 5) combine "max"
// CHECK:         } then {
// CHECK:           arith.cmpf oeq
// CHECK:         %[[E:.+]] = memref.alloc() : memref<1x2x3x5xf32>
// CHECK-NEXT:    kernel.compute "exp{{[0-9]*}}" %[[E]](i0 = 1, i1 = 2, i2 = 3, i3 = 5)
// CHECK:           math.exp
// CHECK:         %[[T:.+]] = memref.alloc() : memref<1x2x3xf32>
// CHECK-NEXT:    kernel.compute "total{{[0-9]*}}" %[[T]](o0 = 1, o1 = 2, o2 = 3) reduce(j = 5) combine "add"
// CHECK:         kernel.compute "attend{{[0-9]*}}" %[[Y]](o0 = 1, o1 = 2, o2 = 3, o3 = 2) reduce(j = 5) combine "add"
// CHECK:           arith.divf
// CHECK:           affine.load %[[G]]
// CHECK:           affine.load %[[V]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} floordiv 2, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
func.func @main(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %m: tensor<3x4xi1>) -> tensor<1x2x3x2xf32> {
  %y = tg.attention %q, %k, %v mask %m : tensor<3x4xi1> {causal = true, offset = 2 : i64, scale = 0.25 : f64} : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32> -> tensor<1x2x3x2xf32>
  func.return %y : tensor<1x2x3x2xf32>
}

// -----

// With bfloat16, each step rounds where the op's definition says (truncf + extf), and
// the softmax total accumulates in bfloat16 itself, one rounding per term. Without any
// mask there is no guard stage. The exposed probabilities (scores_mode 3) are a stage of
// their own.
// CHECK-LABEL: func.func @k0_attention(
// CHECK:         kernel.compute "scores"
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK:         } then {
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT:     "guard
// CHECK:         kernel.compute "total{{[0-9]*}}" %{{.*}} reduce(j = 5) combine "add" init 0.000000e+00 : bf16 : memref<1x2x3xbf16>
// CHECK:         kernel.compute "attend{{[0-9]*}}"
// CHECK:         kernel.compute "qk{{[0-9]*}}" %{{.*}}(i0 = 1, i1 = 2, i2 = 3, i3 = 5) : memref<1x2x3x5xbf16>
func.func @main(%q: tensor<1x2x3x4xbf16>, %k: tensor<1x2x5x4xbf16>, %v: tensor<1x2x5x2xbf16>) -> tensor<1x2x3x5xbf16> {
  %y, %p = tg.attention %q, %k, %v {scale = 0.25 : f64, scores_mode = 3 : i64} : tensor<1x2x3x4xbf16>, tensor<1x2x5x4xbf16>, tensor<1x2x5x2xbf16> -> tensor<1x2x3x2xbf16>, tensor<1x2x3x5xbf16>
  func.return %p : tensor<1x2x3x5xbf16>
}
