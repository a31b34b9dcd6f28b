// CMD: tessel-opt %s -o %o
// ERROR: 'tg.conv2d' op conv2d pads must be non-negative, got [-1, -1, -1, -1]
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %y = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: -1, -1, -1, -1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}
