// RUN: %tessel-opt %s -p tg-bf16-conv --split-input-file | filecheck %s

// tg-bf16-conv (--precision bf16) turns a tg.conv2d_nchwc whose weight is known into
// tg.conv2d_nchwc_bf16 over the weight as bfloat16 pairs of input channels: [MO, CO, kH,
// kW, cb/2, mb] i32, word = channel 2p + 1 << 16 | channel 2p (ties to even).
//   lane 0:  channels 1.0 | -1.0       -> 0xBF803F80 = -1082114176
//   lane 1:  channels 2.0 | 1 + 2^-8   -> the tie goes to the even 1.0: 0x3F804000 = 1065369600
// CHECK-LABEL: func.func @pairs
// CHECK:         %[[W:.+]] = tg.constant dense<{{\[\[\[\[\[\[}}-1082114176, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600, 1065369600]]]]]]> : tensor<1x1x1x1x1x16xi32>
// CHECK-NEXT:    %y = tg.conv2d_nchwc_bf16 %x, %[[W]], %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3x2xf32>, tensor<1x1x1x1x1x16xi32>, tensor<16xf32>) -> tensor<1x1x3x3x16xf32>
func.func @pairs(%x: tensor<1x1x3x3x2xf32>, %b: tensor<16xf32>) -> tensor<1x1x3x3x16xf32> {
  %w = tg.constant dense<[[[[[[1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [-1.0, 1.00390625, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]]]]]> : tensor<1x1x1x1x2x16xf32>
  %y = tg.conv2d_nchwc %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3x2xf32>, tensor<1x1x1x1x2x16xf32>, tensor<16xf32>) -> tensor<1x1x3x3x16xf32>
  func.return %y : tensor<1x1x3x3x16xf32>
}

// -----

// An odd input block (the stem's 3 image channels) and a weight known only at run time stay float32.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: tg.conv2d_nchwc %
// CHECK-NOT:     tg.conv2d_nchwc_bf16
func.func @kept(%x: tensor<1x1x3x3x3xf32>, %x2: tensor<1x1x3x3x2xf32>, %w2: tensor<1x1x1x1x2x16xf32>) -> (tensor<1x1x3x3x16xf32>, tensor<1x1x3x3x16xf32>) {
  %w = tg.constant dense<1.0> : tensor<1x1x1x1x3x16xf32>
  %y = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3x3xf32>, tensor<1x1x1x1x3x16xf32>) -> tensor<1x1x3x3x16xf32>
  %z = tg.conv2d_nchwc %x2, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3x2xf32>, tensor<1x1x1x1x2x16xf32>) -> tensor<1x1x3x3x16xf32>
  func.return %y, %z : tensor<1x1x3x3x16xf32>, tensor<1x1x3x3x16xf32>
}
