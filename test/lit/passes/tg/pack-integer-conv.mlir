// RUN: %tessel-opt %s -p tg-pack-integer-conv --split-input-file | filecheck %s

// An int8 convolution with constant weights, zero weight zero point and one group feeds
// the CPU's byte dot products: the weights packed four input channels per i32 (byte j of
// word [mo, c4, kh, kw, mi] is w[16*mo + mi, 4*c4 + j, kh, kw]), and the input zero point's
// share of the centering folded into a per-channel offset, -u(xz) * sum(w[m]), where u
// reads the byte unsigned: int8 -3 is 125.
// CHECK-LABEL: func.func @packed
// CHECK-NEXT:    %xz = tg.constant dense<-3> : tensor<i8>
// CHECK-NEXT:    %w_packed = tg.constant dense<{{\[}}{{\[}}{{\[}}{{\[}}[-471670400, -404298268, -336926232, -269554196, -202182160, -134810124, -67438088, -66052, 50462976, 117835012, 185207048, 252579084, 319951120, 387323156, 454695192, 522067228]]]]]> : tensor<1x1x1x1x16xi32>
// CHECK-NEXT:    %w_offset = tg.constant dense<[27250, 13250, 11250, 9250, 7250, 5250, 3250, 1250, -750, -2750, -4750, -6750, -8750, -10750, -12750, -14750]> : tensor<16xi32>
// CHECK-NEXT:    %y = tg.conv2d_integer_packed %x, %w_packed, %xz, %w_offset {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x3x3xi8>, tensor<1x1x1x1x16xi32>, tensor<i8>, tensor<16xi32>) -> tensor<1x16x3x3xi32>
// CHECK-NEXT:    func.return %y
func.func @packed(%x: tensor<1x4x3x3xi8>) -> tensor<1x16x3x3xi32> {
  %xz = tg.constant dense<-3> : tensor<i8>
  %w = tg.constant dense<[[[[-128]], [[-31]], [[-30]], [[-29]]], [[[-28]], [[-27]], [[-26]], [[-25]]], [[[-24]], [[-23]], [[-22]], [[-21]]], [[[-20]], [[-19]], [[-18]], [[-17]]], [[[-16]], [[-15]], [[-14]], [[-13]]], [[[-12]], [[-11]], [[-10]], [[-9]]], [[[-8]], [[-7]], [[-6]], [[-5]]], [[[-4]], [[-3]], [[-2]], [[-1]]], [[[0]], [[1]], [[2]], [[3]]], [[[4]], [[5]], [[6]], [[7]]], [[[8]], [[9]], [[10]], [[11]]], [[[12]], [[13]], [[14]], [[15]]], [[[16]], [[17]], [[18]], [[19]]], [[[20]], [[21]], [[22]], [[23]]], [[[24]], [[25]], [[26]], [[27]]], [[[28]], [[29]], [[30]], [[31]]]]> : tensor<16x4x1x1xi8>
  %wz = tg.constant dense<0> : tensor<i8>
  %y = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x3x3xi8>, tensor<16x4x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x16x3x3xi32>
  func.return %y : tensor<1x16x3x3xi32>
}

// -----

// What vpdpbusd cannot compute stays as it is: a weight zero point other than 0 (it would
// need a sum over the input window per output), weights known only at run time, groups.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tg.conv2d_integer %
// CHECK-NOT:     tg.conv2d_integer_packed
func.func @kept(%x: tensor<1x16x3x3xui8>, %wr: tensor<16x16x1x1xi8>) -> (tensor<1x16x3x3xi32>, tensor<1x16x3x3xi32>, tensor<1x16x3x3xi32>) {
  %xz = tg.constant dense<3> : tensor<ui8>
  %w = tg.constant dense<1> : tensor<16x16x1x1xi8>
  %wg = tg.constant dense<1> : tensor<16x8x1x1xi8>
  %wz = tg.constant dense<0> : tensor<i8>
  %wz1 = tg.constant dense<1> : tensor<i8>
  %a = tg.conv2d_integer %x, %w, %xz, %wz1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x3x3xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x16x3x3xi32>
  %b = tg.conv2d_integer %x, %wr, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x3x3xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x16x3x3xi32>
  %c = tg.conv2d_integer %x, %wg, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x16x3x3xui8>, tensor<16x8x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x16x3x3xi32>
  func.return %a, %b, %c : tensor<1x16x3x3xi32>, tensor<1x16x3x3xi32>, tensor<1x16x3x3xi32>
}
