// RUN: %tessel-opt %s -p tg-conv3d-to-conv2d --split-input-file | filecheck %s

// r3d_18's 3x3x3 convolution with depth stride 2: the padded depth is sliced once per depth
// tap (start t, step 2), the output depth joins the batch, and each tap is one conv2d with
// the tap's weight; the taps' results are summed, the bias goes into the last one.
func.func @strided(%x: tensor<1x4x5x6x6xf32>) -> tensor<1x8x3x6x6xf32> {
  %w = tg.weight @w : tensor<8x4x3x3x3xf32>
  %b = tg.weight @b : tensor<8xf32>
  %y = tg.conv3d %x, %w, %b {strides = array<i64: 2, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1>, groups = 1 : i64} : (tensor<1x4x5x6x6xf32>, tensor<8x4x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x3x6x6xf32>
  func.return %y : tensor<1x8x3x6x6xf32>
}

// CHECK-LABEL: func.func @strided
// CHECK:      %[[P:.*]] = tg.pad %x {{.*}}pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 1, 0, 0>{{.*}} -> tensor<1x4x7x6x6xf32>
// CHECK:      %[[S0:.*]] = tg.slice %[[P]] {{.*}}starts = array<i64: 0, 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 1, 1>{{.*}} -> tensor<1x4x3x6x6xf32>
// CHECK:      %[[T0:.*]] = tg.transpose %[[S0]] {{.*}}perm = array<i64: 0, 2, 1, 3, 4>{{.*}} -> tensor<1x3x4x6x6xf32>
// CHECK:      %[[F0:.*]] = tg.reshape %[[T0]] {{.*}} -> tensor<3x4x6x6xf32>
// CHECK:      %[[W0:.*]] = tg.reshape {{.*}} -> tensor<8x4x3x3xf32>
// CHECK:      %[[C0:.*]] = tg.conv2d %[[F0]], %[[W0]] {{.*}}strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<3x8x6x6xf32>
// CHECK:      tg.slice %[[P]] {{.*}}starts = array<i64: 0, 0, 1, 0, 0>, steps = array<i64: 1, 1, 2, 1, 1>
// CHECK:      %[[C1:.*]] = tg.conv2d
// CHECK:      %[[A1:.*]] = tg.add %[[C1]], %[[C0]]
// CHECK:      tg.slice %[[P]] {{.*}}starts = array<i64: 0, 0, 2, 0, 0>, steps = array<i64: 1, 1, 2, 1, 1>
// CHECK:      %[[C2:.*]] = tg.conv2d {{.*}}, %b {{.*}} -> tensor<3x8x6x6xf32>
// CHECK:      %[[A2:.*]] = tg.add %[[C2]], %[[A1]]
// CHECK:      %[[U:.*]] = tg.reshape %[[A2]] {{.*}} -> tensor<1x3x8x6x6xf32>
// CHECK:      tg.transpose %[[U]] {{.*}}perm = array<i64: 0, 2, 1, 3, 4>{{.*}} -> tensor<1x8x3x6x6xf32>
// CHECK-NOT:  tg.conv3d

// -----

// A (1, kh, kw) kernel without depth padding: no pad, no slice, one conv2d, groups kept.
func.func @pointwise_depth(%x: tensor<2x4x3x5x5xf32>) -> tensor<2x6x3x5x5xf32> {
  %w = tg.weight @w : tensor<6x2x1x3x3xf32>
  %y = tg.conv3d %x, %w {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 1, 1, 0, 1, 1>, dilations = array<i64: 1, 1, 1>, groups = 2 : i64} : (tensor<2x4x3x5x5xf32>, tensor<6x2x1x3x3xf32>) -> tensor<2x6x3x5x5xf32>
  func.return %y : tensor<2x6x3x5x5xf32>
}

// CHECK-LABEL: func.func @pointwise_depth
// CHECK-NOT:  tg.pad
// CHECK-NOT:  tg.slice
// CHECK:      tg.conv2d {{.*}}groups = 2 : i64{{.*}} -> tensor<6x6x5x5xf32>
// CHECK-NOT:  tg.add
// CHECK-NOT:  tg.conv3d
