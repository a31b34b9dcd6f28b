// RUN: %tessel-opt %s -p tg-layout --split-input-file | filecheck %s

// A conv becomes conv2d_nchwc between transforms; the relu after it moves into the blocked
// layout, and the transform back to NCHW meets the next conv's transform into NCHW16c, so
// both vanish: only the model's edges convert.
// CHECK-LABEL: func.func @two_convs
// CHECK:      %[[XB:.*]] = tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"}
// CHECK:      %[[W1:.*]] = tg.layout_transform %w1 {src = "OIHW", dst = "OIHW16i16o"}
// CHECK:      %[[Y1:.*]] = tg.conv2d_nchwc %[[XB]], %[[W1]]
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[Y1]] : tensor<1x2x8x8x16xf32>
// CHECK:      %[[Y2:.*]] = tg.conv2d_nchwc %[[R]], %{{.*}}
// CHECK-NEXT: %{{.*}} = tg.layout_transform %[[Y2]] {src = "NCHW16c", dst = "NCHW"}
// CHECK-NOT:  tg.layout_transform
// CHECK:      func.return
func.func @two_convs(%x: tensor<1x16x8x8xf32>, %w1: tensor<32x16x3x3xf32>, %w2: tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = tg.relu %a : tensor<1x32x8x8xf32>
  %b = tg.conv2d %r, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  func.return %b : tensor<1x16x8x8xf32>
}

// -----

// The image's 3 channels make one input block (NCHW3c); a per-channel bias operand of an
// add is blocked to match, a broadcast over channels is reshaped.
// CHECK-LABEL: func.func @stem
// CHECK:      tg.layout_transform %x {src = "NCHW", dst = "NCHW3c"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x3xf32>
// CHECK:      tg.layout_transform %w {src = "OIHW", dst = "OIHW3i16o"}
// CHECK:      %[[B:.*]] = tg.layout_transform %{{.*}} {src = "NCHW", dst = "NCHW16c"} : tensor<1x16x1x1xf32> -> tensor<1x1x1x1x16xf32>
// CHECK:      tg.add %{{.*}}, %[[B]] : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK:      %[[S:.*]] = tg.reshape %s : tensor<1x8x8xf32> -> tensor<1x1x8x8x1xf32>
// CHECK:      tg.mul %{{.*}}, %[[S]]
func.func @stem(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %bias: tensor<16x1x1xf32>, %s: tensor<1x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %a = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  %b = tg.add %a, %bias : (tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %c = tg.mul %b, %s : (tensor<1x16x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %c : tensor<1x16x8x8xf32>
}

// -----

// A depthwise convolution runs blocked too (filters as OIHW1i16o), so the transform
// between it and the next conv cancels; a grouped (not depthwise) convolution and one with
// fewer than 4 outputs stay NCHW.
// CHECK-LABEL: func.func @depthwise_and_stays
// CHECK:      %[[XB:.*]] = tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"}
// CHECK:      %[[DW:.*]] = tg.layout_transform %dw {src = "OIHW", dst = "OIHW1i16o"} : tensor<16x1x3x3xf32> -> tensor<1x1x3x3x1x16xf32>
// CHECK:      %[[A:.*]] = tg.depthwise_conv2d_nchwc %[[XB]], %[[DW]] {{{.*}}} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x1x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %a = tg.layout_transform %[[A]] {src = "NCHW16c", dst = "NCHW"}
// CHECK:      tg.conv2d %a, %g {{{.*}}groups = 2 : i64{{.*}}}
// CHECK:      tg.conv2d %{{.*}}, %w
func.func @depthwise_and_stays(%x: tensor<1x16x8x8xf32>, %dw: tensor<16x1x3x3xf32>, %g: tensor<16x8x1x1xf32>, %w: tensor<3x16x1x1xf32>) -> tensor<1x3x8x8xf32> {
  %a = tg.conv2d %x, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %c = tg.conv2d %a, %g {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x16x8x8xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x8x8xf32>
  %b = tg.conv2d %c, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<3x16x1x1xf32>) -> tensor<1x3x8x8xf32>
  func.return %b : tensor<1x3x8x8xf32>
}

// -----

// A depthwise convolution with no other convolution around it (through element-wise ops)
// stays NCHW where it has unit stride along the rows and at most 3x3 taps (it vectorizes
// along the rows, and blocking would cost a conversion in and one out); with stride 2, or
// 7x7 taps, it is blocked. One that reaches a convolution through a relu is blocked, at
// stride 1 too.
// CHECK-LABEL: func.func @depthwise_alone
// CHECK-NOT:  tg.layout_transform
// CHECK:      %[[R:.*]] = tg.relu %x
// CHECK-NEXT: %a = tg.conv2d %[[R]], %dw {{{.*}}groups = 16 : i64{{.*}}}
// CHECK-NEXT: %b = tg.sigmoid %a
// CHECK:      %[[S:.*]] = tg.depthwise_conv2d_nchwc %{{.*}}, %{{.*}} {{{.*}}strides = array<i64: 2, 2>{{.*}}}
// CHECK:      tg.depthwise_conv2d_nchwc %{{.*}}, %{{.*}} {{{.*}}pads = array<i64: 3, 3, 3, 3>{{.*}}}
// CHECK:      func.return %b, %{{.*}}, %{{.*}}, %{{.*}}
// CHECK-LABEL: func.func @depthwise_near_conv
// CHECK:      tg.depthwise_conv2d_nchwc
// CHECK:      tg.conv2d_nchwc
func.func @depthwise_alone(%x: tensor<1x16x8x8xf32>, %dw: tensor<16x1x3x3xf32>, %dw7: tensor<16x1x7x7xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %r = tg.relu %x : tensor<1x16x8x8xf32>
  %a = tg.conv2d %r, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %b = tg.sigmoid %a : tensor<1x16x8x8xf32>
  %s = tg.conv2d %x, %dw {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
  %l = tg.conv2d %x, %dw7 {strides = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x7x7xf32>) -> tensor<1x16x8x8xf32>
  func.return %b, %s, %r, %l : tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}

func.func @depthwise_near_conv(%x: tensor<1x16x8x8xf32>, %dw: tensor<16x1x3x3xf32>, %w: tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %a = tg.conv2d %x, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %r = tg.relu %a : tensor<1x16x8x8xf32>
  %b = tg.conv2d %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  func.return %b : tensor<1x16x8x8xf32>
}

// -----

// A matmul or gemm by a constant becomes dense_packed on the weight packed as
// [N/16, K, 16]: pad to whole blocks, reshape, transpose (tg-fold-constants evaluates
// them). Gemm's C becomes an add after it; gemm's b^T packs from [N, K] directly.
// CHECK-LABEL: func.func @dense
// CHECK:      %[[P:.*]] = tg.pad %w {pads = array<i64: 0, 0, 0, 8>, mode = "constant"} : tensor<64x40xf32> -> tensor<64x48xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<64x48xf32> -> tensor<64x3x16xf32>
// CHECK-NEXT: %[[T:.*]] = tg.transpose %[[R]] {perm = array<i64: 1, 0, 2>} : tensor<64x3x16xf32> -> tensor<3x64x16xf32>
// CHECK-NEXT: %y = tg.dense_packed %a, %[[T]] {columns = 40 : i64} : (tensor<2x8x64xf32>, tensor<3x64x16xf32>) -> tensor<2x8x40xf32>
// CHECK:      %[[R2:.*]] = tg.reshape %wt : tensor<32x64xf32> -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[T2:.*]] = tg.transpose %[[R2]] {perm = array<i64: 0, 2, 1>} : tensor<2x16x64xf32> -> tensor<2x64x16xf32>
// CHECK-NEXT: %[[D:.*]] = tg.dense_packed %v, %[[T2]] {columns = 32 : i64}
// CHECK-NEXT: %g = tg.add %[[D]], %c : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
func.func @dense(%a: tensor<2x8x64xf32>, %v: tensor<4x64xf32>, %c: tensor<32xf32>) -> (tensor<2x8x40xf32>, tensor<4x32xf32>) {
  %w = tg.constant dense<0.5> : tensor<64x40xf32>
  %wt = tg.constant dense<0.25> : tensor<32x64xf32>
  %y = tg.matmul %a, %w : (tensor<2x8x64xf32>, tensor<64x40xf32>) -> tensor<2x8x40xf32>
  %g = tg.gemm %v, %wt, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  func.return %y, %g : tensor<2x8x40xf32>, tensor<4x32xf32>
}

// -----

// 17 columns: no vector of 8 or more divides them, so the product computes the packed
// weight's whole second block (zero columns) and a slice cuts the 17 off; the bias is
// added to the slice. 40 columns (above) divide by 8: computed as they are.
// CHECK-LABEL: func.func @dense_odd_columns
// CHECK:      %[[T:.*]] = tg.transpose {{.*}} -> tensor<2x64x16xf32>
// CHECK-NEXT: %[[D:.*]] = tg.dense_packed %a, %[[T]] {columns = 32 : i64} : (tensor<64x64xf32>, tensor<2x64x16xf32>) -> tensor<64x32xf32>
// CHECK-NEXT: %[[S:.*]] = tg.slice %[[D]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<64x32xf32> -> tensor<64x17xf32>
// CHECK-NEXT: %y = tg.add %[[S]], %c : (tensor<64x17xf32>, tensor<17xf32>) -> tensor<64x17xf32>
func.func @dense_odd_columns(%a: tensor<64x64xf32>, %c: tensor<17xf32>) -> tensor<64x17xf32> {
  %w = tg.constant dense<0.5> : tensor<17x64xf32>
  %y = tg.gemm %a, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<64x64xf32>, tensor<17x64xf32>, tensor<17xf32>) -> tensor<64x17xf32>
  func.return %y : tensor<64x17xf32>
}

// -----

// Not packed: a weight that is a function argument (not constant), and a gemm whose
// alpha is not 1 (its b^T is still transposed once).
// CHECK-LABEL: func.func @not_dense
// CHECK-NOT:  tg.dense_packed
// CHECK:      tg.matmul %a, %w
// CHECK:      tg.transpose %wt {perm = array<i64: 1, 0>}
// CHECK:      tg.gemm
// CHECK-NOT:  tg.dense_packed
func.func @not_dense(%a: tensor<8x64xf32>, %w: tensor<64x32xf32>, %v: tensor<4x64xf32>) -> (tensor<8x32xf32>, tensor<4x32xf32>) {
  %wt = tg.constant dense<0.25> : tensor<32x64xf32>
  %y = tg.matmul %a, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %g = tg.gemm %v, %wt {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x64xf32>, tensor<32x64xf32>) -> tensor<4x32xf32>
  func.return %y, %g : tensor<8x32xf32>, tensor<4x32xf32>
}

// -----

// 12 output channels: zero filters (and bias) pad them to a block of 16, the blocked conv
// runs, and a slice keeps the 12 real channels. Fewer than 4 stay in NCHW.
// CHECK-LABEL: func.func @padded_outputs
// CHECK:      %[[W:.*]] = tg.pad %w {pads = array<i64: 0, 0, 0, 0, 4, 0, 0, 0>, mode = "constant"} : tensor<12x16x3x3xf32> -> tensor<16x16x3x3xf32>
// CHECK-NEXT: %[[B:.*]] = tg.pad %b {pads = array<i64: 0, 4>, mode = "constant"} : tensor<12xf32> -> tensor<16xf32>
// CHECK:      %[[Y:.*]] = tg.conv2d_nchwc %{{.*}}, %{{.*}}, %[[B]] {{{.*}}} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>, tensor<16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %[[U:.*]] = tg.layout_transform %[[Y]] {src = "NCHW16c", dst = "NCHW"} : tensor<1x1x8x8x16xf32> -> tensor<1x16x8x8xf32>
// CHECK-NEXT: %a = tg.slice %[[U]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x12x8x8xf32>
// CHECK:      tg.conv2d %x, %w3
func.func @padded_outputs(%x: tensor<1x16x8x8xf32>, %b: tensor<12xf32>) -> (tensor<1x12x8x8xf32>, tensor<1x3x8x8xf32>) {
  %w = tg.constant dense<0.5> : tensor<12x16x3x3xf32>
  %w3 = tg.constant dense<0.5> : tensor<3x16x1x1xf32>
  %a = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<12x16x3x3xf32>, tensor<12xf32>) -> tensor<1x12x8x8xf32>
  %c = tg.conv2d %x, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<3x16x1x1xf32>) -> tensor<1x3x8x8xf32>
  func.return %a, %c : tensor<1x12x8x8xf32>, tensor<1x3x8x8xf32>
}

// -----

// A transposed convolution after tg-conv-transpose-to-conv: the phase shuffle
// (depth_to_space) and the crop (a negative pad of H and W) run on the blocked data, so
// the chain conv -> shuffle -> crop -> relu -> conv has no layout conversion inside.
// CHECK-LABEL: func.func @shuffle_stays_blocked
// CHECK:      %[[C:.*]] = tg.conv2d_nchwc
// CHECK-NEXT: %[[D:.*]] = tg.depth_to_space %[[C]] {blocksize = 2 : i64, mode = "DCR"} : tensor<1x4x5x5x16xf32> -> tensor<1x1x10x10x16xf32>
// CHECK-NEXT: %[[P:.*]] = tg.pad %[[D]] {pads = array<i64: 0, 0, -1, -1, 0, 0, 0, -1, -1, 0>, mode = "constant"} : tensor<1x1x10x10x16xf32> -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[P]] : tensor<1x1x8x8x16xf32>
// CHECK:      tg.conv2d_nchwc %[[R]]
func.func @shuffle_stays_blocked(%x: tensor<1x8x5x5xf32>) -> tensor<1x16x8x8xf32> {
  %w = tg.constant dense<0.5> : tensor<64x8x1x1xf32>
  %w2 = tg.constant dense<0.25> : tensor<16x16x3x3xf32>
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x5x5xf32>, tensor<64x8x1x1xf32>) -> tensor<1x64x5x5xf32>
  %d = tg.depth_to_space %c {blocksize = 2 : i64, mode = "DCR"} : tensor<1x64x5x5xf32> -> tensor<1x16x10x10xf32>
  %p = tg.pad %d {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>, mode = "constant"} : tensor<1x16x10x10xf32> -> tensor<1x16x8x8xf32>
  %r = tg.relu %p : tensor<1x16x8x8xf32>
  %y = tg.conv2d %r, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

// A matrix computed at run time is packed by a kernel when at least 32 rows reuse it
// (one pass over B, against one per row block of the product); with fewer it is read
// as it is (see @not_dense).
// CHECK-LABEL: func.func @runtime_packing
// CHECK:      %[[R:.*]] = tg.reshape %b : tensor<48x64xf32> -> tensor<48x4x16xf32>
// CHECK-NEXT: %[[T:.*]] = tg.transpose %[[R]] {perm = array<i64: 1, 0, 2>} : tensor<48x4x16xf32> -> tensor<4x48x16xf32>
// CHECK-NEXT: %y = tg.dense_packed %a, %[[T]] {columns = 64 : i64} : (tensor<32x48xf32>, tensor<4x48x16xf32>) -> tensor<32x64xf32>
func.func @runtime_packing(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>) -> tensor<32x64xf32> {
  %y = tg.matmul %a, %b : (tensor<32x48xf32>, tensor<48x64xf32>) -> tensor<32x64xf32>
  func.return %y : tensor<32x64xf32>
}

// -----

// ResNeXt's grouped 3x3 convolution, 32 groups of 4 channels: four neighbouring groups are
// merged into one of 16 (their weight block-diagonal: an identity mask over the groups), and
// the 8 merged groups run as a grouped conv2d_nchwc, each output block reading its group's
// input block.
// CHECK-LABEL: func.func @resnext_group
// CHECK:      %[[W7:.*]] = tg.reshape %w : tensor<128x4x3x3xf32> -> tensor<8x4x4x1x4x3x3xf32>
// CHECK:      %[[EYE:.*]] = tg.constant dense<{{.*}}> : tensor<1x4x1x4x1x1x1xf32>
// CHECK:      %[[M:.*]] = tg.mul %[[W7]], %[[EYE]] : {{.*}} -> tensor<8x4x4x4x4x3x3xf32>
// CHECK:      %[[WM:.*]] = tg.reshape %[[M]] : tensor<8x4x4x4x4x3x3xf32> -> tensor<128x16x3x3xf32>
// CHECK:      %[[WB:.*]] = tg.layout_transform %[[WM]] {src = "OIHW", dst = "OIHW16i16o"} : tensor<128x16x3x3xf32> -> tensor<8x1x3x3x16x16xf32>
// CHECK:      tg.conv2d_nchwc %{{.*}}, %[[WB]] {{.*}}groups = 8 : i64{{.*}} : (tensor<1x8x8x8x16xf32>, tensor<8x1x3x3x16x16xf32>) -> tensor<1x8x8x8x16xf32>
// CHECK-NOT:  tg.conv2d %
func.func @resnext_group(%x: tensor<1x128x8x8xf32>) -> tensor<1x128x8x8xf32> {
  %w = tg.weight @w : tensor<128x4x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 32 : i64} : (tensor<1x128x8x8xf32>, tensor<128x4x3x3xf32>) -> tensor<1x128x8x8xf32>
  func.return %y : tensor<1x128x8x8xf32>
}

// -----

// RegNet-Y-400MF's 13 groups of 8 do not merge in pairs: a 14th group of zero filters is
// appended (its 8 input channels zero-weighted padding, marked so that tg-layout may read
// a padded view's padding there instead), then pairs merge into 7 groups of 16.
// CHECK-LABEL: func.func @regnet_odd_groups
// CHECK:      %[[WP:.*]] = tg.pad %w {pads = array<i64: 0, 0, 0, 0, 8, 0, 0, 0>, mode = "constant"} : tensor<104x8x3x3xf32> -> tensor<112x8x3x3xf32>
// CHECK:      %[[W7:.*]] = tg.reshape %[[WP]] : tensor<112x8x3x3xf32> -> tensor<7x2x8x1x8x3x3xf32>
// CHECK:      %[[XP:.*]] = tg.pad %x {tg.zero_weighted, pads = array<i64: 0, 0, 0, 0, 0, 8, 0, 0>, mode = "constant"} : tensor<1x104x8x8xf32> -> tensor<1x112x8x8xf32>
// CHECK:      %[[XB:.*]] = tg.layout_transform %[[XP]] {src = "NCHW", dst = "NCHW16c"} : tensor<1x112x8x8xf32> -> tensor<1x7x8x8x16xf32>
// CHECK:      %[[Y:.*]] = tg.conv2d_nchwc %[[XB]], %{{.*}} {{.*}}groups = 7 : i64{{.*}} : (tensor<1x7x8x8x16xf32>, tensor<7x1x3x3x16x16xf32>) -> tensor<1x7x8x8x16xf32>
// CHECK:      %[[YN:.*]] = tg.layout_transform %[[Y]] {src = "NCHW16c", dst = "NCHW"} : tensor<1x7x8x8x16xf32> -> tensor<1x112x8x8xf32>
// CHECK:      tg.slice %[[YN]] {{.*}} : tensor<1x112x8x8xf32> -> tensor<1x104x8x8xf32>
// CHECK-NOT:  tg.conv2d %
func.func @regnet_odd_groups(%x: tensor<1x104x8x8xf32>) -> tensor<1x104x8x8xf32> {
  %w = tg.weight @w : tensor<104x8x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 13 : i64} : (tensor<1x104x8x8xf32>, tensor<104x8x3x3xf32>) -> tensor<1x104x8x8xf32>
  func.return %y : tensor<1x104x8x8xf32>
}

// -----

// Groups of 2 channels would take 8 merged groups to fill a block (8x the multiplications):
// the conv stays in NCHW.
// CHECK-LABEL: func.func @narrow_groups
// CHECK:      tg.conv2d %x, %w {{.*}}groups = 16 : i64
// CHECK-NOT:  tg.conv2d_nchwc
func.func @narrow_groups(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = tg.weight @w : tensor<32x2x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x32x8x8xf32>, tensor<32x2x3x3xf32>) -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}

// -----

// A max pool and a global average of blocked data run blocked (layout = "NCHW16c"); a
// channel concat of blocked pieces concatenates whole blocks along dim 1 (an NCHW piece of
// whole blocks is converted): no conversion between the convolutions.
// CHECK-LABEL: func.func @pool_and_concat_stay_blocked
// CHECK:      %[[A:.*]] = tg.conv2d_nchwc %{{.*}}, %{{.*}} {{.*}} -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %[[P:.*]] = tg.max_pool2d %[[A]] {{.*}}layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK:      %[[B:.*]] = tg.conv2d_nchwc %[[P]], %{{.*}} -> tensor<1x1x4x4x16xf32>
// CHECK:      %[[E:.*]] = tg.layout_transform %e {src = "NCHW", dst = "NCHW16c"} : tensor<1x16x4x4xf32> -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %[[C:.*]] = tg.concat %[[P]], %[[B]], %[[E]] {axis = 1 : i64} : (tensor<1x2x4x4x16xf32>, tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x4x4x4x16xf32>
// CHECK-NEXT: %[[G:.*]] = tg.global_avg_pool2d %[[C]] {layout = "NCHW16c"} : (tensor<1x4x4x4x16xf32>) -> tensor<1x4x1x1x16xf32>
// CHECK-NEXT: tg.layout_transform %[[G]] {src = "NCHW16c", dst = "NCHW"} : tensor<1x4x1x1x16xf32> -> tensor<1x64x1x1xf32>
func.func @pool_and_concat_stay_blocked(%x: tensor<1x16x8x8xf32>, %w1: tensor<32x16x3x3xf32>, %w2: tensor<16x32x1x1xf32>, %e: tensor<1x16x4x4xf32>) -> tensor<1x64x1x1xf32> {
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %p = tg.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
  %b = tg.conv2d %p, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x4x4xf32>
  %c = tg.concat %p, %b, %e {axis = 1 : i64} : (tensor<1x32x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x64x4x4xf32>
  %g = tg.global_avg_pool2d %c : (tensor<1x64x4x4xf32>) -> tensor<1x64x1x1xf32>
  func.return %g : tensor<1x64x1x1xf32>
}

// -----

// What stays NCHW: a max pool with Indices (flat NCHW positions), a concat along another
// axis, a concat with a piece of a partial block (8 channels), an Lp pool.
// CHECK-LABEL: func.func @pool_and_concat_stay_nchw
// CHECK:      tg.max_pool2d %{{.*}} : (tensor<1x32x8x8xf32>) -> (tensor<1x32x4x4xf32>, tensor<1x32x4x4xi64>)
// CHECK:      tg.concat %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x16x8xf32>
// CHECK:      tg.concat %{{.*}}, %e {axis = 1 : i64} : (tensor<1x32x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x40x8x8xf32>
// CHECK:      tg.lp_pool2d %{{.*}} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NOT:  layout = "NCHW16c"
func.func @pool_and_concat_stay_nchw(%x: tensor<1x16x8x8xf32>, %w1: tensor<32x16x3x3xf32>, %e: tensor<1x8x8x8xf32>) -> (tensor<1x32x4x4xf32>, tensor<1x32x4x4xi64>, tensor<1x32x16x8xf32>, tensor<1x40x8x8xf32>, tensor<1x32x4x4xf32>) {
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %p, %i = tg.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x32x8x8xf32>) -> (tensor<1x32x4x4xf32>, tensor<1x32x4x4xi64>)
  %h = tg.concat %a, %a {axis = 2 : i64} : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x16x8xf32>
  %c = tg.concat %a, %e {axis = 1 : i64} : (tensor<1x32x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x40x8x8xf32>
  %l = tg.lp_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 2 : i64} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
  func.return %p, %i, %h, %c, %l : tensor<1x32x4x4xf32>, tensor<1x32x4x4xi64>, tensor<1x32x16x8xf32>, tensor<1x40x8x8xf32>, tensor<1x32x4x4xf32>
}

// -----

// Channels that do not fill a block (24 = 16 + 8) are carried padded: the first conv
// computes 32 channels (zero filters), the relu, the depthwise conv (zero filters and bias
// for the padding) and a HardSwish run on the padded data, and the last conv reads it with
// zero weights for the 8 padding inputs (the weight padded before its conversion). Only the
// model's input and output convert.
// CHECK-LABEL: func.func @padded_channels
// CHECK:      %[[A:.*]] = tg.conv2d_nchwc %{{.*}}, %{{.*}} {{.*}} -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[A]] : tensor<1x2x8x8x16xf32>
// CHECK:      %[[D:.*]] = tg.depthwise_conv2d_nchwc %[[R]], %{{.*}}, %{{.*}} {{.*}} -> tensor<1x2x8x8x16xf32>
// CHECK:      tg.clip %{{.*}} : tensor<1x2x8x8x16xf32>
// CHECK:      %[[S:.*]] = tg.div %{{.*}}, %{{.*}} : (tensor<1x2x8x8x16xf32>, tensor<1x1x1x1x1xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK:      %[[W:.*]] = tg.pad %w3 {pads = array<i64: 0, 0, 0, 0, 0, 8, 0, 0>, mode = "constant"} : tensor<16x24x1x1xf32> -> tensor<16x32x1x1xf32>
// CHECK-NEXT: %[[WB:.*]] = tg.layout_transform %[[W]] {src = "OIHW", dst = "OIHW16i16o"}
// CHECK-NEXT: %[[Y:.*]] = tg.conv2d_nchwc %[[S]], %[[WB]]
// CHECK-NEXT: tg.layout_transform %[[Y]] {src = "NCHW16c", dst = "NCHW"}
// CHECK-NOT:  tg.slice
// CHECK:      func.return
func.func @padded_channels(%x: tensor<1x16x8x8xf32>, %w1: tensor<24x16x3x3xf32>, %wd: tensor<24x1x3x3xf32>, %bd: tensor<24xf32>, %w3: tensor<16x24x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<24x16x3x3xf32>) -> tensor<1x24x8x8xf32>
  %r = tg.relu %a : tensor<1x24x8x8xf32>
  %d = tg.conv2d %r, %wd, %bd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 24 : i64} : (tensor<1x24x8x8xf32>, tensor<24x1x3x3xf32>, tensor<24xf32>) -> tensor<1x24x8x8xf32>
  %three = tg.constant dense<3.0> : tensor<f32>
  %six = tg.constant dense<6.0> : tensor<f32>
  %p = tg.add %d, %three : (tensor<1x24x8x8xf32>, tensor<f32>) -> tensor<1x24x8x8xf32>
  %c = tg.clip %p {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x24x8x8xf32>
  %m = tg.mul %d, %c : (tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %s = tg.div %m, %six : (tensor<1x24x8x8xf32>, tensor<f32>) -> tensor<1x24x8x8xf32>
  %y = tg.conv2d %s, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x24x8x8xf32>, tensor<16x24x1x1xf32>) -> tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

// What is not finite on padding stays on the sliced NCHW view: a log (log 0 = -inf, which
// the next convolution's zero weights would turn into NaN) and a division by a per-channel
// value (its padding would be zeros).
// CHECK-LABEL: func.func @padded_channels_not_moved
// CHECK:      %[[A:.*]] = tg.conv2d_nchwc
// CHECK-NEXT: %[[B:.*]] = tg.layout_transform %[[A]] {src = "NCHW16c", dst = "NCHW"} : tensor<1x2x8x8x16xf32> -> tensor<1x32x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = tg.slice %[[B]] {{.*}} : tensor<1x32x8x8xf32> -> tensor<1x24x8x8xf32>
// CHECK-NEXT: tg.log %[[S]] : tensor<1x24x8x8xf32>
// CHECK-NEXT: tg.div %[[S]], %v : (tensor<1x24x8x8xf32>, tensor<24x1x1xf32>) -> tensor<1x24x8x8xf32>
func.func @padded_channels_not_moved(%x: tensor<1x16x8x8xf32>, %w1: tensor<24x16x3x3xf32>, %v: tensor<24x1x1xf32>) -> (tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) {
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<24x16x3x3xf32>) -> tensor<1x24x8x8xf32>
  %l = tg.log %a : tensor<1x24x8x8xf32>
  %q = tg.div %a, %v : (tensor<1x24x8x8xf32>, tensor<24x1x1xf32>) -> tensor<1x24x8x8xf32>
  func.return %l, %q : tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>
}
