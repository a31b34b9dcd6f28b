// CMD: tessel-opt %s -o %o
// ERROR: 'tg.avg_pool2d' op input must have rank 4, got tensor<4x4xf32>
func.func @main(%x: tensor<4x4xf32>) -> tensor<3x3xf32> {
  %y = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<4x4xf32>) -> tensor<3x3xf32>
  func.return %y : tensor<3x3xf32>
}
