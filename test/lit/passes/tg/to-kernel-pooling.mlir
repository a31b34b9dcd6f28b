// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// Lp pooling (passes/tg/lowering/pooling.py): a sum over the window taps of |x|^p, p
// multiplications by square and multiply, padding read as 0; the then region takes the
// p-th root (powf by 1/p, sqrt for p = 2).

// CHECK-LABEL: func.func @k0_lp_pool2d(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x4x4xf32>, %[[Y:[a-z0-9_]+]]: memref<1x1x3x3xf32>)
// CHECK-NEXT:    kernel.compute "lp_pool" %[[Y]](o0 = 1, o1 = 1, o2 = 3, o3 = 3) reduce(t0 = 2, t1 = 2) combine "add" init 0.000000e+00 : f32 : memref<1x1x3x3xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[O3:[a-z0-9_]+]]: index, %[[T0:[a-z0-9_]+]]: index, %[[T1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = kernel.load %[[X]][%[[O0]], %[[O1]], %[[O2]] * 2 + -1 + %[[T0]], %[[O3]] * 2 + -1 + %[[T1]]] pad 0.000000e+00 : f32 : memref<1x1x4x4xf32>
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = math.absf %[[V]] : f32
// CHECK-NEXT:      %[[A2:[a-z0-9_]+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      %[[A3:[a-z0-9_]+]] = arith.mulf %[[A]], %[[A2]] : f32
// CHECK-NEXT:      kernel.yield %[[A3]] : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[THIRD:[a-z0-9_]+]] = arith.constant 0.333333343 : f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = math.powf %[[ACC]], %[[THIRD]] : f32
// CHECK-NEXT:      kernel.yield %[[R]] : f32
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %y = tg.lp_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 3 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// f16 accumulates in f32 and rounds once; p = 2 takes a square root.
// CHECK-LABEL: func.func @k0_lp_pool2d(
// CHECK:         kernel.compute "lp_pool" %{{.*}}(o0 = 1, o1 = 1, o2 = 3, o3 = 3) reduce(t0 = 2, t1 = 2) combine "add" init 0.000000e+00 : f32 : memref<1x1x3x3xf16> {
// CHECK:           %[[W:[a-z0-9_]+]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = math.absf %[[W]] : f32
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      kernel.yield %[[S]] : f32
// CHECK:         } then {
// CHECK:           %[[R:[a-z0-9_]+]] = math.sqrt %{{.*}} : f32
// CHECK-NEXT:      %[[H:[a-z0-9_]+]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT:      kernel.yield %[[H]] : f16
func.func @main(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x3x3xf16> {
  %y = tg.lp_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 2 : i64} : (tensor<1x1x4x4xf16>) -> tensor<1x1x3x3xf16>
  func.return %y : tensor<1x1x3x3xf16>
}
