// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// A softmax over rows of 1500 (whisper's frames): the row max and the row sum have no vector
// axis (one value a row), so each is split as TVM's rfactor: 32 interleaved partial results
// a row (rf, the last spatial axis, which the schedule vectorizes: two vectors, two
// dependence chains) over 47 steps, the last one's lanes past 1500 guarded (1500 = 4 x 375:
// a divisor would use a quarter of the vector), then a stage combining the 32. The loads
// read x at r0 * 32 + rf: unit stride. Each partial is the row's own padded load, so the
// padding is the combine's identity (-inf for the max, 0 for the sum): no compare and
// select per step.
// CHECK-LABEL: func.func @k0_softmax(
// CHECK:       %[[MRF:.*]] = memref.alloc() : memref<4x1x32xf32>
// CHECK:       kernel.compute "max_rf" %[[MRF]](o0 = 4, o1 = 1, rf = 32) reduce(r0 = 47) combine "max"
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %[[L:.*]] = kernel.load %{{.*}}[%{{.*}}, %[[R:.*]] * 32 + %[[RF:.*]]] pad 0xff800000 : f32 : memref<4x1500xf32>
// CHECK-NEXT:      kernel.yield %[[L]] : f32
// CHECK:       kernel.compute "max" %{{.*}}(o0 = 4, o1 = 1) reduce(rf = 32) combine "max"
// CHECK:         affine.load %[[MRF]]
// CHECK:       kernel.compute "exp2" %[[Y:.*]](i0 = 4, i1 = 1500)
// CHECK:         math.exp
// CHECK:       kernel.compute "sum3_rf" %{{.*}}(o0 = 4, o1 = 1, rf = 32) reduce(r0 = 47) combine "add"
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %[[S:.*]] = kernel.load %[[Y]][%{{.*}}, %{{.*}} * 32 + %{{.*}}] pad 0.000000e+00 : f32 : memref<4x1500xf32>
// CHECK-NEXT:      kernel.yield %[[S]] : f32
// CHECK:       kernel.compute "sum3" %{{.*}}(o0 = 4, o1 = 1) reduce(rf = 32) combine "add"
// CHECK:       kernel.compute "softmax4" %[[Y]]
func.func @softmax_rows(%x: tensor<4x1500xf32>) -> tensor<4x1500xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<4x1500xf32>
  func.return %y : tensor<4x1500xf32>
}

// -----

// A sum over the first axis reads x at stride 256 along the reduction: it stays whole (the
// output row is the vector axis), and so does a row of 24 (under RFACTOR_MIN_EXTENT, 32: a
// second stage would cost more than it saves). An integer sum is exact in any order but gains nothing here either way:
// only float reductions are split.
// CHECK-LABEL: func.func @k0_reduce_sum(
// CHECK-NOT:   _rf
// CHECK:       kernel.compute "reduce_sum" %{{.*}}(o0 = 1, o1 = 256) reduce(r0 = 512) combine "add"
// CHECK-LABEL: func.func @k1_reduce_sum(
// CHECK-NOT:   _rf
// CHECK:       kernel.compute "reduce_sum" %{{.*}}(o0 = 8, o1 = 1) reduce(r0 = 24) combine "add"
// CHECK-LABEL: func.func @k2_reduce_sum(
// CHECK-NOT:   _rf
// CHECK:       kernel.compute "reduce_sum" %{{.*}}(o0 = 8, o1 = 1) reduce(r0 = 512) combine "add"
func.func @stay_whole(%x: tensor<512x256xf32>, %s: tensor<8x24xf32>, %i: tensor<8x512xi32>) -> (tensor<1x256xf32>, tensor<8x1xf32>, tensor<8x1xi32>) {
  %a = tg.reduce_sum %x {axes = array<i64: 0>, keepdims = true} : tensor<512x256xf32> -> tensor<1x256xf32>
  %b = tg.reduce_sum %s {axes = array<i64: 1>, keepdims = true} : tensor<8x24xf32> -> tensor<8x1xf32>
  %c = tg.reduce_sum %i {axes = array<i64: 1>, keepdims = true} : tensor<8x512xi32> -> tensor<8x1xi32>
  func.return %a, %b, %c : tensor<1x256xf32>, tensor<8x1xf32>, tensor<8x1xi32>
}

// -----

// A softmax over rows of 49 (Swin's 7 x 7 windows): 8 partial results a row over 7 steps
// (49 / 16 is under 4 steps), the last one's lanes past 49 reading the identity.
// CHECK-LABEL: func.func @k0_softmax(
// CHECK:       kernel.compute "max_rf" %{{.*}}(o0 = 6, o1 = 1, rf = 8) reduce(r0 = 7) combine "max"
// CHECK:       kernel.compute "max" %{{.*}}(o0 = 6, o1 = 1) reduce(rf = 8) combine "max"
// CHECK:       kernel.compute "sum3_rf" %{{.*}}(o0 = 6, o1 = 1, rf = 8) reduce(r0 = 7) combine "add"
func.func @window_rows(%x: tensor<6x49xf32>) -> tensor<6x49xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<6x49xf32>
  func.return %y : tensor<6x49xf32>
}
