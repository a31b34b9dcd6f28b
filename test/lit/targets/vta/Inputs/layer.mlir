func.func @main(%x: tensor<1x16x8x8xi8>) -> tensor<1x32x8x8xi8> {
  %wall = tg.constant dense<-7> : tensor<32x16x3x3xi32>
  %b = tg.constant dense<100> : tensor<32xi32>
  %xi = tg.cast %x : tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi32>
  %c = tg.conv2d %xi, %wall, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xi32>, tensor<32x16x3x3xi32>, tensor<32xi32>) -> tensor<1x32x8x8xi32>
  %s = tg.shift_right %c {amount = 6 : i64} : tensor<1x32x8x8xi32>
  %l = tg.clip %s {min = -128 : i32, max = 127 : i32} : tensor<1x32x8x8xi32>
  %y = tg.cast %l : tensor<1x32x8x8xi32> -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}
