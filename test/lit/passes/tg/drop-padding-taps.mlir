// RUN: %tessel-opt %s -p tg-drop-padding-taps --split-input-file | filecheck %s

// DeepLabV3's ASPP branch: 3x3, dilation 24, padding 24 on a 14x14 map. The outer taps read
// rows and columns -24.. and 24.., padding at every output position: the conv is the centre
// tap alone, a 1x1 conv without padding (the weight sliced, the bias kept).
func.func @aspp(%x: tensor<1x8x14x14xf32>) -> tensor<1x4x14x14xf32> {
  %w = tg.weight @w : tensor<4x8x3x3xf32>
  %b = tg.weight @b : tensor<4xf32>
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 24, 24, 24, 24>, dilations = array<i64: 24, 24>, groups = 1 : i64} : (tensor<1x8x14x14xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x14x14xf32>
  func.return %y : tensor<1x4x14x14xf32>
}

// CHECK-LABEL: func.func @aspp
// CHECK:      %[[W:.*]] = tg.slice %w {{.*}}starts = array<i64: 0, 0, 1, 1>{{.*}} -> tensor<4x8x1x1xf32>
// CHECK:      tg.conv2d %x, %[[W]], %b {{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x4x14x14xf32>
// CHECK-NOT:  tg.conv2d

// -----

// Dilation 12 on the same map: every tap reads some row (rows 12 and 13 see the taps
// at +12, rows 0 and 1 those at -12): nothing to drop, the op is left as it is.
func.func @live(%x: tensor<1x8x14x14xf32>) -> tensor<1x4x14x14xf32> {
  %w = tg.weight @w : tensor<4x8x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 12, 12, 12, 12>, dilations = array<i64: 12, 12>, groups = 1 : i64} : (tensor<1x8x14x14xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x14x14xf32>
  func.return %y : tensor<1x4x14x14xf32>
}

// CHECK-LABEL: func.func @live
// CHECK-NOT:  tg.slice
// CHECK:      tg.conv2d %x, %w {{.*}}pads = array<i64: 12, 12, 12, 12>

// -----

// Only the rows lose taps (the map is 3 rows by 9 columns), and the kept tap starts inside
// the input: tap 1 of dilation 3 reads row 1 at the one output row, so the input is cropped
// to that row (a negative pad would be needed otherwise) and the columns keep their 3 taps.
func.func @crop(%x: tensor<1x2x3x9xf32>) -> tensor<1x2x1x9xf32> {
  %w = tg.weight @w : tensor<2x2x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 2, 3, 2, 3>, dilations = array<i64: 3, 3>, groups = 1 : i64} : (tensor<1x2x3x9xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x1x9xf32>
  func.return %y : tensor<1x2x1x9xf32>
}

// CHECK-LABEL: func.func @crop
// CHECK:      %[[X:.*]] = tg.slice %x {{.*}}starts = array<i64: 0, 0, 1, 0>{{.*}} -> tensor<1x2x1x9xf32>
// CHECK:      %[[W:.*]] = tg.slice %w {{.*}}starts = array<i64: 0, 0, 1, 0>{{.*}} -> tensor<2x2x1x3xf32>
// CHECK:      tg.conv2d %[[X]], %[[W]] {{.*}}pads = array<i64: 0, 3, 0, 3>{{.*}} -> tensor<1x2x1x9xf32>
