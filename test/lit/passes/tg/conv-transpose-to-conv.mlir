// RUN: %tessel-opt %s -p tg-conv-transpose-to-conv --split-input-file | filecheck %s

// DCGAN's layer shape: stride 2, 4x4 kernel, pad 1. The four output phases are one
// conv2d with 4 x 16 output channels over 2x2 taps (the kernel reversed per phase), its
// bias repeated per phase; then depth_to_space (DCR) and a crop of the padding (a pad
// by -1).
// CHECK-LABEL: func.func @deconv
// CHECK:      %[[W6:.*]] = tg.reshape %w : tensor<8x16x4x4xf32> -> tensor<8x16x2x2x2x2xf32>
// CHECK-NEXT: %[[F:.*]] = tg.slice %[[W6]] {starts = array<i64: 0, 0, 1, 0, 1, 0>, steps = array<i64: 1, 1, -1, 1, -1, 1>}
// CHECK-NEXT: %[[T:.*]] = tg.transpose %[[F]] {perm = array<i64: 3, 5, 1, 0, 2, 4>} : tensor<8x16x2x2x2x2xf32> -> tensor<2x2x16x8x2x2xf32>
// CHECK-NEXT: %[[W:.*]] = tg.reshape %[[T]] : tensor<2x2x16x8x2x2xf32> -> tensor<64x8x2x2xf32>
// CHECK-NEXT: %[[B:.*]] = tg.concat %b, %b, %b, %b {axis = 0 : i64}
// CHECK-NEXT: %[[C:.*]] = tg.conv2d %x, %[[W]], %[[B]] {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<64x8x2x2xf32>, tensor<64xf32>) -> tensor<1x64x5x5xf32>
// CHECK-NEXT: %[[U:.*]] = tg.depth_to_space %[[C]] {blocksize = 2 : i64, mode = "DCR"} : tensor<1x64x5x5xf32> -> tensor<1x16x10x10xf32>
// CHECK-NEXT: %y = tg.pad %[[U]] {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>, mode = "constant"} : tensor<1x16x10x10xf32> -> tensor<1x16x8x8xf32>
// CHECK-NEXT: func.return %y
func.func @deconv(%x: tensor<1x8x4x4xf32>) -> tensor<1x16x8x8xf32> {
  %w = tg.weight @w : tensor<8x16x4x4xf32>
  %b = tg.weight @b : tensor<16xf32>
  %y = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

// A 3x3 kernel with stride 2 is padded with zero taps to 4x4 first.
// CHECK-LABEL: func.func @odd_kernel
// CHECK:      tg.pad %w {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>, mode = "constant"} : tensor<2x3x3x3xf32> -> tensor<2x3x4x4xf32>
// CHECK:      tg.conv2d %x, %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x2x3x3xf32>, tensor<12x2x2x2xf32>, tensor<12xf32>) -> tensor<1x12x4x4xf32>
// CHECK:      %y = tg.pad %{{.*}} {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>, mode = "constant"} : tensor<1x3x8x8xf32> -> tensor<1x3x6x6xf32>
func.func @odd_kernel(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %w = tg.weight @w : tensor<2x3x3x3xf32>
  %b = tg.weight @b : tensor<3xf32>
  %y = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}

// -----

// output_padding past the last phase row (pad_end 0, output_padding 1): the crop pads by
// +1 at the end, and the bias is added after it, so that border gets the bias too.
// CHECK-LABEL: func.func @past_the_phases
// CHECK:      %[[C:.*]] = tg.conv2d %x, %{{[^,]*}} {{{.*}}} : (tensor<1x2x3x3xf32>, tensor<12x2x2x2xf32>) -> tensor<1x12x4x4xf32>
// CHECK:      %[[P:.*]] = tg.pad %{{.*}} {pads = array<i64: 0, 0, -1, -1, 0, 0, 1, 1>, mode = "constant"} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
// CHECK-NEXT: %[[B:.*]] = tg.reshape %b : tensor<3xf32> -> tensor<3x1x1xf32>
// CHECK-NEXT: %y = tg.add %[[P]], %[[B]]
func.func @past_the_phases(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x8x8xf32> {
  %w = tg.weight @w : tensor<2x3x4x4xf32>
  %b = tg.weight @b : tensor<3xf32>
  %y = tg.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  func.return %y : tensor<1x3x8x8xf32>
}

// -----

// Different strides per dim: the phase shuffle is a reshape, transpose and reshape.
// CHECK-LABEL: func.func @unequal_strides
// CHECK:      %[[C:.*]] = tg.conv2d %x, %{{.*}} : (tensor<1x2x3x3xf32>, tensor<6x2x2x3xf32>) -> tensor<1x6x4x5xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[C]] : tensor<1x6x4x5xf32> -> tensor<1x2x1x3x4x5xf32>
// CHECK-NEXT: %[[T:.*]] = tg.transpose %[[R]] {perm = array<i64: 0, 3, 4, 1, 5, 2>} : tensor<1x2x1x3x4x5xf32> -> tensor<1x3x4x2x5x1xf32>
// CHECK-NEXT: %[[U:.*]] = tg.reshape %[[T]] : tensor<1x3x4x2x5x1xf32> -> tensor<1x3x8x5xf32>
// CHECK-NEXT: %y = tg.pad %[[U]] {pads = array<i64: 0, 0, 0, 0, 0, 0, -1, 0>, mode = "constant"} : tensor<1x3x8x5xf32> -> tensor<1x3x7x5xf32>
func.func @unequal_strides(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x7x5xf32> {
  %w = tg.weight @w : tensor<2x3x3x3xf32>
  %y = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x5xf32>
  func.return %y : tensor<1x3x7x5xf32>
}

// -----

// Left alone: grouped, dilated, or with weights only known at run time (the dilated-input
// lowering of tg-to-kernel handles these).
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-3: tg.conv_transpose2d
// CHECK-NOT:  tg.conv2d
func.func @stays(%x: tensor<1x4x3x3xf32>, %v: tensor<4x2x3x3xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x2x9x9xf32>, tensor<1x2x7x7xf32>) {
  %w = tg.weight @w : tensor<4x2x3x3xf32>
  %g = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x7x7xf32>
  %d = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x9xf32>
  %r = tg.conv_transpose2d %x, %v {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  func.return %g, %d, %r : tensor<1x4x7x7xf32>, tensor<1x2x9x9xf32>, tensor<1x2x7x7xf32>
}
