// CMD: tessel-opt %s -p vta-codegen{vthreads=3} -o %o
// ERROR: virtual threads must be 1, 2 or 4, got 3
func.func @l(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}
