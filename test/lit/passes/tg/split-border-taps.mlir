// RUN: %tessel-opt %s -p tg-split-border-taps --split-input-file | filecheck %s

// DeepLabV3's ASPP branch with dilation 12 on a 14x14 map: the centre taps read the input at
// every output, the outer ones only at the two rows (columns) nearest an edge. Per axis the
// taps group as {0} live at outputs [12, 14), {1} at [0, 14), {2} at [0, 2): nine 1x1
// convolutions without padding over the input slices they read, padded into place and
// summed; the whole-map one (the centre) carries the bias.
func.func @aspp(%x: tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32> {
  %w = tg.weight @w : tensor<64x64x3x3xf32>
  %b = tg.weight @b : tensor<64xf32>
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 12, 12, 12, 12>, dilations = array<i64: 12, 12>, groups = 1 : i64} : (tensor<1x64x14x14xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x14x14xf32>
  func.return %y : tensor<1x64x14x14xf32>
}

// CHECK-LABEL: func.func @aspp
// CHECK:      %[[C:.*]] = tg.slice %w {{.*}}starts = array<i64: 0, 0, 1, 1>{{.*}} -> tensor<64x64x1x1xf32>
// CHECK:      %[[Y:.*]] = tg.conv2d %x, %[[C]], %b {{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x64x14x14xf32>
// The tap at row offset -12 (kh = 0) reads rows 0..1 for output rows 12..13.
// CHECK:      tg.slice %x {{.*}}starts = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x64x2x14xf32>
// CHECK:      %w_tap0x1 = tg.slice %w {{.*}}starts = array<i64: 0, 0, 0, 1>{{.*}} -> tensor<64x64x1x1xf32>
// CHECK:      %[[P:.*]] = tg.conv2d {{.*}} -> tensor<1x64x2x14xf32>
// CHECK:      tg.pad %[[P]] {{.*}}pads = array<i64: 0, 0, 12, 0, 0, 0, 0, 0>
// CHECK-COUNT-7: tg.conv2d
// CHECK-NOT:  tg.conv2d
// CHECK:      func.return

// -----

// Dilation 1 on a large map: the padding is a thin border, the conv is left as it is.
func.func @thin(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = tg.weight @w : tensor<64x64x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// CHECK-LABEL: func.func @thin
// CHECK-NOT:  tg.slice
// CHECK:      tg.conv2d %x, %w {{.*}}pads = array<i64: 1, 1, 1, 1>

// -----

// Small: 4 channels, the same geometry as @aspp. Nine launches would cost more than the
// multiplications by padding; left as it is.
func.func @small(%x: tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32> {
  %w = tg.weight @w : tensor<4x4x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 12, 12, 12, 12>, dilations = array<i64: 12, 12>, groups = 1 : i64} : (tensor<1x4x14x14xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x14x14xf32>
  func.return %y : tensor<1x4x14x14xf32>
}

// CHECK-LABEL: func.func @small
// CHECK-NOT:  tg.slice
// CHECK:      tg.conv2d %x, %w {{.*}}pads = array<i64: 12, 12, 12, 12>

// -----

// No tap live everywhere (a 5x5 map, 2x2 taps dilated by 4, padding 2): per axis tap 0 is
// live at outputs [2, 5), tap 1 at [0, 3). Four pieces, none covering the output, so the
// bias is added at the end.
func.func @no_centre(%x: tensor<1x256x5x5xf32>) -> tensor<1x256x5x5xf32> {
  %w = tg.weight @w : tensor<256x256x2x2xf32>
  %b = tg.weight @b : tensor<256xf32>
  %y = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 4, 4>, groups = 1 : i64} : (tensor<1x256x5x5xf32>, tensor<256x256x2x2xf32>, tensor<256xf32>) -> tensor<1x256x5x5xf32>
  func.return %y : tensor<1x256x5x5xf32>
}

// CHECK-LABEL: func.func @no_centre
// CHECK-COUNT-4: tg.conv2d %{{[0-9]+}}, %w_tap{{[01]}}x{{[01]}} {{.*}} -> tensor<1x256x3x3xf32>
// CHECK:      %[[B:.*]] = tg.reshape %b : tensor<256xf32> -> tensor<256x1x1xf32>
// CHECK:      %y = tg.add %{{.*}}, %[[B]]

// -----

// Stride 2, grouped (a 7x7 map, 3x3 taps dilated by 6, padding 6, out 4x4): per axis tap 0
// is live at outputs [3, 4), tap 1 at [0, 4), tap 2 at [0, 1). The strided slices read
// every second position of the rows each piece needs.
func.func @strided(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x4x4xf32> {
  %w = tg.weight @w : tensor<512x128x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 6, 6, 6, 6>, dilations = array<i64: 6, 6>, groups = 4 : i64} : (tensor<1x512x7x7xf32>, tensor<512x128x3x3xf32>) -> tensor<1x512x4x4xf32>
  func.return %y : tensor<1x512x4x4xf32>
}

// CHECK-LABEL: func.func @strided
// CHECK:      tg.conv2d %x, %w_tap1x1 {strides = array<i64: 2, 2>, {{.*}}groups = 4 : i64} : {{.*}} -> tensor<1x512x4x4xf32>
// CHECK:      %[[S:.*]] = tg.slice %x {starts = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x512x1x7xf32>
// CHECK:      tg.conv2d %[[S]], %w_tap0x1 {{.*}} -> tensor<1x512x1x4xf32>
// CHECK-COUNT-7: tg.conv2d
// CHECK-NOT:  tg.conv2d
