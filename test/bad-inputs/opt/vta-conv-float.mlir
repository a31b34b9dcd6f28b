// CMD: tessel-opt %s -o %o
// ERROR: Expected attribute i8 but got f32
func.func @h(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}
