// A 3-channel first layer (CPU) feeding a 16-channel one (VTA).
func.func @main(%x: tensor<1x3x8x8xi8>) -> tensor<1x16x8x8xi8> {
  %w1 = tg.constant dense<2> : tensor<16x3x3x3xi32>
  %w2 = tg.constant dense<-1> : tensor<16x16x1x1xi32>
  %xi = tg.cast %x : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xi32>
  %c1 = tg.conv2d %xi, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xi32>, tensor<16x3x3x3xi32>) -> tensor<1x16x8x8xi32>
  %r1 = tg.relu %c1 : tensor<1x16x8x8xi32>
  %s1 = tg.shift_right %r1 {amount = 3 : i64} : tensor<1x16x8x8xi32>
  %l1 = tg.clip %s1 {min = -128 : i32, max = 127 : i32} : tensor<1x16x8x8xi32>
  %y1 = tg.cast %l1 : tensor<1x16x8x8xi32> -> tensor<1x16x8x8xi8>
  %yi = tg.cast %y1 : tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi32>
  %c2 = tg.conv2d %yi, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xi32>, tensor<16x16x1x1xi32>) -> tensor<1x16x8x8xi32>
  %s2 = tg.shift_right %c2 {amount = 2 : i64} : tensor<1x16x8x8xi32>
  %y2 = tg.cast %s2 : tensor<1x16x8x8xi32> -> tensor<1x16x8x8xi8>
  func.return %y2 : tensor<1x16x8x8xi8>
}
