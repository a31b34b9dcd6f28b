// RUN: %tessel-opt %s -p 'tg-winograd{tile=2}' --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-winograd --split-input-file | filecheck %s --check-prefix=AUTO
// RUN: not %tessel-opt %s -p 'tg-winograd{tile=3}' 2>&1 | filecheck %s --check-prefix=BAD

// BAD: tessel-opt: error: bad pass pipeline 'tg-winograd{tile=3}': tg-winograd: tile must be 2, 4 or 0 (chosen per layer), got 3

// tg-winograd makes a 3x3 stride-1 tg.conv2d_nchwc whose weight is known a
// tg.conv2d_winograd: the filter transformed once, u = G g G^T (for a filter of ones and
// F(2, 3)'s G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1], G g = [1 1.5 .5 1] in every column,
// so u[i*4 + j] = [1 1.5 .5 1][i] * [1 1.5 .5 1][j]), with B^T and A^T as constants.
// CHECK-LABEL: func.func @ones
// CHECK:      %[[U:.+]] = tg.constant dense<{{\[\[\[\[\[}}1.000000e+00]]]], {{\[\[\[\[}}1.500000e+00]]]], {{\[\[\[\[}}5.000000e-01]]]], {{\[\[\[\[}}1.000000e+00]]]], {{\[\[\[\[}}1.500000e+00]]]], {{\[\[\[\[}}2.250000e+00]]]], {{\[\[\[\[}}7.500000e-01]]]], {{\[\[\[\[}}1.500000e+00]]]], {{\[\[\[\[}}5.000000e-01]]]], {{\[\[\[\[}}7.500000e-01]]]], {{\[\[\[\[}}2.500000e-01]]]], {{\[\[\[\[}}5.000000e-01]]]], {{\[\[\[\[}}1.000000e+00]]]], {{\[\[\[\[}}1.500000e+00]]]], {{\[\[\[\[}}5.000000e-01]]]], {{\[\[\[\[}}1.000000e+00]]]]]> : tensor<16x1x1x1x1xf32>
// CHECK-NEXT: %[[BT:.+]] = tg.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, -1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, -1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, -1.000000e+00]]> : tensor<4x4xf32>
// CHECK-NEXT: %[[AT:.+]] = tg.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, -1.000000e+00, -1.000000e+00]]> : tensor<2x4xf32>
// CHECK-NEXT: %y = tg.conv2d_winograd %x, %[[U]], %[[BT]], %[[AT]], %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x1xf32>, tensor<16x1x1x1x1xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<1xf32>) -> tensor<1x1x8x8x1xf32>
// CHECK-NOT:  tg.conv2d_nchwc
// Chosen per layer: F(4, 3), its 4 tiles of 4x4 the 64 outputs each transformed weight
// must serve.
// AUTO-LABEL: func.func @ones
// AUTO:       tg.conv2d_winograd {{.*}} tensor<36x1x1x1x1xf32>, tensor<6x6xf32>, tensor<4x6xf32>, tensor<1xf32>) -> tensor<1x1x8x8x1xf32>
func.func @ones(%x: tensor<1x1x8x8x1xf32>, %b: tensor<1xf32>) -> tensor<1x1x8x8x1xf32> {
  %w = tg.constant dense<1.0> : tensor<1x1x3x3x1x1xf32>
  %y = tg.conv2d_nchwc %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8x1xf32>, tensor<1x1x3x3x1x1xf32>, tensor<1xf32>) -> tensor<1x1x8x8x1xf32>
  func.return %y : tensor<1x1x8x8x1xf32>
}

// -----

// Not Winograd's: a stride of 2, a 1x1 filter, a dilation, groups, a weight computed at run
// time. Chosen per layer, a 4x4 output (16 outputs for each transformed weight) stays direct too; with the
// tile given, it is transformed.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: tg.conv2d_nchwc %
// CHECK:         %sm = tg.conv2d_winograd %small
// AUTO-LABEL: func.func @kept
// AUTO-COUNT-6: tg.conv2d_nchwc %
// AUTO-NOT:     tg.conv2d_winograd
func.func @kept(%x: tensor<1x2x8x8x4xf32>, %wr: tensor<2x2x3x3x4x4xf32>, %small: tensor<1x2x4x4x4xf32>) -> (tensor<1x2x4x4x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x4x4x4xf32>) {
  %w = tg.constant dense<1.0> : tensor<2x2x3x3x4x4xf32>
  %w1 = tg.constant dense<1.0> : tensor<2x2x1x1x4x4xf32>
  %wg = tg.constant dense<1.0> : tensor<2x1x3x3x4x4xf32>
  %s2 = tg.conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x4xf32>, tensor<2x2x3x3x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  %k1 = tg.conv2d_nchwc %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x4xf32>, tensor<2x2x1x1x4x4xf32>) -> tensor<1x2x8x8x4xf32>
  %d2 = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x2x8x8x4xf32>, tensor<2x2x3x3x4x4xf32>) -> tensor<1x2x6x6x4xf32>
  %g2 = tg.conv2d_nchwc %x, %wg {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x8x8x4xf32>, tensor<2x1x3x3x4x4xf32>) -> tensor<1x2x8x8x4xf32>
  %rt = tg.conv2d_nchwc %x, %wr {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8x4xf32>, tensor<2x2x3x3x4x4xf32>) -> tensor<1x2x8x8x4xf32>
  %sm = tg.conv2d_nchwc %small, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<2x2x3x3x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  func.return %s2, %k1, %d2, %g2, %rt, %sm : tensor<1x2x4x4x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x8x8x4xf32>, tensor<1x2x4x4x4xf32>
}

// -----

// Chosen per layer: 56x56 with 64 channels gets F(4, 3) (196 tiles of 4x4, 36 x 64 x 64
// transformed weights = 576 KiB).
// AUTO-LABEL: func.func @resnet_c2
// AUTO:       tg.conv2d_winograd {{.*}} : (tensor<1x4x56x56x16xf32>, tensor<36x4x4x16x16xf32>, tensor<6x6xf32>, tensor<4x6xf32>) -> tensor<1x4x56x56x16xf32>
func.func @resnet_c2(%x: tensor<1x4x56x56x16xf32>) -> tensor<1x4x56x56x16xf32> {
  %w = tg.constant dense<0.5> : tensor<4x4x3x3x16x16xf32>
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x56x56x16xf32>, tensor<4x4x3x3x16x16xf32>) -> tensor<1x4x56x56x16xf32>
  func.return %y : tensor<1x4x56x56x16xf32>
}
