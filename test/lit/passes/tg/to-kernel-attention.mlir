// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// float32 tg.attention is one kernel of stages: the keys transposed (so that each step
// of the scores loads a vector of keys), the scores (a reduction over the head size,
// scaled once after the sum), the softmax's peak and total as vector partials and their
// combination (a unit last axis, stages.py's rfactor), the exponentials, and the weighted
// sum of the values divided by the row's total after the sum. The bias is recomputed
// where it is read: here the causal frontier (query position i + offset 2 against key j)
// and a boolean mask shorter than the keys (read as false past its end). No guard stage:
// a row that attends nothing has exponentials 0, total 1 and output 0. Two query heads
// share one key/value head.
// CHECK-LABEL: func.func @k0_attention(
// CHECK-SAME:    %[[Q:[a-z0-9_]+]]: memref<1x2x3x4xf32>, %[[K:[a-z0-9_]+]]: memref<1x1x5x4xf32>, %[[V:[a-z0-9_]+]]: memref<1x1x5x2xf32>, %[[M:[a-z0-9_]+]]: memref<3x4xi1>, %[[Y:[a-z0-9_]+]]: memref<1x2x3x2xf32>)
// CHECK:         %[[KT:.+]] = memref.alloc() : memref<1x1x4x5xf32>
// CHECK-NEXT:    kernel.compute "keys" %[[KT]](i0 = 1, i1 = 1, i2 = 4, i3 = 5)
// CHECK:           affine.load %[[K]][%[[I0:[a-z0-9_]+]], %[[I1:[a-z0-9_]+]], %[[I3:[a-z0-9_]+]], %[[I2:[a-z0-9_]+]]]
// CHECK:         %[[S:.+]] = memref.alloc() : memref<1x2x3x5xf32>
// CHECK-NEXT:    kernel.compute "scores{{[0-9]*}}" %[[S]](o0 = 1, o1 = 2, o2 = 3, o3 = 5) reduce(d = 4) combine "add"
// CHECK:           affine.load %[[Q]][%{{.*}}, %{{.*}}, %{{.*}}, %[[D:[a-z0-9_]+]]]
// CHECK:           affine.load %[[KT]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} floordiv 2, %[[D]], %{{[a-z0-9_]+}}]
// CHECK:         } then {
// CHECK:           arith.constant 2.500000e-01 : f32
// CHECK-NEXT:      arith.mulf
// CHECK-NOT:     "guard
// CHECK:         %[[P:.+]] = memref.alloc() : memref<1x2x3x1xf32>
// CHECK:         kernel.compute "peak{{[0-9]*}}" %[[P]](o0 = 1, o1 = 2, o2 = 3, o3 = 1) reduce(j = 5) combine "max"
// CHECK:           affine.apply affine_map<(d0, d1, d2, d3, d4) -> ((d2 + 2))>
// CHECK:           arith.cmpi sge
// CHECK:           kernel.load %[[M]][%{{.*}}, %{{.*}}] pad false : memref<3x4xi1>
// CHECK:         } then {
// CHECK:           arith.cmpf oeq
// CHECK:         %[[E:.+]] = memref.alloc() : memref<1x2x3x5xf32>
// CHECK-NEXT:    kernel.compute "exp{{[0-9]*}}" %[[E]](i0 = 1, i1 = 2, i2 = 3, i3 = 5)
// CHECK:           math.exp
// CHECK:         %[[T:.+]] = memref.alloc() : memref<1x2x3x1xf32>
// CHECK:         kernel.compute "total{{[0-9]*}}" %[[T]](o0 = 1, o1 = 2, o2 = 3, o3 = 1) reduce(j = 5) combine "add"
// CHECK:         kernel.compute "attend{{[0-9]*}}" %[[Y]](o0 = 1, o1 = 2, o2 = 3, o3 = 2) reduce(j = 5) combine "add"
// CHECK:           affine.load %[[V]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} floordiv 2, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK:         } then {
// CHECK:           affine.load %[[T]]
// CHECK-NEXT:      arith.divf
func.func @main(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %m: tensor<3x4xi1>) -> tensor<1x2x3x2xf32> {
  %y = tg.attention %q, %k, %v mask %m : tensor<3x4xi1> {causal = true, offset = 2 : i64, scale = 0.25 : f64} : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32> -> tensor<1x2x3x2xf32>
  func.return %y : tensor<1x2x3x2xf32>
}

// -----

// With a softcap the kernel keeps the op's definition step by step: query and key scaled
// by sqrt(scale) each inside the scores' sum, the softcap in its epilogue, the guard (the
// largest bias of a row: -inf when the row may attend nothing), and each probability
// divided by the total inside the weighted sum.
// CHECK-LABEL: func.func @k0_attention(
// CHECK-SAME:    %[[Q:[a-z0-9_]+]]: memref<1x2x3x4xf32>, %[[K:[a-z0-9_]+]]: memref<1x1x5x4xf32>
// CHECK-NOT:     "keys"
// CHECK:         kernel.compute "scores" %{{.*}}(o0 = 1, o1 = 2, o2 = 3, o3 = 5) reduce(d = 4) combine "add"
// CHECK:           affine.load %[[Q]][%{{.*}}, %{{.*}}, %{{.*}}, %[[D:[a-z0-9_]+]]]
// CHECK-NEXT:      %[[F:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:           affine.load %[[K]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} floordiv 2, %{{[a-z0-9_]+}}, %[[D]]]
// CHECK:         } then {
// CHECK:           math.tanh
// CHECK:         %[[G:.+]] = memref.alloc() : memref<1x2x3xf32>
// CHECK-NEXT:    kernel.compute "guard{{[0-9]*}}" %[[G]](o0 = 1, o1 = 2, o2 = 3) reduce(j = 5) combine "max" init 0xff800000 : f32
// CHECK:         kernel.compute "attend{{[0-9]*}}"
// CHECK:           arith.divf
// CHECK:           affine.load %[[G]]
func.func @main(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>) -> tensor<1x2x3x2xf32> {
  %y = tg.attention %q, %k, %v {causal = true, scale = 0.25 : f64, softcap = 2.0 : f64} : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32> -> tensor<1x2x3x2xf32>
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
