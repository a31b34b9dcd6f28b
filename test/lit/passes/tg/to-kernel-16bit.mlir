// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// 16-bit floats compute in f32 inside a kernel, but every tg op's result is a value of
// its type: a fused chain rounds after each op, where the reference rounds.
// CHECK-LABEL: func.func @k0_add_mul(
// CHECK:           %[[X:[a-z0-9_]+]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[B:[a-z0-9_]+]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT:      %[[SH:[a-z0-9_]+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      %[[SW:[a-z0-9_]+]] = arith.extf %[[SH]] : f16 to f32
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = arith.mulf %[[SW]], %[[SW]] : f32
// CHECK-NEXT:      arith.truncf %[[P]] : f32 to f16
func.func @main(%x: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %a = tg.add %x, %b : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  %y = tg.mul %a, %a : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  func.return %y : tensor<2x3xf16>
}

// -----

// An anchor's result feeds its epilogue rounded to its type (here the matmul's sum,
// before the bias is added).
// CHECK-LABEL: func.func @k0_matmul_add(
// CHECK:         } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[AH:[a-z0-9_]+]] = arith.truncf %[[ACC]] : f32 to bf16
// CHECK-NEXT:      %[[AW:[a-z0-9_]+]] = arith.extf %[[AH]] : bf16 to f32
// CHECK:           arith.addf %[[AW]], %{{.*}} : f32
func.func @main(%x: tensor<2x4xbf16>, %w: tensor<4x3xbf16>, %b: tensor<3xbf16>) -> tensor<2x3xbf16> {
  %m = tg.matmul %x, %w : (tensor<2x4xbf16>, tensor<4x3xbf16>) -> tensor<2x3xbf16>
  %y = tg.add %m, %b : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  func.return %y : tensor<2x3xbf16>
}

// -----

// A 16-bit softmax rounds every step as ONNX's reference: x - max and exp round to bf16,
// the sum accumulates in bf16 (each partial sum rounds), the quotient rounds.
// CHECK-LABEL: func.func @k0_softmax(
// CHECK:         kernel.compute "max" %{{.*}}(o0 = 2, o1 = 1) reduce(r0 = 3) combine "max" init 0xff800000 : f32
// CHECK:         %[[SUM:[a-z0-9_]+]] = memref.alloc() : memref<2x1xbf16>
// CHECK-NEXT:    kernel.compute "sum2" %[[SUM]](o0 = 2, o1 = 1) reduce(r0 = 3) combine "add" init 0.000000e+00 : bf16 : memref<2x1xbf16> {
// CHECK:           %[[D:[a-z0-9_]+]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[DH:[a-z0-9_]+]] = arith.truncf %[[D]] : f32 to bf16
// CHECK-NEXT:      %[[DW:[a-z0-9_]+]] = arith.extf %[[DH]] : bf16 to f32
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = math.exp %[[DW]] : f32
// CHECK-NEXT:      %[[EH:[a-z0-9_]+]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT:      kernel.yield %[[EH]] : bf16
// CHECK:         kernel.compute "softmax3"
// CHECK:           math.exp
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:      %[[Q:[a-z0-9_]+]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.divf %[[Q]], %{{.*}} : f32
// CHECK-NEXT:      arith.truncf %[[R]] : f32 to bf16
func.func @main(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<2x3xbf16>
  func.return %y : tensor<2x3xbf16>
}

// -----

// f16: the sum accumulates in f32 and rounds once, as numpy sums float16.
// CHECK-LABEL: func.func @k0_softmax(
// CHECK:         kernel.compute "sum2" %{{.*}}(o0 = 3, o1 = 1) reduce(r0 = 2) combine "add" init 0.000000e+00 : f32 : memref<3x1xf32>
// CHECK:         kernel.compute "softmax3"
// CHECK:           %[[S:[a-z0-9_]+]] = affine.load %{{.*}}[%{{.*}}, 0] : memref<3x1xf32>
// CHECK-NEXT:      %[[SH:[a-z0-9_]+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      %[[SW:[a-z0-9_]+]] = arith.extf %[[SH]] : f16 to f32
// CHECK:           arith.divf %{{.*}}, %[[SW]] : f32
func.func @main(%x: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<3x2xf16>
  func.return %y : tensor<3x2xf16>
}
