// RUN: %tessel-opt %s --split-input-file -p tg-to-vta | filecheck %s

// The int8 chain (widen, conv2d with bias, relu, shift, clip, narrow) becomes one vta.conv2d;
// the i32 constant weight fits int8 and is narrowed.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %[[W:.*]] = tg.constant dense<3> : tensor<16x16x3x3xi8>
// CHECK-NEXT:    %[[B:.*]] = tg.constant dense<-5> : tensor<16xi32>
// CHECK-NEXT:    %[[Y:.*]] = vta.conv2d %x, %[[W]], %[[B]] (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 4, relu, clip = [-128, 127])
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv(%x: tensor<1x16x8x8xi8>) -> tensor<1x16x8x8xi8> {
  %w = tg.constant dense<3> : tensor<16x16x3x3xi32>
  %b = tg.constant dense<-5> : tensor<16xi32>
  %xi = tg.cast %x : tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi32>
  %c = tg.conv2d %xi, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xi32>, tensor<16x16x3x3xi32>, tensor<16xi32>) -> tensor<1x16x8x8xi32>
  %r = tg.relu %c : tensor<1x16x8x8xi32>
  %s = tg.shift_right %r {amount = 4 : i64} : tensor<1x16x8x8xi32>
  %l = tg.clip %s {min = -128 : i32, max = 127 : i32} : tensor<1x16x8x8xi32>
  %y = tg.cast %l : tensor<1x16x8x8xi32> -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}

// -----

// Three input channels: the chain stays in tg and says why (it runs on the CPU).
// CHECK-LABEL: func.func @three_channels
// CHECK:         tg.conv2d {{.*}}vta.host = "3 input channels are not a multiple of 16"
// CHECK-NOT:     vta.conv2d
func.func @three_channels(%x: tensor<1x3x8x8xi8>, %w: tensor<16x3x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %xi = tg.cast %x : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xi32>
  %wi = tg.cast %w : tensor<16x3x3x3xi8> -> tensor<16x3x3x3xi32>
  %c = tg.conv2d %xi, %wi {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xi32>, tensor<16x3x3x3xi32>) -> tensor<1x16x8x8xi32>
  %y = tg.cast %c : tensor<1x16x8x8xi32> -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}

// -----

// The accumulator has a second use: fusing would lose it, so nothing changes.
// CHECK-LABEL: func.func @shared
// CHECK-NOT:     vta.conv2d
func.func @shared(%x: tensor<1x16x4x4xi8>, %w: tensor<16x16x1x1xi8>) -> (tensor<1x16x4x4xi8>, tensor<1x16x4x4xi32>) {
  %xi = tg.cast %x : tensor<1x16x4x4xi8> -> tensor<1x16x4x4xi32>
  %wi = tg.cast %w : tensor<16x16x1x1xi8> -> tensor<16x16x1x1xi32>
  %c = tg.conv2d %xi, %wi {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x4x4xi32>, tensor<16x16x1x1xi32>) -> tensor<1x16x4x4xi32>
  %y = tg.cast %c : tensor<1x16x4x4xi32> -> tensor<1x16x4x4xi8>
  func.return %y, %c : tensor<1x16x4x4xi8>, tensor<1x16x4x4xi32>
}

// -----

// A matmul with a bias becomes a 1x1 convolution over a 1 x M image.
// CHECK-LABEL: func.func @matmul
// CHECK:         tg.transpose %x {perm = array<i64: 1, 0>} : tensor<4x32xi8> -> tensor<32x4xi8>
// CHECK:         tg.reshape {{.*}} : tensor<32x4xi8> -> tensor<1x32x1x4xi8>
// CHECK:         tg.reshape {{.*}} : tensor<16x32xi8> -> tensor<16x32x1x1xi8>
// CHECK:         vta.conv2d {{.*}} (stride = 1, pads = <top = 0, left = 0, bottom = 0, right = 0>, shift = 2, clip = [-2147483648, 2147483647]) : (tensor<1x32x1x4xi8>, tensor<16x32x1x1xi8>, tensor<16xi32>) -> tensor<1x16x1x4xi8>
// CHECK:         tg.transpose {{.*}} : tensor<16x4xi8> -> tensor<4x16xi8>
func.func @matmul(%x: tensor<4x32xi8>, %w: tensor<32x16xi8>, %b: tensor<16xi32>) -> tensor<4x16xi8> {
  %xi = tg.cast %x : tensor<4x32xi8> -> tensor<4x32xi32>
  %wi = tg.cast %w : tensor<32x16xi8> -> tensor<32x16xi32>
  %p = tg.matmul %xi, %wi : (tensor<4x32xi32>, tensor<32x16xi32>) -> tensor<4x16xi32>
  %pb = tg.add %p, %b : (tensor<4x16xi32>, tensor<16xi32>) -> tensor<4x16xi32>
  %s = tg.shift_right %pb {amount = 2 : i64} : tensor<4x16xi32>
  %y = tg.cast %s : tensor<4x16xi32> -> tensor<4x16xi8>
  func.return %y : tensor<4x16xi8>
}
