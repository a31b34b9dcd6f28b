// CMD: tessel-opt %s -o %o
// ERROR: 'vta.conv2d' op input must have element type i8, got f32
func.func @h(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  %y = vta.conv2d %x, %w {stride = 1 : i64, pads = array<i64: 1, 1, 1, 1>, shift = 7 : i64, clip = array<i64: 0, 127>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}
